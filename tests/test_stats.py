"""Honesty tools: bootstrap intervals, paired flips, sign test, randomization test, Holm, flips."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
from dataclasses import FrozenInstanceError
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.retrieval import _stats as stats
from evidencedesk.retrieval import metrics
from evidencedesk.retrieval._stats import TIE, flips_needed, holm, sign_flips, sign_test_p
from evidencedesk.retrieval.metrics import (
    Interval,
    Judged,
    Paired,
    _paired_bootstrap_ci,
    _randomization_test,
    bootstrap_ci,
    paired,
)


def test_reexported_from_metrics() -> None:
    # the course page's interval and the types the paired functions return; the sign test,
    # Holm and flips-needed arithmetic stay private to _stats
    assert metrics.bootstrap_ci is stats.bootstrap_ci
    assert (metrics.Interval, metrics.Paired, metrics.Summary) == (
        stats.Interval,
        stats.Paired,
        stats.Summary,
    )
    assert "sign_test_p" not in metrics.__all__


# -- sign test --------------------------------------------------------------------------------
# Derived by hand: m = better + worse untied questions, each a fair coin under "no difference";
# p = 2 * P(X <= min(better, worse)) with X ~ Binomial(m, 1/2), capped at 1.
#   (4, 0): 2 * 1/16                     = 0.125
#   (6, 0): 2 * 1/64                     = 0.03125
#   (3, 3): 2 * (1 + 6 + 15 + 20)/64     = 84/64 -> 1
#   (5, 1): 2 * (1 + 6)/64               = 14/64 = 0.21875
#   (2, 4): 2 * (1 + 6 + 15)/64          = 44/64 = 0.6875
#   (1, 0): 2 * 1/2                      = 1
#   (8, 2): 2 * (1 + 10 + 45)/1024       = 112/1024 = 0.109375
#   (0, 10): 2 * 1/1024                  = 0.001953125


@pytest.mark.parametrize(
    ("better", "worse", "expected"),
    [
        (4, 0, 0.125),
        (6, 0, 0.03125),
        (3, 3, 1.0),
        (5, 1, 0.21875),
        (2, 4, 0.6875),
        (1, 0, 1.0),
        (8, 2, 0.109375),
        (0, 10, 0.001953125),
        (0, 0, 1.0),
    ],
)
def test_sign_test_by_hand(better: int, worse: int, expected: float) -> None:
    assert sign_test_p(better, worse) == expected
    assert stats._sign_test_exact(better, worse) == Fraction(expected)


def test_sign_test_is_exact_for_large_counts() -> None:
    assert stats._sign_test_exact(60, 0) == Fraction(2, 2**60)
    assert sign_test_p(60, 0) == 2.0**-59


@pytest.mark.parametrize(
    ("better", "worse"),
    [(4, 0), (3, 3), (5, 1), (8, 2), (0, 10), (30, 12), (40, 41), (100, 0), (57, 143), (250, 200)],
)
def test_sign_test_tail_sum_equals_the_fraction_at_small_n(
    better: int, worse: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact = float(stats._sign_test_exact(better, worse))
    monkeypatch.setattr(stats, "_EXACT_SIGN", 0)  # every count takes the truncated tail sum
    assert sign_test_p(better, worse) == pytest.approx(exact, rel=2.3e-16, abs=0.0)


@pytest.mark.parametrize(
    ("better", "worse"), [(2100, 1900), (2600, 2400), (3000, 3001), (4000, 50), (20, 9000)]
)
def test_sign_test_above_the_exact_limit_matches_the_fraction(better: int, worse: int) -> None:
    assert better + worse > stats._EXACT_SIGN
    exact = float(stats._sign_test_exact(better, worse))
    assert sign_test_p(better, worse) == pytest.approx(exact, rel=2.3e-16, abs=0.0)


def test_a_large_sign_test_is_computed_once_for_the_same_totals() -> None:
    stats._large_sign_test_p.cache_clear()
    first = sign_test_p(3129, 2158)
    assert sign_test_p(2158, 3129) == first  # the two orders are one test: one computation
    assert stats._large_sign_test_p.cache_info().hits == 1
    exact = float(stats._sign_test_exact(3129, 2158))
    assert first == pytest.approx(exact, rel=2.3e-16, abs=0.0)


def test_sign_test_at_fifty_thousand_questions() -> None:
    # 26,000 vs 24,000: z = 2,000 / sqrt(50,000) = 8.94, two-sided normal tail 3.8e-19
    assert sign_test_p(26_000, 24_000) == pytest.approx(3.8574699510318216e-19, rel=1e-15)
    assert sign_test_p(25_000, 25_000) == 1.0
    assert sign_test_p(40_000, 0) == 0.0  # 2^-39,999 underflows, as the Fraction's float does
    with pytest.raises(ValueError, match="expected non-negative counts, found -1, 3000"):
        sign_test_p(-1, 3000)


def test_paired_spec_example_and_fields() -> None:
    a = {"q1": 0.5, "q2": 0.0, "q3": 1.0, "q4": 0.25, "q5": 1.0, "q6": None}
    b = {"q1": 1.0, "q2": 1.0, "q3": 1.0, "q4": 0.5, "q5": 0.5 + 0.5, "q6": 1.0, "q7": 1.0}
    result = paired(a, b)
    assert result.better == ("q1", "q2", "q4")
    assert result.worse == ()
    assert result.tied == 2  # q3, q5; q6 undefined in a, q7 missing from a
    assert result.n == 5
    assert result.p == 0.25
    assert result.to_dict() == {
        "better": ["q1", "q2", "q4"],
        "worse": [],
        "tied": 2,
        "p": 0.25,
        "n": 5,
    }
    four = paired({q: 0.0 for q in "abcd"}, {q: 1.0 for q in "abcd"})
    assert four == Paired(("a", "b", "c", "d"), (), 0, 0.125, 4)
    worse = paired({q: 1.0 for q in "abcdef"}, {q: float(q in "ab") for q in "abcdef"})
    assert (len(worse.better), len(worse.worse), worse.tied) == (0, 4, 2)


def _flips_row_by_row(rows: list[tuple[str, float, float]]) -> tuple[tuple[str, ...], ...]:
    """The flips as the definition reads, one row at a time (the reference)."""
    better = tuple(q for q, x, y in rows if not abs(y - x) <= TIE and y > x)
    worse = tuple(q for q, x, y in rows if not abs(y - x) <= TIE and not y > x)
    return better, worse


@pytest.mark.parametrize(
    ("x", "y", "flip"),
    [
        (0.5, 0.5, "tied"),
        (0.5, 0.5 + TIE / 2, "tied"),
        (0.5, 0.5 - TIE / 2, "tied"),
        (0.0, TIE, "tied"),  # within TIE: a tie
        (0.0, 2 * TIE, "better"),
        (2 * TIE, 0.0, "worse"),
        (0.1 + 0.2, 0.3, "tied"),  # float noise
        (0.0, 1.0, "better"),
        (1.0, 0.0, "worse"),
        (0.0, float("nan"), "worse"),  # never a value: the row-by-row rule's answer kept
        # the flips read y - x: its overflow keeps the sign, equal infinities give NaN
        (-1e308, 1e308, "better"),
        (1e308, -1e308, "worse"),
        (0.0, float("inf"), "better"),
        (float("inf"), float("inf"), "worse"),
        (float("-inf"), float("-inf"), "worse"),
    ],
)
def test_sign_flips_by_hand(x: float, y: float, flip: str) -> None:
    result = sign_flips([("a", 1.0, 1.0), ("q", x, y)])
    got = "better" if result.better == ("q",) else "worse" if result.worse == ("q",) else "tied"
    assert got == flip
    assert result.tied == 1 + (flip == "tied") and result.n == 2
    assert result.p == sign_test_p(len(result.better), len(result.worse))


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0, TIE, 1 - TIE]),
                          st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0, TIE, 1 - TIE]))))  # fmt: skip
def test_sign_flips_are_the_row_by_row_flips(pairs: list[tuple[float, float]]) -> None:
    rows = [(f"q{i}", x, y) for i, (x, y) in enumerate(pairs)]
    result = sign_flips(rows)
    assert (result.better, result.worse) == _flips_row_by_row(rows)
    assert result.tied == len(rows) - len(result.better) - len(result.worse)
    assert sign_flips(iter(rows)) == result  # any iterable, read once


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        ({"b": 1, "a": 0, "d": 2}, [("a", 1.0, 0.0), ("b", 0.5, 1.0), ("d", 1.0, 2.0)]),
        ({"b": 1, "a": 0, "d": None}, [("a", 1.0, 0.0), ("b", 0.5, 1.0)]),  # undefined in b
        ({"b": 1, "a": 0}, [("a", 1.0, 0.0), ("b", 0.5, 1.0)]),  # missing from b
    ],
)
def test_aligned_rows_are_floats_in_the_first_runs_order(
    b: dict[str, float | None], expected: list[tuple[str, float, float]]
) -> None:
    rows = metrics._aligned({"a": 1, "b": 0.5, "d": 1}, b)
    assert rows == expected
    assert all(type(x) is float and type(y) is float for _, x, y in rows)
    assert metrics._aligned({"a": None, "b": 0.5}, {"a": 1.0, "b": 0.0}) == [("b", 0.5, 0.0)]


def test_paired_accepts_judged_lists() -> None:
    def j(qid: str, grades: tuple[int, ...]) -> Judged:
        return Judged(qid, (), True, grades, (2,))

    a = [j("x", (0, 2)), j("y", (2,)), j("z", (0, 0))]
    b = [j("x", (2,)), j("y", (0, 2)), j("z", (0, 0))]
    result = paired(a, b, "mrr")
    assert (result.better, result.worse, result.tied) == (("x",), ("y",), 1)
    assert paired(a, b, "recall@2").tied == 3


@given(st.dictionaries(st.text(min_size=1, max_size=4), st.none() | st.floats(0, 1)))
def test_paired_with_itself_has_no_flips(values: dict[str, float | None]) -> None:
    result = paired(values, values)
    assert result.better == () and result.worse == ()
    assert result.p == 1.0
    assert result.tied == result.n == sum(v is not None for v in values.values())
    assert _randomization_test(values, values) == 1.0


# -- large samples: the limits against resampling ----------------------------------------------


def _skewed(n: int, seed: int) -> list[float]:
    # reciprocal-rank-like values: 30 % zeros, the rest 1/rank -- skewed, many ties
    rng = np.random.default_rng(seed)
    return ((1.0 / rng.integers(1, 20, size=n)) * (rng.random(n) < 0.7)).tolist()


@pytest.mark.parametrize("seed", [1, 2])
def test_large_sample_interval_agrees_with_resampling(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = _skewed(3000, seed)
    resampled = bootstrap_ci(values, seed=seed)  # 3,000 <= LARGE: 10,000 resamples
    monkeypatch.setattr(stats, "LARGE", 100)
    limit = bootstrap_ci(values, seed=seed)
    se = float(np.std(values)) / math.sqrt(len(values))
    assert limit.mean == resampled.mean and limit.n == 3000
    # 10,000 resamples put each end within ~0.03 standard errors of the ideal interval
    assert abs(limit.low - resampled.low) < 0.1 * se
    assert abs(limit.high - resampled.high) < 0.1 * se
    # the skewness term: right-skewed data -> the upper end further from the mean
    assert limit.high - limit.mean > limit.mean - limit.low


def test_large_sample_interval_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "LARGE", 3)
    # 0, 0, 1, 1: mean 0.5, sd (divisor n) 0.5, skewness 0, se 0.25 -> 0.5 -/+ 1.959964 * 0.25
    low, high = bootstrap_ci([0.0, 0.0, 1.0, 1.0])
    assert (low, high) == pytest.approx((0.5 - 0.4899909, 0.5 + 0.4899909), abs=1e-6)
    assert bootstrap_ci([0.25] * 5) == Interval(0.25, 0.25, 0.25, 5)  # no spread, no width


def test_large_sample_randomization_p(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    a = {f"q{i}": v for i, v in enumerate(_skewed(2000, 3))}
    b = {q: v + float(rng.normal()) * 0.3 + 0.01 for q, v in a.items()}
    resampled = _randomization_test(a, b, seed=0)
    monkeypatch.setattr(stats, "LARGE", 100)
    assert _randomization_test(a, b, seed=0) == pytest.approx(resampled, abs=0.02)
    # by hand: differences 1, 1, 1, -1 (m = 4 > LARGE = 3): z = 2 / sqrt(4) = 1, p = 2 * Phi(-1)
    monkeypatch.setattr(stats, "LARGE", 3)
    one = {q: 0.0 for q in "abcd"}
    assert _randomization_test(one, {"a": 1.0, "b": 1.0, "c": 1.0, "d": -1.0}) == pytest.approx(
        0.3173105, abs=1e-7
    )


# -- bootstrap --------------------------------------------------------------------------------


def test_bootstrap_small_cases() -> None:
    assert bootstrap_ci([]) == Interval(None, None, None, 0)
    assert bootstrap_ci([None, None]) == Interval(None, None, None, 0)
    assert bootstrap_ci([0.25, None]) == Interval(0.25, 0.25, 0.25, 1)
    interval = bootstrap_ci([1.0] * 30 + [0.0] * 10 + [None] * 3)
    assert interval.n == 40 and interval.mean == 0.75
    assert 0.55 < interval.low < 0.75 < interval.high < 0.9
    assert interval.to_dict() == {
        "mean": 0.75,
        "low": interval.low,
        "high": interval.high,
        "n": 40,
    }
    with pytest.raises(ValueError):
        bootstrap_ci([1.0, 2.0], resamples=0)
    with pytest.raises(ValueError):
        bootstrap_ci([1.0, 2.0], level=1.0)


def test_an_interval_is_the_pair_low_high_with_its_mean_and_n() -> None:
    ci = Interval(0.5, 0.25, 0.75, 8)
    assert (ci[0], ci[1], len(ci), tuple(ci), ci[-1]) == (0.25, 0.75, 2, (0.25, 0.75), 0.75)
    lo, hi = ci
    assert (lo, hi) == (ci.low, ci.high) == (0.25, 0.75) and (ci.mean, ci.n) == (0.5, 8)
    assert isinstance(ci, tuple) and f"[{ci[0]:.3f}, {ci[1]:.3f}]" == "[0.250, 0.750]"
    # equal as intervals only when mean and n agree too; as a plain pair, by its two ends
    assert ci == Interval(0.5, 0.25, 0.75, 8) and ci != Interval(0.4, 0.25, 0.75, 8)
    assert ci == (0.25, 0.75) and (0.25, 0.75) == ci and ci != (0.25, 0.7)
    assert hash(ci) == hash(Interval(0.5, 0.25, 0.75, 8)) == hash((0.25, 0.75))
    assert pickle.loads(pickle.dumps(ci)) == ci and copy.deepcopy(ci).n == 8
    assert repr(ci) == "Interval(mean=0.5, low=0.25, high=0.75, n=8)"
    with pytest.raises(FrozenInstanceError):
        ci.n = 3  # type: ignore[misc]
    with pytest.raises(IndexError):
        ci[2]
    nothing = Interval(None, None, None, 0)
    assert tuple(nothing) == (None, None) and nothing.to_dict()["n"] == 0


def test_bootstrap_takes_values_or_a_dict_of_question_values() -> None:
    values = {"a": 1.0, "b": 0.0, "c": 0.5, "d": None}
    assert bootstrap_ci(values, seed=3) == bootstrap_ci([1.0, 0.0, 0.5], seed=3)
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values.values(), seed=3)
    assert bootstrap_ci({}) == Interval(None, None, None, 0)


def test_bootstrap_matches_a_reference_loop() -> None:
    values = [0.0, 0.5, 1.0, 1.0, 0.2, 0.9, 0.33]
    rng = np.random.default_rng(7)
    idx = rng.integers(0, len(values), size=(2000, len(values)), dtype=np.int32)
    means = np.asarray(values)[idx].sum(axis=1) / len(values)
    low, high = np.quantile(means, [0.025, 0.975])
    interval = bootstrap_ci(values, seed=7, resamples=2000)
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))


def reference_bootstrap(
    values: list[float], seed: int = 0, resamples: int = 10_000, level: float = 0.95
) -> tuple[float, float]:
    """`bootstrap_ci`'s interval as it was computed before the draws were kept and only the
    resamples near the percentiles summed: every resample's mean, then `np.quantile`."""
    data = np.asarray(values, dtype=np.float64)
    n = data.size
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    rows = max(1, (1 << 18) // n)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=np.int32)
        means[start:stop] = data[idx].sum(axis=1) / n
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    lo_b, hi_b = float(data.min()), float(data.max())
    return min(max(float(low), lo_b), hi_b), min(max(float(high), lo_b), hi_b)


def _sample(kind: str, n: int, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    if kind == "rr":
        return _skewed(n, seed)
    if kind == "hit":
        return (rng.random(n) < 0.8).astype(float).tolist()
    if kind == "delta":  # paired differences of reciprocal ranks: mostly 0, signed
        return (np.asarray(_skewed(n, seed)) - np.asarray(_skewed(n, seed + 1))).tolist()
    if kind == "wide":  # continuous, large and negative values
        return (rng.normal(size=n) * 1e6 - 3e5).tolist()
    if kind == "constant":
        return [1.0 / 3.0] * n
    if kind == "zeros":
        return [0.0] * n
    return rng.random(n).tolist()


@pytest.mark.parametrize(
    ("kind", "n", "seed", "resamples", "level"),
    [
        ("rr", 2, 0, 10_000, 0.95),
        ("rr", 47, 1, 10_000, 0.95),
        ("rr", 950, 0, 10_000, 0.95),
        ("rr", 3000, 4, 10_000, 0.95),
        ("hit", 800, 2, 10_000, 0.95),
        ("hit", 5, 3, 500, 0.9),
        ("delta", 1200, 5, 10_000, 0.95),
        ("delta", 300, 6, 2_000, 0.99),
        ("wide", 400, 7, 10_000, 0.95),
        ("uniform", 1000, 8, 7, 0.95),
        ("uniform", 64, 9, 1, 0.5),
        ("constant", 250, 1, 10_000, 0.95),
        ("zeros", 90, 2, 10_000, 0.95),
    ],
)
def test_bootstrap_equals_the_every_resample_reference(
    kind: str, n: int, seed: int, resamples: int, level: float
) -> None:
    values = _sample(kind, n, seed)
    interval = bootstrap_ci(values, seed=seed, resamples=resamples, level=level)
    assert (interval.low, interval.high) == reference_bootstrap(values, seed, resamples, level)


def test_bootstrap_draws_are_kept_per_size_and_seed() -> None:
    from collections import OrderedDict

    from evidencedesk.retrieval._memos import build_memos

    a, b = _sample("rr", 300, 1), _sample("delta", 300, 2)
    with build_memos() as memos:
        draws = memos.table("draws", OrderedDict)
        bootstrap_ci(a, seed=5)
        kept = draws[300, 5, 10_000]
        assert bootstrap_ci(b, seed=5) == bootstrap_ci(b, seed=5)  # the same draws, reused
        assert draws[300, 5, 10_000] is kept and len(draws) == 1
        assert (kept.index.dtype, kept.counts.dtype) == (np.uint16, np.float32)
        assert kept.counts.sum(axis=1).tolist() == [300.0] * 10_000  # each resample draws n
        bootstrap_ci(a, seed=6)
        assert list(draws) == [(300, 5, 10_000), (300, 6, 10_000)]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.1, 1 / 3, 0.5, 1.0, -0.25]), min_size=2, max_size=60),
    st.integers(0, 2**16),
)
def test_bootstrap_equals_the_reference_on_tied_values(values: list[float], seed: int) -> None:
    interval = bootstrap_ci(values, seed=seed, resamples=300)
    assert (interval.low, interval.high) == reference_bootstrap(values, seed, 300)


