"""Reciprocal-rank fusion, shared by `searchers.HybridSearcher` and the ``blend`` reranker."""

from __future__ import annotations

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Candidate

RRF_K = 60


def rrf(rankings: list[list[Candidate]], k: int, rrf_k: int = RRF_K) -> list[Candidate]:
    """Reciprocal-rank fusion: score = sum of 1 / (rrf_k + rank). Ties: first seen wins."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for cand in ranking:
            scores[cand.chunk.id] = scores.get(cand.chunk.id, 0.0) + 1.0 / (rrf_k + cand.rank)
            chunks.setdefault(cand.chunk.id, cand.chunk)
    order = sorted(scores, key=lambda cid: -scores[cid])  # sorted is stable: first seen wins ties
    return [Candidate(r, scores[cid], chunks[cid]) for r, cid in enumerate(order[:k], start=1)]
