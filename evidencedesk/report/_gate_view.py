"""Results -> the gate's tables: each policy rule's observed value against its threshold, the
policy itself and its critical questions (the candidate pages' gate section and gate.html)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evidencedesk.files._project_file import ProjectKind
from evidencedesk.gate import _GATE_MRR_FINAL, _ON_BREACH, GateLevel
from evidencedesk.report._values import Plain, fmt
from evidencedesk.report._words import defined_by, gate_metric
from evidencedesk.results.types import PolicyFacts, Results, RuleValue

# {rel}: the project's relevance threshold; {within}: the list the gate reads; {defined}: what a
# question needs to pass or fail (`words.defined_by`)
_MEANING = {
    "critical": "each critical question has a relevant result (grade ≥ {rel}) in {within}",
    # the gate's means read the questions with a relevant judgment under either [report]
    # averaging, as its pass rate does (`gate._shape`)
    "min_recall": "R@{k} (recall within {recall_within}, averaged over the questions with a "
    "{defined}) is at least the minimum",
    "min_pass_rate": "the share of the questions with a {defined} that have a relevant result "
    "(grade ≥ {rel}) in {within}",
    "max_drop": "R@{k} and {mrr} (recall within {recall_within}; reciprocal rank within "
    "{within}{mrr_k}; averaged over the questions with a {defined}{not_site}) drop at most this "
    "much against the gate's baseline",
    "review_on_mrr_flips": "{mrr} (reciprocal rank within {within}{mrr_k}) is not worse for more "
    "questions than it is better",
}


@dataclass(frozen=True)
class _PolicyRow(Plain):
    """One key of the gate policy: its value, what it checks, what breaching it does."""

    key: str
    value: str
    meaning: str
    on_breach: str
    # the value is words, not one of the policy's numbers: the template marks them as the
    # policy's words for `key` (``said``), which the audit restates (the flips rule: "on (passes
    # when worse ≤ better or sign-test p > 0.200)")
    worded: bool = False


@dataclass(frozen=True)
class _CriticalRow(Plain):
    """A critical question of the gate policy and why it is critical."""

    id: str
    reason: str


@dataclass(frozen=True)
class _GateCandidate(Plain):
    """One candidate's gate level and its policy rules, on the gate page."""

    name: str
    slug: str
    gate_level: GateLevel
    rules: tuple[RuleRow, ...]
    summary: str = ""  # "3 of 6 rules pass · 2 BLOCK · 1 not evaluated"


@dataclass(frozen=True)
class GatePage(Plain):
    """The gate page: the baseline compared with, the policy, critical questions, each candidate."""

    compared_with: str  # what max_drop and the flips rule compare with, or why nothing
    policy: tuple[_PolicyRow, ...]
    critical: tuple[_CriticalRow, ...]
    candidates: tuple[_GateCandidate, ...]
    baseline_fails: str = ""  # the baseline fails the policy's own floors, said first (a claim)


def _observed(r: RuleValue) -> str:
    if r.rule == "critical":
        return "—" if r.observed is None else f"{r.observed:.0f} of {r.threshold:.0f} pass"
    if r.rule == "max_drop":
        if r.observed is None or r.reference is None:
            return fmt(r.observed)
        drop = r.reference - r.observed
        word = f"drop {fmt(drop)}" if drop > 0 else "no drop"
        return f"{word} ({fmt(r.reference)} → {fmt(r.observed)})"
    if r.rule == "review_on_mrr_flips":
        if r.status == "not evaluated":
            return "—"
        return f"worse for {r.observed or 0:.0f}, better for {r.reference or 0:.0f}"
    return fmt(r.observed)


def _flips_pass(p: PolicyFacts | None) -> str:
    """When the MRR-flips rule passes, in the policy's terms (`gate._flips_fire` negated)."""
    net = 1 if p is None else p.flips_min_net
    words = "worse ≤ better" if net == 1 else f"worse − better < {net}"
    if p is not None and p.flips_max_p < 1.0:
        words += f" or sign-test p > {fmt(p.flips_max_p)}"
    return words


def _flips_value(p: PolicyFacts) -> str:
    """The flips rule in the policy table: off, on, or on with the evidence it asks for."""
    if not p.review_on_mrr_flips:
        return "off"
    asks = p.flips_min_net > 1 or p.flips_max_p < 1.0
    return f"on (passes when {_flips_pass(p)})" if asks else "on"


def _threshold(r: RuleValue, policy: PolicyFacts | None) -> str:
    if r.rule == "critical":
        return "all pass"
    if r.rule in ("min_recall", "min_pass_rate"):
        return f"≥ {fmt(r.threshold)}"
    if r.rule == "max_drop":
        return f"drop ≤ {fmt(r.threshold)}"
    return _flips_pass(policy)


def _margin(r: RuleValue) -> str:
    m = r.margin
    if m is None:
        return "—"
    if r.rule == "critical":
        return "none fail" if m >= 0 else f"{-m:.0f} fail"
    return fmt(m, signed=True)


