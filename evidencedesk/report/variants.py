"""Judged variants -> the benchmark, interval, flip, slice and question parts of the site model.

Every number here is computed from per-question values with the statistics module; the model
receives formatted `Num`/`Stat` values so templates never compute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evidencedesk.chunking import Chunk
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
from evidencedesk.report.values import Stat, num, pval, stat
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import (
    Judged,
    bootstrap_ci,
    by_tag,
    paired,
    per_question,
    summarize,
)

TIE = 1e-12
SHOWN = 20  # a question page lists at most this many results per variant


@dataclass(frozen=True)
class Scored:
    """One variant's judged final lists plus what it cost."""

    name: str
    kind: str  # "builtin" | "external"
    description: str
    caveat: str | None
    judged: tuple[Judged, ...]
    pairs: float = 0.0
    tokens: float | None = None

    def rr(self) -> dict[str, float | None]:
        return per_question(list(self.judged), "mrr")


@dataclass(frozen=True)
class Columns:
    """The metrics the benchmark shows: (metric name, display label)."""

    items: tuple[tuple[str, str], ...]


DEMO_COLUMNS = Columns(
    (("recall@1", "r@1"), ("recall@3", "r@3"), ("mrr", "MRR"), ("ndcg@5", "nDCG@5"))
)


def metric_stat(judged: Sequence[Judged], name: str, label: str, seed: int) -> Stat:
    summary = summarize(judged, [name])[name]
    values = [v for v in per_question(judged, name).values() if v is not None]
    ci = bootstrap_ci(values, seed=seed)
    return stat(label, summary.value, ci.low, ci.high, summary.n, summary.left_out)


def variant_models(scored: Sequence[Scored], columns: Columns, seed: int) -> tuple[Variant, ...]:
    return tuple(
        Variant(
            name=s.name,
            kind="external" if s.kind == "external" else "builtin",
            description=s.description,
            caveat=s.caveat,
            metrics=tuple(
                metric_stat(list(s.judged), n, label, seed) for n, label in columns.items
            ),
            pairs_per_question=num(s.pairs, 1),
            tokens_per_question=num(s.tokens, 0),
        )
        for s in scored
    )


def flips_text(better: int, worse: int) -> str:
    return f"+{better}/−{worse}"


def benchmark_rows(
    variants: Sequence[Variant], scored: Sequence[Scored]
) -> tuple[BenchmarkRow, ...]:
    first = scored[0]
    first_rr = first.rr()
    rows = []
    for v, s in zip(variants, scored, strict=True):
        m = {x.name: x for x in v.metrics}
        flips = "—"
        if s is not first:
            p = paired(first_rr, s.rr(), "mrr")
            flips = f"{flips_text(len(p.better), len(p.worse))} p={p.p:.3f}"
        labels = list(m)
        rows.append(
            BenchmarkRow(
                variant=v.name,
                kind=v.kind,
                r1=num(m[labels[0]].value),
                r3=num(m[labels[1]].value),
                mrr=m[labels[2]],
                ndcg5=num(m[labels[3]].value),
                flips=flips,
                pairs=v.pairs_per_question,
            )
        )
    return tuple(rows)


def flip_matrix(scored: Sequence[Scored], baseline: str) -> FlipMatrix:
    # per-question values once per variant, not once per cell: the matrix has N^2 cells
    rrs = [s.rr() for s in scored]
    cells = []
    for row, row_rr in zip(scored, rrs, strict=True):
        line = []
        for col, col_rr in zip(scored, rrs, strict=True):
            if row is col:
                line.append(FlipCell(0, 0, pval(None), ""))
                continue
            p = paired(row_rr, col_rr, "mrr")
            text = f"{flips_text(len(p.better), len(p.worse))}, p={p.p:.3f}"
            line.append(FlipCell(len(p.better), len(p.worse), pval(p.p), text))
        cells.append(tuple(line))
    base = next(s for s in scored if s.name == baseline)
    others = [s for s in scored if s.name != baseline]
    base_rr = base.rr()
    other_rr = [s.rr() for s in others]
    grid = []
    for qid, b in base_rr.items():
        deltas = []
        for rr in other_rr:
            v = rr.get(qid)
            deltas.append(num(None if v is None or b is None else v - b, signed=True))
        grid.append(GridRow(question=qid, deltas=tuple(deltas)))
    return FlipMatrix(
        variants=tuple(s.name for s in scored),
        cells=tuple(cells),
        grid_variants=tuple(s.name for s in others),
        grid=tuple(grid),
    )


