"""The evaluation: a project -> its inputs read once and its Settings -> the stages -> Results.

The project is read once (`inputs.read_inputs`) and nothing below sees it again: each stage is
handed the `ProjectInputs`, the `Settings` and what the stages before it made (`stages.Stage`).
A pipeline project (a corpus we can index) walks `STAGES`, a runs-only project
`RUNS_ONLY_STAGES`, each stage announced through `progress` by its name. The stages a project
cannot run, and why, are listed by `Project.skipped_stages` (the site shows that list). Adding a
stage is its function (in `results.stages`) and one line in its list (docs/architecture.md,
"Adding an evaluation stage").
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from evidencedesk.results._candidates import CandidateChange
from evidencedesk.results._compute import Book, _flags, question_facts, results_of
from evidencedesk.results._inputs import Project, ProjectInputs, RunPaths, read_inputs
from evidencedesk.results._plan import chosen, page_depth
from evidencedesk.results._serialize import QuestionRows
from evidencedesk.results._settings import _SHOWN, Settings, settings_for
from evidencedesk.results._stages import (
    BASELINE,
    BUILTIN_NAMES,
    Benchmark,
    Evaluating,
    Gated,
    Progress,
    RunsRead,
    Stage,
    ablations,
    benchmark,
    citations,
    evidence_checks,
    gate,
    runs_benchmark,
    runs_gate,
    sizing,
    walk,
)
from evidencedesk.results.types import ModelFacts, QuestionFact, RankedList, Results
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._memos import build_memos
from evidencedesk.retrieval._metric_engine import lists_at
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.evalreport import Run
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.parts import _minilm_roles, _uses_minilm

# a pipeline project's stages, in order: (name announced, function, earlier stages it needs)
STAGES: tuple[Stage, ...] = (
    Stage("benchmark", benchmark),
    Stage("sizing sweep", sizing, ("benchmark",)),
    Stage("ablations", ablations, ("benchmark",)),
    Stage("citation cases", citations),
    Stage("evidence checks", evidence_checks, ("benchmark",)),
    Stage("gate", gate, ("benchmark",)),
)
# a runs-only project's: every run is a variant, every run but the baseline run a candidate
RUNS_ONLY_STAGES: tuple[Stage, ...] = (
    Stage("benchmark", runs_benchmark),
    Stage("gate", runs_gate, ("benchmark",)),
)


@dataclass(frozen=True)
class Evaluation:
    """The Results and what the benchmark command's gate reads beside them: each variant's
    judged lists, and for a pipeline each built-in variant's run (a saved baseline holds one)."""

    results: Results
    judged: Mapping[str, Sequence[Judged]]
    runs: Mapping[str, Run]
    labels: Sequence[Label]


def evaluate(
    project: Project, seed: int, runs: RunPaths, progress: Progress,
    on_rows: Callable[[QuestionRows], object] | None = None,
) -> Results:  # fmt: skip
    """Every number of the report, computed once; `on_rows` is handed the per-question rows as
    soon as the benchmark stage has fixed them (the build writes their exports meanwhile)."""
    return evaluation(project, seed, runs, progress, on_rows=on_rows).results


def evaluation(
    project: Project, seed: int, runs: RunPaths, progress: Progress,
    benchmark_only: bool = False, stages: Sequence[Stage] = STAGES,
    on_rows: Callable[[QuestionRows], object] | None = None,
) -> Evaluation:  # fmt: skip
    """`evaluate`'s Results with the judged lists behind them; `benchmark_only`: a pipeline
    project's benchmark stage alone (the variants and their flips, no sizing, ablations,
    citations, evidence or candidates: what ``evidencedesk benchmark`` prints), the same
    numbers the full build gives those variants; `stages`: a pipeline project's stage list."""
    with build_memos():  # the memos of this evaluation, not of the process
        return _evaluate(project, seed, runs, progress, benchmark_only, stages, on_rows)


def _evaluate(
    project: Project, seed: int, runs: RunPaths, progress: Progress, benchmark_only: bool,
    stages: Sequence[Stage], on_rows: Callable[[QuestionRows], object] | None,
) -> Evaluation:  # fmt: skip
    settings = settings_for(project, seed)
    progress("load inputs")
    inputs = read_inputs(project, runs, settings.seed, BUILTIN_NAMES)
    facts = question_facts(inputs)

    def benchmarked(stage: str, output: object) -> None:
        # the variants' values are final once the benchmark is done: later stages add
        # candidates, and the runs-only lists gain only the ids their pages show (`_trim`)
        if on_rows is not None and isinstance(output, Benchmark | RunsRead):
            on_rows(QuestionRows.made(facts, settings, output.variants))

    if inputs.kind == "runs":
        done = _walk(RUNS_ONLY_STAGES, inputs, settings, progress, benchmarked)
        return _runs_only_evaluation(inputs, settings, facts, done)
    walked = [s for s in stages if s.name == "benchmark"] if benchmark_only else stages
    done = _walk(walked, inputs, settings, progress, benchmarked)
    return _pipeline_evaluation(inputs, settings, facts, done)


def _walk(
    stages: Sequence[Stage], inputs: ProjectInputs, settings: Settings, progress: Progress,
    after: Callable[[str, object], None],
) -> dict[str, object]:  # fmt: skip
    book = Book(settings.seed, settings.averaging)
    evaluating = Evaluating(inputs, settings, progress, book, tuple(s.name for s in stages))
    return walk(stages, evaluating, after)


