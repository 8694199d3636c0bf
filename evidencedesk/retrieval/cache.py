"""Memoised first-stage search: the same question is asked of the same index many times per build.

The benchmark, the sizing sweep, the ablations and every candidate ask stage one the same
questions within the same scope, only at different depths. `CachedSearcher` keeps, per (question,
scope), the result at the largest ``k`` asked so far and answers a smaller ``k`` with its prefix.
That is exact for searchers whose top k is a prefix of their top K (k <= K): `SparseSearcher` and
`DenseSearcher` sort every usable chunk once (stable, ties in catalog order) and cut, so a longer
list starts with the shorter one (`tests/test_cache.py` checks it). It is NOT exact for
`HybridSearcher` above its pool (RRF scores change as the fused lists grow), so the hybrid is
rebuilt over cached sparse and dense searchers instead of being cached itself.

Scopes are compared once per new set object, not once per question: the allowed set of a run is
one frozenset of every admitted chunk id, and comparing two equal sets of 20,000 ids costs about a
millisecond. Each scope seen is kept once (`canonical`), and the canonical object is also what the
wrapped searcher receives, so its own mask cache hits by identity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evidencedesk.retrieval.base import Candidate, Searcher
from evidencedesk.retrieval.searchers import HybridSearcher

__all__ = ["CachedSearcher", "LazySearcher", "cached_searchers"]

_NO_FILTER = -1  # scope key of ``allowed=None``


class CachedSearcher:
    """Wraps a prefix-stable `Searcher`; same answers, each (question, scope) searched once."""

    def __init__(self, inner: Searcher, max_entries: int = 200_000):
        self.inner = inner
        self.name = inner.name
        self.max_entries = max_entries
        self.scopes: list[frozenset[str]] = []  # canonical allowed sets, in order first seen
        self._last: tuple[frozenset[str] | None, int] = (None, _NO_FILTER)
        self._results: dict[tuple[str, int], tuple[int, tuple[Candidate, ...]]] = {}
        self.hits = 0
        self.misses = 0

    def canonical(self, allowed: frozenset[str] | None) -> tuple[frozenset[str] | None, int]:
        """(the kept equal set, its number); ``None`` -> (None, -1)."""
        if allowed is None:
            return None, _NO_FILTER
        last, number = self._last
        if allowed is last:
            return self.scopes[number], number
        allowed = frozenset(allowed)
        number = next(
            (n for n, scope in enumerate(self.scopes)
             if scope is allowed or (hash(scope) == hash(allowed) and scope == allowed)),
            len(self.scopes),
        )  # fmt: skip
        if number == len(self.scopes):
            self.scopes.append(allowed)
        self._last = (allowed, number)
        return self.scopes[number], number

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        if k <= 0:
            return []
        scope, number = self.canonical(allowed)
        key = (query, number)
        cached = self._results.get(key)
        # a list shorter than the k it was asked for holds every usable chunk: it answers any k
        if cached is not None and (k <= cached[0] or len(cached[1]) < cached[0]):
            self.hits += 1
            return list(cached[1][:k])
        self.misses += 1
        found = self.inner.search(query, k, scope)
        if len(self._results) >= self.max_entries and key not in self._results:
            self._results.clear()  # a crude bound on memory; correctness does not depend on it
        self._results[key] = (k, tuple(found))
        return list(found)

    def __getattr__(self, name: str) -> Any:
        """Anything else (``chunks``, ``scores`` ...) is the wrapped searcher's."""
        return getattr(self.inner, name)


class LazySearcher:
    """A searcher built on its first use (the evidence checks build indexes and use only BM25)."""

    def __init__(self, name: str, build: Callable[[], Searcher]):
        self.name = name
        self._build: Callable[[], Searcher] | None = build
        self._inner: Searcher | None = None

    @property
    def inner(self) -> Searcher:
        if self._inner is None:
            assert self._build is not None
            self._inner, self._build = self._build(), None
        return self._inner

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Candidate]:
        return self.inner.search(query, k, allowed)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def cached_searchers(searchers: Mapping[str, Searcher]) -> dict[str, Searcher]:
    """`build_searchers`' result with sparse and dense cached and the hybrid fused over them."""
    out: dict[str, Searcher] = dict(searchers)
    for name in ("sparse", "dense"):
        if name in out:
            out[name] = CachedSearcher(out[name])
    hybrid = out.get("hybrid")
    if isinstance(hybrid, HybridSearcher) and "sparse" in out and "dense" in out:
        out["hybrid"] = HybridSearcher(out["sparse"], out["dense"], hybrid.pool, hybrid.rrf_k)
    return out
