"""The evaluation's stages, and what they tell the caller while they run.

A stage is a `Stage`: its name (announced to `Progress` as it starts, and the name its output is
kept under), its function, and the earlier stages whose outputs it needs. The function is called
with the `Evaluating` (the inputs read once, the `Settings`, the progress and the `Book` of this
evaluation) and, by keyword, each output it needs (a name's spaces read as underscores:
``"sizing sweep"`` is handed as ``sizing_sweep``). `results.evaluate` holds the order
(``STAGES`` for a pipeline, ``RUNS_ONLY_STAGES`` for runs only) and walks it; both kinds' stages
are here.

`Progress` is any callable told each stage's name as it starts (a test may pass a lambda). An
object that also has ``step(done, total, what)`` (`Steps`; the build's `cli.console` progress is
one) is told "questions judged done / total" during the stages that judge questions: the
benchmark (every variant's or run's questions), the sizing sweep, the ablations and the
candidates' runs; and "candidates compared done / total" in the gate stage, whose paired
statistics take most of its time. `Tally` counts and calls ``step`` at most ten times a second,
and always at the end, so the count costs the work nothing measurable; `Tally.asking` hands a run
its labels through a view that counts each question as it is asked, `Tally.counting` the
candidates through a mapping that counts each one as the loop over its items moves past it (no
change to the loops that do the work).

The gate stage decides the release gate on judged final lists and k, as structured
`GateOutcome` data (`gate_outcome`). The baseline is a `_Reference`: a saved baseline file
(`Baseline.reference()`) or a run (`_Reference.of_judged`); no pipeline `Config` or `Run` is
needed. Every policy key comes back as a `RuleValue`: its observed value against its threshold,
or "not evaluated" with the reason, so the gate never skips a rule silently.
"""

from __future__ import annotations

import time
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, TypeVar, overload, runtime_checkable

from evidencedesk._metric_names import reads_whole_list
from evidencedesk.errors import MissingExtraError
from evidencedesk.files.trec import TrecRun
from evidencedesk.gate import (
    GateCheck,
    GateLevel,
    GatePolicy,
    _decide_gate,
    _GateInput,
    _ListCut,
    _Reference,
    _shape,
)
from evidencedesk.results import _compute as compute
from evidencedesk.results._candidates import CandidateChange, read_note
from evidencedesk.results._compute import (
    Book,
    condensed_comparisons,
    condensed_lists,
    delta_interval,
    fully_judged,
    in_noise,
    judged_share,
    judged_stat,
    to_label,
)
from evidencedesk.results._evidence import evidence
from evidencedesk.results._inputs import (
    JudgedRun,
    ProjectInputs,
    exposure,
    judged_depth,
    judged_external_runs,
    order_notices,
    read_runs,
)
from evidencedesk.results._plan import RUNS_ONLY_DEPTH
from evidencedesk.results._settings import _SHOWN, Settings
from evidencedesk.results._verdicts import decide_verdict
from evidencedesk.results.types import (
    AblationResult,
    Ablations,
    CandidateResult,
    CitationRow,
    Comparison,
    ConfigChange,
    EvidenceResult,
    GateOutcome,
    Notice,
    NotRun,
    RuleValue,
    RunCosts,
    SizingRow,
    ToLabel,
    VariantResult,
)
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._citations import load_answers, score_answer
from evidencedesk.retrieval._coverage import (
    Coverage,
    check_coverage,
    check_judged_shares,
    unjudged_top,
)
from evidencedesk.retrieval.benchmark import _VARIANTS
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Run, _sizing_grid, ablate, run_config, sweep
from evidencedesk.retrieval.evalreport import Costs as PriceList
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, paired
from evidencedesk.retrieval.parts import Parts, _uses_minilm
from evidencedesk.retrieval.trec_judge import (
    _judge_trec_run_condensed,
    _shared_judgments,
    judge_trec_run,
)

# -- progress ------------------------------------------------------------------------------------
Progress = Callable[[str], None]  # told each stage's name as it starts


_EVERY = 0.1  # seconds between two `step` calls (the last one is always made)
JUDGED = "questions judged"  # what a stage that judges questions counts
_COMPARED = "candidates compared"  # what the gate stage counts once its candidates have run
MODELLED = "question pages modelled"  # what the site-model stage counts