def _pipeline_evaluation(
    inputs: ProjectInputs, settings: Settings, facts: tuple[QuestionFact, ...],
    done: Mapping[str, object],
) -> Evaluation:  # fmt: skip
    bench = done["benchmark"]
    assert isinstance(bench, Benchmark)  # noqa: S101 - the first stage of a pipeline
    gated = done.get("gate")
    assert gated is None or isinstance(gated, Gated)  # noqa: S101 - the gate stage's output
    ran = [*bench.built.values(), *(gated.runs.values() if gated is not None else ())]
    results = results_of(
        inputs, settings, bench.variants, BASELINE, bench.base_run.judged,
        gated.candidates if gated is not None else (), facts,
        sizing=done.get("sizing sweep"),  # type: ignore[arg-type]
        ablations=done.get("ablations"),  # type: ignore[arg-type]
        citations=done.get("citation cases"),  # type: ignore[arg-type]
        evidence=done.get("evidence checks"),  # type: ignore[arg-type]
        to_label=gated.to_label if gated is not None else ((), 0),
        not_run=gated.not_run if gated is not None else (),
        models=_models(ran, inputs.dense, inputs.catalog, inputs.labels),
        baseline_gate=gated.baseline_gate if gated is not None else None,
        run_notices=bench.notices,
    )  # fmt: skip
    return Evaluation(results, bench.judged, bench.built, inputs.labels)


def _runs_only_evaluation(
    inputs: ProjectInputs, settings: Settings, facts: tuple[QuestionFact, ...],
    done: Mapping[str, object],
) -> Evaluation:  # fmt: skip
    read, gated = done["benchmark"], done["gate"]
    assert isinstance(read, RunsRead) and isinstance(gated, Gated)  # noqa: S101 - its stages'
    baseline = str(inputs.baseline_run)
    judged = {n: r.judged for n, r in read.runs.items()}
    results = _trim(results_of(
        inputs, settings, read.variants, baseline, read.runs[baseline].judged, gated.candidates,
        facts, to_label=gated.to_label, baseline_gate=gated.baseline_gate,
        run_notices=read.notices,
    ), judged)  # fmt: skip
    return Evaluation(results, judged, {}, inputs.labels)


def _models(
    ran: Iterable[Run], dense: str, catalog: Catalog | None, labels: Sequence[Label]
) -> tuple[ModelFacts, ...]:
    """The real models the runs used (the methods page states their facts), each with what it
    ran as (searcher, reranker) and the warning when the texts are not in the language it was
    trained for (MiniLM's `minilm._language_warning` on the project's chunks and questions)."""
    roles = {
        role for r in ran for role in _minilm_roles(r.config.first_stage, r.config.reranker, dense)
    }
    if catalog is not None and roles:
        texts = (f"{c.title}\n{c.text}" for c in catalog.chunks)
        warning = minilm._language_warning(texts, (lab.question for lab in labels))
        ordered = tuple(role for role in minilm._ROLES if role in roles)
        return (ModelFacts(minilm._NAME, minilm._facts(), warning, ordered),)
    return ()


def model_warnings(
    project: Project, catalog: Catalog | None, labels: Sequence[Label],
    candidates: Sequence[CandidateChange],
) -> tuple[str, ...]:  # fmt: skip
    """What `validate` warns about the models a build of this project would run: MiniLM (as the
    dense searcher, or in a candidate) on texts mostly in another script than its language's."""
    uses = project.dense == "minilm" or any(_uses_minilm(c.config, project.dense)
                                            for c in candidates)  # fmt: skip
    if not uses or catalog is None:
        return ()
    texts = (f"{c.title}\n{c.text}" for c in catalog.chunks)
    warning = minilm._language_warning(texts, (lab.question for lab in labels))
    return () if warning is None else (warning,)


def _shown(
    lists: tuple[RankedList, ...], judged: Sequence[Judged], keep: Collection[str] | None,
    depth: int,
) -> tuple[RankedList, ...]:  # fmt: skip
    """`lists` (a run's, in its judged lists' order) with the ids, grades and judged flags of
    their top `depth` for the questions in `keep` (every question when None), from `judged`:
    only those questions' lists are made. A list keeps its judged flags (None when its top
    `_SHOWN` are all judged), or an unjudged result would read as graded 0; every other list
    keeps its values, size and first_relevant alone. Built directly (dataclasses.replace is
    ten times slower: 150,000 lists at 50,000 questions)."""
    at = [i for i, r in enumerate(lists) if keep is None or r.question in keep]
    made = dict(zip(at, lists_at(judged, at), strict=True))
    out = []
    for i, r in enumerate(lists):
        j = made.get(i)
        if j is None:  # a lean list stays as it is (a run's lists are made lean: `keep=0`)
            lean = not (r.ids or r.grades) and r.judged is None
            out.append(r if lean else RankedList(r.question, (), (), r.size, r.first_relevant,
                                                 r.values))  # fmt: skip
            continue
        flags = _flags(j.judged, _SHOWN)
        out.append(RankedList(r.question, tuple(j.ids[:depth]), tuple(j.grades[:depth]), r.size,
                              r.first_relevant, r.values,
                              None if flags is None else flags[:depth]))  # fmt: skip
    return tuple(out)


def _trim(results: Results, judged: Mapping[str, Sequence[Judged]]) -> Results:
    """`results` with each run's ranked lists holding ids and grades only for the questions
    that get a page, and there only as far as a page lists them (`chosen`, `page_depth`;
    every question, `_SHOWN` deep, up to `PAGE_LIMIT`): the runs are the user's own files
    (never exported), every value stays for the list and the CSV. The ids come from each
    run's judged lists (`judged`, by variant name), whose other lists are never made."""
    keep = chosen(results)
    kept, depth = (None, _SHOWN) if keep is None else (set(keep), page_depth(results))
    variants = tuple(replace(v, lists=_shown(v.lists, judged[v.name], kept, depth))
                     for v in results.variants)  # fmt: skip
    return replace(results, variants=variants)
