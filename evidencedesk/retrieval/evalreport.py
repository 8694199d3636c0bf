"""Experiments: a retrieval configuration, what it costs, and one judged run of it.

`Config()` is the baseline: hybrid first stage, no reranker, depth 10, three chunks to the prompt.
With reranker ``"none"`` the depth changes nothing in the final list (stage one's top `final` are
kept either way) except when the scope filter runs after ranking (``prefilter=False``) or the
depth is below final (the final list is then capped by the depth); with a reranker it is the
number of pairs scored per question, i.e. the cost. 10 is the usual small "rerank the top ten"
setting and leaves room for the reranker to lift a chunk from rank 4-10.

Costs are a **hypothetical price list**: the kit counts pairs and tokens and never times anything.
This is the course page's module: `run_config`, `ablate` and `retrieval_gate` are defined here
(the gate's policy and rules are `evidencedesk.gate`); the sizing sweep is in `experiments`.

One row of an ablation table: a change of the base configuration compared with the base.

`evalreport.ablate` runs the configurations and builds these rows; `_AblationRow` is both the
attribute API the site reads and the mapping the course page reads (``row["change"]``).

A run shaped for the release gate (`_GateInput`), and what it is compared with (`_Reference`).

`gate._decide_gate` reads these; `evalreport.retrieval_gate` shapes a run and its base with them, and
`baseline.Baseline.reference()` turns a saved baseline into a `_Reference`. Judged lists need no
pipeline config: `_shape` and `_Reference.of_judged` take them with their final size (a TREC
run's lists cut there to the gate's k: `_shape`'s "top"). A `_Reference` is a pipeline's (its
`Config`) or a named run's.

The sizing sweep: every depth x final of a reranked configuration, with its cost.

A cell whose depth is below its final is a legal configuration, but the sweep leaves it out: its
final list is capped by the depth, so it is the same run as depth x final=depth (the same list,
MRR, pairs and tokens; recall at a cut-off beyond the list's end is recall at the list's end),
and a second row of it would only repeat that row under another name. `_sizing_grid` says which
cells run and which are left out, so that the report can name the ones it skipped.

The single-field ablations (`ablate`) are in `evalreport`, the course page's module.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from evidencedesk._metric_names import MAX_CUTOFF
from evidencedesk.errors import EvidencedeskError, UnknownNameError
from evidencedesk.gate import (
    GatePolicy,
    GateResult,
    _decide_gate,
    _gate_result,
    _Reference,
)
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, _parse_metric, paired, summarize
from evidencedesk.retrieval.parts import Parts, _ConfigSearcher, _summary_names
from evidencedesk.retrieval.rerankers import _RERANKERS, make_reranker
from evidencedesk.retrieval.searchers import _Searcher

# the first-stage searchers a Config may name (minilm: the optional extra's model)
_FIRST_STAGES = ("sparse", "dense", "hybrid", "minilm")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _capped_words(depth: int, final: int) -> str:
    """How a configuration whose depth is below final is named: "final 5, capped at depth 3"."""
    return f"final {final}, capped at depth {depth}"


@dataclass(frozen=True)
class Config:
    """One retrieval configuration. Invalid values raise with the valid ones listed.

    A depth below final is legal: stage one fetches `depth` chunks, so the final list holds at
    most `depth` of them (`capped`), and the metrics at cut-off `final` are taken over that
    shorter list (precision@final still divides by final).
    """

    first_stage: str = "hybrid"
    reranker: str = "none"
    depth: int = 10
    final: int = 3
    max_words: int | None = None
    prefilter: bool = True

    def __post_init__(self) -> None:
        if self.first_stage not in _FIRST_STAGES:
            raise UnknownNameError("first stage", self.first_stage, _FIRST_STAGES)
        if self.reranker not in _RERANKERS:
            raise UnknownNameError("reranker", self.reranker, _RERANKERS)
        for name in ("depth", "final"):
            value = getattr(self, name)
            if not _is_int(value) or not 1 <= value <= MAX_CUTOFF:
                raise EvidencedeskError(
                    f"config {name}: expected an integer from 1 to {MAX_CUTOFF}, found {value!r}"
                )
        words = self.max_words
        if words is not None and (not _is_int(words) or not 1 <= words <= MAX_CUTOFF):
            raise EvidencedeskError(
                f"config max_words: expected null (no cut) or an integer from 1 to {MAX_CUTOFF}, "
                f"found {words!r}"
            )
        if not isinstance(self.prefilter, bool):
            raise EvidencedeskError(
                f"config prefilter: expected true (filter before ranking) or false (after), "
                f"found {self.prefilter!r}"
            )

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def replace(self, **changes: Any) -> Config:
        """A copy with `changes`; an unknown field name lists the valid ones."""
        for name in changes:
            if name not in self.field_names():
                raise UnknownNameError("config field", name, self.field_names())
        return replace(self, **changes)

    @classmethod
    def from_changes(cls, changes: Mapping[str, Any]) -> Config:
        """The baseline `Config()` with `changes` (a file's table); a ValueError in `Config`'s
        own words when they make no valid config (an unknown field, a bad type or value)."""
        try:
            return cls().replace(**changes)
        except (EvidencedeskError, TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None

    def changes_from(self, other: Config) -> dict[str, Any]:
        """The fields where this config differs from `other`, with this config's values."""
        return {
            name: getattr(self, name)
            for name in self.field_names()
            if getattr(self, name) != getattr(other, name)
        }

    @property
    def capped(self) -> bool:
        """Whether the depth is below final: stage one fetches fewer chunks than `final`, so
        the final list is capped by the depth (at most `depth` chunks reach the prompt)."""
        return self.depth < self.final

    def label(self) -> str:
        """A short human name, e.g. ``hybrid + pair (8 words) @10->3``; a capped final list
        says so: ``hybrid + pair @3->5 (final 5, capped at depth 3)``."""
        name = self.first_stage
        if self.reranker != "none":
            name += f" + {self.reranker}"
        if self.max_words is not None:
            name += f" ({self.max_words} words)"
        name += f" @{self.depth}->{self.final}"
        if not self.prefilter:
            name += " post-filter"
        if self.capped:
            name += f" ({_capped_words(self.depth, self.final)})"
        return name

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.field_names()}


