"""`retrieval.experiments`: the sizing sweep over depth x final, and the cells it leaves out."""

from __future__ import annotations

import json

import pytest

from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.evalreport import Config, Costs, _sizing_grid, run_config, sweep
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.parts import Parts


@pytest.fixture(scope="module")
def demo():
    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    return Parts.build(catalog), catalog, labels


@pytest.mark.parametrize(
    ("depths", "finals", "swept", "left_out"),
    [
        ((3, 10), (1, 3, 5), [(3, 1), (3, 3), (10, 1), (10, 3), (10, 5)], [(3, 5)]),
        ((5, 3), (3, 5), [(5, 3), (5, 5), (3, 3)], [(3, 5)]),  # the order given, depth outer
        ((1,), (3, 5), [], [(1, 3), (1, 5)]),
        ((), (3,), [], []),
    ],
)
def test_sizing_grid_runs_depth_at_least_final_and_names_the_rest(
    depths, finals, swept, left_out
) -> None:
    assert _sizing_grid(depths, finals) == (swept, left_out)


def test_sweep_keeps_depth_at_least_final(demo):
    rows = sweep([3, 10], [1, 3, 5], *demo, reranker="feature")
    assert [(r.depth, r.final) for r in rows] == [(3, 1), (3, 3), (10, 1), (10, 3), (10, 5)]
    for row in rows:
        assert row.pairs_per_question == row.depth
        assert row.latency_ms == Costs().latency(row.depth)
    assert json.dumps([r.to_dict() for r in rows])


def test_a_left_out_cell_would_repeat_its_depth_by_depth_row(demo):
    """Why the sweep skips depth 3 x final 5: its run is depth 3 x final 3's, row for row."""
    parts, catalog, labels = demo
    [row] = sweep([3], [3], *demo, reranker="feature")
    capped = run_config(Config(reranker="feature", depth=3, final=5), parts, catalog, labels)
    assert capped.final_ids == row.run.final_ids  # type: ignore[union-attr]
    assert (capped.value("recall@5"), capped.value("mrr")) == (row.recall, row.mrr)
    assert (capped.pairs_per_question, capped.tokens_per_question) == (
        row.pairs_per_question,
        row.tokens_per_question,
    )
