"""The deterministic TOY embedder behind `searchers.DenseSearcher`.

It hashes word and character-trigram features into a fixed-size vector and ranks by cosine. It
stands in for a real bi-encoder so the pipeline has a second, differently-failing first stage; it
knows nothing about meaning, and every report that shows it says so.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np

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
