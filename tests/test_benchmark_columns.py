"""The benchmark table of the overview: the four columns of the project's kind, then each reported
metric that is not one of them with its interval, the primary first (the metric every verdict is
decided on)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import evidencedesk
from tests.synthetic_runs import write_project

QRELS = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
RUNS = {"base": {"q1": ["d1", "x", "d2"], "q2": ["x", "d3"]},
        "cand": {"q1": ["d1", "d2"], "q2": ["d3"]}}  # fmt: skip


def _header_and_base_row(site: Path) -> tuple[list[str], list[str]]:
    page = (site / "index.html").read_text("utf-8")
    table = page[page.index('<table class="sortable" id="benchmark-table">') :]
    table = table[: table.index("</table>")]
    head = [
        re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th scope=\"col\"[^>]*>(.*?)</th>", table)
    ]
    row = table[table.index('<tr id="v-base">') :]
    row = row[: row.index("</tr>")]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
    return head, cells


@pytest.mark.parametrize(
    ("primary", "header", "cells"),
    [
        (
            "map",
            ["Run", "R@10", "P@10", "MRR", "95 % interval", "nDCG@10 (linear gain)", "MAP",
             "95 % interval", "Flips vs baseline base"],
            # base: MAP q1 (1/1 + 2/3) / 2 = 0.833, q2 1/2: 0.667; nDCG@10 q1 (1 + 1/log2 4) /
            # (1 + 1/log2 3) = 0.920, q2 (1/log2 3) / 1 = 0.631: 0.775
            ["1.000", "0.150", "0.750", "[0.500, 1.000]", "0.775", "0.667", "[0.500, 0.833]", "—"],
        ),
        (  # MAP is reported, not primary: a column all the same
            "mrr",
            ["Run", "R@10", "P@10", "MRR", "95 % interval", "nDCG@10 (linear gain)", "MAP",
             "95 % interval", "Flips vs baseline base"],
            ["1.000", "0.150", "0.750", "[0.500, 1.000]", "0.775", "0.667", "[0.500, 0.833]", "—"],
        ),
    ],
)  # fmt: skip
def test_every_reported_metric_has_a_column(
    tmp_path: Path, primary: str, header: list[str], cells: list[str]
) -> None:
    toml = write_project(tmp_path / "p", QRELS, RUNS, relevance=1,
                         report=f'metrics = ["map", "mrr"]\nprimary = "{primary}"')  # fmt: skip
    evidencedesk.build(project=toml, out=tmp_path / "site")
    assert _header_and_base_row(tmp_path / "site") == (header, cells)
