"""Results -> the index's first screen: four tiles and one decision row per candidate.

The tiles answer the questions a reviewer asks before reading on (how many candidates got
better, what the gate says, which candidate leads, what the data is), each from
`results.summary`; the rows hold each candidate's verdict, gate, primary-metric difference,
flips and cost. Numbers stay separate fields (no sentence is built here): the words are the
candidate pages'. Formatting only.
"""

from __future__ import annotations

from evidencedesk.report.model import (
    BottomLine,
    CandidateRow,
    Count,
    DataTile,
    GateTile,
    LeadTile,
    VerdictTile,
)
from evidencedesk.report.site import slug
from evidencedesk.report.values import flips_text, stat
from evidencedesk.results import summary
from evidencedesk.results.rows import Costs
from evidencedesk.results.types import Results
from evidencedesk.retrieval.stats import TIE

NOT_KNOWN = "not known"


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
            gated=c.gate.evaluated,
        ))  # fmt: skip
    return tuple(out)


def verdict_tile(results: Results) -> VerdictTile:
    counts = summary.verdict_counts(results.candidates)
    by_verdict = tuple(Count(name, n) for name, n in counts.by_verdict)
    return VerdictTile(counts.better, counts.worse, counts.unclear, by_verdict)


def gate_tile(results: Results) -> GateTile:
    counts = summary.gate_counts(results)
    if counts is None:
        return GateTile(checked=False)
    return GateTile(True, counts.go, counts.review, counts.block)


def lead_tile(results: Results) -> LeadTile | None:
    lead = summary.best_lead(results)
    if lead is None:
        return None
    c = next(c for c in results.candidates if c.name == lead.candidate)
    delta = stat(f"Δ {_label(results, lead.metric)}", lead.delta, lead.low, lead.high, lead.n,
                 signed=True)  # fmt: skip
    return LeadTile(c.name, slug(c.name), c.decision.verdict, c.gate.verdict, c.gate.evaluated,
                    delta)  # fmt: skip


def data_tile(results: Results) -> DataTile:
    size = summary.data_size(results)
    share = size.baseline_judged
    judged = None
    if share is not None:
        judged = stat(f"Judged@{size.judged_k}", share.mean, share.low, share.high, share.n,
                      share.left_out)  # fmt: skip
    return DataTile(size.questions, size.judged, size.relevant, size.documents, size.chunks,
                    results.baseline, judged)  # fmt: skip


def bottom_line(results: Results) -> BottomLine:
    primary = results.settings.compared[0]
    return BottomLine(
        verdicts=verdict_tile(results),
        gate=gate_tile(results),
        lead=lead_tile(results),
        data=data_tile(results),
        rows=rows(results),
        metric=primary.label,
        flips_metric=_label(results, results.settings.flips_metric),
    )
