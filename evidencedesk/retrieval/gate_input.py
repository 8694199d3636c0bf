"""A run shaped for the release gate (`GateInput`), and what it is compared with (`Reference`).

`gate.decide_gate` reads these; `evalreport.retrieval_gate` shapes a run and its base with them, and
`baseline.Baseline.reference()` turns a saved baseline into a `Reference`. Judged lists need no
pipeline config: `shape` and `Reference.of_judged` take them with their final size (a TREC run's
lists first `cut` to the gate's k). A `Reference` is a pipeline's (its `Config`) or a named run's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from evidencedesk.retrieval.metrics import Judged, per_question_all, summarize

if TYPE_CHECKING:  # annotations only: evalreport imports this module to gate its runs
    from evidencedesk.retrieval.evalreport import Config

__all__ = ["GateInput", "ConfigRun", "Reference", "cut", "gate_result", "shape"]


class ConfigRun(Protocol):
    """What the gate reads of a run (`evalreport.Run` is one)."""

    # read-only properties, so that a frozen dataclass satisfies them
    @property
    def judged(self) -> Sequence[Judged]: ...
    @property
    def config(self) -> Config: ...


@dataclass(frozen=True)
class GateInput:
    """A run shaped for the gate: recall@k, pass rate and one case per answerable question."""

    k: int
    final: int
    recall: float | None
    pass_rate: float | None
    cases: dict[str, bool]
    rr: dict[str, float | None]
    recall_by_question: dict[str, float | None]
    mrr: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "final": self.final,
            "recall": self.recall,
            "pass_rate": self.pass_rate,
            "mrr": self.mrr,
            "cases": dict(self.cases),
        }


def gate_result(run: ConfigRun, k: int | None = None) -> GateInput:
    """passed = a relevant chunk (at the judged lists' threshold) is in the final list (answerable questions only)."""
    final = run.config.final
    return shape(run.judged, final, final if k is None else k)


def cut(judged: Sequence[Judged], k: int) -> tuple[Judged, ...]:
    """Each ranked list cut to its top `k`: a TREC run's final list as the gate reads it."""
    return tuple(
        Judged(j.id, j.tags, j.answerable, j.grades[:k], j.pool, j.ids[:k], j.relevant)
        for j in judged
    )


def shape(judged_lists: Sequence[Judged], final: int, k: int) -> GateInput:
    """Judged final lists of size `final` shaped for the gate, recall measured at `k`."""
    judged = list(judged_lists)
    hits = per_question_all(judged, f"hit@{final}")
    # one case per answerable question that has a relevant chunk within the scope
    cases = {j.id: bool(hits[j.id]) for j in judged if j.answerable and hits[j.id] is not None}
    summary = summarize(judged, [f"recall@{k}", "mrr"])
    return GateInput(
        k=k,
        final=final,
        recall=summary[f"recall@{k}"].value,
        pass_rate=(sum(cases.values()) / len(cases)) if cases else None,
        cases=cases,
        rr=per_question_all(judged, "mrr"),
        recall_by_question=per_question_all(judged, f"recall@{k}"),
        mrr=summary["mrr"].value,
    )


@dataclass(frozen=True)
class Reference:
    """What a run is compared with: a saved baseline's or a base run's summary, per-question
    reciprocal ranks and the k its recall was measured at; it is a pipeline's (`config`) or a
    named run's (`run`: a TREC run, a runs-only project's saved baseline), exactly one."""

    k: int
    summary: Mapping[str, float | None]
    rr: Mapping[str, float | None]
    config: Config | None = None
    run: str | None = None

    def __post_init__(self) -> None:
        if (self.config is None) == (self.run is None):
            raise ValueError("a Reference is a pipeline's (config) or a run's (run), exactly one")

    def what(self) -> dict[str, Any]:
        """What the reference is, as the gate shows it: the config's fields, or ``{"run": name}``."""
        return {"run": self.run} if self.config is None else self.config.to_dict()

    @classmethod
    def of_run(cls, run: ConfigRun, k: int) -> Reference:
        """A pipeline run as the reference, measured at the policy's k (so its recall@k always
        exists)."""
        return cls._of(shape(run.judged, run.config.final, k), config=run.config)

    @classmethod
    def of_judged(cls, judged: Sequence[Judged], final: int, k: int, run: str) -> Reference:
        """The judged final lists of the run named `run` as the reference, measured at `k`."""
        return cls._of(shape(judged, final, k), run=run)

    @classmethod
    def _of(
        cls, shaped: GateInput, config: Config | None = None, run: str | None = None
    ) -> Reference:
        summary = {f"recall@{shaped.k}": shaped.recall, "mrr": shaped.mrr}
        return cls(shaped.k, summary, shaped.rr, config, run)
