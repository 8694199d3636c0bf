"""Means and honest comparison over per-question values: a metric's `Summary`, seeded
bootstrap intervals, paired flips with the kit's one exact sign test (`sign_test_p`), a paired
randomization test (`randomization_p`), Holm's adjustment, the number of one-way flips a label
set needs, and the one significance level, `ALPHA`.

Every function takes values (``None``, undefined, dropped); the paired comparisons of two runs
by metric name, over judged lists, are :mod:`evidencedesk.retrieval.metrics`' (`paired`,
`_paired_bootstrap_ci`, `_randomization_test`), which re-exports this module's names.

The bootstrap's resamples, drawn once per (n, seed, resamples) and kept, and the percentiles
of their means computed from the few resamples that decide them (`stats.bootstrap_ci` uses both).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np

from evidencedesk.retrieval._memos import memo

CELLS = 1 << 18  # resample-matrix cells per chunk (cache-sized)


@dataclass(frozen=True)
class Draws:
    """The bootstrap's resamples of n values for one seed: which values each resample draws,
    in draw order (``index``, one row a resample), and how often it draws each (``counts``)."""

    index: np.ndarray  # (resamples, n), the smallest unsigned type that holds n - 1
    counts: np.ndarray  # (resamples, n) float32: small whole numbers, exact

    @property
    def nbytes(self) -> int:
        return int(self.index.nbytes + self.counts.nbytes)


_DRAW_BYTES = 768 << 20  # the kept draws' memory bound (10,000 resamples of 5,000: 300 MB)


def draws(n: int, seed: int, resamples: int) -> Draws:
    """The resamples of `bootstrap_ci` for (n, seed, resamples), drawn once and kept.

    Drawn exactly as each interval drew them before they were kept: ``default_rng(seed)``,
    ``integers(0, n)`` in chunks of `CELLS` cells, so every interval is unchanged.
    """
    key = (n, seed, resamples)
    # kept for the build (`memos.memo`), least recently used first
    kept: OrderedDict[tuple[int, int, int], Draws] = memo("draws", OrderedDict)
    found = kept.get(key)
    if found is not None:
        kept.move_to_end(key)
        return found
    rng = np.random.default_rng(seed)
    rows = max(1, CELLS // n)
    dtype = np.int32 if n < 2**31 else np.int64
    small = np.uint16 if n <= 1 << 16 else np.uint32
    index = np.empty((resamples, n), dtype=small)
    counts = np.empty((resamples, n), dtype=np.float32)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=dtype)
        index[start:stop] = idx
        flat = (np.arange(stop - start)[:, None] * n + idx).ravel()
        counts[start:stop] = np.bincount(flat, minlength=(stop - start) * n).reshape(-1, n)
    found = kept[key] = Draws(index, counts)
    while sum(d.nbytes for d in kept.values()) > _DRAW_BYTES and len(kept) > 1:
        kept.popitem(last=False)
    return found


def exact_means(data: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Resample means as the bootstrap defines them: the drawn values summed in draw order."""
    out = np.empty(index.shape[0], dtype=np.float64)
    rows = max(1, CELLS // data.size)
    for start in range(0, index.shape[0], rows):
        idx = index[start : start + rows].astype(np.intp)
        out[start : start + rows] = data[idx].sum(axis=1) / data.size
    return out


def percentiles(data: np.ndarray, draws: Draws, qs: tuple[float, ...]) -> list[float]:
    """``np.quantile(means, qs)`` of the resample means, summing only the resamples near them.

    Every resample's mean is first estimated in one float32 product of the count matrix with
    the values, within ``delta`` of its exact mean (the exact mean sums the drawn values in
    draw order; ``delta`` bounds float32 rounding of any summation order: n u / (1 - n u) + 2u
    of the largest |value|, u = 2^-24, doubled). The exact k-th smallest mean lies within
    ``delta`` of the estimates' k-th smallest, so only resamples whose estimate lies within
    2 ``delta`` of the ranks numpy interpolates between are summed exactly; the ranks below
    are counted. A window of ranks around each percentile is filled with the exact order
    statistics and handed to `np.quantile` itself, so its interpolation is numpy's own.
    """
    index, counts = draws.index, draws.counts
    resamples, n = index.shape
    if data.min() == data.max():  # every resample draws the same value n times: one mean
        return [float(v) for v in np.quantile(np.repeat(exact_means(data, index[:1]), 2), qs)]
    big = float(np.abs(data).max())
    u = 2.0**-24
    delta = 2.0 * (n * u / (1.0 - n * u) + 2.0 * u) * big
    approx = (counts @ data.astype(np.float32)).astype(np.float64) / n
    order = np.sort(approx)
    ranks: list[int] = []
    for q in qs:
        mid = int(math.floor(q * (resamples - 1)))
        ranks.extend(range(max(0, mid - 2), min(resamples, mid + 4)))
    ranks = sorted(set(ranks))
    known: dict[int, float] = {}
    for group in _runs(ranks):
        low_bound = order[group[0]] - 2.0 * delta
        high_bound = order[group[-1]] + 2.0 * delta
        inside = np.flatnonzero((approx >= low_bound) & (approx <= high_bound))
        below = int(np.count_nonzero(approx < low_bound))
        exact = np.sort(exact_means(data, index[inside]))
        for r in group:
            known[r] = float(exact[r - below])
    # a sorted array holding the exact order statistics at every rank numpy may read (and the
    # nearest known one elsewhere)
    values = np.array([known[r] for r in ranks], dtype=np.float64)
    nearest = np.searchsorted(np.array(ranks), np.arange(resamples), side="right") - 1
    full = values[np.maximum(nearest, 0)]
    return [float(v) for v in np.quantile(full, list(qs))]


def _runs(ranks: list[int]) -> list[list[int]]:
    """Sorted ranks in runs of consecutive ones."""
    out: list[list[int]] = []
    for r in ranks:
        if out and out[-1][-1] == r - 1:
            out[-1].append(r)
        else:
            out.append([r])
    return out


TIE = 1e-12  # differences this small are ties (float noise, not a change)


# values above which a bootstrap interval and a randomization p come from their large-sample
# limits instead of 10,000 resamples: from 3,000 values on, the limit is within the resampling
# noise of 10,000 resamples (tests/test_stats.py holds it there at 3,000 skewed values), and
# resampling was a third of a 10,000-question build's time
LARGE = 3_000


class Summary(float):
    """Mean over defined questions; ``left_out`` counts the undefined ones.

    It *is* the mean as a float, so ``f"{s:.3f}"``, arithmetic and comparisons work as on the
    course page, and it carries ``name``, ``value`` (the mean, ``None`` when no question defines
    it), ``n`` and ``left_out``. An undefined mean is NaN as a float (so it never passes for a
    number in arithmetic) and prints as ``n/a`` (with a format spec, padded to its width).
    Frozen, like the dataclass it replaces.
    """

    name: str
    value: float | None
    n: int
    left_out: int

    def __new__(cls, name: str, value: float | None, n: int, left_out: int) -> Summary:
        self = super().__new__(cls, math.nan if value is None else value)
        for attr, given in (("name", name), ("value", value), ("n", n), ("left_out", left_out)):
            object.__setattr__(self, attr, given)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        # two summaries compare as values (field by field, so two undefined means are equal);
        # against a plain number, as the float the course page sees
        if isinstance(other, Summary):
            return self.to_dict() == other.to_dict()
        return float(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(float(self)) if self.value is not None else hash((self.name, self.n))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Summary, (self.name, self.value, self.n, self.left_out))

    def __repr__(self) -> str:
        return (
            f"Summary(name={self.name!r}, value={self.value!r}, n={self.n}, "
            f"left_out={self.left_out})"
        )

    def __str__(self) -> str:
        return "n/a" if self.value is None else float.__repr__(self)

    def __format__(self, spec: str) -> str:
        if self.value is None and spec:
            width = re.match(r"^(.?[<>^=])?[-+ ]?z?#?0?(\d*)", spec)
            return format("n/a", f">{width.group(2)}" if width and width.group(2) else "")
        return super().__format__(spec)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "n": self.n, "left_out": self.left_out}


