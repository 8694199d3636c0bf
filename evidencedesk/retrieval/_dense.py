"""The deterministic TOY embedder behind `searchers.DenseSearcher`.

It hashes word and character-trigram features into a fixed-size vector and ranks by cosine. It
stands in for a real bi-encoder so the pipeline has a second, differently-failing first stage; it
knows nothing about meaning, and every report that shows it says so.
"""

from __future__ import annotations

import hashlib

import numpy as np

from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._tokens import content_words

_DIM = 512  # the width of the toy embedder's hashed feature vector


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """The slot and sign a feature hashes to, kept for the build (`memos.memo`)."""
    kept: dict[tuple[str, int], tuple[int, float]] = memo("feature buckets", dict)
    found = kept.get((feature, dim))
    if found is None:
        if len(kept) >= 1 << 20:
            kept.clear()  # a crude bound on memory; the buckets do not depend on it
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        found = kept[feature, dim] = (value % dim, 1.0 if (value >> 63) & 1 else -1.0)
    return found


class ToyEmbedder:
    """Hashed word (weight 1.0) and character-trigram (weight 0.5) features, L2-normalised."""

    def __init__(self, dim: int = _DIM):
        self.dim = dim
        self._words: dict[str, tuple[list[int], list[float]]] = {}  # word -> its features

    def features(self, text: str) -> list[tuple[str, float]]:
        words = content_words(text)
        feats = [(f"w:{w}", 1.0) for w in words]
        for w in words:
            feats.extend(_trigrams(w))
        return feats

    def _word(self, word: str) -> tuple[list[int], list[float]]:
        """Slots and signed weights of one word's features (itself and its trigrams), hashed once."""
        found = self._words.get(word)
        if found is None:
            slots: list[int] = []
            values: list[float] = []
            for feature, weight in [(f"w:{word}", 1.0), *_trigrams(word)]:
                slot, sign = _bucket(feature, self.dim)
                slots.append(slot)
                values.append(sign * weight)
            found = self._words[word] = (slots, values)
        return found

    def embed(self, text: str) -> np.ndarray:
        row: np.ndarray = self.embed_many([text])[0]
        return row

    def embed_many(self, texts: list[str]) -> np.ndarray:
        """One row per text, in one scatter-add over every (row, slot, signed weight).

        A text is the sum of its words' features; each distinct word is hashed once. Every entry
        is a multiple of 0.5 and so is every partial sum, so the sums are exact in float64 in
        any order: rows equal those of a per-feature loop.
        """
        local: dict[str, int] = {}  # the words of this call, numbered, and their features
        starts: list[int] = []
        lens: list[int] = []
        slots: list[int] = []
        values: list[float] = []
        rows: list[int] = []
        words: list[int] = []
        for row, text in enumerate(texts):
            for w in content_words(text):
                number = local.get(w)
                if number is None:
                    number = local[w] = len(local)
                    word_slots, word_values = self._word(w)
                    starts.append(len(slots))
                    lens.append(len(word_slots))
                    slots.extend(word_slots)
                    values.extend(word_values)
                words.append(number)
                rows.append(row)
        word = np.asarray(words, dtype=np.int64)
        count = np.asarray(lens, dtype=np.int64)[word]
        first = np.repeat(
            np.asarray(starts, dtype=np.int64)[word] - np.cumsum(count) + count, count
        )
        position = first + np.arange(int(count.sum()), dtype=np.int64)  # each occurrence's features
        flat = np.bincount(
            np.repeat(np.asarray(rows, dtype=np.int64), count) * self.dim
            + np.asarray(slots, dtype=np.int64)[position],
            weights=np.asarray(values, dtype=np.float64)[position],
            minlength=len(texts) * self.dim,
        )
        matrix = flat.astype(np.float64, copy=False).reshape(len(texts), self.dim)
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
        unit: np.ndarray = np.divide(matrix, norms[:, None], out=matrix, where=norms[:, None] > 0)
        return unit


def _trigrams(word: str) -> list[tuple[str, float]]:
    padded = f"<{word}>"
    return [(f"c:{padded[i : i + 3]}", 0.5) for i in range(len(padded) - 2)]