_K = TypeVar("_K")
_V = TypeVar("_V")


@runtime_checkable
class Steps(Protocol):
    """A `Progress` that also counts: ``step(done, total, what)``, `what` (`JUDGED`, `_COMPARED`,
    `MODELLED`) of the stage done."""

    def __call__(self, stage: str) -> None: ...

    def step(self, done: int, total: int, what: str = JUDGED) -> None: ...


@runtime_checkable
class LetsGo(Protocol):
    """A `Progress` told when the build has let a large input go (a run read, judged and
    dropped before the next is read): the command line's `--tune trim` gives the freed memory
    back to the system then (`cli._process.trimming`), so that the runs' heap holes do not add
    up; the library itself never does."""

    def __call__(self, stage: str) -> None: ...

    def let_go(self) -> None: ...


class Tally:
    """`what` of one stage done, out of `total`, reported to `progress` if it counts."""

    def __init__(self, progress: Progress, total: int, what: str = JUDGED) -> None:
        self.step = progress.step if isinstance(progress, Steps) else None
        self.total, self.done, self.last, self.what = total, 0, 0.0, what
        if self.step is not None and total > 0:
            self.step(0, total, what)

    def add(self, count: int = 1) -> None:
        """`count` more are done."""
        if self.step is None:
            return
        self.done += count
        now = time.perf_counter()
        if self.done >= self.total or now - self.last >= _EVERY:
            self.last = now
            self.step(self.done, self.total, self.what)

    def counting(self, items: Mapping[_K, _V]) -> Mapping[_K, _V]:
        """`items`, each counted once the loop over ``.items()`` has moved past it."""
        return items if self.step is None else _Counted(items, self)

    def asking(self, labels: Sequence[Label]) -> Sequence[Label]:
        """`labels` as a run reads them, each question counted once it has been asked."""
        return labels if self.step is None else _Asked(labels, self)


class _Asked(Sequence[Label]):
    """The labels, counting each question when the loop over them moves past it."""

    def __init__(self, labels: Sequence[Label], tally: Tally) -> None:
        self.labels, self.tally = labels, tally

    def __len__(self) -> int:
        return len(self.labels)

    @overload
    def __getitem__(self, index: int) -> Label: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Label]: ...
    def __getitem__(self, index: int | slice) -> Label | Sequence[Label]:
        return self.labels[index]

    def __iter__(self) -> Iterator[Label]:
        for label in self.labels:
            yield label
            self.tally.add()


class _Counted(Mapping[_K, _V]):
    """A mapping whose ``items()`` counts each item when the loop over them moves past it."""

    def __init__(self, items: Mapping[_K, _V], tally: Tally) -> None:
        self.data, self.tally = items, tally

    def __getitem__(self, key: _K) -> _V:
        return self.data[key]

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[_K]:
        return iter(self.data)

    def items(self) -> ItemsView[_K, _V]:
        return _CountedItems(self)


class _CountedItems(ItemsView[_K, _V]):
    def __init__(self, counted: _Counted[_K, _V]) -> None:
        super().__init__(counted)
        self.counted = counted

    def __iter__(self) -> Iterator[tuple[_K, _V]]:
        for item in self.counted.data.items():
            yield item
            self.counted.tally.add()


# -- the stage protocol --------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluating:
    """What every stage is handed: the inputs read once, the choices, the progress, the Book of
    interval memos, and the names of the stages this evaluation walks."""

    inputs: ProjectInputs
    settings: Settings
    progress: Progress
    book: Book
    walks: tuple[str, ...]


@dataclass(frozen=True)
class Stage:
    """One step of the evaluation: `run(evaluating, **needed)`, where each name of `needs` is an
    earlier stage whose output is handed by keyword (spaces as underscores)."""

    name: str
    run: Callable[..., object]
    needs: tuple[str, ...] = ()


def walk(
    stages: Sequence[Stage], evaluating: Evaluating,
    after: Callable[[str, object], None] | None = None,
) -> dict[str, object]:  # fmt: skip
    """Each stage in order, announced by name, handed what it needs; every stage's output by
    its name, also handed to `after` with the name as soon as the stage is done. A stage that
    needs one not walked before it is refused before any runs."""
    for at, stage in enumerate(stages):
        missing = [n for n in stage.needs if n not in {s.name for s in stages[:at]}]
        if missing:
            raise ValueError(f"stage {stage.name!r} needs {missing}, not walked before it")
    done: dict[str, object] = {}
    for stage in stages:
        evaluating.progress(stage.name)
        done[stage.name] = stage.run(
            evaluating, **{n.replace(" ", "_"): done[n] for n in stage.needs}
        )
        if after is not None:
            after(stage.name, done[stage.name])
    return done


