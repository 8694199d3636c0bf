"""A judged external run shaped as an evalreport `Run` for the benchmark command's gate.

The report no longer uses this (its gate reads judged lists and k: `results.evaluate.gate_outcome`);
`evidencedesk.retrieval.benchmark_cli` still imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.retrieval.evalreport import Config, Run
from evidencedesk.retrieval.metrics import Judged, summarize
from evidencedesk.retrieval.parts import summary_names


def gate_run(judged: Sequence[Judged], k: int) -> Run:
    """A judged external run shaped as an evalreport `Run` whose final list is the top `k`."""
    cut = tuple(
        Judged(j.id, j.tags, j.answerable, j.grades[:k], j.pool, j.ids[:k], j.relevant)
        for j in judged
    )
    cfg = Config(first_stage="hybrid", reranker="none", depth=max(k, 1), final=max(k, 1))
    return Run(cfg, cut, summarize(cut, list(summary_names(cfg.final))), 0.0, 0.0)
