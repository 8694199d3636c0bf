"""The written recommendation follows the evidence and never says "ship" without it."""

from __future__ import annotations

import re

import pytest

from evidencedesk.report.recommend import (
    CostChange,
    Facts,
    flips_needed,
    md_escape,
    recommend,
    sign_test,
)  # fmt: skip
from evidencedesk.report.render import render_markdown

QS = tuple(f"rc{i:02d}" for i in range(1, 22))
SHIP = re.compile(r"(?<!not )\bship", re.I)


def facts(better: int, worse: int, verdict: str = "GO", **kw) -> Facts:  # type: ignore[no-untyped-def]
    return Facts(candidate="c", verdict=verdict, better=QS[:better],
                 worse=QS[better:better + worse], questions=21, **kw)  # fmt: skip


def says_ship(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(SHIP.search(rec.headline) or SHIP.search(rec.markdown))


def test_sign_test_and_flips_needed() -> None:
    assert sign_test(4, 0) == pytest.approx(0.125)
    assert sign_test(6, 0) == pytest.approx(0.03125)
    assert sign_test(3, 3) == 1.0 and sign_test(0, 0) == 1.0
    assert flips_needed(21) == 6 and flips_needed(5) is None


def test_block_says_do_not_ship_with_the_reason() -> None:
    rec = recommend(facts(6, 0, "BLOCK", gate_lines=(("BLOCK", "critical case rc07 failed"),)))
    assert rec.category == "do-not-ship"
    assert rec.headline.startswith("Do not ship") and "rc07" in rec.headline
    assert not says_ship(rec)


def test_four_one_way_flips_are_promising_not_proven() -> None:
    rec = recommend(facts(4, 0, p=0.125))
    assert rec.category == "promising"
    assert "not proven" in rec.headline and "0.125" in rec.headline
    assert "6 one-way flips" in rec.headline and "21 questions" in rec.markdown
    assert not says_ship(rec)


def test_six_one_way_flips_with_go_ship() -> None:
    rec = recommend(facts(6, 0, p=0.031))
    assert rec.category == "ship" and rec.headline.startswith("Ship")


def test_six_one_way_flips_under_review_never_ship() -> None:
    rec = recommend(facts(6, 0, "REVIEW", gate_lines=(("REVIEW", "slice bangla dropped"),)))
    assert rec.category == "review" and not says_ship(rec)
    assert "slice bangla dropped" in rec.markdown


def test_balanced_flips_are_noise() -> None:
    rec = recommend(facts(3, 3))
    assert rec.category == "noise" and "balance" in rec.headline and not says_ship(rec)


@pytest.mark.parametrize(("b", "w"), [(1, 0), (2, 0), (0, 2), (5, 3)])
def test_one_or_two_question_gap_is_noise(b: int, w: int) -> None:
    assert recommend(facts(b, w)).category == "noise"


def test_unchanged_quality_with_lower_cost_gets_a_cost_sentence() -> None:
    rec = recommend(facts(0, 0, costs=(CostChange("scored pairs", 20, 12),)))
    assert rec.category == "unchanged"
    assert "same quality, 40 % fewer scored pairs" in rec.headline
    assert not says_ship(rec)


def test_losses_and_mixed() -> None:
    assert recommend(facts(0, 6)).category == "worse"
    assert recommend(facts(0, 4)).headline.startswith("Leaning worse")
    mixed = recommend(facts(8, 1))
    assert mixed.category == "mixed" and not says_ship(mixed)


def test_interval_is_reported_and_zero_crossing_said() -> None:
    rec = recommend(facts(4, 0, delta=0.021, low=-0.01, high=0.06))
    assert "+0.021" in rec.markdown and "−0.010 to +0.060" in rec.markdown
    assert "includes zero" in rec.markdown


@pytest.mark.parametrize("b", range(0, 8))
@pytest.mark.parametrize("w", range(0, 4))
@pytest.mark.parametrize("verdict", ["GO", "REVIEW", "BLOCK"])
def test_ship_only_with_go_nothing_worse_and_p_below_005(b: int, w: int, verdict: str) -> None:
    rec = recommend(facts(b, w, verdict))
    if says_ship(rec):
        assert verdict == "GO" and w == 0 and sign_test(b, w) < 0.05
        assert rec.category == "ship"


def test_data_in_the_markdown_is_inert() -> None:
    evil = "<script>alert(1)</script> [x](javascript:alert(1)) **bold**"
    rec = recommend(facts(1, 0, "BLOCK", gate_lines=(("BLOCK", evil),)))
    html = str(render_markdown(rec.markdown))
    assert "<script" not in html and "href=" not in html and "<strong>bold" not in html
    assert md_escape("a\nb") == "a b"
