"""The streaming path for runs larger than memory: time and peak memory on a synthetic run.

    python benchmarks/stream_bench.py [--gb 5] [--depth 1000] [--block-mb 64] [--keep DIR]

Writes (seeded, fixed-width lines built as numpy byte matrices) a TREC run of about ``--gb``
gigabytes -- queries in blocks of ``--depth`` lines, as search engines write them -- and qrels
(30 judgments a query), then judges it in a fresh process with
`evidencedesk.retrieval.trec_stream.stream_values` (four metrics per question) and prints the
time, the lines per second, the peak memory of that process (``ru_maxrss``) and the straight-line
extrapolation to a 44 GB run (10^6 queries x 1,000 documents). Data go to a temporary folder (or
``--keep DIR``), never into the repository.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

NAMES = ["recall@100", "precision@10", "mrr", "ndcg@10:linear"]
LINE = "q0000000 Q0 D0000000 0000 00000 bench\n"  # 39 bytes a line
TARGET_GB = 44.0


def _digits(mat: np.ndarray, column: int, numbers: np.ndarray, width: int) -> None:
    for k in range(width):
        mat[:, column + width - 1 - k] = 48 + (numbers // 10**k) % 10


def generate(folder: Path, gigabytes: float, depth: int, seed: int = 0) -> tuple[Path, Path, int]:
    rng = np.random.default_rng(seed)
    queries = max(1, int(gigabytes * 1e9 / len(LINE) / depth))
    head = np.frombuffer(LINE.encode(), dtype=np.uint8)
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    with open(run, "wb") as out, open(qrels, "w", encoding="utf-8") as judged:
        for first in range(0, queries, 1000):
            n = min(1000, queries - first)
            qnum = np.arange(first, first + n)
            start = rng.integers(0, 9_000_000, size=(n, 1))
            docs = start + np.arange(depth) * 7  # distinct within a query
            mat = np.tile(head, (n * depth, 1))
            rank = np.tile(np.arange(1, depth + 1), n)
            _digits(mat, 1, np.repeat(qnum, depth), 7)
            _digits(mat, 13, docs.ravel(), 7)
            _digits(mat, 21, rank, 4)
            _digits(mat, 26, rng.integers(0, 100_000, size=n * depth), 5)  # ties: readers sort
            out.write(mat.tobytes())
            picks = rng.integers(0, depth, size=(n, 30))
            grades = rng.choice([0, 1, 2, 3], size=(n, 30))
            rows = []
            for q, row, pick, grade in zip(qnum.tolist(), docs, picks, grades, strict=True):
                seen = {
                    int(row[p]): int(g) for p, g in zip(pick.tolist(), grade.tolist(), strict=True)
                }
                rows.extend(f"q{q:07d} 0 D{d:07d} {g}\n" for d, g in seen.items())
            judged.write("".join(rows))
    return run, qrels, queries


def measure(run: Path, qrels: Path, block_mb: int) -> None:
    """In a fresh process: read the qrels, stream the run, print one JSON line."""
    from evidencedesk.files.limits import set_max_input_mb
    from evidencedesk.files.trec import read_qrels
    from evidencedesk.retrieval.trec_stream import stream_values

    set_max_input_mb(1 << 20)  # streaming holds one block, not the file: lift the per-file limit
    started = time.perf_counter()
    judgments = read_qrels(qrels)
    qrels_seconds = time.perf_counter() - started
    started = time.perf_counter()
    result = stream_values(run, judgments, NAMES, block_bytes=block_mb << 20)
    seconds = time.perf_counter() - started
    summary = {name: s.value for name, s in result.summary().items()}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(json.dumps({"qrels_s": qrels_seconds, "stream_s": seconds, "peak_gib": peak,
                      "lines": result.lines, "blocks": result.blocks,
                      "questions": len(result.questions), "summary": summary}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gb", type=float, default=5.0)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--block-mb", type=int, default=64)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--measure", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(*args.measure, args.block_mb)
        return
    folder = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-stream-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        run, qrels, queries = generate(folder, args.gb, args.depth)
        size = run.stat().st_size
        print(f"generated {queries:,} queries x {args.depth:,} docs ({size / 1e9:.2f} GB run) "
              f"in {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        command = [sys.executable, __file__, "--measure", str(run), str(qrels)]
        done = subprocess.run([*command, "--block-mb", str(args.block_mb)],
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            sys.exit(f"the measuring process failed:\n{done.stderr}")
        m = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    rate = m["lines"] / m["stream_s"]
    scale = TARGET_GB * 1e9 / size
    print(f"qrels: {m['qrels_s']:.1f} s; stream + judge: {m['stream_s']:.1f} s for "
          f"{m['lines']:,} lines in {m['blocks']} blocks ({rate / 1e6:.2f} M lines/s, "
          f"{size / 1e6 / m['stream_s']:.0f} MB/s); peak memory {m['peak_gib']:.2f} GiB")  # fmt: skip
    print(f"means: {json.dumps(m['summary'])}")
    print(f"extrapolated to {TARGET_GB:.0f} GB ({scale:.1f}x): stream {m['stream_s'] * scale / 60:.0f} "
          f"min, qrels {m['qrels_s'] * scale / 60:.1f} min (if as many judgments a query), "
          f"per-question values {m['questions'] * scale * len(NAMES) * 8 / 1e6:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
