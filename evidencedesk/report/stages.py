"""Pipeline-only sections: sizing, ablations, citations and evidence (skipped for runs-only)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evidencedesk.report.sections import (
    AblationRow,
    Ablations,
    CitationCase,
    Citations,
    Sizing,
    SizingRow,
)
from evidencedesk.report.values import num, pval
from evidencedesk.report.variants import metric_stat
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.citations import load_answers, score_answer
from evidencedesk.retrieval.evalreport import Config, Costs, Run, ablate
from evidencedesk.retrieval.experiments import sweep
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import paired
from evidencedesk.retrieval.parts import Parts

ABLATION_BASE = Config(reranker="feature")
ABLATION_CHANGES: tuple[dict[str, object], ...] = (
    {"reranker": "none"},
    {"first_stage": "sparse"},
    {"first_stage": "dense"},
    {"depth": 3},
    {"depth": 20},
    {"final": 1},
    {"final": 5},
    {"max_words": 8},
    {"prefilter": False},
)
ABLATION_METRICS = (("recall@1", "r@1"), ("recall@3", "r@3"), ("mrr", "MRR"), ("ndcg@5", "nDCG@5"))


def price_list(costs: Costs) -> str:
    return f"hypothetical: {costs.stage_one_ms:g} ms per query + {costs.per_pair_ms:g} ms per scored pair"


def _in_noise(best: Run, other: Run) -> bool:
    """Not distinguishable from the best: a gap of at most two questions, or sign-test p ≥ 0.05."""
    if best is other:
        return True
    flips = paired(list(best.judged), list(other.judged), "mrr")
    return len(flips.better) - len(flips.worse) >= -2 or flips.p >= 0.05


def sizing(
    parts: Parts, catalog: Catalog, labels: Sequence[Label], seed: int, costs: Costs
) -> Sizing:
    rows = sweep((3, 5, 10, 20), (1, 3, 5), parts, catalog, labels, reranker="feature", costs=costs)
    best = max(rows, key=lambda r: (r.mrr or 0.0, -r.pairs_per_question, -r.tokens_per_question))
    noise = [_in_noise(best.run, r.run) for r in rows]  # type: ignore[arg-type]
    cheapest = min(
        (r for r, ok in zip(rows, noise, strict=True) if ok),
        key=lambda r: (r.pairs_per_question, r.tokens_per_question),
    )
    return Sizing(
        reranker="feature",
        price_list=price_list(costs),
        rows=tuple(
            SizingRow(
                depth=r.depth,
                final=r.final,
                recall=num(r.recall),
                mrr=metric_stat(list(r.run.judged), "mrr", "MRR", seed),  # type: ignore[union-attr]
                pairs=num(r.pairs_per_question, 1),
                tokens=num(r.tokens_per_question, 0),
                latency=num(r.latency_ms, 1),
                within_noise=ok,
                smallest_in_noise=r is cheapest,
                best=r is best,
            )
            for r, ok in zip(rows, noise, strict=True)
        ),
        note="Recall is measured at each row's own final size. 'Within noise' = MRR not distinguishable "
        "from the best row (at most a two-question gap, or sign-test p ≥ 0.05).",
    )


def ablations(parts: Parts, catalog: Catalog, labels: Sequence[Label], costs: Costs) -> Ablations:
    rows = ablate(ABLATION_BASE, list(ABLATION_CHANGES), parts, catalog, labels, costs=costs)
    return Ablations(
        base=ABLATION_BASE.label(),
        metric_names=tuple(label for _, label in ABLATION_METRICS),
        rows=tuple(
            AblationRow(
                change="base" if i == 0 else ", ".join(f"{k}={v}" for k, v in r.changes.items()),
                is_base=i == 0,
                metrics=tuple(num(r.run.value(name)) for name, _ in ABLATION_METRICS),
                mrr_delta=num(r.mrr_delta, signed=True),
                better=r.better,
                worse=r.worse,
                p=pval(r.p),
                pairs=num(r.pairs_per_question, 1),
            )
            for i, r in enumerate(rows)
        ),
    )


def citations(answers_path: Path, catalog: Catalog) -> Citations:
    answers = load_answers(answers_path, known_chunks=catalog.by_id)
    cases = []
    for a in answers:
        scores = score_answer(a, catalog.by_id)
        cases.append(
            CitationCase(
                id=a.id,
                tests=a.case.replace("_", " "),
                answer=a.answer,
                coverage=num(scores.coverage, 2),
                resolve=num(scores.resolve, 2),
                support=num(scores.support, 2),
                note=a.note,
            )
        )
    return Citations(
        cases=tuple(cases),
        limit="The support check compares words and numbers; it cannot see negation. An answer that "
        "says the opposite of its cited chunk with the same words scores perfectly and is wrong.",
    )
