"""Runs-only projects' stages: every TREC run is a variant (the benchmark) and each non-baseline
run a candidate compared with the baseline run and gated (the gate)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from evidencedesk.files.trec import TrecRun
from evidencedesk.gate import Reference, cut
from evidencedesk.metric_names import reads_whole_list
from evidencedesk.results import compute
from evidencedesk.results.candidates import read_note
from evidencedesk.results.compute import (
    condensed_comparisons,
    fully_judged,
    judged_share,
    judged_stat,
    to_label,
)
from evidencedesk.results.inputs import JudgedRun, judged_depth, judged_external_runs
from evidencedesk.results.plan import RUNS_ONLY_DEPTH
from evidencedesk.results.stages import COMPARED, Evaluating, Gated, Tally, gate_outcome
from evidencedesk.results.types import (
    SHOWN,
    CandidateResult,
    Comparison,
    ConfigChange,
    RunCosts,
    VariantResult,
)
from evidencedesk.results.verdicts import decide_verdict
from evidencedesk.retrieval.coverage import (
    Coverage,
    check_coverage,
    check_judged_shares,
    unjudged_top,
)
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.trec_judge import judge_trec_run_condensed

_NONE = RunCosts(None, None, None)  # a TREC run's costs are not known


@dataclass(frozen=True)
class RunsRead:
    """The runs-only benchmark's output: each run read and judged, and its Results row."""

    runs: Mapping[str, JudgedRun]
    variants: tuple[VariantResult, ...]


def _gate_k(evaluating: Evaluating) -> int:
    """The gate reads each run's top k: the policy's, else `RUNS_ONLY_DEPTH`."""
    policy = evaluating.inputs.policy
    return policy.k if policy is not None else RUNS_ONLY_DEPTH


def runs_benchmark(evaluating: Evaluating) -> RunsRead:
    """Every TREC run is a variant, judged at its full depth (or `Settings.max_depth`, as
    ``trec_eval -M``). A run is checked against the judgments before it is judged
    (`coverage.check_coverage`); its input hashing waits while it is read."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    labels = inputs.labels
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    names = [m.name for m in (*settings.metrics, *settings.slices)]
    depth = judged_depth(names, _gate_k(evaluating), settings.judged_k)
    graded = reads_whole_list(names)  # AP, R-prec, nDCG, bpref: through the last graded result
    tally = Tally(evaluating.progress, len(inputs.runs) * len(labels))

    def judge_run(trec: TrecRun) -> tuple[Sequence[Judged], Sequence[Judged] | None]:
        # counted run by run: one vector pass each; the condensed lists ride along
        judged = judge_trec_run_condensed(trec, qrels, labels, settings.max_depth,
                                          inputs.relevance, depth, graded)  # fmt: skip
        tally.add(len(labels))
        return judged

    catalog = inputs.catalog
    corpus = frozenset(catalog.ids()) if catalog is not None else None
    unjudged: dict[str, tuple[Path, Coverage, list[str]]] = {}

    def check(trec: TrecRun, path: Path) -> Coverage:
        found = check_coverage(trec, qrels, settings.judged_k, path,
                               min_coverage=settings.min_coverage, corpus=corpus)  # fmt: skip
        unjudged[str(path)] = (path, found, unjudged_top(trec, qrels, settings.judged_k))
        return found

    read = judged_external_runs(inputs.runs, judge_run, check, inputs.hashes.held)
    if corpus is None:
        check_judged_shares(unjudged, qrels)
    variants = tuple(
        replace(
            compute.variant_result(("run", name), name, "external",
                                   f"TREC run (tag {run.tag!r}), judged at its full depth",
                                   None, run.judged, _NONE, settings, book, keep=SHOWN),
            coverage=run.coverage,
            judged=judged_stat(book, ("run", name), run.judged, settings.judged_k),
        )
        for name, run in read.items()  # keep: the user's run files hold the rest
    )  # fmt: skip
    return RunsRead(read, variants)


def _reference(evaluating: Evaluating, base_run: JudgedRun) -> tuple[Reference, str | None]:
    """The gate's baseline: the saved baseline file when there is one, else the baseline run."""
    inputs, k = evaluating.inputs, _gate_k(evaluating)
    if inputs.saved is not None:
        return inputs.saved.reference(), inputs.saved_name
    baseline = inputs.baseline_run
    assert baseline is not None  # noqa: S101 - a runs-only project has runs
    base_cut = cut(base_run.judged, k)
    return Reference.of_judged(base_cut, max(k, 1), k, baseline), f"the baseline run {baseline}"


def runs_gate(evaluating: Evaluating, benchmark: RunsRead) -> Gated:
    """Each run but the baseline run is a candidate against it, gated on its top k."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    baseline = inputs.baseline_run
    base = next(v for v in benchmark.variants if v.name == baseline)
    critical = inputs.policy.critical if inputs.policy is not None else ()
    others = {n: r for n, r in benchmark.runs.items() if n != baseline}
    base_run = benchmark.runs[str(baseline)]
    compared = compute.comparisons(
        base.metrics,
        base_run.judged,
        Tally(evaluating.progress, len(others), COMPARED).counting(
            {n: (("run", n), r.judged) for n, r in others.items()}
        ),
        settings.metrics,
        book,
    )
    condensed: dict[str, tuple[Comparison, bool]] = {}
    runs_condensed = {n: r.condensed for n, r in others.items() if r.condensed is not None}
    if base_run.condensed is not None and not fully_judged(base_run.judged, *(
        r.judged for r in others.values()
    )):  # fmt: skip
        condensed = condensed_comparisons(
            base_run.condensed, runs_condensed, settings.compared[0], book,
            {n: compared[n][1] for n in others},
        )  # fmt: skip
    reference, ref_name = _reference(evaluating, base_run)
    k = _gate_k(evaluating)
    candidates = []
    for name, run in others.items():
        own, comparisons = compared[name]
        cond = condensed.get(name)
        candidates.append(
            CandidateResult(
                name=name,
                rationale=f"the run {name!r} in place of the baseline run {baseline!r}",
                diff=(ConfigChange("run", str(baseline), name),),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(run.judged, settings.slices[:1]),
                costs=_NONE,
                gate=gate_outcome(
                    inputs.policy, cut(run.judged, k), max(k, 1), reference, ref_name
                ),  # fmt: skip
                note=read_note(inputs.notes, name),
                decision=decide_verdict(  # Holm adjusts over the candidates
                    comparisons, [m.name for m in settings.compared], critical, len(others)
                ),
                lists_of=name,  # the run is a variant: its lists are stored there, once
                judged=judged_share(
                    base_run.judged, run.judged, settings.judged_k, settings.seed
                ),  # fmt: skip
                condensed=None if cond is None else cond[0],
                condensed_agrees=None if cond is None else cond[1],
            )
        )
    catalog = inputs.catalog
    corpus = frozenset(catalog.ids()) if catalog is not None else None
    label_next = to_label(base_run.judged, {n: r.judged for n, r in others.items()},
                          str(baseline), settings.judged_k, corpus=corpus)  # fmt: skip
    return Gated(tuple(candidates), {}, (), label_next)
