"""The course page's calls, written as its reader writes them (docs/course-api.md, its table).

One test per row of the contract: import as the page does, call, use the result as the page
does. Values are the hand-worked ones (SPEC §4's worked example, exact sign tests); on the demo
data the tests assert behaviours (shapes, agreement between two routes), not the demo's numbers.
"""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys

import pytest

from evidencedesk.chunking import chunk_document, load_document
from evidencedesk.errors import EvidencedeskError
from evidencedesk.paths import _ROOT, CORPUS, DATA
from evidencedesk.retrieval import evalreport, evidence, lifecycle, metrics
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.evalreport import Config, Costs, retrieval_gate, run_config
from evidencedesk.retrieval.evidence import check_sentences
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import Tenancy, delete_document, replace_document
from evidencedesk.retrieval.metrics import (
    Judged,
    dcg,
    gain,
    ndcg_at,
    precision_at,
    recall_at,
    reciprocal_rank,
)
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.searchers import DenseSearcher, HybridSearcher, SparseSearcher, TwoStage
from tests.conftest import make_chunk

WORKED = Judged("demo", ("direct",), True, grades=(0, 2, 1, 0, 2), pool=(2, 2, 1))


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    return catalog, load_labels(catalog=catalog), lifecycle.build_searchers(catalog)


@pytest.fixture(scope="module")
def ablation(demo):  # type: ignore[no-untyped-def]
    catalog, labels, searchers = demo
    changes = [("reranker", "none"), ("max_words", 8), ("final", 5)]
    return evalreport.ablate(Config(reranker="feature"), changes, searchers, catalog, labels)


def judged(qid: str, rr_rank: int | None) -> Judged:
    """A question whose first relevant result is at `rr_rank` (None: not returned)."""
    grades = (0,) * 3 if rr_rank is None else (0,) * (rr_rank - 1) + (2,)
    return Judged(qid, ("t",), True, grades, (2,))


def test_searchers_module_is_the_one_home_of_the_searchers(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, _, _ = demo
    for cls in (SparseSearcher, DenseSearcher, HybridSearcher, TwoStage):
        assert cls.__module__ == "evidencedesk.retrieval.searchers"
    for name in ("searchers", "evalreport"):  # real attributes, no module __getattr__ trick
        assert not hasattr(importlib.import_module(f"evidencedesk.retrieval.{name}"), "__getattr__")
    sparse, dense = SparseSearcher(catalog.chunks), DenseSearcher(catalog.chunks)
    hybrid = HybridSearcher(sparse, dense)
    allowed = catalog.allowed(Scope())
    found = hybrid.search("RD2-24 recall", 3, allowed)
    assert [c.rank for c in found] == [1, 2, 3]
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)
    assert all(c.chunk.id in allowed for c in found)
    assert hybrid.search("RD2-24 recall", 3, frozenset()) == []  # an empty set gives nothing
    two = TwoStage(hybrid, None, depth=10, final=2)
    assert [c.chunk.id for c in two.search("RD2-24 recall", 5, allowed)] == [
        c.chunk.id for c in found[:2]
    ]


