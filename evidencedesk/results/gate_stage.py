"""The gate stage: the release gate on judged final lists and k, as structured `GateOutcome` data.

The baseline is a `Reference`: a saved baseline file (`Baseline.reference()`) or a run
(`Reference.of_judged`); no pipeline `Config` or `Run` is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.gate import GatePolicy, decide
from evidencedesk.gate_input import Reference, shape
from evidencedesk.results.types import GateCheck, GateOutcome
from evidencedesk.retrieval.metrics import Judged

NO_POLICY = GateOutcome("REVIEW", (GateCheck("REVIEW", "no_policy", None, None, None, (), None,
                                             None, (), None),), False)  # fmt: skip


def gate_outcome(
    policy: GatePolicy | None,
    judged: Sequence[Judged],
    final: int,
    reference: Reference | None,
) -> GateOutcome:
    """The gate on judged final lists of size `final`, against a run's or a saved Reference."""
    if policy is None:
        return NO_POLICY
    result = decide(policy, shape(judged, final, policy.k), reference)
    checks = tuple(
        GateCheck(c.level.value, c.rule, c.metric, c.observed, c.threshold, tuple(c.questions),
                  c.reference, c.k, tuple(c.counts), c.p)
        for c in result.checks
    )  # fmt: skip
    return GateOutcome(result.verdict.value, checks, True)
