"""The one metric engine: every question's value of a metric kind (recall@k, precision@k,
hit@k, MRR and MRR@k, AP and AP@k, R-precision, nDCG with or without a cut-off, bpref, Judged@k)
at once, as numpy arrays over flat judged lists: one column function per kind, each
(lines, k, gain) -> one float per question.

Production code computes metric values only here, through the registry `metrics.KINDS`, which
names each kind's column beside its readable reference in :mod:`.metrics` (`recall_at`,
`ndcg_at`, ...); the tests hold every column equal to its reference, bit for bit, on every
registered kind (``tests/test_every_metric.py``).

Bit for bit, because the arithmetic is the reference's: a DCG term is gain / log2(1 + rank)
(a division, as in `metrics.dcg`), summed in rank order (`np.bincount` adds each bin's weights
in input order, as Python's `sum` does), and the exp gain 2^g - 1 is exact in float64. AP's
terms (hits / rank) and bpref's (1 - min(n, R) / min(N, R)) are divisions of whole numbers,
correctly rounded in both, summed in rank order the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

import numpy as np

from evidencedesk.retrieval._memos import recent

__all__ = [
    "Heads",
    "JudgedLists",
    "Lines",
    "as_values",
    "cutoff",
    "dcg_sums",
    "defined",
    "first_in_block",
    "hits",
    "in_block",
    "in_top",
    "lines_of",
    "list_heads",
    "lists_at",
    "n_relevant",
    "over_r",
    "question_ids",
    "question_tags",
    "relevant",
    "spans",
]


class JudgedLike(Protocol):
    """What the engine reads of a judged question (`metrics.Judged`)."""

    @property
    def grades(self) -> Sequence[int]: ...
    @property
    def pool(self) -> Sequence[int]: ...
    @property
    def relevant(self) -> int: ...


@dataclass(frozen=True, eq=False)
class Lines:
    """Judged lists of `n` questions as flat arrays.

    Each question's returned results are contiguous, in rank order (blocks may come in any
    question order); they may be only the judged results, with their ranks in the whole list (an
    unjudged result adds nothing to any metric). `pool_q`/`pool_g` hold the grades of each ideal
    list in any order; `relevant` each question's relevance threshold.
    """

    n: int
    line_q: np.ndarray  # question index of every returned result
    rank: np.ndarray  # its 0-based rank
    grade: np.ndarray  # its grade
    pool_q: np.ndarray  # question index of every grade of an ideal list
    pool_g: np.ndarray  # that grade
    relevant: np.ndarray  # per question: grade >= this is relevant
    # per returned result: has a judgment at all; and per question: the list's length. Only
    # lists converted from judged questions carry them (Judged@k needs every returned result,
    # not only the graded ones)
    judged: np.ndarray | None = None
    size: np.ndarray | None = None
    # bpref: per returned result, judged and graded 0 up to the threshold (not below 0); per
    # question, how many documents the judgments grade so (N; -1 where not known)
    nonrel: np.ndarray | None = None
    n_nonrel: np.ndarray | None = None


def _flat(parts: Iterable[Sequence[int]], sizes: np.ndarray) -> np.ndarray:
    total = int(sizes.sum())
    return np.fromiter(itertools.chain.from_iterable(parts), dtype=np.int64, count=total)


@dataclass(frozen=True, eq=False)
class Heads:
    """Every question's returned results as a judge kept them (its lists' heads), flat arrays in
    question order: what its per-question lists are made from, and what a reader of every
    question's head reads instead of making them (the pairs to label next, whether every
    result is judged)."""

    bounds: np.ndarray  # question i's results are [bounds[i], bounds[i + 1])
    ids: np.ndarray  # their document ids, UTF-8, zero-padded to whole 8-byte words
    judged: np.ndarray  # whether the judgments grade each of them

    def top(self, k: int) -> np.ndarray:
        """Where each question's top `k` results stand among `ids` (in order)."""
        return spans(self.bounds[:-1], np.minimum(np.diff(self.bounds), k))


