"""A deterministic TOY dense searcher.

It hashes word and character-trigram features into a fixed-size vector and ranks by cosine. It
stands in for a real bi-encoder so the pipeline has a second, differently-failing first stage; it
knows nothing about meaning, and every report that shows it says so.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Candidate
from evidencedesk.retrieval.masks import AllowedMasks, top_k
from evidencedesk.retrieval.sparse import index_text
from evidencedesk.retrieval.tokens import content_words

DIM = 512


@lru_cache(maxsize=1 << 20)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, 1.0 if (value >> 63) & 1 else -1.0


class ToyEmbedder:
    """Hashed word (weight 1.0) and character-trigram (weight 0.5) features, L2-normalised."""

    def __init__(self, dim: int = DIM):
        self.dim = dim

    def features(self, text: str) -> list[tuple[str, float]]:
        words = content_words(text)
        feats = [(f"w:{w}", 1.0) for w in words]
        for w in words:
            padded = f"<{w}>"
            feats.extend((f"c:{padded[i : i + 3]}", 0.5) for i in range(len(padded) - 2))
        return feats

    def embed(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float64)
        for feature, weight in self.features(text):
            slot, sign = _bucket(feature, self.dim)
            vec[slot] += sign * weight
        norm = np.linalg.norm(vec)
        return vec / norm if norm else vec

    def embed_many(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim))
        return np.vstack([self.embed(t) for t in texts])


class DenseSearcher:
    """Cosine over toy embeddings; returns the top k allowed chunks whatever their score."""

    name = "dense"

    def __init__(
        self, chunks: tuple[Chunk, ...] | list[Chunk], embedder: ToyEmbedder | None = None
    ):
        self.chunks = tuple(chunks)
        self.embedder = embedder or ToyEmbedder()
        self.matrix = self.embedder.embed_many([index_text(c) for c in self.chunks])
        self._masks = AllowedMasks(self.chunks)

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        mask = self._masks.mask(allowed)
        if mask is not None and not mask.any():
            return []
        scores = self.matrix @ self.embedder.embed(query) if len(self.chunks) else np.zeros(0)
        # Rounding keeps ties (and so the order) identical across BLAS builds.
        scores = np.round(scores, 12)
        usable = np.ones(len(self.chunks), dtype=bool) if mask is None else mask
        return top_k(scores, usable, k, self.chunks)
