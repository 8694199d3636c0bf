"""The build's one data flow: load -> run -> judge -> statistics -> the plain-data site model.

`build_model(options, progress)` is what ``python -m evidencedesk.report build`` calls. Only the
loaders touch files here; rendering happens in `render.py`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import evidencedesk
from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.gate import GateResult, Verdict, load_baseline, load_policy, retrieval_gate
from evidencedesk.project import DEMO_PROJECT, Project, load_project
from evidencedesk.report.candidates import load_candidates
from evidencedesk.report.model import (
    BuildOptions,
    Caveat,
    Count,
    Dataset,
    DocumentRow,
    InputFile,
    Meta,
    SiteModel,
    Skipped,
)
from evidencedesk.report.review import Proposal, review_candidates
from evidencedesk.report.runs_only import runs_only_variants
from evidencedesk.report.stages import ablations, citations, evidence, price_list, sizing
from evidencedesk.report.variants import (
    DEMO_COLUMNS,
    Columns,
    Scored,
    benchmark_rows,
    flip_matrix,
    questions,
    slice_tables,
    variant_models,
)
from evidencedesk.retrieval.benchmark import VARIANTS, benchmark_variants
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Costs, Parts, Run, run_config
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.trec import read_run
from evidencedesk.retrieval.trec_judge import judge_trec_run

PAGE_LIMIT = 500  # above this many questions, only questions that flip or fail get a page
BASELINE = "hybrid"
COSTS = Costs()
CAVEATS = {
    "dense": "The dense searcher is a toy: hashed word and character-trigram features in a fixed "
    "vector, not a trained bi-encoder. It shows how the kit measures, not how good dense retrieval is.",
    "rerankers": "The rerankers (overlap, feature, pair, blend) are hand-written lexical stand-ins for "
    "a cross-encoder: they read words, not meaning, and cannot see a paraphrase.",
    "tuning": "The feature scorer's weights and the gate's thresholds were chosen while looking at "
    "these labels: gains measured on them are optimistic until checked on unseen questions.",
}
BUILTIN_DESCRIPTIONS = {
    "sparse": "BM25 over Unicode-aware tokens",
    "dense": "toy hashed embedder, cosine",
    "hybrid": "reciprocal-rank fusion of sparse and dense (the baseline, Config())",
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _inputs(
    project: Project, extra: Sequence[tuple[str, Path]]
) -> tuple[tuple[InputFile, ...], str]:
    files = [(project.relative(p), p) for p in project.input_files()] + [
        (f"--run {n}", p) for n, p in extra
    ]
    inputs = tuple(InputFile(rel, _sha256(p)) for rel, p in files if p.is_file())
    digest = hashlib.sha256("\n".join(f"{i.path} {i.sha256}" for i in inputs).encode()).hexdigest()
    return inputs, digest[:16]


def _dataset(catalog: Catalog | None, labels: Sequence[Label]) -> Dataset:
    per_doc = Counter(c.doc_id for c in catalog.chunks) if catalog is not None else Counter()
    docs = tuple(
        DocumentRow(d.id, d.title, per_doc[d.id], d.status, d.visibility, d.language)
        for d in (catalog.documents if catalog is not None else ())
    )
    tags = Counter(t for label in labels for t in label.tags)
    grades = Counter(str(g) for label in labels for g in label.grades.values())
    return Dataset(
        documents=docs,
        chunks=len(catalog) if catalog is not None else 0,
        questions=len(labels),
        answerable=sum(1 for label in labels if label.answerable),
        tags=tuple(Count(t, tags[t]) for t in sorted(tags)),
        grades=tuple(Count(g, grades[g]) for g in sorted(grades, key=int)),
    )


def _external(
    project: Project, options: BuildOptions, catalog: Catalog, labels: Sequence[Label], final: int
) -> list[Scored]:
    runs = dict(project.load_runs())
    for name, path in options.runs:
        if name in runs or name in dict(VARIANTS):
            raise ConfigError(
                path, f"expected a new run name, found {name!r} already used by another variant"
            )
        runs[name] = read_run(path)
    allowed = catalog.allowed(Scope())
    qrels = {lb.id: {c: g for c, g in lb.grades.items() if c in allowed} for lb in labels}
    scored = []
    for name, run in runs.items():
        judged = judge_trec_run(run, qrels, labels, k=final, relevant=project.relevance)
        shown = [[catalog.get(i) for i in j.ids if i in catalog] for j in judged]
        tokens = sum(context_tokens(s) for s in shown) / max(len(judged), 1)
        scored.append(
            Scored(
                name,
                "external",
                f"external TREC run (tag {run.tag!r}), cut to the top {final}",
                None,
                tuple(judged),
                0.0,
                tokens,
            )
        )
    return scored


def _config_of(candidate_file: Path | None, name: str, changes: dict[str, object]) -> Config:
    try:
        return Config().replace(**changes)
    except EvidencedeskError as exc:
        raise ConfigError(candidate_file, f"candidate {name!r}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(candidate_file, f"candidate {name!r}: {exc}") from None


def _diff(cfg: Config) -> tuple[tuple[str, str, str], ...]:
    base = Config().to_dict()
    return tuple((k, str(base[k]), str(v)) for k, v in cfg.to_dict().items() if base.get(k) != v)


def _scored_builtin(name: str, run: Run) -> Scored:
    cfg = run.config
    caveat = None
    if cfg.first_stage == "dense" or name == "hybrid":
        caveat = "includes the toy dense searcher"
    if cfg.reranker != "none":
        caveat = "stand-in lexical reranker" + (
            " over the toy dense searcher" if cfg.first_stage != "sparse" else ""
        )
    description = BUILTIN_DESCRIPTIONS.get(name, cfg.label())
    return Scored(
        name,
        "builtin",
        description,
        caveat,
        run.judged,
        run.pairs_per_question,
        run.tokens_per_question,
    )


def _keep_pages(
    labels: Sequence[Label], scored: Sequence[Scored], candidates: Sequence[object], base: Scored
) -> set[str] | None:
    if len(labels) <= PAGE_LIMIT:
        return None
    keep = {
        j.id for j in base.judged if j.n_relevant > 0 and not any(g >= j.relevant for g in j.grades)
    }
    for c in candidates:
        keep |= set(c.flips.better) | set(c.flips.worse)  # type: ignore[attr-defined]
    return keep


def build_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    progress("load inputs")
    project = load_project(options.project or DEMO_PROJECT)
    seed = options.seed
    catalog = project.load_catalog()
    labels = project.load_labels(catalog)
    cands = load_candidates(project.candidates, project.notes) if project.candidates else []
    policy = load_policy(project.policy, labels) if project.policy else None
    saved = (
        load_baseline(project.baseline, labels)
        if project.baseline and project.baseline.is_file()
        else None
    )
    if project.kind == "runs":
        return runs_only_variants(
            project, options, catalog, labels, policy, progress, _meta, _dataset
        )
    if catalog is None:
        raise ConfigError(project.path, "expected documents for a pipeline project, found none")

    progress("benchmark")
    parts = Parts.build(catalog)
    results = benchmark_variants(parts, catalog, labels, seed)
    scored = [_scored_builtin(r.name, r.run) for r in results]
    scored += _external(project, options, catalog, labels, Config().final)
    base_run = next(r.run for r in results if r.name == BASELINE)
    base = next(s for s in scored if s.name == BASELINE)

    progress("sizing sweep")
    sizing_section = sizing(parts, catalog, labels, seed, COSTS)
    progress("ablations")
    ablation_section = ablations(parts, catalog, labels, COSTS)
    progress("citation cases")
    citation_section = citations(project.answers, catalog) if project.answers else None
    progress("evidence checks")
    update = (
        next(iter(sorted((project.root / "updates").glob("*.md"))), None)
        if (project.root / "updates").is_dir()
        else None
    )
    evidence_section = evidence(
        catalog, labels, base_run, project.dups, update, project.tenants, project.tenant_documents
    )

    progress("gate")
    proposals = []
    for cand in cands:
        cfg = _config_of(project.candidates, cand.name, cand.changes)
        run = run_config(cfg, parts, catalog, labels)
        gate = (
            retrieval_gate(policy, run, saved)
            if policy
            else GateResult(
                Verdict.REVIEW, ("review: no gate policy in this project; nothing was checked",)
            )
        )
        proposals.append(
            Proposal(
                name=cand.name,
                rationale=cand.rationale,
                scored=_scored_builtin(cand.name, run),
                diff=_diff(cfg),
                gate=gate,
                latency=(base_run.latency_ms(COSTS), run.latency_ms(COSTS)),
                note=cand.note,
            )
        )
    reviewed = review_candidates(base, proposals, seed)

    progress("site model")
    keep = _keep_pages(labels, scored, reviewed, base)
    pages = questions(labels, scored, BASELINE, catalog, keep)
    variants = variant_models(scored, DEMO_COLUMNS, seed)
    return SiteModel(
        meta=_meta(project, options, labels, BASELINE, skipped=project.skipped_stages()),
        dataset=_dataset(catalog, labels),
        variants=variants,
        benchmark=benchmark_rows(variants, scored),
        flip_matrix=flip_matrix(scored, BASELINE),
        slices=slice_tables(scored, (("mrr", "MRR"), ("recall@3", "recall@3"))),
        candidates=reviewed,
        questions=pages,
        sizing=sizing_section,
        ablations=ablation_section,
        citations=citation_section,
        evidence=evidence_section,
        omitted_questions=len(labels) - len(pages),
    )


def _meta(
    project: Project,
    options: BuildOptions,
    labels: Sequence[Label],
    baseline: str,
    skipped: Sequence[tuple[str, str]] = (),
    columns: Columns = DEMO_COLUMNS,
) -> Meta:
    inputs, digest = _inputs(project, options.runs)
    caveats = [Caveat(k, v) for k, v in CAVEATS.items()] if project.kind == "pipeline" else []
    caveats.insert(
        0,
        Caveat(
            "labels",
            f"{len(labels)} labelled questions ({sum(1 for lb in labels if lb.answerable)} answerable): a one- or two-question difference is noise.",
        ),
    )
    return Meta(
        title=f"evidencedesk report — {project.name}",
        project=project.name,
        seed=options.seed,
        version=evidencedesk.__version__,
        input_hash=digest,
        relevance=f"relevant = grade ≥ {project.relevance}",
        baseline=baseline,
        caveats=tuple(caveats),
        skipped=tuple(Skipped(stage, reason) for stage, reason in skipped),
        inputs=inputs,
        price_list=price_list(COSTS),
    )
