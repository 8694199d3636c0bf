"""Tiny runs-only projects written from exact qrels and ranked lists (numbers worked by hand)."""

from __future__ import annotations

import json
from pathlib import Path


def write_project(
    root: Path,
    qrels: dict[str, dict[str, int]],
    runs: dict[str, dict[str, list[str]]],
    *,
    relevance: int = 2,
    baseline: str = "base",
    policy: dict[str, object] | None = None,
    questions: tuple[str, ...] = (),
    report: str = "",
    tags: dict[str, list[str]] | None = None,
) -> Path:
    """The project's ``evidencedesk.toml``; `questions` lists every query id (default: the qrels');
    `tags`, some queries' tags (in the queries file)."""
    (root / "runs").mkdir(parents=True, exist_ok=True)
    qids = questions or tuple(qrels)
    (root / "queries.jsonl").write_text(
        "".join(
            json.dumps(
                {"_id": q, "text": f"question {q}"}
                | ({"tags": tags[q]} if tags and q in tags else {})
            )
            + "\n"
            for q in qids
        ),
        "utf-8",
    )
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()), "utf-8"
    )
    for name, lists in runs.items():
        lines = [
            f"{q} Q0 {d} {r} {100 - r}.0 {name}\n"
            for q, ids in lists.items()
            for r, d in enumerate(ids, start=1)
        ]
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    toml = [
        "[project]", 'name = "synthetic"', "", "[questions]", 'queries = "queries.jsonl"',
        'qrels = "qrels.txt"', f"relevance = {relevance}", "", "[runs]", 'dir = "runs"',
        f'baseline = "{baseline}"', "",
    ]  # fmt: skip
    if policy is not None:
        (root / "policy.json").write_text(json.dumps(policy), "utf-8")
        toml += ["[gate]", 'policy = "policy.json"', ""]
    if report:
        toml += ["[report]", report, ""]
    (root / "evidencedesk.toml").write_text("\n".join(toml), "utf-8")
    return root / "evidencedesk.toml"
