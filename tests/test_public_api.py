"""The public API is small and declared (scikit-learn's private modules behind public ones): the
notebook calls (`evidencedesk.build`, `load_results`), the course page's import paths (SPEC §12),
the modules the docs import from, and the Results types. Every other module's name starts with an
underscore; a new public module, or a public API that grows past its bound, fails here first. The
bound counts what docs/api.md documents: every name a user can import from a public module, the
names it defines and those its `__all__` re-exports; each `__all__` name is there, with its
signature."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
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
# the names docs/api.md documents, re-exports included (838 across 116 modules before the
# modules went private; 321 in 30 modules, 275 of them defined there, before the names did)
MAX_PUBLIC_NAMES = 160


@functools.cache
def public_modules() -> list[script.Module]:
    """The public modules as docs/api.md reads them, parsed once for the tests below."""
    return script.modules(ROOT)


def test_every_other_module_is_private() -> None:
    public = [m.dotted for m in public_modules()]
    assert sorted(public) == sorted(PUBLIC_MODULES)


def test_the_public_api_stays_small() -> None:
    found = public_modules()
    names = sum(len(m.names) for m in found)
    counts = ", ".join(f"{m.dotted} {len(m.names)}" for m in found if m.names)
    assert names <= MAX_PUBLIC_NAMES, f"{names} public names ({counts})"


def documented(page: str) -> dict[tuple[str, str], str]:
    """(module, name) -> the signature docs/api.md gives the name in the module's section."""
    rows = {}
    for heading, body in re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", page, flags=re.M | re.S):
        for line in body.splitlines():
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]
            if len(cells) == 6 and cells[1].startswith("`") and cells[3].startswith("`"):
                rows[heading, cells[1].strip("`")] = cells[3][1:-1]
    return rows


def parameter_names(signature: str) -> list[str] | None:
    """The parameter names of a documented ``name(params) -> return``; None when it is not one
    (a constant's value, an enum's members, a protocol's methods)."""
    try:
        tree = ast.parse(f"def {signature}: ...")
    except SyntaxError:
        return None
    args = tree.body[0].args  # type: ignore[attr-defined]
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return [a.arg for a in every if a is not None]


def test_every_name_in_an_all_is_there_and_documented_with_its_signature() -> None:
    # a re-export is part of the API: `from module import name` works, and docs/api.md shows it
    # (run python scripts/api_reference.py --write docs/api.md after changing an __all__)
    rows = documented((ROOT / "docs" / "api.md").read_text("utf-8"))
    problems = []
    for module in public_modules():
        if module.dotted.endswith("__main__"):
            continue  # importing it runs the command line
        imported = importlib.import_module(module.dotted)
        for name in getattr(imported, "__all__", ()):
            signature = rows.get((module.dotted, name))
            if not hasattr(imported, name):
                problems.append(f"{module.dotted}.{name}: in __all__, not in the module")
            elif not signature or not signature.removeprefix("async ").startswith(name):
                problems.append(f"{module.dotted}.{name}: no signature in docs/api.md")
            else:
                value = getattr(imported, name)
                if inspect.isfunction(value) or dataclasses.is_dataclass(value):
                    actual = list(inspect.signature(value).parameters)
                    if parameter_names(signature) != actual:
                        problems.append(f"{module.dotted}.{name}: documented {signature}, "
                                        f"takes {actual}")  # fmt: skip
    assert problems == []


def test_an_all_lists_every_public_name_its_module_defines() -> None:
    # a module that declares its API declares all of it: a public name left out of its __all__
    # is either API (list it) or a helper (give it the underscore)
    left_out = [
        f"{m.path}:{n.line}: {n.name}"
        for m in public_modules()
        if (exported := script.exported(ROOT / m.path)) is not None
        for n in m.names
        if not n.origin and n.name not in exported
    ]
    assert left_out == []


def test_a_documented_signature_is_read_back() -> None:
    page = (
        "## evidencedesk.shelf\n\n| name | kind | signature | what it is |\n|---|---|---|---|\n"
        "| `fit` | function | `fit(a: int \\| None, /, *, b=2) -> str` | Fits. |\n"
        "| `LOW` | constant | `LOW = 0` | the floor \\| and more |\n"
    )
    rows = documented(page)
    assert rows == {
        ("evidencedesk.shelf", "fit"): "fit(a: int | None, /, *, b=2) -> str",
        ("evidencedesk.shelf", "LOW"): "LOW = 0",
    }
    assert parameter_names(rows["evidencedesk.shelf", "fit"]) == ["a", "b"]
    assert parameter_names(rows["evidencedesk.shelf", "LOW"]) is None


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
