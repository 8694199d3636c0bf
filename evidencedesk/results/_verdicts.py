"""Two questions, two answers: the verdict says whether a candidate got better, from the
statistics alone; the gate (`evidencedesk.gate`) says whether it may ship. Neither turns the
other.

A reported metric *moved* when its paired 95 % bootstrap interval excludes zero or its paired
randomization test, Holm-adjusted across the candidates, gives p < 0.05 (`ALPHA`); it moved the
way its paired difference points. On the primary metric (the first reported one):

- BETTER: the primary moved up with Holm-adjusted p < 0.05, and no reported metric moved down;
- PROMISING ("encouraging, not proven"): nothing moved down, and the primary moved up by its
  interval alone (Holm-adjusted p >= 0.05), or it did not move but its flips lean better with an
  exact sign-test p below `LEAN_P` (0.2);
- WORSE and LEANS WORSE: the mirror images (nothing moved up);
- MIXED: some reported metric moved up and another down;
- NO CLEAR CHANGE: anything else (no metric moved, the flips lean no way worth saying; or only
  a metric other than the primary moved).

A critical question of the gate policy that got worse (on any reported metric) is named in the
headline and decided by the gate; it never changes the verdict. The methods page and docs/verdicts.md
state these rules in the same words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evidencedesk.results._what_it_takes import (
    questions_for_p05,
    questions_for_power,
    questions_for_t,
    questions_for_t_power,
)
from evidencedesk.retrieval._stats import ALPHA

LEAN_P = 0.2  # flips lean a way worth saying only when the exact sign test gives p below this
# a candidate's Judged@k this far below the baseline's (a share), with its paired interval
# below zero, carries the unjudged caveat: the comparison can understate it
UNJUDGED_GAP = 0.05

# verdicts that say a candidate got worse or is mixed
WORSE, LEANS_WORSE, MIXED = "WORSE", "LEANS WORSE", "MIXED"
# verdicts that say a candidate did not change or got better
NO_CLEAR_CHANGE, PROMISING, BETTER = "NO CLEAR CHANGE", "PROMISING", "BETTER"
# every verdict, worst first
VERDICTS = (WORSE, LEANS_WORSE, MIXED, NO_CLEAR_CHANGE, PROMISING, BETTER)


@dataclass(frozen=True)
class Evidence:
    """One metric's paired comparison, as the verdict reads it."""

    metric: str
    delta: float | None
    low: float | None
    high: float | None
    better: int
    worse: int
    sign_p: float
    holm_p: float  # the randomization test's p, Holm-adjusted across the candidates

    @property
    def significant(self) -> bool:
        """Holm-adjusted randomization p < 0.05 with a difference to point a way."""
        return self.holm_p < ALPHA and self.delta is not None and self.delta != 0

    @property
    def by_interval(self) -> str | None:
        """ "up" / "down" when the paired interval excludes zero, else None."""
        if self.low is not None and self.low > 0:
            return "up"
        if self.high is not None and self.high < 0:
            return "down"
        return None

    @property
    def direction(self) -> str | None:
        """ "up" / "down" when the metric moved (interval excludes 0 or Holm p < 0.05)."""
        found = self.by_interval
        if found is not None:
            return found
        if self.significant:
            return "up" if self.delta > 0 else "down"  # type: ignore[operator]
        return None

    @property
    def lean(self) -> str | None:
        """ "better" / "worse" when the flips lean that way with sign-test p < `LEAN_P`."""
        if self.sign_p >= LEAN_P or self.better == self.worse:
            return None
        return "better" if self.better > self.worse else "worse"


