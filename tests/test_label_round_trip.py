"""The to-label page's round trip, run as the page prints it: its commands are read off the page
and run in the project's folder (the append in bash), on a TREC qrels file whose name needs
quoting and on the example's BEIR qrels one folder up; the rebuild then reads the new grades."""

from __future__ import annotations

import html
import io
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from evidencedesk import cli
from tests.synthetic_runs import write_project

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "millbrook-library"


def _build(argv: list[str]) -> None:
    err = io.StringIO()
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()


def _round_trip(page: str) -> tuple[str, str, str]:
    """The to-label page's judgments file, its append command and its rebuild command."""
    steps = page[page.index('id="round-trip"') : page.index('id="first-rows"')]
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", steps)]
    append = next(c for c in codes if c.startswith("awk "))
    rebuild = next(c for c in codes if c.startswith("evidencedesk build"))
    judgments = codes[codes.index(append) - 1]
    return judgments, append, rebuild


def _trec_project(root: Path) -> Path:
    """Two runs over four questions; each returns an unjudged document at rank 1 or 2."""
    qrels = {f"q{n}": {f"d{n}": 1, f"x{n}": 0} for n in range(1, 5)}
    base = {q: [f"u{q}", d, x] for q, (d, x) in ((q, tuple(g)) for q, g in qrels.items())}
    cand = {q: [d, f"v{q}", x] for q, (d, x) in ((q, tuple(g)) for q, g in qrels.items())}
    toml = write_project(root, qrels, {"base": base, "cand": cand}, relevance=1)
    (root / "qrels.txt").rename(root / "my qrels.txt")
    toml.write_text(toml.read_text("utf-8").replace('"qrels.txt"', '"my qrels.txt"'), "utf-8")
    return root


def _trec_tabs_project(root: Path) -> Path:
    """TREC qrels by tabs, as MS MARCO's ``qrels.dev.tsv``: the rows go back by tabs too."""
    root = _trec_project(root)
    text = (root / "my qrels.txt").read_text("utf-8").replace(" ", "\t")
    (root / "my qrels.txt").unlink()
    (root / "qrels.dev.tsv").write_text(text, "utf-8")
    toml = root / "evidencedesk.toml"
    toml.write_text(toml.read_text("utf-8").replace('"my qrels.txt"', '"qrels.dev.tsv"'), "utf-8")
    return root


def _example_project(root: Path) -> Path:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root / "runs-only"


@pytest.mark.parametrize(
    ("make", "judgments", "append", "grade"),
    [
        (_trec_project, "my qrels.txt",
         "awk '-F\\t' '!/^#/ && $4 != \"\" {print $1, $2, $3, $4}' to-label.tsv >> 'my qrels.txt'",
         "1"),
        (_trec_tabs_project, "qrels.dev.tsv",
         "awk '-F\\t' -v 'OFS=\\t' '!/^#/ && $4 != \"\" {print $1, $2, $3, $4}' to-label.tsv >> "
         "qrels.dev.tsv", "1"),
        (_example_project, "../qrels/test.tsv",
         "awk '-F\\t' -v 'OFS=\\t' '!/^#/ && $4 != \"\" {print $1, $3, $4}' to-label.tsv >> "
         "../qrels/test.tsv", "2"),
    ],
)  # fmt: skip
def test_the_printed_round_trip_appends_the_grades_and_the_rebuild_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make, judgments: str, append: str, grade: str
) -> None:  # type: ignore[no-untyped-def]
    if shutil.which("awk") is None or shutil.which("bash") is None:
        pytest.skip("needs awk and bash")
    project = make(tmp_path / "p")
    site = tmp_path / "site"
    _build(["build", "--project", str(project), "--out", str(site), "-q"])
    page = (site / "to-label.html").read_text("utf-8")
    assert _round_trip(page) == (judgments, append,
                                 "evidencedesk build --project . --compare-to results.json")  # fmt: skip
    assert ("(TREC qrels: qid 0 docid grade, by tabs)" in page) == (make is _trec_tabs_project)
    # step 1: the files saved in the project's folder, the first two rows graded
    shutil.copy(site / "results.json", project / "results.json")
    rows = (site / "data" / "to-label.tsv").read_text("utf-8").splitlines(keepends=True)
    graded = [r.split("\t") for r in rows[1:3]]
    for cells in graded:
        cells[3] = grade
    (project / "to-label.tsv").write_text(rows[0] + "".join("\t".join(c) for c in graded)
                                          + "".join(rows[3:]), "utf-8")  # fmt: skip
    before = (project / judgments).read_text("utf-8")
    # step 2: the append, in a shell, in the project's folder
    subprocess.run(["bash", "-c", append], cwd=project, check=True)
    added = (project / judgments).read_text("utf-8")[len(before) :].splitlines()
    trec = "test.tsv" not in judgments  # TREC's four columns, or BEIR's three
    sep = " " if judgments.endswith(".txt") else "\t"
    expected = [sep.join([c[0], c[1], c[2], grade] if trec else [c[0], c[2], grade])
                for c in graded]  # fmt: skip
    assert added == expected
    # step 3: the rebuild as printed, in the project's folder
    monkeypatch.chdir(project)
    _build(shlex.split(_round_trip(page)[2])[1:] + ["-q"])
    since = html.unescape(re.sub(r"<[^>]+>", " ", (project / "site" / "since.html").read_text(
        "utf-8")))  # fmt: skip
    said = " ".join(since.split())
    assert "· 2 label grades changed ·" in said
    for cells in graded:
        assert f"{cells[0]} : {cells[2]}: unlabelled → grade {grade}" in said
    before_total = int(re.search(r"(\d+) \(question, document\) pairs", page)[1])  # type: ignore[index]
    after = (project / "site" / "to-label.html").read_text("utf-8")
    assert int(re.search(r"(\d+) \(question, document\) pairs", after)[1]) == before_total - 2  # type: ignore[index]
