"""The written recommendation for a candidate change: the verdict's words, from plain facts.

The verdict itself is `evidencedesk.results.verdicts` (BLOCKED / WORSE / LEANS WORSE / MIXED /
NO CLEAR CHANGE / PROMISING / BETTER); this module words it. The headline starts with the
verdict's own words, so the badge and the sentence never disagree; it names every metric that
moved and which way, says how the primary metric's flips stand when it did not move, names any
critical question that got worse, and never names a winner from a third-decimal difference.
"Same quality" is said only under NO CLEAR CHANGE.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evidencedesk.report.model import Recommendation
from evidencedesk.report.values import flips_text, fmt
from evidencedesk.results import verdicts as v
from evidencedesk.retrieval.stats import flips_needed
from evidencedesk.retrieval.stats import sign_test_p as sign_test

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&\"'=:])")


@dataclass(frozen=True)
class CostChange:
    measure: str  # "scored pairs", "tokens", "ms of hypothetical latency"
    baseline: float
    candidate: float


@dataclass(frozen=True)
class Facts:
    candidate: str
    verdict: str  # GO / REVIEW / BLOCK
    gate_lines: tuple[tuple[str, str], ...] = ()  # (level, text)
    better: tuple[str, ...] = ()  # question ids where the candidate beats the baseline
    worse: tuple[str, ...] = ()
    p: float | None = None  # exact two-sided sign test over the untied questions
    questions: int = 0  # questions in the comparison (for the flips-needed sentence)
    flips_needed: int | None = None  # None: computed from `questions`
    metric: str = "MRR"
    delta: float | None = None  # paired difference and its bootstrap interval
    low: float | None = None
    high: float | None = None
    costs: tuple[CostChange, ...] = ()
    decision: v.Decision | None = None  # the computed verdict; None: judged from the flips alone
    evidence: tuple[tuple[str, v.Evidence], ...] = ()  # (label, evidence) per reported metric
    risk: tuple[str, str] | None = None  # (headline clause, Markdown paragraph) from the config
    # the unjudged caveat (`review.unjudged_caveat`; "" when none) and how many unjudged pairs of
    # the baseline's and this candidate's top k to-label.tsv lists
    unjudged: str = ""
    to_label: int = 0


def md_escape(text: str) -> str:
    """Data text made inert inside generated Markdown (one line, punctuation escaped)."""
    return _MD_PUNCT.sub(r"\\\1", " ".join(str(text).split()))


INLINE_IDS = 50  # ids a list of flips names before "… and N more" (here and on candidate pages)


def _ids(ids: tuple[str, ...]) -> str:
    shown = ", ".join(md_escape(i) for i in ids[:INLINE_IDS]) if ids else "none"
    more = len(ids) - INLINE_IDS
    return shown + (
        f", … and {more} more (see the flips on the candidate page)" if more > 0 else ""
    )


def cost_sentence(costs: tuple[CostChange, ...]) -> str:
    parts = []
    for c in costs:
        if c.candidate == c.baseline:
            continue
        if c.baseline > 0:
            change = round(abs(c.candidate - c.baseline) / c.baseline * 100)
            if change == 0:  # "0 % fewer" is the same cost, not a change
                continue
            word = "fewer" if c.candidate < c.baseline else "more"
            parts.append(f"{change} % {word} {c.measure}")
        else:
            parts.append(f"{c.candidate:g} {c.measure} per question instead of none")
    return ", ".join(parts) if parts else "the same cost"


def _interval(f: Facts) -> str:
    if f.delta is None:
        return f"Δ {f.metric} is undefined for this comparison."
    text = f"Δ {f.metric} = {fmt(f.delta, signed=True)}"
    if f.low is None or f.high is None:
        return text + "."
    text += (
        f" (95 % paired-bootstrap interval {fmt(f.low, signed=True)} to {fmt(f.high, signed=True)})"
    )
    if f.low <= 0 <= f.high:
        return text + "; the interval includes zero."
    return text + "; the interval excludes zero."


def _reason(f: Facts) -> str:
    for level, text in f.gate_lines:
        if level == "BLOCK":
            return text
    return f.gate_lines[0][1] if f.gate_lines else "a critical case failed"


PREFIX = {
    v.BLOCKED: "Blocked",
    v.WORSE: "Worse",
    v.LEANS_WORSE: "Leans worse, not proven",
    v.MIXED: "Mixed",
    v.NO_CLEAR_CHANGE: "No clear change",
    v.PROMISING: "Promising, not proven",
    v.BETTER: "Better",
}


def category(verdict: str) -> str:
    """The verdict as a CSS-safe word: "NO CLEAR CHANGE" -> "no-clear-change"."""
    return verdict.lower().replace(" ", "-")


def _moved(label: str, e: v.Evidence, direction: str) -> str:
    word = "better" if direction == "up" else "worse"
    where = ""
    if e.delta is not None:
        where = fmt(e.delta, signed=True)
        if e.low is not None and e.high is not None:
            where += f" [{fmt(e.low, signed=True)}, {fmt(e.high, signed=True)}]"
        where += ", "
    return f"{label} {word} ({where}{e.better} up / {e.worse} down)"


def _lean(label: str, e: v.Evidence) -> str:
    gap = e.better - e.worse
    if e.better == e.worse == 0:
        return f"{label} changed on no question"
    if abs(gap) <= v.LEAN:
        return f"{label} flips balance ({flips_text(e.better, e.worse)}, p={e.sign_p:.3f})"
    lead = "better" if gap > 0 else "worse"
    return f"{label} flips lean {lead} ({flips_text(e.better, e.worse)}, p={e.sign_p:.3f})"


def headline(
    decision: v.Decision,
    evidence: tuple[tuple[str, v.Evidence], ...],
    reason: str = "",
    cost: str = "the same cost",
    needed: int | None = None,
) -> str:
    """The one-line headline: the verdict's words first, then what moved which way."""
    verdict = decision.verdict
    moved = [_moved(label, e, d) for label, e in evidence if (d := e.direction) is not None]
    head = next(((lb, e) for lb, e in evidence if e.metric == decision.primary), None)
    lean = _lean(*head) if head is not None and head[1].direction is None else ""
    if verdict == v.BLOCKED:
        text = f"the gate blocks — {reason or 'a critical case failed'}"
    elif verdict == v.NO_CLEAR_CHANGE:
        still = all(e.better == e.worse == 0 for _, e in evidence)
        what = "no question changed" if still else "no reported metric moved"
        text = (
            f"{what}{f'; {lean}' if lean and not still else ''}; same quality within noise, {cost}"
        )
    elif moved:
        text = "; ".join(moved) + (f" while {lean}" if lean else "")
    else:
        text = lean + "; no reported metric moved"
        if verdict == v.PROMISING and needed:
            text += f"; this label set needs {needed} one-way flips for p < 0.05"
    if verdict == v.BETTER:
        text += "; the gate passes"
    if decision.critical_worse:
        ids = ", ".join(decision.critical_worse)
        passes = "" if verdict == v.BLOCKED else " (the gate still passes it)"
        text += f". Critical question(s) worse: {ids}{passes}"
    return " ".join(f"{PREFIX[verdict]}: {text}.".split())


