"""Where the demo project's data and the templates live.

From a checkout (``pip install -e .``) they sit beside the package. A plain ``pip install .``
does not ship them; `require` then fails with a message saying where it looked.
"""

from __future__ import annotations

import os
from pathlib import Path

from evidencedesk.errors import EvidencedeskError

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("EVIDENCEDESK_ROOT", PACKAGE_DIR.parent))
DATA = ROOT / "data"
TEMPLATES = ROOT / "templates"
CORPUS = DATA / "corpus"
DOCS = DATA / "docs"
DUPS = DATA / "dups"
TENANT_DOCS = DATA / "tenants"
LABELS = DATA / "labels.jsonl"
ANSWERS = DATA / "answers.jsonl"


def require(path: Path, what: str) -> Path:
    """Return `path` if it exists, else explain that the demo data/templates are missing."""
    if not path.exists():
        raise EvidencedeskError(
            f"{what} not found at {path}; evidencedesk looks for data/ and templates/ beside the "
            "package (install from a checkout with `pip install -e .`, or set EVIDENCEDESK_ROOT)"
        )
    return path
