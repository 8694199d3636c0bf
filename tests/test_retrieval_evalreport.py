"""`retrieval.evalreport`: Config validation, cost arithmetic, pool-limited recall, ablations
(the sizing sweep, `retrieval.experiments`, is tested in test_retrieval_experiments.py)."""

from __future__ import annotations

import json

import pytest

from evidencedesk.errors import EvidencedeskError, UnknownNameError
from evidencedesk.retrieval import metrics
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.evalreport import Config, Costs, _capped_words, ablate, run_config
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.metrics import per_question
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.rerankers import _RERANKERS


@pytest.fixture(scope="module")
def demo():
    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    return Parts.build(catalog), catalog, labels


def run(demo, cfg: Config, **kw):
    parts, catalog, labels = demo
    return run_config(cfg, parts, catalog, labels, **kw)


# --- Config -------------------------------------------------------------------------------------


def test_config_default_is_the_baseline():
    cfg = Config()
    assert cfg.to_dict() == {
        "first_stage": "hybrid",
        "reranker": "none",
        "depth": 10,
        "final": 3,
        "max_words": None,
        "prefilter": True,
    }


@pytest.mark.parametrize(
    ("changes", "error", "fragment"),
    [
        ({"first_stage": "bm25"}, UnknownNameError, "one of: sparse, dense, hybrid, minilm"),
        ({"reranker": "cross"}, UnknownNameError, "expected one of: " + ", ".join(_RERANKERS)),
        ({"final": 0}, EvidencedeskError, "config final: expected an integer from 1 to 1000000"),
        ({"depth": True}, EvidencedeskError, "config depth: expected an integer"),
        ({"max_words": 0}, EvidencedeskError, "config max_words: expected null"),
        ({"prefilter": "yes"}, EvidencedeskError, "config prefilter: expected true"),
    ],
)
def test_config_rejects_invalid_values_listing_valid_ones(changes, error, fragment):
    with pytest.raises(error) as info:
        Config(**changes)
    assert fragment in str(info.value)


def test_a_depth_below_final_is_legal_and_says_it_is_capped():
    cfg = Config(final=5).replace(depth=3)
    assert (cfg.depth, cfg.final, cfg.capped) == (3, 5, True)
    assert cfg.label() == "hybrid @3->5 (final 5, capped at depth 3)"
    assert Config(reranker="pair", depth=1, final=3, prefilter=False).label() == (
        "hybrid + pair @1->3 post-filter (final 3, capped at depth 1)"
    )
    assert not Config(depth=3, final=3).capped and Config(depth=3).label() == "hybrid @3->3"
    assert _capped_words(3, 5) == "final 5, capped at depth 3"


def test_a_capped_final_list_is_the_depth_s_list(demo):
    """Depth 3, final 5: the same three chunks as depth 3, final 3; three pairs scored; metrics
    at cut-off 5 over a list of three (recall@5 = recall@3 of it, precision@5 = 3/5 of
    precision@3)."""
    capped = run(demo, Config(reranker="pair", depth=3, final=5))
    same = run(demo, Config(reranker="pair", depth=3, final=3))
    assert capped.final_ids == same.final_ids
    assert max(len(ids) for ids in capped.final_ids.values()) == 3
    assert capped.pairs_per_question == 3.0
    assert capped.tokens_per_question == same.tokens_per_question
    assert capped.value("recall@5") == same.value("recall@3")
    assert capped.value("precision@5") == pytest.approx(same.value("precision@3") * 3 / 5)
    assert capped.value("mrr") == same.value("mrr")


def test_config_replace_and_changes_from():
    base = Config()
    cut = base.replace(reranker="pair", max_words=8)
    assert cut.changes_from(base) == {"reranker": "pair", "max_words": 8}
    assert base.changes_from(base) == {}
    with pytest.raises(UnknownNameError, match="unknown config field 'rerank'"):
        base.replace(rerank="pair")


# --- costs --------------------------------------------------------------------------------------


def test_cost_arithmetic():
    assert Costs(4.0, 1.5).latency(10) == 19.0
    assert Costs().latency(0) == 4.0
    with pytest.raises(EvidencedeskError, match="per_pair_ms: expected a number"):
        Costs(per_pair_ms=-1)


def test_depth_3_scores_three_pairs_per_question(demo):
    r = run(demo, Config(reranker="feature", depth=3))
    assert r.pairs_per_question == 3.0
    assert r.latency_ms(Costs(4.0, 1.5)) == 4.0 + 1.5 * 3
    assert run(demo, Config()).pairs_per_question == 0.0  # "none" scores no pairs


def test_final_1_costs_fewer_tokens_than_final_3(demo):
    one, three = run(demo, Config(final=1)), run(demo, Config(final=3))
    assert 0 < one.tokens_per_question < three.tokens_per_question
    assert all(len(ids) <= 1 for ids in one.final_ids.values())


# --- pool-limited recall ------------------------------------------------------------------------


