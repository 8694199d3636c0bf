"""Second-stage rerankers (SPEC §5): reorder a first stage's candidates.

Every reranker here but ``minilm`` is a **stand-in**: `LexicalPairScorer` and `OverlapScorer` are
hand-made word features, not trained cross-encoders. `HubPairScorer` plugs a real sentence-transformers
``CrossEncoder`` into the ``pair`` slot (optional extra ``models``).

Named rerankers (`_RERANKERS`, resolved by `make_reranker`):

- ``none``: no second stage (`make_reranker` returns None).
- ``overlap``: share of query content words found in the passage (`OverlapScorer`).
- ``feature``: the four-feature `LexicalPairScorer`, always.
- ``pair``: `PairReranker` around the configured scorer (default `LexicalPairScorer`, so with the
  default it orders exactly like ``feature``; the slot exists for a real cross-encoder).
- ``blend``: reciprocal-rank fusion of the first-stage order and the ``pair`` order.
- ``minilm``: `PairReranker` around `BiEncoderPairScorer`, the real MiniLM-L6-v2 int8 (ONNX)
  model of the optional extra ``minilm``: a bi-encoder, not a cross-encoder (cosine of the
  query's and the passage's embeddings); not a stand-in.

Every reranker has ``name``, ``pairs_scored`` (cumulative (query, passage) pairs scored: the cost),
``ties_at_top`` and ``reset()``. **ties_at_top** counts the `rerank` calls (over two or more
candidates) whose two highest final scores are exactly equal, i.e. calls where the first-stage
order, not the reranker, decided which candidate comes first. Ties always keep first-stage order
(the sort is stable). ``max_words`` cuts the passage (``"title || text"``) that is scored to its
first N whitespace words, modelling a reranker's input window.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from evidencedesk.chunking import Chunk
from evidencedesk.errors import RerankerError, UnknownNameError
from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._scorers import (
    HubPairScorer,
    LexicalPairScorer,
    OverlapScorer,
    PairScorer,
    format_passage,
)
from evidencedesk.retrieval.minilm import BiEncoderPairScorer
from evidencedesk.retrieval.searchers import _RRF_K, Hit, _renumber, _rrf

__all__ = [
    "FeatureReranker",
    "HubPairScorer",
    "LexicalPairScorer",
    "PairReranker",
    "PairScorer",
    "make_reranker",
]

# every reranker name a config may give
_RERANKERS = ("none", "overlap", "feature", "pair", "blend", "minilm")


def _check_max_words(max_words: int | None) -> int | None:
    if max_words is not None and (
        isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1
    ):
        raise RerankerError(f"max_words: expected None or an integer >= 1, found {max_words!r}")
    return max_words


def _tied_at_top(scores: Sequence[float]) -> bool:
    if len(scores) < 2:
        return False
    top = sorted(scores, reverse=True)
    return top[0] == top[1]


# The built-in scorers are pure functions of the pair's text: the scores of one query's
# candidate list (the same chunks, the same input window) are kept per scorer class and reused
# by every configuration that reranks the same list -- no passage is formatted or looked up
# again. A scorer of any other class (a real cross-encoder, a test double) is always called.
_PURE = (LexicalPairScorer, OverlapScorer)
_MEMO_LIMIT = 400_000
_CHUNK = itemgetter(2)  # a Hit's chunk


class PairReranker:
    """Adapts a `PairScorer` to the reranker protocol.

    Each candidate becomes the pair ``(query, "title || text")`` (cut to `max_words` whitespace
    words when set); the scorer's raw scores order the candidates, highest first, ties in
    first-stage order. Returned candidates carry the scorer's raw score and ranks from 1.
    `prime` scores many questions' lists (a stage) in one `predict` call ahead of their
    `rerank` calls.
    """

    def __init__(self, scorer: PairScorer, max_words: int | None = None, name: str = "pair"):
        if not callable(getattr(scorer, "predict", None)):
            raise RerankerError(
                f"reranker {name!r}: expected a scorer with predict(pairs), "
                f"found {type(scorer).__name__}"
            )
        self.scorer = scorer
        self.max_words = _check_max_words(max_words)
        self.name = name
        self.pairs_scored = 0
        self.ties_at_top = 0
        # another scorer's primed lists: key -> [chunks, scores, reranks still to come]
        self._primed: dict[tuple[Any, ...], list[Any]] = {}

    def reset(self) -> None:
        self.pairs_scored = 0
        self.ties_at_top = 0
        self._primed.clear()

    def passage(self, candidate: Hit) -> str:
        """The exact text the scorer sees for this candidate."""
        chunk = candidate.chunk
        return format_passage(chunk.title, chunk.text, self.max_words)

    def _key(self, query: str, chunks: tuple[Chunk, ...]) -> tuple[Any, ...]:
        # the chunks by identity: whatever keeps the key keeps them, so no other object can
        # take their ids meanwhile
        return (self.max_words, query, tuple(map(id, chunks)))

    def _kept(self) -> dict[tuple[Any, ...], Any] | None:
        if type(self.scorer) not in _PURE:
            return None
        kept: dict[type, dict[tuple[Any, ...], Any]] = memo("pair scores", dict)
        return kept.setdefault(type(self.scorer), {})

    def _predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        raw = list(self.scorer.predict(pairs))
        if len(raw) != len(pairs):
            raise RerankerError(
                f"reranker {self.name!r}: expected {len(pairs)} scores from the scorer, "
                f"found {len(raw)}"
            )
        return [float(s) for s in raw]

    def prime(self, queries: Sequence[str], lists: Sequence[Sequence[Hit]]) -> None:
        """Score the pairs of every (query, candidate list) not scored yet in ONE `predict` call
        (the built-in scorers' is vectorised); `rerank` then finds them. Counts nothing: a list's
        pairs are counted when it is reranked, as without priming. A built-in scorer's scores
        join the lists kept across configurations (the build's "pair scores" memo); any other scorer's are kept for
        as many `rerank` calls of the same list as were primed, then dropped (`reset` drops
        them too), so outside a primed stage it is asked every time, as before."""
        memo = self._kept()
        todo: dict[tuple[Any, ...], list[Any]] = {}  # key -> [chunks, reranks to come]
        for query, candidates in zip(queries, lists, strict=True):
            chunks = tuple(map(_CHUNK, candidates))
            key = self._key(query, chunks)
            if not chunks or (memo is not None and key in memo):
                continue
            known = self._primed.get(key) or todo.get(key)  # primed before, or in this call
            if known is not None:
                known[-1] += 1
                continue
            todo[key] = [chunks, 1]
        words = self.max_words
        pairs = [(key[1], format_passage(c.title, c.text, words))
                 for key, (chunks, _) in todo.items() for c in chunks]  # fmt: skip
        scores = self._predict(pairs) if pairs else []
        if memo is not None and len(memo) + len(todo) > _MEMO_LIMIT:
            memo.clear()  # a crude bound on memory; results do not depend on it
        start = 0
        for key, (chunks, uses) in todo.items():
            kept = tuple(scores[start : start + len(chunks)])
            start += len(chunks)
            if memo is not None:
                memo[key] = (chunks, kept)
            else:
                self._primed[key] = [chunks, kept, uses]

    def score(self, query: str, candidates: Sequence[Hit]) -> list[float]:
        """Raw scores, one per candidate, in the given order; counts the pairs."""
        if not candidates:
            return []
        chunks = tuple(map(_CHUNK, candidates))
        key = self._key(query, chunks)
        memo = self._kept()
        known = memo.get(key) if memo is not None else self._primed.get(key)
        if known is not None:
            if memo is None:
                known[2] -= 1
                if not known[2]:
                    del self._primed[key]
            self.pairs_scored += len(known[1])
            return list(known[1])
        pairs = [(query, format_passage(c.title, c.text, self.max_words)) for c in chunks]
        scores = self._predict(pairs)
        self.pairs_scored += len(pairs)
        if memo is not None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()  # a crude bound on memory; results do not depend on it
            memo[key] = (chunks, tuple(scores))
        return scores

    def rerank(self, query: str, candidates: Sequence[Hit]) -> list[Hit]:
        scores = self.score(query, candidates)
        if _tied_at_top(scores):
            self.ties_at_top += 1
        order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: ties keep order
        # `_renumber` without its float(): the scores are floats already
        return [Hit(r, scores[i], candidates[i].chunk) for r, i in enumerate(order, 1)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, max_words={self.max_words})"


class FeatureReranker(PairReranker):
    """``feature``: the four-feature `LexicalPairScorer`, whatever scorer is configured."""

    def __init__(self, max_words: int | None = None, name: str = "feature"):
        super().__init__(LexicalPairScorer(), max_words, name)


class _OverlapReranker(PairReranker):
    """``overlap``: share of the query's content words found in the passage."""

    def __init__(self, max_words: int | None = None, name: str = "overlap"):
        super().__init__(OverlapScorer(), max_words, name)


class _BlendReranker:
    """``blend``: RRF of the first-stage order and the inner reranker's order.

    Fused score = 1/(rrf_k + first-stage rank) + 1/(rrf_k + reranker rank). Ties of the fused
    score keep first-stage order and are what ``ties_at_top`` counts here. ``pairs_scored`` is
    the inner reranker's count (fusion itself scores nothing).
    """

    def __init__(self, inner: PairReranker, rrf_k: int = _RRF_K, name: str = "blend"):
        self.inner, self.rrf_k, self.name = inner, rrf_k, name
        self.ties_at_top = 0

    @property
    def pairs_scored(self) -> int:
        return self.inner.pairs_scored

    @property
    def max_words(self) -> int | None:
        return self.inner.max_words

    def reset(self) -> None:
        self.inner.reset()
        self.ties_at_top = 0

    def prime(self, queries: Sequence[str], lists: Sequence[Sequence[Hit]]) -> None:
        """The inner reranker's `prime`: it reranks the same chunks."""
        self.inner.prime(queries, lists)

    def rerank(self, query: str, candidates: Sequence[Hit]) -> list[Hit]:
        if not candidates:
            return []
        first = _renumber([(c.score, c.chunk) for c in candidates])
        fused = _rrf([first, self.inner.rerank(query, first)], len(first), self.rrf_k)
        if _tied_at_top([c.score for c in fused]):
            self.ties_at_top += 1
        return fused

    def __repr__(self) -> str:
        return f"BlendReranker(inner={self.inner!r}, rrf_k={self.rrf_k})"


def make_reranker(
    name: str, scorer: PairScorer | None = None, max_words: int | None = None
) -> PairReranker | _BlendReranker | None:
    """Resolve a reranker by name (`_RERANKERS`); ``"none"`` gives None.

    `scorer` fills the ``pair`` slot (and the pair side of ``blend``); default `LexicalPairScorer`.
    `max_words` applies to every reranker that reads text.
    """
    _check_max_words(max_words)
    if name == "none":
        return None
    if name == "overlap":
        return _OverlapReranker(max_words)
    if name == "feature":
        return FeatureReranker(max_words)
    if name in ("pair", "blend"):
        pair = PairReranker(LexicalPairScorer() if scorer is None else scorer, max_words, "pair")
        return pair if name == "pair" else _BlendReranker(pair)
    if name == "minilm":
        return PairReranker(BiEncoderPairScorer(), max_words, "minilm")
    raise UnknownNameError("reranker", name, _RERANKERS)
