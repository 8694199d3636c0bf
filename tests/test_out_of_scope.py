"""A pipeline's questions whose relevant chunks are all superseded or restricted.

The metrics read the judgments of the chunks in scope (current, public), so such a question holds
nothing relevant there: undefined under the default averaging, 0 under trec_eval's. The labels
still call it answerable, and it has a relevant judgment; the words must not count it among the
questions that define the means or decide the comparisons. The project below has five
questions: q1 and q2 relevant on current public chunks, q3 only on a superseded chunk, q4 only on
a restricted one, q5 unanswerable (no relevant chunk at all)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report._audit import audit
from evidencedesk.results import _inputs
from tests.page_text import visible

NOTICE = (
    "labels.jsonl: 2 of the 4 questions with a relevant judgment have it only on superseded or "
    "restricted chunks (q3, q4): out of scope, they score as questions with nothing relevant"
)
COUNTS = "5 questions, all judged, 4 with a relevant judgment (grade ≥ 2), 2 of them in scope"
# trec_eval's nDCG reads the grades below the threshold (here 1) of a question with nothing relevant
ZEROS = ("; the other 3 judged count 0 in the means but nDCG's, which reads their grades below 2 "
         "(trec_eval's averaging)")  # fmt: skip


def write_project(root: Path, averaging: str) -> Path:
    """The five questions over three documents (one superseded, one restricted); returns the
    project file."""
    (root / "docs").mkdir(parents=True)

    def doc(name: str, status: str, visibility: str, *paragraphs: str) -> None:
        head = (f"---\nid: {name}\ntitle: {name}\nversion: 1\nstatus: {status}\n"
                f"visibility: {visibility}\nlanguage: en\n---\n")  # fmt: skip
        (root / "docs" / f"{name}.md").write_text(head + "\n\n".join(paragraphs) + "\n", "utf-8")

    doc("fees", "current", "public", "Library card fees are five dollars a year.",
        "Late books cost ten cents a day.")  # fmt: skip
    doc("fees-old", "superseded", "public", "Library card fees were two dollars a year.")
    doc("staff", "current", "restricted", "Staff parking is behind the hall.")
    labels = [
        {"id": "q1", "question": "how much is a library card", "answerable": True,
         "grades": {"fees:c0": 2}},
        {"id": "q2", "question": "late book cost", "answerable": True,
         "grades": {"fees:c1": 2, "fees:c0": 1}},
        {"id": "q3", "question": "old card fee", "answerable": True, "grades": {"fees-old:c0": 2}},
        {"id": "q4", "question": "where do staff park", "answerable": True,
         "grades": {"staff:c0": 2}},
        {"id": "q5", "question": "pool opening hours", "tags": ["unanswerable"],
         "answerable": False, "grades": {}},
    ]  # fmt: skip
    (root / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels), "utf-8")
    toml = root / "evidencedesk.toml"
    toml.write_text(
        '[project]\nname = "scope"\n\n[documents]\nfolders = ["docs"]\n\n[questions]\n'
        f'labels = "labels.jsonl"\n\n[report]\naveraging = "{averaging}"\n',
        "utf-8",
    )
    return toml


def _build(root: Path, averaging: str) -> Path:
    toml = write_project(root / "project", averaging)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return root / "site"


def _text(site: Path, page: str) -> str:
    return " ".join(visible((site / page).read_text("utf-8"), unescape=True).split())


@pytest.mark.parametrize(("averaging", "after"), [("defined", ""), ("trec_eval", ZEROS)])
def test_validate_counts_them_and_names_them(tmp_path: Path, averaging: str, after: str) -> None:
    toml = write_project(tmp_path, averaging)
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(toml)], stdout=out, stderr=io.StringIO()) == 0
    lines = out.getvalue().splitlines()
    assert f"questions: {COUNTS}{after}; grades up to 2" in lines
    assert f"warning: {NOTICE}" in lines


@pytest.mark.parametrize(
    ("averaging", "after", "n", "over"),
    [
        ("defined", "", 2, "the questions with a relevant chunk in scope"),
        ("trec_eval", ZEROS, 5, "every judged question (one with no relevant chunk in scope counts 0 "
         "in the means but nDCG's, which reads its grades below 2)"),
    ],
)  # fmt: skip
def test_the_site_says_which_questions_count_and_the_audit_agrees(
    tmp_path: Path, averaging: str, after: str, n: int, over: str
) -> None:
    site = _build(tmp_path, averaging)
    results = json.loads((site / "results.json").read_text("utf-8"))
    counts = results["inputs"]["counts"]
    assert (counts["relevant"], counts["out_of_scope"], counts["out_of_scope_ids"]) == (
        4, 2, ["q3", "q4"])  # fmt: skip
    assert results["answerable"] == 2  # the questions in the comparison: q1 and q2
    hybrid = next(v for v in results["variants"] if v["name"] == "hybrid")
    assert {s["n"] for s in hybrid["metrics"]} == {n}  # every mean over 2, or over all 5
    index = _text(site, "index.html")
    assert f"{COUNTS}{after} ·" in index
    assert NOTICE in index
    # under trec_eval's averaging nDCG's comparisons also read the grades below the threshold
    also = (" (nDCG's also reads the other judged questions' grades below 2, as trec_eval's "
            "averaging does)") if averaging == "trec_eval" else ""  # fmt: skip
    assert (f"2 questions with a relevant chunk in scope decide every comparison{also}: a one- "
            "or two-question difference is noise.") in index  # fmt: skip
    assert f"Dot = mean reciprocal rank over {over}; bar" in index
    question = _text(site, "question-q3.html")
    counted = (
        "it counts 0 in the means but nDCG's, which reads its grades below 2, as trec_eval "
        "averages it ([report] averaging = "
        '"trec_eval")'
        if averaging == "trec_eval"
        else "its metrics are undefined and left out of the means"
    )
    assert ("Every chunk graded relevant for this question is superseded or restricted, out of "
            "the scope the variants search: it scores as a question with nothing relevant "
            f"({counted}).") in question  # fmt: skip
    assert "out of scope" not in _text(site, "question-q1.html")
    assert [d.line() for d in audit(site)[0]] == []


def test_a_build_that_miscounts_them_is_caught_by_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit counts the questions in scope from results.json's judgments in scope, not from
    the build's count: a build that counted one question out of scope too few is a
    disagreement on every page that states the counts."""
    counted = _inputs.in_scope

    def one_too_few(*args: object, **kwargs: object) -> object:
        found = counted(*args, **kwargs)  # type: ignore[arg-type]
        return found.__class__(**{**found.to_dict(), "out_of_scope": found.out_of_scope - 1})

    monkeypatch.setattr(_inputs, "in_scope", one_too_few)
    site = _build(tmp_path, "defined")
    wrong = COUNTS.replace("2 of them", "3 of them")
    found = [d.line() for d in audit(site)[0]]
    assert (f"index.html: {wrong!r}: results.json says {COUNTS!r} (claim 15 of methods.html: "
            "counts of inputs.counts)") in found  # fmt: skip


