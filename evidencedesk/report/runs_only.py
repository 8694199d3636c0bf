"""Runs-only projects: every TREC run is a variant, compared with the project's baseline run.

Runs are judged at their full depth against the judgments; the benchmark shows recall@10, P@10,
MRR and linear nDCG@10 (trec_eval's ``recall_10``, ``P_10``, ``recip_rank``, ``ndcg_cut_10``,
except that questions with no relevant judgment are left out instead of scored 0). The stages
that need a corpus pipeline are skipped; the project says which and why.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from evidencedesk.baseline import Baseline
from evidencedesk.errors import ConfigError
from evidencedesk.gate import GatePolicy
from evidencedesk.project import Project
from evidencedesk.project_schema import MAX_RUNS
from evidencedesk.report.assemble import Assembly
from evidencedesk.report.candidates import read_note
from evidencedesk.report.model import BuildOptions
from evidencedesk.report.review import NO_POLICY, Proposal, review_candidates
from evidencedesk.report.variants import Columns, Scored
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.evalreport import Config, Run, retrieval_gate
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, summarize
from evidencedesk.retrieval.parts import summary_names
from evidencedesk.retrieval.trec import Run as TrecRun
from evidencedesk.retrieval.trec import read_run
from evidencedesk.retrieval.trec_judge import judge_trec_run

RUNS_COLUMNS = Columns(
    (("recall@10", "R@10"), ("precision@10", "P@10"), ("mrr", "MRR"), ("ndcg@10:linear", "nDCG@10"))
)


def gate_run(judged: Sequence[Judged], k: int) -> Run:
    """A judged external run shaped as an evalreport `Run` whose final list is the top `k`."""
    cut = tuple(
        Judged(j.id, j.tags, j.answerable, j.grades[:k], j.pool, j.ids[:k], j.relevant)
        for j in judged
    )
    cfg = Config(first_stage="hybrid", reranker="none", depth=max(k, 1), final=max(k, 1))
    return Run(cfg, cut, summarize(cut, list(summary_names(cfg.final))), 0.0, 0.0)


def check_run_name(name: str, path: Path, builtin: Sequence[str], used: Collection[str],
                   source: str = "") -> None:  # fmt: skip
    """Refuse a run named like a built-in variant or like an earlier run (`source`: "--run x: ").

    A run called ``hybrid`` would give the site two ``hybrid`` rows and two equal HTML ids.
    """
    if name in builtin:
        raise ConfigError(
            path,
            f"{source}expected a run name other than the built-in variants "
            f"({', '.join(builtin)}), found {name!r}",
        )
    if name in used:
        raise ConfigError(path, f"{source}expected a new variant name, found {name!r} already used")


def check_run_names(project: Project, options: BuildOptions, builtin: Sequence[str] = ()) -> None:
    """The project's runs, then the ``--run`` ones, through the one `check_run_name`."""
    total = len(project.runs) + len(options.runs)
    if total > MAX_RUNS:
        raise ConfigError(
            project.path,
            f"expected at most {MAX_RUNS} runs (the project's and --run together), found {total}",
        )
    used: set[str] = set()
    for name, path in project.runs:
        check_run_name(name, path, builtin, used)
        used.add(name)
    for name, path in options.runs:
        check_run_name(name, path, builtin, used, f"--run {name}: ")
        used.add(name)


def external_runs(
    project: Project, options: BuildOptions, builtin: Sequence[str] = ()
) -> dict[str, TrecRun]:
    """The project's runs plus ``--run NAME=PATH`` ones; every name checked before any is read."""
    check_run_names(project, options, builtin)
    runs = project.load_runs()
    runs.update((name, read_run(path)) for name, path in options.runs)
    return runs


def runs_only(
    project: Project,
    options: BuildOptions,
    catalog: Catalog | None,
    labels: Sequence[Label],
    policy: GatePolicy | None,
    saved: Baseline | None,
    progress: Callable[[str], None],
) -> Assembly:
    progress("benchmark")
    runs = external_runs(project, options)
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    scored = [
        Scored(
            name,
            "external",
            f"TREC run (tag {run.tag!r}), judged at its full depth",
            None,
            tuple(judge_trec_run(run, qrels, labels, relevant=project.relevance)),
        )
        for name, run in runs.items()
    ]
    baseline = project.baseline_run or scored[0].name
    base = next(s for s in scored if s.name == baseline)
    progress("gate")
    k = policy.k if policy is not None else 10
    proposals = [
        Proposal(
            name=s.name,
            rationale=f"the run {s.name!r} in place of the baseline run {baseline!r}",
            scored=s,
            diff=(("run", baseline, s.name),),
            gate=retrieval_gate(policy, gate_run(s.judged, k), saved) if policy else NO_POLICY,
            latency=None,
            note=read_note(project.notes, s.name),
        )
        for s in scored
        if s.name != baseline
    ]
    reviewed = review_candidates(base, proposals, options.seed)
    progress("site model")
    return Assembly(project, options, catalog, labels, scored, baseline, reviewed, RUNS_COLUMNS)