def test_bootstrap_level_widens() -> None:
    values = [i / 50 for i in range(50)]
    narrow, wide = bootstrap_ci(values, level=0.8), bootstrap_ci(values, level=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


values_st = st.lists(st.floats(0, 1, allow_nan=False) | st.none(), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(values_st, st.integers(0, 2**32 - 1))
def test_bootstrap_interval_properties(values: list[float | None], seed: int) -> None:
    interval = bootstrap_ci(values, seed=seed, resamples=500)
    kept = [v for v in values if v is not None]
    assert interval.n == len(kept)
    if not kept:
        return
    assert interval.mean == pytest.approx(sum(kept) / len(kept), abs=1e-12)
    assert min(kept) <= interval.low <= interval.high <= max(kept)
    assert interval.low <= interval.mean + 1e-12 and interval.mean - 1e-12 <= interval.high
    assert bootstrap_ci(values, seed=seed, resamples=500) == interval


def test_paired_bootstrap_resamples_questions_not_runs() -> None:
    a = {f"q{i}": i / 20 for i in range(20)}
    b = {f"q{i}": i / 20 + 0.1 for i in range(20)}
    interval = _paired_bootstrap_ci(a, b, seed=3)
    # every question moved by exactly 0.1: a paired interval has no width at all
    assert interval.mean == pytest.approx(0.1)
    assert interval.low == pytest.approx(0.1) and interval.high == pytest.approx(0.1)
    diffs = [b[q] - a[q] for q in a]
    assert _paired_bootstrap_ci(a, b, seed=3) == bootstrap_ci(diffs, seed=3)


# -- randomization test -----------------------------------------------------------------------


def test_randomization_exact_hand_case() -> None:
    # differences +0.5, +0.2, -0.1: observed |sum| = 0.6; the 8 sign patterns give
    # +-0.8, +-0.6, +-0.4, +-0.2 -> 4 of 8 are at least as extreme: p = 0.5
    a = {"x": 0.0, "y": 0.0, "z": 0.5, "t": 0.3}
    b = {"x": 0.5, "y": 0.2, "z": 0.4, "t": 0.3}
    assert _randomization_test(a, b) == 0.5
    # four identical wins: only all-plus and all-minus reach |4|: 2/16, same as the sign test
    assert _randomization_test({q: 0.0 for q in "abcd"}, {q: 1.0 for q in "abcd"}) == 0.125


def test_randomization_exact_against_brute_force() -> None:
    rng = np.random.default_rng(1)
    d = np.round(rng.normal(size=9), 3)
    a = {f"q{i}": 0.0 for i in range(9)}
    b = {f"q{i}": float(x) for i, x in enumerate(d)}
    observed = abs(sum(b.values()))
    count = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-9
        for signs in itertools.product((1, -1), repeat=9)
    )
    assert _randomization_test(a, b) == count / 2**9


def test_randomization_monte_carlo_is_seeded_and_close() -> None:
    n = 30  # above the exact limit of 20 non-zero differences
    a = {f"q{i}": 0.0 for i in range(n)}
    b = {f"q{i}": (1.0 if i < 22 else -1.0) for i in range(n)}
    p1 = _randomization_test(a, b, seed=5)
    assert p1 == _randomization_test(a, b, seed=5)
    # equal-magnitude differences: the sign-flip test is the sign test (22 vs 8)
    assert p1 == pytest.approx(sign_test_p(22, 8), abs=0.01)
    assert p1 >= 1 / 10_001


# -- Holm and flips ---------------------------------------------------------------------------


def test_holm_small_table() -> None:
    raw = {"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5}
    # sorted: a 0.01*4 = 0.04; c 0.03*3 = 0.09; b 0.04*2 = 0.08 -> monotone 0.09; d 0.5*1 -> 0.5
    adjusted = holm(raw)
    assert list(adjusted) == ["a", "b", "c", "d"]
    assert adjusted == pytest.approx({"a": 0.04, "b": 0.09, "c": 0.09, "d": 0.5})
    assert holm({"x": 0.6, "y": 0.7}) == {"x": 1.0, "y": 1.0}
    assert holm({}) == {}
    with pytest.raises(ValueError):
        holm({"x": 1.5})


@given(st.dictionaries(st.text(max_size=3), st.floats(0, 1), max_size=8))
def test_holm_is_monotone_and_not_below_raw(raw: dict[str, float]) -> None:
    adjusted = holm(raw)
    assert set(adjusted) == set(raw)
    for key in raw:
        assert raw[key] <= adjusted[key] <= 1.0
    order = sorted(raw, key=raw.__getitem__)
    assert all(adjusted[x] <= adjusted[y] for x, y in zip(order, order[1:], strict=False))


def test_flips_needed() -> None:
    assert flips_needed(21) == 6  # 2/2^5 = 0.0625, 2/2^6 = 0.03125
    assert flips_needed(6) == 6
    assert flips_needed(5) is None
    assert flips_needed(100, alpha=0.01) == 8  # 2/2^7 = 0.0156, 2/2^8 = 0.0078
    for n in range(1, 30):
        f = flips_needed(n)
        if f is not None:
            assert sign_test_p(f, 0) < 0.05 <= sign_test_p(f - 1, 0)
        else:
            assert sign_test_p(n, 0) >= 0.05


def test_exact_p_is_not_rounded() -> None:
    assert math.isclose(sign_test_p(7, 1), 18 / 256, rel_tol=0, abs_tol=0)


def _flips_by_loop(rows: list[tuple[str, float, float]]) -> tuple[tuple[str, ...], ...]:
    """The flips as a plain loop over the rows reads them (the definition `sign_flips` keeps)."""
    better: list[str] = []
    worse: list[str] = []
    for qid, x, y in rows:
        if abs(y - x) <= TIE:
            continue
        (better if y > x else worse).append(qid)
    return tuple(better), tuple(worse)


_VALUES = st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 1e-13, 2e-13, 0.1 + 0.2, 0.3, math.nan])


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(_VALUES | st.floats(0, 1), _VALUES | st.floats(0, 1)), max_size=60))
def test_sign_flips_reads_every_row_as_a_loop_over_them_does(
    pairs: list[tuple[float, float]],
) -> None:
    rows = [(f"q{i}", x, y) for i, (x, y) in enumerate(pairs)]
    flips = sign_flips(iter(rows))
    better, worse = _flips_by_loop(rows)
    assert (flips.better, flips.worse) == (better, worse)
    assert flips.tied == len(rows) - len(better) - len(worse) and flips.n == len(rows)
    assert flips.p == sign_test_p(len(better), len(worse))


def test_the_spread_of_differences_is_the_loops_to_the_last_bit() -> None:
    from evidencedesk.results._compute import _spread

    # a difference whose square by Python's power (C's pow) is not its product's: mean 0, so
    # the spread is sqrt(2 * a ** 2), 1.3327514111160088, where a * a gives ...009
    a = -0.9423975604360701
    assert _spread([a, -a]) == math.sqrt(math.fsum([a**2, a**2])) == 1.3327514111160088
    # and seeded lists of differences of a few kinds
    rng = np.random.default_rng(7)
    for size in [0, 1, *rng.integers(2, 80, 400).tolist()]:
        differences = [
            float(v) for v in rng.choice([1 / 3, -0.5, 0.25, 1e-13, *rng.random(4)], size)
        ]
        if size < 2:
            assert _spread(differences) is None
            continue
        mean = math.fsum(differences) / size
        by_loop = math.sqrt(math.fsum((v - mean) ** 2 for v in differences) / (size - 1))
        assert _spread(differences) == by_loop, differences
