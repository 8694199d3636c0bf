"""Pipeline-only stages: sizing sweep, ablations, citation cases and evidence checks (rows of
the Results; a runs-only project skips them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evidencedesk.results.compute import Book, delta_interval, in_noise
from evidencedesk.results.evidence import evidence
from evidencedesk.results.inputs import Project
from evidencedesk.results.settings import Settings
from evidencedesk.results.types import (
    AblationResult,
    Ablations,
    CitationRow,
    EvidenceResult,
    RunCosts,
    SizingRow,
)
from evidencedesk.retrieval.catalog import Catalog, markdown_files
from evidencedesk.retrieval.citations import load_answers, score_answer
from evidencedesk.retrieval.evalreport import Config, Run, ablate, sweep
from evidencedesk.retrieval.evalreport import Costs as PriceList
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.parts import Parts


def price_list(settings: Settings) -> PriceList:
    """The hypothetical price list of the pipeline's design (ms per query, ms per scored pair)."""
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    return PriceList(design.stage_one_ms, design.per_pair_ms)


def sizing(
    parts: Parts, catalog: Catalog, labels: Sequence[Label], settings: Settings, book: Book
) -> tuple[SizingRow, ...]:
    """The sizing sweep of the design, marking the cheapest setting within noise of the best."""
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    rows = sweep(design.sizing_depths, design.sizing_finals, parts, catalog, labels,
                 reranker=design.sizing_reranker, costs=price_list(settings))  # fmt: skip
    best = max(rows, key=lambda r: (r.mrr or 0.0, -r.pairs_per_question, -r.tokens_per_question))
    runs: list[Run] = [r.run for r in rows]  # type: ignore[misc]
    best_run = runs[rows.index(best)]
    noise = [in_noise(best_run.judged, run.judged) for run in runs]
    cheapest = min(
        (r for r, ok in zip(rows, noise, strict=True) if ok),
        key=lambda r: (r.pairs_per_question, r.tokens_per_question),
    )
    return tuple(
        SizingRow(
            depth=r.depth,
            final=r.final,
            recall=r.recall,
            mrr=book.stat(run.config, run.judged, "mrr"),
            costs=RunCosts(r.pairs_per_question, r.tokens_per_question, r.latency_ms),
            within_noise=ok,
            smallest_in_noise=r is cheapest,
            best=r is best,
        )
        for r, run, ok in zip(rows, runs, noise, strict=True)
    )


def ablations(
    parts: Parts, catalog: Catalog, labels: Sequence[Label], settings: Settings
) -> Ablations:
    """The ablations of the design: each change against the base, with its MRR interval."""
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    base = Config(**design.ablation_base)
    rows = ablate(base, list(design.ablation_changes), parts, catalog, labels,
                  costs=price_list(settings))  # fmt: skip
    base_judged = rows[0].run.judged
    intervals = [(None, None)] + [
        delta_interval(base_judged, r.run.judged, "mrr", settings.seed) for r in rows[1:]
    ]
    return Ablations(
        base=base.label(),
        rows=tuple(
            AblationResult(
                changes=dict(r.changes),
                metrics={m.name: r.run.value(m.name) for m in settings.columns},
                mrr_delta=r.mrr_delta,
                better=r.better,
                worse=r.worse,
                tied=r.tied,
                p=r.p,
                costs=RunCosts(r.pairs_per_question, r.tokens_per_question, r.latency_ms),
                mrr_low=low,
                mrr_high=high,
            )
            for r, (low, high) in zip(rows, intervals, strict=True)
        ),
    )


def citations(answers_path: Path, catalog: Catalog) -> tuple[CitationRow, ...]:
    """The citation checks: every answer of answers.jsonl scored against the catalog."""
    answers = load_answers(answers_path, known_chunks=catalog.by_id)
    rows = []
    for a in answers:
        s = score_answer(a, catalog.by_id)
        rows.append(CitationRow(a.id, a.case, a.answer, s.coverage, s.resolve, s.support, a.note))
    return tuple(rows)


def evidence_rows(
    project: Project, catalog: Catalog, labels: Sequence[Label], base_run: Run, parts: Parts
) -> EvidenceResult:
    """The evidence checks on the baseline: dedupe, compression, freshness, deletion, tenants."""
    update = markdown_files(project.updates)[0] if project.updates is not None else None
    return evidence(catalog, labels, base_run, parts.first("hybrid"), project.dups, update,
                    project.tenants, project.tenant_documents, dense=project.dense)  # fmt: skip
