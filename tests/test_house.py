"""The house check: the package's shape held to numbers a maintainer can read off the code.

- at most 90 modules;
- no function or method over 80 statements;
- no public class defined twice (one home per concept);
- no site-model class (``evidencedesk/report``) that shares 60 % or more of its fields, and three
  or more, with a Results or gate row (a class of ``results/`` or ``gate.py``) (a page model references the row it shows instead of copying its fields);
- process tuning (`sys.setswitchinterval`, `gc.freeze`, `os.sched_setaffinity`, signal handlers,
  thread-pool sizing through the environment) only in `cli/`;
- no module-level name bound twice in one module (a constant, function or class): the second
  silently replaces the first for every use above it too (a regex of the audit's once was).

Read with `ast`; nothing of the package is imported.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "evidencedesk"
MAX_MODULES = 90
MAX_STATEMENTS = 80
TWIN_SHARE = 0.6
TWIN_FIELDS = 3  # two shared names (better, worse) are a pair, not a copy
# where Results and gate rows live: a class there is a row a page model may reference
ROW_MODULES = tuple(f"results/{p.name}" for p in sorted((PACKAGE / "results").glob("*.py"))) + (
    "gate.py",
)
# calls that tune the interpreter or the process: the command line's business alone
TUNING = {"setswitchinterval", "freeze", "sched_setaffinity", "setrecursionlimit", "signal",
          "set_int_max_str_digits"}  # fmt: skip


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in _modules()}


TREES = _trees()


def _statements(node: ast.AST) -> int:
    """Statements in a function's body, nested ones included (a nested def counts once)."""
    count = 0
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            count += 1
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                count += _statements(child)
        elif not isinstance(child, ast.expr):
            count += _statements(child)
    return count


def _fields(cls: ast.ClassDef) -> set[str]:
    return {s.target.id for s in cls.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}  # fmt: skip


def long_functions() -> list[str]:
    found = []
    for path, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = _statements(node)
                if n > MAX_STATEMENTS:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.name} ({n})")
    return found


def classes_defined_twice() -> list[str]:
    homes: Counter[str] = Counter()
    for tree in TREES.values():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes[node.name] += 1
    return sorted(name for name, n in homes.items() if n > 1)


def twins() -> list[str]:
    rows: dict[str, set[str]] = {}
    for rel in ROW_MODULES:
        for node in TREES[PACKAGE / rel].body:
            if isinstance(node, ast.ClassDef) and len(_fields(node)) >= 2:
                rows[f"{rel}:{node.name}"] = _fields(node)
    found = []
    for path, tree in TREES.items():
        # the audit's oracle keeps types of its own on purpose: it shares no code with the build
        if path.parent.name != "report" or path.name == "oracle.py":
            continue
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            fields = _fields(node)
            for row, row_fields in rows.items():
                shared = len(fields & row_fields)
                if shared >= TWIN_FIELDS and shared / len(fields) >= TWIN_SHARE:
                    found.append(f"report/{path.name}:{node.name} ~ {row} ({shared} fields)")
    return found


def tuning_outside_cli() -> list[str]:
    found = []
    for path, tree in TREES.items():
        if path.parent.name == "cli":
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in TUNING
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("sys", "gc", "os", "signal")):  # fmt: skip
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node.func)}")
    return found


def names_bound_twice(trees: dict[Path, ast.Module] = TREES) -> list[str]:
    found = []
    for path, tree in trees.items():
        seen: dict[str, int] = {}
        for node in tree.body:  # (a name bound in an if, a try or a loop is a choice, not a twin)
            if isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id] if node.value is not None else []
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            else:
                names = []
            for name in names:
                if name in seen:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {name} (first on "
                                 f"line {seen[name]})")  # fmt: skip
                seen.setdefault(name, node.lineno)
    return found


def test_at_most_90_modules() -> None:
    assert len(TREES) <= MAX_MODULES, f"{len(TREES)} modules"


def test_no_function_over_80_statements() -> None:
    assert long_functions() == []


def test_no_public_class_is_defined_twice() -> None:
    assert classes_defined_twice() == []


def test_no_page_model_copies_a_results_row() -> None:
    assert twins() == []


def test_no_module_level_name_is_bound_twice() -> None:
    assert names_bound_twice() == []


def test_a_name_bound_twice_is_found() -> None:
    tree = ast.parse("A = 1\nB: int = 2\ndef f(): pass\nA = 3\nclass f: pass\nif x:\n    B = 4\n")
    assert names_bound_twice({PACKAGE / "m.py": tree}) == [
        "m.py:4: A (first on line 1)", "m.py:5: f (first on line 3)"]  # fmt: skip


def test_process_tuning_only_in_cli() -> None:
    assert tuning_outside_cli() == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    a = 1\n    if a:\n        b = 2\n    return a\n", 4),
        ("def f():\n    def g():\n        x = 1\n        y = 2\n    return g\n", 2),
        ("def f():\n    for i in range(3):\n        if i:\n            pass\n", 3),
    ],
)
def test_statements_are_counted_as_the_check_says(source: str, expected: int) -> None:
    function = ast.parse(source).body[0]
    assert _statements(function) == expected
