"""Reciprocal-rank fusion, shared by `searchers.HybridSearcher` and the ``blend`` reranker."""

from __future__ import annotations

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Hit

RRF_K = 60  # the constant k of reciprocal-rank fusion: a result at rank r scores 1 / (k + r)


def rrf(rankings: list[list[Hit]], k: int, rrf_k: int = RRF_K) -> list[Hit]:
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
