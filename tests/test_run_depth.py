"""Runs of different depths: part of their difference is how far each list goes.

A run cut at 2 results cannot find what R@3 or MAP count beyond its second result, so against a
baseline returning 4 it loses on them whatever its ranking. The candidate's page, summary.md and
`validate` say so, with the fix for a runs-only project (``[runs] max_depth``); nothing is said
when no reported metric reads past the shallower list, or when both go as deep."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk import cli
from evidencedesk.report._audit import audit
from tests.page_text import visible
from tests.synthetic_runs import write_project

QRELS = {q: {f"{q}-a": 1, f"{q}-b": 1, f"{q}-c": 0} for q in ("q1", "q2", "q3")}
# base returns 4 (its second relevant at 3), cand the same first 2
BASE = {q: [f"{q}-a", f"{q}-c", f"{q}-b", f"{q}-x"] for q in QRELS}
CAND = {q: [f"{q}-a", f"{q}-c"] for q in QRELS}
DEPTH = (
    "Depth: cand returns up to 2 results a question, the baseline base up to 4; R@3 and MAP read "
    "past 2, so part of the difference is how far each list goes; [runs] max_depth = 2 compares "
    "every run at one depth."
)


def _project(root: Path, metrics: str, depth: str = "") -> Path:
    toml = write_project(root, QRELS, {"base": BASE, "cand": CAND}, relevance=1,
                         report=f"metrics = {metrics}")  # fmt: skip
    if depth:
        toml.write_text(toml.read_text("utf-8").replace("[runs]\n", f"[runs]\n{depth}\n"), "utf-8")
    return toml


def _build(toml: Path, out: Path, printed: list[str] | None = None) -> Path:
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    if printed is not None:
        printed += err.getvalue().splitlines()
    return out


def _validate(toml: Path) -> list[str]:
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(toml)], stdout=out, stderr=io.StringIO()) == 0
    return out.getvalue().splitlines()


def test_a_shallower_run_is_said_to_be_shallower(tmp_path: Path) -> None:
    """By hand: the baseline's R@3 is 1.0 on every question, the candidate's 0.5 (its second
    relevant document is third in the baseline, absent from its two)."""
    toml = _project(tmp_path / "p", '["recall@3", "map"]')
    assert f"note: {DEPTH}" in _validate(toml)
    printed: list[str] = []
    site = _build(toml, tmp_path / "site", printed)
    assert f"warning: {DEPTH}" in printed
    page = " ".join(
        visible((site / "candidate-cand.html").read_text("utf-8"), unescape=True).split()
    )
    assert DEPTH in page
    escaped = DEPTH.replace("[runs] max_depth", "\\[runs\\] max\\_depth").replace("@", "\\@")
    assert f"- `cand`: {escaped}" in (site / "summary.md").read_text("utf-8").splitlines()
    means = {v.name: {m.metric: m.mean for m in v.metrics}
             for v in evidencedesk.load_results(site / "results.json").variants}  # fmt: skip
    assert (means["base"]["recall@3"], means["cand"]["recall@3"]) == (1.0, 0.5)
    assert [d.line() for d in audit(site)[0]] == []


@pytest.mark.parametrize(
    ("metrics", "depth"),
    [
        ('["recall@2", "precision@1"]', ""),  # no reported metric reads past 2
        ('["rprec"]', ""),  # R-prec reads the first R = 2 of each list: no further than 2
        ('["recall@3", "map"]', "max_depth = 2"),  # both cut at 2
    ],
)
def test_nothing_is_said_where_depth_cannot_matter(
    tmp_path: Path, metrics: str, depth: str
) -> None:
    toml = _project(tmp_path / "p", metrics, depth)
    assert not [line for line in _validate(toml) if "Depth:" in line]
    printed: list[str] = []
    site = _build(toml, tmp_path / "site", printed)
    assert not [line for line in printed if "Depth:" in line]
    assert "Depth:" not in (site / "candidate-cand.html").read_text("utf-8")
    assert "Depth:" not in (site / "summary.md").read_text("utf-8")


def test_a_wrong_depth_on_the_page_is_caught(tmp_path: Path) -> None:
    site = _build(_project(tmp_path / "p", '["recall@3", "map"]'), tmp_path / "site")
    page = site / "candidate-cand.html"
    page.write_text(page.read_text("utf-8").replace("up to 4;", "up to 5;"), "utf-8")
    found = [d.line() for d in audit(site)[0]]
    assert found and all(line.startswith("candidate-cand.html: ") for line in found)
    assert any("up to 5" in line and "up to 4" in line for line in found)


def test_the_demo_says_a_longer_final_list_reads_deeper(demo_site: Path) -> None:
    """The demo's "final 5" candidate returns 5 chunks where the baseline returns 3: MRR and
    nDCG@5 read past 3 (R@3 does not)."""
    (page,) = demo_site.glob("candidate-final-5*.html")
    text = " ".join(visible(page.read_text("utf-8"), unescape=True).split())
    assert (
        "Depth: final 5 returns up to 5 results a question, the baseline hybrid up to 3; MRR and "
        "nDCG@5 (exp gain) read past 3, so part of the difference is how far each list goes."
    ) in text


def test_r_prec_reads_past_the_shallower_list_where_some_question_has_more_relevant(
    tmp_path: Path,
) -> None:
    # q1 has three relevant documents: R-prec reads base's third, past cand's two
    qrels = {**QRELS, "q1": {"q1-a": 1, "q1-b": 1, "q1-x": 1, "q1-c": 0}}
    toml = write_project(tmp_path / "p", qrels, {"base": BASE, "cand": CAND}, relevance=1,
                         report='metrics = ["rprec"]')  # fmt: skip
    said = (
        "Depth: cand returns up to 2 results a question, the baseline base up to 4; R-prec reads "
        "past 2, so part of the difference is how far each list goes; [runs] max_depth = 2 "
        "compares every run at one depth."
    )
    assert f"note: {said}" in _validate(toml)
    printed: list[str] = []
    site = _build(toml, tmp_path / "site", printed)
    assert f"warning: {said}" in printed
    assert [d.line() for d in audit(site)[0]] == []
