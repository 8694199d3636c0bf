"""What it would take: questions needed for sign-test p < 0.05 at the observed flip rate, and
the 80 %-power estimate (numbers worked by hand)."""

from __future__ import annotations

import pytest

from evidencedesk.results._what_it_takes import (
    power,
    questions_for_p05,
    questions_for_power,
    questions_for_t,
    questions_for_t_power,
)
from evidencedesk.retrieval._stats import sign_test_p


@pytest.mark.parametrize(("b", "w"), [(0, 0), (4, 0), (6, 0), (3, 1), (5, 2), (39, 54), (99, 54)])
def test_float_sign_test_equals_the_exact_one(b: int, w: int) -> None:
    assert sign_test_p(b, w, estimate=True) == pytest.approx(sign_test_p(b, w), rel=1e-9)


def test_questions_for_p05_scales_the_observed_flips() -> None:
    # 3 of 21 one-way: at 38 questions round(3·38/21) = 5 flips (p = 0.0625); at 39, 6 (p = 0.031)
    assert questions_for_p05(3, 0, 21) == 39
    # +4/−1 of 21: at 50, round(9.52) = 10 and round(2.38) = 2 -> p = 0.0386 (at 49, 9/2 ->
    # 0.065), but 53 to 60 go back (10/3, 11/3: p = 0.092, 0.057); every total passes from 61
    # (12/3, p = 0.035): tests/test_what_it_takes_search.py
    assert questions_for_p05(4, 1, 21) == 61
    assert questions_for_p05(2, 2, 21) is None and questions_for_p05(0, 0, 21) is None


def test_power_of_one_way_flips_is_the_flips_needed_step() -> None:
    # every change one-way: 6 changed questions always give p = 0.031, 5 never p < 0.05
    assert (power(5, 1.0), power(6, 1.0)) == (0.0, 1.0)
    assert questions_for_power(3, 0, 21) == 42  # 6 changed questions at 3 per 21 questions
    # 10 changed, p = 0.7: only k <= 1 or k >= 9 better rejects (2·11/1024 = 0.021; 2·56/1024 =
    # 0.109): 0.3^10 + 10·0.7·0.3^9 + 10·0.7^9·0.3 + 0.7^10
    assert power(10, 0.7) == pytest.approx(0.3**10 + 7 * 0.3**9 + 3 * 0.7**9 + 0.7**10)


@pytest.mark.parametrize(
    ("delta", "sd", "n", "changed", "alpha", "for_t", "for_power"),
    [
        # N = (1.96 * 0.2 / 0.05)^2 = 61.46 -> 62; ((1.96 + 0.8416) * 0.2 / 0.05)^2 = 125.6 -> 126
        (0.05, 0.2, 21, 10, 0.05, 62, 126),
        (-0.05, 0.2, 21, 10, 0.05, 62, 126),  # the direction does not matter
        # the normal approximation is there already, but the test is not (a PROMISING candidate):
        # at least one question more than now
        (0.5, 0.2, 21, 21, 0.05, 22, 22),
        (0.05, 0.0, 21, 21, 0.05, 22, 22),  # every difference the same: no spread to average away
        # 4 changed questions of 21 (+4/−0, randomization p = 0.125): the test's smallest p over
        # m differences is 2/2^m, below 0.05 from m = 6; at 4 per 21 that is 6 * 21 / 4 = 31.5 -> 32
        # questions, though (1.96 * 0.2 / 0.095)^2 = 17.0 says fewer
        (0.095, 0.2, 21, 4, 0.05, 32, 35),
        # Holm over 6 candidates: p < 0.05 / 6 = 0.0083, z = 2.638: (2.638 * 0.2 / 0.05)^2 =
        # 111.4 -> 112; with 80 % power ((2.638 + 0.8416) * 0.2 / 0.05)^2 = 193.7 -> 194
        (0.05, 0.2, 21, 10, 0.05 / 6, 112, 194),
        (0.0, 0.2, 21, 10, 0.05, None, None),  # no difference: no number of questions finds one
        (None, 0.2, 21, 10, 0.05, None, None),
    ],
)  # fmt: skip
def test_the_paired_estimate_reads_the_mean_difference_and_its_spread(
    delta: float | None, sd: float, n: int, changed: int, alpha: float, for_t: int | None,
    for_power: int | None,
) -> None:  # fmt: skip
    assert questions_for_t(delta, sd, n, changed, alpha) == for_t
    assert questions_for_t_power(delta, sd, n, changed, alpha) == for_power


def test_on_222_questions_the_paired_estimate_asks_far_fewer_than_the_sign_test() -> None:
    # +92/−83 of 222 (a lean the sign test reads as noise): scaled up, the flips reach p < 0.05
    # at every total from 1,918 questions on (first at 1,857, but 34 totals between fail); a
    # paired mean difference of 0.02 with spread 0.17 at (1.96 * 0.17 / 0.02)^2 = 277.6 -> 278
    assert questions_for_p05(92, 83, 222) == 1918
    assert questions_for_t(0.02, 0.17, 222, 175) == 278