class Interval(tuple[float | None, float | None]):
    """A mean with its percentile-bootstrap interval over ``n`` questions.

    It *is* the pair ``(low, high)``, the course page's shape: ``lo, hi = bootstrap_ci(values)``,
    ``ci[0]``, ``ci[1]``, ``len(ci) == 2``; ``.mean``, ``.low``, ``.high`` and ``.n`` are
    attributes. Built as ``Interval(mean, low, high, n)``. Two intervals are equal when all four
    agree; against a plain tuple it compares as the pair. Frozen.
    """

    mean: float | None
    n: int

    def __new__(cls, mean: float | None, low: float | None, high: float | None, n: int) -> Interval:
        self = super().__new__(cls, (low, high))
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "n", n)
        return self

    @property
    def low(self) -> float | None:
        return self[0]

    @property
    def high(self) -> float | None:
        return self[1]

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple[float | None, float | None, float | None, int]:
        return (self.mean, self.low, self.high, self.n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Interval):
            return self._fields() == other._fields()
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return tuple.__hash__(self)  # the pair's: what compares equal hashes equal

    def __reduce__(self) -> tuple[Any, ...]:
        return (Interval, self._fields())

    def __repr__(self) -> str:
        return f"Interval(mean={self.mean!r}, low={self.low!r}, high={self.high!r}, n={self.n})"

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}


