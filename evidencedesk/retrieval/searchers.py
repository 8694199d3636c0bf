"""The searchers (SPEC §3): BM25, the toy dense searcher, their RRF fusion, and two-stage retrieval.

Every searcher answers ``search(query, k, allowed) -> list[Hit]`` (rank from 1, score,
chunk). ``allowed=None`` means no filter; an empty set means nothing; the filter is applied
before ranking. The dense and hybrid searchers also answer ``search_many(queries, k, allowed)``,
the same lists for many questions at once (`cache.CachedSearcher.prefetch` asks it). This module is the one import path of the four classes (the course page imports
them from here). The toy embedder lives in `dense`, the real MiniLM embedder (optional extra
``minilm``) in `minilm`, reciprocal-rank fusion (shared with the ``blend`` reranker) in `hybrid`.

The shapes every searcher and reranker shares.

Reciprocal-rank fusion, shared by `searchers.HybridSearcher` and the ``blend`` reranker.

Turning an allowed-id set into a boolean mask once, and taking a deterministic top k.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval._dense import ToyEmbedder
from evidencedesk.retrieval._tokens import tokenize


class Hit(NamedTuple):
    """One retrieved chunk: rank from 1, the searcher's score, the chunk."""

    rank: int
    score: float
    chunk: Chunk

    def to_dict(self) -> dict[str, object]:
        return {"rank": self.rank, "score": self.score, "chunk": self.chunk.id}


@runtime_checkable
class _Searcher(Protocol):
    """A first-stage searcher: the top k chunks for a query, filtered before ranking."""

    name: str

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        """Top `k`. `allowed=None`: no filter; an empty set: nothing. Filter before ranking."""
        ...


class _Embedder(Protocol):
    """What `searchers.DenseSearcher` ranks with: one L2-normalised float64 row per text
    (`dense.ToyEmbedder`, `minilm.MiniLMEmbedder`)."""

    @property
    def dim(self) -> int: ...

    def embed(self, text: str) -> np.ndarray: ...

    def embed_many(self, texts: list[str]) -> np.ndarray: ...


@runtime_checkable
class _Reranker(Protocol):
    """A second stage that reorders the first stage's candidates and counts the pairs it scored."""

    # read-only properties: callers only read them (`_BlendReranker.pairs_scored` is computed)
    @property
    def name(self) -> str: ...
    @property
    def pairs_scored(self) -> int: ...

    def rerank(self, query: str, candidates: Sequence[Hit]) -> list[Hit]:
        """Reorder first-stage candidates; ranks renumbered from 1."""
        ...


def _renumber(scored: Sequence[tuple[float, Chunk]]) -> list[Hit]:
    """Hits ranked from 1 in the order of `scored` (score, chunk) pairs."""
    return [Hit(i, float(score), chunk) for i, (score, chunk) in enumerate(scored, start=1)]


_RRF_K = 60  # the constant k of reciprocal-rank fusion: a result at rank r scores 1 / (k + r)


