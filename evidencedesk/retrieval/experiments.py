"""The sizing sweep: every depth x final of a reranked configuration, with its cost.

A cell whose depth is below its final is a legal configuration, but the sweep leaves it out: its
final list is capped by the depth, so it is the same run as depth x final=depth (the same list,
MRR, pairs and tokens; recall at a cut-off beyond the list's end is recall at the list's end),
and a second row of it would only repeat that row under another name. `sizing_grid` says which
cells run and which are left out, so that the report can name the ones it skipped.

The single-field ablations (`ablate`) are in `evalreport`, the course page's module."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evalreport import Config, Costs, Run, run_config
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.parts import Parts

__all__ = ["SweepRow", "sizing_grid", "sweep"]

_Cell = tuple[int, int]  # (depth, final)


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


def sizing_grid(depths: Iterable[int], finals: Iterable[int]) -> tuple[list[_Cell], list[_Cell]]:
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
) -> list[SweepRow]:
    """Every depth x final with depth >= final, in the order given (depth outer); the cells
    with depth < final are left out (`sizing_grid`: each repeats its depth x depth cell).

    The reranker defaults to ``"feature"``: without one, depth changes nothing but the fetch.
    Latency comes from `costs`, a hypothetical price list; nothing is timed.
    """
    costs = costs or Costs()
    base = (base or Config()).replace(reranker=reranker)
    rows: list[SweepRow] = []
    for depth, final in sizing_grid(depths, finals)[0]:
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