@dataclass(frozen=True)
class Paired:
    """Per-question comparison of run b against run a: ``better`` = b beats a."""

    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "better": list(self.better),
            "worse": list(self.worse),
            "tied": self.tied,
            "p": self.p,
            "n": self.n,
        }


def _check(resamples: int, level: float) -> None:
    if not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"expected resamples >= 1, found {resamples!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"expected a level between 0 and 1, found {level!r}")


def bootstrap_ci(
    values: Iterable[float | None] | Mapping[str, float | None],
    seed: int = 0,
    resamples: int = 10_000,
    level: float = 0.95,
) -> Interval:
    """Seeded percentile bootstrap of the mean over questions (None values dropped); `values`
    may also be question id -> value, as `metrics.per_question` gives them.

    Resamples are drawn as index matrices in chunks (``np.random.default_rng(seed)``); no Python
    loop per resample. The draws of one (n, seed, resamples) are kept and reused by every
    interval over n values (`resampling.draws`), and only the resamples whose means decide the
    two percentiles are summed value by value (`resampling.percentiles`). Above `LARGE` values the interval is
    read off the bootstrap distribution's own expansion instead (`_limit_interval`): at that
    size it is closer to the interval of infinitely many resamples than 10,000 resamples are,
    and takes milliseconds, not seconds.
    """
    _check(resamples, level)
    if isinstance(values, Mapping):
        values = values.values()
    data = np.asarray([v for v in values if v is not None], dtype=np.float64)
    n = int(data.size)
    if n == 0:
        return Interval(None, None, None, 0)
    mean = math.fsum(data.tolist()) / n
    if n == 1:
        return Interval(mean, mean, mean, 1)
    if n > LARGE:
        return Interval(mean, *_limit_interval(data, mean, level), n)
    tail = (1.0 - level) / 2.0
    low, high = percentiles(data, draws(n, seed, resamples), (tail, 1.0 - tail))
    lo_b, hi_b = float(data.min()), float(data.max())  # a mean cannot leave [min, max]
    return Interval(mean, min(max(low, lo_b), hi_b), min(max(high, lo_b), hi_b), n)


