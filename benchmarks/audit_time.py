"""The audit's time against the build's, on the same project (issue 37: "it runs in at most the
build's time on the same project").

Writes the suite's largest audited project -- generated project 2 of tests/generated_projects.py
with 520 questions, so that the site is split (gzipped per-question CSV and qrels, results.json
in two) -- and, in fresh processes with the real command line, builds it and audits the site,
interleaved (build, audit, build, audit, ...), and prints each time, the median of each and
the ratio audit / build measured in this run, of the wall times and of the CPU times (user +
system, children included: the audit's forked page readers), with the load average: on a shared
machine the wall time also counts waiting for a core.

    python benchmarks/audit_time.py [--repeat 3] [--questions 520] [--tune all] [--profile]
                                    [--keep DIR] [--json]

``--profile`` profiles one audit in this process instead (the 25 costliest calls); ``--json``
prints the medians as one JSON object at the end (`figures.py` reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _as_installed import as_installed

REPO = Path(__file__).resolve().parent.parent


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of `argv` run in a fresh process (which must exit 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
                          text=True, check=False)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[2:])} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _project(root: Path, questions: int) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.generated_projects import generated

    toml, _ = generated(root, 2, questions=questions)
    return toml


def _profile(site: Path) -> None:
    import cProfile
    import pstats

    from evidencedesk.report._audit import audit

    profiler = cProfile.Profile()
    profiler.enable()
    found, claims, pages = audit(site)
    profiler.disable()
    print(f"{len(found)} disagreement(s), {claims} claims on {pages} pages")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="builds and audits, interleaved")
    parser.add_argument("--questions", type=int, default=520)
    parser.add_argument("--profile", action="store_true", help="profile one audit instead")
    parser.add_argument(
        "--tune",
        default="all",
        help="both commands' --tune (default: all; none: as they run by default)",
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="write the project here and keep it"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="audit-time-"))
    base.mkdir(parents=True, exist_ok=True)
    toml = _project(base / "project", args.questions)
    site = base / "site"
    # both with the same process settings: every one by default (as a large project runs them:
    # the build's forked writers, the audit's forked readers), none with --tune none
    tune = [f"--tune={args.tune}"]
    build = [sys.executable, "-m", "evidencedesk", "build", "--project", str(toml), "--out",
             str(site), "-q", *tune]  # fmt: skip
    audit = [sys.executable, "-m", "evidencedesk", "audit", *tune, str(site)]
    if args.profile:
        _timed(build)
        _profile(site)
        return
    times: dict[str, list[float]] = {"build": [], "audit": []}
    cpus: dict[str, list[float]] = {"build": [], "audit": []}
    print(f"{args.questions} questions, {base}")
    for n in range(args.repeat):
        for name, argv in (("build", build), ("audit", audit)):
            wall, cpu = _timed(argv)
            times[name].append(wall)
            cpus[name].append(cpu)
            print(f"  {n + 1}. {name}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    pages = len(list(site.glob("*.html")))
    b, a = statistics.median(times["build"]), statistics.median(times["audit"])
    cb, ca = statistics.median(cpus["build"]), statistics.median(cpus["audit"])
    if args.json:
        print(json.dumps({"build": b, "audit": a, "build_cpu": cb, "audit_cpu": ca,
                          "pages": pages, "questions": args.questions, "tune": args.tune,
                          "repeat": args.repeat, "load": os.getloadavg()[0]}))  # fmt: skip
        return
    print(f"median build {b:.2f} s, audit {a:.2f} s over {pages} pages: audit / build = "
          f"{a / b:.2f} (goal: at most 1.00)")  # fmt: skip
    print(f"median CPU: build {cb:.2f} s, audit {ca:.2f} s: audit / build = {ca / cb:.2f} "
          f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")  # fmt: skip


if __name__ == "__main__":
    main()
