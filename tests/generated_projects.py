"""Seeded runs-only projects of every shape a team brings: the words and the audit are read on
them, not only on the demo.

`generated(root, seed)` writes one project and returns its project file and what it chose:
the primary metric (MRR, nDCG@k with linear or exponential gain, recall@k or P@k), the grade
scale (0-1, 0-2, 0-3, 0-4, or with TREC Web's -2), the relevance threshold (1 or 2), queries with
no judgment, a gate policy or none (with critical questions or not), tied scores, and 1 to 12
candidate runs of different strengths (a much better run, a near tie, a worse one, a damaged
one that answers part of the queries).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

PRIMARIES = ("mrr", "ndcg@10:linear", "ndcg@5:exp", "recall@10", "precision@5")
SCALES = ((0, 1), (0, 1, 2), (0, 1, 2, 3), (0, 1, 2, 3, 4), (-2, 0, 1, 2))


@dataclass(frozen=True)
class Shape:
    primary: str
    scale: tuple[int, ...]
    relevance: int
    unjudged: int
    policy: bool
    critical: tuple[str, ...]
    candidates: int
    names: bool  # [questions] grades names the scale


def shape_of(seed: int) -> Shape:
    rng = random.Random(seed)
    scale = SCALES[(2 * seed + seed // len(PRIMARIES)) % len(SCALES)]  # not tied to the primary
    relevance = 1 if max(scale) == 1 else rng.choice((1, 2))
    policy = seed % 3 != 0
    return Shape(
        primary=PRIMARIES[seed % len(PRIMARIES)],
        scale=scale,
        relevance=relevance,
        unjudged=rng.choice((0, 0, 2)),
        policy=policy,
        critical=("q003", "q011") if policy and seed % 2 else (),
        candidates=1 + (seed * 5) % 12,
        names=seed % 4 == 1,
    )


def metrics_for(primary: str, seed: int = 0) -> list[str]:
    """The primary first, then two others it does not repeat, and on some seeds the whole-list
    measures a TREC team reports (MAP, R-precision, bpref)."""
    others = [m for m in ("mrr", "recall@10", "ndcg@10:linear") if m != primary]
    extra = [("map", "bpref"), (), ("Rprec",)][seed % 3]
    return [primary, *others[:2], *extra]


def generated(root: Path, seed: int, questions: int = 40, documents: int = 0) -> tuple[Path, Shape]:
    """Write the project under `root`; returns its evidencedesk.toml and its shape. With
    `documents`, a corpus of that many documents (the runs' 120 first) is shown, not indexed."""
    shape = shape_of(seed)
    rng = random.Random(1000 + seed)
    (root / "runs").mkdir(parents=True, exist_ok=True)
    qids = [f"q{n:03d}" for n in range(1, questions + 1)]
    docs = [f"d{n:03d}" for n in range(120)]
    relevant = [g for g in shape.scale if g >= shape.relevance]
    qrels: dict[str, dict[str, int]] = {}
    for n, q in enumerate(qids):
        if n >= questions - shape.unjudged:
            continue  # queries with no judgment at all
        judged = rng.sample(docs, rng.randint(3, 10))
        qrels[q] = {d: rng.choice(shape.scale) for d in judged}
        if n % 9 != 4:  # most questions have a relevant document; every ninth has none
            qrels[q][judged[0]] = rng.choice(relevant)
        else:
            qrels[q] = {d: min(g, shape.relevance - 1) for d, g in qrels[q].items()}
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": f"question {q}", "tags": [("a", "b", "c")[i % 3]]})
                + "\n" for i, q in enumerate(qids)), "utf-8")  # fmt: skip
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()),
        "utf-8",
    )
    strengths = [0.0, 0.45, -0.3, 0.02, 0.2, -0.05, 0.6, 0.1, -0.5, 0.3, 0.0, 0.05]
    names = ["base"] + [f"cand{i:02d}" for i in range(1, shape.candidates + 1)]
    for r, name in enumerate(names):
        strength = 0.0 if r == 0 else strengths[(r - 1) % len(strengths)]
        lines = []
        for n, q in enumerate(qids):
            if name == "cand03" and n % 4 == 0:
                continue  # a damaged run: it answers part of the queries
            good = [d for d, g in sorted(qrels.get(q, {}).items()) if g >= shape.relevance]
            ranked = [d for d in rng.sample(docs, 20) if d not in good]
            for d in good:
                place = (
                    rng.randrange(0, 12) if rng.random() > 0.5 + strength else rng.randrange(0, 3)
                )
                ranked.insert(min(place, len(ranked)), d)
            ranked = list(dict.fromkeys(ranked))[:15]
            for rank, d in enumerate(ranked, start=1):
                score = float(100 - rank) if seed % 5 else float(100 - (rank + 1) // 2)  # ties
                lines.append(f"{q} Q0 {d} {rank} {score:.2f} {name}\n")
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    toml = ["[project]", f'name = "generated {seed}"', "", "[questions]",
            'queries = "queries.jsonl"', 'qrels = "qrels.txt"', f"relevance = {shape.relevance}"]  # fmt: skip
    if shape.names:
        named = ", ".join(f'{g} = "grade {g} of {max(shape.scale)}"' for g in shape.scale)
        toml.append(f"grades = {{{named}}}")
    toml += [
        "",
        "[runs]",
        'dir = "runs"',
        'baseline = "base"',
        # cand03 answers three queries in four on purpose: the others count as empty lists
        *(["min_coverage = 0.7"] if shape.candidates >= 3 else []),
        "",
        "[report]",
        f"metrics = {json.dumps(metrics_for(shape.primary, seed))}",
        "",
    ]
    if shape.policy:
        policy = {"k": 10, "min_recall": 0.2, "min_pass_rate": 0.2, "max_drop": 0.05,
                  "critical": list(shape.critical)}  # fmt: skip
        (root / "policy.json").write_text(json.dumps(policy), "utf-8")
        toml += ["[gate]", 'policy = "policy.json"', ""]
    if documents:
        ids = docs + [f"e{n:05d}" for n in range(documents - len(docs))]
        (root / "corpus.jsonl").write_text(
            "".join(json.dumps({"_id": d, "title": f"Document {d}", "text": f"About {d}."}) + "\n"
                    for d in ids), "utf-8")  # fmt: skip
        toml += ["[documents]", 'corpus = "corpus.jsonl"', "index = false", ""]
    (root / "evidencedesk.toml").write_text("\n".join(toml), "utf-8")
    return root / "evidencedesk.toml", shape
