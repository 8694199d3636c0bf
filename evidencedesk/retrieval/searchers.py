"""The searchers (SPEC §3): BM25, the toy dense searcher, their RRF fusion, and two-stage retrieval.

Every searcher answers ``search(query, k, allowed) -> list[Candidate]`` (rank from 1, score,
chunk). ``allowed=None`` means no filter; an empty set means nothing; the filter is applied
before ranking. This module is the one import path of the four classes (the course page imports
them from here). The toy embedder lives in `dense`, reciprocal-rank fusion (shared with the
``blend`` reranker) in `hybrid`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Candidate, Reranker, Searcher, renumber
from evidencedesk.retrieval.dense import ToyEmbedder
from evidencedesk.retrieval.hybrid import RRF_K, rrf
from evidencedesk.retrieval.masks import AllowedMasks, top_k
from evidencedesk.retrieval.tokens import tokenize

__all__ = ["DenseSearcher", "HybridSearcher", "SparseSearcher", "TwoStage", "index_text"]


def index_text(chunk: Chunk) -> str:
    """What both first stages index: the title, then the text."""
    return f"{chunk.title}\n{chunk.text}"


class SparseSearcher:
    """Okapi BM25 (k1=1.2, b=0.75, Lucene's non-negative idf). Only chunks sharing a term score."""

    name = "sparse"

    def __init__(self, chunks: tuple[Chunk, ...] | list[Chunk], k1: float = 1.2, b: float = 0.75):
        self.chunks = tuple(chunks)
        self.k1, self.b = k1, b
        postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = np.zeros(len(self.chunks), dtype=np.float64)
        for i, chunk in enumerate(self.chunks):
            counts = Counter(tokenize(index_text(chunk)))
            lengths[i] = sum(counts.values())
            for term, tf in counts.items():
                postings[term].append((i, tf))
        n = len(self.chunks)
        avg = float(lengths.mean()) if n else 0.0
        norm = k1 * (1 - b + b * lengths / avg) if n and avg else np.ones(n)
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, plist in postings.items():
            docs = np.fromiter((d for d, _ in plist), dtype=np.int64, count=len(plist))
            tfs = np.fromiter((t for _, t in plist), dtype=np.float64, count=len(plist))
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            self._postings[term] = (docs, idf * tfs * (k1 + 1) / (tfs + norm[docs]))
        self._masks = AllowedMasks(self.chunks)

    def scores(self, query: str) -> np.ndarray:
        total = np.zeros(len(self.chunks), dtype=np.float64)
        for term in dict.fromkeys(tokenize(query)):
            hit = self._postings.get(term)
            if hit is not None:
                total[hit[0]] += hit[1]
        return total

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        mask = self._masks.mask(allowed)
        if mask is not None and not mask.any():
            return []
        scores = self.scores(query)
        usable = scores > 0
        if mask is not None:
            usable &= mask
        return top_k(scores, usable, k, self.chunks)


class DenseSearcher:
    """Cosine over toy embeddings; returns the top k allowed chunks whatever their score."""

    name = "dense"

    def __init__(
        self, chunks: tuple[Chunk, ...] | list[Chunk], embedder: ToyEmbedder | None = None
    ):
        self.chunks = tuple(chunks)
        self.embedder = embedder or ToyEmbedder()
        self.matrix = self.embedder.embed_many([index_text(c) for c in self.chunks])
        self._by_slot = np.ascontiguousarray(self.matrix.T)  # one row per feature slot
        self._masks = AllowedMasks(self.chunks)

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

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        mask = self._masks.mask(allowed)
        if mask is not None and not mask.any():
            return []
        # Rounding keeps ties (and so the order) identical across summation orders.
        scores = np.round(self.scores(query), 12)
        usable = np.ones(len(self.chunks), dtype=bool) if mask is None else mask
        return top_k(scores, usable, k, self.chunks)


class HybridSearcher:
    """RRF of a sparse and a dense searcher, each asked for `pool` candidates."""

    name = "hybrid"

    def __init__(self, sparse: Searcher, dense: Searcher, pool: int = 50, rrf_k: int = RRF_K):
        self.sparse, self.dense, self.pool, self.rrf_k = sparse, dense, pool, rrf_k

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        if k <= 0 or (allowed is not None and not allowed):
            return []
        depth = max(k, self.pool)
        return rrf(
            [self.sparse.search(query, depth, allowed), self.dense.search(query, depth, allowed)],
            k,
            self.rrf_k,
        )


class TwoStage:
    """Stage one fetches `depth` candidates; the reranker reorders them; `final` are kept.

    ``search(query, k, allowed)`` returns at most ``min(k, final)``. The reranker's
    ``pairs_scored`` counts the cost. ``prefilter`` (the default) applies the scope inside stage
    one, before ranking; without it stage one sees everything and the scope is applied after
    reranking (`parts.ConfigSearcher`, the configurations' searcher, is this one).
    """

    def __init__(
        self,
        first: Searcher,
        reranker: Reranker | None,
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

    @property
    def pairs_scored(self) -> int:
        return 0 if self.reranker is None else self.reranker.pairs_scored

    def search(
        self, query: str, k: int | None = None, allowed: frozenset[str] | None = None
    ) -> list[Candidate]:
        keep = self.final if k is None else min(k, self.final)
        found = self.first.search(query, self.depth, allowed if self.prefilter else None)
        if self.reranker is not None and found:
            found = self.reranker.rerank(query, found)
        if not self.prefilter and allowed is not None:
            found = [c for c in found if c.chunk.id in allowed]
        return renumber([(c.score, c.chunk) for c in found[:keep]])
