"""The build's one data flow: load -> run -> judge -> statistics -> the plain-data site model.

`build_model(options, progress)` is what ``python -m evidencedesk.report build`` calls. Pipeline
projects (a corpus we can index) run every stage; runs-only projects go through `runs_only`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from evidencedesk.baseline import load_baseline
from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.gate import load_policy
from evidencedesk.paths import require
from evidencedesk.project import DEMO_PROJECT, Project, load_project
from evidencedesk.report.assemble import Assembly, assemble
from evidencedesk.report.candidates import load_candidates
from evidencedesk.report.evidence_stage import evidence
from evidencedesk.report.model import BuildOptions, SiteModel
from evidencedesk.report.review import NO_POLICY, Proposal, review_candidates
from evidencedesk.report.runs_only import check_run_names, external_runs, runs_only
from evidencedesk.report.stages import ablations, citations, price_list, sizing
from evidencedesk.report.variants import DEMO_COLUMNS, Scored
from evidencedesk.retrieval.benchmark import VARIANTS, benchmark_variants
from evidencedesk.retrieval.catalog import Catalog, Scope, markdown_files
from evidencedesk.retrieval.evalreport import Config, Costs, Run, retrieval_gate, run_config
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.trec_judge import judge_trec_run
from evidencedesk.textfile import read_text

BASELINE = "hybrid"
BUILTIN_NAMES = tuple(name for name, _ in VARIANTS)  # no external run may take one of these
COSTS = Costs()
BUILTIN_DESCRIPTIONS = {
    "sparse": "BM25 over Unicode-aware tokens",
    "dense": "toy hashed embedder, cosine",
    "hybrid": "reciprocal-rank fusion of sparse and dense (the baseline, Config())",
}


def run_note(path: Path) -> str | None:
    """The first paragraph of ``<run>.md`` beside a run file: how the run was made."""
    note = path.with_suffix(".md")
    if not note.is_file():
        return None
    text = read_text(note, ConfigError, "Markdown note about the run")
    return " ".join(text.strip().split("\n\n", 1)[0].split()) or None


def _external(
    project: Project, options: BuildOptions, catalog: Catalog, labels: Sequence[Label], final: int
) -> list[Scored]:
    allowed = catalog.allowed(Scope())
    qrels = {lb.id: {c: g for c, g in lb.grades.items() if c in allowed} for lb in labels}
    scored = []
    sidecars = {name: about for name, path in project.runs if (about := run_note(path))}
    for name, run in external_runs(project, options, BUILTIN_NAMES).items():
        judged = judge_trec_run(run, qrels, labels, k=final, relevant=project.relevance)
        tokens = sum(
            context_tokens([catalog.get(i) for i in j.ids if i in catalog]) for j in judged
        )
        description = f"external TREC run (tag {run.tag!r}), cut to the top {final} like the built-in variants"
        if name in sidecars:
            description = f"{sidecars[name]} — {description}"
        scored.append(
            Scored(
                name,
                "external",
                description,
                None,
                tuple(judged),
                0.0,
                tokens / max(len(judged), 1),
            )
        )
    return scored


def _config_of(candidate_file: Path | None, name: str, changes: dict[str, object]) -> Config:
    try:
        return Config().replace(**changes)
    except (EvidencedeskError, TypeError, ValueError) as exc:
        raise ConfigError(candidate_file, f"candidate {name!r}: {exc}") from None


def _diff(cfg: Config) -> tuple[tuple[str, str, str], ...]:
    base = Config().to_dict()
    return tuple((k, str(base[k]), str(v)) for k, v in cfg.to_dict().items() if base.get(k) != v)


def _scored_builtin(name: str, run: Run) -> Scored:
    cfg = run.config
    caveat = "includes the toy dense searcher" if cfg.first_stage in ("dense", "hybrid") else None
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


def _update_file(project: Project) -> Path | None:
    folder = project.updates
    return markdown_files(folder)[0] if folder is not None else None


def build_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    progress("load inputs")
    project = load_project(options.project or require(DEMO_PROJECT, "the demo project"))
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
    if project.kind == "runs" or catalog is None:
        check_run_names(project, options)
        return assemble(runs_only(project, options, catalog, labels, policy, saved, progress))
    check_run_names(project, options, BUILTIN_NAMES)  # before the slow stages, not after

    progress("benchmark")
    parts = Parts.build(catalog)
    results = benchmark_variants(parts, catalog, labels, seed)
    scored = [_scored_builtin(r.name, r.run) for r in results]
    scored += _external(project, options, catalog, labels, Config().final)
    base_run = next(r.run for r in results if r.name == BASELINE)

    progress("sizing sweep")
    sizing_section = sizing(parts, catalog, labels, seed, COSTS)
    progress("ablations")
    ablation_section = ablations(parts, catalog, labels, COSTS)
    progress("citation cases")
    citation_section = citations(project.answers, catalog) if project.answers else None
    progress("evidence checks")
    evidence_section = evidence(
        catalog,
        labels,
        base_run,
        parts.first("hybrid"),
        project.dups,
        _update_file(project),
        project.tenants,
        project.tenant_documents,
    )

    progress("gate")
    proposals = []
    already_run = {r.config: r.run for r in results}  # runs are deterministic: reuse, not redo
    for cand in cands:
        cfg = _config_of(project.candidates, cand.name, cand.changes)
        run = already_run.get(cfg) or run_config(cfg, parts, catalog, labels)
        proposals.append(
            Proposal(
                name=cand.name,
                rationale=cand.rationale,
                scored=_scored_builtin(cand.name, run),
                diff=_diff(cfg),
                gate=retrieval_gate(policy, run, saved) if policy else NO_POLICY,
                latency=(base_run.latency_ms(COSTS), run.latency_ms(COSTS)),
                note=cand.note,
            )
        )
    base = next(s for s in scored if s.name == BASELINE)
    reviewed = review_candidates(base, proposals, seed)

    progress("site model")
    return assemble(
        Assembly(
            project,
            options,
            catalog,
            labels,
            scored,
            BASELINE,
            reviewed,
            DEMO_COLUMNS,
            price_list(COSTS),
        ),
        sizing=sizing_section,
        ablations=ablation_section,
        citations=citation_section,
        evidence=evidence_section,
    )
