"""The bootstrap's resamples, drawn once per (n, seed, resamples) and kept, and the percentiles
of their means computed from the few resamples that decide them (`stats.bootstrap_ci` uses both).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

__all__ = ["CELLS", "Draws", "draws", "exact_means", "percentiles"]

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


_DRAWS: OrderedDict[tuple[int, int, int], Draws] = OrderedDict()
_DRAW_BYTES = 768 << 20  # the kept draws' memory bound (10,000 resamples of 5,000: 300 MB)


def forget_draws() -> None:
    """Drop the kept draws (`retrieval.caches.forget_all`: at the end of a build)."""
    _DRAWS.clear()


def draws(n: int, seed: int, resamples: int) -> Draws:
    """The resamples of `bootstrap_ci` for (n, seed, resamples), drawn once and kept.

    Drawn exactly as each interval drew them before they were kept: ``default_rng(seed)``,
    ``integers(0, n)`` in chunks of `CELLS` cells, so every interval is unchanged.
    """
    key = (n, seed, resamples)
    found = _DRAWS.get(key)
    if found is not None:
        _DRAWS.move_to_end(key)
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
    found = _DRAWS[key] = Draws(index, counts)
    while sum(d.nbytes for d in _DRAWS.values()) > _DRAW_BYTES and len(_DRAWS) > 1:
        _DRAWS.popitem(last=False)
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
