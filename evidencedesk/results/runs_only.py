"""Runs-only projects: every TREC run is a variant and each non-baseline run a candidate."""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.baseline import Baseline
from evidencedesk.candidates import read_note
from evidencedesk.gate import GatePolicy
from evidencedesk.gate_input import Reference, cut
from evidencedesk.project import Project
from evidencedesk.results import compute
from evidencedesk.results.collect import Hashing, results_of
from evidencedesk.results.compute import Book
from evidencedesk.results.gate_stage import gate_outcome
from evidencedesk.results.inputs import RunPaths, judged_depth, judged_external_runs
from evidencedesk.results.pages import RUNS_ONLY_DEPTH, trim
from evidencedesk.results.progress import Progress, Tally
from evidencedesk.results.rows import Costs
from evidencedesk.results.settings import Settings
from evidencedesk.results.types import SHOWN, CandidateResult, ConfigChange, Results
from evidencedesk.results.verdicts import judge
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.trec import Run as TrecRun
from evidencedesk.retrieval.trec_judge import judge_trec_run


def saved_name(project: Project) -> str | None:
    """The saved baseline file's name, when the project has one."""
    if project.baseline and project.baseline.is_file():
        return f"the saved baseline {project.baseline.name}"
    return None


def runs_only(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    policy: GatePolicy | None, saved: Baseline | None, settings: Settings, progress: Progress,
) -> Results:  # fmt: skip
    """Every TREC run is a variant, judged at its full depth; each is a candidate against the
    project's baseline run. The gate reads each run's top k (the policy's, else 10)."""
    hashes = Hashing(project, runs)  # gigabytes of runs: hashed while they are read and judged
    progress("benchmark")
    book = Book(settings.seed)
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    k = policy.k if policy is not None else RUNS_ONLY_DEPTH
    depth = judged_depth([m.name for m in (*settings.metrics, *settings.slices)], k)
    tally = Tally(progress, (len(project.runs) + len(runs)) * len(labels))

    def judge_run(trec: TrecRun) -> tuple[Judged, ...]:  # counted run by run: one vector pass each
        judged = tuple(judge_trec_run(trec, qrels, labels, relevant=project.relevance, depth=depth))
        tally.add(len(labels))
        return judged

    tags_and_judged = judged_external_runs(project, runs, judge_run, hashes.held)
    judged_runs = {name: judged for name, (_, judged) in tags_and_judged.items()}
    none = Costs(None, None, None)
    variants = [
        compute.variant_result(("run", name), name, "external",
                               f"TREC run (tag {tags_and_judged[name][0]!r}), judged at its full depth",
                               None, judged, none, settings, book, keep=SHOWN)
        for name, judged in judged_runs.items()  # keep: the user's run files hold the rest
    ]  # fmt: skip
    baseline = project.baseline_run or variants[0].name
    base = next(v for v in variants if v.name == baseline)
    progress("gate")
    critical = policy.critical if policy is not None else ()
    others = {n: j for n, j in judged_runs.items() if n != baseline}
    compared = compute.comparisons(
        base,
        judged_runs[baseline],
        {n: (("run", n), j) for n, j in others.items()},
        settings.metrics,
        book,
    )

    # the baseline run is the gate's baseline unless a saved baseline file is given
    if saved is not None:
        reference, ref_name = saved.reference(), saved_name(project)
    else:
        base_cut = cut(judged_runs[baseline], k)
        reference = Reference.of_judged(base_cut, max(k, 1), k, {"run": baseline})
        ref_name = f"the baseline run {baseline}"
    candidates = []
    for name, judged in others.items():
        own, comparisons = compared[name]
        top = cut(judged, k)
        candidates.append(
            CandidateResult(
                name=name,
                rationale=f"the run {name!r} in place of the baseline run {baseline!r}",
                diff=(ConfigChange("run", baseline, name),),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(judged, settings.slices[:1]),
                costs=none,
                gate=(gate := gate_outcome(policy, top, max(k, 1), reference, ref_name)),
                note=read_note(project.notes, name),
                decision=judge(comparisons, settings.flips_metric, gate.verdict, critical),
                lists_of=name,  # the run is a variant: its lists are stored there, once
            )
        )
    # above the page limit the ranked ids stay only for the questions that get a page: the runs
    # are the user's own files (never exported), every value stays for the list and the CSV
    return trim(results_of(
        project, runs, catalog, labels, settings, variants, baseline, judged_runs[baseline],
        candidates, policy, hashes=hashes,
    ))  # fmt: skip