@dataclass(frozen=True)
class Costs:
    """A hypothetical price list in milliseconds. Nothing is timed: pairs are counted."""

    stage_one_ms: float = 4.0
    per_pair_ms: float = 1.5

    def __post_init__(self) -> None:
        for name in ("stage_one_ms", "per_pair_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise EvidencedeskError(
                    f"costs {name}: expected a number of milliseconds >= 0, found {value!r}"
                )

    def latency(self, pairs: float) -> float:
        """stage_one_ms + per_pair_ms * pairs (10 pairs at (4, 1.5) -> 19.0)."""
        return self.stage_one_ms + self.per_pair_ms * pairs

    def to_dict(self) -> dict[str, float]:
        return {"stage_one_ms": self.stage_one_ms, "per_pair_ms": self.per_pair_ms}


def _value(result: Any) -> float | None:
    value: float | None = getattr(result, "value", result)
    return value


@dataclass(frozen=True)
class Run:
    """One judged configuration: the final lists, their metrics and what they cost."""

    config: Config
    judged: tuple[Judged, ...]
    summary: Mapping[str, Any]
    pairs_per_question: float
    tokens_per_question: float
    final_ids: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def value(self, name: str) -> float | None:
        """A summary value (``None`` when no question defines it), under any name of its metric
        (``MRR``, ``recip_rank``); a declared metric the summary lacks (``map``, ``bpref``) is
        computed from the judged lists."""
        if name in self.summary:
            return _value(self.summary[name])
        found = _parse_metric(name)  # an unknown name: an UnknownNameError with the closest
        if found.canonical in self.summary:
            return _value(self.summary[found.canonical])
        return summarize(self.judged, [name])[name].value

    def latency_ms(self, costs: Costs | None = None) -> float:
        return (costs or Costs()).latency(self.pairs_per_question)

    @property
    def scored_per_q(self) -> float:
        """Pairs the reranker scored per question (`pairs_per_question`, the page's name)."""
        return self.pairs_per_question

    @property
    def tokens_per_q(self) -> float:
        """Estimated prompt tokens per question (`tokens_per_question`, the page's name)."""
        return self.tokens_per_question

    @property
    def questions(self) -> int:
        return len(self.judged)

    def to_dict(self, costs: Costs | None = None) -> dict[str, Any]:
        costs = costs or Costs()
        return {
            "config": self.config.to_dict(),
            "label": self.config.label(),
            "questions": self.questions,
            "summary": {
                name: (r.to_dict() if hasattr(r, "to_dict") else r)
                for name, r in self.summary.items()
            },
            "pairs_per_question": self.pairs_per_question,
            "tokens_per_question": self.tokens_per_question,
            "latency_ms": self.latency_ms(costs),
            "costs": costs.to_dict(),
            "final_ids": {qid: list(ids) for qid, ids in self.final_ids.items()},
        }


