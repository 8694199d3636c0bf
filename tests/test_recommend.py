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


def test_block_says_blocked_with_the_reason() -> None:
    rec = recommend(facts(6, 0, "BLOCK", gate_lines=(("BLOCK", "critical case rc07 failed"),)))
    assert (rec.category, rec.verdict) == ("blocked", "BLOCKED")
    assert rec.headline == "Blocked: the gate blocks — critical case rc07 failed."
    assert not says_ship(rec)


def test_four_one_way_flips_are_promising_not_proven() -> None:
    rec = recommend(facts(4, 0, p=0.125))
    assert rec.verdict == "PROMISING"
    assert rec.headline == (
        "Promising, not proven: MRR flips lean better (+4/−0, p=0.125); no reported metric "
        "moved; this label set needs 6 one-way flips for p < 0.05."
    )
    assert "21 questions" in rec.markdown and not says_ship(rec)


def test_six_one_way_flips_with_go_are_better() -> None:
    rec = recommend(facts(6, 0, p=0.031))
    assert rec.verdict == "BETTER"
    assert rec.headline == "Better: MRR better (6 up / 0 down); the gate passes."


def test_six_one_way_flips_under_review_are_only_promising() -> None:
    rec = recommend(facts(6, 0, "REVIEW", gate_lines=(("REVIEW", "slice bangla dropped"),)))
    assert rec.verdict == "PROMISING" and not says_ship(rec)
    assert "slice bangla dropped" in rec.markdown and "gate: REVIEW" in rec.markdown


def test_balanced_flips_are_no_clear_change() -> None:
    rec = recommend(facts(3, 3))
    assert rec.verdict == "NO CLEAR CHANGE"
    assert "MRR flips balance (+3/−3, p=1.000)" in rec.headline


@pytest.mark.parametrize(("b", "w"), [(1, 0), (2, 0), (0, 2), (5, 3)])
def test_one_or_two_question_gap_is_no_clear_change(b: int, w: int) -> None:
    assert recommend(facts(b, w)).verdict == "NO CLEAR CHANGE"


def test_unchanged_quality_with_lower_cost_gets_a_cost_sentence() -> None:
    rec = recommend(facts(0, 0, costs=(CostChange("scored pairs", 20, 12),)))
    assert rec.headline == (
        "No clear change: no question changed; same quality within noise, 40 % fewer scored pairs."
    )
    assert not says_ship(rec)


def test_unknown_cost_is_not_measured_and_a_zero_percent_change_is_the_same() -> None:
    assert recommend(facts(0, 0)).headline.endswith("cost not measured.")
    rec = recommend(facts(0, 0, costs=(CostChange("prompt tokens", 1000, 1001),)))
    assert rec.headline.endswith("the same cost.")


def test_losses_and_leans() -> None:
    assert recommend(facts(0, 6)).verdict == "WORSE"
    assert recommend(facts(0, 6)).headline == "Worse: MRR worse (0 up / 6 down)."
    lean = recommend(facts(0, 4))
    assert lean.verdict == "LEANS WORSE" and lean.headline.startswith("Leans worse, not proven")


def test_interval_is_reported_and_zero_crossing_said() -> None:
    rec = recommend(facts(4, 0, delta=0.021, low=-0.01, high=0.06))
    assert "+0.021" in rec.markdown and "−0.010 to +0.060" in rec.markdown
    assert "includes zero" in rec.markdown


@pytest.mark.parametrize("b", range(0, 8))
@pytest.mark.parametrize("w", range(0, 4))
@pytest.mark.parametrize("verdict", ["GO", "REVIEW", "BLOCK"])
def test_better_only_with_go_and_a_significant_primary(b: int, w: int, verdict: str) -> None:
    rec = recommend(facts(b, w, verdict))
    assert not says_ship(rec)
    if rec.verdict == "BETTER":
        assert verdict == "GO" and b > w and sign_test(b, w) < 0.05


def test_data_in_the_markdown_is_inert() -> None:
    evil = "<script>alert(1)</script> [x](javascript:alert(1)) **bold**"
    rec = recommend(facts(1, 0, "BLOCK", gate_lines=(("BLOCK", evil),)))
    html = str(render_markdown(rec.markdown))
    assert "<script" not in html and "href=" not in html and "<strong>bold" not in html
    assert md_escape("a\nb") == "a b"
