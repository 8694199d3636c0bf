"""The evaluation: Settings + inputs -> Results, every statistic computed once.

Pipeline projects (a corpus we can index) run, in this order and each announced through
`progress`: benchmark, sizing sweep, ablations, citation cases, evidence checks, gate. Runs-only
projects judge their TREC runs and run the gate. The stages a project cannot run, and why, are
listed by `Project.skipped_stages` (the site shows that list).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from evidencedesk import paths
from evidencedesk.baseline import Baseline, load_baseline
from evidencedesk.candidates import load_candidates, read_note
from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.gate import GatePolicy, load_policy
from evidencedesk.gate_input import Reference
from evidencedesk.project import Project
from evidencedesk.results import compute, stages
from evidencedesk.results.compute import Book
from evidencedesk.results.exposure import exposure
from evidencedesk.results.gate_stage import gate_outcome, policy_facts
from evidencedesk.results.inputs import (
    RunPaths,
    check_run_names,
    chunk_facts,
    documents,
    external_runs,
    input_hashes,
    questions,
    run_note,
)
from evidencedesk.results.rows import Ablations, CitationRow, Costs, EvidenceResult, SizingRow
from evidencedesk.results.settings import Settings, settings_for
from evidencedesk.results.types import (
    SCHEMA_VERSION,
    SHOWN,
    CandidateResult,
    ConfigChange,
    Inputs,
    Results,
    Skipped,
    VariantResult,
)
from evidencedesk.results.verdicts import judge
from evidencedesk.retrieval.benchmark import VARIANTS
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Run, run_config
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.stats import flips_needed
from evidencedesk.retrieval.trec_judge import judge_trec_run
from evidencedesk.version import __version__

BASELINE = "hybrid"
BUILTIN_NAMES = tuple(name for name, _ in VARIANTS)  # no external run may take one of these
BUILTIN_DESCRIPTIONS = {
    "sparse": "BM25 over Unicode-aware tokens",
    "dense": "toy hashed embedder, cosine",
    "hybrid": "reciprocal-rank fusion of sparse and dense (the baseline, Config())",
}
Progress = Callable[[str], None]


def _inputs(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    settings: Settings, variants: Sequence[VariantResult],
) -> Inputs:  # fmt: skip
    files, digest = input_hashes(project, runs)
    allowed = catalog.allowed(Scope()) if catalog is not None else None
    ids = {c for lb in labels for c, g in lb.grades.items() if g > 0}
    ids |= {c for v in variants for r in v.lists for c in r.ids[:SHOWN]}
    return Inputs(
        project=project.name,
        files=files,
        input_hash=digest,
        skipped=tuple(Skipped(s, r) for s, r in project.skipped_stages()),
        documents=documents(catalog),
        chunks=len(catalog) if catalog is not None else 0,
        questions=questions(labels, allowed),
        chunk_facts=chunk_facts(catalog, ids, settings.restricted_text == "hide"),
        command=_command(project, runs, settings.seed),
        demo=_is_demo(project),
    )


def _is_demo(project: Project) -> bool:
    return Path(project.path).resolve() == (paths.DATA / "evidencedesk.toml").resolve()


def _command(project: Project, runs: RunPaths, seed: int) -> tuple[str, ...]:
    """The same build's arguments: --project (the project folder, as run from its parent; none
    for the demo), --seed, and each --run by its file name (machine paths stay out of the site)."""
    args: list[str] = []
    if not _is_demo(project):
        args += ["--project", Path(project.path).parent.name]
    args += ["--seed", str(seed)]
    for name, path in runs:
        args += ["--run", f"{name}={Path(path).name}"]
    return tuple(args)


def _config_of(candidate_file: Path | None, name: str, changes: dict[str, object]) -> Config:
    try:
        return Config().replace(**changes)
    except (EvidencedeskError, TypeError, ValueError) as exc:
        raise ConfigError(candidate_file, f"candidate {name!r}: {exc}") from None


def _diff(cfg: Config) -> tuple[ConfigChange, ...]:
    base = Config().to_dict()
    return tuple(
        ConfigChange(k, str(base[k]), str(v)) for k, v in cfg.to_dict().items() if base.get(k) != v
    )


def _run_costs(run: Run, settings: Settings) -> Costs:
    design = settings.design
    latency = None
    if design is not None:
        latency = design.stage_one_ms + design.per_pair_ms * run.pairs_per_question
    return Costs(run.pairs_per_question, run.tokens_per_question, latency)


def _answerable(judged: Sequence[Judged]) -> int:
    return sum(1 for j in judged if j.n_relevant > 0)


def _results(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    settings: Settings, variants: Sequence[VariantResult], baseline: str,
    base_judged: Sequence[Judged], candidates: Sequence[CandidateResult],
    policy: GatePolicy | None, sizing: tuple[SizingRow, ...] | None = None,
    ablations: Ablations | None = None, citations: tuple[CitationRow, ...] | None = None,
    evidence: EvidenceResult | None = None,
) -> Results:  # fmt: skip
    """The Results of either kind of project (the pipeline's sections are None for runs-only)."""
    answerable = _answerable(base_judged)
    return Results(
        schema_version=SCHEMA_VERSION,
        version=__version__,
        settings=settings,
        inputs=_inputs(project, runs, catalog, labels, settings, variants),
        baseline=baseline,
        variants=tuple(variants),
        flips=compute.flips(variants, settings.flips_metric),
        flips_needed=flips_needed(answerable),
        answerable=answerable,
        candidates=tuple(candidates),
        sizing=sizing,
        ablations=ablations,
        citations=citations,
        evidence=evidence,
        policy=policy_facts(policy),
    )


def evaluate(project: Project, seed: int, runs: RunPaths, progress: Progress) -> Results:
    """Every number of the report, computed once."""
    settings = settings_for(project, seed)
    progress("load inputs")
    catalog = project.load_catalog()
    labels = project.load_labels(catalog)
    cands = load_candidates(project.candidates, project.notes) if project.candidates else []
    policy = load_policy(project.policy, labels) if project.policy else None
    saved = (
        load_baseline(project.baseline, labels)
        if project.baseline and project.baseline.is_file()
        else None
    )
    if settings.kind == "runs" or catalog is None:
        check_run_names(project, runs)
        return _runs_only(project, runs, catalog, labels, policy, saved, settings, progress)
    check_run_names(project, runs, BUILTIN_NAMES)  # before the slow stages, not after
    book = Book(settings.seed)
    design = settings.design
    assert design is not None  # noqa: S101 - settings_for gives pipeline projects a design

    progress("benchmark")
    parts = Parts.build(catalog)
    built = {name: run_config(cfg, parts, catalog, labels) for name, cfg in VARIANTS}
    variants = [
        compute.variant_result(
            run.config, name, "builtin", BUILTIN_DESCRIPTIONS.get(name, run.config.label()),
            run.config.to_dict(), run.judged, _run_costs(run, settings), settings, book,
        )
        for name, run in built.items()
    ]  # fmt: skip
    final = Config().final
    allowed = catalog.allowed(Scope())
    qrels = {lb.id: {c: g for c, g in lb.grades.items() if c in allowed} for lb in labels}
    for name, trec in external_runs(project, runs, BUILTIN_NAMES).items():
        judged = judge_trec_run(trec, qrels, labels, k=final, relevant=project.relevance)
        tokens = sum(
            context_tokens([catalog.get(i) for i in j.ids if i in catalog]) for j in judged
        )
        description = f"external TREC run (tag {trec.tag!r}), cut to the top {final} like the built-in variants"
        note = next((n for rn, p in project.runs if rn == name and (n := run_note(p))), None)
        if note:
            description = f"{note} — {description}"
        costs = Costs(None, tokens / max(len(judged), 1), None)
        variants.append(
            compute.variant_result(("run", name), name, "external", description, None, judged,
                                   costs, settings, book)
        )  # fmt: skip
    base_run = built[BASELINE]

    progress("sizing sweep")
    sizing = stages.sizing(parts, catalog, labels, settings, book)
    progress("ablations")
    ablations = stages.ablations(parts, catalog, labels, settings)
    progress("citation cases")
    citations = stages.citations(project.answers, catalog) if project.answers else None
    progress("evidence checks")
    evidence = stages.evidence_rows(project, catalog, labels, base_run, parts)

    progress("gate")
    critical = policy.critical if policy is not None else ()
    already_run = {r.config: r for r in built.values()}  # runs are deterministic: reuse, not redo
    # a saved baseline file is the gate's baseline; without one, the baseline run is
    reference, ref_name = None, _saved_name(project)
    if saved is not None:
        reference = saved.reference()
    elif policy is not None:
        reference = Reference.of_run(base_run, policy.k)
        ref_name = f"the baseline run {BASELINE}"
    cand_runs: dict[str, Run] = {}
    configs = {}
    for cand in cands:
        cfg = _config_of(project.candidates, cand.name, cand.changes)
        configs[cand.name] = cfg
        cand_runs[cand.name] = already_run.get(cfg) or run_config(cfg, parts, catalog, labels)
    base = variants[[n for n, _ in VARIANTS].index(BASELINE)]
    compared = compute.comparisons(
        base,
        base_run.judged,
        {n: (r.config, r.judged) for n, r in cand_runs.items()},
        settings.metrics,
        book,
    )
    candidates = []
    for cand in cands:
        run = cand_runs[cand.name]
        own, comparisons = compared[cand.name]
        candidates.append(
            CandidateResult(
                name=cand.name,
                rationale=cand.rationale,
                diff=_diff(configs[cand.name]),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(run.judged, settings.slices[:1]),
                costs=_run_costs(run, settings),
                gate=(
                    gate := gate_outcome(policy, run.judged, run.config.final, reference, ref_name)
                ),
                note=cand.note,
                decision=judge(comparisons, settings.flips_metric, gate.verdict, critical),
                exposure=(
                    None
                    if run.config.prefilter
                    else exposure(parts, run.config.first_stage, run.config.depth, labels)
                ),
            )
        )
    return _results(
        project, runs, catalog, labels, settings, variants, BASELINE, base_run.judged,
        candidates, policy, sizing=sizing, ablations=ablations, citations=citations,
        evidence=evidence,
    )  # fmt: skip


def _saved_name(project: Project) -> str | None:
    """The saved baseline file's name, when the project has one."""
    if project.baseline and project.baseline.is_file():
        return f"the saved baseline {project.baseline.name}"
    return None


def _runs_only(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    policy: GatePolicy | None, saved: Baseline | None, settings: Settings, progress: Progress,
) -> Results:  # fmt: skip
    """Every TREC run is a variant, judged at its full depth; each is a candidate against the
    project's baseline run. The gate reads each run's top k (the policy's, else 10)."""
    progress("benchmark")
    book = Book(settings.seed)
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    trecs = external_runs(project, runs)
    judged_runs = {
        name: tuple(judge_trec_run(trec, qrels, labels, relevant=project.relevance))
        for name, trec in trecs.items()
    }
    none = Costs(None, None, None)
    variants = [
        compute.variant_result(("run", name), name, "external",
                               f"TREC run (tag {trecs[name].tag!r}), judged at its full depth",
                               None, judged, none, settings, book, keep=SHOWN)
        for name, judged in judged_runs.items()  # keep: the user's run files hold the rest
    ]  # fmt: skip
    baseline = project.baseline_run or variants[0].name
    base = next(v for v in variants if v.name == baseline)
    progress("gate")
    critical = policy.critical if policy is not None else ()
    k = policy.k if policy is not None else 10
    others = {n: j for n, j in judged_runs.items() if n != baseline}
    compared = compute.comparisons(
        base,
        judged_runs[baseline],
        {n: (("run", n), j) for n, j in others.items()},
        settings.metrics,
        book,
    )

    def top_k(judged: Sequence[Judged]) -> tuple[Judged, ...]:
        return tuple(
            Judged(j.id, j.tags, j.answerable, j.grades[:k], j.pool, j.ids[:k], j.relevant)
            for j in judged
        )

    # the baseline run is the gate's baseline unless a saved baseline file is given
    if saved is not None:
        reference, ref_name = saved.reference(), _saved_name(project)
    else:
        base_cut = top_k(judged_runs[baseline])
        reference = Reference.of_judged(base_cut, max(k, 1), k, {"run": baseline})
        ref_name = f"the baseline run {baseline}"
    candidates = []
    for name, judged in others.items():
        own, comparisons = compared[name]
        cut = top_k(judged)
        candidates.append(
            CandidateResult(
                name=name,
                rationale=f"the run {name!r} in place of the baseline run {baseline!r}",
                diff=(ConfigChange("run", baseline, name),),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(judged, settings.slices[:1]),
                costs=none,
                gate=(gate := gate_outcome(policy, cut, max(k, 1), reference, ref_name)),
                note=read_note(project.notes, name),
                decision=judge(comparisons, settings.flips_metric, gate.verdict, critical),
            )
        )
    return _results(
        project, runs, catalog, labels, settings, variants, baseline, judged_runs[baseline],
        candidates, policy,
    )  # fmt: skip
