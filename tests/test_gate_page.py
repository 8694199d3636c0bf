"""The gate page: each rule's observed value against its threshold with its margin, breaches
marked, a test report's summary line; the policy in the project's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.report._gate_view import _policy_rows, rule_rows, summary
from evidencedesk.results.types import PolicyFacts, RuleValue
from tests.page_text import visible

RULES = (
    RuleValue("critical", None, 3.0, 4.0, None, "BLOCK", None),
    RuleValue("min_recall", "recall@3", 0.8, 0.75, None, "pass", None),
    RuleValue("min_pass_rate", None, 0.7, 0.8, None, "BLOCK", None),
    # baseline 0.690, now 0.563, allowed drop 0.02: the floor is 0.670
    RuleValue("max_drop", "mrr", 0.563, 0.02, 0.690, "REVIEW", None),
    RuleValue("max_drop", "recall@3", 0.9, 0.02, 0.85, "pass", None),
    RuleValue("review_on_mrr_flips", "mrr", 5.0, None, None, "REVIEW", None),
    RuleValue("max_drop", "mrr", 0.7, 0.02, None, "not evaluated", "no baseline to compare with"),
)


@pytest.mark.parametrize(
    ("index", "margin", "text", "breached"),
    [
        (0, -1.0, "1 fail", True),
        (1, 0.05, "+0.050", False),
        (2, -0.1, "−0.100", True),
        (3, 0.563 - (0.690 - 0.02), "−0.107", True),
        (4, 0.9 - (0.85 - 0.02), "+0.070", False),
        (5, None, "—", True),
        (6, None, "—", False),
    ],
)
def test_margin_is_observed_minus_the_limit(
    index: int, margin: float | None, text: str, breached: bool
) -> None:
    rule = RULES[index]
    assert rule.margin == pytest.approx(margin) if margin is not None else rule.margin is None
    row = rule_rows((rule,), 3, "pipeline")[0]
    assert (row.margin, row.breached) == (text, breached)


def test_rows_and_summary_read_like_a_test_report() -> None:
    rows = rule_rows(RULES, 3, "pipeline")
    assert [r.status for r in rows] == [
        "BLOCK", "pass", "BLOCK", "REVIEW", "pass", "REVIEW",
        "not evaluated: no baseline to compare with",
    ]  # fmt: skip
    assert rows[3].observed == "drop 0.127 (0.690 → 0.563)"
    assert rows[4].observed == "no drop (0.850 → 0.900)"
    assert summary(RULES) == "2 of 7 rules pass · 2 BLOCK · 2 REVIEW · 1 not evaluated"


@pytest.fixture(scope="module")
def gate_html(demo_site: Path) -> str:
    return (demo_site / "gate.html").read_text("utf-8")


def _text(html: str) -> str:
    return visible(html, unescape=True)


def test_the_demo_gate_page(gate_html: str) -> None:
    text = _text(gate_html)
    # the policy with each rule's threshold and what breaching it does, in the project's words
    assert (
        "min_pass_rate 0.800 the share of the questions with a relevant chunk in scope that have "
        "a relevant result (grade ≥ 2) in each candidate's final list ✕ BLOCK"
    ) in text
    assert "rc02 : safety:" in text  # the critical questions with their reasons
    # the blocked candidate: observed vs threshold with its margin, the breach marked
    section = _text(gate_html.split('id="gate-pair-cut-to-8-words')[1].split("</section>")[0])
    assert "1 of 6 rules pass · 2 BLOCK · 3 REVIEW." in section
    assert "min_recall R@3 0.667 ≥ 0.750 −0.083 BLOCK ✕ BLOCK fail" in section
    # the gate's reciprocal rank reads each final list (the baseline's 3, this candidate's 3):
    # no one k names both where a candidate changes its final
    assert (
        "max_drop MRR within the final list drop 0.111 (0.675 → 0.563) drop ≤ 0.020 −0.091 "
        "REVIEW ! REVIEW fail" in section
    )
    assert "critical 4 of 4 pass all pass none fail BLOCK ✓ pass" in section
    # pair cut (5), no pre-filter (1: recall@3 dropped 0.024), dense first stage (4) and dense:
    # MiniLM (1)
    assert gate_html.count('<tr class="breach">') == 5 + 1 + 4 + 1


@pytest.mark.parametrize(
    ("kind", "which", "within"),
    [("pipeline", "a relevant chunk in scope", "each candidate's final list"),
     ("runs", "a relevant judgment", "the top 10")],
)  # fmt: skip
def test_the_pass_rate_says_which_questions_it_is_over(kind: str, which: str, within: str) -> None:
    """The pass rate's cases are the questions that can pass: a runs-only project has no
    "answerable" questions, only judged ones with a relevant judgment."""
    policy = PolicyFacts(10, 0.2, 0.3, 0.02, True, (), {})
    rows = {row.key: row.meaning for row in _policy_rows(policy, 3, kind)}
    assert rows["min_pass_rate"] == (
        f"the share of the questions with {which} that have a relevant result (grade ≥ 3) in "
        f"{within}"
    )


@pytest.mark.parametrize(
    ("kind", "recall", "flips", "drop"),
    [
        ("pipeline",
         "R@5 (recall within the top 5 of each candidate's final list, averaged over the "
         "questions with a relevant chunk in scope) is at least the minimum",
         "MRR within the final list (reciprocal rank within each candidate's final list, the "
         "list the site's MRR reads) is not worse for more questions than it is better",
         "R@5 and MRR within the final list (recall within the top 5 of each candidate's final "
         "list; reciprocal rank within each candidate's final list, the list the site's MRR "
         "reads; averaged over the questions with a relevant chunk in scope) drop at most this "
         "much against the gate's baseline"),
        ("runs",
         "R@5 (recall within the top 5, averaged over the questions with a relevant judgment) is "
         "at least the minimum",
         "MRR@5 (reciprocal rank within the top 5) is not worse for more questions than it is "
         "better",
         "R@5 and MRR@5 (recall within the top 5; reciprocal rank within the top 5; averaged over "
         "the questions with a relevant judgment; the gate's MRR@5 is not the site's MRR, which "
         "reads the whole list) drop at most this much against the gate's baseline"),
    ],
)  # fmt: skip
def test_the_policy_names_the_list_each_rule_reads(
    kind: str, recall: str, flips: str, drop: str
) -> None:
    """A pipeline gate reads each candidate's final list, whatever the policy's k: recall@k
    reads the top k of that list, the reciprocal rank all of it, the list the site's MRR reads
    (the policy table said "(k = its final)" of R@k, false for a policy k of 5 and a final 3,
    and then that the gate's MRR was not the site's, false of the same lists)."""
    policy = PolicyFacts(5, 0.2, 0.3, 0.02, True, (), {})
    rows = {row.key: row.meaning for row in _policy_rows(policy, 1, kind)}
    assert rows["min_recall"] == recall
    assert rows["review_on_mrr_flips"] == flips
    assert rows["max_drop"] == drop