def test_a_question_brought_into_scope_is_counted_since_the_last_report(tmp_path: Path) -> None:
    """q3's only relevant chunk is superseded; the next report marks its document current: the
    questions that can pass go from 2 to 3, in the pipeline's words, and the audit agrees."""
    before = _build(tmp_path / "a", "defined")
    toml = write_project(tmp_path / "b", "defined")
    old = toml.parent / "docs" / "fees-old.md"
    old.write_text(old.read_text("utf-8").replace("status: superseded", "status: current"), "utf-8")
    out = tmp_path / "b-site"
    argv = ["build", "--project", str(toml), "--out", str(out), "--compare-to", str(before), "-q"]
    err = io.StringIO()
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    since = _text(out, "since.html")
    assert "Questions with a relevant chunk in scope (only they can pass): 2 → 3." in since
    assert ("Counted: no relevant result within the first 3 (or no relevant chunk in scope) "
            "before, one now.") in since  # fmt: skip
    assert "hybrid + pair (8 words) (no relevant chunk in scope before)" in since
    assert [d.line() for d in audit(out)[0]] == []
    page = out / "since.html"  # a runs-only project's words planted here: the audit names them
    page.write_text(page.read_text("utf-8").replace("(no relevant chunk in scope before)",
                                                    "(no relevant judgment before)"), "utf-8")  # fmt: skip
    found = [d.line() for d in audit(out)[0]]
    assert len(found) == 1 and found[0].startswith("since.html: 'since: q3")
    assert found[0].endswith("(no relevant chunk in scope before)' (the variants' lists of q3, "
                             "each run's pass depth)")  # fmt: skip


def test_a_critical_question_out_of_scope_blocks_and_says_why(tmp_path: Path) -> None:
    """The labels call q3 answerable, so the policy may name it critical; in scope it has
    nothing relevant to find, so no run can pass it: the gate blocks with that reason, never
    "not an answerable question"."""
    toml = write_project(tmp_path / "p", "defined")
    (toml.parent / "policy.json").write_text('{"k": 3, "critical": ["q1", "q3"]}', "utf-8")
    toml.write_text(toml.read_text("utf-8") + '\n[gate]\npolicy = "policy.json"\n', "utf-8")
    out = tmp_path / "site"
    argv = ["build", "--project", str(toml), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert ("The baseline hybrid itself fails the gate policy (BLOCK): critical: q3 has no case "
            "in this run (no relevant chunk in scope, so it cannot pass).") in _text(
        out, "index.html")  # fmt: skip
    assert [d.line() for d in audit(out)[0]] == []


@pytest.mark.parametrize(
    ("grades", "expected"),
    [
        ({"old:c0": 2}, True),  # relevant only on a chunk out of scope
        ({"old:c0": 2, "new:c0": 2}, False),  # relevant in scope too
        ({"old:c0": 2, "new:c0": 1}, True),  # in scope only below the threshold
        ({"new:c0": 1}, False),  # nothing relevant anywhere: unanswerable, not out of scope
        ({}, False),
    ],
)
def test_out_of_scope_means_relevant_judgments_only_outside_the_scope(
    grades: dict[str, int], expected: bool
) -> None:
    from evidencedesk.retrieval.labels import _relevant_out_of_scope

    assert _relevant_out_of_scope(grades, {"new:c0"}, 2) is expected
