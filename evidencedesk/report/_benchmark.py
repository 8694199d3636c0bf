"""Results -> the benchmark, interval, flip and slice parts of the site model.

Every number comes from the `Results` (`evidencedesk.results`); this module labels the rows and
lays them out, and the templates' filters (`report.values.FILTERS`) round them.
"""

from __future__ import annotations

from evidencedesk._metric_names import Metric, label
from evidencedesk.report._claims import Claims
from evidencedesk.report._model import (
    FlipCell,
    FlipLine,
    FlipMatrix,
    GridRow,
    SliceCell,
    SliceRow,
    SliceTable,
    Variant,
)
from evidencedesk.report._values import Stat, flips_text
from evidencedesk.report._words import answers_part, partial_coverage
from evidencedesk.results.types import Flip, MetricStat, Results, TagValue, VariantResult
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._stats import ALPHA
from evidencedesk.retrieval.parts import _minilm_roles


def caveat_key(component: str, dense: str) -> str:
    """The key a component's caveat goes by on the pages (`meta.caveats`): MiniLM's is the dense
    searcher's ("dense") where it is the pipeline's dense searcher (``[searchers] dense =
    "minilm"``: the sizing, ablations and evidence stages run it too), else its own ("minilm":
    only the candidates that name it run it)."""
    return "dense" if component == "minilm" and dense == "minilm" else component


def caveat_keys(first_stage: str, reranker: str, dense: str = "toy") -> tuple[str, ...]:
    """The component caveats (`caveat_key`s) a configuration's stages bear: the toy dense
    searcher's, MiniLM's, the lexical rerankers'."""
    on = {
        "dense": dense == "toy" and first_stage in ("dense", "hybrid"),
        "minilm": bool(_minilm_roles(first_stage, reranker, dense)),
        "rerankers": reranker not in ("none", "minilm"),
    }
    return tuple(dict.fromkeys(caveat_key(c, dense) for c, bears in on.items() if bears))


def _caveat_of(v: VariantResult, dense: str = "toy") -> str | None:
    """What a reader must know about a built-in variant's components (`dense`: the dense
    searcher's embedder, toy or minilm)."""
    cfg = v.config
    if cfg is None:
        return None
    first, reranker = cfg["first_stage"], cfg["reranker"]
    roles = _minilm_roles(first, reranker, dense)
    if len(roles) == 2:
        return f"MiniLM searcher and reranker: {minilm._DESCRIPTION}"
    searcher = None
    if "searcher" in roles:
        searcher = f"the MiniLM searcher ({minilm._DESCRIPTION})"
    elif first in ("dense", "hybrid"):
        searcher = "the toy dense searcher"
    over = f" over {searcher}" if searcher else ""
    if reranker == "minilm":
        return f"MiniLM reranker ({minilm._DESCRIPTION}){over}"
    if reranker != "none":
        return f"stand-in lexical reranker{over}"
    return None if searcher is None else f"includes {searcher}"


def _stat_of(v: VariantResult, metric: str) -> MetricStat:
    return next(s for s in v.metrics if s.metric == metric)


def _coverage_warning(v: VariantResult) -> str | None:
    """The run's coverage in words, when it answers fewer than all of the judged queries (a
    lowered ``[runs].min_coverage`` let it through): the others count as empty lists."""
    if v.coverage is None or not answers_part(v.coverage):
        return None
    return partial_coverage(v.name, v.coverage)


def variant_models(results: Results) -> tuple[Variant, ...]:
    """Every variant as the site shows it: metrics, costs, Judged@k, coverage warning."""
    settings = results.settings
    columns = settings.columns
    judged = label(f"judged@{settings.judged_k}")
    return tuple(
        Variant(
            row=v,
            caveat=_caveat_of(v, results.settings.dense),
            metrics=tuple(Stat(m.label, _stat_of(v, m.name)) for m in columns),
            judged=None if v.judged is None else Stat(judged, v.judged),
            warning=_coverage_warning(v),
        )
        for v in results.variants
    )


def _values(v: VariantResult, metric: str) -> dict[str, float | None]:
    return {r.question: r.values[metric] for r in v.lists}


SMALL_SLICE = 5  # slices with fewer questions are greyed: "too few to read" (docs/statistics.md)


def flip_cell(f: Flip, text: str | None = None) -> FlipCell:
    """A flips table's cell; `text`: its claim's words (report.claims), else the flips alone."""
    return FlipCell(f, text if text is not None else flips_text(len(f.better), len(f.worse)),
                    f.holm_p < ALPHA)  # marked: Holm-adjusted p below the level  # fmt: skip


