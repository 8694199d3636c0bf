"""How far the judgments reach, computed once: Judged@k of every run, each candidate's Judged@k
against the baseline's, the primary metric on condensed lists, and the pairs to label next.

An unjudged result counts as not relevant in every metric, so a candidate that finds documents
the assessors never saw is penalised for the holes in the labels. These numbers say how large
the holes are where the comparison looks (`JudgedShare`, with the caveat rule of
`verdicts.unjudged_caveat`), whether the verdict survives them (the primary metric on
condensed lists: Sakai 2007, ``trec_eval -J``), and which pairs would close them first
(`to_label`).
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Hashable, Mapping, Sequence

from evidencedesk.results.compute import Book, comparisons, paired_bootstrap_ci, question_values
from evidencedesk.results.rows import MetricStat
from evidencedesk.results.settings import Metric
from evidencedesk.results.types import Comparison, JudgedShare, ToLabel
from evidencedesk.results.verdicts import evidence_of, unjudged_caveat
from evidencedesk.retrieval.metrics import Judged, condense, mean_defined

TO_LABEL_CAP = 5000  # rows of to-label.tsv (the first ones change the most comparisons)

__all__ = [
    "TO_LABEL_CAP",
    "condensed_comparisons",
    "condensed_lists",
    "fully_judged",
    "judged_metric",
    "judged_share",
    "judged_stat",
    "to_label",
]


def judged_metric(k: int) -> Metric:
    """The Judged@k metric: the share of a run's top k that the judgments grade."""
    return Metric.of(f"judged@{k}")


def judged_stat(book: Book, key: Hashable, judged: Sequence[Judged], k: int) -> MetricStat:
    """A run's Judged@k: its mean over the questions in the comparison, with the interval."""
    return book.stat(key, judged, judged_metric(k).name)


def judged_share(
    base: Sequence[Judged], candidate: Sequence[Judged], k: int, seed: int
) -> JudgedShare:
    """The candidate's Judged@k against the baseline's, paired question by question."""
    name = judged_metric(k).name
    a = question_values(base, [name])[name]
    b = question_values(candidate, [name])[name]
    ci = paired_bootstrap_ci(a, b, name, seed=seed)
    mean_a = mean_defined(list(a.values()))[0]
    mean_b = mean_defined(list(b.values()))[0]
    return JudgedShare(k, mean_a, mean_b, ci.mean, ci.low, ci.high, ci.n,
                       unjudged_caveat(mean_a, mean_b, ci.high))  # fmt: skip


def fully_judged(*runs: Sequence[Judged]) -> bool:
    """Whether every result of these runs is judged (so condensed lists would change nothing)."""
    return all(j.judged is None for run in runs for j in run)


def condensed_lists(judged: Sequence[Judged]) -> tuple[Judged, ...]:
    """Each whole list condensed (`metrics.condense`): a pipeline's final lists."""
    return tuple(condense(j) for j in judged)


def condensed_comparisons(
    base: Sequence[Judged],
    runs: Mapping[str, Sequence[Judged]],
    primary: Metric,
    book: Book,
    full: Mapping[str, Sequence[Comparison]],
) -> dict[str, tuple[Comparison, bool]]:
    """Per candidate: the primary metric's comparison on condensed lists (Holm across the
    candidates, as on full lists) and whether it moved as the primary metric's comparison on
    the full lists (among the candidate's comparisons `full`) did: up, down, or not at all."""
    stats = [book.stat(("condensed", "baseline"), base, primary.name)]
    found = comparisons(stats, base, {n: (("condensed", n), j) for n, j in runs.items()},
                        [primary], book)  # fmt: skip
    out = {}
    for name, (_, (cmp,)) in found.items():
        head = next(c for c in full[name] if c.metric == primary.name)
        agrees = evidence_of(cmp).direction == evidence_of(head).direction
        out[name] = (cmp, agrees)
    return out


def _unjudged(j: Judged, k: int) -> dict[str, int]:
    """The unjudged ids of a list's top k, with their rank."""
    if j.judged is None:
        return {}
    return {i: r for r, (i, f) in enumerate(zip(j.ids[:k], j.judged[:k], strict=False), 1) if not f}


def to_label(
    baseline: Sequence[Judged], candidates: Mapping[str, Sequence[Judged]], baseline_name: str,
    k: int, cap: int = TO_LABEL_CAP, corpus: Collection[str] | None = None,
) -> tuple[tuple[ToLabel, ...], int]:  # fmt: skip
    """The unjudged (question, document) pairs of the baseline's and the candidates' top k, the
    ones that change the most comparisons first: pairs that split most baseline-candidate
    comparisons (in one run's top k, not in the other's), then the best rank, then the most runs
    returning them; ties by question order and document id. At most `cap` rows, and how many
    pairs there are in all. With `corpus` (the project's document ids), a document it does not
    hold is never listed: nobody could read it to label it."""
    runs = {baseline_name: baseline, **candidates}
    by_question = {name: {j.id: j for j in judged} for name, judged in runs.items()}
    order = {j.id: n for n, j in enumerate(baseline)}
    rows = []
    for q, n in order.items():
        tops = {name: lists[q] for name, lists in by_question.items() if q in lists}
        unjudged = {name: _unjudged(j, k) for name, j in tops.items()}
        pairs = sorted({d for found in unjudged.values() for d in found
                        if corpus is None or d in corpus})  # fmt: skip
        if not pairs:
            continue
        in_top = {name: set(j.ids[:k]) for name, j in tops.items()}
        base_top = in_top.get(baseline_name, set())
        for d in pairs:
            returning = tuple(name for name in runs if d in unjudged.get(name, {}))
            splits = sum((d in base_top) != (d in in_top.get(c, set())) for c in candidates)
            rank = min(unjudged[name][d] for name in returning)
            # (question order, document id) is unique: the order never reads past the id
            rows.append((-splits, rank, -len(returning), n, d, q, returning))
    # only the rows shown become ToLabel rows (a 10,000-question project has 100,000s of pairs)
    best = heapq.nsmallest(cap, rows)
    return tuple(ToLabel(q, d, rank, returning, -splits)
                 for splits, rank, _, _, d, q, returning in best), len(rows)  # fmt: skip
