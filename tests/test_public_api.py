"""The public API is small and declared (scikit-learn's private modules behind public ones): the
notebook calls (`evidencedesk.build`, `load_results`), the course page's import paths (SPEC §12),
the modules the docs import from, and the Results types. Every other module's name starts with an
underscore; a new public module, or a public API that grows past its bound, fails here first."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import api_reference as script  # noqa: E402

# the public modules: everything else under evidencedesk/ is private (a leading underscore)
PUBLIC_MODULES = (
    "evidencedesk",
    "evidencedesk.__main__",
    "evidencedesk.baseline",
    "evidencedesk.chunking",
    "evidencedesk.cli",
    "evidencedesk.errors",
    "evidencedesk.files",
    "evidencedesk.files.trec",
    "evidencedesk.gate",
    "evidencedesk.paths",
    "evidencedesk.report",
    "evidencedesk.report.__main__",
    "evidencedesk.results",
    "evidencedesk.results.since",
    "evidencedesk.results.types",
    "evidencedesk.retrieval",
    "evidencedesk.retrieval.beir",
    "evidencedesk.retrieval.benchmark",
    "evidencedesk.retrieval.catalog",
    "evidencedesk.retrieval.evalreport",
    "evidencedesk.retrieval.evidence",
    "evidencedesk.retrieval.labels",
    "evidencedesk.retrieval.lifecycle",
    "evidencedesk.retrieval.metrics",
    "evidencedesk.retrieval.minilm",
    "evidencedesk.retrieval.parts",
    "evidencedesk.retrieval.rerankers",
    "evidencedesk.retrieval.searchers",
    "evidencedesk.retrieval.trec_judge",
    "evidencedesk.version",
)
MAX_PUBLIC_NAMES = 275  # 838 across 116 modules before the modules went private


def test_every_other_module_is_private() -> None:
    public = [m.dotted for m in script.modules(ROOT)]
    assert sorted(public) == sorted(PUBLIC_MODULES)


def test_the_public_api_stays_small() -> None:
    names = sum(len(m.names) for m in script.modules(ROOT))
    assert names <= MAX_PUBLIC_NAMES, f"{names} public names"


def test_the_docs_import_only_public_modules() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = {
        (page.name, module)
        for page in pages
        if page.name != "api.md"
        for module in re.findall(r"from (evidencedesk[\w.]*) import", page.read_text("utf-8"))
    }
    assert found, "the docs import nothing: the pattern is wrong"
    private = sorted((page, module) for page, module in found if script.is_private(module))
    assert private == []


def test_a_private_module_is_recognised() -> None:
    assert script.is_private("evidencedesk.results._plan")
    assert script.is_private("evidencedesk._inert")
    assert not script.is_private("evidencedesk.report.__main__")
    assert not script.is_private("evidencedesk.retrieval.metrics")
