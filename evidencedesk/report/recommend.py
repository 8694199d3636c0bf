"""The written recommendation for a candidate change, from plain facts.

Rules (in this order):

- gate BLOCK -> ``do-not-ship``, with the blocking reason;
- no question changed -> ``unchanged`` (plus a cost sentence: "same quality, 40 % fewer pairs");
- a one- or two-question gap between better and worse (or balanced flips) -> ``noise``;
- one-way improvement with sign-test p < 0.05 -> ``ship`` when the gate is GO, else ``review``;
- one-way improvement with p >= 0.05 -> ``promising`` ("not proven"; quotes the one-way flips
  this label set needs for p < 0.05);
- one-way loss -> ``worse``; flips both ways with a larger gap -> ``mixed``.

"Ship" is only ever said when the gate is GO, nothing got worse and p < 0.05. The text reports
the interval and the flips and never names a winner from a third-decimal difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evidencedesk.report.model import Recommendation
from evidencedesk.report.values import flips_text, fmt
from evidencedesk.retrieval.stats import flips_needed
from evidencedesk.retrieval.stats import sign_test_p as sign_test

ALPHA = 0.05
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


def md_escape(text: str) -> str:
    """Data text made inert inside generated Markdown (one line, punctuation escaped)."""
    return _MD_PUNCT.sub(r"\\\1", " ".join(str(text).split()))


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(md_escape(i) for i in ids) if ids else "none"


def cost_sentence(costs: tuple[CostChange, ...]) -> str:
    parts = []
    for c in costs:
        if c.candidate == c.baseline:
            continue
        if c.baseline > 0:
            change = round(abs(c.candidate - c.baseline) / c.baseline * 100)
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


def _flips(f: Facts, p: float) -> str:
    return f"{flips_text(len(f.better), len(f.worse))}, sign-test p={p:.3f}"


def _reason(f: Facts) -> str:
    for level, text in f.gate_lines:
        if level == "BLOCK":
            return text
    return f.gate_lines[0][1] if f.gate_lines else "a critical case failed"


def _classify(f: Facts, p: float, needed: int | None) -> tuple[str, str]:
    b, w = len(f.better), len(f.worse)
    flips = _flips(f, p)
    if f.verdict == "BLOCK":
        return "do-not-ship", f"Do not ship: the gate blocks — {_reason(f)}"
    if b == 0 and w == 0:
        return "unchanged", f"No question changed: same quality, {cost_sentence(f.costs)}."
    if abs(b - w) <= 2:
        gap = "the flips balance" if b == w else f"a {abs(b - w)}-question gap"
        return "noise", f"Noise: {gap} ({flips}) is not a difference; same quality within noise."
    if w == 0 and p < ALPHA:
        if f.verdict == "GO":
            return "ship", f"Ship: {b} questions better, none worse ({flips}), gate GO."
        return "review", f"Better ({flips}), but the gate asks for review first."
    need = f"this label set needs {needed} one-way flips for p < 0.05" if needed else ""
    if w == 0:
        return "promising", f"Promising, not proven: {b} better, 0 worse (p={p:.3f}); {need}."
    if b == 0:
        proven = "Worse" if p < ALPHA else "Leaning worse, not proven"
        return "worse", f"{proven}: {w} questions worse, none better (p={p:.3f})."
    lead = "better" if b > w else "worse"
    return "mixed", f"Mixed: mostly {lead} ({flips}); {w} question(s) got worse — read them first."


def recommend(facts: Facts) -> Recommendation:
    """Category, one-line headline and a Markdown body that follow the evidence."""
    p = facts.p if facts.p is not None else sign_test(len(facts.better), len(facts.worse))
    needed = facts.flips_needed if facts.flips_needed is not None else flips_needed(facts.questions)
    category, headline = _classify(facts, p, needed)
    headline = " ".join(headline.split())
    lines = [
        f"- Flips: better on {len(facts.better)} ({_ids(facts.better)}), "
        f"worse on {len(facts.worse)} ({_ids(facts.worse)}); sign-test p={p:.3f}.",
    ]
    if needed:
        lines.append(
            f"- With {facts.questions} questions, p < 0.05 needs at least {needed} one-way flips "
            "(and no losses)."
        )
    lines.append(f"- {_interval(facts)}")
    if facts.costs:
        lines.append(f"- Cost: {cost_sentence(facts.costs)}.")
    lines.append(f"- Gate: {facts.verdict}.")
    for level, text in facts.gate_lines:
        lines.append(f"  - {md_escape(level)}: {md_escape(text)}")
    if category in ("noise", "unchanged", "promising", "mixed"):
        lines += [
            "",
            "Differences in the third decimal of a mean are not a result; decide on the flips "
            "and the interval, and on cost when quality is the same.",
        ]
    return Recommendation(category=category, headline=headline, markdown="\n".join(lines) + "\n")
