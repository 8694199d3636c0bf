"""Fusion and two-stage retrieval."""

from __future__ import annotations

from evidencedesk.retrieval.base import Candidate, Reranker, Searcher, renumber

RRF_K = 60


def rrf(rankings: list[list[Candidate]], k: int, rrf_k: int = RRF_K) -> list[Candidate]:
    """Reciprocal-rank fusion: score = sum of 1 / (rrf_k + rank). Ties: first seen wins."""
    scores: dict[str, float] = {}
    chunks = {}
    for ranking in rankings:
        for cand in ranking:
            scores[cand.chunk.id] = scores.get(cand.chunk.id, 0.0) + 1.0 / (rrf_k + cand.rank)
            chunks.setdefault(cand.chunk.id, cand.chunk)
    order = sorted(scores, key=lambda cid: -scores[cid])  # sorted is stable: first seen wins ties
    return [Candidate(r, scores[cid], chunks[cid]) for r, cid in enumerate(order[:k], start=1)]


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
    ``pairs_scored`` counts the cost.
    """

    def __init__(self, first: Searcher, reranker: Reranker | None, depth: int, final: int):
        if depth < 1 or final < 1:
            raise ValueError(
                f"depth and final must be at least 1, found depth={depth}, final={final}"
            )
        self.first, self.reranker, self.depth, self.final = first, reranker, depth, final
        rr = "none" if reranker is None else reranker.name
        self.name = f"{first.name}+{rr}@{depth}->{final}"

    @property
    def pairs_scored(self) -> int:
        return 0 if self.reranker is None else self.reranker.pairs_scored

    def search(
        self, query: str, k: int | None = None, allowed: frozenset[str] | None = None
    ) -> list[Candidate]:
        keep = self.final if k is None else min(k, self.final)
        found = self.first.search(query, self.depth, allowed)
        if self.reranker is not None and found:
            found = self.reranker.rerank(query, found)
        return renumber([(c.score, c.chunk) for c in found[:keep]])