def what_it_takes(d: v.Decision) -> str:
    """The "what it would take" sentence of a promising, not significant candidate."""
    if d.questions is None or d.for_p05 is None:
        return ""
    text = (
        f"What it would take: at the observed flip rate, about {d.for_p05 - d.questions} more "
        f"labelled questions ({d.for_p05} in all) would bring the sign test to p < 0.05"
    )
    if d.for_power is not None:
        text += (
            f"; for an 80 % chance of p < 0.05, about {d.for_power - d.questions} more "
            f"({d.for_power} in all) — an estimate that assumes the share of questions that "
            "change and the split between better and worse stay as observed"
        )
    return text + "."


def _fallback(f: Facts, p: float) -> tuple[v.Decision, tuple[tuple[str, v.Evidence], ...]]:
    """Without a computed Decision (a model built by hand): the flips metric is the evidence."""
    e = v.Evidence(f.metric.lower(), f.delta, f.low, f.high, len(f.better), len(f.worse), p, p)
    return v.decide([e], e.metric, f.verdict), ((f.metric, e),)


def recommend(facts: Facts) -> Recommendation:
    """Category, one-line headline and a Markdown body that follow the evidence."""
    p = facts.p if facts.p is not None else sign_test(len(facts.better), len(facts.worse))
    needed = facts.flips_needed if facts.flips_needed is not None else flips_needed(facts.questions)
    if facts.decision is not None:
        decision, evidence = facts.decision, facts.evidence
    else:
        decision, evidence = _fallback(facts, p)
    cost = cost_sentence(facts.costs) if facts.costs else "cost not measured"
    line = headline(decision, evidence, _reason(facts), cost, needed)
    if facts.risk is not None:
        line += f" {facts.risk[0]}"
    if facts.unjudged:
        line += f" Caveat: {facts.unjudged}."
    kind = category(decision.verdict)
    lines = [
        f"- Flips: better on {len(facts.better)} ({_ids(facts.better)}), "
        f"worse on {len(facts.worse)} ({_ids(facts.worse)}); sign-test p={p:.3f}.",
    ]
    if needed:
        lines.append(
            f"- With {facts.questions} questions, p < 0.05 needs at least {needed} one-way flips "
            "(and no losses)."
        )
    if facts.risk is not None:
        lines.append(f"- {facts.risk[1]}")
    lines.append(f"- {_interval(facts)}")
    if facts.unjudged:
        lines.append(
            f"- Label before deciding: {facts.unjudged}. The {facts.to_label} unjudged pairs "
            "of the baseline's and the candidates' top lists are in [to-label.tsv]"
            "(data/to-label.tsv), the ones that change the most comparisons first ([what to "
            "label next](to-label.html)); grade them, append them to the qrels and rebuild."
        )
    take = what_it_takes(decision)
    if take:
        lines.append(f"- {take}")
    if facts.costs:
        lines.append(f"- Cost: {cost_sentence(facts.costs)}.")
    lines.append(f"- Verdict: {decision.verdict}; gate: {facts.verdict}.")
    for level, text in facts.gate_lines:
        lines.append(f"  - {md_escape(level)}: {md_escape(text)}")
    if decision.verdict in (v.NO_CLEAR_CHANGE, v.PROMISING, v.MIXED, v.LEANS_WORSE):
        lines += [
            "",
            "Differences in the third decimal of a mean are not a result; decide on the flips "
            "and the interval, and on cost when quality is the same.",
        ]
    return Recommendation(
        category=kind, headline=line, markdown="\n".join(lines) + "\n", verdict=decision.verdict
    )
