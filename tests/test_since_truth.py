"""The since page's counts say what they count (worked out by hand).

A four-question runs-only project (relevance 2, the policy's k = 10): every question has two
documents, ``<q>a`` and ``<q>b``; both runs ``base`` and ``cand`` rank ``a`` first and ``b``
eleventh, so every question passes in both (a relevant result at rank 1 of the first 10).

- "lost": q2's two documents go from grade 2 to grade 1, below the relevance. q2 passed in both
  runs and has no relevant judgment now: it does not pass any more, and the page lists it as
  newly failing for that reason; 4 questions had a relevant judgment, 3 have now.
- the way back (the "lost" report, then the first project again): q2 newly passes in both runs,
  "no relevant judgment before", 3 → 4.
- a verdict's count counts verdicts that changed: a candidate whose gate level alone changed,
  one added and one removed are counted apart.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._audit import audit
from evidencedesk.report._since_view import since_view
from evidencedesk.results.since import QuestionChange, Since, VerdictChange, since
from tests.synthetic_runs import write_project

QUESTIONS = ("q1", "q2", "q3", "q4")


def make_project(root: Path, q2_grade: int = 2) -> Path:
    grades = {q: {f"{q}a": 2, f"{q}b": 2} for q in QUESTIONS}
    grades["q2"] = {"q2a": q2_grade, "q2b": q2_grade}
    ranked = {q: [f"{q}a", *(f"{q}x{n}" for n in range(1, 10)), f"{q}b"] for q in QUESTIONS}
    policy = {"k": 10, "min_recall": 0.0, "min_pass_rate": 0.0, "max_drop": 1.0,
              "review_on_mrr_flips": False}  # fmt: skip
    return write_project(root, grades, {"base": ranked, "cand": ranked}, policy=policy)


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("since-truth")
    judged, lost = make_project(tmp / "judged"), make_project(tmp / "lost", q2_grade=1)
    out = {name: tmp / f"site-{name}" for name in ("judged", "lost", "back")}
    evidencedesk.build(project=judged, out=out["judged"])
    evidencedesk.build(project=lost, out=out["lost"], compare_to=out["judged"])
    evidencedesk.build(project=judged, out=out["back"], compare_to=out["lost"])
    return out


def _since(sites: dict[str, Path], before: str, after: str) -> Since:
    return since(evidencedesk.load_results(sites[before]), evidencedesk.load_results(sites[after]))


def test_a_question_that_lost_its_relevant_judgment_newly_fails(sites: dict[str, Path]) -> None:
    s = _since(sites, "judged", "lost")
    assert s.newly_fail == (QuestionChange("q2", ("base", "cand"), judgment=True),)
    assert s.newly_pass == ()
    assert (s.relevant_before, s.relevant_after) == (4, 3)
    page = (sites["lost"] / "since.html").read_text("utf-8")
    index = (sites["lost"] / "index.html").read_text("utf-8")
    for html in (page, index):
        assert ("<strong>1 input file changed · 2 label grades changed · 1 question newly "
                "fails</strong>") in html  # fmt: skip
        assert ">q2</a>: no relevant judgment now (it passed before in base, cand)</li>" in html
        assert "Questions with a relevant judgment (only they can pass): 4 → 3.</p>" in html
    assert ("Counted: a relevant result within the first 10 before, none now or no relevant "
            "judgment now.") in page  # fmt: skip


def test_a_question_that_gained_its_relevant_judgment_newly_passes(
    sites: dict[str, Path],
) -> None:
    s = _since(sites, "lost", "back")
    assert s.newly_pass == (QuestionChange("q2", ("base", "cand"), judgment=True),)
    assert s.newly_fail == ()
    assert (s.relevant_before, s.relevant_after) == (3, 4)
    page = (sites["back"] / "since.html").read_text("utf-8")
    assert ">q2</a>: now passes in base, cand (no relevant judgment before)</li>" in page
    assert "Questions with a relevant judgment (only they can pass): 3 → 4.</p>" in page
    assert ("Counted: no relevant result within the first 10 (or no relevant judgment) before, "
            "one now.") in page  # fmt: skip


def test_the_audit_agrees_with_both_pages(sites: dict[str, Path]) -> None:
    for name in ("lost", "back"):
        assert [d.line() for d in audit(sites[name])[0]] == []


PLANTS = {
    "the count now": ("(only they can pass): 4 → 3.", "(only they can pass): 4 → 2.", [
        "since.html: 'since note 1: Questions with a relevant judgment (only they can pass): "
        "4 → 2.': results.json says 'Questions with a relevant judgment (only they can pass): "
        "4 → 3.' (inputs.input_hash, inputs.project, settings.seed)",
    ]),
    "a question that has one": (">q2</a>: no relevant", ">q3</a>: no relevant", [
        "since.html: 'since: q3: no relevant judgment now (it passed before in base, cand)': "
        "results.json says 'nothing: q3 has a relevant judgment now' (the judgments of q3, the "
        "variants)",
    ]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(PLANTS))
def test_a_planted_relevant_count_or_reason_is_named(
    sites: dict[str, Path], tmp_path: Path, case: str
) -> None:
    """This report's side of each is held to results.json: 3 questions have a relevant
    judgment, and q2 has none (q3 has)."""
    old, new, expected = PLANTS[case]
    site = tmp_path / "site"
    shutil.copytree(sites["lost"], site)
    page = site / "since.html"
    raw = page.read_text("utf-8")
    assert raw.count(old) == 1
    page.write_text(raw.replace(old, new), "utf-8")
    assert [d.line() for d in audit(site)[0] if d.line().startswith("since.html")] == expected


def test_the_verdict_count_counts_verdicts_that_changed(sites: dict[str, Path]) -> None:
    """One verdict changed, one gate level alone, one candidate added, one removed: four
    changes in the verdicts group, of which one is a verdict that changed."""
    current = evidencedesk.load_results(sites["lost"])
    s = replace(_since(sites, "judged", "lost"), verdicts=(
        VerdictChange("a", "NO CLEAR CHANGE", "LEANS WORSE", "REVIEW", "BLOCK"),
        VerdictChange("b", "NO CLEAR CHANGE", "NO CLEAR CHANGE", "REVIEW", "BLOCK"),
        VerdictChange("c", None, "NO CLEAR CHANGE", None, "BLOCK"),
        VerdictChange("d", "NO CLEAR CHANGE", None, "GO", None),
    ))  # fmt: skip
    assert [c.kind for c in s.verdicts] == ["verdict", "gate", "added", "removed"]
    assert since_view(s, current).summary == (
        "1 input file changed · 2 label grades changed · 1 verdict changed · 1 gate level "
        "changed (same verdict) · 1 candidate added · 1 candidate removed · 1 question newly "
        "fails"
    )
    two = replace(s, verdicts=s.verdicts[1:2] * 2)
    assert "· 2 gate levels changed (same verdicts) ·" in since_view(two, current).summary


def test_a_right_to_left_document_id_is_isolated_alone_in_a_grade_change(tmp_path: Path) -> None:
    """A label grade's change names its document between the question and our words: an
    Arabic id isolated with the words after it would turn "grade 2 → grade 1" around."""
    doc = "وثيقة-1"
    ranked = {"q1": [doc, "x1"], "q2": ["q2a", "x2"]}
    runs = {"base": ranked, "cand": ranked}
    before = write_project(tmp_path / "before", {"q1": {doc: 2}, "q2": {"q2a": 2}}, runs)
    after = write_project(tmp_path / "after", {"q1": {doc: 2, "x1": 1}, "q2": {"q2a": 2}}, runs)
    first, second = tmp_path / "site-before", tmp_path / "site-after"
    evidencedesk.build(project=before, out=first)
    evidencedesk.build(project=after, out=second, compare_to=first)
    page = (second / "since.html").read_text("utf-8")
    assert ": x1: unlabelled → grade 1</li>" in page
    changed = {"q1": {doc: 1}, "q2": {"q2a": 2}}
    again = write_project(tmp_path / "again", changed, runs)
    third = tmp_path / "site-again"
    evidencedesk.build(project=again, out=third, compare_to=first)
    page = (third / "since.html").read_text("utf-8")
    assert f": \u2068{doc}\u2069: grade 2 → grade 1</li>" in page
    assert [d.line() for d in audit(third)[0]] == []
