"""One verdict per candidate, from the gate and the evidence on every reported metric together.

Rules, in this order (the README and the methods page state them the same way):

- the gate blocks -> BLOCKED;
- a metric *moved* when its paired-bootstrap interval excludes zero or its Holm-adjusted sign-test
  p < 0.05; some moved up and some down -> MIXED; only down -> WORSE;
- only up -> BETTER when the gate is GO, no critical question got worse and the primary metric's
  Holm-adjusted p < 0.05 with more questions better than worse; else PROMISING;
- nothing moved -> PROMISING when the primary metric's flips lean better by more than two
  questions, LEANS WORSE when they lean worse by more than two, else NO CLEAR CHANGE;
- a critical question that got worse never leaves a PROMISING or BETTER verdict: it makes it MIXED.

"No clear change" therefore only ever means that no reported metric moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evidencedesk.results.what_it_takes import questions_for_p05, questions_for_power

ALPHA = 0.05
LEAN = 2  # a flips gap of at most two questions is not a lean either way
# a candidate's Judged@k this far below the baseline's (a share), with its paired interval
# below zero, carries the unjudged caveat: the comparison can understate it
UNJUDGED_GAP = 0.05

BLOCKED, WORSE, LEANS_WORSE, MIXED = "BLOCKED", "WORSE", "LEANS WORSE", "MIXED"
NO_CLEAR_CHANGE, PROMISING, BETTER = "NO CLEAR CHANGE", "PROMISING", "BETTER"
VERDICTS = (BLOCKED, WORSE, LEANS_WORSE, MIXED, NO_CLEAR_CHANGE, PROMISING, BETTER)


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
    holm_p: float

    @property
    def direction(self) -> str | None:
        """ "up" / "down" when the metric moved (interval excludes 0 or Holm p < 0.05), else None."""
        if self.low is not None and self.low > 0:
            return "up"
        if self.high is not None and self.high < 0:
            return "down"
        if self.holm_p < ALPHA and self.better != self.worse:
            return "up" if self.better > self.worse else "down"
        return None


@dataclass(frozen=True)
class Decision:
    verdict: str  # one of VERDICTS
    primary: str  # the primary metric's name
    up: tuple[str, ...]  # metrics that moved up, in reported order
    down: tuple[str, ...]
    critical_worse: tuple[str, ...]  # critical question ids worse on any reported metric
    # PROMISING only: questions in all (now: `questions`) at which the primary metric's observed
    # flips reach sign-test p < 0.05, and for an 80 % power estimate (results.what_it_takes)
    questions: int | None = None
    for_p05: int | None = None
    for_power: int | None = None


def decide(
    evidence: Sequence[Evidence],
    primary: str,
    gate: str,
    critical_worse: Sequence[str] = (),
) -> Decision:
    """The candidate's verdict (see the module's rules)."""
    up = tuple(e.metric for e in evidence if e.direction == "up")
    down = tuple(e.metric for e in evidence if e.direction == "down")
    crit = tuple(critical_worse)
    head = next((e for e in evidence if e.metric == primary), None)
    verdict = _verdict(up, down, head, gate, crit)
    return Decision(verdict, primary, up, down, crit)


def _verdict(
    up: tuple[str, ...], down: tuple[str, ...], head: Evidence | None, gate: str,
    crit: tuple[str, ...],
) -> str:  # fmt: skip
    if gate == "BLOCK":
        return BLOCKED
    if up and down:
        return MIXED
    if down:
        return WORSE
    if up:
        proven = head is not None and head.metric in up and head.holm_p < ALPHA
        if proven and gate == "GO" and not crit:
            return BETTER
        return MIXED if crit else PROMISING
    gap = 0 if head is None else head.better - head.worse
    if gap > LEAN:
        return MIXED if crit else PROMISING
    if gap < -LEAN:
        return LEANS_WORSE
    return NO_CLEAR_CHANGE


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


def judge(comparisons: Sequence[Any], primary: str, gate: str, critical: Sequence[str]) -> Decision:
    """The Decision for a candidate's comparisons (one per reported metric) and gate verdict."""
    crit = critical_worse(critical, [c.worse for c in comparisons])
    decision = decide([evidence_of(c) for c in comparisons], primary, gate, crit)
    head = next((c for c in comparisons if c.metric == primary), None)
    if decision.verdict != PROMISING or head is None or len(head.better) <= len(head.worse):
        return decision
    if head.sign_p < ALPHA:  # already significant before Holm: more questions is not the point
        return decision
    b, w = len(head.better), len(head.worse)
    return replace(decision, questions=head.n, for_p05=questions_for_p05(b, w, head.n),
                   for_power=questions_for_power(b, w, head.n))  # fmt: skip
