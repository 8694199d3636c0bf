"""The gate page's policy table says the flips rule in words ("on (passes when worse ≤ better or
sign-test p > 0.200)" for the starter policy `evidencedesk init` writes): the cell is marked as
the policy's words, and the audit holds them to results.json's policy, restated by its oracle
from docs/gate.md (`report.oracle.policy_cell`), never by the build's `report.gate_view`."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.report import _gate_view as gate_view
from evidencedesk.report._audit import audit
from evidencedesk.report._oracle import policy_cell
from evidencedesk.results.types import PolicyFacts
from tests.planting import as_written, on_the_page, planted
from tests.test_claim_names import build

# init's starter policy: the flips rule asks for a sign-test p of at most 0.2 first
STARTER = {"k": 10, "min_recall": 0.5, "min_pass_rate": 0.5, "max_drop": 0.02,
           "review_on_mrr_flips": True, "flips_max_p": 0.2, "critical": []}  # fmt: skip
ROW = '<tr><th scope="row">review_on_mrr_flips</th><td data-label="Threshold">{}</td>'
CELL = '<span data-at="policy @review_on_mrr_flips">{}</span>'
STARTER_WORDS = "on (passes when worse ≤ better or sign-test p > 0.200)"


@pytest.fixture(scope="module")
def starter_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("starter"), "cand", STARTER)


def _cell(site: Path, words: str) -> str:
    """The policy table's flips row as the site writes it, saying `words` (escaped as HTML)."""
    escaped = words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return as_written(site, ROW.format(CELL.format(escaped)))


def test_the_starter_policy_s_flips_cell_is_marked_and_agrees(starter_site: Path) -> None:
    assert _cell(starter_site, STARTER_WORDS) in (starter_site / "gate.html").read_text("utf-8")
    assert [d.line() for d in audit(starter_site)[0]] == []


@pytest.mark.parametrize(("wrong", "why"), [
    ("on (passes when worse ≤ better or sign-test p > 0.100)", "another p"),
    ("on (passes when worse ≤ better)", "the p left out"),
    ("on (passes when worse − better < 3 or sign-test p > 0.200)", "a net count not asked"),
    ("on", "the condition left out"),
    ("off", "the rule said off"),
])  # fmt: skip
def test_a_planted_policy_cell_is_named(
    starter_site: Path, tmp_path: Path, wrong: str, why: str
) -> None:
    site = planted(starter_site, tmp_path, "gate.html", _cell(starter_site, STARTER_WORDS),
                   _cell(starter_site, wrong))  # fmt: skip
    assert [d.line() for d in audit(site, on_the_page("gate.html"))[0]] == [
        f"gate.html: {wrong!r}: results.json says {STARTER_WORDS!r} (review_on_mrr_flips of policy)"
    ], why


def test_a_planted_policy_cell_without_its_mark_backs_nothing(
    starter_site: Path, tmp_path: Path
) -> None:
    """The words as they are, their mark removed: a decimal no claim backs."""
    unmarked = ROW.format(STARTER_WORDS.replace(">", "&gt;"))
    site = planted(starter_site, tmp_path, "gate.html", _cell(starter_site, STARTER_WORDS),
                   unmarked)  # fmt: skip
    assert [d.line() for d in audit(site, on_the_page("gate.html"))[0]] == [
        f"gate.html: {STARTER_WORDS!r}: results.json says nothing: no claim backs this table cell"
    ]


@pytest.mark.parametrize(("keys", "words"), [
    ({}, "on"),
    ({"review_on_mrr_flips": False, "flips_max_p": 0.2}, "off"),
    ({"flips_min_net": 3}, "on (passes when worse − better < 3)"),
    ({"flips_min_net": 2, "flips_max_p": 0.05}, "on (passes when worse − better < 2 or sign-test "
     "p > 0.050)"),
])  # fmt: skip
def test_every_form_of_the_flips_cell_is_marked_and_agrees(
    tmp_path: Path, keys: dict[str, object], words: str
) -> None:
    policy = {**{k: v for k, v in STARTER.items() if k != "flips_max_p"}, **keys}
    site = build(tmp_path, "cand", policy)
    assert _cell(site, words) in (site / "gate.html").read_text("utf-8")
    assert [d.line() for d in audit(site)[0]] == []


def test_a_build_whose_words_are_wrong_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit restates the cell itself: a build saying the rule wrongly (its `_flips_pass`
    reading the p ceiling as a floor) disagrees with it."""
    wrong = "worse ≤ better or sign-test p < 0.200"
    monkeypatch.setattr(gate_view, "_flips_pass", lambda p: wrong)
    site = build(tmp_path, "cand", STARTER)
    lines = [d.line() for d in audit(site, on_the_page("gate.html"))[0]]
    assert f"gate.html: 'on (passes when {wrong})': results.json says {STARTER_WORDS!r} " \
        "(review_on_mrr_flips of policy)" in lines  # fmt: skip


def _policy(**keys: object) -> PolicyFacts:
    given: dict[str, object] = {"k": 10, "min_recall": 0.5, "min_pass_rate": 0.5,
                                "max_drop": 0.02, "review_on_mrr_flips": True, "critical": (),
                                "notes": {}, **keys}  # fmt: skip
    return PolicyFacts(**given)  # type: ignore[arg-type]


def test_the_oracle_says_the_flips_cell_from_the_policy() -> None:
    assert policy_cell(_policy(), "review_on_mrr_flips") == "on"
    assert policy_cell(_policy(review_on_mrr_flips=False), "review_on_mrr_flips") == "off"
    assert policy_cell(_policy(flips_max_p=0.2), "review_on_mrr_flips") == STARTER_WORDS
    assert policy_cell(_policy(flips_min_net=4, flips_max_p=0.125), "review_on_mrr_flips") == (
        "on (passes when worse − better < 4 or sign-test p > 0.125)"
    )
    with pytest.raises(LookupError, match="no words of the policy's 'min_recall'"):
        policy_cell(_policy(), "min_recall")
