"""Results -> the question pages of the site model (formatting only).

Every number comes from the `Results`; this module picks, labels and lays out each question's
graded chunks and ranked lists.
"""

from __future__ import annotations

from evidencedesk.report.model import (
    HIDDEN_TEXT,
    GradedChunk,
    Mark,
    Question,
    QuestionFlip,
    RankedItem,
    VariantList,
)
from evidencedesk.report.values import num
from evidencedesk.results.types import SHOWN, ChunkFact, Results
from evidencedesk.retrieval.stats import TIE


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
