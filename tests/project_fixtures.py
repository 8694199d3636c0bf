"""Generators of small projects for tests (deterministic for a given seed)."""

from __future__ import annotations

import json
import random
from pathlib import Path

RUN_NAMES = ("base", "better", "worse", "shuffled", "deep")


def make_runs_only_project(
    tmp_path: Path, questions: int = 50, runs: int = 3, seed: int = 0, depth: int = 20
) -> Path:
    """Write a runs-only project under `tmp_path` and return its ``evidencedesk.toml``.

    Files: ``queries.jsonl`` (BEIR, with a ``tags`` column), ``qrels.txt`` (TREC, grades 0-3,
    some questions with no grade >= 2 and one with no judgment at all), ``runs/<name>.run`` (TREC,
    `depth` documents per question, distinct scores, some ties on purpose in the last run, a few
    questions missing from each run) and the project file (relevance 2, baseline run ``base``,
    ``min_coverage = 0.75`` for the missing questions).
    """
    if not 1 <= runs <= len(RUN_NAMES):
        raise ValueError(f"runs: expected 1 to {len(RUN_NAMES)}, found {runs}")
    rng = random.Random(seed)
    root = tmp_path / "runs-only-project"
    (root / "runs").mkdir(parents=True, exist_ok=True)
    pool = [f"D{n:04d}" for n in range(200)]
    qids = [f"q{n:03d}" for n in range(1, questions + 1)]
    tag_names = ("short", "long", "rare")
    qrels: dict[str, dict[str, int]] = {}
    with (root / "queries.jsonl").open("w", encoding="utf-8") as out:
        for n, qid in enumerate(qids):
            tags = [tag_names[n % 3]] + (["numeric"] if n % 4 == 0 else [])
            out.write(json.dumps({"_id": qid, "text": f"question {n} about topic {n % 7}", "tags": tags}) + "\n")  # fmt: skip
            if n == questions - 1:
                continue  # one question has no judgment at all
            judged = rng.sample(pool, rng.randint(3, 12))
            grades = {d: rng.choice((0, 0, 1, 1, 2, 3)) for d in judged}
            if n % 10 == 3:  # unanswerable at threshold 2: no grade above 1
                grades = {d: min(g, 1) for d, g in grades.items()}
            qrels[qid] = grades
    with (root / "qrels.txt").open("w", encoding="utf-8") as out:
        for qid, docs in qrels.items():
            out.writelines(f"{qid} 0 {d} {g}\n" for d, g in docs.items())
    names = RUN_NAMES[:runs]
    for r, name in enumerate(names):
        lines = []
        for n, qid in enumerate(qids):
            if (n + r) % 17 == 5:
                continue  # question missing from this run
            relevant = [d for d, g in sorted(qrels.get(qid, {}).items()) if g >= 1]
            others = [d for d in rng.sample(pool, depth + len(relevant)) if d not in relevant]
            ranked = others[:depth]
            for d in relevant:
                if rng.random() < 0.4 + 0.2 * r - 0.35 * (name == "worse"):
                    ranked.insert(rng.randrange(0, min(len(ranked), 3 + 4 * r) + 1), d)
            ranked = list(dict.fromkeys(ranked))[:depth]
            for rank, d in enumerate(ranked, start=1):
                score = 100.0 - rank if name != "deep" else float(100 - (rank + 1) // 2)
                lines.append(f"{qid} Q0 {d} {rank} {score:.4f} {name}\n")
        (root / "runs" / f"{name}.run").write_text("".join(lines), encoding="utf-8")
    (root / "evidencedesk.toml").write_text(
        "\n".join(
            [
                "[project]",
                f'name = "generated runs-only project (seed {seed})"',
                f"seed = {seed}",
                "",
                "[questions]",
                'queries = "queries.jsonl"',
                'qrels = "qrels.txt"',
                "relevance = 2",
                "",
                "[runs]",
                'dir = "runs"',
                f'baseline = "{names[0]}"',
                # each run leaves a question out on purpose (one in 17; one in five of a tiny
                # project): the others count as empty lists
                "min_coverage = 0.75",
                "",
            ]
        ),
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"
