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

from evidencedesk.retrieval._memos import memo

__all__ = [
    "JudgedLists",
    "Lines",
    "ap_column",
    "as_values",
    "bpref_column",
    "defined",
    "hit_column",
    "judged_column",
    "lines_of",
    "ndcg_column",
    "precision_column",
    "recall_column",
    "rprec_column",
    "rr_column",
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


class JudgedLists(Sequence[Any]):
    """Judged questions that carry their flat arrays: what the vectorised judge
    (`trec_judge.judge_trec_run`) returns. The judge makes the arrays the metrics read
    (`lines`) at once, and the per-question :class:`~evidencedesk.retrieval.metrics.Judged`
    lists only when something reads them (an item, an iteration, a comparison): `summarize`
    and every other mean read the arrays alone, so a run nobody drills into never has its
    10 million ids decoded. It reads like a tuple of the questions (length, items, slices,
    equality with a tuple), pickles with its arrays, and one made from questions alone
    (``JudgedLists(judged)``, as `copy` remakes it) converts them when first read."""

    __slots__ = ("_items", "_lines", "_make", "_n")

    def __init__(
        self,
        judged: Iterable[Any] = (),
        lines: Lines | None = None,
        *,
        make: Callable[[], Iterable[Any]] | None = None,
        n: int | None = None,
    ) -> None:
        if make is None:
            self._items: tuple[Any, ...] | None = tuple(judged)
            self._n = len(self._items)
        else:
            if n is None:
                raise ValueError("expected the number of questions with `make`, found none")
            self._items, self._n = None, n
        self._make = make
        self._lines = lines

    def _all(self) -> tuple[Any, ...]:
        if self._items is None:
            assert self._make is not None
            self._items = tuple(self._make())
            self._make = None  # what it held (the run's arrays) is no longer needed
        return self._items

    @property
    def lines(self) -> Lines:
        if self._lines is None:
            self._lines = _convert(self)
        return self._lines

    def built(self) -> JudgedLists:
        """Itself, with its per-question lists made now: what they are made from (the run's
        arrays) can then be let go (a build judges a run and drops it before the next)."""
        self._all()
        return self

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Any, ...]: ...
    def __getitem__(self, i: int | slice) -> Any:
        return self._all()[i]

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
    recent: list[tuple[tuple[int, ...], Sequence[Any], Lines]] = memo("judged lines", list)
    key = tuple(map(id, judged))
    for seen, _, lines in recent:
        if seen == key:
            return lines
    lines = _convert(judged)
    recent.insert(0, (key, tuple(judged), lines))
    del recent[_KEEP:]
    return lines


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


def _dcg(q: np.ndarray, rank: np.ndarray, grade: np.ndarray, gain: str, n: int) -> np.ndarray:
    return np.bincount(q, weights=_gains(grade, gain) / np.log2(rank + 2.0), minlength=n)


def _in_block(q: np.ndarray) -> np.ndarray:
    """Each line's 0-based position within its question's block (blocks are contiguous)."""
    if not q.size:
        return np.zeros(0, dtype=np.int64)
    first = np.r_[True, q[1:] != q[:-1]]
    starts = np.flatnonzero(first)
    return np.arange(q.size, dtype=np.int64) - np.repeat(starts, np.diff(np.r_[starts, q.size]))


def _first(q: np.ndarray) -> np.ndarray:
    """Whether each line is the first of its question's block."""
    return np.r_[True, q[1:] != q[:-1]] if q.size else np.zeros(0, dtype=bool)


def _relevant(lines: Lines) -> np.ndarray:
    """Whether each returned result is relevant (its grade reaches its question's threshold)."""
    relevant: np.ndarray = lines.grade >= lines.relevant[lines.line_q]
    return relevant


def _n_relevant(lines: Lines) -> np.ndarray:
    """Per question: R, the relevant grades of its ideal list."""
    pool_rel = lines.pool_g >= lines.relevant[lines.pool_q]
    return np.bincount(lines.pool_q[pool_rel], minlength=lines.n)


def _top(lines: Lines, k: int | None) -> np.ndarray:
    """Whether each returned result is in its list's top k (every one when k is None)."""
    return np.ones(lines.line_q.size, dtype=bool) if k is None else lines.rank < k


def _cut(k: int | None, kind: str) -> int:
    if k is None:  # the registry gives these kinds a cut-off
        raise ValueError(f"expected a cut-off for {kind}, found none")
    return k


def defined(lines: Lines) -> np.ndarray:
    """Per question: whether it defines a quality metric (its ideal list holds a relevant
    grade); every column is NaN where it does not."""
    return _n_relevant(lines) > 0


def _over_r(values: np.ndarray, n_rel: np.ndarray) -> np.ndarray:
    """Per question, `values` ÷ R (0 where R is 0: that question is undefined anyway)."""
    out: np.ndarray = np.divide(values, n_rel, out=np.zeros(n_rel.size), where=n_rel > 0)
    return out


