"""Benchmark: read + judge the TREC runs of a runs-only project, as its build does.

    python benchmarks/judge_50k.py PROJECT_DIR_OR_TOML [--repeat 2]

Times `results.inputs.judged_external_runs` with the build's own judge (`judge_trec_run` to the
`judged_depth` of the project's settings and the gate's k of 10), one run read, judged and let go
at a time, and prints the seconds per run, the total and the peak memory of this process
(``resource.getrusage``, max RSS). Labels are loaded first and not timed (the build loads them
before its benchmark stage). It runs in this process as Python starts it, with no process
tuning: what ``evidencedesk build`` does by default, not with ``--tune`` (the
`runs_only_scale.py` build). Point it at the project that ``python benchmarks/runs_only_scale.py
--questions 50000 --keep DIR`` generates (50,000 questions x 1,000 documents x 3 runs, 5.4 GB);
the project is only read.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence
from pathlib import Path

from evidencedesk.files.trec import TrecRun
from evidencedesk.results._inputs import Project, judged_depth, judged_external_runs, load_project
from evidencedesk.results._settings import settings_for
from evidencedesk.retrieval._coverage import Coverage, coverage
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.trec_judge import judge_trec_run


def peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path, help="a project folder or its evidencedesk.toml")
    parser.add_argument("--repeat", type=int, default=1, help="time it this many times")
    args = parser.parse_args()
    path = args.project / "evidencedesk.toml" if args.project.is_dir() else args.project
    project = load_project(path)
    labels = project.load_labels()
    settings = settings_for(project, 0)
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    depth = judged_depth([m.name for m in (*settings.metrics, *settings.slices)], 10)
    print(f"{len(labels):,} questions, {len(project.runs)} runs, judged depth {depth} "
          "(evidencedesk, default: no process tuning)")  # fmt: skip
    print(f"peak memory after loading the labels: {peak_gib():.2f} GiB", flush=True)
    for attempt in range(1, args.repeat + 1):
        total, runs = read_and_judge(project, labels, qrels, depth)
        print(f"attempt {attempt}: read + judge of {runs} runs {total:.2f} s, "
              f"peak memory {peak_gib():.2f} GiB", flush=True)  # fmt: skip


def read_and_judge(project: Project, labels: list, qrels: dict, depth: int) -> tuple[float, int]:
    """Seconds for `judged_external_runs` over the project's runs, printing each run's share."""
    seconds: list[float] = []
    start = time.perf_counter()

    def judge(trec: TrecRun) -> tuple[Sequence[Judged], None]:
        judged = judge_trec_run(trec, qrels, labels, relevant=project.relevance, depth=depth)
        now = time.perf_counter()
        seconds.append(now - start - sum(seconds))
        print(f"  run {len(seconds)}: {trec.n_lines:,} lines, read + judge {seconds[-1]:.2f} s, "
              f"peak memory so far {peak_gib():.2f} GiB", flush=True)  # fmt: skip
        return judged, None

    def check(trec: TrecRun, path: Path) -> Coverage:  # the build's coverage, at its k of 10
        return coverage(trec, qrels, 10)

    judged_external_runs(project.runs, judge, check)
    return time.perf_counter() - start, len(seconds)


if __name__ == "__main__":
    main()
