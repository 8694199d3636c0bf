"""The last step of the data flow: judged variants and reviewed candidates -> `SiteModel`.

Shared by both kinds of project (pipeline and runs-only): meta (inputs and their hashes,
caveats, skipped stages), the data set, the benchmark, the flip matrix, slices and the
question pages (beyond `PAGE_LIMIT` questions only those that flip or fail).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import evidencedesk
from evidencedesk.project import Project
from evidencedesk.report.model import (
    BuildOptions,
    Candidate,
    Caveat,
    Count,
    Dataset,
    DocumentRow,
    InputFile,
    Meta,
    SiteModel,
    Skipped,
)
from evidencedesk.report.sections import Ablations, Citations, Evidence, Sizing
from evidencedesk.report.variants import (
    Columns,
    Scored,
    benchmark_rows,
    flip_matrix,
    questions,
    slice_tables,
    variant_models,
)
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.labels import Label

PAGE_LIMIT = 500
PIPELINE_CAVEATS = {
    "dense": "The dense searcher is a toy: hashed word and character-trigram features in a fixed "
    "vector, not a trained bi-encoder. It shows how the kit measures, not how good dense retrieval is.",
    "rerankers": "The rerankers (overlap, feature, pair, blend) are hand-written lexical stand-ins for "
    "a cross-encoder: they read words, not meaning, and cannot see a paraphrase.",
    "tuning": "The feature scorer's weights and the gate's thresholds were chosen while looking at "
    "these labels: gains measured on them are optimistic until checked on unseen questions.",
}


@dataclass(frozen=True)
class Assembly:
    """Everything the site model is made from, after all statistics are done."""

    project: Project
    options: BuildOptions
    catalog: Catalog | None
    labels: Sequence[Label]
    scored: Sequence[Scored]
    baseline: str
    candidates: Sequence[Candidate]
    columns: Columns
    price_list: str = ""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs_of(
    project: Project, extra: Sequence[tuple[str, Path]]
) -> tuple[tuple[InputFile, ...], str]:
    """Project-relative input paths with their sha256, and one short hash over all of them."""
    files = [(project.relative(p), p) for p in project.input_files()]
    files += [(f"--run {name}", path) for name, path in extra]
    found = tuple(InputFile(rel, _sha256(p)) for rel, p in files if p.is_file())
    digest = hashlib.sha256("\n".join(f"{i.path} {i.sha256}" for i in found).encode()).hexdigest()
    return found, digest[:16]


def dataset(catalog: Catalog | None, labels: Sequence[Label]) -> Dataset:
    per_doc = Counter(c.doc_id for c in catalog.chunks) if catalog is not None else Counter()
    docs = tuple(
        DocumentRow(d.id, d.title, per_doc[d.id], d.status, d.visibility, d.language)
        for d in (catalog.documents if catalog is not None else ())
    )
    tags = Counter(t for label in labels for t in label.tags)
    grades = Counter(g for label in labels for g in label.grades.values())
    return Dataset(
        documents=docs,
        chunks=len(catalog) if catalog is not None else 0,
        questions=len(labels),
        answerable=sum(1 for label in labels if label.answerable),
        tags=tuple(Count(t, tags[t]) for t in sorted(tags)),
        grades=tuple(Count(str(g), grades[g]) for g in sorted(grades)),
    )


def meta(a: Assembly) -> Meta:
    found, digest = inputs_of(a.project, a.options.runs)
    caveats = (
        [Caveat(k, v) for k, v in PIPELINE_CAVEATS.items()] if a.project.kind == "pipeline" else []
    )
    answerable = sum(1 for lb in a.labels if lb.answerable)
    caveats.insert(
        0,
        Caveat(
            "labels",
            f"{len(a.labels)} labelled questions ({answerable} answerable): a one- or two-question difference is noise.",
        ),
    )
    return Meta(
        title=f"evidencedesk report — {a.project.name}",
        project=a.project.name,
        seed=a.options.seed,
        version=evidencedesk.__version__,
        input_hash=digest,
        relevance=f"relevant = grade ≥ {a.project.relevance}",
        baseline=a.baseline,
        caveats=tuple(caveats),
        skipped=tuple(Skipped(stage, reason) for stage, reason in a.project.skipped_stages()),
        inputs=found,
        price_list=a.price_list,
    )


def pages_to_keep(a: Assembly) -> set[str] | None:
    """None (every question) up to PAGE_LIMIT; beyond it the ids that flip or fail."""
    if len(a.labels) <= PAGE_LIMIT:
        return None
    base = next(s for s in a.scored if s.name == a.baseline)
    keep = {
        j.id for j in base.judged if j.n_relevant > 0 and not any(g >= j.relevant for g in j.grades)
    }
    for c in a.candidates:
        keep |= set(c.flips.better) | set(c.flips.worse)
    return keep


def assemble(
    a: Assembly,
    sizing: Sizing | None = None,
    ablations: Ablations | None = None,
    citations: Citations | None = None,
    evidence: Evidence | None = None,
) -> SiteModel:
    seed = a.options.seed
    pages = questions(
        a.labels, a.scored, a.baseline, a.catalog, pages_to_keep(a), a.project.restricted_text
    )
    variants = variant_models(a.scored, a.columns, seed)
    labels = tuple(label for _, label in a.columns.items)
    return SiteModel(
        meta=meta(a),
        dataset=dataset(a.catalog, a.labels),
        variants=variants,
        benchmark=benchmark_rows(variants, a.scored),
        flip_matrix=flip_matrix(a.scored, a.baseline),
        slices=slice_tables(a.scored, (("mrr", "MRR"), a.columns.items[1])),
        candidates=tuple(a.candidates),
        questions=pages,
        sizing=sizing,
        ablations=ablations,
        citations=citations,
        evidence=evidence,
        omitted_questions=len(a.labels) - len(pages),
        benchmark_columns=(labels[0], labels[1], labels[2], labels[3]),
    )
