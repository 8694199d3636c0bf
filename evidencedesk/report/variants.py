"""Results -> the benchmark, interval, flip, slice and question parts of the site model.

Formatting only: every number comes from the `Results` (`evidencedesk.results`); this module
rounds, labels and lays them out as `Num`/`Stat` values so templates never compute.
"""

from __future__ import annotations

from evidencedesk.report.model import (
    HIDDEN_TEXT,
    BenchmarkRow,
    FlipCell,
    FlipMatrix,
    GradedChunk,
    GridRow,
    Mark,
    Question,
    QuestionFlip,
    RankedItem,
    SliceCell,
    SliceRow,
    SliceTable,
    Variant,
    VariantList,
)
from evidencedesk.report.values import Stat, flips_text, num, pval, stat
from evidencedesk.results.rows import MetricStat
from evidencedesk.results.settings import Metric
from evidencedesk.results.types import SHOWN, ChunkFact, Results, VariantResult
from evidencedesk.retrieval.stats import TIE


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


def _marks(fact: ChunkFact | None) -> tuple[Mark, ...]:
    return tuple(fact.marks) if fact is not None else ()  # type: ignore[arg-type]


def graded_chunk(cid: str, grade: int, fact: ChunkFact | None) -> GradedChunk:
    if fact is None:
        return GradedChunk(cid, grade, "", "", (), False)
    hidden = fact.text is None
    return GradedChunk(cid, grade, fact.title, HIDDEN_TEXT if hidden else fact.text or "",
                       _marks(fact), hidden)  # fmt: skip


def questions(results: Results, keep: set[str] | None = None) -> tuple[Question, ...]:
    """One page model per question (all of them, or only the ids in `keep`).

    Every chunk carries its marks (restricted, superseded); a restricted chunk whose text the
    project withholds shows `HIDDEN_TEXT`.
    """
    facts = {f.id: f for f in results.inputs.chunk_facts}
    metric = results.settings.flips_metric
    by_variant = [{r.question: r for r in v.lists} for v in results.variants]
    base_index = next(i for i, v in enumerate(results.variants) if v.name == results.baseline)
    pages = []
    for label in results.inputs.questions:
        if keep is not None and label.id not in keep:
            continue
        graded = [
            graded_chunk(cid, grade, facts.get(cid))
            for cid, grade in sorted(label.grades.items(), key=lambda kv: (-kv[1], kv[0]))
            if grade > 0
        ]
        base_r = by_variant[base_index].get(label.id)
        base_rr = base_r.values[metric] if base_r else None
        lists, flips = [], []
        for v, index in zip(results.variants, by_variant, strict=True):
            r = index.get(label.id)
            if r is None:
                continue
            items = tuple(
                RankedItem(rank, cid, g, _marks(facts.get(cid)))
                for rank, (cid, g) in enumerate(
                    zip(r.ids[:SHOWN], r.grades[:SHOWN], strict=False), start=1
                )
            )
            rr = r.values[metric]
            delta = None if rr is None or base_rr is None else rr - base_rr
            lists.append(
                VariantList(
                    v.name,
                    items,
                    r.first_relevant,
                    num(rr),
                    num(delta, signed=True),
                    max(0, r.size - SHOWN),
                )
            )
            if delta is not None and abs(delta) > TIE and v.name != results.baseline:
                flips.append(QuestionFlip(v.name, "better" if delta > 0 else "worse"))
        pages.append(
            Question(
                id=label.id,
                question=label.question,
                tags=tuple(label.tags),
                answerable=label.answerable,
                graded=tuple(graded),
                lists=tuple(lists),
                flips=tuple(flips),
            )
        )
    return tuple(pages)
