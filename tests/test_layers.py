"""The import-layer contract: every module of the package has a layer, imports only its own layer
or lower ones, and no two modules import each other, however indirectly.

Imports are read with `ast`, so an import inside a function counts as much as one at the top;
what does not count is an import under ``if TYPE_CHECKING:`` (annotations only, never run) or
under ``if __name__ == "__main__":`` (it runs only when the module is the script, as
``python -m evidencedesk.retrieval.benchmark`` is, and that script run is a front end).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import evidencedesk

PACKAGE = Path(evidencedesk.__file__).parent
ROOT = PACKAGE.parent

LAYERS = ("inputs", "retrieval", "evaluation", "report", "front end")

# Reading and checking input files: no searching, no metric.
_INPUTS = """
evidencedesk.version evidencedesk.metric_names evidencedesk.errors evidencedesk.limits evidencedesk.textfile evidencedesk.keylines
evidencedesk.allocator evidencedesk.inert evidencedesk.writing evidencedesk.structured
evidencedesk.validation evidencedesk.slugs evidencedesk.paths evidencedesk.chunking evidencedesk.project
evidencedesk.project_rules evidencedesk.project_schema evidencedesk.retrieval
evidencedesk.retrieval.catalog evidencedesk.retrieval.labels evidencedesk.retrieval.beir
evidencedesk.retrieval.trec evidencedesk.retrieval.trec_arrays evidencedesk.retrieval.trec_keys
evidencedesk.retrieval.trec_parts evidencedesk.retrieval.coverage
"""
# Searching, judging and the statistics of one comparison; the course page's modules. The gate is
# here, not in evaluation: the course page calls `evalreport.retrieval_gate`, so `evalreport`
# needs `gate`. The candidates and baseline loaders are here too: each checks that its configs
# make a valid `evalreport.Config` (and the baseline holds a `Run`'s numbers).
_RETRIEVAL = """
evidencedesk.retrieval.base evidencedesk.retrieval.tokens evidencedesk.retrieval.dense
evidencedesk.retrieval.hybrid evidencedesk.retrieval.masks evidencedesk.retrieval.searchers
evidencedesk.retrieval.cache evidencedesk.retrieval.lifecycle evidencedesk.retrieval.parts
evidencedesk.retrieval.scorers evidencedesk.retrieval.rerankers evidencedesk.retrieval.metrics
evidencedesk.retrieval.pairfeatures
evidencedesk.retrieval.stats evidencedesk.retrieval.ablation evidencedesk.retrieval.evidence
evidencedesk.retrieval.citations evidencedesk.retrieval.evalreport evidencedesk.retrieval.experiments
evidencedesk.retrieval.trec_judge evidencedesk.retrieval.trec_stream evidencedesk.retrieval.benchmark
evidencedesk.gate_input evidencedesk.gate evidencedesk.baseline
evidencedesk.candidates evidencedesk.retrieval.metric_engine
evidencedesk.retrieval.resampling evidencedesk.retrieval.minilm
"""
_FRONT = """
evidencedesk evidencedesk.cli evidencedesk.__main__ evidencedesk.scaffold evidencedesk.validate
evidencedesk.report.cli evidencedesk.report.__main__ evidencedesk.retrieval.benchmark_cli
"""


def _layer_of(module: str) -> str:
    for layer, names in (("inputs", _INPUTS), ("retrieval", _RETRIEVAL), ("front end", _FRONT)):
        if module in names.split():
            return layer
    if module == "evidencedesk.results" or module.startswith("evidencedesk.results."):
        return "evaluation"
    if module == "evidencedesk.report" or module.startswith("evidencedesk.report."):
        return "report"
    raise KeyError(module)


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_guard(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if __name__ == "__main__":``."""
    text = ast.unparse(test)
    return text in ("TYPE_CHECKING", "typing.TYPE_CHECKING") or text in (
        "__name__ == '__main__'",
        "'__main__' == __name__",
    )


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, skipping the bodies of the two guards (their ``else:`` still counts)."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_guard(child.test):
            for node in child.orelse:
                yield node
                yield from _nodes(node)
            continue
        yield child
        yield from _nodes(child)


def imports_of(module: str, source: str) -> set[str]:
    """The package's modules `source` imports (`module` is its dotted name)."""
    package = (
        module if MODULES.get(module, Path()).name == "__init__.py" else module.rpartition(".")[0]
    )
    found: set[str] = set()
    for node in _nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import mod` imports the module `pkg.mod`; `from mod import name`, `mod`
            found.update(
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            )
    return {name for name in found if name in MODULES and name != module}


GRAPH = {name: imports_of(name, path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer() -> None:
    missing = []
    for name in MODULES:
        try:
            _layer_of(name)
        except KeyError:
            missing.append(name)
    assert missing == []
    listed = set((_INPUTS + _RETRIEVAL + _FRONT).split())
    assert listed - set(MODULES) == set()  # no stale names in the table


def test_no_import_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_imports_go_down_the_layers_only() -> None:
    upward = [
        f"{a} ({_layer_of(a)}) imports {b} ({_layer_of(b)})"
        for a in sorted(GRAPH)
        for b in sorted(GRAPH[a])
        if LAYERS.index(_layer_of(b)) > LAYERS.index(_layer_of(a))
    ]
    assert upward == []


# -- the checker itself, on small hand-made sources --------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import evidencedesk.errors", {"evidencedesk.errors"}),
        ("from evidencedesk.retrieval import stats", {"evidencedesk.retrieval.stats"}),
        ("from evidencedesk.retrieval.stats import TIE", {"evidencedesk.retrieval.stats"}),
        ("def f():\n    from evidencedesk.gate import decide\n", {"evidencedesk.gate"}),
        ("from . import tokens", {"evidencedesk.retrieval.tokens"}),
        ("from .stats import TIE", {"evidencedesk.retrieval.stats"}),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import evidencedesk.gate\n",
            set(),
        ),
        ("if __name__ == '__main__':\n    from evidencedesk import cli\n", set()),
        (
            "if TYPE_CHECKING:\n    pass\nelse:\n    import evidencedesk.gate\n",
            {"evidencedesk.gate"},
        ),
        ("import json\nfrom numpy import array", set()),
    ],
)
def test_imports_of(source: str, expected: set[str]) -> None:
    assert imports_of("evidencedesk.retrieval.metrics", source) == expected


def test_cycles_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
