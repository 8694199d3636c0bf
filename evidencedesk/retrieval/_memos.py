"""The build's memos, held by one object scoped to a build.

An evaluation opens a `Memos` (`build_memos`) and closes it when it ends, however it ends: the
bootstrap's resample draws (up to 768 MB), tokenisations, word sets, token counts, the pure
rerankers' scores, the toy embedder's feature buckets, the metric engine's judged-lines
conversions, each run's metric values and the judgments' ids the judge and every run's checks
share are kept in its tables while it runs and dropped with it, so nothing a build memoised
outlives it. The
holder is a context variable, not a module-level table: two evaluations in two threads or
contexts never share one, and a call outside any build (the course page's) finds no memo and
computes afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["Memos", "build_memos", "memo", "recent"]

_T = TypeVar("_T")


class Memos:
    """The memo tables of one build, by name (each made on its first use)."""

    def __init__(self) -> None:
        self._tables: dict[str, Any] = {}

    def table(self, name: str, make: Callable[[], _T]) -> _T:
        """The table `name`, made by `make` on its first use."""
        found = self._tables.get(name)
        if found is None:
            found = self._tables[name] = make()
        return found

    def names(self) -> tuple[str, ...]:
        """The tables made so far."""
        return tuple(self._tables)

    def clear(self) -> None:
        self._tables.clear()


_SCOPE: ContextVar[Memos | None] = ContextVar("evidencedesk_memos", default=None)


def memo(name: str, make: Callable[[], _T]) -> _T:
    """The open build's memo table `name` (made by `make` on its first use); outside a build a
    new one, kept by nobody."""
    memos = _SCOPE.get()
    return make() if memos is None else memos.table(name, make)


def recent(name: str, matches: Callable[[_T], bool], make: Callable[[], _T], keep: int = 2) -> _T:
    """The first of the last `keep` values the open build's table `name` holds that `matches`
    (the same inputs, by identity: each value holds its inputs, so their ids stay theirs),
    else a new one `make` makes, kept in front; outside a build a new one, kept by nobody."""
    table: list[_T] = memo(name, list)
    for found in table:
        if matches(found):
            return found
    found = make()
    table.insert(0, found)
    del table[keep:]
    return found


@contextmanager
def build_memos() -> Iterator[Memos]:
    """A build's `Memos`, open while the block runs (an open one is reused: a build inside a
    build keeps one set), dropped when it ends."""
    open_memos = _SCOPE.get()
    if open_memos is not None:
        yield open_memos
        return
    memos = Memos()
    token = _SCOPE.set(memos)
    try:
        yield memos
    finally:
        _SCOPE.reset(token)
        memos.clear()
