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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from evidencedesk.errors import EvidencedeskError, UnknownNameError
from evidencedesk.gate import GatePolicy, GateResult, decide_gate
from evidencedesk.metric_names import MAX_CUTOFF
from evidencedesk.retrieval.ablation import AblationRow, ablation_row, as_change, change_name
from evidencedesk.retrieval.base import Searcher
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.gate_input import Reference, gate_result
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, parse_metric, summarize
from evidencedesk.retrieval.parts import ConfigSearcher, Parts, summary_names
from evidencedesk.retrieval.rerankers import RERANKERS, make_reranker

__all__ = [
    "FIRST_STAGES",
    "Config",
    "Costs",
    "Run",
    "ablate",
    "capped_words",
    "retrieval_gate",
    "run_config",
]

# the first-stage searchers a Config may name (minilm: the optional extra's model)
FIRST_STAGES = ("sparse", "dense", "hybrid", "minilm")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def capped_words(depth: int, final: int) -> str:
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
        if self.first_stage not in FIRST_STAGES:
            raise UnknownNameError("first stage", self.first_stage, FIRST_STAGES)
        if self.reranker not in RERANKERS:
            raise UnknownNameError("reranker", self.reranker, RERANKERS)
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
            name += f" ({capped_words(self.depth, self.final)})"
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
    return getattr(result, "value", result)


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
        found = parse_metric(name)  # an unknown name: an UnknownNameError with the closest
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
    parts: Parts | Mapping[str, Searcher],
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
    pipeline = ConfigSearcher(cfg, parts.first(cfg.first_stage), reranker)
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
        summary=summarize(judged, list(summary_names(cfg.final))),
        pairs_per_question=pairs / n,
        tokens_per_question=tokens / n,
        final_ids=final_ids,
    )


# -- ablations --------------------------------------------------------------------------------


def ablate(
    base: Config,
    changes: Sequence[Mapping[str, Any] | tuple[str, Any]],
    parts: Parts | Mapping[str, Searcher],
    catalog: Catalog,
    labels: Sequence[Label],
    scope: Scope | None = None,
    costs: Costs | None = None,
) -> list[AblationRow]:
    """The base row first (MRR delta 0), then one row per change, each applied to the base alone.

    A change is one field, as a pair ``("reranker", "feature")`` or a dict; a dict of several
    fields reads as one combined change. Better/worse are per-question reciprocal-rank flips
    against the base and ``p`` the exact two-sided sign test over the untied questions.
    """
    costs = costs or Costs()
    parts = Parts.of(parts)  # once, so every run shares the first-stage cache
    wanted = [as_change(number, change) for number, change in enumerate(changes, start=1)]
    base_run = run_config(base, parts, catalog, labels, scope)
    rows = [ablation_row("base", {}, base_run, base_run, costs)]
    for change in wanted:
        run = run_config(base.replace(**change), parts, catalog, labels, scope)
        rows.append(ablation_row(change_name(change), change, run, base_run, costs))
    return rows


# -- the gate ---------------------------------------------------------------------------------


def _reference(base: Any, k: int) -> Reference | None:
    if base is None or isinstance(base, Reference):
        return base
    if isinstance(base, Run):
        return Reference.of_run(base, k)
    to_reference = getattr(base, "reference", None)  # a saved `baseline.Baseline`
    if callable(to_reference):
        return to_reference()
    raise EvidencedeskError(
        f"gate baseline: expected a run (run_config) or a saved baseline (load_baseline), "
        f"found {type(base).__name__}"
    )


def retrieval_gate(policy: GatePolicy, run: Run, base: Any = None) -> GateResult:
    """Apply `policy` to `run` (`evidencedesk.gate.decide_gate`), comparing with `base` when given.

    `base` is a run (e.g. ``run_config(Config(), ...)``, compared directly, its recall taken at
    the policy's k) or a saved baseline (``baseline.load_baseline``).
    """
    return decide_gate(policy, gate_result(run, policy.k), _reference(base, policy.k))
