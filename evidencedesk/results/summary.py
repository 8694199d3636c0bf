"""The reviewer's four questions, answered from the Results as numbers (the index's tiles).

How many candidates got better, worse or neither (`verdict_counts`); what the gate says
(`gate_counts`); which candidate is the best lead (`best_lead`); and how large and how judged
the data is (`data_size`). Pure functions: every number is read from the Results, nothing is
worded here, so each tile's sentence can be built (and audited) from these fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evidencedesk.results import verdicts as v
from evidencedesk.results.rows import MetricStat
from evidencedesk.results.types import CandidateResult, Results
from evidencedesk.retrieval.stats import TIE

_GATE_VERDICTS = ("GO", "REVIEW", "BLOCK")  # the gate verdicts, in the order the index counts them
_BEST_FIRST = tuple(reversed(v.VERDICTS))  # BETTER, PROMISING, ..., WORSE


@dataclass(frozen=True)
class VerdictCounts:
    """Candidates by verdict: `better` = BETTER, `worse` = WORSE, `unclear` = every other
    verdict; `by_verdict` counts each verdict that occurs, BETTER first, WORSE last."""

    better: int
    worse: int
    unclear: int
    by_verdict: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class _GateCounts:
    """Candidates by gate verdict (only when the project has a gate policy)."""

    go: int
    review: int
    block: int


@dataclass(frozen=True)
class _Lead:
    """The best lead: a candidate and its primary metric's paired difference from the baseline
    with the 95 % interval over `n` questions."""

    candidate: str
    metric: str  # the primary metric's name ("mrr", "ndcg@10:linear")
    delta: float | None
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class DataSize:
    """What the numbers rest on: the questions counted, the documents and chunks, and the share
    of the baseline's top k that the judgments grade (its Judged@k)."""

    questions: int  # every question the project names
    judged: int | None  # with at least one judgment; None: a results.json that did not count
    relevant: int  # with a relevant judgment: the questions every comparison is decided on
    documents: int  # 0: a runs-only project without a corpus
    chunks: int
    judged_k: int
    baseline_judged: MetricStat | None  # the baseline's Judged@k; None when not measured


def verdict_counts(candidates: Sequence[CandidateResult]) -> VerdictCounts:
    """The candidates counted by verdict: better, worse, unclear, and each verdict that occurs."""
    verdicts = [c.decision.verdict for c in candidates]
    better, worse = verdicts.count(v.BETTER), verdicts.count(v.WORSE)
    return VerdictCounts(
        better=better,
        worse=worse,
        unclear=len(verdicts) - better - worse,
        by_verdict=tuple((x, verdicts.count(x)) for x in _BEST_FIRST if x in verdicts),
    )


def gate_counts(results: Results) -> _GateCounts | None:
    """GO / REVIEW / BLOCK counts; None when the project has no gate policy (nothing checked)."""
    if results.policy is None:
        return None
    gates = [c.gate.verdict for c in results.candidates]
    go, review, block = (gates.count(g) for g in _GATE_VERDICTS)
    return _GateCounts(go, review, block)


def _ties(value: float | None) -> int:
    """A sort key that treats differences below `stats.TIE` (float noise) as equal."""
    return 0 if value is None else round(value / TIE)


def best_lead(results: Results) -> _Lead | None:
    """Among the candidates ahead of the baseline on the primary metric (a positive paired
    difference), the one whose paired interval has the largest lower bound (the gain we are
    surest of); equal bounds go to the larger difference, then to the first name in
    alphabetical order. None when no candidate is ahead with an interval."""
    leads = []
    for c in results.candidates:
        d = c.comparison(c.decision.primary)
        if d.low is not None and d.high is not None and d.delta is not None and d.delta > TIE:
            leads.append(_Lead(c.name, d.metric, d.delta, d.low, d.high, d.n))
    if not leads:
        return None
    return min(leads, key=lambda x: (-_ties(x.low), -_ties(x.delta), x.candidate))


def data_size(results: Results) -> DataSize:
    """What the numbers rest on: questions, judgments, documents, chunks, baseline's Judged@k."""
    inputs, counts = results.inputs, results.inputs.counts
    return DataSize(
        questions=counts.queries if counts is not None else len(inputs.questions),
        judged=counts.judged if counts is not None else None,
        relevant=results.answerable,
        documents=len(inputs.documents),
        chunks=inputs.chunks,
        judged_k=results.settings.judged_k,
        baseline_judged=results.variant(results.baseline).judged,
    )
