"""The benchmark table of SPEC §8: the variants, their rows and the plain-text table.

The command (``python -m evidencedesk.retrieval.benchmark``, ``evidencedesk benchmark``: options,
the gate, exit statuses) is `evidencedesk.retrieval.benchmark_cli`, a front end; this module
only hands ``python -m`` over to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evidencedesk.errors import EvidencedeskError
from evidencedesk.paths import DATA
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Run, run_config
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, per_question, per_question_all
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.stats import Interval, Paired, bootstrap_ci, paired

__all__ = [
    "CAVEAT",
    "MINILM_CAVEAT",
    "VARIANTS",
    "VariantResult",
    "benchmark_variants",
    "format_table",
]

POLICY = DATA / "gate_policy_retrieval.json"
BASELINE = DATA / "baseline_retrieval.json"
CAVEAT = (
    "note: 'dense' is a toy hashed embedder standing in for a real bi-encoder; overlap, feature, "
    "pair and blend are hand-written lexical stand-ins for a cross-encoder. Numbers show how the "
    "kit measures, not how good real models are."
)
# the same note when [searchers] dense = "minilm": the dense variant is the real model
MINILM_CAVEAT = (
    f"note: 'dense' is {minilm.DESCRIPTION}; overlap, feature, pair and blend are hand-written "
    "lexical stand-ins for a cross-encoder."
)
VARIANTS: tuple[tuple[str, Config], ...] = (
    ("sparse", Config(first_stage="sparse")),
    ("dense", Config(first_stage="dense")),
    ("hybrid", Config()),
    ("hybrid + overlap", Config(reranker="overlap")),
    ("hybrid + feature", Config(reranker="feature")),
    ("hybrid + blend", Config(reranker="blend")),
    ("hybrid + pair (8 words)", Config(reranker="pair", max_words=8)),
)


def _plain(value: Any) -> Any:
    return value.to_dict() if hasattr(value, "to_dict") else value


@dataclass(frozen=True)
class VariantResult:
    """One row of the benchmark: metrics, the MRR interval, flips vs the first row, cost."""

    name: str
    config: Config
    run: Run
    recall_at_1: float | None
    recall_at_3: float | None
    mrr: float | None
    mrr_ci: Any
    ndcg_at_5: float | None
    reference: str
    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float
    pairs_per_question: float
    tokens_per_question: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": self.config.to_dict(),
            "recall@1": self.recall_at_1,
            "recall@3": self.recall_at_3,
            "mrr": self.mrr,
            "mrr_ci": _plain(self.mrr_ci),
            "ndcg@5": self.ndcg_at_5,
            "flips": {
                "versus": self.reference,
                "better": list(self.better),
                "worse": list(self.worse),
                "tied": self.tied,
                "p": self.p,
            },
            "pairs_per_question": self.pairs_per_question,
            "tokens_per_question": self.tokens_per_question,
            "reciprocal_rank": per_question_all(list(self.run.judged), "mrr"),
        }


def benchmark_variants(
    parts: Parts,
    catalog: Catalog,
    labels: Sequence[Label],
    seed: int = 0,
    variants: Sequence[tuple[str, Config]] = VARIANTS,
    scope: Scope | None = None,
) -> list[VariantResult]:
    """Run every variant; flips and p compare each with the first variant."""
    runs = [(name, run_config(cfg, parts, catalog, labels, scope)) for name, cfg in variants]
    if not runs:
        raise EvidencedeskError("benchmark: expected at least one variant, found none")
    reference_name, reference = runs[0]
    results = []
    for name, run in runs:
        mrr_ci, flips = compare(reference.judged, run.judged, seed)
        results.append(
            VariantResult(
                name=name,
                config=run.config,
                run=run,
                recall_at_1=run.value("recall@1"),
                recall_at_3=run.value("recall@3"),
                mrr=run.value("mrr"),
                mrr_ci=mrr_ci,
                ndcg_at_5=run.value("ndcg@5"),
                reference=reference_name,
                better=tuple(flips.better),
                worse=tuple(flips.worse),
                tied=flips.tied,
                p=flips.p,
                pairs_per_question=run.pairs_per_question,
                tokens_per_question=run.tokens_per_question,
            )
        )
    return results


def compare(
    reference: Sequence[Judged], judged: Sequence[Judged], seed: int
) -> tuple[Interval, Paired]:
    """A row's MRR interval and its flips against the reference row (both tables' rows)."""
    interval = bootstrap_ci(per_question(list(judged), "mrr"), seed=seed)
    return interval, paired(list(reference), list(judged), name="mrr")


def cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def interval_cell(ci: Any) -> str:
    return "n/a" if getattr(ci, "low", None) is None else f"[{ci.low:.3f}, {ci.high:.3f}]"


def flips_cell(first: bool, better: Sequence[str], worse: Sequence[str], p: float) -> str:
    return "—" if first else f"+{len(better)}/-{len(worse)} p={p:.3f}"


def layout(columns: list[str], rows: list[list[str]]) -> list[str]:
    """Header, rule and rows: the first column left-aligned, the numbers right-aligned."""
    widths = [max(len(row[c]) for row in [columns, *rows]) for c in range(len(columns))]

    def line(cells: list[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [cell.rjust(widths[c]) for c, cell in enumerate(cells) if c > 0]
        return "  ".join(out).rstrip()

    return [line(columns), "  ".join("-" * w for w in widths)] + [line(row) for row in rows]


def format_table(
    results: Sequence[VariantResult], labels: Sequence[Label], seed: int, dense: str = "toy"
) -> str:
    """The plain-text table, numbers right-aligned, then the caveat line (of the project's
    dense embedder, `dense`)."""
    answerable = sum(label.answerable for label in labels)
    base = results[0].config if results else Config()
    head = (
        f"benchmark: {len(labels)} questions ({answerable} answerable), final {base.final} chunks, "
        f"reranker depth {base.depth}, bootstrap seed {seed}"
    )
    ref = results[0].name if results else ""
    columns = ["variant", "r@1", "r@3", "MRR", "MRR 95% CI", "nDCG@5", f"flips vs {ref}", "pairs/q"]
    rows = []
    for i, r in enumerate(results):
        rows.append(
            [
                r.name,
                cell(r.recall_at_1),
                cell(r.recall_at_3),
                cell(r.mrr),
                interval_cell(r.mrr_ci),
                cell(r.ndcg_at_5),
                flips_cell(i == 0, r.better, r.worse, r.p),
                f"{r.pairs_per_question:.1f}",
            ]
        )
    body = layout(columns, rows)
    tail = [
        "r@k: recall at k of the final list; MRR interval: seeded percentile bootstrap over "
        "answerable questions; flips: questions whose reciprocal rank is higher (+) or lower (-) "
        f"than in '{ref}', p: exact two-sided sign test.",
        MINILM_CAVEAT if dense == "minilm" else CAVEAT,
    ]
    return "\n".join([head, "", *body, "", *tail])


# `python -m evidencedesk.retrieval.benchmark` (SPEC §8) runs the command, which lives in
# `benchmark_cli` (a front end); only a script run imports it, so the library stays below it.
if __name__ == "__main__":
    import sys

    from evidencedesk.retrieval import benchmark_cli

    sys.exit(benchmark_cli.main())
