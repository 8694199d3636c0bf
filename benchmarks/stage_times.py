"""The time of each stage of a build, as the command line prints them: the demo by default.

Runs ``evidencedesk build`` (the real command line, a fresh process each time) `--repeat` times
on the demo or on ``--project``, and prints each stage's median seconds, the build's median wall
clock and the machine's load average (the figures are only worth reading on a quiet machine).
Each build is a first one: no MiniLM rows kept by an earlier build (``EVIDENCEDESK_CACHE=off``),
so a build with the extra shows the model's work.

    python benchmarks/stage_times.py [--project PATH] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _as_installed import as_installed
from runs_only_scale import stage_times


def _once(project: Path | None, out: Path) -> tuple[float, dict[str, float]]:
    argv = [sys.executable, "-m", "evidencedesk", "build", "--out", str(out)]
    if project is not None:
        argv += ["--project", str(project)]
    started = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True, text=True,
                          env=dict(os.environ, EVIDENCEDESK_CACHE="off"))  # fmt: skip
    return time.perf_counter() - started, stage_times(done.stdout)


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=None, help="default: the demo")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls, stages = [], []
    with tempfile.TemporaryDirectory(prefix="stage-times-") as tmp:
        for _ in range(args.repeat):
            wall, times = _once(args.project, Path(tmp) / "site")
            walls.append(wall)
            stages.append(times)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| stage | median s |")
    print("|---|---|")
    for name in stages[0]:
        print(f"| {name} | {statistics.median(s.get(name, 0.0) for s in stages):.2f} |")
    print(f"| whole build (wall clock, process start included) | {statistics.median(walls):.2f} |")


if __name__ == "__main__":
    main()
