"""What it would take: how many labelled questions would make an encouraging, not proven
candidate reach p < 0.05 -- from its paired differences (a paired test at the observed mean
difference and spread: `questions_for_t`, with an 80 %-power estimate) and, beside it, from its
flips (the sign test at the observed flip rate, unadjusted: `questions_for_p05`,
`questions_for_power`).

Each assumes what was observed stays as observed (the mean and spread of the differences; the
share of questions that change and the split between better and worse); the power figures are
estimates under that assumption, not promises. The paired figure is the one to plan by: on
large sets the sign test, which reads only the direction of each change, asks for far more
questions than the differences need.

The sign test's figures are not monotone in the number of questions: flips scaled up are
rounded to whole questions, and an exact test's p and power saw-tooth, so a total can reach
p < 0.05 and a larger one not. Each figure is therefore the total *from which on* every larger
total reaches it (the planning figure: collect that many, or more, and the test gets there if
the flips stay as observed), never the first total that happens to -- and never a bisection,
which assumes the answer never goes back. Binomial tails are summed in floating point
(`stats.binomial_pmf`, `stats.sign_test_p`'s estimate: log-gamma), fast enough for the search
over up to a million questions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from statistics import NormalDist

from evidencedesk.retrieval._stats import ALPHA, binomial_pmf, sign_test_p

_POWER = 0.8  # the power the "questions needed" figures aim at
LIMIT = 1_000_000  # questions; beyond this the answer is "none within reach"


@functools.cache  # a function of m alone, asked again and again by the searches below
def _critical(m: int) -> int:
    """The largest k with sign-test p(k, m - k) < ALPHA; -1 when no split rejects."""
    cum, k = 0.0, -1
    while k + 1 <= m // 2:
        cum += binomial_pmf(k + 1, m, 0.5)
        if 2 * cum >= ALPHA:
            break
        k += 1
    return k


_EXACT = 2000  # changed questions up to which the power is summed exactly; beyond, normal approx
_Z = 1.959963984540054  # the two-sided 5 % normal quantile


def power(m: int, p: float) -> float:
    """P(sign test p < ALPHA) over m changed questions, each better with probability p."""
    if m > _EXACT:
        if p in (0.0, 1.0):
            return 1.0
        shift = abs(p - 0.5) * math.sqrt(m)
        return 0.5 * math.erfc(-(shift - _Z * 0.5) / math.sqrt(2 * p * (1 - p)))
    kl = _critical(m)
    if kl < 0:
        return 0.0
    lower = math.fsum(binomial_pmf(k, m, p) for k in range(kl + 1))
    upper = math.fsum(binomial_pmf(k, m, p) for k in range(m - kl, m + 1))
    return min(1.0, lower + upper)


def _smallest(ok: Callable[[int], bool], start: int) -> int | None:
    """The smallest n >= start with ok(n), by doubling then bisection: only for an `ok` that,
    once true, stays true (the normal-approximation power above `_EXACT`)."""
    hi = max(start, 1)
    while not ok(hi):
        if hi >= LIMIT:
            return None
        hi = min(hi * 2, LIMIT)
    lo = max(start, 1)
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last_failure(holds: Callable[[int, int], bool], lo: int, hi: int) -> int | None:
    """The largest n in [lo, hi] at which the predicate fails, or None when it holds on all of
    them. `holds(a, b)` is True only when the predicate holds at every n in [a, b] (a bound
    over the block; for a == b, the predicate itself). The upper half is searched first, and a
    block the bound clears is skipped whole: the predicate need not be monotone."""
    if lo > hi or holds(lo, hi):
        return None
    if lo == hi:
        return lo
    mid = (lo + hi) // 2
    found = _last_failure(holds, mid + 1, hi)
    return found if found is not None else _last_failure(holds, lo, mid)


def _exponent(k: float, m: float) -> float:
    """(k + m) * KL(k / (k + m) || 1/2) for 0 <= k < m: the Chernoff bound says P(X <= k) <=
    exp(-this) for X ~ Binomial(k + m, 1/2), so the sign test's p(k, m) <= 2 * exp(-this)."""
    total = k + m
    return (k * math.log(2 * k / total) if k > 0 else 0.0) + m * math.log(2 * m / total)


