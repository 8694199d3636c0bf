"""The shapes every searcher and reranker shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from evidencedesk.chunking import Chunk


class Hit(NamedTuple):
    """One retrieved chunk: rank from 1, the searcher's score, the chunk."""

    rank: int
    score: float
    chunk: Chunk

    def to_dict(self) -> dict[str, object]:
        return {"rank": self.rank, "score": self.score, "chunk": self.chunk.id}


@runtime_checkable
class Searcher(Protocol):
    """A first-stage searcher: the top k chunks for a query, filtered before ranking."""

    name: str

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        """Top `k`. `allowed=None`: no filter; an empty set: nothing. Filter before ranking."""
        ...


class Embedder(Protocol):
    """What `searchers.DenseSearcher` ranks with: one L2-normalised float64 row per text
    (`dense.ToyEmbedder`, `minilm.MiniLMEmbedder`)."""

    @property
    def dim(self) -> int: ...

    def embed(self, text: str) -> np.ndarray: ...

    def embed_many(self, texts: list[str]) -> np.ndarray: ...


@runtime_checkable
class Reranker(Protocol):
    """A second stage that reorders the first stage's candidates and counts the pairs it scored."""

    # read-only properties: callers only read them (`BlendReranker.pairs_scored` is computed)
    @property
    def name(self) -> str: ...
    @property
    def pairs_scored(self) -> int: ...

    def rerank(self, query: str, candidates: Sequence[Hit]) -> list[Hit]:
        """Reorder first-stage candidates; ranks renumbered from 1."""
        ...


def renumber(scored: Sequence[tuple[float, Chunk]]) -> list[Hit]:
    """Hits ranked from 1 in the order of `scored` (score, chunk) pairs."""
    return [Hit(i, float(score), chunk) for i, (score, chunk) in enumerate(scored, start=1)]
