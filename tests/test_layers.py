"""The import-layer contract, derived from the folders: the package's sub-folders are its layers
(files -> retrieval -> results -> report -> cli), every module imports only its own layer or lower
ones, a module of the package root sits at the highest layer it imports, and no two modules
import each other, however indirectly.

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

# The folders are the layers, bottom to top; imports point down (or stay in their folder).
LAYERS = ("files", "retrieval", "results", "report", "cli")
FRONT = "evidencedesk.__main__"  # `python -m evidencedesk`: a script, the top of the house


def _folder_layer(module: str) -> int | None:
    """The layer of a module inside one of the layer folders; None for a module of the package
    root (whose layer is derived from what it imports: `layer_of`)."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return None


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


def layer_of(module: str, seen: frozenset[str] = frozenset()) -> int:
    """A layer folder's module: its folder's layer. A module of the package root (the course
    page's `chunking`, `gate`, `baseline`, `paths`; the shared `errors`, `version`, `inert`,
    `metric_names`; the notebook API `evidencedesk`): the highest layer it imports, -1 when it
    imports none of the package (below every folder); a script (``__main__``) is the top."""
    if module == FRONT or module.endswith(".__main__"):
        return len(LAYERS)  # `python -m …`: a script runs the front end, wherever it lives
    found = _folder_layer(module)
    if found is not None:
        return found
    below = [layer_of(m, seen | {module}) for m in GRAPH[module] if m not in seen]
    return max(below, default=-1)


def _name(layer: int) -> str:
    return LAYERS[layer] if 0 <= layer < len(LAYERS) else ("shared" if layer < 0 else "script")


def test_the_layers_are_folders() -> None:
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(LAYERS)
    # the package root holds only the course page's modules, the shared ones and the front door
    root = sorted(m for m in MODULES if m.count(".") == 1 and _folder_layer(m) is None)
    assert root == [
        "evidencedesk.__main__", "evidencedesk._inert", "evidencedesk._metric_names",
        "evidencedesk.baseline", "evidencedesk.chunking", "evidencedesk.errors",
        "evidencedesk.gate", "evidencedesk.paths", "evidencedesk.version",
    ]  # fmt: skip


def test_no_import_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_imports_go_down_the_layers_only() -> None:
    upward = [
        f"{a} ({_name(layer_of(a))}) imports {b} ({_name(layer_of(b))})"
        for a in sorted(GRAPH)
        for b in sorted(GRAPH[a])
        if layer_of(b) > layer_of(a)
    ]
    assert upward == []


def test_the_shared_modules_import_nothing_above_them() -> None:
    """errors, version, inert and metric_names import no layer: every layer may use them."""
    shared = ["evidencedesk.errors", "evidencedesk._inert", "evidencedesk._metric_names",
              "evidencedesk.paths", "evidencedesk.version"]  # fmt: skip
    assert [m for m in shared if layer_of(m) >= 0] == []


def test_the_course_modules_sit_where_their_imports_put_them() -> None:
    """The course page's root modules, placed by their imports: chunking reads files; the gate
    and the saved baseline judge runs (retrieval)."""
    assert {m: _name(layer_of(f"evidencedesk.{m}")) for m in ("chunking", "gate", "baseline")} == {
        "chunking": "files", "gate": "retrieval", "baseline": "retrieval"}  # fmt: skip


# -- the checker itself, on small hand-made sources --------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import evidencedesk.errors", {"evidencedesk.errors"}),
        ("from evidencedesk.retrieval import _stats", {"evidencedesk.retrieval._stats"}),
        ("from evidencedesk.retrieval._stats import TIE", {"evidencedesk.retrieval._stats"}),
        ("def f():\n    from evidencedesk.gate import decide\n", {"evidencedesk.gate"}),
        ("from . import _tokens", {"evidencedesk.retrieval._tokens"}),
        ("from ._stats import TIE", {"evidencedesk.retrieval._stats"}),
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
