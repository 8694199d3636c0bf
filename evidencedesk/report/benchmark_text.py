"""The benchmark as the command line prints it: the site's benchmark table, from the same Results.

``evidencedesk benchmark`` and the site read one `Results` (`results.evaluate.evaluation`), so
they name the same primary metric, the same baseline, the same means, intervals, flips and
p-values. The baseline's row comes first; every other row's flips are against it, on the flips
metric (the primary), with the exact sign test and its Holm adjustment across the pairs of
variants, as on the site's benchmark page.
"""

from __future__ import annotations

from typing import Any

from evidencedesk.inert import printable
from evidencedesk.metric_names import label
from evidencedesk.report.values import fmt, p_text
from evidencedesk.report.words import counts_sentence
from evidencedesk.results.types import Results, VariantResult

__all__ = ["benchmark_json", "benchmark_text"]


def _ordered(results: Results) -> list[VariantResult]:
    base = results.variant(results.baseline)
    return [base, *(v for v in results.variants if v.name != results.baseline)]


def _cell(value: float | None) -> str:
    return "n/a" if value is None else fmt(value).replace("−", "-")


def _layout(columns: list[str], rows: list[list[str]]) -> list[str]:
    """Header, rule and rows: the first column left-aligned, the numbers right-aligned."""
    widths = [max(len(row[c]) for row in [columns, *rows]) for c in range(len(columns))]

    def line(cells: list[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [cell.rjust(widths[c]) for c, cell in enumerate(cells) if c > 0]
        return "  ".join(out).rstrip()

    return [line(columns), "  ".join("-" * w for w in widths)] + [line(row) for row in rows]


def benchmark_text(results: Results, caveats: tuple[str, ...] = ()) -> str:
    """The table, a line saying how to read it, and `caveats` (what the variants are)."""
    settings = results.settings
    primary = settings.compared[0]
    flips_label = settings.metric(settings.flips_metric).label
    counts = results.inputs.counts
    head = f"benchmark: {printable(results.inputs.project)}: {len(results.variants)} variants"
    if counts is not None:
        head += f"; {counts_sentence(counts, settings.averaging)}"
    head += f"; baseline {printable(results.baseline)}; bootstrap seed {settings.seed}"
    columns = ["variant", *(m.label for m in settings.columns), f"{primary.label} 95% CI",
               label(f"judged@{settings.judged_k}"), f"flips vs {printable(results.baseline)}", "p",
               "pairs/q"]  # fmt: skip
    rows = []
    for v in _ordered(results):
        stats = {s.metric: s for s in v.metrics}
        head_stat = stats[primary.name]
        interval = (
            "n/a" if head_stat.low is None or head_stat.high is None
            else f"[{_cell(head_stat.low)}, {_cell(head_stat.high)}]"
        )  # fmt: skip
        flips, p = "—", "—"
        if v.name != results.baseline:
            f = results.flip(results.baseline, v.name)
            flips, p = f"+{len(f.better)}/-{len(f.worse)}", p_text(f.p)
        pairs = v.costs.pairs_per_question
        rows.append([
            printable(v.name) + (" (external run)" if v.kind == "external" and v.config is None
                      and settings.kind == "pipeline" else ""),
            *(_cell(stats[m.name].mean) for m in settings.columns),
            interval,
            _cell(v.judged.mean if v.judged is not None else None),
            flips,
            p,
            "n/a" if pairs is None else f"{pairs:.1f}",
        ])  # fmt: skip
    tail = (
        f"{primary.label} interval: seeded percentile bootstrap over questions; Judged@"
        f"{settings.judged_k}: the share of each top {settings.judged_k} that the judgments "
        f"grade at all; flips: questions whose {flips_label} is higher (+) or lower (-) than in "
        f"the baseline '{printable(results.baseline)}'; p: exact two-sided sign test over those "
        "questions."
    )
    return "\n".join([head, "", *_layout(columns, rows), "", tail, *caveats])


def benchmark_json(results: Results) -> dict[str, Any]:
    """The same table as data: each variant's metrics with intervals and its flips."""
    settings = results.settings
    variants = []
    for v in _ordered(results):
        row: dict[str, Any] = {
            "name": v.name,
            "kind": v.kind,
            "metrics": {
                s.metric: {"mean": s.mean, "low": s.low, "high": s.high, "n": s.n}
                for s in v.metrics
            },  # fmt: skip
            "judged": None if v.judged is None else v.judged.mean,
            "pairs_per_question": v.costs.pairs_per_question,
        }
        if v.name != results.baseline:
            f = results.flip(results.baseline, v.name)
            row["flips"] = {"metric": f.metric, "better": list(f.better),
                            "worse": list(f.worse), "tied": f.tied, "p": f.p,
                            "holm_p": f.holm_p}  # fmt: skip
        variants.append(row)
    counts = results.inputs.counts
    return {
        "project": results.inputs.project,
        "seed": settings.seed,
        "primary": settings.compared[0].name,
        "flips_metric": settings.flips_metric,
        "baseline": results.baseline,
        "questions": None if counts is None else counts.to_dict(),
        "variants": variants,
    }
