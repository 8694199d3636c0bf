"""Runs-only projects: every TREC run is a variant and each non-baseline run a candidate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from evidencedesk.baseline import Baseline
from evidencedesk.files.trec import TrecRun
from evidencedesk.gate import GatePolicy, Reference, cut
from evidencedesk.metric_names import reads_whole_list
from evidencedesk.results import compute
from evidencedesk.results.candidates import read_note
from evidencedesk.results.compute import (
    Book,
    Hashing,
    condensed_comparisons,
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
    baseline_run,
    judged_depth,
    judged_external_runs,
)
from evidencedesk.results.plan import RUNS_ONLY_DEPTH, trim
from evidencedesk.results.progress import COMPARED, Progress, Tally
from evidencedesk.results.settings import Settings
from evidencedesk.results.types import (
    SHOWN,
    CandidateResult,
    Comparison,
    ConfigChange,
    Results,
    RunCosts,
)
from evidencedesk.results.verdicts import decide_verdict
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.coverage import (
    Coverage,
    check_coverage,
    check_judged_shares,
    unjudged_top,
)
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.trec_judge import judge_trec_run_condensed


def saved_name(project: Project) -> str | None:
    """The saved baseline file's name, when the project has one."""
    if project.baseline and project.baseline.is_file():
        return f"the saved baseline {project.baseline.name}"
    return None


def runs_only(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    policy: GatePolicy | None, saved: Baseline | None, settings: Settings, progress: Progress,
) -> tuple[Results, dict[str, Sequence[Judged]]]:  # fmt: skip
    """Every TREC run is a variant, judged at its full depth (or `Settings.max_depth`, as
    ``trec_eval -M``); each is a candidate against the project's baseline run. A run is checked
    against the judgments before it is judged (`coverage.check_coverage`). The gate reads each
    run's top k (the policy's, else 10). Returns the Results and each run's judged lists."""
    hashes = Hashing(project, runs)  # gigabytes of runs: hashed while they are read and judged
    progress("benchmark")
    book = Book(settings.seed, settings.averaging)
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    k = policy.k if policy is not None else RUNS_ONLY_DEPTH
    names = [m.name for m in (*settings.metrics, *settings.slices)]
    depth = judged_depth(names, k, settings.judged_k)
    graded = reads_whole_list(names)  # AP, R-prec, nDCG, bpref: through the last graded result
    tally = Tally(progress, (len(project.runs) + len(runs)) * len(labels))

    def judge_run(trec: TrecRun) -> tuple[Sequence[Judged], Sequence[Judged] | None]:
        # counted run by run: one vector pass each; the condensed lists ride along
        judged = judge_trec_run_condensed(trec, qrels, labels, settings.max_depth,
                                          project.relevance, depth, graded)  # fmt: skip
        tally.add(len(labels))
        return judged

    corpus = frozenset(catalog.ids()) if catalog is not None else None
    unjudged: dict[str, tuple[Path, Coverage, list[str]]] = {}

    def check(trec: TrecRun, path: Path) -> Coverage:
        found = check_coverage(trec, qrels, settings.judged_k, path,
                               min_coverage=settings.min_coverage, corpus=corpus)  # fmt: skip
        unjudged[str(path)] = (path, found, unjudged_top(trec, qrels, settings.judged_k))
        return found

    read = judged_external_runs(project, runs, judge_run, check, hashes.held)
    if corpus is None:
        check_judged_shares(unjudged, qrels)
    none = RunCosts(None, None, None)
    variants = [
        replace(
            compute.variant_result(("run", name), name, "external",
                                   f"TREC run (tag {run.tag!r}), judged at its full depth",
                                   None, run.judged, none, settings, book, keep=SHOWN),
            coverage=run.coverage,
            judged=judged_stat(book, ("run", name), run.judged, settings.judged_k),
        )
        for name, run in read.items()  # keep: the user's run files hold the rest
    ]  # fmt: skip
    baseline = baseline_run(project, runs)
    base = next(v for v in variants if v.name == baseline)
    progress("gate")
    critical = policy.critical if policy is not None else ()
    others = {n: r for n, r in read.items() if n != baseline}
    base_run = read[baseline]
    compared = compute.comparisons(
        base.metrics,
        base_run.judged,
        Tally(progress, len(others), COMPARED).counting(
            {n: (("run", n), r.judged) for n, r in others.items()}
        ),
        settings.metrics,
        book,
    )
    primary = settings.compared[0]
    condensed: dict[str, tuple[Comparison, bool]] = {}
    runs_condensed = {n: r.condensed for n, r in others.items() if r.condensed is not None}
    if base_run.condensed is not None and not fully_judged(base_run.judged, *(
        r.judged for r in others.values()
    )):  # fmt: skip
        condensed = condensed_comparisons(
            base_run.condensed, runs_condensed, primary, book,
            {n: compared[n][1] for n in others},
        )  # fmt: skip

    # the baseline run is the gate's baseline unless a saved baseline file is given
    if saved is not None:
        reference, ref_name = saved.reference(), saved_name(project)
    else:
        base_cut = cut(base_run.judged, k)
        reference = Reference.of_judged(base_cut, max(k, 1), k, baseline)
        ref_name = f"the baseline run {baseline}"
    candidates = []
    family = len(others)  # the candidates Holm adjusts over
    for name, run in others.items():
        own, comparisons = compared[name]
        top = cut(run.judged, k)
        cond = condensed.get(name)
        candidates.append(
            CandidateResult(
                name=name,
                rationale=f"the run {name!r} in place of the baseline run {baseline!r}",
                diff=(ConfigChange("run", baseline, name),),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(run.judged, settings.slices[:1]),
                costs=none,
                gate=gate_outcome(policy, top, max(k, 1), reference, ref_name),
                note=read_note(project.notes, name),
                decision=decide_verdict(
                    comparisons, [m.name for m in settings.compared], critical, family
                ),
                lists_of=name,  # the run is a variant: its lists are stored there, once
                judged=judged_share(
                    base_run.judged, run.judged, settings.judged_k, settings.seed
                ),  # fmt: skip
                condensed=None if cond is None else cond[0],
                condensed_agrees=None if cond is None else cond[1],
            )
        )
    rows, total = to_label(base_run.judged, {n: r.judged for n, r in others.items()}, baseline,
                           settings.judged_k, corpus=corpus)  # fmt: skip
    # above the page limit the ranked ids stay only for the questions that get a page: the runs
    # are the user's own files (never exported), every value stays for the list and the CSV
    results = trim(results_of(
        project, runs, catalog, labels, settings, variants, baseline, base_run.judged,
        candidates, policy, hashes=hashes, to_label=(rows, total),
    ))  # fmt: skip
    return results, {name: run.judged for name, run in read.items()}
