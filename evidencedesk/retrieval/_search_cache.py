"""Memoised first-stage search: the same question is asked of the same index many times per build.

The benchmark, the sizing sweep, the ablations and every candidate ask stage one the same
questions within the same scope, only at different depths. `CachedSearcher` keeps, per (question,
scope), the result at the largest ``k`` asked so far and answers a smaller ``k`` with its prefix.
That is exact for searchers whose top k is a prefix of their top K (k <= K): `SparseSearcher` and
`DenseSearcher` sort every usable chunk once (stable, ties in catalog order) and cut, so a longer
list starts with the shorter one (`tests/test_cache.py` checks it). It is NOT exact for
`HybridSearcher` above its pool (RRF scores change as the fused lists grow): up to its pool the
hybrid asks both searchers for `pool` results whatever k is, so its top k is the prefix of its
top `pool`, and the hybrid is cached up to its pool only (``exact_up_to``; a larger k is searched
every time), rebuilt over the cached sparse and dense searchers. Sparse and dense are asked for
at least the hybrid's pool (``least``), so that a depth-10 run before the hybrid does not search
the same question twice.

Scopes are compared once per new set object, not once per question: the allowed set of a run is
one frozenset of every admitted chunk id, and comparing two equal sets of 20,000 ids costs about a
millisecond. Each scope seen is kept once (`canonical`), and the canonical object is also what the
wrapped searcher receives, so its own mask cache hits by identity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evidencedesk.retrieval.searchers import Hit, HybridSearcher, _search_many, _Searcher

__all__ = ["CachedSearcher", "LazySearcher", "cached_searchers"]

_NO_FILTER = -1  # scope key of ``allowed=None``


class CachedSearcher:
    """Wraps a prefix-stable `_Searcher`; same answers, each (question, scope) searched once.

    ``least``: the smallest k asked of the wrapped searcher (a smaller k is answered from that
    list's prefix); ``exact_up_to``: the largest k whose answer is a prefix of a longer one (a
    larger k goes to the wrapped searcher every time, uncached); None: any k.
    """

    def __init__(
        self,
        inner: _Searcher,
        max_entries: int = 200_000,
        least: int = 1,
        exact_up_to: int | None = None,
    ):
        self.inner = inner
        self.name = inner.name
        self.max_entries = max_entries
        self.least = least if exact_up_to is None else min(least, exact_up_to)
        self.exact_up_to = exact_up_to
        self.scopes: list[frozenset[str]] = []  # canonical allowed sets, in order first seen
        self._last: tuple[frozenset[str] | None, int] = (None, _NO_FILTER)
        self._results: dict[tuple[str, int], tuple[int, tuple[Hit, ...]]] = {}
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

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        if k <= 0:
            return []
        scope, number = self.canonical(allowed)
        if self.exact_up_to is not None and k > self.exact_up_to:
            self.misses += 1
            return self.inner.search(query, k, scope)
        key = (query, number)
        # a list shorter than the k it was asked for holds every usable chunk: it answers any k
        if self._answers(query, number, k):
            self.hits += 1
            return list(self._results[key][1][:k])
        self.misses += 1
        fetch = max(k, self.least)
        found = self.inner.search(query, fetch, scope)
        if len(self._results) >= self.max_entries and key not in self._results:
            self._results.clear()  # a crude bound on memory; correctness does not depend on it
        self._results[key] = (fetch, tuple(found))
        return list(found[:k])

    def prefetch(self, queries: Sequence[str], k: int, allowed: frozenset[str] | None) -> None:
        """Search the questions not cached at `k` yet in one call of the wrapped searcher's
        ``search_many`` (the dense searcher's batches them); nothing if it has none."""
        if k <= 0 or (self.exact_up_to is not None and k > self.exact_up_to):
            return
        if not callable(getattr(self.inner, "search_many", None)):
            return
        scope, number = self.canonical(allowed)
        todo = [q for q in dict.fromkeys(queries) if not self._answers(q, number, k)]
        fetch = max(k, self.least)
        for query, found in zip(todo, _search_many(self.inner, todo, fetch, scope), strict=True):
            if len(self._results) >= self.max_entries:
                self._results.clear()  # as in `search`
            self._results[query, number] = (fetch, tuple(found))

    def search_many(
        self, queries: Sequence[str], k: int, allowed: frozenset[str] | None
    ) -> list[list[Hit]]:
        """``[search(q, k, allowed) for q in queries]``, the missing ones fetched together."""
        self.prefetch(queries, k, allowed)
        return [self.search(q, k, allowed) for q in queries]

    def _answers(self, query: str, number: int, k: int) -> bool:
        cached = self._results.get((query, number))
        return cached is not None and (k <= cached[0] or len(cached[1]) < cached[0])

    def __getattr__(self, name: str) -> Any:
        """Anything else (``chunks``, ``scores`` ...) is the wrapped searcher's."""
        return getattr(self.inner, name)


class LazySearcher:
    """A searcher built on its first use (the evidence checks build indexes and use only BM25)."""

    def __init__(self, name: str, build: Callable[[], _Searcher]):
        self.name = name
        self._build: Callable[[], _Searcher] | None = build
        self._inner: _Searcher | None = None

    @property
    def inner(self) -> _Searcher:
        if self._inner is None:
            assert self._build is not None
            self._inner, self._build = self._build(), None
        return self._inner

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        return self.inner.search(query, k, allowed)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def cached_searchers(searchers: Mapping[str, _Searcher]) -> dict[str, _Searcher]:
    """`build_searchers`' result with sparse and dense cached (each asked for at least the
    hybrid's pool) and the hybrid fused over them, cached up to its pool."""
    out: dict[str, _Searcher] = dict(searchers)
    hybrid = out.get("hybrid")
    pool = hybrid.pool if isinstance(hybrid, HybridSearcher) else 1
    for name in ("sparse", "dense"):
        if name in out:
            out[name] = CachedSearcher(out[name], least=pool)
    if isinstance(hybrid, HybridSearcher) and "sparse" in out and "dense" in out:
        fused = HybridSearcher(out["sparse"], out["dense"], hybrid.pool, hybrid.rrf_k)
        out["hybrid"] = CachedSearcher(fused, least=hybrid.pool, exact_up_to=hybrid.pool)
    return out
