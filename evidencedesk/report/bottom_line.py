"""Results -> the index's first screen: the bottom line and one decision row per candidate.

The bottom line is worded from each candidate's `Decision` (results.verdicts), its primary-metric
comparison, its gate checks and, for a promising candidate, what it would take
(results.what_it_takes): a headline sentence, then one sentence per verdict group, strongest
first. Formatting only: every number is read from the Results.
"""

from __future__ import annotations

from evidencedesk.report.model import BottomLine, CandidateRow
from evidencedesk.report.review import gate_text
from evidencedesk.report.site import slug
from evidencedesk.report.values import flips_text, fmt, stat
from evidencedesk.results import verdicts as v
from evidencedesk.results.rows import Costs
from evidencedesk.results.types import CandidateResult, GateCheck, Results
from evidencedesk.retrieval.stats import TIE

NOT_KNOWN = "not known"
# verdict groups in the order the bottom line reads them, with each group's words
GROUPS = (
    (v.BETTER, "Proven better"),
    (v.PROMISING, "Promising, not proven"),
    (v.MIXED, "Mixed"),
    (v.LEANS_WORSE, "Leans worse, not proven"),
    (v.WORSE, "Worse"),
    (v.BLOCKED, "Blocked by the gate"),
    (v.NO_CLEAR_CHANGE, "No clear change"),
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _names(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def change(base: float, cand: float, unit: str = "") -> str:
    """ "same", "+375 %", "−0.2 %" (one decimal under 1 %, never "−0 %"), "0 → 10" from none."""
    if abs(cand - base) <= TIE:
        return "same"
    if base == 0:
        return f"0 → {cand:g}{unit}"
    pct = (cand - base) / base * 100
    return (f"{pct:+.1f} %" if abs(pct) < 1 else f"{pct:+.0f} %").replace("-", "−")


def cost_text(base: Costs, cand: Costs) -> str:
    """Each known cost's change against the baseline (the candidate page's own wording);
    "not known" when the run's costs are unknown (an external run), never "same"."""
    parts = []
    measures = (
        ("pairs/question", base.pairs_per_question, cand.pairs_per_question, ""),
        ("tokens/question", base.tokens_per_question, cand.tokens_per_question, ""),
        ("latency", base.latency_ms, cand.latency_ms, " ms"),
    )
    for name, b, c, unit in measures:
        if b is None or c is None:
            continue
        text = change(b, c, unit)
        parts.append(f"{name} {text}" + (" (hypothetical)" if name == "latency" else ""))
    if not parts:
        return NOT_KNOWN
    if all(p.split(" ")[1] == "same" for p in parts):
        return "same cost"
    return " · ".join(parts)


def _label(results: Results, metric: str) -> str:
    return next((m.label for m in results.settings.metrics if m.name == metric), metric)


def _labels(results: Results, metrics: tuple[str, ...]) -> str:
    return _names([_label(results, m) for m in metrics])


def _delta(results: Results, c: CandidateResult) -> str:
    """ "MRR +0.048 [+0.000, +0.119], +3/−0 questions" """
    d = c.comparison(c.decision.primary)
    f = c.comparison(results.settings.flips_metric)
    text = f"{_label(results, d.metric)} {fmt(d.delta, signed=True)}"
    if d.low is not None and d.high is not None:
        text += f" [{fmt(d.low, signed=True)}, {fmt(d.high, signed=True)}]"
    return f"{text}, {flips_text(len(f.better), len(f.worse))} questions"


def _critical(c: CandidateResult) -> str:
    """The candidate page's words: "critical question(s) worse: rc02 (the gate still passes it)"."""
    ids = c.decision.critical_worse
    if not ids:
        return ""
    passes = "" if c.gate.verdict == "BLOCK" else " (the gate still passes it)"
    return f"critical question(s) worse: {', '.join(ids)}{passes}"


def _promising(results: Results, c: CandidateResult) -> str:
    d, head = c.decision, c.comparison(c.decision.primary)
    label = _label(results, d.primary)
    if d.for_p05 is not None and d.questions is not None:
        take = (f"at this flip rate p < 0.05 needs about {d.for_p05} questions (now "
                f"{d.questions})")  # fmt: skip
        if d.for_power is not None:
            take += f", {d.for_power} for an 80 % chance"
    elif len(head.better) <= len(head.worse):
        take = f"{_labels(results, d.up)} moved up, but {label} flips do not lean better"
    elif c.gate.verdict != "GO":
        take = f"the gate says {c.gate.verdict}"
    else:
        take = (f"{label} sign-test p={head.sign_p:.3f} before the Holm correction across the "
                f"candidates, {head.holm_p:.3f} after")  # fmt: skip
    return f"{c.name} ({_delta(results, c)}; {take})"


def _mixed(results: Results, c: CandidateResult) -> str:
    d = c.decision
    parts = []
    if d.up:
        parts.append(f"{_labels(results, d.up)} better")
    if d.down:
        parts.append(f"{_labels(results, d.down)} worse")
    if not parts:
        parts.append(_delta(results, c))
    if d.critical_worse:
        parts.append(_critical(c))
    return f"{c.name} ({'; '.join(parts)})"


def clause(results: Results, c: CandidateResult) -> str:
    """The candidate's words in its verdict group's sentence."""
    d = c.decision
    if d.verdict == v.BETTER:
        base, name = results.variant(results.baseline).costs, c.name
        return f"{name} ({_delta(results, c)}; cost: {cost_text(base, c.costs)})"
    if d.verdict == v.PROMISING:
        return _promising(results, c)
    if d.verdict == v.MIXED:
        return _mixed(results, c)
    if d.verdict == v.WORSE:
        extra = f"; {_critical(c)}" if d.critical_worse else ""
        return f"{c.name} ({_labels(results, d.down)} worse{extra})"
    if d.verdict == v.LEANS_WORSE:
        extra = f"; {_critical(c)}" if d.critical_worse else ""
        return f"{c.name} ({_delta(results, c)}{extra})"
    if d.verdict == v.BLOCKED:
        reasons = [_block(results, g) for g in c.gate.checks if g.level == "BLOCK"]
        return f"{c.name} ({'; '.join(reasons) or 'the gate blocks it'})"
    return f"{c.name} ({_critical(c)})" if d.critical_worse else c.name


def _risk(c: CandidateResult) -> str:
    """What a candidate that filters after ranking lets through (the filter's protection)."""
    if c.exposure is None:
        return ""
    return (f"it removes the pre-filter: {len(c.exposure)} restricted or superseded chunk(s) "
            "reached its candidate lists before the late filter")  # fmt: skip


def with_risk(text: str, c: CandidateResult) -> str:
    risk = _risk(c)
    if not risk:
        return text
    if text.endswith(")"):
        return f"{text[:-1]}; {risk})"
    return f"{text} ({risk})"


def _block(results: Results, check: GateCheck) -> str:
    """A BLOCK line in the gate's words; a failed critical question in the project's own
    relevance words (the gate's line says grade 2)."""
    if check.rule == "critical" and check.questions:
        return (f"critical question {check.questions[0]} fails: no relevant chunk (grade ≥ "
                f"{results.settings.relevance}) in the final {check.k}")  # fmt: skip
    return gate_text(check)


def _lead(cands: tuple[CandidateResult, ...]) -> CandidateResult | None:
    """The promising candidate closest to proof: the fewest questions for p < 0.05."""
    promising = [c for c in cands if c.decision.verdict == v.PROMISING]
    if not promising:
        return None
    return min(promising, key=lambda c: c.decision.for_p05 or 10**12)


def headline(results: Results) -> str:
    cands, base = results.candidates, results.baseline
    if not cands:
        if results.settings.kind == "runs":  # each run besides the baseline is a candidate
            return (f"No candidate changes to decide on: the project has no run besides its "
                    f"baseline {base}, so this report describes that run only.")  # fmt: skip
        return ("No candidate changes to decide on: the project defines none, so this report "
                "describes its variants only.")  # fmt: skip
    better = [c.name for c in cands if c.decision.verdict == v.BETTER]
    blocked = [c for c in cands if c.decision.verdict == v.BLOCKED]
    if better:
        if len(cands) == 1:
            return f"The candidate {better[0]} is proven better than the baseline {base}."
        return (f"{len(better)} of {len(cands)} candidates are proven better than the baseline "
                f"{base}: {_names(better)}.")  # fmt: skip
    if len(blocked) == len(cands):
        if len(cands) == 1:
            return f"The only candidate, {cands[0].name}, is blocked by the release gate."
        return f"All {len(cands)} candidates are blocked by the release gate; none can ship."
    if len(cands) == 1:
        text = f"The candidate {cands[0].name} is not proven better than the baseline {base}."
    else:
        text = f"No candidate is proven better than the baseline {base}."
    lead = _lead(cands)
    if lead is not None and len(cands) > 1:
        text += f" The best lead is {lead.name} (promising, not proven)."
    return text


def points(results: Results) -> tuple[str, ...]:
    out = []
    for verdict, words in GROUPS:
        group = [c for c in results.candidates if c.decision.verdict == verdict]
        if verdict == v.PROMISING:
            lead = _lead(results.candidates)
            group.sort(key=lambda c: c is not lead)
        if group:
            texts = [with_risk(clause(results, c), c) for c in group]
            out.append(f"{words}: {'; '.join(texts)}.")
    review = [
        f"{c.name} ({'; '.join(gate_text(g) for g in c.gate.checks if g.level == 'REVIEW')})"
        for c in results.candidates
        if c.gate.verdict == "REVIEW" and c.gate.evaluated
    ]
    if review:
        out.append(f"The gate asks for a review of {'; '.join(review)}.")
    if results.candidates and results.policy is None:
        out.append("This project has no gate policy, so no release rule was checked.")
    return tuple(out)


def rows(results: Results) -> tuple[CandidateRow, ...]:
    base = results.variant(results.baseline).costs
    out = []
    for c in results.candidates:
        d = c.comparison(c.decision.primary)
        f = c.comparison(results.settings.flips_metric)
        label = _label(results, d.metric)
        out.append(CandidateRow(
            name=c.name,
            slug=slug(c.name),
            verdict=c.decision.verdict,
            gate=c.gate.verdict,
            delta=stat(f"Δ {label}", d.delta, d.low, d.high, d.n, signed=True),
            flips=flips_text(len(f.better), len(f.worse)),
            cost=cost_text(base, c.costs),
            critical=c.decision.critical_worse,
        ))  # fmt: skip
    return tuple(out)


def bottom_line(results: Results) -> BottomLine:
    primary = results.settings.compared[0]
    return BottomLine(
        headline=headline(results),
        points=points(results),
        rows=rows(results),
        metric=primary.label,
        flips_metric=_label(results, results.settings.flips_metric),
        has_critical=results.policy is not None and bool(results.policy.critical),
    )