# -- the pipeline's stages -----------------------------------------------------------------------
BASELINE = "hybrid"  # the built-in variant the candidates and the others are compared with
BUILTIN_NAMES = tuple(name for name, _ in _VARIANTS)  # no external run may take one of these
# the benchmark page's description of each built-in variant
_BUILTIN_DESCRIPTIONS = {
    "sparse": "BM25 over Unicode-aware tokens",
    "dense": "toy hashed embedder, cosine",
    "hybrid": "reciprocal-rank fusion of sparse and dense (the baseline, Config())",
}
# [searchers] dense = "minilm": the dense variant is the real model
_MINILM_DESCRIPTIONS = _BUILTIN_DESCRIPTIONS | {"dense": f"{minilm._DESCRIPTION}; cosine"}


def dense_description(dense: str) -> str:
    """The dense searcher of `[searchers] dense` ("toy" or "minilm") as the benchmark describes
    its variant (and `validate` names it)."""
    return (_MINILM_DESCRIPTIONS if dense == "minilm" else _BUILTIN_DESCRIPTIONS)["dense"]


# -- the gate ------------------------------------------------------------------------------------
# the gate outcome without a policy: REVIEW, one no_policy line, not evaluated
_NO_POLICY_OUTCOME = GateOutcome(
    GateLevel.REVIEW, (GateCheck(GateLevel.REVIEW, "no_policy"),), False
)
# what the gate compares with when there is no saved baseline
_NO_BASELINE = "no baseline to compare with (no saved baseline file)"


def _status(checks: Sequence[GateCheck], rule: str, metric: str | None = None) -> str:
    hit = [c for c in checks if c.rule == rule and (metric is None or c.metric == metric)]
    return hit[0].level if hit else "pass"


def _rule_values(
    policy: GatePolicy, shaped: _GateInput, reference: _Reference | None,
    checks: Sequence[GateCheck], no_reference: str = _NO_BASELINE,
) -> tuple[RuleValue, ...]:  # fmt: skip
    """Each policy key on this candidate (the gate page's and the candidate page's table)."""
    recall = f"recall@{policy.k}"
    crit = _status(checks, "critical")
    if _status(checks, "critical_missing") != "pass":
        crit = GateLevel.BLOCK
    out = [
        RuleValue("critical", None, float(sum(shaped.cases.get(q, False) for q in policy.critical)),
                  float(len(policy.critical)), None, crit, None)
        if policy.critical
        else RuleValue("critical", None, None, None, None, "not evaluated",
                       "no critical question ids in the policy"),
        RuleValue("min_recall", recall, shaped.recall, policy.min_recall, None,
                  _status(checks, "min_recall"), None),
        RuleValue("min_pass_rate", None, shaped.pass_rate, policy.min_pass_rate, None,
                  _status(checks, "min_pass_rate"), None),
    ]  # fmt: skip
    for metric, now in ((recall, shaped.recall), ("mrr", shaped.mrr)):
        before = None if reference is None else reference.summary.get(metric)
        why = no_reference if reference is None else None
        if reference is not None and before is None:
            why = f"the saved baseline has no {metric} (it was saved at k={reference.k})"
        status = "not evaluated" if why else _status(checks, "max_drop", metric)
        out.append(RuleValue("max_drop", metric, now, policy.max_drop, before, status, why))
    if not policy.review_on_mrr_flips:
        out.append(RuleValue("review_on_mrr_flips", "mrr", None, None, None, "not evaluated",
                             "switched off in the policy (review_on_mrr_flips = false)"))  # fmt: skip
    elif reference is None:
        out.append(RuleValue("review_on_mrr_flips", "mrr", None, None, None, "not evaluated",
                             no_reference))  # fmt: skip
    else:  # observed: the questions MRR lost; reference: the ones it won (reviewed or not
        # when the losses outnumber the wins: flips_min_net and flips_max_p may ask for more)
        flips = paired(dict(reference.rr), shaped.rr, name="mrr")
        out.append(RuleValue("review_on_mrr_flips", "mrr", float(len(flips.worse)), None,
                             float(len(flips.better)), _status(checks, "review_on_mrr_flips"),
                             None))  # fmt: skip
    return tuple(out)