_MARGIN = 1e-7  # relative: the sign test's float estimate agrees with the exact p to ~1e-9


def _sign_test_below(k: int, m: int) -> bool:
    """Whether the sign test's p over k and m one-way flips (k < m) is below ALPHA: the same
    answer as `sign_test_p(k, m, estimate=True) < ALPHA`, but from the terms of the tail
    nearest k alone, summed until the rest -- below a geometric series, as each next term is
    the previous times i / (k + m - i + 1), a ratio that keeps falling -- cannot matter; the
    estimate itself only within `_MARGIN` of ALPHA. About sqrt(k + m) terms instead of k."""
    total = k + m
    term = math.exp(math.lgamma(total + 1) - math.lgamma(k + 1) - math.lgamma(m + 1)
                    - total * math.log(2))  # fmt: skip
    tail, rest = 0.0, 0.0
    for i in range(k, -1, -1):
        tail += term
        ratio = i / (total - i + 1)
        rest = term * ratio / (1 - ratio)
        if rest <= tail * 1e-13:
            break
        term *= ratio
    if 2 * (tail + rest) < ALPHA * (1 - _MARGIN):
        return True
    if 2 * tail > ALPHA * (1 + _MARGIN):
        return False
    return sign_test_p(k, m, estimate=True) < ALPHA


def questions_for_p05(better: int, worse: int, n: int) -> int | None:
    """Total questions from which on the observed flips, scaled up (each count rounded),
    give sign-test p < 0.05 at every larger total too: the smallest N with p < 0.05 at N,
    N + 1, ... (within `LIMIT`); None when no such N is within reach.

    Passing is not monotone in the total: the rounded counts move one at a time, so a total
    can pass and the next fail (+7/−16 of 37: 48 passes, 51 and 52 fail, every total from 53
    passes), and the figure is where it stops going back, not the first lucky total -- what
    a plan for "about N questions" needs (the saw-tooth of exact tests: Chernick & Liu 2002).
    The sign test's p(k, m) grows with the smaller count k and falls with the larger m, so over
    a block of totals [a, b] it is at most p(k at b, m at a); above the total where a Chernoff
    bound on the scaled counts (give or take the rounding) falls below 0.05 and keeps falling,
    every total passes; below it, `_last_failure` looks for the last total that fails."""
    if n <= 0 or better == worse:
        return None
    small, large = min(better, worse), max(better, worse)
    low, high = small / n, large / n

    def certified(total: int) -> bool:  # every total from here on passes (Chernoff)
        k, m = low * total + 0.5, high * total - 0.5  # the counts, give or take the rounding
        if k >= m:
            return False
        share, ratio = k / (k + m), low / (low + high)
        # d/dt exponent(k(t), m(t)) = low ln(2 share) + high ln(2 (1 - share)); positive from
        # here on once positive here (share falls toward `ratio`, where it is KL(ratio || 1/2))
        rising = share <= ratio or low * math.log(2 * share) + high * math.log(2 * (1 - share)) > 0
        return rising and 2 * math.exp(-_exponent(k, m)) < ALPHA * (1 - _MARGIN)

    def holds(a: int, b: int) -> bool:  # p < ALPHA at every total in [a, b]
        # the most the smaller count can be over the block, the least the larger
        k, m = round(small * b / n), round(large * a / n)
        return k < m and _sign_test_below(k, m)

    top = _smallest(certified, n)
    top = LIMIT + 1 if top is None else top
    failed = _last_failure(holds, n, top - 1)
    if failed is None:
        return n
    return None if failed >= LIMIT else failed + 1


