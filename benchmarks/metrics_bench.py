"""Benchmark: read + judge + four metric means on a 10,000-query x 1,000-document TREC run.

    python benchmarks/metrics_bench.py [--queries 10000] [--docs 1000] [--repeat 3] [--seed 0]
                                       [--keep DIR]

Generates a seeded graded run (scores with six decimals, as Anserini writes them; ties in
arbitrary order, so readers must sort) and qrels (30 judgments a query, at least one relevant),
writes both as TREC files in a temporary folder, then times -- median of ``--repeat`` -- the path
from files to the means of recall@100, P@10, MRR and nDCG@10 with evidencedesk, and, when they are
installed, with ranx (``Qrels.from_file``, ``Run.from_file``, ``evaluate``) and pytrec_eval (a
plain Python reader into dicts, ``RelevanceEvaluator.evaluate``, then the means), all in this
process. evidencedesk is timed twice: first with glibc malloc's defaults (the row "malloc
defaults"), then with the thresholds the command line raises at start
(``evidencedesk.cli.process.reuse_freed_memory``: freed arrays' pages are reused instead of faulted
in again); the ratios use the second, the path a build takes. The floor is pyarrow's CSV reader on
the same file, alone (``read_csv`` with the six column names and single-space delimiter, every
column, types inferred: what a user would write); the ratios to it and to pytrec_eval are printed,
then evidencedesk's time at 1x, 2x and 4x the queries (the first quarter, half and all of the
file) and the ratio 4x / 1x. Also times ``bootstrap_ci`` over 10,000 values x 10,000 resamples,
and prints the process's peak memory (max RSS) after evidencedesk's runs, before the peers run,
and each tool's CPU time (all its threads): on a shared machine the CPU seconds move less than the
wall-clock ones. Data go to a temporary folder (or ``--keep DIR``), never into the repository.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from evidencedesk.cli.process import reuse_freed_memory
from evidencedesk.files.trec import Run, read_qrels, read_run, write_qrels
from evidencedesk.retrieval.stats import bootstrap_ci
from evidencedesk.retrieval.trec_judge import evaluate_run

DEFAULTS = "evidencedesk, malloc defaults"  # measured first, before the command line's setting
OURS = ["recall@100", "precision@10", "mrr", "ndcg@10:linear"]
RANX = ["recall@100-l2", "precision@10-l2", "mrr-l2", "ndcg@10"]  # binary ones at grade 2
TREC_EVAL = {"recall_100": "recall.100", "P_10": "P.10", "recip_rank": "recip_rank"}
TREC_EVAL["ndcg_cut_10"] = "ndcg_cut.10"


def generate(folder: Path, queries: int, docs: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    qrels: dict[str, dict[str, int]] = {}
    with open(run_path, "w", encoding="utf-8") as out:
        for q in range(queries):
            ids = rng.choice(5_000_000, size=docs, replace=False)
            scores = np.sort(np.round(rng.gamma(2.0, 4.0, size=docs), 6))[::-1]
            names = [f"d{i}" for i in ids.tolist()]
            qid = f"q{q}"
            out.write(
                "".join(
                    f"{qid} Q0 {d} {r} {s:.6f} bench\n"
                    for r, (d, s) in enumerate(zip(names, scores.tolist(), strict=True), start=1)
                )
            )
            picks = np.unique(np.minimum(rng.geometric(0.02, size=20), docs) - 1)
            judged = {names[i]: int(rng.integers(0, 4)) for i in picks.tolist()}
            judged.update({f"x{q}-{i}": int(rng.integers(0, 4)) for i in range(30 - len(judged))})
            if not any(g >= 2 for g in judged.values()):
                judged[names[int(picks[0])]] = 2
            qrels[qid] = judged
    write_qrels(qrels_path, qrels)
    return run_path, qrels_path


def timed(fn: Callable[[], dict[str, float]], repeat: int) -> tuple[float, dict[str, float], float]:
    """Median wall-clock seconds, the last result, median CPU seconds (all threads)."""
    times, cpu, result = [], [], {}
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), result, statistics.median(cpu)


def arrow_floor(run_path: Path, qrels_path: Path) -> dict[str, float]:
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        run_path,
        read_options=pacsv.ReadOptions(column_names=["q", "q0", "doc", "rank", "score", "tag"]),
        parse_options=pacsv.ParseOptions(delimiter=" "),
    )
    return {"rows": float(table.num_rows)}


def prefix(run_path: Path, lines: int, out: Path) -> Path:
    """The first `lines` lines of a run (whole queries: the generator writes them in blocks)."""
    with open(run_path, "rb") as src, open(out, "wb") as dst:
        dst.writelines(itertools.islice(src, lines))
    return out


def ours(run_path: Path, qrels_path: Path) -> dict[str, float]:
    run: Run = read_run(run_path)
    result = evaluate_run(run, read_qrels(qrels_path), OURS)
    return {name: float(s.value or 0.0) for name, s in result.items()}


def ranx_path(run_path: Path, qrels_path: Path) -> dict[str, float]:
    from ranx import Qrels, evaluate
    from ranx import Run as RanxRun

    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    run = RanxRun.from_file(str(run_path), kind="trec")
    values = evaluate(qrels, run, RANX)
    return {ours_name: float(values[name]) for ours_name, name in zip(OURS, RANX, strict=True)}


def pytrec_eval_path(run_path: Path, qrels_path: Path) -> dict[str, float]:
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
    return {ours_name: means[m] for ours_name, m in zip(OURS, TREC_EVAL, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="generate into (and keep) DIR")
    args = parser.parse_args()

    folder = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-metrics-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        rows, scaling = measure(folder, args)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)

    times = {name: seconds for name, seconds, _ in rows}
    base = times["evidencedesk"]
    print()
    print(f"| tool | read + judge + 4 means (s) | x evidencedesk | {' | '.join(OURS)} |")
    print("|---|---:|---:|" + "---:|" * len(OURS))
    for name, seconds, values in rows:
        if name == "pyarrow read only":
            print(
                f"| {name} (the floor) | {seconds:.2f} | {seconds / base:.2f} |" + " |" * len(OURS)
            )
            continue
        cells = " | ".join(f"{values[m]:.6f}" for m in OURS)
        print(f"| {name} | {seconds:.2f} | {seconds / base:.2f} | {cells} |")
    print(f"\nevidencedesk / pyarrow read: {base / times['pyarrow read only']:.2f}x (target <= 2)")
    if "pytrec_eval" in times:
        print(f"pytrec_eval / evidencedesk: {times['pytrec_eval'] / base:.2f}x (target >= 4)")
    print("\nqueries  evidencedesk (s)  x the first")
    for n, seconds in scaling:
        print(f"{n:>7}  {seconds:>16.2f}  {seconds / scaling[0][1]:>11.2f}")

    values = np.random.default_rng(args.seed).random(10_000).tolist()
    seconds, _, _ = timed(lambda: bootstrap_ci(values, seed=0, resamples=10_000).to_dict(), 3)
    print(f"\nbootstrap_ci, 10,000 values x 10,000 resamples: {seconds:.2f} s (median of 3)")


def measure(folder: Path, args: argparse.Namespace):
    start = time.perf_counter()
    run_path, qrels_path = generate(folder, args.queries, args.docs, args.seed)
    size = run_path.stat().st_size / 2**20
    print(
        f"generated {args.queries:,} queries x {args.docs:,} docs "
        f"({size:,.0f} MiB run file) in {time.perf_counter() - start:.1f} s"
    )
    rows: list[tuple[str, float, dict[str, float]]] = []
    candidates: list[tuple[str, Callable[[Path, Path], dict[str, float]]]] = [
        (DEFAULTS, ours),
        ("evidencedesk", ours),
        ("pyarrow read only", arrow_floor),
        ("ranx", ranx_path),
        ("pytrec_eval", pytrec_eval_path),
    ]
    for name, fn in candidates:
        if name == "evidencedesk":  # from here on, malloc as the command line sets it
            print(
                f"  glibc malloc thresholds raised (allocator.reuse_freed_memory): {reuse_freed_memory()}"
            )
        try:
            seconds, values, cpu = timed(lambda fn=fn: fn(run_path, qrels_path), args.repeat)
            print(f"  {name}: CPU time {cpu:.2f} s (all threads, median)")
        except ImportError:
            print(f"{name}: not installed, skipped")
            continue
        rows.append((name, seconds, values))
        print(f"  {name}: {seconds:.2f} s (median of {args.repeat})", flush=True)
        if name == "evidencedesk":  # it runs first (with DEFAULTS): this process's peak is its own
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            print(f"  evidencedesk peak memory (max RSS of this process): {peak:.2f} GiB")
    scaling = []
    for share in (4, 2, 1):
        n = args.queries // share
        run_n, qrels_n = run_path, qrels_path
        if share > 1:  # 30 judgments a query, written in query order
            run_n = prefix(run_path, n * args.docs, folder / f"run-{n}.txt")
            qrels_n = prefix(qrels_path, n * 30, folder / f"qrels-{n}.txt")
        seconds, _, _ = timed(lambda r=run_n, q=qrels_n: ours(r, q), args.repeat)
        scaling.append((n, seconds))
        print(f"  evidencedesk, {n:,} queries: {seconds:.2f} s", flush=True)
    return rows, scaling


if __name__ == "__main__":
    main()
