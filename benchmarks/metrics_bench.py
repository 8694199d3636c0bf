"""Benchmark: read + judge + four metric means of a 10,000-query x 1,000-document TREC run.

    python benchmarks/metrics_bench.py [--queries 10000] [--docs 1000] [--repeat 3] [--seed 0]
                                       [--keep DIR] [--json]

Generates a seeded graded run and qrels (30 judgments a query, at least one relevant) as TREC
files in a temporary folder (or ``--keep DIR``, never the repository). The file is written the
way real runs arrive: the queries in no particular order (not sorted by id), each query's lines
in rank order, and scores with two decimals, so that many documents tie, the tied ones in random
order: every reader must put them in trec_eval's order (score down, then document id).

Each tool then runs in a fresh Python process per repeat, and its wall clock is timed from the
outside -- interpreter start, imports and page faults included, as a user running it sees it:

- **evidencedesk --tune**: what a runs-only build does with a run -- `files.trec.read_run`,
  `read_qrels`, `retrieval.trec_judge.judge_trec_run` to the build's `judged_depth` (the
  Judged lists every page, flip and interval comes from), then `metrics.summarize` -- with every
  process setting the command line applies when asked (``EVIDENCEDESK_TUNING=all``, what
  ``--tune`` applies: `cli.process.Tuning`);
- **evidencedesk, default**: the same with ``EVIDENCEDESK_TUNING=none``, the process as Python
  starts it (the command line's default);
- **pyarrow read only** (the floor): ``pyarrow.csv.read_csv`` of the run with its six column
  names, nothing else -- what reading the file costs at the least;
- **pytrec_eval** (when installed): a plain Python reader into dicts, ``RelevanceEvaluator``,
  the means; **ranx** (when installed): ``Qrels.from_file``, ``Run.from_file``, ``evaluate``.

It prints the median of ``--repeat`` per tool, the ratios evidencedesk --tune / floor (target
<= 2) and pytrec_eval / evidencedesk --tune (target >= 4), whether the means agree, evidencedesk
--tune's time on the first quarter, half and all of the queries (target: 4x the queries in <=
4.5x the time), and each process's peak memory. ``--json`` prints one JSON object instead
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

OURS = ["recall@100", "precision@10", "mrr", "ndcg@10:linear"]
RANX = ["recall@100-l2", "precision@10-l2", "mrr-l2", "ndcg@10"]  # binary ones at grade 2
TREC_EVAL = {"recall_100": "recall.100", "P_10": "P.10", "recip_rank": "recip_rank",
             "ndcg_cut_10": "ndcg_cut.10"}  # fmt: skip
JUDGMENTS = 30  # a query
EVIDENCEDESK = "evidencedesk --tune"  # EVIDENCEDESK_TUNING=all in its child
UNTUNED = "evidencedesk, default"  # EVIDENCEDESK_TUNING=none: no process tuning
FLOOR = "pyarrow read only"
TOOLS = (EVIDENCEDESK, UNTUNED, FLOOR, "pytrec_eval", "ranx")


def generate(folder: Path, queries: int, docs: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    qrels: dict[str, dict[str, int]] = {}
    with open(run_path, "w", encoding="utf-8") as out:
        for q in rng.permutation(queries).tolist():  # queries in file order, not sorted
            ids = rng.choice(5_000_000, size=docs, replace=False)
            scores = np.round(rng.gamma(2.0, 4.0, size=docs), 2)  # two decimals: many ties
            names = [f"d{i}" for i in ids.tolist()]
            ranked = np.lexsort((ids, -scores))  # the rank column as a writer would fill it
            rank = np.empty(docs, dtype=np.int64)
            rank[ranked] = np.arange(1, docs + 1)
            qid = f"q{q}"
            # written in rank order (score down), as retrieval systems write runs, with the
            # documents of a tied score in random order
            written = np.lexsort((rng.random(docs), -scores))
            out.write("".join(f"{qid} Q0 {names[i]} {rank[i]} {scores[i]:.2f} bench\n"
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
    from evidencedesk.cli.process import Tuning
    from evidencedesk.files.trec import read_qrels, read_run
    from evidencedesk.metric_names import reads_whole_list
    from evidencedesk.results.inputs import judged_depth
    from evidencedesk.retrieval.metrics import summarize
    from evidencedesk.retrieval.trec_judge import judge_trec_run

    tuning = Tuning.from_env()
    tuning.start()
    with tuning.paused():
        run, qrels = read_run(run_path), read_qrels(qrels_path)
        judged = judge_trec_run(run, qrels, relevant=2, depth=judged_depth(OURS, 10),
                                graded=reads_whole_list(OURS))  # fmt: skip
        return {name: float(s.value or 0.0) for name, s in summarize(judged, OURS).items()}


def floor(run_path: str, qrels_path: str) -> dict[str, float]:
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        run_path,
        read_options=pacsv.ReadOptions(column_names=["q", "q0", "doc", "rank", "score", "tag"]),
        parse_options=pacsv.ParseOptions(delimiter=" "),
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


CHILD = {EVIDENCEDESK: evidencedesk_means, UNTUNED: evidencedesk_means, FLOOR: floor,
         "pytrec_eval": pytrec_eval_means, "ranx": ranx_means}  # fmt: skip


def child(tool: str, run_path: str, qrels_path: str) -> None:
    try:
        means = CHILD[tool](run_path, qrels_path)
    except ImportError as exc:
        print(json.dumps({"missing": str(exc)}))
        return
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux -> GiB
    print(json.dumps({"means": means, "peak_gib": peak}))


# -- the parent: fresh processes, timed from outside ----------------------------------------------
def timed(tool: str, run_path: Path, qrels_path: Path, repeat: int) -> dict[str, object] | None:
    env = dict(os.environ, EVIDENCEDESK_TUNING="none" if tool == UNTUNED else "all")
    times, found = [], {}
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--child", tool, str(run_path),
                               str(qrels_path)], env=env, check=True, capture_output=True,
                              text=True)  # fmt: skip
        times.append(time.perf_counter() - start)
        found = json.loads(done.stdout)
        if "missing" in found:
            return None
    return {"seconds": statistics.median(times), **found}


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
    tools: dict[str, dict[str, object]] = {}
    for tool in TOOLS:
        found = timed(tool, run_path, qrels_path, args.repeat)
        if found is None:
            if not args.json:
                print(f"  {tool}: not installed, skipped", flush=True)
            continue
        tools[tool] = found
        if not args.json:
            print(f"  {tool}: {found['seconds']:.2f} s (median of {args.repeat}), peak memory "
                  f"{found['peak_gib']:.2f} GiB", flush=True)  # fmt: skip
    scaling = []
    for share in (4, 2, 1):
        n = args.queries // share
        run_n, qrels_n = run_path, qrels_path
        if share > 1:
            run_n = prefix(run_path, n * args.docs, folder / f"run-{n}.txt")
            qrels_n = prefix(qrels_path, n * JUDGMENTS, folder / f"qrels-{n}.txt")
        found = timed(EVIDENCEDESK, run_n, qrels_n, args.repeat)
        scaling.append((n, found["seconds"] if found else None))
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
    if "pytrec_eval" in tools:
        lines.append(f"pytrec_eval / {EVIDENCEDESK}: {tools['pytrec_eval']['seconds'] / ours:.2f}x "
                     "(target >= 4)")  # fmt: skip
        agree = all(abs(tools["pytrec_eval"]["means"][m] - tools[EVIDENCEDESK]["means"][m]) < 1e-9
                    for m in OURS)  # fmt: skip
        lines.append(f"the four means equal pytrec_eval's (to 1e-9): {'yes' if agree else 'NO'}")
    scaling = found["scaling"]
    lines.append(f"\nqueries  {EVIDENCEDESK} (s)  x the first")
    for n, seconds in scaling:  # type: ignore[attr-defined]
        width = len(EVIDENCEDESK) + 4  # the column's title: "<name> (s)"
        lines.append(f"{n:>7}  {seconds:>{width}.2f}  {seconds / scaling[0][1]:>11.2f}")  # type: ignore[index]
    lines.append(f"\nload average when it ended: {found['load']:.2f} (2 cores)")
    return "\n".join(lines)


def main() -> None:
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
