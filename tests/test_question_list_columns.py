"""The question list shows a column only when it can hold something: Tags when a question has a
tag, Critical when the gate policy names a critical question. Its page's header and first rows
and its script's data (which draws every row with JavaScript) agree on the columns, and the
audit holds both to results.json."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._audit import audit
from tests.synthetic_runs import write_project

QRELS = {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 1}}
LISTS = {"q1": ["d1"], "q2": ["x", "d2"], "q3": ["d3"]}
CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)


def _build(tmp_path: Path, policy: dict[str, object] | None, tags: bool) -> Path:
    project = write_project(tmp_path / "p", QRELS, {"base": LISTS, "cand": LISTS},
                            policy=policy, tags={"q2": ["long"]} if tags else None)  # fmt: skip
    evidencedesk.build(project=project, out=tmp_path / "site")
    return tmp_path / "site"


@pytest.mark.parametrize(
    ("policy", "tags", "columns", "q2_cells"),
    [
        (None, False, ["Question", "Text", "Changed by", "Pass"], ["question q2", "", "pass"]),
        (None, True, ["Question", "Text", "Tags", "Changed by", "Pass"],
         ["question q2", '<span class="tag">long</span> ', "", "pass"]),
        ({"k": 3}, False, ["Question", "Text", "Changed by", "Pass"], ["question q2", "", "pass"]),
        ({"k": 3, "critical": ["q2"]}, False, ["Question", "Text", "Critical", "Changed by", "Pass"],
         ["question q2", '<span class="tag tag-critical">critical</span>', "", "pass"]),
    ],
)  # fmt: skip
def test_the_list_shows_the_columns_that_hold_something(
    tmp_path: Path, policy: dict[str, object] | None, tags: bool, columns: list[str],
    q2_cells: list[str],
) -> None:  # fmt: skip
    site = _build(tmp_path, policy, tags)
    page = (site / "questions.html").read_text("utf-8")
    head = page.split('<table id="question-list"')[1].split("</thead>")[0]
    assert re.findall(r'<th scope="col">(.*?)</th>', head) == columns
    row = page.split('<a class="qid" href="question-q2.html">q2</a></th>')[1].split("</tr>")[0]
    assert CELL.findall(row) == q2_cells
    script = (site / "data" / "question-list.js").read_text("utf-8")
    data = json.loads(script.removeprefix("window.EVIDENCEDESK_QUESTIONS = ").rstrip().rstrip(";"))
    assert data["columns"] == columns
    # the lede names only what the list shows
    assert ("their tags, " in page) == tags
    assert ("whether the gate calls them critical" in page) == ("Critical" in columns)
    found, _, _ = audit(site)
    assert found == []


def test_the_audit_catches_a_column_the_project_gives_nothing_to(tmp_path: Path) -> None:
    """A Critical column on a list of a project whose policy names no critical question (the
    page's header and its script's data), each caught on its own."""
    site = _build(tmp_path, {"k": 3}, tags=False)
    for name, old, new in [
        ("questions.html", '<th scope="col">Changed by</th>',
         '<th scope="col">Critical</th><th scope="col">Changed by</th>'),
        ("data/question-list.js", '"columns":["Question","Text","Changed by","Pass"]',
         '"columns":["Question","Text","Critical","Changed by","Pass"]'),
    ]:  # fmt: skip
        copy = tmp_path / f"copy-{name.replace('/', '-')}"
        shutil.copytree(site, copy)
        text = (copy / name).read_text("utf-8")
        assert old in text
        (copy / name).write_text(text.replace(old, new), "utf-8")
        found, _, _ = audit(copy)
        assert [d.line() for d in found] == [
            f"{name}: 'columns Question, Text, Critical, Changed by, Pass': results.json says "
            "Question, Text, Changed by, Pass (inputs.questions' tags, the policy's critical "
            "questions)"
        ]
