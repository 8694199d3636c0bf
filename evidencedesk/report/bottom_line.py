"""Results -> the index's first screen: the bottom line and one decision row per candidate.

The bottom line counts the two answers apart -- the verdicts (did they get better?) and the gate
(may they ship?) -- and names the best lead, the candidate with the largest lower bound of the
primary metric's paired interval; each is a claim (report.claims). Formatting only.
"""

from __future__ import annotations

from evidencedesk.report.claims import Claims
from evidencedesk.report.model import BottomLine, CandidateRow
from evidencedesk.report.recommend import Say
from evidencedesk.report.site import slug
from evidencedesk.report.values import stat
from evidencedesk.report.words import metric_label
from evidencedesk.results.rows import Costs
from evidencedesk.results.types import Results
from evidencedesk.retrieval.stats import TIE

NOT_KNOWN = "not known"


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


def headline(results: Results, say: Say) -> str:
    """The two answers counted, and the best lead: "2 better, 1 no clear change; gate: 3 GO."
    (each a claim)."""
    if not results.candidates:
        if results.settings.kind == "runs":  # each run besides the baseline is a candidate
            return (f"No candidate changes to decide on: the project has no run besides its "
                    f"baseline {results.baseline}, so this report describes that run only.")  # fmt: skip
        return ("No candidate changes to decide on: the project defines none, so this report "
                "describes its variants only.")  # fmt: skip
    return f"{say('summary', '')}; {say('gate_summary', '')}. {say('lead', '')}."


def rows(results: Results, say: Say) -> tuple[CandidateRow, ...]:
    base = results.variant(results.baseline).costs
    out = []
    for i, c in enumerate(results.candidates):
        d = c.comparison(c.decision.primary)
        f = c.comparison(results.settings.flips_metric)
        at = [x.metric for x in c.comparisons].index(f.metric)
        label = metric_label(results, d.metric)
        out.append(CandidateRow(
            name=c.name,
            slug=slug(c.name),
            verdict=say("verdict", f"candidates[{i}]"),
            gate=say("gate", f"candidates[{i}]"),
            delta=stat(f"Δ {label}", d.delta, d.low, d.high, d.n, signed=True),
            flips=say("flip_cell", f"candidates[{i}].comparisons[{at}]"),
            cost=cost_text(base, c.costs),
            critical=c.decision.critical_worse,
        ))  # fmt: skip
    return tuple(out)


def bottom_line(results: Results, claims: Claims) -> BottomLine:
    primary = results.settings.compared[0]
    return BottomLine(
        headline=headline(results, claims.on("index.html")),
        points=(),
        rows=rows(results, claims.on("index.html")),
        metric=primary.label,
        flips_metric=metric_label(results, results.settings.flips_metric),
        has_critical=results.policy is not None and bool(results.policy.critical),
    )
