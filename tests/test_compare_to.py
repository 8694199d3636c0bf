"""``--compare-to``: what changed since a previous build's results.json.

A four-question runs-only project, built twice with ONE label grade changed in between, must
list exactly that change and what it causes, worked out by hand:

- every question has two relevant documents, ``<q>a`` and ``<q>b`` (grade 2); the run ``cand``
  ranks ``a`` first and ``b`` eleventh for every question, so each of its metrics has the same
  value on every question and its 95 % intervals are single points;
- the baseline run ``base`` does the same, except that for q1 it ranks ``b`` first, ``a`` second;
- the change: q1's ``a`` goes from grade 2 to 0. Then under ``cand`` q1's only relevant document
  is at rank 11: it newly fails (nothing relevant in the first k = 10), its recall@10, P@10 and
  nDCG@10 drop to 0 and its reciprocal rank to 1/11, so all four of ``cand``'s means leave their
  single-point intervals; the gate's critical question q1 fails, so ``cand``'s gate goes from
  GO to BLOCK while its verdict (from the statistics: one question of four) stays NO CLEAR
  CHANGE. Under ``base`` q1 still finds ``b`` at
  rank 1: it still passes, its MRR and nDCG stay 1, recall@10 stays 1 (1 of 1), P@10 goes
  0.2 -> 0.1, which the previous interval of base's P@10 (lowest resample mean 0.1) still holds.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.cli import main
from evidencedesk.results.since import (
    FileChange,
    GradeChange,
    QuestionChange,
    VerdictChange,
    since,
)
from tests import report_fixtures as rf
from tests.test_bad_input import snapshot

QUESTIONS = ("q1", "q2", "q3", "q4")

# what the runs-only candidate "cand" tests in both reports: its own run
TESTS = ((("run", "cand"),), (("run", "cand"),))


def _ranking(first: str, second: str | None, eleventh: str, q: str) -> list[str]:
    filler = [f"{q}x{n}" for n in range(1, 12)]
    ranked = [first] + ([second] if second else []) + filler
    ranked = ranked[:10] + [eleventh]
    return ranked


def make_project(root: Path, q1_a_grade: int = 2) -> Path:
    root.mkdir(parents=True)
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": f"question {q}"}) + "\n" for q in QUESTIONS)
    )
    grades = {q: {f"{q}a": 2, f"{q}b": 2} for q in QUESTIONS}
    grades["q1"]["q1a"] = q1_a_grade
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items())
    )
    (root / "runs").mkdir()
    for name in ("base", "cand"):
        lines = []
        for q in QUESTIONS:
            if name == "base" and q == "q1":
                ranked = [f"{q}b", f"{q}a"] + [f"{q}x{n}" for n in range(1, 10)]
            else:
                ranked = [f"{q}a"] + [f"{q}x{n}" for n in range(1, 10)] + [f"{q}b"]
            lines += [f"{q} Q0 {d} {r} {100 - r} {name}\n" for r, d in enumerate(ranked, 1)]
        (root / "runs" / f"{name}.run").write_text("".join(lines))
    (root / "gate_policy.json").write_text(json.dumps({
        "k": 10, "min_recall": 0.0, "min_pass_rate": 0.0, "max_drop": 1.0,
        "review_on_mrr_flips": False, "critical": ["q1"], "notes": {"q1": "the safety question"},
    }))  # fmt: skip
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "compare"\n\n[questions]\nqueries = "queries.jsonl"\n'
        'qrels = "qrels.txt"\nrelevance = 2\n\n[runs]\ndir = "runs"\nbaseline = "base"\n\n'
        '[gate]\npolicy = "gate_policy.json"\n'
    )
    return root / "evidencedesk.toml"


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    before = make_project(tmp / "before")
    after = make_project(tmp / "after", q1_a_grade=0)
    sites = {"before": tmp / "site-before", "after": tmp / "site-after", "same": tmp / "site-same"}
    evidencedesk.build(project=before, out=sites["before"])
    evidencedesk.build(
        project=after, out=sites["after"], compare_to=sites["before"] / "results.json"
    )
    evidencedesk.build(project=before, out=sites["same"], compare_to=sites["before"])
    return sites


def test_one_label_changed_lists_exactly_that_change(builds: dict[str, Path]) -> None:
    previous = evidencedesk.load_results(builds["before"])
    current = evidencedesk.load_results(builds["after"])
    s = since(previous, current)
    assert s.files == (FileChange("qrels.txt", "changed"),)
    assert s.grades == (GradeChange("q1", "q1a", 2, 0),)
    assert (s.questions_added, s.questions_removed) == ((), ())
    assert s.verdicts == (
        VerdictChange("cand", "NO CLEAR CHANGE", "NO CLEAR CHANGE", "GO", "BLOCK", *TESTS),
    )
    rank_11 = (3 + 1 / 11) / 4
    moves = {(m.run, m.metric): (m.before, m.low, m.high, m.after) for m in s.metrics}
    assert sorted(moves) == [("cand", "mrr"), ("cand", "ndcg@10:linear"),
                             ("cand", "precision@10"), ("cand", "recall@10")]  # fmt: skip
    assert moves[("cand", "mrr")] == pytest.approx((1.0, 1.0, 1.0, rank_11))
    assert moves[("cand", "recall@10")] == pytest.approx((0.5, 0.5, 0.5, 0.375))
    assert moves[("cand", "precision@10")] == pytest.approx((0.1, 0.1, 0.1, 0.075))
    assert s.newly_fail == (QuestionChange("q1", ("cand",)),)
    assert s.newly_pass == ()
    assert (s.k, s.same_inputs, s.changes) == (10, False, 1 + 1 + 1 + 4 + 1)


def test_the_site_shows_the_changes_and_what_it_compared_with(builds: dict[str, Path]) -> None:
    previous = evidencedesk.load_results(builds["before"])
    index = (builds["after"] / "index.html").read_text("utf-8")
    page = (builds["after"] / "since.html").read_text("utf-8")
    for html in (index, page):
        assert f"inputs sha256 {previous.inputs.input_hash[:12]}…" in html
        assert f"evidencedesk {previous.version}" in html
        assert ("<strong>1 input file changed · 1 label grade changed · 1 gate level changed "
                "(same verdict) · 4 metrics moved beyond their interval · 1 question newly "
                "fails</strong>") in html  # fmt: skip
        assert "q1a: grade 2 → grade 0" in html
        assert "<strong>cand</strong>: still NO CLEAR CHANGE (gate GO → BLOCK)" in html
        assert "now fails in cand" in html
        assert "MRR 1.000 → 0.773 (previous interval [1.000, 1.000])" in html
    assert "Questions that newly pass" not in page
    assert 'href="since.html"' in (builds["after"] / "gate.html").read_text("utf-8")  # nav


def test_identical_builds_say_no_changes(builds: dict[str, Path]) -> None:
    s = since(
        evidencedesk.load_results(builds["before"]), evidencedesk.load_results(builds["same"])
    )
    assert (s.changes, s.same_inputs) == (0, True)
    index = (builds["same"] / "index.html").read_text("utf-8")
    assert "<strong>No changes: the same verdicts, no metric outside its previous interval" in index
    assert "The inputs are the same as the previous report" in index
    assert not (builds["before"] / "since.html").exists()  # no --compare-to, no section
    assert 'id="since"' not in (builds["before"] / "index.html").read_text("utf-8")


def _report(*args: str | Path) -> tuple[int, str]:
    """``python -m evidencedesk.report build ARGS`` with the fixture model, in-process (the
    module runs `evidencedesk.cli.main`): (status, stderr)."""
    err = io.StringIO()
    status = main(["build", *map(str, args)], model_factory=rf.fixture_model, stdout=io.StringIO(),
                  stderr=err, prog="python -m evidencedesk.report")  # fmt: skip
    return status, err.getvalue()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "bad.json: "),  # missing
        ("not json", "bad.json:1: expected JSON, found invalid JSON (Expecting value)"),
        ('{"schema_version": 99}', "bad.json: key schema_version: expected 1 or 2, found 99"),
    ],
)
def test_a_bad_compare_file_is_one_line_and_keeps_the_site(
    builds: dict[str, Path], tmp_path: Path, content: str | None, message: str
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    site = tmp_path / "site"
    first, err = _report("--out", site, "-q")
    assert first == 0, err
    kept = snapshot(site)
    status, stderr = _report("--out", site, "--compare-to", bad)
    assert status == 2
    assert stderr.count("\n") == 1 and stderr.startswith(f"error: {bad}"), stderr
    assert message in stderr and "Traceback" not in stderr
    assert snapshot(site) == kept


def test_a_gate_without_a_policy_is_not_checked_before_and_after(tmp_path: Path) -> None:
    """A report without a gate policy shows "no gate policy — nothing checked", whose level is
    REVIEW only to --fail-on: against it the since page says "not checked", never REVIEW, and
    adding a policy is a change even where it gives REVIEW. The audit holds this report's side."""
    from evidencedesk.report._audit import audit
    from evidencedesk.results._serialize import load
    from tests.planting import on_the_page, planted

    with_policy = make_project(tmp_path / "with")
    without = tmp_path / "without" / "evidencedesk.toml"
    (tmp_path / "without").mkdir()
    for name in ("queries.jsonl", "qrels.txt"):
        (tmp_path / "without" / name).write_bytes((with_policy.parent / name).read_bytes())
    (tmp_path / "without" / "runs").mkdir()
    for run in ("base", "cand"):
        (tmp_path / "without" / "runs" / f"{run}.run").write_bytes(
            (with_policy.parent / "runs" / f"{run}.run").read_bytes()
        )
    without.write_text(with_policy.read_text().split("\n[gate]")[0] + "\n")
    sites = {name: tmp_path / f"site-{name}" for name in ("none", "added", "dropped")}
    evidencedesk.build(project=without, out=sites["none"])
    evidencedesk.build(project=with_policy, out=sites["added"], compare_to=sites["none"])
    evidencedesk.build(project=without, out=sites["dropped"], compare_to=sites["added"])
    previous, current = (load(sites[n] / "results.json") for n in ("none", "added"))
    assert since(previous, current).verdicts == (
        VerdictChange("cand", "NO CLEAR CHANGE", "NO CLEAR CHANGE", "not checked", "GO", *TESTS),
    )
    added = (sites["added"] / "since.html").read_text("utf-8")
    assert "<strong>cand</strong>: still NO CLEAR CHANGE (gate not checked → GO)" in added
    dropped = (sites["dropped"] / "since.html").read_text("utf-8")
    assert "<strong>cand</strong>: still NO CLEAR CHANGE (gate GO → not checked)" in dropped
    assert [d.line() for d in audit(sites["dropped"])[0]] == []
    lie = planted(sites["dropped"], tmp_path / "lie", "since.html", "(gate GO → not checked)",
                  "(gate GO → REVIEW)")  # fmt: skip
    assert [d.line() for d in audit(lie, on_the_page("since.html"))[0]] == [
        "since.html: 'since: cand: still NO CLEAR CHANGE (gate GO → REVIEW)': results.json says "
        "'cand: still NO CLEAR CHANGE (gate GO → not checked)' (the candidate cand's decision and "
        "gate)"
    ]