def gate_outcome(
    policy: GatePolicy | None,
    judged: Sequence[Judged],
    final: int,
    reference: _Reference | None,
    baseline: str | None = None,
    cut: _ListCut = "final",
) -> GateOutcome:
    """The gate on judged final lists of size `final`, against a run's or a saved Reference
    (`baseline` names it: a run's name or the saved baseline file)."""
    if policy is None:
        return _NO_POLICY_OUTCOME
    shaped = _shape(judged, final, policy.k, cut)
    result = _decide_gate(policy, shaped, reference)
    checks = tuple(result.checks)  # the gate's own check rows: the Results hold them as they are
    rules = _rule_values(policy, shaped, reference, checks)
    return GateOutcome(result.level, checks, True, rules,
                       baseline if reference is not None else None, final)  # fmt: skip


def _baseline_gate(
    policy: GatePolicy | None, judged: Sequence[Judged], final: int, cut: _ListCut = "final"
) -> GateOutcome | None:
    """The baseline gated on the policy's floors alone (no reference: `max_drop` and the flips
    rule are not evaluated): whether it passes the policy it is the reference of."""
    return None if policy is None else gate_outcome(policy, judged, final, None, cut=cut)


@dataclass(frozen=True)
class Benchmark:
    """The benchmark stage's output: the searchers built once, each built-in variant's run, the
    variants' Results rows, and every variant's judged lists (built-in and external)."""

    parts: Parts
    built: Mapping[str, Run]
    variants: tuple[VariantResult, ...]
    judged: Mapping[str, Sequence[Judged]]
    notices: tuple[Notice, ...] = ()  # what reading the external runs found (`order_notices`)

    @property
    def base_run(self) -> Run:
        return self.built[BASELINE]


@dataclass(frozen=True)
class Gated:
    """The gate stage's output: the candidates' Results rows and runs, the candidates not run
    (with why), and the pairs to label next with how many there are."""

    candidates: tuple[CandidateResult, ...]
    runs: Mapping[str, Run]
    not_run: tuple[NotRun, ...]
    to_label: tuple[tuple[ToLabel, ...], int]
    baseline_gate: GateOutcome | None = None  # the baseline on the policy's own floors


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


def _catalog(evaluating: Evaluating) -> Catalog:
    catalog = evaluating.inputs.catalog
    assert catalog is not None  # noqa: S101 - a pipeline's stages run over its catalog
    return catalog


def _external(
    evaluating: Evaluating, parts: Parts, tally: Tally
) -> tuple[list[VariantResult], dict[str, Sequence[Judged]], tuple[Notice, ...]]:
    """The benchmark's rows of the external TREC runs, cut to the built-in variants' final list,
    and what reading them found (`order_notices`)."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    catalog, labels, k = _catalog(evaluating), inputs.labels, settings.judged_k
    trecs = read_runs(inputs.runs)
    final = Config().final
    allowed = catalog.allowed(Scope())
    qrels = {lb.id: {c: g for c, g in lb.grades.items() if c in allowed} for lb in labels}
    # a labels file grades every chunk (a missing grade is 0): every catalog chunk is judged
    complete = frozenset(catalog.ids()) if inputs.labels_file else None
    paths = dict(inputs.runs)
    rows: list[VariantResult] = []
    external: dict[str, Sequence[Judged]] = {}
    notices: list[Notice] = []
    for name, trec in trecs.items():
        found = check_coverage(trec, qrels, k, paths[name], complete,
                               min_coverage=settings.min_coverage, corpus=catalog.ids())  # fmt: skip
        notices += order_notices(name, trec, inputs.run_files[name])
        judged = judge_trec_run(trec, qrels, labels, k=final, relevant=inputs.relevance,
                                complete=complete)  # fmt: skip
        external[name] = judged
        tally.add(len(labels))
        tokens = sum(
            context_tokens([catalog.get(i) for i in j.ids if i in catalog]) for j in judged
        )
        description = f"external TREC run (tag {trec.tag!r}), cut to the top {final} like the built-in variants"
        note = inputs.run_notes.get(name)
        if note:
            description = f"{note} — {description}"
        costs = RunCosts(None, tokens / max(len(judged), 1), None)
        rows.append(replace(
            compute.variant_result(("run", name), name, "external", description, None, judged,
                                   costs, settings, book),
            coverage=found, judged=judged_stat(book, ("run", name), judged, k),
        ))  # fmt: skip
    return rows, external, tuple(notices)


def benchmark(evaluating: Evaluating) -> Benchmark:
    """The built-in variants over the catalog, then the external runs, each with its flips."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    catalog, labels = _catalog(evaluating), inputs.labels
    # minilm without its extra: one line, exit 2; a candidate searching with MiniLM has its
    # chunks embedded meanwhile, beside the stages before the gate (the benchmark alone runs none)
    warm = "gate" in evaluating.walks and any(
        c.config.first_stage == "minilm" for c in inputs.candidates
    )
    asks = [label.question for label in labels] if warm else []  # its searches' texts
    parts = Parts.build(catalog, dense=inputs.dense, warm=warm, questions=asks)
    descriptions = _MINILM_DESCRIPTIONS if inputs.dense == "minilm" else _BUILTIN_DESCRIPTIONS
    tally = Tally(evaluating.progress, (len(_VARIANTS) + len(inputs.runs)) * len(labels))
    asked = tally.asking(labels)
    built = {name: run_config(cfg, parts, catalog, asked) for name, cfg in _VARIANTS}
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
    rows, external, notices = _external(evaluating, parts, tally)
    judged: dict[str, Sequence[Judged]] = {n: r.judged for n, r in built.items()}
    judged.update(external)
    return Benchmark(parts, built, (*variants, *rows), judged, notices)


