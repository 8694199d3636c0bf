"""The evaluation: Settings + inputs -> Results, every statistic computed once.

Pipeline projects (a corpus we can index) run, in this order and each announced through
`progress`: benchmark, sizing sweep, ablations, citation cases, evidence checks, gate. Runs-only
projects judge their TREC runs and run the gate. The stages a project cannot run, and why, are
listed by `Project.skipped_stages` (the site shows that list).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from evidencedesk.baseline import load_baseline
from evidencedesk.errors import MissingExtraError
from evidencedesk.files.project_file import ProjectKind
from evidencedesk.gate import Reference, load_policy
from evidencedesk.results import compute, stages
from evidencedesk.results.candidates import CandidateChange, load_candidates
from evidencedesk.results.compute import (
    Book,
    condensed_comparisons,
    condensed_lists,
    fully_judged,
    judged_share,
    judged_stat,
    results_of,
    to_label,
)
from evidencedesk.results.gate_stage import gate_outcome
from evidencedesk.results.inputs import (
    Project,
    RunPaths,
    check_run_names,
    exposure,
    external_runs,
    run_note,
)
from evidencedesk.results.progress import COMPARED, Progress, Tally
from evidencedesk.results.runs_only import runs_only, saved_name
from evidencedesk.results.settings import Settings, settings_for
from evidencedesk.results.types import (
    SHOWN,
    CandidateResult,
    Comparison,
    ConfigChange,
    ModelFacts,
    NotRun,
    Results,
    RunCosts,
)
from evidencedesk.results.verdicts import decide_verdict
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval.benchmark import VARIANTS
from evidencedesk.retrieval.caches import forget_all
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.coverage import check_coverage
from evidencedesk.retrieval.evalreport import Config, Run, run_config, sizing_grid
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.parts import Parts, uses_minilm
from evidencedesk.retrieval.trec_judge import judge_trec_run

_BASELINE = "hybrid"  # the built-in variant the candidates and the others are compared with
_BUILTIN_NAMES = tuple(name for name, _ in VARIANTS)  # no external run may take one of these
# the benchmark page's description of each built-in variant
_BUILTIN_DESCRIPTIONS = {
    "sparse": "BM25 over Unicode-aware tokens",
    "dense": "toy hashed embedder, cosine",
    "hybrid": "reciprocal-rank fusion of sparse and dense (the baseline, Config())",
}
# [searchers] dense = "minilm": the dense variant is the real model
_MINILM_DESCRIPTIONS = _BUILTIN_DESCRIPTIONS | {"dense": f"{minilm.DESCRIPTION}; cosine"}


def _diff(cfg: Config) -> tuple[ConfigChange, ...]:
    base = Config().to_dict()
    return tuple(
        ConfigChange(k, str(base[k]), str(v)) for k, v in cfg.to_dict().items() if base.get(k) != v
    )


def _run_costs(run: Run, settings: Settings) -> RunCosts:
    design = settings.design
    latency = None
    if design is not None:
        latency = design.stage_one_ms + design.per_pair_ms * run.pairs_per_question
    return RunCosts(run.pairs_per_question, run.tokens_per_question, latency)


def _same_variant(run: Run, built: dict[str, Run]) -> str | None:
    """The built-in variant that is this candidate's run (its lists are stored there, once)."""
    return next((name for name, r in built.items() if r is run), None)


@dataclass(frozen=True)
class Evaluation:
    """The Results and what the benchmark command's gate reads beside them: each variant's
    judged lists, and for a pipeline each built-in variant's run (a saved baseline holds one)."""

    results: Results
    judged: Mapping[str, Sequence[Judged]]
    runs: Mapping[str, Run]
    labels: Sequence[Label]


def evaluate(project: Project, seed: int, runs: RunPaths, progress: Progress) -> Results:
    """Every number of the report, computed once."""
    return evaluation(project, seed, runs, progress).results


def evaluation(
    project: Project, seed: int, runs: RunPaths, progress: Progress, benchmark_only: bool = False
) -> Evaluation:
    """`evaluate`'s Results with the judged lists behind them; `benchmark_only`: a pipeline
    project's benchmark stage alone (the variants and their flips, no sizing, ablations,
    citations, evidence or candidates: what ``evidencedesk benchmark`` prints), the same
    numbers the full build gives those variants."""
    try:
        return _evaluate(project, seed, runs, progress, benchmark_only)
    finally:  # the memos of this evaluation, not of the process
        forget_all()


