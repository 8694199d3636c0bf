"""BM25 over Unicode-aware tokens, with an inverted index and numpy scoring."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Candidate
from evidencedesk.retrieval.masks import AllowedMasks, top_k
from evidencedesk.retrieval.tokens import tokenize


def index_text(chunk: Chunk) -> str:
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
            tf = np.fromiter((t for _, t in plist), dtype=np.float64, count=len(plist))
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            self._postings[term] = (docs, idf * tf * (k1 + 1) / (tf + norm[docs]))
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