def price_list(settings: Settings) -> PriceList:
    """The hypothetical price list of the pipeline's design (ms per query, ms per scored pair)."""
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    return PriceList(design.stage_one_ms, design.per_pair_ms)


def sizing(evaluating: Evaluating, benchmark: Benchmark) -> tuple[SizingRow, ...]:
    """The sizing sweep of the design, marking the cheapest setting within noise of the best."""
    settings, labels = evaluating.settings, evaluating.inputs.labels
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    cells = len(_sizing_grid(design.sizing_depths, design.sizing_finals)[0])
    asked = Tally(evaluating.progress, cells * len(labels)).asking(labels)  # one run per cell
    rows = sweep(design.sizing_depths, design.sizing_finals, benchmark.parts,
                 _catalog(evaluating), asked, reranker=design.sizing_reranker,
                 costs=price_list(settings))  # fmt: skip
    best = max(rows, key=lambda r: (r.mrr or 0.0, -r.pairs_per_question, -r.tokens_per_question))
    runs: list[Run] = [r.run for r in rows]  # type: ignore[misc]
    best_run = runs[rows.index(best)]
    noise = [in_noise(best_run.judged, run.judged) for run in runs]
    cheapest = min(
        (r for r, ok in zip(rows, noise, strict=True) if ok),
        key=lambda r: (r.pairs_per_question, r.tokens_per_question),
    )
    return tuple(
        SizingRow(
            depth=r.depth,
            final=r.final,
            recall=r.recall,
            mrr=evaluating.book.stat(run.config, run.judged, "mrr"),
            costs=RunCosts(r.pairs_per_question, r.tokens_per_question, r.latency_ms),
            within_noise=ok,
            smallest_in_noise=r is cheapest,
            best=r is best,
        )
        for r, run, ok in zip(rows, runs, noise, strict=True)
    )


def ablations(evaluating: Evaluating, benchmark: Benchmark) -> Ablations:
    """The ablations of the design: each change against the base, with its MRR interval."""
    settings, labels = evaluating.settings, evaluating.inputs.labels
    design = settings.design
    assert design is not None  # noqa: S101 - pipeline stages run only with a design
    asked = Tally(evaluating.progress, (1 + len(design.ablation_changes)) * len(labels))
    base = Config(**design.ablation_base)
    rows = ablate(base, list(design.ablation_changes), benchmark.parts, _catalog(evaluating),
                  asked.asking(labels), costs=price_list(settings))  # fmt: skip
    base_judged = rows[0].run.judged
    intervals = [(None, None)] + [
        delta_interval(base_judged, r.run.judged, "mrr", settings.seed) for r in rows[1:]
    ]
    return Ablations(
        base=base.label(),
        rows=tuple(
            AblationResult(
                changes=dict(r.changes),
                metrics={m.name: r.run.value(m.name) for m in settings.columns},
                mrr_delta=r.mrr_delta,
                better=r.better,
                worse=r.worse,
                tied=r.tied,
                p=r.p,
                costs=RunCosts(r.pairs_per_question, r.tokens_per_question, r.latency_ms),
                mrr_low=low,
                mrr_high=high,
            )
            for r, (low, high) in zip(rows, intervals, strict=True)
        ),
    )