@dataclass(frozen=True)
class Decision:
    """A candidate's verdict from its statistics, with what moved and the questions needed."""

    verdict: str  # one of VERDICTS
    primary: str  # the primary metric's name
    up: tuple[str, ...]  # metrics that moved up, in reported order
    down: tuple[str, ...]
    critical_worse: tuple[str, ...]  # critical question ids worse on any reported metric
    # PROMISING and LEANS WORSE only: questions in all (now: `questions`) at which the primary
    # metric's observed effect reaches significance -- from the paired differences (a paired
    # test at p < 0.05 / `family`, which Holm's adjustment over `family` candidates asks of it
    # at worst, and its 80 % power figure) and from the flips (sign test at p < 0.05, its 80 %
    # power figure)
    family: int = 1
    questions: int | None = None
    for_p05: int | None = None
    for_power: int | None = None
    for_t: int | None = None
    for_t_power: int | None = None


def _verdict(evidence: Sequence[Evidence], head: Evidence | None) -> str:
    up = [e for e in evidence if e.direction == "up"]
    down = [e for e in evidence if e.direction == "down"]
    if up and down:
        return MIXED
    if head is None:
        return NO_CLEAR_CHANGE
    if head.direction == "up" and not down:
        return BETTER if head.significant else PROMISING
    if head.direction == "down" and not up:
        return WORSE if head.significant else LEANS_WORSE
    if head.direction is None and head.lean == "better" and not down:
        return PROMISING
    if head.direction is None and head.lean == "worse" and not up:
        return LEANS_WORSE
    return NO_CLEAR_CHANGE


def _verdict_of_evidence(
    evidence: Sequence[Evidence], primary: str, critical_worse: Sequence[str] = ()
) -> Decision:
    """The candidate's verdict (the module's rules); `critical_worse` is carried, not weighed."""
    head = next((e for e in evidence if e.metric == primary), None)
    return Decision(
        _verdict(evidence, head),
        primary,
        tuple(e.metric for e in evidence if e.direction == "up"),
        tuple(e.metric for e in evidence if e.direction == "down"),
        tuple(critical_worse),
    )


def unjudged_caveat(baseline: float | None, candidate: float | None, high: float | None) -> bool:
    """Whether a candidate's Judged@k is clearly below the baseline's: at least `UNJUDGED_GAP`
    lower, with the paired 95 % interval of the difference entirely below zero."""
    if baseline is None or candidate is None or high is None:
        return False
    return baseline - candidate >= UNJUDGED_GAP and high < 0


def critical_worse(critical: Sequence[str], worse_sets: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The critical ids (in policy order) that are worse on at least one reported metric."""
    worse = {q for ids in worse_sets for q in ids}
    return tuple(q for q in critical if q in worse)


def evidence_of(comparison: Any) -> Evidence:
    """A `types.Comparison`'s evidence (typed loosely: types.py imports this module)."""
    c = comparison
    return Evidence(c.metric, c.delta, c.low, c.high, len(c.better), len(c.worse), c.sign_p,
                    c.holm_p)  # fmt: skip


def decide_verdict(
    comparisons: Sequence[Any], metrics: Sequence[str], critical: Sequence[str], family: int = 1
) -> Decision:
    """The Decision for a candidate's comparisons on the reported `metrics` (the primary
    first; a comparison of another metric, such as a benchmark column the project did not
    report, is not weighed): the verdict from the statistics, the critical questions that got
    worse carried for the headline, and for a candidate that is encouraging but not proven
    (either way), what it would take when Holm's adjustment runs over `family` candidates."""
    weighed = [c for c in comparisons if c.metric in metrics]
    primary = metrics[0]
    crit = critical_worse(critical, [c.worse for c in weighed])
    decision = _verdict_of_evidence([evidence_of(c) for c in weighed], primary, crit)
    head = next((c for c in weighed if c.metric == primary), None)
    if decision.verdict not in (PROMISING, LEANS_WORSE) or head is None:
        return decision
    b, w = len(head.better), len(head.worse)
    alpha = ALPHA / max(1, family)
    return replace(
        decision,
        family=max(1, family),
        questions=head.n,
        for_p05=None if head.sign_p < ALPHA else questions_for_p05(b, w, head.n),
        for_power=questions_for_power(b, w, head.n),
        for_t=questions_for_t(head.delta, head.sd, head.n, b + w, alpha),
        for_t_power=questions_for_t_power(head.delta, head.sd, head.n, b + w, alpha),
    )
