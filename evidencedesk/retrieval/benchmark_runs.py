"""The benchmark table of a runs-only project: one row per TREC run, compared with its baseline run.

The same numbers as the report's runs-only benchmark: each run judged at its full depth at the
project's relevance threshold; recall@10, P@10, MRR with its seeded bootstrap interval, linear
nDCG@10 (trec_eval's ``recall_10``, ``P_10``, ``recip_rank``, ``ndcg_cut_10``, with questions
that have no relevant judgment left out), and reciprocal-rank flips against the baseline run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evidencedesk.inert import printable
from evidencedesk.project import Project
from evidencedesk.retrieval.benchmark import cell, compare, flips_cell, interval_cell, layout
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, per_question, summarize
from evidencedesk.retrieval.trec_judge import judge_trec_run

METRICS = (
    ("recall@10", "R@10"),
    ("precision@10", "P@10"),
    ("mrr", "MRR"),
    ("ndcg@10:linear", "nDCG@10"),
)


@dataclass(frozen=True)
class RunRow:
    """One run of the table: its means, the MRR interval and its flips against the baseline run."""

    name: str
    tag: str
    judged: tuple[Judged, ...]
    values: dict[str, float | None]
    mrr_ci: Any
    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float

    def to_dict(self, reference: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "tag": self.tag,
            **self.values,
            "mrr_ci": self.mrr_ci.to_dict() if hasattr(self.mrr_ci, "to_dict") else self.mrr_ci,
            "flips": {
                "versus": reference,
                "better": list(self.better),
                "worse": list(self.worse),
                "tied": self.tied,
                "p": self.p,
            },
            "reciprocal_rank": per_question(list(self.judged), "mrr"),
        }


def run_rows(project: Project, labels: Sequence[Label], seed: int) -> list[RunRow]:
    """Every run of the project, the baseline run first, then the others in project order."""
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    judged = {
        name: (run.tag, tuple(judge_trec_run(run, qrels, labels, relevant=project.relevance)))
        for name, run in project.load_runs().items()
    }
    first = project.baseline_run or next(iter(judged))
    order = [first, *(n for n in judged if n != first)]
    reference = list(judged[first][1])
    rows = []
    for name in order:
        tag, found = judged[name]
        summary = summarize(found, [m for m, _ in METRICS])
        mrr_ci, flips = compare(reference, found, seed)
        rows.append(
            RunRow(
                name,
                tag,
                found,
                {m: summary[m].value for m, _ in METRICS},
                mrr_ci,
                tuple(flips.better),
                tuple(flips.worse),
                flips.tied,
                flips.p,
            )
        )
    return rows


def format_runs_table(
    rows: Sequence[RunRow], labels: Sequence[Label], project: Project, seed: int
) -> str:
    """The plain-text table, numbers right-aligned, then how to read it (names from data inert:
    a run named with a newline or an escape sequence stays on its row, visibly escaped)."""
    answerable = sum(label.answerable for label in labels)
    ref = printable(rows[0].name)
    head = (
        f"benchmark: {printable(project.name)}: {len(rows)} TREC runs, {len(labels)} questions "
        f"({answerable} with a relevant judgment, relevant = grade >= {project.relevance}), "
        f"bootstrap seed {seed}"
    )
    columns = [
        "run",
        *(label for _, label in METRICS[:3]),
        "MRR 95% CI",
        METRICS[3][1],
        f"flips vs {ref}",
    ]
    table = []
    for i, r in enumerate(rows):
        v = [cell(r.values[m]) for m, _ in METRICS]
        flips = flips_cell(i == 0, r.better, r.worse, r.p)
        table.append([printable(r.name), v[0], v[1], v[2], interval_cell(r.mrr_ci), v[3], flips])
    body = layout(columns, table)
    tail = (
        "runs judged at their full depth; R@10, P@10, MRR and linear nDCG@10 match trec_eval's "
        "recall_10, P_10, recip_rank and ndcg_cut_10 except that questions with no relevant "
        f"judgment are left out; flips: questions whose reciprocal rank is higher (+) or lower (-) "
        f"than in the baseline run '{ref}', p: exact two-sided sign test."
    )
    return "\n".join([head, "", *body, "", tail])