def citations(evaluating: Evaluating) -> tuple[CitationRow, ...] | None:
    """The citation checks: every answer of answers.jsonl scored against the catalog (None
    without an answers file)."""
    if evaluating.inputs.answers is None:
        return None
    catalog = _catalog(evaluating)
    answers = load_answers(evaluating.inputs.answers, known_chunks=catalog.by_id)
    rows = []
    for a in answers:
        s = score_answer(a, catalog.by_id)
        rows.append(CitationRow(a.id, a.case, a.answer, s.coverage, s.resolve, s.support, a.note))
    return tuple(rows)


def evidence_checks(evaluating: Evaluating, benchmark: Benchmark) -> EvidenceResult:
    """The evidence checks on the baseline: dedupe, compression, freshness, deletion, tenants."""
    inputs = evaluating.inputs
    return evidence(_catalog(evaluating), inputs.labels, benchmark.base_run,
                    benchmark.parts.first("hybrid"), inputs.dups, inputs.update, inputs.tenants,
                    inputs.tenant_documents, dense=inputs.dense, chunking=inputs.chunking)  # fmt: skip


def _same_variant(run: Run, built: Mapping[str, Run]) -> str | None:
    """The built-in variant that is this candidate's run (its lists are stored there, once)."""
    return next((name for name, r in built.items() if r is run), None)


def _not_run(cands: Sequence[CandidateChange], dense: str) -> tuple[NotRun, ...]:
    """The candidates that name the MiniLM model on a machine without its extra: each is shown
    with one line saying what to install, and nothing else of it is computed."""
    lacking = minilm._missing_packages()
    if not lacking:
        return ()
    reason = MissingExtraError(minilm._NAME, minilm._EXTRA, lacking).not_run()
    return tuple(
        NotRun(c.name, c.rationale, _diff(c.config), reason, c.note)
        for c in cands
        if _uses_minilm(c.config, dense)
    )


def _reference(evaluating: Evaluating, base_run: Run) -> tuple[_Reference | None, str | None]:
    """The gate's baseline and its name: a saved baseline file; without one, the baseline run."""
    inputs = evaluating.inputs
    if inputs.saved is not None:
        return inputs.saved.reference(), inputs.saved_name
    if inputs.policy is not None:
        return _Reference.of_run(base_run, inputs.policy.k), f"the baseline run {BASELINE}"
    return None, inputs.saved_name


def _candidate_runs(
    evaluating: Evaluating, benchmark: Benchmark, cands: Sequence[CandidateChange]
) -> dict[str, Run]:
    """Each candidate's run; runs are deterministic: a built-in variant's is reused, not redone."""
    labels = evaluating.inputs.labels
    already_run = {r.config: r for r in benchmark.built.values()}
    new = sum(c.config not in already_run for c in cands)
    asked = Tally(evaluating.progress, new * len(labels)).asking(labels)
    return {
        c.name: already_run.get(c.config)
        or run_config(c.config, benchmark.parts, _catalog(evaluating), asked)
        for c in cands
    }