def run_config(
    cfg: Config,
    parts: Parts | Mapping[str, _Searcher],
    catalog: Catalog,
    labels: Sequence[Label],
    scope: Scope | None = None,
    k: int | None = None,
) -> Run:
    """Run `cfg` over every labelled question and judge the final lists (``k`` defaults to final).

    Pairs per question are the pairs the reranker actually scored (``depth`` per question when
    stage one returns that many; 0 for ``"none"``). Tokens per question are
    `evidence.context_tokens` of the final chunks, averaged over all questions. `parts` may be
    the mapping `lifecycle.build_searchers` returns (see `Parts.of`).
    """
    parts = Parts.of(parts)
    scope = Scope() if scope is None else scope
    reranker = make_reranker(cfg.reranker, parts.scorer, cfg.max_words)
    if reranker is not None and hasattr(reranker, "reset"):
        reranker.reset()
    pipeline = _ConfigSearcher(cfg, parts.first(cfg.first_stage), reranker)
    judged = pipeline.judge(catalog, labels, scope, cfg.final if k is None else k)
    if len(pipeline.shown) != len(judged):
        raise EvidencedeskError(
            f"internal: expected one search per question, found {len(pipeline.shown)} searches "
            f"for {len(judged)} judged questions"
        )
    n = max(len(judged), 1)
    pairs = 0 if reranker is None else reranker.pairs_scored
    tokens = pipeline.tokens_shown()
    final_ids = {
        j.id: tuple(c.chunk.id for c in shown)
        for j, shown in zip(judged, pipeline.shown, strict=True)
    }
    return Run(
        config=cfg,
        judged=tuple(judged),
        summary=summarize(judged, list(_summary_names(cfg.final))),
        pairs_per_question=pairs / n,
        tokens_per_question=tokens / n,
        final_ids=final_ids,
    )


def ablate(
    base: Config,
    changes: Sequence[Mapping[str, Any] | tuple[str, Any]],
    parts: Parts | Mapping[str, _Searcher],
    catalog: Catalog,
    labels: Sequence[Label],
    scope: Scope | None = None,
    costs: Costs | None = None,
) -> list[_AblationRow]:
    """The base row first (MRR delta 0), then one row per change, each applied to the base alone.

    A change is one field, as a pair ``("reranker", "feature")`` or a dict; a dict of several
    fields reads as one combined change. Better/worse are per-question reciprocal-rank flips
    against the base and ``p`` the exact two-sided sign test over the untied questions.
    """
    costs = costs or Costs()
    parts = Parts.of(parts)  # once, so every run shares the first-stage cache
    wanted = [_as_change(number, change) for number, change in enumerate(changes, start=1)]
    base_run = run_config(base, parts, catalog, labels, scope)
    rows = [_ablation_row("base", {}, base_run, base_run, costs)]
    for change in wanted:
        run = run_config(base.replace(**change), parts, catalog, labels, scope)
        rows.append(_ablation_row(_change_name(change), change, run, base_run, costs))
    return rows


