"""Where the demo project's data and the report templates live.

Three places, first match wins:

1. ``EVIDENCEDESK_ROOT``, when set: a folder holding ``data/`` and ``templates/`` (an override,
   e.g. to try edited templates without reinstalling);
2. inside the installed package (``evidencedesk/data``, ``evidencedesk/templates``), found through
   `importlib.resources`: that is where a wheel (``pip install .``) carries them;
3. beside the package in a checkout (``pip install -e .``): the repository's top-level ``data/``
   and ``templates/`` (SPEC §0).

`_ROOT` is the folder that holds the two; paths under it are printed relative to it.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from evidencedesk.errors import EvidencedeskError

_PACKAGE_DIR = Path(__file__).resolve().parent  # the folder of the package's own modules
# the EVIDENCEDESK_ROOT folder that holds data/ and templates/, when the environment sets one
_OVERRIDE = os.environ.get("EVIDENCEDESK_ROOT") or None


def _installed() -> Path | None:
    """The package folder when it carries data/ and templates/ (a wheel install), else None."""
    here = resources.files("evidencedesk")
    # A wheel is installed unpacked, so this is a real folder; a zipped import is not supported
    # (jinja2's loader and the data readers need real files) and falls through to the error.
    if isinstance(here, Path) and (here / "templates").is_dir() and (here / "data").is_dir():
        return here
    return None


def _root() -> Path:
    if _OVERRIDE is not None:
        return Path(_OVERRIDE)
    return _installed() or _PACKAGE_DIR.parent


# the folder holding data/ and templates/: EVIDENCEDESK_ROOT, the installed package, or the checkout
_ROOT = _root()
DATA = _ROOT / "data"  # the demo project's folder
_TEMPLATES = _ROOT / "templates"  # the jinja2 templates and the stylesheet of the site
# the demo's knowledge-base documents (returns, shipping, service, recalls …)
CORPUS = DATA / "corpus"
DOCS = DATA / "docs"  # the demo's structured documents (size chart, spec sheet, service schedule)
DUPS = DATA / "dups"  # the demo's near-duplicate documents (the evidence checks' dedupe)
# the demo tenants' documents (the evidence checks' tenant isolation)
TENANT_DOCS = DATA / "tenants"
_LABELS = DATA / "labels.jsonl"  # the demo's labelled questions
_ANSWERS = DATA / "answers.jsonl"  # the demo's generated answers, scored by the citation checks


def _require(path: Path, what: str) -> Path:
    """Return `path` if it exists, else say where evidencedesk looked and why there."""
    if not path.exists():
        if _OVERRIDE is not None:
            where = f"EVIDENCEDESK_ROOT={_OVERRIDE} is set; unset it to use the installed copy"
        else:
            where = (
                "evidencedesk reads data/ and templates/ from inside its installed package or, "
                "from a checkout, beside it; reinstall (`pip install .`) or set EVIDENCEDESK_ROOT"
            )
        raise EvidencedeskError(f"{what} not found at {path}; {where}")
    return path
