"""Results -> the benchmark, interval, flip and slice parts of the site model.

Formatting only: every number comes from the `Results` (`evidencedesk.results`); this module
rounds, labels and lays them out as `Num`/`Stat` values so templates never compute.
"""

from __future__ import annotations

from evidencedesk.report.model import (
    BenchmarkRow,
    FlipCell,
    FlipMatrix,
    GridRow,
    SliceCell,
    SliceRow,
    SliceTable,
    Variant,
)
from evidencedesk.report.values import Stat, flips_text, num, pval, stat
from evidencedesk.results.rows import MetricStat
from evidencedesk.results.settings import Metric
from evidencedesk.results.types import Results, VariantResult


def metric_stat(s: MetricStat, label: str) -> Stat:
    return stat(label, s.mean, s.low, s.high, s.n, s.left_out)


def caveat_of(v: VariantResult) -> str | None:
    """What a reader must know about a built-in variant's components."""
    cfg = v.config
    if cfg is None:
        return None
    caveat = (
        "includes the toy dense searcher" if cfg["first_stage"] in ("dense", "hybrid") else None
    )
    if cfg["reranker"] != "none":
        caveat = "stand-in lexical reranker" + (
            " over the toy dense searcher" if cfg["first_stage"] != "sparse" else ""
        )
    return caveat


def stat_of(v: VariantResult, metric: str) -> MetricStat:
    return next(s for s in v.metrics if s.metric == metric)


def variant_models(results: Results) -> tuple[Variant, ...]:
    columns = results.settings.columns
    return tuple(
        Variant(
            name=v.name,
            kind="external" if v.kind == "external" else "builtin",
            description=v.description,
            caveat=caveat_of(v),
            metrics=tuple(metric_stat(stat_of(v, m.name), m.label) for m in columns),
            pairs_per_question=num(v.costs.pairs_per_question, 1),
            tokens_per_question=num(v.costs.tokens_per_question, 0),
        )
        for v in results.variants
    )


def benchmark_rows(results: Results, variants: tuple[Variant, ...]) -> tuple[BenchmarkRow, ...]:
    first = results.variants[0].name
    rows = []
    for v in variants:
        m = v.metrics
        flips = "—"
        if v.name != first:
            f = results.flip(first, v.name)
            flips = f"{flips_text(len(f.better), len(f.worse))} p={f.p:.3f}"
        rows.append(
            BenchmarkRow(
                variant=v.name,
                kind=v.kind,
                r1=num(m[0].value),
                r3=num(m[1].value),
                mrr=m[2],
                ndcg5=num(m[3].value),
                flips=flips,
                pairs=v.pairs_per_question,
            )
        )
    return tuple(rows)


def _values(v: VariantResult, metric: str) -> dict[str, float | None]:
    return {r.question: r.values[metric] for r in v.lists}


def flip_matrix(results: Results) -> FlipMatrix:
    names = [v.name for v in results.variants]
    cells = []
    for row in names:
        line = []
        for col in names:
            if row == col:
                line.append(FlipCell(0, 0, pval(None), ""))
                continue
            f = results.flip(row, col)
            text = f"{flips_text(len(f.better), len(f.worse))}, p={f.p:.3f}"
            line.append(FlipCell(len(f.better), len(f.worse), pval(f.p), text))
        cells.append(tuple(line))
    metric = results.settings.flips_metric
    base_rr = _values(results.variant(results.baseline), metric)
    others = [v for v in results.variants if v.name != results.baseline]
    other_rr = [_values(v, metric) for v in others]
    grid = []
    for qid, b in base_rr.items():
        deltas = []
        for rr in other_rr:
            x = rr.get(qid)
            deltas.append(num(None if x is None or b is None else x - b, signed=True))
        grid.append(GridRow(question=qid, deltas=tuple(deltas)))
    return FlipMatrix(
        variants=tuple(names),
        cells=tuple(cells),
        grid_variants=tuple(v.name for v in others),
        grid=tuple(grid),
    )


def by_tag(v: VariantResult, metric: str) -> dict[str, tuple[float | None, int]]:
    return {t.tag: (t.mean, t.n) for t in v.slices if t.metric == metric}


def slice_tables(results: Results, metrics: tuple[Metric, ...]) -> tuple[SliceTable, ...]:
    tables = []
    for m in metrics:
        per_variant = [by_tag(v, m.name) for v in results.variants]
        tags = sorted({t for table in per_variant for t in table})
        rows = tuple(
            SliceRow(
                variant=v.name,
                cells=tuple(
                    SliceCell(num(table.get(t, (None, 0))[0]), table.get(t, (None, 0))[1])
                    for t in tags
                ),
            )
            for v, table in zip(results.variants, per_variant, strict=True)
        )
        tables.append(SliceTable(metric=m.label, tags=tuple(tags), rows=rows))
    return tuple(tables)
