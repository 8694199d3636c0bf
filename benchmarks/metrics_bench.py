"""Benchmark: read + judge + four metric means of a 10,000-query x 1,000-document TREC run.

    python benchmarks/metrics_bench.py [--queries 10000] [--docs 1000] [--repeat 3] [--seed 0]
                                       [--keep DIR] [--json]

Generates a seeded graded run and qrels (30 judgments a query, grades 0-3, at least one
relevant) as TREC files in a temporary folder (or ``--keep DIR``, never the repository). The file
is written the way real runs arrive: the queries in file order (a shuffled order, not sorted by
id), document ids of 4 to 14 bytes (many longer than one 8-byte word), each query's lines in rank
order, and scores with four decimals of which about a tenth tie, the tied ones in random order:
every reader must put them in trec_eval's order (score down, then document id).

Each tool then runs in a fresh Python process per repeat, the tools interleaved (one run of each
in turn, ``--repeat`` rounds: a machine that slows down part way slows every tool alike), and
its wall clock is timed from the outside -- interpreter start, imports and page faults
included, as a user running it sees it:

- **evidencedesk**: the documented calls, as docs/own-runs.md and the course page write them --
  `files.trec.read_run`, `read_qrels`, `retrieval.trec_judge.judge_trec_run(run, qrels,
  relevant=2)` (whole lists, no depth) and `metrics.summarize` -- in a process as Python starts
  it (``EVIDENCEDESK_TUNING=none``), as a notebook or a script runs them: the library never
  tunes the process;
- **evidencedesk, --tune settings**: the same with every process setting the command line
  applies when asked (``EVIDENCEDESK_TUNING=all``, `cli.process.Tuning`);
- **evidencedesk, the runs-only build's path**: what a runs-only build does to each of its runs
  (`build_path_means`: read, checked against the judgments, judged with its condensed lists to
  the depth the build keeps, the lists of the questions with a page made, the default metrics'
  means), with the --tune settings, as ``evidencedesk build --tune`` runs it (target: within
  1.5x of the floor);
- **pyarrow read only** (the floor): ``pyarrow.csv.read_csv`` of the run with its six column
  names, through malloc as evidencedesk reads, nothing else -- what reading the file costs at
  the least;
- **pytrec_eval** (when installed): a plain Python reader into dicts, ``RelevanceEvaluator``,
  the means; **ranx** (when installed): ``Qrels.from_file``, ``Run.from_file``, ``evaluate``.

It prints the median of ``--repeat`` per tool, the ratios evidencedesk / floor (target
<= 2) and pytrec_eval / evidencedesk (target >= 3), whether the means agree, evidencedesk's and
the floor's times on the first quarter, half and all of the queries (target: the
growth from a quarter to all within 1.2x of the floor's), and each process's peak memory. ``--json`` prints one JSON object instead
(`benchmarks/figures.py` reads it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _as_installed import as_installed

OURS = ["recall@100", "precision@10", "mrr", "ndcg@10:linear"]
RANX = ["recall@100-l2", "precision@10-l2", "mrr-l2", "ndcg@10"]  # binary ones at grade 2
TREC_EVAL = {"recall_100": "recall.100", "P_10": "P.10", "recip_rank": "recip_rank",
             "ndcg_cut_10": "ndcg_cut.10"}  # fmt: skip
JUDGMENTS = 30  # a query
ID_BYTES = (4, 14)  # document ids from 4 to 14 bytes
# the headline: the documented calls in a process as Python starts it, as a notebook or a script
# runs them (the library never tunes the process); EVIDENCEDESK_TUNING=none in its child
EVIDENCEDESK = "evidencedesk"
TUNED = "evidencedesk, --tune settings"  # EVIDENCEDESK_TUNING=all: the command line's opt-in
# what a runs-only build does to each of its runs, as `evidencedesk build --tune` runs it
BUILD_PATH = "evidencedesk, the runs-only build's path"
FLOOR = "pyarrow read only"
TOOLS = (EVIDENCEDESK, TUNED, BUILD_PATH, FLOOR, "pytrec_eval", "ranx")


def generate(folder: Path, queries: int, docs: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    qrels: dict[str, dict[str, int]] = {}
    low, high = ID_BYTES
    with open(run_path, "w", encoding="utf-8") as out:
        for q in rng.permutation(queries).tolist():  # queries in file order, not sorted
            # "d" and 13 digits, cut by 0 to 10 digits: 4 to 14 bytes an id
            numbers = 10 ** (high - 2) + rng.choice(9 * 10 ** (high - 2), size=docs, replace=False)
            cut = 10 ** rng.integers(0, high - low + 1, size=docs)
            names = list(dict.fromkeys(f"d{n // c}" for n, c in zip(numbers.tolist(),
                                                                   cut.tolist(), strict=True)))  # fmt: skip
            names += [f"e{q}-{i}" for i in range(docs - len(names))]  # the few cut alike
            scores = np.round(rng.gamma(2.0, 4.0, size=docs), 4)
            scores[rng.random(docs) < 0.1] = scores[0]  # a tenth tie with the first
            ranked = np.lexsort((np.array(names), -scores))  # trec_eval's order
            rank = np.empty(docs, dtype=np.int64)
            rank[ranked] = np.arange(1, docs + 1)
            qid = f"q{q}"
            # written in rank order (score down), as retrieval systems write runs, with the
            # documents of a tied score in random order
            written = np.lexsort((rng.random(docs), -scores))
            out.write("".join(f"{qid} Q0 {names[i]} {rank[i]} {scores[i]:.4f} bench\n"
                              for i in written.tolist()))  # fmt: skip
            by_rank = [names[i] for i in ranked.tolist()]
            picks = np.unique(np.minimum(rng.geometric(0.02, size=20), docs) - 1)
            judged = {by_rank[i]: int(rng.integers(0, 4)) for i in picks.tolist()}
            judged.update({f"x{q}-{i}": int(rng.integers(0, 4))
                           for i in range(JUDGMENTS - len(judged))})  # fmt: skip
            if not any(g >= 2 for g in judged.values()):
                judged[by_rank[int(picks[0])]] = 2
            qrels[qid] = judged
    with open(qrels_path, "w", encoding="utf-8") as out:
        for qid, grades in qrels.items():
            out.write("".join(f"{qid} 0 {d} {g}\n" for d, g in grades.items()))
    return run_path, qrels_path


# -- one tool, in the child process ---------------------------------------------------------------
def evidencedesk_means(run_path: str, qrels_path: str) -> dict[str, float]:
    from evidencedesk.cli._process import Tuning
    from evidencedesk.files.trec import read_qrels, read_run
    from evidencedesk.retrieval.metrics import summarize
    from evidencedesk.retrieval.trec_judge import judge_trec_run

    tuning = Tuning.from_env()
    tuning.start()
    with tuning.paused():
        run, qrels = read_run(run_path), read_qrels(qrels_path)
        judged = judge_trec_run(run, qrels, relevant=2)  # the documented call: whole lists
        return {name: float(s.value or 0.0) for name, s in summarize(judged, OURS).items()}


def build_path_means(run_path: str, qrels_path: str) -> dict[str, float]:
    """One run through the runs-only build's own path (`results._stages.runs_benchmark`): read,
    checked against the judgments (coverage, its unjudged top documents), judged once for its
    lists and its condensed lists to the depth the build keeps (the default runs-only metrics,
    the gate's k, the question pages' 20 results), the lists of the questions that get a page
    made (`PAGE_CAP`: a build makes no other), and the means of the default metrics."""
    from evidencedesk._metric_names import reads_whole_list
    from evidencedesk.cli._process import Tuning
    from evidencedesk.files._project_file import DEFAULT_METRICS
    from evidencedesk.files.trec import read_qrels, read_run
    from evidencedesk.results._inputs import judged_depth
    from evidencedesk.results._plan import PAGE_CAP
    from evidencedesk.retrieval._coverage import check_coverage, unjudged_top
    from evidencedesk.retrieval._memos import build_memos
    from evidencedesk.retrieval.metrics import summarize
    from evidencedesk.retrieval.trec_judge import _judge_trec_run_condensed

    tuning = Tuning.from_env()
    tuning.start()
    names = list(DEFAULT_METRICS["runs"])
    judged_k = 10  # Judged@k, the coverage check and the gate's k without a policy
    depth, graded = judged_depth(names, judged_k, judged_k), reads_whole_list(names)
    with tuning.paused(), build_memos():  # the build's memos: the judged ids read once
        run, qrels = read_run(run_path), read_qrels(qrels_path)
        check_coverage(run, qrels, judged_k, run_path, min_coverage=0.9)
        unjudged_top(run, qrels, judged_k)
        judged, _ = _judge_trec_run_condensed(run, qrels, None, None, 2, depth, graded)
        del run
        judged.lists_at(range(min(PAGE_CAP, len(judged))))
        return {name: float(s.value or 0.0) for name, s in summarize(judged, names).items()}


def floor(run_path: str, qrels_path: str) -> dict[str, float]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    # through malloc, as evidencedesk reads: the default pool's huge pages made this read take
    # one time or twice that by turns (runs_only_scale.py's floor says more)
    table = pacsv.read_csv(
        run_path,
        read_options=pacsv.ReadOptions(column_names=["q", "q0", "doc", "rank", "score", "tag"]),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        memory_pool=pa.system_memory_pool(),
    )
    return {"rows": float(table.num_rows)}


def pytrec_eval_means(run_path: str, qrels_path: str) -> dict[str, float]:
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path, encoding="utf-8") as lines:
        for line in lines:
            q, _, d, g = line.split()
            qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    with open(run_path, encoding="utf-8") as lines:
        for line in lines:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_EVAL.values()), relevance_level=2)
    per_query = evaluator.evaluate(run)
    means = {m: statistics.fmean(row[m] for row in per_query.values()) for m in TREC_EVAL}
    return {ours: means[m] for ours, m in zip(OURS, TREC_EVAL, strict=True)}


def ranx_means(run_path: str, qrels_path: str) -> dict[str, float]:
    from ranx import Qrels, evaluate
    from ranx import Run as RanxRun

    values = evaluate(Qrels.from_file(qrels_path, kind="trec"),
                      RanxRun.from_file(run_path, kind="trec"), RANX)  # fmt: skip
    return {ours: float(values[name]) for ours, name in zip(OURS, RANX, strict=True)}


CHILD = {EVIDENCEDESK: evidencedesk_means, TUNED: evidencedesk_means,
         BUILD_PATH: build_path_means, FLOOR: floor,
         "pytrec_eval": pytrec_eval_means, "ranx": ranx_means}  # fmt: skip


def child(tool: str, run_path: str, qrels_path: str) -> None:
    try:
        means = CHILD[tool](run_path, qrels_path)
    except ImportError as exc:
        print(json.dumps({"missing": str(exc)}))
        return
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux -> GiB
    print(json.dumps({"means": means, "peak_gib": peak}), flush=True)
    if tool == BUILD_PATH:
        # leave as `evidencedesk build` leaves (`cli.main`'s `exit_process`: its output out, no
        # object freed one by one), not as a notebook's Python does (0.15 s of tearing down
        # the modules a build imports, on the figures' VM)
        os._exit(0)


# -- the parent: fresh processes, timed from outside ----------------------------------------------
def _once(tool: str, run_path: Path, qrels_path: Path) -> tuple[float, dict[str, object]]:
    env = dict(os.environ, EVIDENCEDESK_TUNING="all" if tool in (TUNED, BUILD_PATH) else "none")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", tool, str(run_path),
                           str(qrels_path)], env=env, check=True, capture_output=True,
                          text=True)  # fmt: skip
    return time.perf_counter() - start, json.loads(done.stdout)


def interleaved(
    tools: list[tuple[str, Path, Path]], repeat: int
) -> dict[tuple[str, Path], dict[str, object]]:
    """Each (tool, run, qrels) `repeat` times, one of each in turn; the median per tool and what
    its last run printed. A tool that is not installed is left out."""
    times: dict[tuple[str, Path], list[float]] = {}
    found: dict[tuple[str, Path], dict[str, object]] = {}
    for _ in range(repeat):
        for tool, run_path, qrels_path in tools:
            key = (tool, run_path)
            if key in found and "missing" in found[key]:
                continue
            seconds, found[key] = _once(tool, run_path, qrels_path)
            times.setdefault(key, []).append(seconds)
    return {key: {"seconds": statistics.median(times[key]), **printed}
            for key, printed in found.items() if "missing" not in printed}  # fmt: skip


def prefix(path: Path, lines: int, out: Path) -> Path:
    """The first `lines` lines (whole queries: each query's lines are written together)."""
    with open(path, "rb") as src, open(out, "wb") as dst:
        dst.writelines(itertools.islice(src, lines))
    return out


def measure(folder: Path, args: argparse.Namespace) -> dict[str, object]:
    start = time.perf_counter()
    run_path, qrels_path = generate(folder, args.queries, args.docs, args.seed)
    if not args.json:
        print(f"generated {args.queries:,} queries x {args.docs:,} documents "
              f"({run_path.stat().st_size / 2**20:,.0f} MiB run) in "
              f"{time.perf_counter() - start:.1f} s", flush=True)  # fmt: skip
    sizes = []
    for share in (4, 2, 1):  # the growth of the documented path, beside the floor's
        n = args.queries // share
        run_n, qrels_n = run_path, qrels_path
        if share > 1:
            run_n = prefix(run_path, n * args.docs, folder / f"run-{n}.txt")
            qrels_n = prefix(qrels_path, n * JUDGMENTS, folder / f"qrels-{n}.txt")
        sizes.append((n, run_n, qrels_n))
    plan = [(tool, run_path, qrels_path) for tool in TOOLS]
    plan += [(tool, r, q) for n, r, q in sizes[:2] for tool in (EVIDENCEDESK, FLOOR)]
    measured = interleaved(plan, args.repeat)
    tools: dict[str, dict[str, object]] = {}
    for tool in TOOLS:
        if (tool, run_path) not in measured:
            if not args.json:
                print(f"  {tool}: not installed, skipped", flush=True)
            continue
        tools[tool] = found = measured[(tool, run_path)]
        if not args.json:
            print(f"  {tool}: {found['seconds']:.2f} s (median of {args.repeat}), peak memory "
                  f"{found['peak_gib']:.2f} GiB", flush=True)  # fmt: skip
    scaling = [(n, measured[(EVIDENCEDESK, r)]["seconds"], measured[(FLOOR, r)]["seconds"])
               for n, r, _ in sizes]  # fmt: skip
    return {"queries": args.queries, "docs": args.docs, "repeat": args.repeat,
            "load": os.getloadavg()[0], "tools": tools, "scaling": scaling}  # fmt: skip


def report(found: dict[str, object]) -> str:
    tools: dict = found["tools"]  # type: ignore[assignment]
    ours = tools[EVIDENCEDESK]["seconds"]
    lines = ["", f"| tool (fresh process each) | seconds | x {EVIDENCEDESK} | {' | '.join(OURS)} |",
             "|---|---:|---:|" + "---:|" * len(OURS)]  # fmt: skip
    for name, row in tools.items():
        cells = " | ".join(f"{row['means'][m]:.6f}" if m in row["means"] else ""
                           for m in OURS)  # fmt: skip
        lines.append(f"| {name} | {row['seconds']:.2f} | {row['seconds'] / ours:.2f} | {cells} |")
    lines.append(f"\n{EVIDENCEDESK} / pyarrow read: {ours / tools[FLOOR]['seconds']:.2f}x "
                 "(target <= 2)")  # fmt: skip
    if BUILD_PATH in tools:
        lines.append(f"{BUILD_PATH} / pyarrow read: "
                     f"{tools[BUILD_PATH]['seconds'] / tools[FLOOR]['seconds']:.2f}x "
                     "(target <= 1.5)")  # fmt: skip
    if "pytrec_eval" in tools:
        lines.append(f"pytrec_eval / {EVIDENCEDESK}: {tools['pytrec_eval']['seconds'] / ours:.2f}x "
                     "(target >= 3)")  # fmt: skip
        agree = all(abs(tools["pytrec_eval"]["means"][m] - tools[EVIDENCEDESK]["means"][m]) < 1e-9
                    for m in OURS)  # fmt: skip
        lines.append(f"the four means equal pytrec_eval's (to 1e-9): {'yes' if agree else 'NO'}")
    scaling = found["scaling"]
    lines.append(f"\nqueries  {EVIDENCEDESK} (s)  x the first  {FLOOR} (s)  x the first")
    for n, seconds, floor_s in scaling:  # type: ignore[attr-defined]
        width = len(EVIDENCEDESK) + 4  # the column's title: "<name> (s)"
        lines.append(
            f"{n:>7}  {seconds:>{width}.2f}  {seconds / scaling[0][1]:>11.2f}"  # type: ignore[index]
            f"  {floor_s:>{len(FLOOR) + 4}.2f}  {floor_s / scaling[0][2]:>11.2f}"
        )  # type: ignore[index]
    first, last = scaling[0], scaling[-1]  # type: ignore[index]
    growth = (last[1] / first[1]) / (last[2] / first[2])
    lines.append(
        f"growth at {last[0] // first[0]}x the queries: {growth:.2f}x the floor's (target <= 1.2)"
    )
    lines.append(f"\nload average when it ended: {found['load']:.2f} (2 cores)")
    return "\n".join(lines)


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="generate into (and keep) DIR")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-metrics-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        found = measure(folder, args)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(found) if args.json else report(found))


if __name__ == "__main__":
    main()