def spans(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The positions of the stretches [starts[i], starts[i] + sizes[i]), one after another."""
    offsets = np.cumsum(sizes) - sizes
    return np.repeat(starts - offsets, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)


class JudgedLists(Sequence[Any]):
    """Judged questions that carry their flat arrays: what the vectorised judge
    (`trec_judge.judge_trec_run`) returns. The judge makes the arrays the metrics read
    (`lines`) at once, its lists' heads (`Heads`) when first asked for (`detached`), and each
    question's :class:`~evidencedesk.retrieval.metrics.Judged` list only when something reads
    it (an item makes its own, an iteration or a comparison all of them): `summarize` and every
    other mean read the arrays alone, so a run nobody drills into never has its 10 million ids
    copied or decoded, and a build makes only the lists its pages show. It reads like a tuple of
    the questions (length, items, slices, equality with a tuple), pickles with its arrays, and
    one made from questions alone (``JudgedLists(judged)``, as `copy` remakes it) converts them
    when first read."""

    __slots__ = ("_heads", "_ids", "_items", "_lines", "_make", "_n", "_tags")

    def __init__(
        self,
        judged: Iterable[Any] = (),
        lines: Lines | None = None,
        *,
        make: Callable[[Sequence[int]], Iterable[Any]] | None = None,
        n: int | None = None,
        ids: Sequence[str] | None = None,
        tags: Sequence[tuple[str, ...]] | None = None,
        heads: Callable[[], Heads] | None = None,
    ) -> None:
        # the lists made so far (None: not yet), a tuple once every one is made
        self._items: list[Any] | tuple[Any, ...]
        if make is None:
            self._items = tuple(judged)
            self._n = len(self._items)
        else:
            if n is None:
                raise ValueError("expected the number of questions with `make`, found none")
            self._items, self._n = [None] * n, n
        self._make = make  # the lists of the questions at these indices
        self._lines = lines
        # the questions' ids and tags, in order, when the maker knows them (`question_ids`,
        # `question_tags`), and what makes its lists' heads (`list_heads`, `detached`)
        self._ids = ids
        self._tags = tags
        self._heads = heads

    def _all(self) -> tuple[Any, ...]:
        if not isinstance(self._items, tuple):
            self._fill([i for i, item in enumerate(self._items) if item is None])
            self._items = tuple(self._items)
            self._make = None  # what it held (the lists' arrays) is no longer needed
        return self._items

    def _fill(self, indices: Sequence[int]) -> None:
        assert self._make is not None and isinstance(self._items, list)
        for i, item in zip(indices, self._make(indices), strict=True):
            self._items[i] = item

    def detached(self) -> JudgedLists:
        """Itself, with its lists' heads copied out of the run now (`Heads`): the run can then
        be let go (a build judges a run and drops it before the next), and each list is still
        made when first read. The documented path never copies them: `summarize` reads the
        arrays alone."""
        if self._heads is not None:
            self._heads()
        return self

    @property
    def lines(self) -> Lines:
        if self._lines is None:
            self._lines = _convert(self)
        return self._lines

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Any, ...]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return self._all()[i]
        return self.lists_at([range(self._n)[i]])[0]  # this question's list alone

    def lists_at(self, indices: Sequence[int]) -> list[Any]:
        """The lists of the questions at `indices` (0 to n - 1), those not made yet made in one
        pass of the maker (the lists a build's pages show, and no other)."""
        if isinstance(self._items, list):
            missing = [i for i in dict.fromkeys(indices) if self._items[i] is None]
            if missing:
                self._fill(missing)
        return [self._items[i] for i in indices]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JudgedLists):
            return self._all() == other._all()
        if isinstance(other, tuple):
            return self._all() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"JudgedLists({self._all()!r})"

    def __reduce__(self) -> tuple[type[JudgedLists], tuple[tuple[Any, ...], Lines | None]]:
        return type(self), (self._all(), self._lines)


def question_ids(judged: Sequence[Any]) -> Sequence[str]:
    """The ids of judged questions, in order, without making lists that are not made yet: the
    statistics of a run's condensed lists read their values and ids, never the lists."""
    if isinstance(judged, JudgedLists) and judged._ids is not None:
        return judged._ids
    return [j.id for j in judged]


def question_tags(judged: Sequence[Any]) -> Sequence[tuple[str, ...]]:
    """The tags of judged questions, in order, without making lists that are not made yet (a
    run's slices read its values and its questions' tags alone)."""
    if isinstance(judged, JudgedLists) and judged._tags is not None:
        return judged._tags
    return [j.tags for j in judged]


def lists_at(judged: Sequence[Any], indices: Sequence[int]) -> list[Any]:
    """The judged lists at `indices`: of a judge's lists, only those are made."""
    if isinstance(judged, JudgedLists):
        return judged.lists_at(indices)
    return [judged[i] for i in indices]


def list_heads(judged: Sequence[Any]) -> Heads | None:
    """The heads of a judge's lists (`Heads`, copied out of its run when first asked for), None
    for other lists."""
    if isinstance(judged, JudgedLists) and judged._heads is not None:
        return judged._heads()
    return None


_KEEP = 6  # conversions a build keeps (its memo "judged lines"; none outside a build)


def lines_of(judged: Sequence[JudgedLike]) -> Lines:
    """A sequence of judged questions (anything with `grades`, `pool` and `relevant`).

    Judged questions are frozen, so the same objects in the same order give the same arrays: the
    last few conversions of a build are kept (`retrieval.memos`) (with the objects, so that their ids stay theirs), and the
    statistics of one run -- means, intervals, slices, paired tests, each metric in turn -- turn
    its lists into arrays once, not once a call. Lists the vectorised judge made
    (`JudgedLists`) already carry their arrays.
    """
    if isinstance(judged, JudgedLists):
        return judged.lines
    key = tuple(map(id, judged))
    held: tuple[tuple[int, ...], Sequence[Any], Lines] = recent(
        "judged lines", lambda found: found[0] == key,
        lambda: (key, tuple(judged), _convert(judged)), keep=_KEEP,
    )  # fmt: skip
    return held[2]


def _convert(judged: Sequence[JudgedLike]) -> Lines:
    n = len(judged)
    sizes = np.fromiter((len(j.grades) for j in judged), dtype=np.int64, count=n)
    pool_sizes = np.fromiter((len(j.pool) for j in judged), dtype=np.int64, count=n)
    line_q = np.repeat(np.arange(n, dtype=np.int64), sizes)
    starts = np.cumsum(sizes) - sizes
    rank = np.arange(line_q.size, dtype=np.int64) - np.repeat(starts, sizes)
    flags = (getattr(j, "judged", None) or (True,) * len(j.grades) for j in judged)
    negative = (getattr(j, "negative", None) or (False,) * len(j.grades) for j in judged)
    grade = _flat((j.grades for j in judged), sizes)
    relevant = np.fromiter((j.relevant for j in judged), dtype=np.int64, count=n)
    known = _flat(flags, sizes).astype(bool)
    nonrelevant = (getattr(j, "nonrelevant", None) for j in judged)
    return Lines(
        n,
        line_q,
        rank,
        grade,
        np.repeat(np.arange(n, dtype=np.int64), pool_sizes),
        _flat((j.pool for j in judged), pool_sizes),
        relevant,
        known,
        np.fromiter((getattr(j, "size", len(j.grades)) for j in judged), np.int64, count=n),
        known & ~_flat(negative, sizes).astype(bool) & (grade < relevant[line_q]),
        np.fromiter((-1 if v is None else v for v in nonrelevant), np.int64, count=n),
    )


def _gains(grades: np.ndarray, gain: str) -> np.ndarray:
    g = grades.astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


def dcg_sums(q: np.ndarray, rank: np.ndarray, grade: np.ndarray, gain: str, n: int) -> np.ndarray:
    return np.bincount(q, weights=_gains(grade, gain) / np.log2(rank + 2.0), minlength=n)


def in_block(q: np.ndarray) -> np.ndarray:
    """Each line's 0-based position within its question's block (blocks are contiguous)."""
    if not q.size:
        return np.zeros(0, dtype=np.int64)
    first = np.r_[True, q[1:] != q[:-1]]
    starts = np.flatnonzero(first)
    return np.arange(q.size, dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, q.size]))