def _power_holds(p: float) -> Callable[[int, int], bool]:
    """`holds(a, b)` for "power(m, p) >= 80 %" over changed questions m in [a, b] <= `_EXACT`:
    the larger tail alone, P(X_a >= b - k_a) with k_a the critical count at a, bounds the power
    at every m in the block from below (X_m grows with m; m - k_m <= b - k_a, as k_m grows)."""
    q = max(p, 1 - p)

    def holds(a: int, b: int) -> bool:
        if a == b:
            return power(a, p) >= _POWER
        kl = _critical(a)
        if kl < 0 or b - kl > a:
            return False
        return math.fsum(binomial_pmf(k, a, q) for k in range(b - kl, a + 1)) >= _POWER

    return holds


def questions_for_power(better: int, worse: int, n: int) -> int | None:
    """Total questions from which on the sign test has an 80 % chance of p < 0.05 (an
    estimate), at the observed share of changed questions and split: like `questions_for_p05`,
    the smallest number of changed questions from which on the power stays at 80 % (exact power
    saw-tooths with m up to `_EXACT`; the normal approximation above rises with m), scaled to
    questions in all."""
    changed = better + worse
    if n <= 0 or changed == 0 or better == worse:
        return None
    p = better / changed
    if power(_EXACT + 1, p) < _POWER:
        m = _smallest(lambda m: power(m, p) >= _POWER, _EXACT + 1)
    else:
        failed = _last_failure(_power_holds(p), 1, _EXACT)
        m = 1 if failed is None else failed + 1
    return None if m is None else max(n, math.ceil(m * n / changed))


_Z_POWER = 0.8416212335729143  # the one-sided 20 % normal quantile (80 % power)


def _z(alpha: float) -> float:
    """The two-sided normal quantile of `alpha` (1.96 at 0.05)."""
    return _Z if alpha == ALPHA else NormalDist().inv_cdf(1 - alpha / 2)


def _randomization_floor(changed: int, n: int, alpha: float) -> int:
    """Questions in all at which the observed share of changed questions gives enough non-zero
    differences for the paired randomization test to reach `alpha` at all: its smallest
    two-sided p over m differences is 2 / 2^m."""
    m = 1
    while 2.0 / 2**m >= alpha:
        m += 1
    return math.ceil(m * n / changed) if changed else LIMIT


def _paired(delta: float | None, sd: float | None, n: int, changed: int, alpha: float,
            z: float) -> int | None:  # fmt: skip
    if delta is None or sd is None or n <= 0 or delta == 0 or changed <= 0:
        return None
    need = n + 1 if sd == 0 else math.ceil((z * sd / abs(delta)) ** 2)
    # more than now (the test does not reach it now), and enough changed questions for the
    # randomization test to reach it at all
    return max(n + 1, need, _randomization_floor(changed, n, alpha))


def questions_for_t(
    delta: float | None, sd: float | None, n: int, changed: int, alpha: float = ALPHA
) -> int | None:
    """Total questions at which the observed mean paired difference `delta`, with the observed
    standard deviation `sd` of the per-question differences, would reach two-sided p < `alpha`
    in a paired test (normal approximation: |delta| * sqrt(N) / sd >= z), for a candidate whose
    test does not reach it over its `n` questions now; at least one more than `n`, and at least
    enough for its `changed` share of non-zero differences to give the randomization test room
    to reach `alpha`."""
    return _paired(delta, sd, n, changed, alpha, _z(alpha))


def questions_for_t_power(
    delta: float | None, sd: float | None, n: int, changed: int, alpha: float = ALPHA
) -> int | None:
    """Total questions for an 80 % chance of two-sided p < `alpha` in a paired test, if the
    mean difference and its spread are what was observed: N = ((z + 0.84) * sd / delta)^2 (an
    estimate, like every power figure), with the floors of `questions_for_t`."""
    return _paired(delta, sd, n, changed, alpha, _z(alpha) + _Z_POWER)
