"""`CachedSearcher`: memoised stage one gives exactly the uncached answers.

The cache answers a smaller k with the prefix of the largest k searched, which is exact only if a
searcher's top k is a prefix of its top K. That is checked for sparse and dense on the demo
catalog (every question, with and without a scope, k from 1 to 80); then the cached searchers, the
hybrid fused over them, and whole runs are compared with the uncached ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from evidencedesk.retrieval._search_cache import CachedSearcher, LazySearcher, cached_searchers
from evidencedesk.retrieval.catalog import Catalog, Scope, load_catalog
from evidencedesk.retrieval.evalreport import Config, run_config
from evidencedesk.retrieval.labels import Label, load_labels
from evidencedesk.retrieval.lifecycle import build_searchers
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.searchers import DenseSearcher, Hit

KS = (1, 3, 5, 10, 20, 50, 80)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def labels(catalog: Catalog) -> list[Label]:
    return load_labels(catalog=catalog)


def same(a: Sequence[Hit], b: Sequence[Hit]) -> bool:
    return [(c.rank, c.score, c.chunk.id) for c in a] == [(c.rank, c.score, c.chunk.id) for c in b]


@pytest.mark.parametrize("name", ["sparse", "dense"])
@pytest.mark.parametrize("scoped", [True, False], ids=["scope", "no-filter"])
def test_top_k_is_a_prefix_of_top_K(
    catalog: Catalog, labels: list[Label], name: str, scoped: bool
) -> None:
    searcher = build_searchers(catalog)[name]
    allowed = catalog.allowed(Scope()) if scoped else None
    for label in labels:
        longest = searcher.search(label.question, max(KS), allowed)
        for k in KS:
            assert same(searcher.search(label.question, k, allowed), longest[:k]), (label.id, k)


@pytest.mark.parametrize("order", ["ascending", "descending", "mixed"])
def test_cached_answers_equal_uncached(catalog: Catalog, labels: list[Label], order: str) -> None:
    raw = build_searchers(catalog)
    cached = cached_searchers(build_searchers(catalog))
    ks = {"ascending": KS, "descending": KS[::-1], "mixed": (10, 3, 50, 1, 80, 20, 5)}[order]
    scopes = [
        catalog.allowed(Scope()),
        None,
        catalog.allowed(Scope(statuses=frozenset({"current", "superseded"}))),
    ]
    for name in ("sparse", "dense", "hybrid"):
        for label in labels:
            for k in ks:
                for allowed in scopes:
                    want = raw[name].search(label.question, k, allowed)
                    got = cached[name].search(label.question, k, allowed)
                    assert same(got, want), (name, label.id, k, allowed is None)


def test_each_question_and_scope_is_searched_once_at_the_largest_k(
    catalog: Catalog, labels: list[Label]
) -> None:
    cached = CachedSearcher(build_searchers(catalog)["dense"])  # dense always fills k
    for k in (10, 5, 3, 1):
        for label in labels:
            cached.search(label.question, k, catalog.allowed(Scope()))  # a new, equal set each time
    assert cached.misses == len(labels)
    assert cached.hits == 3 * len(labels)
    assert len(cached.scopes) == 1
    cached.search(labels[0].question, 20, catalog.allowed(Scope()))  # a larger k: searched again
    assert cached.misses == len(labels) + 1
    cached.search(labels[0].question, 15, catalog.allowed(Scope()))  # now from the k=20 list
    assert cached.misses == len(labels) + 1


def test_the_wrapped_searcher_gets_one_canonical_scope_object(catalog: Catalog) -> None:
    seen: list[int] = []

    class Spy:
        name = "spy"

        def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
            seen.append(id(allowed))
            return []

    cached = CachedSearcher(Spy())
    for n in range(3):
        cached.search(f"question {n}", 5, catalog.allowed(Scope()))
    assert len(set(seen)) == 1 and len(seen) == 3
    assert cached.search("x", 0, None) == []


def test_runs_are_identical_with_and_without_the_cache(
    catalog: Catalog, labels: list[Label]
) -> None:
    plain = Parts(searchers=build_searchers(catalog))
    cached = Parts.build(catalog)
    assert isinstance(cached.searchers["sparse"], CachedSearcher)
    for cfg in (
        Config(),
        Config(reranker="feature", depth=20),
        Config(first_stage="dense", final=5),
        Config(first_stage="sparse", prefilter=False),
        Config(reranker="pair", max_words=8),
    ):
        a, b = run_config(cfg, plain, catalog, labels), run_config(cfg, cached, catalog, labels)
        assert a.final_ids == b.final_ids, cfg.label()
        assert a.pairs_per_question == b.pairs_per_question
        assert a.tokens_per_question == b.tokens_per_question


def test_the_dense_index_is_built_on_first_search(catalog: Catalog, labels: list[Label]) -> None:
    searchers = build_searchers(catalog)
    lazy = searchers["dense"]
    assert isinstance(lazy, LazySearcher) and lazy._inner is None
    eager = DenseSearcher(catalog.chunks)
    allowed = catalog.allowed(Scope())
    for label in labels:
        assert same(
            lazy.search(label.question, 10, allowed), eager.search(label.question, 10, allowed)
        )
    assert lazy._inner is not None and lazy.matrix.shape == eager.matrix.shape


def test_least_and_exact_up_to_bound_what_is_asked_and_kept(catalog: Catalog) -> None:
    asked: list[int] = []

    class Spy:
        name = "spy"

        def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
            asked.append(k)
            return [Hit(r, 1.0 / r, catalog.chunks[0]) for r in range(1, k + 1)]

    cached = CachedSearcher(Spy(), least=50, exact_up_to=60)
    first = cached.search("q", 10, None)  # asked for the least, 50; answers the top 10
    assert asked == [50] and [c.rank for c in first] == list(range(1, 11))
    assert len(cached.search("q", 50, None)) == 50 and asked == [50]  # a hit
    assert len(cached.search("q", 55, None)) == 55 and asked == [50, 55]  # larger: searched
    assert len(cached.search("q", 70, None)) == 70 and asked == [50, 55, 70]  # above 60: uncached
    assert len(cached.search("q", 70, None)) == 70 and asked == [50, 55, 70, 70]
    assert (cached.hits, cached.misses) == (1, 4)


def test_build_caches_the_hybrid_up_to_its_pool(catalog: Catalog, labels: list[Label]) -> None:
    cached = cached_searchers(build_searchers(catalog))
    hybrid, dense = cached["hybrid"], cached["dense"]
    assert isinstance(hybrid, CachedSearcher) and isinstance(dense, CachedSearcher)
    assert (hybrid.least, hybrid.exact_up_to, dense.least) == (50, 50, 50)
    allowed = catalog.allowed(Scope())
    for k in (10, 3, 50, 20):
        for label in labels:
            hybrid.search(label.question, k, allowed)
    assert (hybrid.misses, hybrid.hits) == (len(labels), 3 * len(labels))
    assert dense.misses == len(labels)  # each question's dense list fetched once, at 50
