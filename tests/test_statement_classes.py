"""Issue 37's statement classes, each on a generated project that is not the demo: a runs-only
project whose judgments are binary and sparse, with no tags and no gate policy."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from evidencedesk import cli


def _project(root: Path, answered: int, judged: int) -> Path:
    """`judged` queries with one relevant document each (binary, sparse); two runs answering the
    first `answered` of them, the candidate better on q1."""
    root.mkdir()
    (root / "qrels.txt").write_text(
        "".join(f"q{i} 0 d{i} 1\nq{i} 0 x{i} 0\n" for i in range(1, judged + 1)), "utf-8"
    )
    runs = root / "runs"
    runs.mkdir()
    for name, first in (("base", "x"), ("cand", "d")):
        lines = []
        for i in range(1, answered + 1):
            top = first if i == 1 else "d"
            other = "x" if top == "d" else "d"
            lines += [f"q{i} Q0 {top}{i} 1 2.0 {name}", f"q{i} Q0 {other}{i} 2 1.0 {name}"]
        (runs / f"{name}.run").write_text("\n".join(lines) + "\n", "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "sparse"\n[questions]\nqrels = "qrels.txt"\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\nmin_coverage = 0.5\n'
        '[report]\nmetrics = ["map", "mrr"]\n',
        "utf-8",
    )
    return root


def _build(project: Path, out: Path) -> str:
    err = io.StringIO()
    argv = ["build", "--project", str(project), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return html.unescape(re.sub(r"<[^>]+>", "", (out / "index.html").read_text("utf-8")))


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def test_n_decide_counts_only_the_questions_a_run_answers(tmp_path: Path) -> None:
    """Class 5: "702 questions … decide every comparison" where 652 were answered by no run."""
    index = _squeezed(_build(_project(tmp_path / "p", answered=4, judged=6), tmp_path / "site"))
    assert "6 questions 4 decide" in index
    assert "decide: those with a relevant judgment that a run answers (2 no run answers)" in index
    assert ("4 of the 6 questions with a relevant judgment decide the comparisons: 2 are "
            "answered by no run (q5, q6), a tie in every comparison; a one- or two-question "
            "difference is noise.") in index  # fmt: skip


def test_when_every_question_is_answered_all_of_them_decide(tmp_path: Path) -> None:
    index = _squeezed(_build(_project(tmp_path / "p", answered=6, judged=6), tmp_path / "site"))
    assert "6 questions 6 decide" in index
    assert "no run answers" not in index
    assert ("6 questions with a relevant judgment decide every comparison: a one- or "
            "two-question difference is noise.") in index  # fmt: skip