def flip_matrix(
    results: Results, shown: tuple[str, ...] | None = None, claims: Claims | None = None
) -> FlipMatrix:
    """The baseline first, then the other variants in benchmark order: the lower triangle of
    `cells` (row against an earlier column) is each pair once, its first column the baseline.
    The question grid lists every question (`shown` None), or the ids in `shown` (the plan's
    grid: above the page limit the questions that get a page)."""
    names = [results.baseline] + [v.name for v in results.variants if v.name != results.baseline]
    kinds = {
        v.name: "external run" if v.kind == "external" else "variant" for v in results.variants
    }
    claims = claims or Claims(results)
    say = claims.on("flips.html")
    where = {(f.a, f.b, f.family): i for i, f in enumerate(results.flips)}
    cells, pairs = [], []
    for i, row in enumerate(names):
        line = []
        for j, col in enumerate(names):
            if row == col:
                line.append(FlipCell(None, ""))
                continue
            source = f"flips[{where[col, row, 'variants']}]"  # the row's wins and losses
            lower = j < i  # the page lays out the lower triangle: each pair once
            cell = flip_cell(
                results.flip_of[col, row, "variants"], say("flip_cell", source) if lower else None
            )
            line.append(cell)
            if lower:
                f = results.flip_of[col, row, "variants"]
                pairs.append(FlipLine(row, col, kinds[row], cell, f.tied,
                                      say("flip_line", source)))  # fmt: skip
        cells.append(tuple(line))
    candidates = tuple(
        FlipLine(
            f.b,
            f.a,
            "candidate",
            flip_cell(f, say("flip_cell", f"flips[{where[f.a, f.b, f.family]}]")),
            f.tied,
        )
        for f in results.flips
        if f.family == "candidates"
    )
    metric = results.settings.flips_metric
    base_rr = _values(results.baseline_variant, metric)
    others = [results.by_name[n] for n in names[1:]]
    other_rr = [_values(v, metric) for v in others]
    rows = base_rr.items() if shown is None else ((q, base_rr.get(q)) for q in shown)
    grid = []
    for qid, b in rows:
        deltas = []
        for rr in other_rr:
            x = rr.get(qid)
            deltas.append(None if x is None or b is None else x - b)
        grid.append(GridRow(question=qid, deltas=tuple(deltas), defined=b is not None))
    return FlipMatrix(
        variants=tuple(names),
        cells=tuple(cells),
        grid_variants=tuple(v.name for v in others),
        grid=tuple(grid),
        grid_more=len(base_rr) - len(grid),
        metric=results.settings.flips.question_label,  # per question, MRR's is the reciprocal rank
        baseline=results.baseline,
        candidates=candidates,
        pairs=tuple(pairs),
        legend=say("grid_legend", ""),
        star=say("rule", "", key="holm_star"),
        shades=say("rule", "", key="shades"),
    )


def by_tag(v: VariantResult, metric: str) -> dict[str, tuple[float | None, int]]:
    """A variant's mean and question count per tag on `metric`."""
    return {t.tag: (t.mean, t.n) for t in v.slices if t.metric == metric}


def _slice_cell(t: TagValue | None) -> SliceCell:
    """A slices-table cell of one tag's value (a dash, greyed, when the variant has none)."""
    return SliceCell(t, t is None or t.n < SMALL_SLICE)


def slice_tables(results: Results, metrics: tuple[Metric, ...]) -> tuple[SliceTable, ...]:
    """The slices page's tables: for each metric, every variant by tag, few-question tags greyed."""
    counts: dict[str, int] = {}
    for q in results.inputs.questions:
        for tag in dict.fromkeys(q.tags):
            counts[tag] = counts.get(tag, 0) + 1
    base = results.baseline_variant
    tables = []
    for m in metrics:
        per_variant = [{t.tag: t for t in v.slices if t.metric == m.name} for v in results.variants]
        tags = sorted({t for table in per_variant for t in table})
        rows = tuple(
            SliceRow(variant=v.name, cells=tuple(_slice_cell(table.get(t)) for t in tags))
            for v, table in zip(results.variants, per_variant, strict=True)
        )
        here = by_tag(base, m.name)
        fewer = tuple(
            f"{t} {here[t][1]} of {counts[t]}"
            for t in tags
            if t in here and t in counts and here[t][1] < counts[t]
        )
        tables.append(SliceTable(m.label, tuple(tags), rows, fewer, SMALL_SLICE))
    return tuple(tables)