def _rrf(rankings: list[list[Hit]], k: int, rrf_k: int = _RRF_K) -> list[Hit]:
    """Reciprocal-rank fusion: score = sum of 1 / (rrf_k + rank). Ties: first seen wins."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for cand in ranking:
            cid = cand.chunk.id
            if cid in scores:
                scores[cid] += 1.0 / (rrf_k + cand.rank)
            else:  # 0.0 + x is x: the same sums as starting every chunk at 0.0
                scores[cid] = 1.0 / (rrf_k + cand.rank)
                chunks[cid] = cand.chunk
    # sorted is stable, also with reverse=True: first seen wins ties
    order = sorted(scores, key=scores.__getitem__, reverse=True)[:k]
    return [Hit(r, scores[cid], chunks[cid]) for r, cid in enumerate(order, start=1)]


class _AllowedMasks:
    """Caches masks by allowed set: the same scope is asked for every question."""

    def __init__(self, chunks: tuple[Chunk, ...], size: int = 16):
        self._position = {c.id: i for i, c in enumerate(chunks)}
        self._n = len(chunks)
        self._cache: OrderedDict[frozenset[str], np.ndarray] = OrderedDict()
        self._size = size

    def mask(self, allowed: frozenset[str] | None) -> np.ndarray | None:
        if allowed is None:
            return None
        allowed = frozenset(allowed)
        cached = self._cache.get(allowed)
        if cached is not None:
            self._cache.move_to_end(allowed)
            return cached
        mask = np.zeros(self._n, dtype=bool)
        positions = [self._position[c] for c in allowed if c in self._position]
        mask[positions] = True
        self._cache[allowed] = mask
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return mask


def _top_k(scores: np.ndarray, usable: np.ndarray, k: int, chunks: tuple[Chunk, ...]) -> list[Hit]:
    """Highest scores first; ties go to the earlier chunk in catalog order (stable)."""
    if k <= 0:
        return []
    idx = np.flatnonzero(usable)
    if idx.size == 0:
        return []
    if idx.size > 4 * k:
        # Keep only scores at or above the k-th largest, then sort those: the same order as a
        # full stable sort (ties at the threshold are all kept, in catalog order).
        threshold = np.partition(scores[idx], idx.size - k)[idx.size - k]
        idx = idx[scores[idx] >= threshold]
    order = idx[np.argsort(-scores[idx], kind="stable")][:k]
    return [Hit(r, float(scores[i]), chunks[i]) for r, i in enumerate(order, start=1)]


_BLOCK = 256  # questions per matrix product in `DenseSearcher.search_many` (256 x chunks floats)


# how far below the k-th approximate (float32) score `search_many` rescores exactly: float32
# rounding of the unit vectors and of any summation order of 512 products is below
# 512 * 2^-24 + 2 * 2^-24 < 3.1e-5, so twice that error and the 12-decimal rounding fit in it
_MARGIN = 1e-4


def _index_text(chunk: Chunk) -> str:
    """What both first stages index: the title, then the text."""
    return f"{chunk.title}\n{chunk.text}"


class SparseSearcher:
    """Okapi BM25 (k1=1.2, b=0.75, Lucene's non-negative idf). Only chunks sharing a term score."""

    name = "sparse"

    def __init__(self, chunks: tuple[Chunk, ...] | list[Chunk], k1: float = 1.2, b: float = 0.75):
        self.chunks = tuple(chunks)
        self.k1, self.b = k1, b
        # every (term, chunk) occurrence numbered, then counted and grouped by term in numpy:
        # a term's postings are its chunks in catalog order with their term frequencies
        every: list[str] = []
        lengths = np.zeros(len(self.chunks), dtype=np.float64)
        for i, chunk in enumerate(self.chunks):
            words = tokenize(_index_text(chunk))
            lengths[i] = len(words)
            every.extend(words)
        numbers = {w: t for t, w in enumerate(dict.fromkeys(every))}  # in first-seen order
        occurrences = list(map(numbers.__getitem__, every))
        n = len(self.chunks)
        avg = float(lengths.mean()) if n else 0.0
        norm = k1 * (1 - b + b * lengths / avg) if n and avg else np.ones(n)
        term = np.asarray(occurrences, dtype=np.int64)
        chunk_of = np.repeat(np.arange(n, dtype=np.int64), lengths.astype(np.int64))
        pairs, tf = np.unique(term * max(n, 1) + chunk_of, return_counts=True)  # sorted
        docs_all, tfs_all = pairs % max(n, 1), tf.astype(np.float64)
        bounds = np.searchsorted(pairs // max(n, 1), np.arange(len(numbers) + 1))
        df = np.diff(bounds).tolist()
        idf = [math.log(1 + (n - d + 0.5) / (d + 0.5)) for d in df]  # Lucene's, per term
        each = np.repeat(np.asarray(idf, dtype=np.float64), df)
        weights = each * tfs_all * (k1 + 1) / (tfs_all + norm[docs_all])
        starts = bounds.tolist()
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {
            word: (docs_all[starts[t] : starts[t + 1]], weights[starts[t] : starts[t + 1]])
            for word, t in numbers.items()
        }
        self._masks = _AllowedMasks(self.chunks)

    def scores(self, query: str) -> np.ndarray:
        total = np.zeros(len(self.chunks), dtype=np.float64)
        for term in dict.fromkeys(tokenize(query)):
            hit = self._postings.get(term)
            if hit is not None:
                total[hit[0]] += hit[1]
        return total

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        mask = self._masks.mask(allowed)
        if mask is not None and not mask.any():
            return []
        scores = self.scores(query)
        usable = scores > 0
        if mask is not None:
            usable &= mask
        return _top_k(scores, usable, k, self.chunks)


class DenseSearcher:
    """Cosine over embeddings (the toy's by default, or any `_Embedder` of unit rows with at most
    512 dimensions, such as `minilm.MiniLMEmbedder`); returns the top k allowed chunks whatever
    their score."""

    name = "dense"

    def __init__(
        self,
        chunks: tuple[Chunk, ...] | list[Chunk],
        embedder: _Embedder | None = None,
        name: str = "dense",
    ):
        self.chunks = tuple(chunks)
        self.embedder: _Embedder = embedder or ToyEmbedder()
        self.name = name
        self.matrix = self.embedder.embed_many([_index_text(c) for c in self.chunks])
        self._by_slot = np.ascontiguousarray(self.matrix.T)  # one row per feature slot
        # `search_many`'s float32 copy of it, for the last scope asked: (mask, columns)
        self._last_columns: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
        self._masks = _AllowedMasks(self.chunks)

    def scores(self, query: str) -> np.ndarray:
        """Cosine of the query with every chunk.

        A query has a few dozen non-zero slots of 512: only those rows of the slot-major matrix
        are read (a tenth of the memory traffic of a full matrix-vector product), added in slot
        order, so the sum does not depend on the BLAS build either.
        """
        q = self.embedder.embed(query)
        total = np.zeros(len(self.chunks), dtype=np.float64)
        for slot in np.flatnonzero(q).tolist():
            total += q[slot] * self._by_slot[slot]
        return total

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        mask = self._masks.mask(allowed)
        if mask is not None and not mask.any():
            return []
        # Rounding keeps ties (and so the order) identical across summation orders.
        scores = np.round(self.scores(query), 12)
        usable = np.ones(len(self.chunks), dtype=bool) if mask is None else mask
        return _top_k(scores, usable, k, self.chunks)

    def search_many(
        self, queries: Sequence[str], k: int, allowed: frozenset[str] | None
    ) -> list[list[Hit]]:
        """``[search(q, k, allowed) for q in queries]``, equal to it score for score, faster.

        One float32 matrix product per `_BLOCK` questions gives every chunk's score within
        3.1e-5 (float32 rounding, any summation order, unit vectors of 512 slots). Only the
        chunks within `_MARGIN` (1e-4) of the k-th highest of those are then scored as `scores`
        scores them -- the same float64 products added in the same slot order -- and ranked as
        `search` ranks them; every chunk left out is more than 1e-4 - 6.2e-5 below the k-th
        exact score, so after the 12-decimal rounding it cannot reach the top k or tie with it.
        """
        mask = self._masks.mask(allowed)
        if k <= 0 or (mask is not None and not mask.any()):
            return [[] for _ in queries]
        usable = None if mask is None else np.flatnonzero(mask)
        columns = self._columns(mask)  # float32, one column per usable chunk
        m = columns.shape[1]
        out: list[list[Hit]] = []
        for start in range(0, len(queries), _BLOCK):
            # rows equal `embed`'s: the toy's entries and partial sums are multiples of 0.5
            # (exact); a MiniLM row does not depend on the batch it was computed in
            vectors = self.embedder.embed_many(list(queries[start : start + _BLOCK]))
            approx = vectors.astype(np.float32) @ columns
            if m > k:  # each row's k-th highest, then every column within MARGIN of it
                kth = np.partition(approx, m - k, axis=1)[:, m - k]
                rows, cols = np.nonzero(approx >= (kth - np.float32(_MARGIN))[:, None])
            else:
                rows, cols = np.nonzero(np.ones(approx.shape, dtype=bool))
            chosen = cols if usable is None else usable[cols]  # ascending within each row
            bounds = np.searchsorted(rows, np.arange(len(vectors) + 1)).tolist()
            for j, q in enumerate(vectors):
                out.append(self._rank(q, chosen[bounds[j] : bounds[j + 1]], k))
        return out

    def _columns(self, mask: np.ndarray | None) -> np.ndarray:
        """The float32 slot-major matrix of the usable chunks (the last scope's kept)."""
        kept_mask, kept = self._last_columns
        if kept is None or kept_mask is not mask:
            full = self._by_slot.astype(np.float32)
            kept = full if mask is None else np.ascontiguousarray(full[:, mask])
            self._last_columns = (mask, kept)
        return kept

    def _rank(self, q: np.ndarray, chosen: np.ndarray, k: int) -> list[Hit]:
        """The top k of `chosen` (catalog order), scored exactly as `scores` scores them."""
        slots = np.flatnonzero(q)
        terms = np.zeros((slots.size + 1, chosen.size), dtype=np.float64)
        terms[1:] = q[slots, None] * self._by_slot[slots[:, None], chosen]
        # a running sum is sequential: 0.0, then each slot's product added in slot order, as
        # `scores` adds them
        exact = np.add.accumulate(terms, axis=0)[-1]
        scores = np.round(exact, 12)
        order = np.argsort(-scores, kind="stable")[:k]
        chunks = self.chunks
        return [
            Hit(r, score, chunks[i])
            for r, (score, i) in enumerate(
                zip(scores[order].tolist(), chosen[order].tolist(), strict=True), start=1
            )
        ]


class HybridSearcher:
    """RRF of a sparse and a dense searcher, each asked for `pool` candidates."""

    name = "hybrid"

    def __init__(self, sparse: _Searcher, dense: _Searcher, pool: int = 50, rrf_k: int = _RRF_K):
        self.sparse, self.dense, self.pool, self.rrf_k = sparse, dense, pool, rrf_k

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        if k <= 0 or (allowed is not None and not allowed):
            return []
        depth = max(k, self.pool)
        return _rrf(
            [self.sparse.search(query, depth, allowed), self.dense.search(query, depth, allowed)],
            k,
            self.rrf_k,
        )

    def search_many(
        self, queries: Sequence[str], k: int, allowed: frozenset[str] | None
    ) -> list[list[Hit]]:
        """``[search(q, k, allowed) for q in queries]``, each side asked for all at once."""
        if k <= 0 or (allowed is not None and not allowed):
            return [[] for _ in queries]
        depth = max(k, self.pool)
        sparse = _search_many(self.sparse, queries, depth, allowed)
        dense = _search_many(self.dense, queries, depth, allowed)
        return [_rrf([s, d], k, self.rrf_k) for s, d in zip(sparse, dense, strict=True)]


def _search_many(
    searcher: _Searcher, queries: Sequence[str], k: int, allowed: frozenset[str] | None
) -> list[list[Hit]]:
    """The searcher's own `search_many` when it has one, else one `search` per question."""
    many = getattr(searcher, "search_many", None)
    if callable(many):
        return list(many(queries, k, allowed))
    return [searcher.search(q, k, allowed) for q in queries]


class TwoStage:
    """Stage one fetches `depth` candidates; the reranker reorders them; `final` are kept.

    ``search(query, k, allowed)`` returns at most ``min(k, final)``. The reranker's
    ``pairs_scored`` counts the cost. ``prefilter`` (the default) applies the scope inside stage
    one, before ranking; without it stage one sees everything and the scope is applied after
    reranking (`parts._ConfigSearcher`, the configurations' searcher, is this one). `prime`
    runs both stages' heavy parts for many questions at once ahead of their `search` calls.
    """

    def __init__(
        self,
        first: _Searcher,
        reranker: _Reranker | None,
        depth: int,
        final: int,
        prefilter: bool = True,
    ):
        if depth < 1 or final < 1:
            raise ValueError(
                f"depth and final must be at least 1, found depth={depth}, final={final}"
            )
        self.first, self.reranker, self.depth, self.final = first, reranker, depth, final
        self.prefilter = prefilter
        rr = "none" if reranker is None else reranker.name
        self.name = f"{first.name}+{rr}@{depth}->{final}"
        # `prime`'s stage-one lists: (the allowed set they are for, question -> list)
        self._primed: tuple[frozenset[str] | None, dict[str, list[Hit]]] = (None, {})

    @property
    def pairs_scored(self) -> int:
        return 0 if self.reranker is None else self.reranker.pairs_scored

    def search(
        self, query: str, k: int | None = None, allowed: frozenset[str] | None = None
    ) -> list[Hit]:
        keep = self.final if k is None else min(k, self.final)
        primed_for, primed = self._primed
        found = primed.get(query) if allowed is primed_for else None
        if found is None:
            found = self.first.search(query, self.depth, allowed if self.prefilter else None)
        if self.reranker is not None and found:
            found = self.reranker.rerank(query, found)
        if not self.prefilter and allowed is not None:
            found = [c for c in found if c.chunk.id in allowed]
        return _renumber([(c.score, c.chunk) for c in found[:keep]])

    def prime(self, queries: Sequence[str], allowed: frozenset[str] | None = None) -> None:
        """Ready `search(q, k, allowed)` for every q of `queries`: stage one asked for all of
        them at once (`_search_many`: the dense searcher batches them), and every stage-one
        list's pairs scored in one call (the reranker's ``prime``, when it has one: the
        built-in scorers score them vectorised). The lists are kept for the `search` calls
        with this very `allowed` object (until the next `prime`); answers do not change."""
        lists = _search_many(self.first, queries, self.depth, allowed if self.prefilter else None)
        prime = getattr(self.reranker, "prime", None)
        if callable(prime):
            prime(queries, lists)
        self._primed = (allowed, dict(zip(queries, lists, strict=True)))


__all__ = ["DenseSearcher", "Hit", "HybridSearcher", "SparseSearcher", "TwoStage"]