def _evaluate(
    project: Project, seed: int, runs: RunPaths, progress: Progress, benchmark_only: bool
) -> Evaluation:
    settings = settings_for(project, seed)
    progress("load inputs")
    catalog = project.load_catalog()
    labels = project.load_labels(catalog)
    cands = load_candidates(project.candidates, project.notes) if project.candidates else []
    policy = load_policy(project.policy, labels) if project.policy else None
    kind: ProjectKind = "runs" if settings.kind == "runs" or catalog is None else "pipeline"
    saved = (
        load_baseline(project.baseline, labels, kind)  # the baseline of this kind of project
        if project.baseline and project.baseline.is_file()
        else None
    )
    if settings.kind == "runs" or catalog is None:
        check_run_names(project, runs)
        results, lists = runs_only(project, runs, catalog, labels, policy, saved, settings,
                                   progress)  # fmt: skip
        return Evaluation(results, lists, {}, labels)
    check_run_names(project, runs, _BUILTIN_NAMES)  # before the slow stages, not after
    book = Book(settings.seed, settings.averaging)
    design = settings.design
    assert design is not None  # noqa: S101 - settings_for gives pipeline projects a design

    progress("benchmark")
    # minilm without its extra: one line, exit 2; a candidate searching with MiniLM has its
    # chunks embedded meanwhile, beside the stages before it (the benchmark alone runs none)
    warm = not benchmark_only and any(c.config.first_stage == "minilm" for c in cands)
    parts = Parts.build(catalog, dense=project.dense, warm=warm)
    descriptions = _MINILM_DESCRIPTIONS if project.dense == "minilm" else _BUILTIN_DESCRIPTIONS
    trecs = external_runs(project, runs, _BUILTIN_NAMES)
    tally = Tally(progress, (len(VARIANTS) + len(trecs)) * len(labels))
    asked = tally.asking(labels)
    built = {name: run_config(cfg, parts, catalog, asked) for name, cfg in VARIANTS}
    k = settings.judged_k
    variants = [
        replace(
            compute.variant_result(
                run.config, name, "builtin", descriptions.get(name, run.config.label()),
                run.config.to_dict(), run.judged, _run_costs(run, settings), settings, book,
            ),
            judged=judged_stat(book, run.config, run.judged, k),
        )
        for name, run in built.items()
    ]  # fmt: skip
    final = Config().final
    allowed = catalog.allowed(Scope())
    qrels = {lb.id: {c: g for c, g in lb.grades.items() if c in allowed} for lb in labels}
    # a labels file grades every chunk (a missing grade is 0): every catalog chunk is judged
    complete = frozenset(catalog.ids()) if project.labels is not None else None
    external: dict[str, Sequence[Judged]] = {}
    for name, trec in trecs.items():
        path = dict((*project.runs, *runs))[name]
        found = check_coverage(trec, qrels, k, path, complete, min_coverage=settings.min_coverage,
                               corpus=catalog.ids())  # fmt: skip
        judged = judge_trec_run(trec, qrels, labels, k=final, relevant=project.relevance,
                                complete=complete)  # fmt: skip
        external[name] = judged
        tally.add(len(labels))
        tokens = sum(
            context_tokens([catalog.get(i) for i in j.ids if i in catalog]) for j in judged
        )
        description = f"external TREC run (tag {trec.tag!r}), cut to the top {final} like the built-in variants"
        note = next((n for rn, p in project.runs if rn == name and (n := run_note(p))), None)
        if note:
            description = f"{note} — {description}"
        costs = RunCosts(None, tokens / max(len(judged), 1), None)
        variants.append(replace(
            compute.variant_result(("run", name), name, "external", description, None, judged,
                                   costs, settings, book),
            coverage=found, judged=judged_stat(book, ("run", name), judged, k),
        ))  # fmt: skip
    base_run = built[_BASELINE]
    judged_by_name: dict[str, Sequence[Judged]] = {n: r.judged for n, r in built.items()}
    judged_by_name.update(external)
    if benchmark_only:
        results = results_of(project, runs, catalog, labels, settings, variants, _BASELINE,
                             base_run.judged, (), policy,
                             models=_models(built.values(), project.dense, catalog, labels))  # fmt: skip
        return Evaluation(results, judged_by_name, built, labels)

    progress("sizing sweep")
    cells = len(sizing_grid(design.sizing_depths, design.sizing_finals)[0])
    asked = Tally(progress, cells * len(labels)).asking(labels)  # one run per depth x final
    sizing = stages.sizing(parts, catalog, asked, settings, book)
    progress("ablations")
    asked = Tally(progress, (1 + len(design.ablation_changes)) * len(labels)).asking(labels)
    ablations = stages.ablations(parts, catalog, asked, settings)
    progress("citation cases")
    citations = stages.citations(project.answers, catalog) if project.answers else None
    progress("evidence checks")
    evidence = stages.evidence_rows(project, catalog, labels, base_run, parts)

    progress("gate")
    critical = policy.critical if policy is not None else ()
    already_run = {r.config: r for r in built.values()}  # runs are deterministic: reuse, not redo
    # a saved baseline file is the gate's baseline; without one, the baseline run is
    reference, ref_name = None, saved_name(project)
    if saved is not None:
        reference = saved.reference()
    elif policy is not None:
        reference = Reference.of_run(base_run, policy.k)
        ref_name = f"the baseline run {_BASELINE}"
    cand_runs: dict[str, Run] = {}
    configs = {c.name: c.config for c in cands}
    not_run = _not_run(cands, configs, project.dense)
    cands = [c for c in cands if c.name not in {n.name for n in not_run}]
    new = sum(cfg not in already_run for cfg in configs.values())
    asked = Tally(progress, new * len(labels)).asking(labels)
    for cand in cands:
        cfg = configs[cand.name]
        cand_runs[cand.name] = already_run.get(cfg) or run_config(cfg, parts, catalog, asked)
    base = variants[[n for n, _ in VARIANTS].index(_BASELINE)]
    compared = compute.comparisons(
        base.metrics,
        base_run.judged,
        Tally(progress, len(cand_runs), COMPARED).counting(
            {n: (r.config, r.judged) for n, r in cand_runs.items()}
        ),
        settings.metrics,
        book,
    )
    primary = settings.compared[0]
    condensed: dict[str, tuple[Comparison, bool]] = {}
    if not fully_judged(base_run.judged, *(r.judged for r in cand_runs.values())):
        condensed = condensed_comparisons(
            condensed_lists(base_run.judged),
            {n: condensed_lists(r.judged) for n, r in cand_runs.items()},
            primary, book, {n: compared[n][1] for n in cand_runs},
        )  # fmt: skip
    candidates = []
    family = len(cands)  # the candidates Holm adjusts over
    for cand in cands:
        run = cand_runs[cand.name]
        own, comparisons = compared[cand.name]
        cond = condensed.get(cand.name)
        candidates.append(
            CandidateResult(
                name=cand.name,
                rationale=cand.rationale,
                diff=_diff(configs[cand.name]),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(run.judged, settings.slices[:1]),
                costs=_run_costs(run, settings),
                gate=gate_outcome(policy, run.judged, run.config.final, reference, ref_name),
                note=cand.note,
                decision=decide_verdict(
                    comparisons, [m.name for m in settings.compared], critical, family
                ),
                exposure=(
                    None
                    if run.config.prefilter
                    else exposure(parts, run.config.first_stage, run.config.depth, labels)
                ),
                lists=()
                if _same_variant(run, built)
                else compute.ranked_lists(run.judged, settings.metrics, SHOWN),
                lists_of=_same_variant(run, built),
                judged=judged_share(base_run.judged, run.judged, k, settings.seed),
                condensed=None if cond is None else cond[0],
                condensed_agrees=None if cond is None else cond[1],
            )
        )
    rows, total = to_label(base_run.judged, {n: r.judged for n, r in cand_runs.items()},
                           _BASELINE, k)  # fmt: skip
    models = _models([*built.values(), *cand_runs.values()], project.dense, catalog, labels)
    results = results_of(
        project, runs, catalog, labels, settings, variants, _BASELINE, base_run.judged,
        candidates, policy, sizing=sizing, ablations=ablations, citations=citations,
        evidence=evidence, to_label=(rows, total), not_run=not_run, models=models,
    )  # fmt: skip
    return Evaluation(results, judged_by_name, built, labels)


