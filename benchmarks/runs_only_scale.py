"""Build a runs-only project of 10,000 questions x 1,000 documents per run (issue 8's scale).

Generates (seeded, with numpy) queries, graded qrels (0-3) and two TREC runs in a temporary
folder, then builds the site with the real CLI and prints the time per stage and the site size.

    python benchmarks/runs_only_scale.py [--questions 10000] [--depth 1000] [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_project(root: Path, questions: int, depth: int, runs: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    pool = 100_000
    qids = [f"q{n:05d}" for n in range(questions)]
    with (root / "queries.jsonl").open("w", encoding="utf-8") as out:
        for n, qid in enumerate(qids):
            out.write(
                json.dumps(
                    {
                        "_id": qid,
                        "text": f"question {n}",
                        "tags": [("short", "long", "rare")[n % 3]],
                    }
                )
                + "\n"
            )
    judged = rng.integers(0, pool, size=(questions, 12))
    grades = rng.choice([0, 1, 1, 2, 3], size=(questions, 12))
    with (root / "qrels.txt").open("w", encoding="utf-8") as out:
        for qid, docs, gs in zip(qids, judged, grades, strict=True):
            seen = {}
            for d, g in zip(docs.tolist(), gs.tolist(), strict=True):
                seen.setdefault(d, g)
            out.write("".join(f"{qid} 0 D{d:06d} {g}\n" for d, g in seen.items()))
    (root / "runs").mkdir()
    names = [f"engine{r}" for r in range(runs)]
    for r, name in enumerate(names):
        docs = rng.integers(0, pool, size=(questions, depth))
        # plant some judged documents near the top, more for later engines
        hits = rng.random((questions, 12)) < 0.3 + 0.1 * r
        places = rng.integers(0, 30, size=(questions, 12))
        for i in range(questions):
            docs[i, places[i][hits[i]]] = judged[i][hits[i]]
        lines = []
        scores = np.arange(depth, 0, -1, dtype=float)
        for qid, row in zip(qids, docs, strict=True):
            row = list(dict.fromkeys(row.tolist()))
            lines.append(
                "".join(
                    f"{qid} Q0 D{d:06d} {k} {scores[k - 1]:.1f} {name}\n"
                    for k, d in enumerate(row, start=1)
                )
            )
        (root / "runs" / f"{name}.run").write_text("".join(lines), encoding="utf-8")
    (root / "evidencedesk.toml").write_text(
        f'[project]\nname = "scale test"\n\n[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.txt"\n'
        f'relevance = 2\n\n[runs]\ndir = "runs"\nbaseline = "{names[0]}"\n',
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        project = write_project(root, args.questions, args.depth, args.runs)
        size = sum(p.stat().st_size for p in (root / "runs").iterdir())
        print(
            f"generated {args.questions} questions x {args.depth} documents x {args.runs} runs "
            f"({size / 1e6:.0f} MB of runs) in {time.perf_counter() - started:.1f} s"
        )
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "evidencedesk.report",
                "build",
                "--project",
                str(project),
                "--out",
                str(root / "site"),
            ],
            check=True,
        )
        print(f"build: {time.perf_counter() - started:.1f} s wall clock")


if __name__ == "__main__":
    main()
