"""Turning an allowed-id set into a boolean mask once, and taking a deterministic top k."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval.base import Hit


class AllowedMasks:
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


def top_k(scores: np.ndarray, usable: np.ndarray, k: int, chunks: tuple[Chunk, ...]) -> list[Hit]:
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
