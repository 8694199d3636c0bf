"""Batched stage one (`search_many`, `CachedSearcher.prefetch`) equals the per-question search.

The batched dense search ranks from a matrix product (another summation order) and rescores the
chunks near the k-th place exactly, so it must give the per-question lists score for score,
ties included: checked on a seeded corpus with duplicated chunks (exact ties), an empty query
(every score 0) and scopes, for k from 1 to beyond the corpus.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval._search_cache import CachedSearcher, cached_searchers
from evidencedesk.retrieval.searchers import DenseSearcher, Hit, HybridSearcher, SparseSearcher

WORDS = [
    f"{a}{b}" for a in ("ka", "lo", "mi", "ren", "dun", "xo") for b in ("ta", "vi", "ul", "pe")
]


def corpus(n: int = 300, seed: int = 3) -> list[Chunk]:
    rng = random.Random(seed)
    chunks = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        if i % 7 == 3:
            text = chunks[i - 1].text  # a duplicate: the same vector, an exact tie
        chunks.append(Chunk(f"d{i // 5}:c{i % 5}", f"d{i // 5}", "Same title", text))
    return chunks


QUERIES = [
    "kata lovi mipe",
    "renul",
    "dunta dunta xovi kaul lopemita",
    "the of and",  # no content word: every dense score is 0, the order is the catalog's
    "kata lovi mipe",  # asked twice
    "zzz unknown",
]


def rows(found: Sequence[Hit]) -> list[tuple[int, float, str]]:
    return [(c.rank, c.score, c.chunk.id) for c in found]


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    return corpus()


@pytest.mark.parametrize("k", [1, 3, 10, 50, 299, 400])
@pytest.mark.parametrize("scope", ["none", "some", "empty"])
def test_dense_search_many_equals_search(chunks: list[Chunk], k: int, scope: str) -> None:
    allowed = {
        "none": None,
        "some": frozenset(c.id for i, c in enumerate(chunks) if i % 3 != 1),
        "empty": frozenset(),
    }[scope]
    searcher = DenseSearcher(chunks)
    many = searcher.search_many(QUERIES, k, allowed)
    assert [rows(f) for f in many] == [rows(searcher.search(q, k, allowed)) for q in QUERIES]
    if scope != "empty":
        assert all(len(f) == min(k, len(chunks) if allowed is None else len(allowed)) for f in many)


def test_dense_search_many_keeps_exact_ties_in_catalog_order(chunks: list[Chunk]) -> None:
    searcher = DenseSearcher(chunks)
    query = chunks[3].text  # chunks 2 and 3 hold this text: both score the same, 2 first
    top = searcher.search_many([query], 3, None)[0]
    assert [c.chunk.id for c in top[:2]] == [chunks[2].id, chunks[3].id]
    assert top[0].score == top[1].score > top[2].score
    blank = searcher.search_many(["the of and"], 4, None)[0]
    assert [c.chunk.id for c in blank] == [c.id for c in chunks[:4]]
    assert [c.score for c in blank] == [0.0] * 4


def test_dense_search_many_spans_blocks(
    chunks: list[Chunk], monkeypatch: pytest.MonkeyPatch
) -> None:
    from evidencedesk.retrieval import searchers as module

    monkeypatch.setattr(module, "_BLOCK", 2)  # three blocks of two questions
    searcher = DenseSearcher(chunks)
    many = searcher.search_many(QUERIES, 10, None)
    assert [rows(f) for f in many] == [rows(searcher.search(q, 10, None)) for q in QUERIES]
    assert searcher.search_many([], 10, None) == []


@pytest.mark.parametrize("k", [1, 10, 50, 80])
def test_hybrid_and_cached_search_many_equal_search(chunks: list[Chunk], k: int) -> None:
    sparse, dense = SparseSearcher(chunks), DenseSearcher(chunks)
    raw = HybridSearcher(sparse, dense)
    cached = cached_searchers({"sparse": sparse, "dense": dense, "hybrid": raw})
    allowed = frozenset(c.id for c in chunks[:200])
    want = [rows(raw.search(q, k, allowed)) for q in QUERIES]
    assert [rows(f) for f in raw.search_many(QUERIES, k, allowed)] == want
    hybrid = cached["hybrid"]
    assert isinstance(hybrid, CachedSearcher)
    hybrid.prefetch(QUERIES, k, allowed)
    assert [rows(hybrid.search(q, k, allowed)) for q in QUERIES] == want
    assert [rows(f) for f in hybrid.search_many(QUERIES, k, allowed)] == want


def test_prefetch_fills_the_cache_once_per_question(chunks: list[Chunk]) -> None:
    dense = CachedSearcher(DenseSearcher(chunks), least=50)
    dense.prefetch(QUERIES, 10, None)
    distinct = len(set(QUERIES))
    assert (dense.hits, dense.misses) == (0, 0)  # prefetch counts nothing
    for q in QUERIES:
        dense.search(q, 10, None)
        dense.search(q, 50, None)
    assert (dense.hits, dense.misses) == (2 * len(QUERIES), 0)
    dense.prefetch(QUERIES, 60, None)  # a larger k: fetched again, once per question
    assert all(dense._results[q, -1][0] == 60 for q in QUERIES) and distinct == 5

    class NoBatch:
        name = "plain"

        def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
            raise AssertionError("prefetch must not search one by one")

    CachedSearcher(NoBatch()).prefetch(QUERIES, 10, None)  # no search_many: nothing to do


def reference_postings(
    chunks: Sequence[Chunk], k1: float = 1.2, b: float = 0.75
) -> dict[str, tuple[list[int], list[float]]]:
    """BM25 postings built chunk by chunk, term by term (the index before it was built in numpy)."""
    from collections import Counter, defaultdict

    import numpy as np

    from evidencedesk.retrieval._tokens import tokenize
    from evidencedesk.retrieval.searchers import _index_text

    postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lengths = np.zeros(len(chunks), dtype=np.float64)
    for i, chunk in enumerate(chunks):
        counts = Counter(tokenize(_index_text(chunk)))
        lengths[i] = sum(counts.values())
        for term, tf in counts.items():
            postings[term].append((i, tf))
    n = len(chunks)
    norm = k1 * (1 - b + b * lengths / float(lengths.mean()))
    out = {}
    for term, plist in postings.items():
        docs = np.array([d for d, _ in plist], dtype=np.int64)
        tfs = np.array([t for _, t in plist], dtype=np.float64)
        idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
        out[term] = (docs.tolist(), (idf * tfs * (k1 + 1) / (tfs + norm[docs])).tolist())
    return out


def test_bm25_index_equals_the_term_by_term_build(chunks: list[Chunk]) -> None:
    from evidencedesk.retrieval.catalog import load_catalog

    for corpus_chunks in (chunks, list(load_catalog().chunks)):
        built = SparseSearcher(corpus_chunks)._postings
        want = reference_postings(corpus_chunks)
        assert list(built) == list(want)  # terms in first-seen order
        for term, (docs, weights) in want.items():
            assert built[term][0].tolist() == docs and built[term][1].tolist() == weights, term
    assert SparseSearcher([]).search("anything", 3, None) == []
