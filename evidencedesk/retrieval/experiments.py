"""The sizing sweep (depth x final) and single-field ablations of a base configuration."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evidencedesk.errors import EvidencedeskError
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Costs, Parts, Run, run_config
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import paired

__all__ = ["AblationRow", "SweepRow", "ablate", "sweep"]


@dataclass(frozen=True)
class SweepRow:
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
) -> list[SweepRow]:
    """Every depth x final with depth >= final, in the order given (depth outer).

    The reranker defaults to ``"feature"``: without one, depth changes nothing but the fetch.
    Latency comes from `costs`, a hypothetical price list; nothing is timed.
    """
    costs = costs or Costs()
    base = (base or Config()).replace(reranker=reranker)
    finals = list(finals)
    rows: list[SweepRow] = []
    for depth in depths:
        for final in finals:
            if depth < final:
                continue
            run = run_config(base.replace(depth=depth, final=final), parts, catalog, labels, scope)
            rows.append(
                SweepRow(
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


@dataclass(frozen=True)
class AblationRow:
    """The base run (``changes == {}``, delta 0) or one change of it, compared with the base."""

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


def _name(changes: Mapping[str, Any]) -> str:
    if not changes:
        return "base"
    return ", ".join(f"{k}={v}" for k, v in changes.items())


def _row(name: str, changes: Mapping[str, Any], run: Run, base: Run, costs: Costs) -> AblationRow:
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


def ablate(
    base: Config,
    changes: Sequence[Mapping[str, Any]],
    parts: Parts,
    catalog: Catalog,
    labels: Sequence[Label],
    scope: Scope | None = None,
    costs: Costs | None = None,
) -> list[AblationRow]:
    """The base row first (MRR delta 0), then one row per change, each applied to the base alone.

    A change is normally one field (``{"reranker": "feature"}``); a dict of several fields is
    allowed and then reads as one combined change. Better/worse are per-question reciprocal-rank
    flips against the base and ``p`` the exact two-sided sign test over the untied questions.
    """
    costs = costs or Costs()
    base_run = run_config(base, parts, catalog, labels, scope)
    rows = [_row("base", {}, base_run, base_run, costs)]
    for number, change in enumerate(changes, start=1):
        if not isinstance(change, Mapping) or not change:
            raise EvidencedeskError(
                f"ablation change {number}: expected a non-empty mapping of config field -> "
                f"value like {{'reranker': 'feature'}}, found {change!r}"
            )
        cfg = base.replace(**dict(change))
        run = run_config(cfg, parts, catalog, labels, scope)
        rows.append(_row(_name(change), change, run, base_run, costs))
    return rows