def _models(
    ran: Iterable[Run], dense: str, catalog: Catalog, labels: Sequence[Label]
) -> tuple[ModelFacts, ...]:
    """The real models the runs used (the methods page states their facts), each with the
    warning when the texts are not in the language it was trained for."""
    if any(uses_minilm(r.config, dense) for r in ran):
        return (ModelFacts(minilm.NAME, minilm.facts(), _language(catalog, labels)),)
    return ()


def _language(catalog: Catalog, labels: Sequence[Label]) -> str | None:
    """MiniLM's `minilm.language_warning` on the project's chunks and questions."""
    documents = (f"{c.title}\n{c.text}" for c in catalog.chunks)
    return minilm.language_warning(documents, (lab.question for lab in labels))


def model_warnings(
    project: Project, catalog: Catalog | None, labels: Sequence[Label],
    candidates: Sequence[CandidateChange],
) -> tuple[str, ...]:  # fmt: skip
    """What `validate` warns about the models a build of this project would run: MiniLM (as the
    dense searcher, or in a candidate) on texts mostly in another script than its language's."""
    uses = project.dense == "minilm" or any(uses_minilm(c.config, project.dense)
                                            for c in candidates)  # fmt: skip
    warning = _language(catalog, labels) if uses and catalog is not None else None
    return () if warning is None else (warning,)


def _not_run(
    cands: list[CandidateChange], configs: dict[str, Config], dense: str
) -> tuple[NotRun, ...]:
    """The candidates that name the MiniLM model on a machine without its extra: each is shown
    with one line saying what to install, and nothing else of it is computed."""
    lacking = minilm.missing_packages()
    if not lacking:
        return ()
    reason = MissingExtraError(minilm.NAME, minilm.EXTRA, lacking).not_run()
    return tuple(
        NotRun(c.name, c.rationale, _diff(configs[c.name]), reason, c.note)
        for c in cands
        if uses_minilm(configs[c.name], dense)
    )
