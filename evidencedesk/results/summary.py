"""What the index's bottom line summarises, decided once from the Results: the best lead."""

from __future__ import annotations

from evidencedesk.results.types import CandidateResult, Results

__all__ = ["best_lead"]


def best_lead(results: Results) -> CandidateResult | None:
    """The candidate with the largest lower bound of the primary metric's paired 95 % interval
    (the one the data are surest is ahead, however little), among the candidates ahead of the
    baseline on it (a positive mean difference); ties by name; None when none is ahead with an
    interval."""
    ranked = []
    for c in results.candidates:
        head = c.comparison(c.decision.primary)
        if head.low is not None and head.delta is not None and head.delta > 0:
            ranked.append((-head.low, c.name, c))
    return min(ranked, key=lambda r: (r[0], r[1]))[2] if ranked else None