@pytest.mark.parametrize("reranker", _RERANKERS)
@pytest.mark.parametrize("final", [1, 3])
def test_recall_is_limited_by_the_candidate_pool(demo, reranker, final):
    """A reranker only reorders the depth-3 pool: it cannot find what stage one did not fetch."""
    pool = per_question(list(run(demo, Config(depth=3, final=3)).judged), "recall@3")
    got = run(demo, Config(reranker=reranker, depth=3, final=final))
    for qid, value in per_question(list(got.judged), f"recall@{final}").items():
        if value is not None:
            assert value <= pool[qid] + 1e-12, qid


def test_bigger_depth_never_lowers_recall_without_a_reranker(demo):
    previous = None
    for depth in (3, 5, 10, 20):
        now = per_question(list(run(demo, Config(depth=depth)).judged), "recall@3")
        if previous is not None:
            assert all(now[q] is None or now[q] >= previous[q] - 1e-12 for q in now)
        previous = now


def test_post_filter_never_shows_out_of_scope_chunks(demo):
    _, catalog, _ = demo
    allowed = catalog.allowed(Scope())
    for cfg in (Config(prefilter=False), Config(prefilter=False, depth=3, reranker="feature")):
        r = run(demo, cfg)
        assert all(c in allowed for ids in r.final_ids.values() for c in ids)


def test_post_filter_at_depth_3_loses_slots_to_out_of_scope_chunks(demo):
    """Without the pre-filter, restricted and superseded chunks take candidate slots before they
    are dropped, so fewer chunks reach the prompt (st01: superseded v2 and the restricted note
    rank 1 and 3 unfiltered)."""
    pre = run(demo, Config(depth=3))
    post = run(demo, Config(depth=3, prefilter=False))
    assert post.tokens_per_question < pre.tokens_per_question
    assert len(post.final_ids["st01"]) < len(pre.final_ids["st01"])


def test_run_summary_names_and_json(demo):
    r = run(demo, Config(final=5))
    assert list(r.summary) == [
        "recall@1",
        "recall@3",
        "recall@5",
        "precision@5",
        "mrr",
        "ndcg@5",
        "ndcg@5:linear",
        "hit@5",
    ]
    data = json.loads(json.dumps(r.to_dict()))
    assert data["config"]["final"] == 5 and data["questions"] == len(demo[2])


# --- ablation -----------------------------------------------------------------------------------


def test_ablation_rows(demo):
    changes = [
        {"reranker": "feature"},
        {"final": 5},
        {"prefilter": False},
        {"first_stage": "dense"},
    ]
    rows = ablate(Config(), changes, *demo)
    assert len(rows) == 1 + len(changes)
    base = rows[0]
    assert base.name == "base" and base.changes == {} and base.mrr_delta == 0
    assert base.better == () and base.worse == ()
    for row, change in zip(rows[1:], changes, strict=True):
        assert row.changes == change
        assert row.config == Config().replace(**change)
        assert row.config.changes_from(Config()) == change
        assert row.mrr_delta == pytest.approx(row.run.value("mrr") - base.run.value("mrr"))
        assert row.metrics["mrr"] == row.run.value("mrr")
    assert rows[1].pairs_per_question == 10.0 and rows[2].pairs_per_question == 0.0
    assert json.dumps([r.to_dict() for r in rows])


def test_an_ablation_below_the_base_s_final_runs_capped(demo):
    rows = ablate(Config(reranker="pair", final=5), [("depth", 3)], *demo)
    assert [r["change"] for r in rows] == ["(base)", "depth=3"]
    assert rows[1].config == Config(reranker="pair", depth=3, final=5)
    assert (rows[0].pairs_per_question, rows[1].pairs_per_question) == (10.0, 3.0)
    assert max(len(ids) for ids in rows[1].run.final_ids.values()) == 3


def test_ablation_rejects_an_empty_change(demo):
    with pytest.raises(EvidencedeskError, match="ablation change 1: expected a \\(field, value\\)"):
        ablate(Config(), [{}], *demo)


def test_tokens_per_question_is_the_estimate_of_each_final_list() -> None:
    from evidencedesk.retrieval.catalog import load_catalog
    from evidencedesk.retrieval.evalreport import Config, run_config
    from evidencedesk.retrieval.evidence import context_tokens
    from evidencedesk.retrieval.labels import load_labels
    from evidencedesk.retrieval.lifecycle import build_searchers

    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    for cfg in (Config(), Config(final=5, depth=10), Config(first_stage="sparse", final=1)):
        run = run_config(cfg, build_searchers(catalog), catalog, labels)
        lists = [[catalog.get(c) for c in ids] for ids in run.final_ids.values()]
        want = sum(context_tokens(chunks) for chunks in lists) / len(labels)
        assert run.tokens_per_question == want and want > 0


def test_a_run_value_takes_any_name_of_a_metric_and_computes_the_ones_it_lacks(demo):
    r = run(demo, Config())
    assert r.value("MRR") == r.value("recip_rank") == r.value("RR") == r.value("mrr")
    assert r.value("P_3") == r.value("precision@3")
    assert "map" not in r.summary  # computed from the judged lists on demand
    assert r.value("AP") == r.value("map") == metrics.summarize(r.judged, ["map"])["map"].value
    with pytest.raises(UnknownNameError, match="did you mean map or map@10"):
        r.value("mapp")