def slice_tables(
    scored: Sequence[Scored], names: Sequence[tuple[str, str]]
) -> tuple[SliceTable, ...]:
    tables = []
    for name, label in names:
        per_variant = [by_tag(list(s.judged), name) for s in scored]
        tags = sorted({t for table in per_variant for t in table})
        rows = tuple(
            SliceRow(
                variant=s.name,
                cells=tuple(
                    SliceCell(num(table.get(t, (None, 0))[0]), table.get(t, (None, 0))[1])
                    for t in tags
                ),
            )
            for s, table in zip(scored, per_variant, strict=True)
        )
        tables.append(SliceTable(metric=label, tags=tuple(tags), rows=rows))
    return tuple(tables)


def marks_of(chunk: Chunk | None) -> tuple[Mark, ...]:
    """What a reader must be told about a chunk before reading or forwarding it."""
    if chunk is None:
        return ()
    marks: list[Mark] = []
    if chunk.visibility == "restricted":
        marks.append("restricted")
    if chunk.status == "superseded":
        marks.append("superseded")
    return tuple(marks)


def graded_chunk(
    cid: str, grade: int, catalog: Catalog | None, hide_restricted: bool
) -> GradedChunk:
    chunk = catalog.by_id.get(cid) if catalog is not None else None
    marks = marks_of(chunk)
    hidden = hide_restricted and "restricted" in marks
    text = HIDDEN_TEXT if hidden else chunk.text if chunk else ""
    return GradedChunk(cid, grade, chunk.title if chunk else "", text, marks, hidden)


def _rr_of(judged: Judged) -> float | None:
    return per_question([judged], "mrr")[judged.id]


def questions(
    labels: Sequence[Label],
    scored: Sequence[Scored],
    baseline: str,
    catalog: Catalog | None,
    keep: set[str] | None = None,
    restricted_text: str = "show",
) -> tuple[Question, ...]:
    """One page model per question (all of them, or only the ids in `keep`).

    Every chunk carries its marks (restricted, superseded); with ``restricted_text="hide"`` the
    text of a restricted chunk is replaced by `HIDDEN_TEXT`.
    """
    hide = restricted_text == "hide"
    by_id = catalog.by_id if catalog is not None else {}
    by_variant: list[Mapping[str, Judged]] = [{j.id: j for j in s.judged} for s in scored]
    base_index = next(i for i, s in enumerate(scored) if s.name == baseline)
    pages = []
    for label in labels:
        if keep is not None and label.id not in keep:
            continue
        graded = [
            graded_chunk(cid, grade, catalog, hide)
            for cid, grade in sorted(label.grades.items(), key=lambda kv: (-kv[1], kv[0]))
            if grade > 0
        ]
        base_j = by_variant[base_index].get(label.id)
        base_rr = _rr_of(base_j) if base_j else None
        lists, flips = [], []
        for s, index in zip(scored, by_variant, strict=True):
            j = index.get(label.id)
            if j is None:
                continue
            items = tuple(
                RankedItem(r, cid, g, marks_of(by_id.get(cid)))
                for r, (cid, g) in enumerate(
                    zip(j.ids[:SHOWN], j.grades[:SHOWN], strict=False), start=1
                )
            )
            first = next((r for r, g in enumerate(j.grades, start=1) if g >= j.relevant), None)
            rr = _rr_of(j)
            delta = None if rr is None or base_rr is None else rr - base_rr
            lists.append(
                VariantList(
                    s.name,
                    items,
                    first,
                    num(rr),
                    num(delta, signed=True),
                    max(0, len(j.ids) - SHOWN),
                )
            )
            if delta is not None and abs(delta) > TIE and s.name != baseline:
                flips.append(QuestionFlip(s.name, "better" if delta > 0 else "worse"))
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
