"""Results -> the index's first screen: four tiles and one decision row per candidate.

The tiles answer the questions a reviewer asks before reading on (how many candidates got
better, what the gate says, which candidate leads, what the data is), each from
`results.summary`; the rows hold each candidate's verdict, gate, primary-metric difference,
flips and cost. Every number a tile shows is a claim (`report.claims`); the words are the
candidate pages'. Formatting only.
"""

from __future__ import annotations

from evidencedesk.gate import GateLevel
from evidencedesk.report.claims import Claims
from evidencedesk.report.model import (
    BottomLine,
    CandidateRow,
    ClaimedCount,
    DataTile,
    GateTile,
    LeadTile,
    VerdictTile,
)
from evidencedesk.report.review import Say
from evidencedesk.report.site import slug
from evidencedesk.report.words import metric_label
from evidencedesk.results import plan
from evidencedesk.results.types import Results, RunCosts
from evidencedesk.retrieval.stats import TIE

_NOT_KNOWN = "not known"  # a candidate's cost when no measure of it is known (TREC runs)
PAGE = "index.html"  # the page the bottom line's claims are recorded on


def change(base: float, cand: float, unit: str = "") -> str:
    """ "same", "+375 %", "−0.2 %" (one decimal under 1 %, never "−0 %"), "0 → 10" from none."""
    if abs(cand - base) <= TIE:
        return "same"
    if base == 0:
        return f"0 → {cand:g}{unit}"
    pct = (cand - base) / base * 100
    return (f"{pct:+.1f} %" if abs(pct) < 1 else f"{pct:+.0f} %").replace("-", "−")


def _cost_text(base: RunCosts, cand: RunCosts) -> str:
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
        return _NOT_KNOWN
    if all(p.split(" ")[1] == "same" for p in parts):
        return "same cost"
    return " · ".join(parts)


def rows(results: Results, say: Say) -> tuple[CandidateRow, ...]:
    """The index's candidate rows: verdict, gate, primary-metric difference, flips and cost."""
    base = results.variant(results.baseline).costs
    out = []
    for i, c in enumerate(results.candidates):
        d = c.comparison(c.decision.primary)
        f = c.comparison(results.settings.flips_metric)
        at = [x.metric for x in c.comparisons].index(f.metric)
        out.append(CandidateRow(
            name=c.name,
            slug=slug(c.name),
            verdict=say("verdict", f"candidates[{i}]"),
            gate=say("gate", f"candidates[{i}]"),
            primary=d,
            flips=say("flip_cell", f"candidates[{i}].comparisons[{at}]"),
            cost=_cost_text(base, c.costs),
            critical=c.decision.critical_worse,
            gated=c.gate.evaluated,
        ))  # fmt: skip
    return tuple(out)


def headline(results: Results, say: Say) -> str:
    """The two answers counted, and the best lead: "2 better, 1 no clear change; gate: 3 GO.
    Best lead: …" (each a claim); "" with no candidate (the tiles say so)."""
    if not results.candidates:
        return ""
    return f"{say('summary', '')}; {say('gate_summary', '')}. {say('lead', '')}."


def _verdict_tile(results: Results, say: Say) -> VerdictTile:
    counts = plan.verdict_counts(results.candidates)
    by_verdict = tuple(
        ClaimedCount(name, say("tally", "", of=name)) for name, _ in counts.by_verdict
    )
    tallies = tuple(ClaimedCount(k, say("tally", "", of=k)) for k in ("better", "worse", "unclear"))
    return VerdictTile(tallies, by_verdict)


def _gate_tile(results: Results, say: Say) -> GateTile:
    if plan.gate_counts(results) is None:
        return GateTile(checked=False)
    return GateTile(
        True, tuple(ClaimedCount(g.value, say("tally", "", of=g.value)) for g in GateLevel)
    )


def _lead_tile(results: Results, say: Say) -> LeadTile | None:
    lead = plan.best_lead(results)
    if lead is None:
        return None
    i, c = next((i, c) for i, c in enumerate(results.candidates) if c.name == lead.candidate)
    j = [x.metric for x in c.comparisons].index(lead.metric)
    return LeadTile(c.name, slug(c.name), say("verdict", f"candidates[{i}]"),
                    say("gate", f"candidates[{i}]"), c.gate.evaluated,
                    say("delta", f"candidates[{i}].comparisons[{j}]"), lead.n)  # fmt: skip


def _data_tile(results: Results, say: Say) -> DataTile:
    size = plan.data_size(results)
    at = [v.name for v in results.variants].index(results.baseline)
    judged = say("variant_judged", f"variants[{at}]") if size.baseline_judged is not None else ""
    return DataTile(size, results.baseline, judged)


def bottom_line(results: Results, claims: Claims) -> BottomLine:
    """The index's first screen: the headline, four tiles and a row per candidate, all claims."""
    say = claims.on(PAGE)
    primary = results.settings.compared[0]
    return BottomLine(
        headline=headline(results, say),
        verdicts=_verdict_tile(results, say),
        gate=_gate_tile(results, say),
        lead=_lead_tile(results, say),
        data=_data_tile(results, say),
        rows=rows(results, say),
        metric=primary.label,
        flips_metric=metric_label(results, results.settings.flips_metric),
    )
