"""One row of an ablation table: a change of the base configuration compared with the base.

`evalreport.ablate` runs the configurations and builds these rows; `AblationRow` is both the
attribute API the site reads and the mapping the course page reads (``row["change"]``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evidencedesk.errors import EvidencedeskError
from evidencedesk.retrieval.metrics import paired

if TYPE_CHECKING:  # annotations only: evalreport imports this module to build its rows
    from evidencedesk.retrieval.evalreport import Config, Costs, Run

__all__ = ["ABLATION_KEYS", "AblationRow", "ablation_row", "as_change", "change_name"]

# the keys an ablation row answers to as a mapping (the course page's `row["change"]`)
ABLATION_KEYS = (
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
class AblationRow(Mapping[str, Any]):
    """The base run (``changes == {}``, delta 0) or one change of it, compared with the base.

    Also a read-only mapping (`ABLATION_KEYS`), as the course page reads it: ``row["change"]``
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
        if key not in ABLATION_KEYS:
            raise KeyError(f"{key!r}; expected one of: {', '.join(ABLATION_KEYS)}")
        return self.mrr_delta if key == "delta" else getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(ABLATION_KEYS)

    def __len__(self) -> int:
        return len(ABLATION_KEYS)

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


def change_name(changes: Mapping[str, Any]) -> str:
    """An ablation's change in words: "reranker=none, depth=3", or "base" for no change."""
    if not changes:
        return "base"
    return ", ".join(f"{k}={v}" for k, v in changes.items())


def ablation_row(
    name: str, changes: Mapping[str, Any], run: Run, base: Run, costs: Costs
) -> AblationRow:
    """One ablation row: the run with `changes` against the base run on MRR, flips and costs."""
    mine, theirs = run.value("mrr"), base.value("mrr")
    delta = None if mine is None or theirs is None else mine - theirs
    flips = paired(list(base.judged), list(run.judged), name="mrr")
    return AblationRow(
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


def as_change(number: int, change: Any) -> dict[str, Any]:
    """A change as a dict: a mapping as given, or a ``(field, value)`` pair."""
    if isinstance(change, tuple | list) and len(change) == 2 and isinstance(change[0], str):
        return {change[0]: change[1]}
    if isinstance(change, Mapping) and change:
        return dict(change)
    raise EvidencedeskError(
        f"ablation change {number}: expected a (field, value) pair like ('reranker', 'feature') "
        f"or a non-empty mapping like {{'reranker': 'feature'}}, found {change!r}"
    )