def _reference(base: Any, k: int) -> _Reference | None:
    if base is None or isinstance(base, _Reference):
        return base
    if isinstance(base, Run):
        return _Reference.of_run(base, k)
    to_reference = getattr(base, "reference", None)  # a saved `baseline.Baseline`
    if callable(to_reference):
        reference: _Reference = to_reference()
        return reference
    raise EvidencedeskError(
        f"gate baseline: expected a run (run_config) or a saved baseline (load_baseline), "
        f"found {type(base).__name__}"
    )


def retrieval_gate(policy: GatePolicy, run: Run, base: Any = None) -> GateResult:
    """Apply `policy` to `run` (`evidencedesk.gate._decide_gate`), comparing with `base` when given.

    `base` is a run (e.g. ``run_config(Config(), ...)``, compared directly, its recall taken at
    the policy's k) or a saved baseline (``baseline.load_baseline``).
    """
    return _decide_gate(policy, _gate_result(run, policy.k), _reference(base, policy.k))


# the keys an ablation row answers to as a mapping (the course page's `row["change"]`)
_ABLATION_KEYS = (
    "change",
    "config",
    "metrics",
    "delta",
    "better",
    "worse",
    "tied",
    "p",
    "pairs_per_question",
    "tokens_per_question",
    "latency_ms",
    "run",
)


@dataclass(frozen=True)
class _AblationRow(Mapping[str, Any]):
    """The base run (``changes == {}``, delta 0) or one change of it, compared with the base.

    Also a read-only mapping (`_ABLATION_KEYS`), as the course page reads it: ``row["change"]``
    (``"(base)"``, ``"reranker=none"`` ...), ``row["delta"]`` (the MRR delta), ``row["run"]``.
    """

    name: str
    changes: Mapping[str, Any]
    config: Config
    metrics: Mapping[str, float | None]
    mrr_delta: float | None
    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float
    pairs_per_question: float
    tokens_per_question: float
    latency_ms: float
    run: Run

    @property
    def change(self) -> str:
        return "(base)" if not self.changes else self.name

    def __getitem__(self, key: str) -> Any:
        if key not in _ABLATION_KEYS:
            raise KeyError(f"{key!r}; expected one of: {', '.join(_ABLATION_KEYS)}")
        return self.mrr_delta if key == "delta" else getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_ABLATION_KEYS)

    def __len__(self) -> int:
        return len(_ABLATION_KEYS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "changes": dict(self.changes),
            "config": self.config.to_dict(),
            "metrics": dict(self.metrics),
            "mrr_delta": self.mrr_delta,
            "better": list(self.better),
            "worse": list(self.worse),
            "tied": self.tied,
            "p": self.p,
            "pairs_per_question": self.pairs_per_question,
            "tokens_per_question": self.tokens_per_question,
            "latency_ms": self.latency_ms,
        }


def _change_name(changes: Mapping[str, Any]) -> str:
    """An ablation's change in words: "reranker=none, depth=3", or "base" for no change."""
    if not changes:
        return "base"
    return ", ".join(f"{k}={v}" for k, v in changes.items())


