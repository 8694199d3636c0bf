"""Pipeline-only sections: sizing, ablations, citations and evidence (skipped for runs-only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from evidencedesk.chunking import chunk_document, load_document
from evidencedesk.report.sections import (
    AblationRow,
    Ablations,
    CitationCase,
    Citations,
    CompressionRow,
    Evidence,
    HeldBack,
    Merge,
    Sizing,
    SizingRow,
    StateRow,
    TenantRow,
)
from evidencedesk.report.values import num, pval
from evidencedesk.report.variants import metric_stat
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.citations import load_answers, score_answer
from evidencedesk.retrieval.evalreport import Config, Costs, Parts, Run
from evidencedesk.retrieval.evidence import compress, dedupe
from evidencedesk.retrieval.experiments import ablate, sweep
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.lifecycle import (
    Tenancy,
    boundary_leaks,
    build_searchers,
    delete_document,
    replace_document,
    served,
)
from evidencedesk.retrieval.metrics import paired

ABLATION_BASE = Config(reranker="feature")
ABLATION_CHANGES: tuple[dict[str, object], ...] = (
    {"reranker": "none"},
    {"first_stage": "sparse"},
    {"first_stage": "dense"},
    {"depth": 3},
    {"depth": 20},
    {"final": 1},
    {"final": 5},
    {"max_words": 8},
    {"prefilter": False},
)
ABLATION_METRICS = (("recall@1", "r@1"), ("recall@3", "r@3"), ("mrr", "MRR"), ("ndcg@5", "nDCG@5"))


def price_list(costs: Costs) -> str:
    return f"hypothetical: {costs.stage_one_ms:g} ms per query + {costs.per_pair_ms:g} ms per scored pair"


def _in_noise(best: Run, other: Run) -> bool:
    """Not distinguishable from the best: a gap of at most two questions, or sign-test p ≥ 0.05."""
    if best is other:
        return True
    flips = paired(list(best.judged), list(other.judged), "mrr")
    return len(flips.better) - len(flips.worse) >= -2 or flips.p >= 0.05


def sizing(
    parts: Parts, catalog: Catalog, labels: Sequence[Label], seed: int, costs: Costs
) -> Sizing:
    rows = sweep((3, 5, 10, 20), (1, 3, 5), parts, catalog, labels, reranker="feature", costs=costs)
    best = max(rows, key=lambda r: (r.mrr or 0.0, -r.pairs_per_question, -r.tokens_per_question))
    noise = [_in_noise(best.run, r.run) for r in rows]  # type: ignore[arg-type]
    cheapest = min(
        (r for r, ok in zip(rows, noise, strict=True) if ok),
        key=lambda r: (r.pairs_per_question, r.tokens_per_question),
    )
    return Sizing(
        reranker="feature",
        price_list=price_list(costs),
        rows=tuple(
            SizingRow(
                depth=r.depth,
                final=r.final,
                recall=num(r.recall),
                mrr=metric_stat(list(r.run.judged), "mrr", "MRR", seed),  # type: ignore[union-attr]
                pairs=num(r.pairs_per_question, 1),
                tokens=num(r.tokens_per_question, 0),
                latency=num(r.latency_ms, 1),
                within_noise=ok,
                smallest_in_noise=r is cheapest,
                best=r is best,
            )
            for r, ok in zip(rows, noise, strict=True)
        ),
        note="Recall is measured at each row's own final size. 'Within noise' = MRR not distinguishable "
        "from the best row (at most a two-question gap, or sign-test p ≥ 0.05).",
    )


def ablations(parts: Parts, catalog: Catalog, labels: Sequence[Label], costs: Costs) -> Ablations:
    rows = ablate(ABLATION_BASE, list(ABLATION_CHANGES), parts, catalog, labels, costs=costs)
    return Ablations(
        base=ABLATION_BASE.label(),
        metric_names=tuple(label for _, label in ABLATION_METRICS),
        rows=tuple(
            AblationRow(
                change="base" if i == 0 else ", ".join(f"{k}={v}" for k, v in r.changes.items()),
                is_base=i == 0,
                metrics=tuple(num(r.run.value(name)) for name, _ in ABLATION_METRICS),
                mrr_delta=num(r.mrr_delta, signed=True),
                better=r.better,
                worse=r.worse,
                p=pval(r.p),
                pairs=num(r.pairs_per_question, 1),
            )
            for i, r in enumerate(rows)
        ),
    )


def citations(answers_path: Path, catalog: Catalog) -> Citations:
    answers = load_answers(answers_path, known_chunks=catalog.by_id)
    cases = []
    for a in answers:
        scores = score_answer(a, catalog.by_id)
        cases.append(
            CitationCase(
                id=a.id,
                tests=a.case.replace("_", " "),
                answer=a.answer,
                coverage=num(scores.coverage, 2),
                resolve=num(scores.resolve, 2),
                support=num(scores.support, 2),
                note=a.note,
            )
        )
    return Citations(
        cases=tuple(cases),
        limit="The support check compares words and numbers; it cannot see negation. An answer that "
        "says the opposite of its cited chunk with the same words scores perfectly and is wrong.",
    )


def _returns_question(labels: Sequence[Label]) -> Label:
    return next(
        (lb for lb in labels if any(c.startswith("kc-returns-v3") for c in lb.relevant)), labels[0]
    )


def _states(rows: Sequence[tuple[str, tuple[str, ...], bool, str]]) -> tuple[StateRow, ...]:
    return tuple(
        StateRow(state, ", ".join(ids) or "nothing", stale, note)
        for state, ids, stale, note in rows
    )


def evidence(
    catalog: Catalog,
    labels: Sequence[Label],
    baseline: Run,
    dups_folder: Path | None,
    update_file: Path | None,
    tenancy_file: Path | None,
    tenant_folder: Path | None,
    k: int = 3,
) -> Evidence:
    from evidencedesk.retrieval.catalog import load_documents

    question = _returns_question(labels)
    notes: list[str] = []
    # Dedupe: the returns question over the catalog plus the duplicate pages.
    extra = Catalog.from_documents(
        list(catalog.documents) + (load_documents([dups_folder]) if dups_folder else [])
    )
    found = build_searchers(extra)["sparse"].search(question.question, 20, extra.allowed(Scope()))
    dd = dedupe(found)
    merges = tuple(Merge(kept, tuple(ids)) for kept, ids in dd.merged.items())
    held = tuple(
        HeldBack(a, b, "same words, different numbers: different claims, both kept")
        for a, b in dd.held_back
    )
    # Compression: spans of what reached the prompt, and of every labelled chunk.
    finals: Mapping[str, Sequence[object]] = {
        qid: [catalog.get(c) for c in ids] for qid, ids in baseline.final_ids.items()
    }
    labelled = {
        lb.id: [catalog.get(c) for c, g in lb.grades.items() if g > 0 and c in catalog]
        for lb in labels
    }
    compression = []
    for setting, found_by in (
        ("spans of the baseline's final chunks", finals),
        ("spans of every labelled chunk", labelled),
    ):
        rep = compress(labels, found_by)  # type: ignore[arg-type]
        compression.append(
            CompressionRow(
                setting,
                num(rep.tokens_before, 0),
                num(rep.tokens_after, 0),
                rep.questions - len(rep.cut_off) - len(rep.missing),
                rep.questions,
                rep.cut_off,
            )
        )
    freshness: tuple[StateRow, ...] = ()
    if update_file is not None:
        new_chunks = chunk_document(load_document(update_file))
        new, change = replace_document(catalog, new_chunks)
        old_index = build_searchers(catalog)["sparse"]
        q = [question.question]
        a = served(old_index, q, None, k)[question.question]
        b = served(old_index, q, new.allowed(Scope()), k)[question.question]
        c = served(build_searchers(new)["sparse"], q, new.allowed(Scope()), k)[question.question]
        freshness = _states(
            [
                (
                    "old index, no filter",
                    a,
                    any(x in change.superseded for x in a),
                    "still serves the superseded version",
                ),
                (
                    "old index, new scope",
                    b,
                    False,
                    "the old version is hidden and the new one is not indexed: the answer is gone"
                    if not any(x in change.added for x in b)
                    else "",
                ),
                (
                    "rebuilt index, new scope",
                    c,
                    any(x in change.superseded for x in c),
                    "serves the new version"
                    if any(x in change.added for x in c)
                    else "new version not found",
                ),
            ]
        )
        notes.append(
            f"Freshness: {update_file.name} replaces {', '.join(sorted({catalog.get(s).doc_id for s in change.superseded}))} for the question {question.id!r}."
        )
    victim = next((d.id for d in catalog.documents if d.status == "superseded"), None)
    deletion: tuple[StateRow, ...] = ()
    if victim is not None:
        asked = next(
            (
                lb
                for lb in labels
                if any(catalog.get(c).doc_id == victim for c in lb.grades if c in catalog)
            ),
            question,
        )
        new, change = delete_document(catalog, victim)
        old_index = build_searchers(catalog)["sparse"]
        q = [asked.question]
        a = served(old_index, q, None, k)[asked.question]
        b = served(old_index, q, new.allowed(Scope()), k)[asked.question]
        c = served(build_searchers(new)["sparse"], q, None, k)[asked.question]
        deletion = _states(
            [
                (
                    "old index, not rebuilt, no filter",
                    a,
                    any(x in change.removed for x in a),
                    f"still serves deleted {victim}" if any(x in change.removed for x in a) else "",
                ),
                (
                    "old index, scope filter",
                    b,
                    any(x in change.removed for x in b),
                    "the filter hides it, the index still holds it",
                ),
                ("rebuilt index, no filter", c, any(x in change.removed for x in c), "gone"),
            ]
        )
        notes.append(f"Deletion: {victim} deleted; asked {asked.id!r}.")
    tenants: tuple[TenantRow, ...] = ()
    if tenancy_file is not None and tenant_folder is not None:
        world = Catalog.from_documents(list(catalog.documents) + load_documents([tenant_folder]))
        tenancy = Tenancy.load(
            tenancy_file,
            known_docs={d.id for d in extra.documents} | {d.id for d in world.documents},
        )
        rows = boundary_leaks(build_searchers(world), world, tenancy, labels, Scope(), k=5)
        trows = []
        for tenant in tenancy.tenants:
            mine = [r for r in rows if r.tenant == tenant]
            trows.append(
                TenantRow(
                    tenant,
                    True,
                    mine[0].questions,
                    sum(r.leaks for r in mine),
                    tuple(sorted({c for r in mine for c in r.leaked})),
                )
            )
            trows.append(
                TenantRow(
                    tenant,
                    False,
                    mine[0].questions,
                    sum(r.control_foreign for r in mine),
                    tuple(sorted({c for r in mine for c in r.control_examples})),
                )
            )
        tenants = tuple(trows)
        notes.append(
            "Tenants: every question asked as every tenant with sparse, dense and hybrid (top 5); counts add up over the three searchers. The control asks without the tenant filter."
        )
    return Evidence(
        kept=len(dd.kept),
        merges=merges,
        held_back=held,
        compression=tuple(compression),
        freshness=freshness,
        deletion=deletion,
        tenants=tenants,
        notes=tuple(notes),
    )
