"""The weight of a site: what a reviewer downloads as the CI artifact.

Builds, with the real command line in a fresh process each, the demo and two generated
runs-only projects (`runs_only_scale.write_project`: 3 runs, graded qrels) of 50 and 5,000
questions, and prints each site's size, its file count, the share of the largest files
(plotly.js, results.json, the question pages) and the goals of issue 39 beside them (the demo
and 50 questions at most 3 MB, 5,000 questions at most 25 MB).

    python benchmarks/site_size.py [--depth 100] [--keep DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _as_installed import as_installed
from runs_only_scale import tree_size, write_project

MB = 1_000_000
GOALS = {"demo": 3 * MB, "50 questions": 3 * MB, "5,000 questions": 25 * MB}


def _build(out: Path, project: Path | None) -> None:
    argv = [sys.executable, "-m", "evidencedesk", "build", "--out", str(out), "-q"]
    if project is not None:
        argv += ["--project", str(project)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def _parts(site: Path) -> str:
    """The largest kinds of file in `site`, in MB."""
    questions = sum(p.stat().st_size for p in site.glob("question-*.html"))
    pages = sum(p.stat().st_size for p in site.glob("*.html")) - questions
    plotly = (site / "assets" / "plotly.min.js").stat().st_size
    results = sum(p.stat().st_size for p in site.glob("results*"))
    data = sum(p.stat().st_size for p in (site / "data").rglob("*") if p.is_file())
    return (f"plotly.js {plotly / MB:.2f} · results {results / MB:.2f} · question pages "
            f"{questions / MB:.2f} · other pages {pages / MB:.2f} · data/ {data / MB:.2f}")  # fmt: skip


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=100, help="results per question and run")
    parser.add_argument("--keep", type=Path, default=None, help="build in DIR and keep it")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="site-size-"))
    base.mkdir(parents=True, exist_ok=True)
    print("| site | size | files | goal | largest parts (MB) |")
    print("|---|---|---|---|---|")
    for name, questions in (("demo", None), ("50 questions", 50), ("5,000 questions", 5000)):
        project = None
        if questions is not None:
            root = base / f"project-{questions}"
            root.mkdir(exist_ok=True)
            project = root / "evidencedesk.toml"
            if not project.exists():
                write_project(root, questions, args.depth, runs=3)
        site = base / f"site-{questions or 'demo'}"
        _build(site, project)
        size, files = tree_size(site)
        goal = GOALS[name]
        verdict = "met" if size <= goal else "missed"
        print(f"| {name} | {size / MB:.2f} MB | {files} | ≤ {goal // MB} MB ({verdict}) | "
              f"{_parts(site)} |")  # fmt: skip


if __name__ == "__main__":
    main()
