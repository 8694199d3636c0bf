"""The house in figures: modules, their sizes, names defined twice, and (with --suite) the test
suite's wall time.

    python scripts/house_figures.py [--suite]

Counts the package's Python modules (``__init__`` and ``__main__`` included), their median and
largest size in lines, and the public names (classes, functions and module-level constants not
starting with ``_``) that more than one module defines; `--suite` also times the README's test
command once.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "evidencedesk"


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def defined(path: Path) -> set[str]:
    """The public names a module defines at its top level (re-exports are not definitions)."""
    tree = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_") and n != "__all__"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", action="store_true", help="also time the test suite once")
    args = parser.parse_args()
    files = modules()
    sizes = [len(p.read_text("utf-8").splitlines()) for p in files]
    homes: dict[str, list[str]] = defaultdict(list)
    for p in files:
        for name in defined(p):
            homes[name].append(str(p.relative_to(ROOT)))
    twice = {n: h for n, h in homes.items() if len(h) > 1}
    largest = max(zip(sizes, files, strict=True))
    print(f"modules: {len(files)}")
    print(f"lines: {sum(sizes)} in all, median {statistics.median(sizes):g}, largest {largest[0]} "
          f"({largest[1].relative_to(ROOT)})")  # fmt: skip
    print(f"public names defined in more than one module: {len(twice)}")
    for name, where in sorted(twice.items()):
        print(f"  {name}: {', '.join(where)}")
    if args.suite:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                              cwd=ROOT, capture_output=True, text=True)  # fmt: skip
        print(f"test suite: {time.perf_counter() - start:.0f} s, exit {done.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
