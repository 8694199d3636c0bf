"""A depth below final, as the site says it: the final list is capped by the depth.

Wherever such a configuration appears — a candidate's config change, an ablation row, a cell of
the sizing grid (left out of the sweep: it repeats its depth x depth row) — the words say
"final 5, capped at depth 3". Configurations with depth >= final read as before.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.paths import DATA
from evidencedesk.report._assemble import _left_out_cells, ablations
from evidencedesk.report._candidate import diff_rows
from evidencedesk.results import types as r
from evidencedesk.results._settings import (
    _COMPARED,
    _PIPELINE_COLUMNS,
    _PIPELINE_DESIGN,
    Settings,
)
from evidencedesk.results.types import ConfigChange
from tests.page_text import visible


def diff(*changes: tuple[str, str, str]) -> tuple[ConfigChange, ...]:
    return tuple(ConfigChange(*c) for c in changes)


@pytest.mark.parametrize(
    ("changes", "shown"),
    [
        (
            diff(("reranker", "none", "pair"), ("depth", "10", "3"), ("final", "3", "5")),
            [("reranker", "pair"), ("depth", "3 (final 5, capped at depth 3)"), ("final", "5")],
        ),
        (diff(("depth", "10", "2")), [("depth", "2 (final 3, capped at depth 2)")]),
        (diff(("final", "3", "12")), [("final", "12 (final 12, capped at depth 10)")]),
        (diff(("depth", "10", "3")), [("depth", "3")]),  # depth 3 = final 3: not capped
        (diff(("max_words", "None", "8")), [("max_words", "8")]),
        (diff(("run", "base", "bm25")), [("run", "bm25")]),  # a runs-only project's diff
    ],
)
def test_a_candidate_s_config_change_says_the_final_list_is_capped(changes, shown) -> None:
    assert [(d.field, d.candidate) for d in diff_rows(changes)] == shown


def _settings(ablation_base: dict[str, object]) -> Settings:
    design = dataclasses.replace(_PIPELINE_DESIGN, ablation_base=ablation_base)
    return Settings(0, 2, "pipeline", _PIPELINE_COLUMNS, _COMPARED, "mrr", design)


def _row(changes: dict[str, object]) -> r.AblationResult:
    metrics = {m.name: 0.5 for m in _PIPELINE_COLUMNS}
    return r.AblationResult(changes, metrics, 0.0, (), (), 21, 1.0, r.RunCosts(3.0, 200.0, 8.5))


@pytest.mark.parametrize(
    ("base", "changes", "shown"),
    [
        ({"reranker": "pair", "final": 5}, {"depth": 3}, "depth=3 (final 5, capped at depth 3)"),
        ({"reranker": "pair", "final": 5}, {"max_words": 8}, "max_words=8"),
        ({"reranker": "feature"}, {"depth": 3}, "depth=3"),  # the demo's: depth 3 = final 3
        ({"reranker": "feature"}, {"final": 20}, "final=20 (final 20, capped at depth 10)"),
        (
            {"reranker": "feature"},
            {"depth": 2, "final": 4},
            "depth=2, final=4 (final 4, capped at depth 2)",
        ),
    ],
)
def test_an_ablation_row_says_the_final_list_is_capped(base, changes, shown) -> None:
    table = r.Ablations("base label", (_row({}), _row(changes)))
    rows = ablations(table, _settings(base)).rows
    assert [row.change for row in rows] == ["base", shown]


@pytest.mark.parametrize(
    ("depths", "finals", "sentence"),
    [
        (
            (3, 5, 10, 20),
            (1, 3, 5),
            " Depth 3 × final 5 is not run: its final list is capped by the depth (final 5, "
            "capped at depth 3), so it is the same run as depth 3 × final 3.",
        ),
        (
            (3, 10),
            (5, 20),
            " Not run, since a final list is capped by the depth and each is the same run as its "
            "depth × depth cell: depth 3 × final 5 (final 5, capped at depth 3); depth 3 × final "
            "20 (final 20, capped at depth 3); depth 10 × final 20 (final 20, capped at depth 10).",
        ),
        ((10, 20), (1, 3, 5), ""),
    ],
)
def test_the_sizing_note_names_the_cells_the_sweep_leaves_out(depths, finals, sentence) -> None:
    design = dataclasses.replace(_PIPELINE_DESIGN, sizing_depths=depths, sizing_finals=finals)
    assert _left_out_cells(design.skipped_cells) == sentence


def _text(path: Path) -> str:
    return visible(path.read_text("utf-8"), unescape=True)


def test_the_built_site_says_it_on_the_candidate_and_sizing_pages(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    with (data / "candidates.toml").open("a", encoding="utf-8") as f:
        f.write(
            '\n[[candidate]]\nname = "three pairs, five asked"\n'
            'rationale = "Score three pairs and ask for five chunks."\n'
            'changes = { reranker = "pair", depth = 3, final = 5 }\n'
        )
    results = evidencedesk.build(project=data / "evidencedesk.toml", out=tmp_path / "site")
    [page] = (tmp_path / "site").glob("candidate-three-pairs-five-asked-*.html")
    text = _text(page)
    assert "reranker none pair depth 10 3 (final 5, capped at depth 3) final 3 5" in text
    [cand] = [c for c in results.candidates if c.name == "three pairs, five asked"]
    assert [d.candidate for d in cand.diff] == ["pair", "3", "5"]  # results hold the values
    assert cand.costs.pairs_per_question == 3.0
    assert all(len(lst.ids) <= 3 for lst in cand.ranked(results))
    sizing = _text(tmp_path / "site" / "sizing.html")
    assert "Depth 3 × final 5 is not run: its final list is capped by the depth" in sizing
