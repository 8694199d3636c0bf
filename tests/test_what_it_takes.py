"""What it would take: questions needed for sign-test p < 0.05 at the observed flip rate, and
the 80 %-power estimate (numbers worked by hand)."""

from __future__ import annotations

import pytest

from evidencedesk.report.recommend import what_it_takes
from evidencedesk.results.verdicts import Decision
from evidencedesk.results.what_it_takes import (
    power,
    questions_for_p05,
    questions_for_power,
    sign_p,
)
from evidencedesk.retrieval.stats import sign_test_p


@pytest.mark.parametrize(("b", "w"), [(0, 0), (4, 0), (6, 0), (3, 1), (5, 2), (39, 54), (99, 54)])
def test_float_sign_test_equals_the_exact_one(b: int, w: int) -> None:
    assert sign_p(b, w) == pytest.approx(sign_test_p(b, w), rel=1e-9)


def test_questions_for_p05_scales_the_observed_flips() -> None:
    # 3 of 21 one-way: at 38 questions round(3·38/21) = 5 flips (p = 0.0625); at 39, 6 (p = 0.031)
    assert questions_for_p05(3, 0, 21) == 39
    # +4/−1 of 21: at 50, round(9.52) = 10 and round(2.38) = 2 -> p = 0.0386; at 49, 9/2 -> 0.065
    assert questions_for_p05(4, 1, 21) == 50
    assert questions_for_p05(2, 2, 21) is None and questions_for_p05(0, 0, 21) is None


def test_power_of_one_way_flips_is_the_flips_needed_step() -> None:
    # every change one-way: 6 changed questions always give p = 0.031, 5 never p < 0.05
    assert (power(5, 1.0), power(6, 1.0)) == (0.0, 1.0)
    assert questions_for_power(3, 0, 21) == 42  # 6 changed questions at 3 per 21 questions
    # 10 changed, p = 0.7: only k <= 1 or k >= 9 better rejects (2·11/1024 = 0.021; 2·56/1024 =
    # 0.109): 0.3^10 + 10·0.7·0.3^9 + 10·0.7^9·0.3 + 0.7^10
    assert power(10, 0.7) == pytest.approx(0.3**10 + 7 * 0.3**9 + 3 * 0.7**9 + 0.7**10)


def test_the_sentence_states_the_estimate_and_its_assumption() -> None:
    d = Decision("PROMISING", "mrr", (), (), (), questions=21, for_p05=39, for_power=42)
    assert what_it_takes(d) == (
        "What it would take: at the observed flip rate, about 18 more labelled questions (39 in "
        "all) would bring the sign test to p < 0.05; for an 80 % chance of p < 0.05, about 21 "
        "more (42 in all) — an estimate that assumes the share of questions that change and the "
        "split between better and worse stay as observed."
    )
    assert what_it_takes(Decision("MIXED", "mrr", (), (), ())) == ""