def test_build_searchers_mapping_is_accepted_as_parts(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, searchers = demo
    assert set(searchers) == {"sparse", "dense", "hybrid"}
    cfg = Config(reranker="pair")  # needs the pair scorer, which the mapping does not carry
    from_mapping = run_config(cfg, searchers, catalog, labels)
    from_parts = run_config(cfg, Parts.of(searchers), catalog, labels)
    assert from_mapping.final_ids == from_parts.final_ids
    assert dict(from_mapping.summary) == dict(from_parts.summary)
    no_hybrid = {k: v for k, v in searchers.items() if k != "hybrid"}  # built when missing
    assert run_config(Config(), no_hybrid, catalog, labels).final_ids == (
        run_config(Config(), searchers, catalog, labels).final_ids
    )
    with pytest.raises(EvidencedeskError, match=r"parts\['sparse'\]: expected a searcher"):
        run_config(Config(), {"sparse": "bm25"}, catalog, labels)


def test_summarize_values_format_as_floats() -> None:
    names = ["recall@1", "recall@2", "recall@5", "precision@5", "mrr", "ndcg@5", "ndcg@5:linear"]
    summary = metrics.summarize([WORKED], names)
    shown = [f"{value:.3f}" for value in summary.values()]
    assert shown == ["0.000", "0.500", "1.000", "0.400", "0.500", "0.659", "0.674"]
    mrr = summary["mrr"]
    assert (mrr.value, mrr.n, mrr.left_out, mrr.name) == (0.5, 1, 0, "mrr")
    assert mrr.to_dict() == {"name": "mrr", "value": 0.5, "n": 1, "left_out": 0}
    unanswerable = Judged("u", ("unanswerable",), False, (0, 0), ())
    undefined = metrics.summarize([unanswerable], ["mrr"])["mrr"]
    assert undefined.value is None and (undefined.n, undefined.left_out) == (0, 1)
    assert f"{undefined:.3f}" == "n/a" and f"{undefined:>7.3f}" == "    n/a"
    assert (str(mrr), f"{mrr}", str(undefined)) == ("0.5", "0.5", "n/a")
    assert (
        undefined != undefined.value
        and undefined == metrics.summarize([unanswerable], ["mrr"])["mrr"]
    )


def test_bootstrap_ci_unpacks_and_indexes_as_low_and_high() -> None:
    values = [1.0, 0.5, 0.0, 1.0, 0.333, 1.0, 0.25, 0.0]
    lo, hi = metrics.bootstrap_ci(values, seed=0)
    ci = metrics.bootstrap_ci(values, seed=0)
    assert (lo, hi) == (ci.low, ci.high) == (ci[0], ci[1]) and ci.n == len(values)
    assert len(ci) == 2 and f"[{ci[0]:.3f}, {ci[1]:.3f}]" == f"[{lo:.3f}, {hi:.3f}]"
    assert 0.0 <= lo < ci.mean < hi <= 1.0
    lo, hi = metrics.bootstrap_ci([0.5, 0.5, 0.5], seed=0)
    assert lo == hi == 0.5
    lo, hi = metrics.bootstrap_ci([None, None], seed=0)  # nothing defined: no interval
    assert (lo, hi) == (None, None)


@pytest.mark.parametrize(
    ("better", "shown"), [(4, "0.125"), (5, "0.062"), (6, "0.031"), (7, "0.016")]
)
def test_per_question_by_tag_and_paired(better: int, shown: str) -> None:
    undefined = Judged("none", ("t",), False, (0, 0), ())  # no relevant chunk: left out
    before = [judged(f"q{i}", 2) for i in range(better)] + [judged("tie", 1), judged("gone", None)]
    after = [judged(f"q{i}", 1) for i in range(better)] + [judged("tie", 1), judged("gone", None)]
    before, after = [*before, undefined], [*after, undefined]
    assert metrics.per_question(before, "mrr")["q0"] == 0.5
    values = metrics.per_question(after, "mrr")
    assert values == {**{f"q{i}": 1.0 for i in range(better)}, "tie": 1.0, "gone": 0.0}
    assert sum(values.values()) / len(values) == (better + 1) / (better + 2)  # the page's mean
    assert metrics.per_question_all(after, "mrr")["none"] is None
    assert metrics.by_tag(after, "recall@1") == {"t": ((better + 1) / (better + 2), better + 2)}
    assert metrics.by_tag(after, "mrr", values) == metrics.by_tag(after, "mrr")
    flips = metrics.paired(before, after)
    assert flips.better == tuple(f"q{i}" for i in range(better)) and flips.worse == ()
    assert flips.tied == 2
    assert f"{flips.p:.3f}" == shown
    assert flips.p == 2 / 2**better  # exact: 2 x (1/2)^n
    assert metrics.paired(metrics.per_question(before, "mrr"), values) == flips
    assert metrics.bootstrap_ci(values, seed=0) == metrics.bootstrap_ci(list(values.values()))


def test_run_config_summary_and_costs(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, searchers = demo
    r = run_config(Config(reranker="feature"), searchers, catalog, labels)
    assert isinstance(r.summary["recall@3"], float) and isinstance(r.summary["mrr"], float)
    assert f"{r.summary['mrr']:.3f}" == f"{r.value('mrr'):.3f}"
    assert r.scored_per_q == r.pairs_per_question == 10.0  # depth 10 pairs for every question
    assert r.tokens_per_q == r.tokens_per_question > 0
    assert r.latency_ms(Costs(4.0, 1.5)) == 4.0 + 1.5 * r.scored_per_q == 19.0
    baseline = run_config(Config(), searchers, catalog, labels)
    assert baseline.scored_per_q == 0.0 and baseline.latency_ms(Costs(4.0, 1.5)) == 4.0


def test_ablate_takes_pairs_and_rows_read_as_mappings(ablation, demo) -> None:  # type: ignore[no-untyped-def]
    base, *rows = ablation
    assert [row["change"] for row in ablation] == [
        "(base)",
        "reranker=none",
        "max_words=8",
        "final=5",
    ]
    assert base["delta"] == 0.0 and base["better"] == () and base["worse"] == ()
    for row in rows:
        assert row["delta"] == pytest.approx(row["run"].summary["mrr"] - base["run"].summary["mrr"])
        flips = metrics.paired(list(base["run"].judged), list(row["run"].judged))
        assert (row["better"], row["worse"], row["p"]) == (flips.better, flips.worse, flips.p)
    assert rows[0]["run"].config == Config()  # reranker=none applied to the base alone
    assert (rows[0].mrr_delta, rows[0].change) == (rows[0]["delta"], "reranker=none")
    catalog, labels, searchers = demo
    as_dicts = evalreport.ablate(
        Config(reranker="feature"), [{"reranker": "none"}], searchers, catalog, labels
    )
    assert [r["change"] for r in as_dicts] == ["(base)", "reranker=none"]
    assert as_dicts[1]["run"].final_ids == rows[0]["run"].final_ids
    with pytest.raises(KeyError, match="expected one of: change"):
        base["mrr"]
    with pytest.raises(EvidencedeskError, match=r"ablation change 1: expected a \(field, value\)"):
        evalreport.ablate(Config(), ["reranker"], searchers, catalog, labels)


def test_ablate_a_depth_below_the_base_s_final(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, searchers = demo
    rows = evalreport.ablate(
        Config(reranker="pair", final=5), [("depth", 3)], searchers, catalog, labels
    )
    assert [row["change"] for row in rows] == ["(base)", "depth=3"]
    # stage one fetches three: three pairs scored, at most three chunks reach the prompt
    assert [row["run"].scored_per_q for row in rows] == [10.0, 3.0]
    assert max(len(ids) for ids in rows[1]["run"].final_ids.values()) == 3


def test_dedupe_kept_merged_held_back() -> None:
    found = [
        make_chunk("faq:c0", "Bikes may be returned within 30 days for a full refund."),
        make_chunk("policy:c0", "Bikes may be returned within 30 days for a full refund!"),
        make_chunk("partner:c0", "Bikes may be returned within 14 days for a full refund."),
        make_chunk("ship:c0", "Express delivery takes 2 business days."),
    ]
    result = evidence.dedupe(found)
    assert [c.id for c in result.kept] == ["faq:c0", "partner:c0", "ship:c0"]
    assert result.merged == {"faq:c0": ("policy:c0",)}
    assert result.held_back == (("faq:c0", "partner:c0"),)


def test_fit_tokens_first_item_is_the_kept_prefix(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, _, _ = demo
    chunks = list(catalog.chunks[:4])
    budget = evidence.context_tokens(chunks[:2])
    kept = evidence.fit_tokens(chunks, budget)[0]
    assert list(kept) == chunks[:2]
    kept, dropped = evidence.fit_tokens(chunks, budget)
    assert list(dropped) == chunks[2:]
    assert evidence.fit_tokens(chunks, 0)[0] == ()
    assert evidence.edges_first([1, 2, 3, 4]) == [1, 3, 4, 2]


def test_citation_scores_read_and_print_as_a_dict() -> None:
    shown = {"kc-shipping:c1": "Express delivery takes 2 business days."}
    answer = "Express delivery takes 2 business days [kc-shipping:c1]."
    s = evidence.citation_scores(check_sentences(answer, shown))
    assert (s["coverage"], s["resolve"], s["support"]) == (1.0, 1.0, 1.0)
    assert str(s) == "{'coverage': 1.0, 'resolve': 1.0, 'support': 1.0}"
    wrong = evidence.citation_scores(
        check_sentences("Express takes 5 days [kc-shipping:c1]. Free [kc-x:c0].", shown)
    )
    assert dict(wrong) == {"coverage": 1.0, "resolve": 0.5, "support": 0.0}


def test_served_is_a_set_of_chunk_ids(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, _, searchers = demo
    searcher = searchers["sparse"]  # built before the deletion: the old index
    cat, gone = delete_document(catalog, "kc-returns-v2")
    still = lifecycle.served(searcher, ["store credit"], None, 20)
    assert isinstance(still, frozenset)
    assert still & set(gone.removed)  # an index not rebuilt still serves the deleted text
    rebuilt = lifecycle.build_searchers(cat)["sparse"]
    assert not lifecycle.served(rebuilt, ["store credit"], None, 20) & set(gone.removed)
    assert lifecycle.served(searcher, ["store credit"], frozenset(), 20) == frozenset()


def test_boundary_leaks_len_is_the_number_of_leaks() -> None:
    from evidencedesk.paths import DOCS, DUPS, TENANT_DOCS

    catalog = load_catalog(folders=(CORPUS, DOCS, DUPS, TENANT_DOCS))
    tenancy = Tenancy.load(known_docs={d.id for d in catalog.documents})
    searchers = lifecycle.build_searchers(catalog)
    asks = ["RD2-24 recall", "How fast is express shipping?", "store credit"]
    assert len(lifecycle.boundary_leaks(searchers, catalog, tenancy, asks, Scope())) == 0
    table = lifecycle._leak_table(searchers, catalog, tenancy, asks, Scope())
    assert len(table) == 3 * 2 and any(r.control_foreign > 0 for r in table)


def test_retrieval_gate_against_a_run_or_the_saved_baseline(demo) -> None:  # type: ignore[no-untyped-def]
    from evidencedesk.baseline import load_baseline
    from evidencedesk.gate import load_policy

    catalog, labels, searchers = demo
    policy = load_policy(DATA / "gate_policy_retrieval.json", labels)
    base = run_config(Config(), searchers, catalog, labels)
    run = run_config(Config(reranker="pair", max_words=8), searchers, catalog, labels)
    result = retrieval_gate(policy, run, base)
    assert result.text().split("\n")[0] in ("GATE: GO", "GATE: REVIEW", "GATE: BLOCK")
    # the saved baseline is this same Config() run: both routes give the same verdict and lines
    saved = load_baseline(DATA / "baseline_retrieval.json", labels)
    assert retrieval_gate(policy, run, saved).text() == result.text()
    itself = retrieval_gate(policy, base, base)
    assert not any(line.startswith("review:") for line in itself.lines)
    with pytest.raises(EvidencedeskError, match="gate baseline: expected a run"):
        retrieval_gate(policy, run, "data/baseline_retrieval.json")


def test_documents_replace_and_delete(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, _, _ = demo
    doc = load_document(CORPUS / "kc-returns-v3.md")
    chunks = chunk_document(doc)
    new_chunks = [
        dataclasses.replace(
            c,
            id=f"kc-returns-v4:c{n}",
            doc_id="kc-returns-v4",
            version=4,
            text=c.text.replace("30 days", "45 days"),
        )
        for n, c in enumerate(chunks)
    ]
    cat, change = replace_document(catalog, new_chunks)
    assert set(change.superseded) == {c.id for c in chunks}
    assert {c.id for c in new_chunks} <= cat.allowed(Scope())
    assert not set(change.superseded) & cat.allowed(Scope())
    cat, gone = delete_document(cat, "kc-returns-v4")
    assert set(gone.removed) == {c.id for c in new_chunks}


def test_judged_worked_example() -> None:
    j = WORKED
    assert [recall_at(j, k) for k in (1, 2, 5)] == [0.0, 0.5, 1.0]
    assert [precision_at(j, k) for k in (1, 2, 5)] == [0.0, 0.5, 0.4]
    assert reciprocal_rank(j) == 0.5
    assert f"{ndcg_at(j, 5):.3f}" == "0.659" and f"{ndcg_at(j, 5, 'linear'):.3f}" == "0.674"
    best = dataclasses.replace(j, grades=(2, 2, 1, 0, 0))
    assert f"{ndcg_at(best, 5):.3f}" == "1.000"
    assert (gain(2), gain(2, "linear"), dcg([2, 0, 1])) == (3.0, 2.0, 3.5)


def test_benchmark_gate_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evidencedesk.retrieval.benchmark", "--gate"],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    last = done.stdout.rstrip("\n").split("\n")
    verdict = next(line for line in reversed(last) if line.startswith("GATE: "))
    assert verdict in ("GATE: GO", "GATE: REVIEW", "GATE: BLOCK")
    assert done.returncode == (1 if verdict == "GATE: BLOCK" else 0) and done.stderr == ""
