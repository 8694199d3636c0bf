"""What it would take, when passing is not monotone: the sign test's figures are the totals from
which on every larger total passes, found without bisection (docs/verdicts.md). Each case is
worked by hand from exact binomial sums (`_exact_p`, `_exact_power`: Fractions, no floats)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from evidencedesk.results._what_it_takes import (
    _last_failure,
    power,
    questions_for_p05,
    questions_for_power,
)
from evidencedesk.retrieval._stats import sign_test_p


def _exact_p(k: int, m: int) -> Fraction:
    """The two-sided sign test over k and m one-way flips, min(1, 2 P(X <= min)), exactly."""
    low = min(k, m)
    return min(Fraction(1), Fraction(2 * sum(math.comb(k + m, i) for i in range(low + 1)),
                                     2 ** (k + m)))  # fmt: skip


def _scaled(better: int, worse: int, n: int, total: int) -> tuple[int, int]:
    return round(better * total / n), round(worse * total / n)


@pytest.mark.parametrize(
    ("better", "worse", "n", "first", "failing", "figure"),
    [
        # the QA case: +7/−16 of 37. 48 questions round to +9/−21 (p = 0.0428 < 0.05), but 51
        # and 52 round to +10/−22 (p = 0.0501): every total passes only from 53 on (+10/−23,
        # p = 0.0351); the old bisection said 53 by luck
        (7, 16, 37, 48, (51, 52), 53),
        # 'lean', +7/−2 of 30: 50 rounds to +12/−3 (p = 0.0352), 53 to +12/−4 (p = 0.0768),
        # 54 to +13/−4 (p = 0.0490) and on
        (7, 2, 30, 50, (53,), 54),
        # +4/−1 of 21: 50 rounds to +10/−2 (p = 0.0386); 53 to 55 to +10/−3 (p = 0.0923), 56 to 60
        # to +11/−3 (p = 0.0574); from 61, +12/−3 (p = 0.0352). The old bisection said 50
        (4, 1, 21, 50, tuple(range(53, 61)), 61),
        # +10/−18 of 37: 67 passes, 69 and 70 do not, 71 and on do
        (10, 18, 37, 67, (69, 70), 71),
    ],
)  # fmt: skip
def test_the_sign_test_figure_is_the_total_from_which_on_every_total_passes(
    better: int, worse: int, n: int, first: int, failing: tuple[int, ...], figure: int
) -> None:
    alpha = Fraction(1, 20)
    passes = [t for t in range(n, figure + 400) if _exact_p(*_scaled(better, worse, n, t)) < alpha]
    assert passes[0] == first  # the first total that passes ...
    assert [t for t in range(first, figure) if t not in passes] == list(failing)  # ... goes back
    assert passes[-400:] == list(range(figure, figure + 400))  # and from the figure on, never
    assert questions_for_p05(better, worse, n) == figure
    assert questions_for_p05(worse, better, n) == figure  # the direction does not matter


def test_the_hand_worked_p_values_of_the_qa_case() -> None:
    # 2 * sum C(30, i), i <= 9 / 2^30 and 2 * sum C(32, i), i <= 10 / 2^32
    assert float(_exact_p(9, 21)) == pytest.approx(0.042774, abs=1e-6)
    assert float(_exact_p(10, 22)) == pytest.approx(0.050102, abs=1e-6)
    assert float(_exact_p(10, 23)) == pytest.approx(0.035082, abs=1e-6)


def test_a_monotone_case_keeps_its_first_total() -> None:
    # +3/−0 of 21 one-way: 6 flips are the fewest with p < 0.05 (2/64 = 0.031); round(3·39/21)
    # = round(5.57) = 6, and more questions only add one-way flips
    assert questions_for_p05(3, 0, 21) == 39
    assert questions_for_p05(4, 0, 21) == 29  # round(4·29/21) = round(5.52) = 6
    # a candidate that already passes at its own n needs no more than it has
    assert questions_for_p05(10, 0, 21) == 21


def test_balanced_or_empty_flips_have_no_figure() -> None:
    assert questions_for_p05(2, 2, 21) is None and questions_for_p05(0, 0, 21) is None
    assert questions_for_power(2, 2, 21) is None and questions_for_power(0, 0, 21) is None


def _exact_power(m: int, p: Fraction) -> Fraction:
    """P(sign test p < 0.05) over m changed questions, each better with probability p."""
    alpha = Fraction(1, 20)
    rejecting = [k for k in range(m + 1) if _exact_p(k, m - k) < alpha]
    return sum((math.comb(m, k) * p**k * (1 - p) ** (m - k) for k in rejecting), Fraction(0))


def test_the_power_figure_is_the_total_from_which_on_the_power_stays_at_80() -> None:
    # +7/−16 of 37, p = 7/23 better per changed question: the exact power first reaches 80 % at
    # 51 changed questions (0.819), falls back at 52, 53 and 55 (0.792, 0.763, 0.793) and
    # stays from 56 (0.842) on: 56 changed questions at 23 per 37 are ceil(56 · 37 / 23) = 91
    # questions in all (the first, 51, would be ceil(82.04) = 83)
    p = Fraction(7, 23)
    exact = {m: float(_exact_power(m, p)) for m in range(50, 58)}
    assert {m for m, value in exact.items() if value >= 0.8} == {51, 54, 56, 57}
    assert exact[51] == pytest.approx(0.8186, abs=1e-4)
    assert exact[55] == pytest.approx(0.7926, abs=1e-4)
    assert exact[56] == pytest.approx(0.8424, abs=1e-4)
    for m, value in exact.items():
        assert power(m, 7 / 23) == pytest.approx(value, rel=1e-9)
    assert all(power(m, 7 / 23) >= 0.8 for m in range(56, 400))
    assert questions_for_power(7, 16, 37) == 91
    assert questions_for_power(3, 0, 21) == 42  # one-way: 6 changed questions, monotone


def test_the_search_finds_the_last_failure_of_a_predicate_that_goes_back() -> None:
    fails = {3, 4, 9, 10, 11, 40}

    def holds(a: int, b: int) -> bool:  # exact over the block, as a bound may be
        return not any(a <= t <= b for t in fails)

    assert _last_failure(holds, 1, 100) == 40
    assert _last_failure(holds, 1, 39) == 11
    assert _last_failure(holds, 12, 39) is None


def test_near_balanced_flips_stay_within_reach_and_quick() -> None:
    # +51/−49 of 100: z = 2 / sqrt(100) per question, so about (1.96 · 10 / 2)^2 · 100 ≈ 9,600
    # questions; the figure is where the exact scaled test stops going back
    figure = questions_for_p05(51, 49, 100)
    assert figure == 9800
    assert sign_test_p(*_scaled(51, 49, 100, figure)) < 0.05  # the exact p (9,800 questions)
    assert sign_test_p(*_scaled(51, 49, 100, figure - 1)) >= 0.05