@dataclass(frozen=True)
class RuleRow(Plain):
    """One policy rule of a candidate (`row`) as the gate tables say it: the observed value,
    the threshold, what breaching it does."""

    row: RuleValue
    k: int  # the top k the gate read: its metrics are named with it
    kind: ProjectKind  # a pipeline's gate reads final lists (`words.gate_metric`)
    policy: PolicyFacts | None = None  # the evidence its flips rule asks for (None: defaults)

    @property
    def rule(self) -> str:
        return self.row.rule

    @property
    def metric(self) -> str:
        return gate_metric(self.row.metric, self.k, self.kind)

    @property
    def observed(self) -> str:
        return _observed(self.row)

    @property
    def threshold(self) -> str:
        return _threshold(self.row, self.policy)

    @property
    def on_breach(self) -> str:
        return _ON_BREACH[self.row.rule].value

    @property
    def status(self) -> str:
        """ "pass", "REVIEW", "BLOCK" or "not evaluated: <why>"."""
        r = self.row
        return f"not evaluated: {r.why}" if r.status == "not evaluated" else r.status

    @property
    def margin(self) -> str:
        """Observed − the limit ("+0.050"; negative: breached); "—" when none."""
        return _margin(self.row)

    @property
    def breached(self) -> bool:
        """The rule failed (REVIEW or BLOCK)."""
        return self.row.status in (GateLevel.REVIEW, GateLevel.BLOCK)


def rule_rows(
    rules: tuple[RuleValue, ...], k: int, kind: ProjectKind, policy: PolicyFacts | None = None
) -> tuple[RuleRow, ...]:
    """The rows of a candidate's gate rules; `k`: the top k the gate read (its metrics are named
    with it); `kind`: the project's; `policy`: the evidence its flips rule asks for (None: the
    defaults)."""
    return tuple(RuleRow(r, k, kind, policy) for r in rules)


def summary(rules: tuple[RuleValue, ...]) -> str:
    """A test report's last line: "4 of 6 rules pass · 1 BLOCK · 1 not evaluated", counting
    every row listed (the counts after the first add up to the rows that did not pass)."""
    evaluated = [r for r in rules if r.status != "not evaluated"]
    parts = [f"{sum(r.status == 'pass' for r in evaluated)} of {len(rules)} rules pass"]
    parts += [f"{n} {level}" for level in (GateLevel.BLOCK, GateLevel.REVIEW)
              if (n := sum(r.status == level for r in evaluated))]  # fmt: skip
    if len(evaluated) < len(rules):
        parts.append(f"{len(rules) - len(evaluated)} not evaluated")
    return " · ".join(parts)


def _policy_rows(p: PolicyFacts, relevance: int, kind: str) -> tuple[_PolicyRow, ...]:
    values = {
        "critical": ", ".join(p.critical) or "none",
        "min_recall": fmt(p.min_recall),
        "min_pass_rate": fmt(p.min_pass_rate),
        "max_drop": fmt(p.max_drop),
        "review_on_mrr_flips": _flips_value(p),
    }
    # a runs-only gate reads each run's top k; a pipeline's reads each candidate's final list
    # (its MRR cut at the list's length), and recall@k the top k of that list (`gate._shape`)
    # (the lists the site's MRR reads: no one k names a candidate's and the baseline's)
    if kind == "runs":
        lists = {"within": f"the top {p.k}", "recall_within": f"the top {p.k}",
                 "mrr": f"MRR@{p.k}", "mrr_k": "",
                 "not_site": f"; the gate's MRR@{p.k} is not the site's MRR, which reads the "
                             "whole list"}  # fmt: skip
    else:
        lists = {"within": "each candidate's final list", "mrr": _GATE_MRR_FINAL,
                 "mrr_k": ", the list the site's MRR reads", "not_site": "",
                 "recall_within": f"the top {p.k} of each candidate's final list"}  # fmt: skip
    return tuple(
        _PolicyRow(key, v, _MEANING[key].format(rel=relevance, k=p.k, defined=defined_by(kind),
                                                **lists), _ON_BREACH[key],
                   worded=key == "review_on_mrr_flips")
        for key, v in values.items()
    )  # fmt: skip


def gate_page(
    results: Results, slugs: dict[str, str], say: Callable[..., str] | None = None
) -> GatePage | None:
    """The gate page's model; None when the project has no gate policy. `say` makes its
    claims (the baseline failing the policy's floors)."""
    policy = results.policy
    if policy is None:
        return None
    names = {c.gate.baseline for c in results.candidates if c.gate.baseline}
    baseline = ", ".join(sorted(names)) or "nothing (no saved baseline file and no baseline run)"
    return GatePage(
        baseline_fails=say("baseline_fails", "") if say is not None else "",
        compared_with=baseline,
        policy=_policy_rows(policy, results.settings.relevance, results.settings.kind),
        critical=tuple(
            _CriticalRow(q, policy.notes.get(q, "no reason given in the policy"))
            for q in policy.critical
        ),
        candidates=tuple(
            _GateCandidate(
                c.name,
                slugs[c.name],
                c.gate.level,
                rule_rows(c.gate.rules, c.gate.k or 0, results.settings.kind, policy),
                summary(c.gate.rules),
            )
            for c in results.candidates
        ),
    )