def _limit_interval(data: np.ndarray, mean: float, level: float) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean from its Cornish-Fisher expansion.

    The mean of n draws from the data has standard error s / sqrt(n) (s: the data's standard
    deviation with divisor n, the bootstrap's own) and skewness g / sqrt(n) (g: the data's
    skewness); its quantile at z is mean + se * (z + g (z^2 - 1) / (6 sqrt(n))), off by O(1/n)
    -- below the resampling noise of 10,000 resamples (about 0.03 standard errors) once n is
    in the thousands. Clamped to the data's range, as the resampled interval is.
    """
    n = data.size
    centered = data - mean
    var = float(np.dot(centered, centered)) / n
    if var == 0.0:
        return mean, mean
    sd = math.sqrt(var)
    skew = float(np.dot(centered * centered, centered)) / n / sd**3
    se, tail = sd / math.sqrt(n), (1.0 - level) / 2.0
    ends = []
    for alpha in (tail, 1.0 - tail):
        z = NormalDist().inv_cdf(alpha)
        ends.append(mean + se * (z + skew * (z * z - 1.0) / (6.0 * math.sqrt(n))))
    lo_b, hi_b = float(data.min()), float(data.max())
    return min(max(ends[0], lo_b), hi_b), min(max(ends[1], lo_b), hi_b)


ALPHA = 0.05  # the significance level of every test the report states (verdicts, flips, sizing)


def p_text(value: float) -> str:
    """A p-value as printed everywhere (site, exports, terminal): three decimals, "< 0.001"
    below that -- never "0.000" (docs/verdicts.md). The one home of the rule: the site's
    filters (`report._values`) and the gate's lines (`gate`) both read it."""
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def p_is(value: float) -> str:
    """ "p = 0.062", or "p < 0.001" below that (never "p = < 0.001" nor "p = 0.000")."""
    text = p_text(value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


_EXACT_SIGN = 2_000  # untied questions up to which sign_test_p rounds the exact Fraction


def _tail_terms(m: int, low: int) -> Iterator[int]:
    """C(m, low), C(m, low - 1), ..., C(m, 0) as integers, each from the one before
    (C(m, i - 1) = C(m, i) * i / (m - i + 1), exact): one big-integer product per term instead
    of one binomial coefficient per term."""
    term = math.comb(m, low)
    yield term
    for i in range(low, 0, -1):
        term = term * i // (m - i + 1)
        yield term


def _sign_test_exact(better: int, worse: int) -> Fraction:
    """Exact two-sided sign test over the untied questions: min(1, 2 * P(X <= min))."""
    m = better + worse
    if m == 0:
        return Fraction(1)
    tail = Fraction(sum(_tail_terms(m, min(better, worse))), 2**m)
    return min(Fraction(1), 2 * tail)


def sign_test_p(better: int, worse: int, *, estimate: bool = False) -> float:
    """The exact two-sided sign test's p over the untied questions, min(1, 2 * P(X <= min)),
    as a float: the kit's one sign test.

    Up to `_EXACT_SIGN` untied questions it is the exact `Fraction`, rounded once. Above, the
    integer terms are summed from the largest (C(m, min)) down, and the sum stops once the rest
    cannot reach 2^-64 of it (past the largest term each next one is the previous times
    i / (m - i + 1), a ratio that keeps falling, so the rest is below a geometric series; where
    to stop is found in floating point first). The p of 50,000 questions in about 0.1 s, equal
    to the rounded exact `Fraction` to within one unit in the last place (tested against it).

    ``estimate=True``: the tail summed in floating point instead (log-gamma terms, agreeing to
    about 1e-9), for planning searches that try many totals up to a million questions
    (`what_it_takes`), where the exact integer terms would take seconds each. Never for a
    reported p.
    """
    if better < 0 or worse < 0:
        raise ValueError(f"expected non-negative counts, found {better}, {worse}")
    m, low = better + worse, min(better, worse)
    if estimate:
        if m == 0:
            return 1.0
        return min(1.0, 2 * math.fsum(binomial_pmf(k, m, 0.5) for k in range(low + 1)))
    if m <= _EXACT_SIGN:
        return float(_sign_test_exact(better, worse))
    return _large_sign_test_p(m, low)


# metrics that move together (recall@k and precision@k of one list) give a comparison the same
# counts, and the flip matrix asks again for the gate's pairs: each C(m, low) of 50,000
# questions is computed once (about 50 ms each)
@functools.lru_cache(maxsize=256)
def _large_sign_test_p(m: int, low: int) -> float:
    """`sign_test_p` above `_EXACT_SIGN` untied questions (`m`; `low`: the fewer of the wins
    and losses), from the largest integer terms of its tail."""
    kept, share, total = 1, 1.0, 1.0  # terms kept; the last one and their sum over C(m, low)
    for i in range(low, 0, -1):
        ratio = i / (m - i + 1)
        if ratio < 1.0 and share * ratio < total * (1.0 - ratio) * 2.0**-64:
            break
        share *= ratio
        total += share
        kept += 1
    exact = sum(itertools.islice(_tail_terms(m, low), kept))
    return min(1.0, float(Fraction(2 * exact, 2**m)))


def binomial_pmf(k: int, m: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(m, p), in floating point (log-gamma)."""
    if p <= 0.0:
        return 1.0 if k == 0 else 0.0
    if p >= 1.0:
        return 1.0 if k == m else 0.0
    log = math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1)
    return math.exp(log + k * math.log(p) + (m - k) * math.log1p(-p))


def sign_flips(rows: Iterable[tuple[str, float, float]]) -> Paired:
    """Paired (question id, value in a, value in b) rows as flips: which questions b wins and
    loses against a (a difference within `TIE` is a tie), and the exact sign-test p."""
    qids, x, y = row_columns(rows)
    # an overflow gives an infinity, two equal infinities NaN: read as the row-by-row rule
    # reads them (`column_flips`), not warned about
    with np.errstate(over="ignore", invalid="ignore"):
        differences = y - x
    return column_flips(qids, differences)


def row_columns(
    rows: Iterable[tuple[str, float, float]],
) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
    """Paired (question id, value in a, value in b) rows as three columns: the ids, and the
    values in a and in b as float64 arrays."""
    table = list(rows)
    if not table:
        return (), np.zeros(0), np.zeros(0)
    qids, xs, ys = zip(*table, strict=True)
    return qids, np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)


def column_flips(qids: Sequence[str], differences: np.ndarray) -> Paired:
    """`sign_flips` of the rows ``zip(qids, x, y)`` given as the ids and their differences
    ``y - x`` (a float64 array)."""
    # one numpy pass over the differences (a loop over 50,000 questions per metric and
    # candidate was a quarter of a large build's gate), compared as Python compares them; a
    # difference of finite doubles is above 0 exactly when y > x, and NaN (of a NaN or of two
    # equal infinities) neither above nor within TIE: moved, and worse, as with y > x
    moved = ~(np.abs(differences) <= TIE)
    up = differences > 0
    better = tuple(map(qids.__getitem__, np.flatnonzero(moved & up).tolist()))
    worse = tuple(map(qids.__getitem__, np.flatnonzero(moved & ~up).tolist()))
    tied = len(qids) - len(better) - len(worse)
    return Paired(better, worse, tied, sign_test_p(len(better), len(worse)), len(qids))


def _pattern_sums(d: np.ndarray) -> np.ndarray:
    """Sum of s * d for every sign vector s in {-1, +1}^len(d)."""
    bits = (np.arange(1 << d.size)[:, None] >> np.arange(d.size)) & 1
    sums: np.ndarray = (bits * 2 - 1) @ d
    return sums


EXACT_RANDOMIZATION = 20  # non-zero differences up to which every sign pattern is counted


# the seeded sign-flip draws of a randomization test beyond EXACT_RANDOMIZATION differences
RANDOMIZATION_RESAMPLES = 10_000


def randomization_p(
    differences: Iterable[float], seed: int = 0, resamples: int = RANDOMIZATION_RESAMPLES
) -> float:
    """Two-sided paired sign-flip permutation test of the mean of paired differences (b - a).

    Exact (all 2^m sign patterns) when at most 20 differences are non-zero, else seeded Monte
    Carlo with ``resamples`` draws and the (count + 1) / (resamples + 1) estimate; above `LARGE`
    non-zero differences, the permutation distribution's normal limit (sum of s * d has mean 0
    and variance sum of d^2 under random signs): p = 2 * (1 - Phi(|sum d| / sqrt(sum d^2))).
    """
    _check(resamples, 0.5)
    d = np.array(list(differences), dtype=np.float64)
    d = d[np.abs(d) > TIE]
    m = int(d.size)
    if m == 0:
        return 1.0
    observed = abs(float(d.sum()))
    tol = 1e-9 * float(np.abs(d).sum())
    if m > LARGE:
        z = observed / math.sqrt(float(np.dot(d, d)))
        return min(1.0, 2.0 * NormalDist().cdf(-z))
    if m <= EXACT_RANDOMIZATION:  # meet in the middle: 2^(m/2) x 2^(m/2) sums
        half = m // 2
        totals = _pattern_sums(d[:half])[:, None] + _pattern_sums(d[half:])[None, :]
        return int(np.count_nonzero(np.abs(totals) >= observed - tol)) / float(1 << m)
    rng = np.random.default_rng(seed)
    count = 0
    rows = max(1, CELLS // m)
    for start in range(0, resamples, rows):
        size = min(rows, resamples - start)
        signs = rng.integers(0, 2, size=(size, m), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
    return (count + 1) / (resamples + 1)


def holm(pvalues: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values (monotone in the raw order, capped at 1), input order."""
    for key, p in pvalues.items():
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"expected a p-value in [0, 1] for {key!r}, found {p!r}")
    order = sorted(pvalues, key=lambda key: pvalues[key])
    m = len(order)
    adjusted: dict[str, float] = {}
    running = 0.0
    for i, key in enumerate(order):
        running = max(running, min(1.0, (m - i) * pvalues[key]))
        adjusted[key] = running
    return {key: adjusted[key] for key in pvalues}


def flips_needed(n: int, alpha: float = ALPHA) -> int | None:
    """Smallest f <= n such that f better, 0 worse gives sign-test p < alpha; None if none does."""
    for f in range(1, n + 1):
        if _sign_test_exact(f, 0) < Fraction(alpha):
            return f
    return None


__all__ = [
    "ALPHA",
    "CELLS",
    "Draws",
    "Interval",
    "Paired",
    "Summary",
    "binomial_pmf",
    "bootstrap_ci",
    "column_flips",
    "draws",
    "exact_means",
    "flips_needed",
    "holm",
    "percentiles",
    "randomization_p",
    "row_columns",
    "sign_flips",
    "sign_test_p",
]