def _ablation_row(
    name: str, changes: Mapping[str, Any], run: Run, base: Run, costs: Costs
) -> _AblationRow:
    """One ablation row: the run with `changes` against the base run on MRR, flips and costs."""
    mine, theirs = run.value("mrr"), base.value("mrr")
    delta = None if mine is None or theirs is None else mine - theirs
    flips = paired(list(base.judged), list(run.judged), name="mrr")
    return _AblationRow(
        name=name,
        changes=dict(changes),
        config=run.config,
        metrics={n: run.value(n) for n in run.summary},
        mrr_delta=delta,
        better=tuple(flips.better),
        worse=tuple(flips.worse),
        tied=flips.tied,
        p=flips.p,
        pairs_per_question=run.pairs_per_question,
        tokens_per_question=run.tokens_per_question,
        latency_ms=run.latency_ms(costs),
        run=run,
    )


def _as_change(number: int, change: Any) -> dict[str, Any]:
    """A change as a dict: a mapping as given, or a ``(field, value)`` pair."""
    if isinstance(change, tuple | list) and len(change) == 2 and isinstance(change[0], str):
        return {change[0]: change[1]}
    if isinstance(change, Mapping) and change:
        return dict(change)
    raise EvidencedeskError(
        f"ablation change {number}: expected a (field, value) pair like ('reranker', 'feature') "
        f"or a non-empty mapping like {{'reranker': 'feature'}}, found {change!r}"
    )


_Cell = tuple[int, int]  # (depth, final)


@dataclass(frozen=True)
class _SweepRow:
    """One (depth, final) cell of the sizing table; latency from the hypothetical price list."""

    depth: int
    final: int
    recall: float | None
    mrr: float | None
    pairs_per_question: float
    tokens_per_question: float
    latency_ms: float
    run: Run | None = field(default=None, compare=False, repr=False)  # for paired comparisons

    def to_dict(self) -> dict[str, Any]:
        return {
            "depth": self.depth,
            "final": self.final,
            "recall": self.recall,
            "recall_name": f"recall@{self.final}",
            "mrr": self.mrr,
            "pairs_per_question": self.pairs_per_question,
            "tokens_per_question": self.tokens_per_question,
            "latency_ms": self.latency_ms,
        }


def _sizing_grid(depths: Iterable[int], finals: Iterable[int]) -> tuple[list[_Cell], list[_Cell]]:
    """The (depth, final) cells the sweep runs (depth >= final, depth outer, in the order given)
    and those it leaves out (depth < final: capped by the depth, a repeat of (depth, depth))."""
    finals = list(finals)
    cells = [(depth, final) for depth in depths for final in finals]
    return [c for c in cells if c[0] >= c[1]], [c for c in cells if c[0] < c[1]]


def sweep(
    depths: Iterable[int],
    finals: Iterable[int],
    parts: Parts,
    catalog: Catalog,
    labels: Sequence[Label],
    reranker: str = "feature",
    costs: Costs | None = None,
    base: Config | None = None,
    scope: Scope | None = None,
) -> list[_SweepRow]:
    """Every depth x final with depth >= final, in the order given (depth outer); the cells
    with depth < final are left out (`_sizing_grid`: each repeats its depth x depth cell).

    The reranker defaults to ``"feature"``: without one, depth changes nothing but the fetch.
    Latency comes from `costs`, a hypothetical price list; nothing is timed.
    """
    costs = costs or Costs()
    base = (base or Config()).replace(reranker=reranker)
    rows: list[_SweepRow] = []
    for depth, final in _sizing_grid(depths, finals)[0]:
        run = run_config(base.replace(depth=depth, final=final), parts, catalog, labels, scope)
        rows.append(
            _SweepRow(
                depth=depth,
                final=final,
                recall=run.value(f"recall@{final}"),
                mrr=run.value("mrr"),
                pairs_per_question=run.pairs_per_question,
                tokens_per_question=run.tokens_per_question,
                latency_ms=run.latency_ms(costs),
                run=run,
            )
        )
    return rows


__all__ = [
    "Config",
    "Costs",
    "Run",
    "ablate",
    "retrieval_gate",
    "run_config",
    "sweep",
]