def first_in_block(q: np.ndarray) -> np.ndarray:
    """Whether each line is the first of its question's block."""
    return np.r_[True, q[1:] != q[:-1]] if q.size else np.zeros(0, dtype=bool)


def relevant(lines: Lines) -> np.ndarray:
    """Whether each returned result is relevant (its grade reaches its question's threshold)."""
    relevant: np.ndarray = lines.grade >= lines.relevant[lines.line_q]
    return relevant


def n_relevant(lines: Lines) -> np.ndarray:
    """Per question: R, the relevant grades of its ideal list."""
    pool_rel = lines.pool_g >= lines.relevant[lines.pool_q]
    return np.bincount(lines.pool_q[pool_rel], minlength=lines.n)


def in_top(lines: Lines, k: int | None) -> np.ndarray:
    """Whether each returned result is in its list's top k (every one when k is None)."""
    return np.ones(lines.line_q.size, dtype=bool) if k is None else lines.rank < k


def cutoff(k: int | None, kind: str) -> int:
    if k is None:  # the registry gives these kinds a cut-off
        raise ValueError(f"expected a cut-off for {kind}, found none")
    return k


def defined(lines: Lines) -> np.ndarray:
    """Per question: whether it defines a quality metric (its ideal list holds a relevant
    grade); every column is NaN where it does not."""
    return n_relevant(lines) > 0


def over_r(values: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Per question, `values` ÷ R (0 where R is 0: that question is undefined anyway)."""
    out: np.ndarray = np.divide(values, n_rel, out=np.zeros(n_rel.size), where=n_rel > 0)
    return out


def hits(lines: Lines, k: int) -> np.ndarray:
    return np.bincount(lines.line_q[relevant(lines) & in_top(lines, k)], minlength=lines.n)


def as_values(column: np.ndarray) -> list[float | None]:
    """A column as Python values, None where undefined (NaN)."""
    return [None if v != v else v for v in column.tolist()]
