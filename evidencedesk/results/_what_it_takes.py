"""What it would take: how many labelled questions would make an encouraging, not proven
candidate reach p < 0.05 -- from its paired differences (a paired test at the observed mean
difference and spread: `questions_for_t`, with an 80 %-power estimate) and, beside it, from its
flips (the sign test at the observed flip rate: `questions_for_p05`, `questions_for_power`).

Each assumes what was observed stays as observed (the mean and spread of the differences; the
share of questions that change and the split between better and worse); the power figures are
estimates under that assumption, not promises. The paired figure is the one to plan by: on
large sets the sign test, which reads only the direction of each change, asks for far more
questions than the differences need. Binomial tails
are summed in floating point (`stats.binomial_pmf`, `stats.sign_test_p`'s estimate: log-gamma), fast
enough for the search over up to a million questions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

from evidencedesk.retrieval._stats import ALPHA, binomial_pmf, sign_test_p

_POWER = 0.8  # the power the "questions needed" figures aim at
LIMIT = 1_000_000  # questions; beyond this the answer is "none within reach"


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
    """The smallest n >= start with ok(n), by doubling then bisection (ok is ~monotone)."""
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


def questions_for_p05(better: int, worse: int, n: int) -> int | None:
    """Total questions at which the observed flips, scaled up, give sign-test p < 0.05."""
    if n <= 0 or better == worse:
        return None

    def ok(total: int) -> bool:
        return (
            sign_test_p(round(better * total / n), round(worse * total / n), estimate=True) < ALPHA
        )

    return _smallest(ok, n)


def questions_for_power(better: int, worse: int, n: int) -> int | None:
    """Total questions for an 80 % chance that the sign test gives p < 0.05 (an estimate)."""
    changed = better + worse
    if n <= 0 or changed == 0 or better == worse:
        return None
    p = better / changed
    m = _smallest(lambda m: power(m, p) >= _POWER, 1)
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