def gate(evaluating: Evaluating, benchmark: Benchmark) -> Gated:
    """Every candidate run, compared with the baseline variant and gated."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    not_run = _not_run(inputs.candidates, inputs.dense)
    cands = [c for c in inputs.candidates if c.name not in {n.name for n in not_run}]
    cand_runs = _candidate_runs(evaluating, benchmark, cands)
    base_run, k = benchmark.base_run, settings.judged_k
    base = benchmark.variants[[n for n, _ in _VARIANTS].index(BASELINE)]
    compared = compute.comparisons(
        base.metrics,
        base_run.judged,
        Tally(evaluating.progress, len(cand_runs), _COMPARED).counting(
            {n: (r.config, r.judged) for n, r in cand_runs.items()}
        ),
        settings.metrics,
        book,
    )
    condensed: dict[str, tuple[Comparison, bool]] = {}
    if not fully_judged(base_run.judged, *(r.judged for r in cand_runs.values())):
        condensed = condensed_comparisons(
            condensed_lists(base_run.judged),
            {n: condensed_lists(r.judged) for n, r in cand_runs.items()},
            settings.compared[0], book, {n: compared[n][1] for n in cand_runs},
        )  # fmt: skip
    reference, ref_name = _reference(evaluating, base_run)
    critical = inputs.policy.critical if inputs.policy is not None else ()
    candidates = []
    for cand in cands:
        run = cand_runs[cand.name]
        own, comparisons = compared[cand.name]
        cond = condensed.get(cand.name)
        same = _same_variant(run, benchmark.built)
        candidates.append(
            CandidateResult(
                name=cand.name,
                rationale=cand.rationale,
                diff=_diff(cand.config),
                metrics=own,
                comparisons=comparisons,
                slices=compute.tag_values(run.judged, settings.slices[:1], settings.averaging),
                costs=_run_costs(run, settings),
                gate=gate_outcome(
                    inputs.policy, run.judged, run.config.final, reference, ref_name
                ),  # fmt: skip
                note=cand.note,
                decision=decide_verdict(  # Holm adjusts over the candidates
                    comparisons, [m.name for m in settings.compared], critical, len(cands)
                ),
                exposure=(
                    None
                    if run.config.prefilter
                    else exposure(
                        benchmark.parts, run.config.first_stage, run.config.depth, inputs.labels
                    )  # fmt: skip
                ),
                lists=()
                if same
                else compute.ranked_lists(
                    run.judged, settings.metrics, _SHOWN, averaging=settings.averaging
                ),
                lists_of=same,
                judged=judged_share(
                    base_run.judged, run.judged, k, settings.seed, None if cond is None else cond[1]
                ),  # fmt: skip
                condensed=None if cond is None else cond[0],
                condensed_agrees=None if cond is None else cond[1],
            )
        )
    label_next = to_label(base_run.judged, {n: r.judged for n, r in cand_runs.items()},
                          BASELINE, k)  # fmt: skip
    base_gate = _baseline_gate(inputs.policy, base_run.judged, base_run.config.final)
    return Gated(tuple(candidates), cand_runs, not_run, label_next, base_gate)


# -- a runs-only project's stages: every TREC run is a variant (the benchmark) and each run but
# the baseline run a candidate compared with it and gated (the gate) --------------------------
_NO_COSTS = RunCosts(None, None, None)  # a TREC run's costs are not known


@dataclass(frozen=True)
class RunsRead:
    """The runs-only benchmark's output: each run read and judged, and its Results row."""

    runs: Mapping[str, JudgedRun]
    variants: tuple[VariantResult, ...]
    notices: tuple[Notice, ...] = ()  # what reading the runs found (`order_notices`)


def _gate_k(evaluating: Evaluating) -> int:
    """The gate reads each run's top k: the policy's, else `RUNS_ONLY_DEPTH`."""
    policy = evaluating.inputs.policy
    return policy.k if policy is not None else RUNS_ONLY_DEPTH