def _hits(lines: Lines, k: int) -> np.ndarray:
    return np.bincount(lines.line_q[_relevant(lines) & _top(lines, k)], minlength=lines.n)


def recall_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top k / R (`metrics.recall_at`)."""
    n_rel = _n_relevant(lines)
    hits = _hits(lines, _cut(k, "recall"))
    return _over_r(hits, n_rel)


def precision_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top k / k (`metrics.precision_at`)."""
    cut = _cut(k, "precision")
    return _hits(lines, cut) / cut


def hit_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """1 when a relevant result is in the top k (`metrics.hit_at`)."""
    return (_hits(lines, _cut(k, "hit")) > 0).astype(np.float64)


def judged_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """The judged share of the top min(k, list length) (`metrics.judged_at`); NaN for an empty
    list."""
    if lines.judged is None or lines.size is None:
        raise ValueError("Judged@k needs every returned result, found only graded lines")
    shown = np.minimum(lines.size, _cut(k, "judged"))
    seen = np.bincount(lines.line_q[lines.judged & _top(lines, k)], minlength=lines.n)
    values: np.ndarray = np.divide(seen, shown, out=np.full(lines.n, np.nan), where=shown > 0)
    return values


def rr_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """1 / the rank of the first relevant result in the top k, or of the list (`metrics.
    reciprocal_rank`)."""
    kept = _relevant(lines) & _top(lines, k)
    lq, rk = lines.line_q[kept], lines.rank[kept]
    first = _first(lq)
    values = np.zeros(lines.n)
    values[lq[first]] = 1.0 / (rk[first] + 1.0)
    return values


def ap_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """Average precision of the top k, or of the list, over R (`metrics.average_precision`)."""
    n_rel = _n_relevant(lines)
    kept = _relevant(lines) & _top(lines, k)
    lq, rk = lines.line_q[kept], lines.rank[kept]
    precision = (_in_block(lq) + 1) / (rk + 1)  # hits so far / rank, at each relevant result
    return _over_r(np.bincount(lq, weights=precision, minlength=lines.n), n_rel)


def rprec_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top R / R (`metrics.r_precision`)."""
    n_rel, q = _n_relevant(lines), lines.line_q
    hits = np.bincount(q[_relevant(lines) & (lines.rank < n_rel[q])], minlength=lines.n)
    return _over_r(hits, n_rel)


def bpref_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """bpref, as trec_eval computes it (`metrics.bpref`)."""
    if lines.nonrel is None or lines.n_nonrel is None:
        raise ValueError("bpref needs the judged non-relevant results, found only graded lines")
    n, q, rel, n_rel = lines.n, lines.line_q, _relevant(lines), _n_relevant(lines)
    if ((lines.n_nonrel < 0) & (n_rel > 0)).any():
        missing = int(np.flatnonzero((lines.n_nonrel < 0) & (n_rel > 0))[0])
        raise ValueError(
            f"expected the number of judged non-relevant documents for bpref, found None for "
            f"question {missing}"
        )
    # judged non-relevant results ranked above each line, within its question
    seen = np.cumsum(lines.nonrel) - lines.nonrel
    above = seen - seen[np.flatnonzero(_first(q))][np.cumsum(_first(q)) - 1] if q.size else seen
    # N counts at least the judged non-relevant results the list holds, as in `metrics.bpref`
    at_least = np.maximum(lines.n_nonrel, np.bincount(q[lines.nonrel], minlength=n))
    r, cap = n_rel[q[rel]], np.minimum(at_least, n_rel)[q[rel]]
    share = np.divide(np.minimum(above[rel], r), cap, out=np.zeros(r.size), where=cap > 0)
    terms = np.where(above[rel] == 0, 1.0, 1.0 - share)
    return _over_r(np.bincount(q[rel], weights=terms, minlength=n), n_rel)


def ndcg_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    """DCG of the top k, or of the list, over the ideal list's (`metrics.ndcg_at`)."""
    n, q, rank, top = lines.n, lines.line_q, lines.rank, _top(lines, k)
    gained = _dcg(q[top], rank[top], lines.grade[top], gain, n)
    order = np.lexsort((-lines.pool_g, lines.pool_q))  # each ideal list best first
    pq, pg = lines.pool_q[order], lines.pool_g[order]
    prank = np.arange(pq.size) - np.searchsorted(pq, pq)
    best = np.ones(pq.size, dtype=bool) if k is None else prank < k
    ideal = _dcg(pq[best], prank[best], pg[best], gain, n)
    values: np.ndarray = np.divide(gained, ideal, out=np.zeros(n), where=_n_relevant(lines) > 0)
    return values


def as_values(column: np.ndarray) -> list[float | None]:
    """A column as Python values, None where undefined (NaN)."""
    return [None if v != v else v for v in column.tolist()]
