"""The gate stage: the release gate on judged final lists and k, as structured `GateOutcome` data.

The baseline is a `Reference`: a saved baseline file (`Baseline.reference()`) or a run
(`Reference.of_judged`); no pipeline `Config` or `Run` is needed. Every policy key comes back as a
`RuleValue`: its observed value against its threshold, or "not evaluated" with the reason, so
the gate never skips a rule silently.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.gate import (
    GateCheck,
    GateInput,
    GateLevel,
    GatePolicy,
    Reference,
    decide_gate,
    shape,
)
from evidencedesk.results.types import GateOutcome, PolicyFacts, RuleValue
from evidencedesk.retrieval.metrics import Judged, paired

# the gate outcome without a policy: REVIEW, one no_policy line, not evaluated
_NO_POLICY_OUTCOME = GateOutcome("REVIEW", (GateCheck(GateLevel.REVIEW, "no_policy"),), False)
# what the gate compares with when there is no saved baseline
_NO_BASELINE = "no baseline to compare with (no saved baseline file)"


def _status(checks: Sequence[GateCheck], rule: str, metric: str | None = None) -> str:
    hit = [c for c in checks if c.rule == rule and (metric is None or c.metric == metric)]
    return hit[0].level if hit else "pass"


def _rule_values(
    policy: GatePolicy, shaped: GateInput, reference: Reference | None,
    checks: Sequence[GateCheck], no_reference: str = _NO_BASELINE,
) -> tuple[RuleValue, ...]:  # fmt: skip
    """Each policy key on this candidate (the gate page's and the candidate page's table)."""
    recall = f"recall@{policy.k}"
    crit = _status(checks, "critical")
    if _status(checks, "critical_missing") != "pass":
        crit = "BLOCK"
    out = [
        RuleValue("critical", None, float(sum(shaped.cases.get(q, False) for q in policy.critical)),
                  float(len(policy.critical)), None, crit, None)
        if policy.critical
        else RuleValue("critical", None, None, None, None, "not evaluated",
                       "no critical question ids in the policy"),
        RuleValue("min_recall", recall, shaped.recall, policy.min_recall, None,
                  _status(checks, "min_recall"), None),
        RuleValue("min_pass_rate", None, shaped.pass_rate, policy.min_pass_rate, None,
                  _status(checks, "min_pass_rate"), None),
    ]  # fmt: skip
    for metric, now in ((recall, shaped.recall), ("mrr", shaped.mrr)):
        before = None if reference is None else reference.summary.get(metric)
        why = no_reference if reference is None else None
        if reference is not None and before is None:
            why = f"the saved baseline has no {metric} (it was saved at k={reference.k})"
        status = "not evaluated" if why else _status(checks, "max_drop", metric)
        out.append(RuleValue("max_drop", metric, now, policy.max_drop, before, status, why))
    if not policy.review_on_mrr_flips:
        out.append(RuleValue("review_on_mrr_flips", "mrr", None, None, None, "not evaluated",
                             "switched off in the policy (review_on_mrr_flips = false)"))  # fmt: skip
    elif reference is None:
        out.append(RuleValue("review_on_mrr_flips", "mrr", None, None, None, "not evaluated",
                             no_reference))  # fmt: skip
    else:  # observed: the questions MRR lost, when they outnumber the ones it won (reviewed
        # or not: the policy's flips_min_net and flips_max_p may ask for more evidence)
        flips = paired(dict(reference.rr), shaped.rr, name="mrr")
        worse = float(len(flips.worse)) if len(flips.worse) > len(flips.better) else None
        out.append(RuleValue("review_on_mrr_flips", "mrr", worse, None, None,
                             _status(checks, "review_on_mrr_flips"), None))  # fmt: skip
    return tuple(out)


def gate_outcome(
    policy: GatePolicy | None,
    judged: Sequence[Judged],
    final: int,
    reference: Reference | None,
    baseline: str | None = None,
) -> GateOutcome:
    """The gate on judged final lists of size `final`, against a run's or a saved Reference
    (`baseline` names it: a run's name or the saved baseline file)."""
    if policy is None:
        return _NO_POLICY_OUTCOME
    shaped = shape(judged, final, policy.k)
    result = decide_gate(policy, shaped, reference)
    checks = tuple(result.checks)  # the gate's own check rows: the Results hold them as they are
    rules = _rule_values(policy, shaped, reference, checks)
    return GateOutcome(result.verdict.value, checks, True, rules,
                       baseline if reference is not None else None)  # fmt: skip


def policy_facts(policy: GatePolicy | None) -> PolicyFacts | None:
    """The gate policy's values as the Results record them (None: no policy)."""
    if policy is None:
        return None
    return PolicyFacts(policy.k, policy.min_recall, policy.min_pass_rate, policy.max_drop,
                       policy.review_on_mrr_flips, tuple(policy.critical), dict(policy.notes),
                       policy.flips_min_net, policy.flips_max_p)  # fmt: skip