def runs_benchmark(evaluating: Evaluating) -> RunsRead:
    """Every TREC run is a variant, judged at its full depth (or `Settings.max_depth`, as
    ``trec_eval -M``). A run is checked against the judgments before it is judged
    (`coverage.check_coverage`); the input hashing is held while it is read, unless it runs at
    the lowest priority (`_inputs.Hashing.held`)."""
    inputs, settings, book = evaluating.inputs, evaluating.settings, evaluating.book
    labels = inputs.labels
    qrels = {lb.id: dict(lb.grades) for lb in labels}
    names = [m.name for m in (*settings.metrics, *settings.slices)]
    depth = judged_depth(names, _gate_k(evaluating), settings.judged_k)
    graded = reads_whole_list(names)  # AP, R-prec, nDCG, bpref: through the last graded result
    tally = Tally(evaluating.progress, len(inputs.runs) * len(labels))
    judgments = _shared_judgments(qrels, labels)  # the qrels as arrays, once for every run

    def judge_run(trec: TrecRun) -> tuple[Sequence[Judged], Sequence[Judged] | None]:
        # counted run by run: one vector pass each; the condensed lists ride along
        judged = _judge_trec_run_condensed(trec, qrels, labels, settings.max_depth,
                                          inputs.relevance, depth, graded, judgments)  # fmt: skip
        tally.add(len(labels))
        return judged

    catalog = inputs.catalog
    corpus = frozenset(catalog.ids()) if catalog is not None else None
    unjudged: dict[str, tuple[Path, Coverage, list[str]]] = {}
    notices: list[Notice] = []

    def check(name: str, trec: TrecRun, path: Path) -> Coverage:
        found = check_coverage(trec, qrels, settings.judged_k, path,
                               min_coverage=settings.min_coverage, corpus=corpus)  # fmt: skip
        unjudged[str(path)] = (path, found, unjudged_top(trec, qrels, settings.judged_k))
        notices.extend(order_notices(name, trec, inputs.run_files[name]))
        return found

    progress = evaluating.progress
    let_go = progress.let_go if isinstance(progress, LetsGo) else None
    read = judged_external_runs(inputs.runs, judge_run, check, inputs.hashes.held, let_go)
    if corpus is None:
        check_judged_shares(unjudged, qrels, min_coverage=settings.min_coverage)
    # no list's ids here: the evaluation's end puts them on the lists the pages show (`_trim`),
    # and no other list is made; with documents, the Results' chunk facts read every list's
    # top `_SHOWN` first (`compute._inputs`)
    keep = 0 if corpus is None else _SHOWN
    judged_to = ("its full depth" if settings.max_depth is None
             else f"its top {settings.max_depth} ([runs] max_depth)")  # fmt: skip
    variants = tuple(
        replace(
            compute.variant_result(("run", name), name, "external",
                                   f"TREC run (tag {run.tag!r}), judged at {judged_to}",
                                   None, run.judged, _NO_COSTS, settings, book, keep=keep),
            coverage=run.coverage,
            judged=judged_stat(book, ("run", name), run.judged, settings.judged_k),
        )
        for name, run in read.items()
    )  # fmt: skip
    return RunsRead(read, variants, tuple(notices))


def _runs_reference(evaluating: Evaluating, base_run: JudgedRun) -> tuple[_Reference, str | None]:
    """The gate's baseline: the saved baseline file when there is one, else the baseline run."""
    inputs, k = evaluating.inputs, _gate_k(evaluating)
    if inputs.saved is not None:
        return inputs.saved.reference(), inputs.saved_name
    baseline = inputs.baseline_run
    assert baseline is not None  # noqa: S101 - a runs-only project has runs
    reference = _Reference.of_judged(base_run.judged, max(k, 1), k, baseline)
    return reference, f"the baseline run {baseline}"


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
        Tally(evaluating.progress, len(others), _COMPARED).counting(
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
    k, policy = _gate_k(evaluating), inputs.policy
    # without a policy there is no gate to decide: no list is cut to k, no reference shaped
    reference, ref_name = (
        _runs_reference(evaluating, base_run) if policy is not None else (None, None)
    )
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
                slices=compute.tag_values(run.judged, settings.slices[:1], settings.averaging),
                costs=_NO_COSTS,
                gate=gate_outcome(
                    policy,
                    run.judged,
                    max(k, 1),
                    reference,
                    ref_name,
                    cut="top",
                ),  # fmt: skip
                note=read_note(inputs.notes, name),
                decision=decide_verdict(  # Holm adjusts over the candidates
                    comparisons, [m.name for m in settings.compared], critical, len(others)
                ),
                lists_of=name,  # the run is a variant: its lists are stored there, once
                judged=judged_share(
                    base_run.judged,
                    run.judged,
                    settings.judged_k,
                    settings.seed,
                    None if cond is None else cond[1],
                ),  # fmt: skip
                condensed=None if cond is None else cond[0],
                condensed_agrees=None if cond is None else cond[1],
            )
        )
    catalog = inputs.catalog
    corpus = frozenset(catalog.ids()) if catalog is not None else None
    label_next = to_label(base_run.judged, {n: r.judged for n, r in others.items()},
                          str(baseline), settings.judged_k, corpus=corpus)  # fmt: skip
    base_gate = _baseline_gate(policy, base_run.judged, max(k, 1), "top")
    return Gated(tuple(candidates), {}, (), label_next, base_gate)
