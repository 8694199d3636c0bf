"""`report.claims.value_paths`: each float and row of the Results by its first equal place, and
the paths numbered in the order the walk first reaches them (the marks' table)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evidencedesk.report._claims import value_paths
from evidencedesk.results._serialize import load


@dataclass(frozen=True)
class _Row:
    a: float
    b: float
    values: dict[object, float]


def test_equal_numbers_share_the_first_path_and_a_zero_is_told_by_its_sign() -> None:
    zero, minus_zero, nan = float("0"), float("-0"), float("nan")
    x, w, z = float("0"), float("1.5"), float("1.5")  # new objects, equal to zero and each other
    keyed = {"z": z, "x": x, "y": nan, "w": w, "q'd": float("2"), 3: float("4")}
    row = _Row(zero, minus_zero, keyed)
    table: dict[str, int] = {}
    found = value_paths(row, table)  # type: ignore[arg-type]
    assert found == {
        id(row): "", id(zero): "a", id(minus_zero): "b",
        id(w): "values['w']", id(x): "a", id(nan): "values['y']", id(z): "values['w']",
    }  # fmt: skip
    # the keys in order; a key a path cannot name (a quote in it, not text) is passed over
    assert table == {"": 0, "a": 1, "b": 2, "values['w']": 3, "values['y']": 4}


def test_two_rows_of_one_shape_number_their_new_values_alone() -> None:
    first = {"mrr": float("0.5"), "ndcg": float("0.25")}
    second = {"ndcg": float("0.25"), "mrr": float("0.75")}  # the same keys, in another order
    rows = (_Row(float("1"), float("2"), first), _Row(float("1"), float("2"), second))
    table: dict[str, int] = {}
    found = value_paths(rows, table)  # type: ignore[arg-type]
    assert table == {
        "[0]": 0, "[0].a": 1, "[0].b": 2, "[0].values['mrr']": 3, "[0].values['ndcg']": 4,
        "[1]": 5, "[1].values['mrr']": 6,
    }  # fmt: skip
    assert found[id(second["ndcg"])] == "[0].values['ndcg']"
    assert found[id(rows[1].a)] == "[0].a"


def test_above_the_page_limit_the_lists_of_questions_without_a_page_are_passed_over(
    split_site: Path,
) -> None:
    # 520 questions: each run's ranked lists of the questions with a page have their paths, the
    # others none (no page shows them); every other value keeps its path
    results = load(split_site / "results.json")
    chosen = results.plan.chosen
    assert chosen is not None and 0 < len(chosen) < len(results.inputs.questions)
    table: dict[str, int] = {}
    found = value_paths(results, table)
    listed = {int(i) for p in table for i in re.findall(r"^variants\[\d+\]\.lists\[(\d+)\]", p)}
    base = results.variants[0]
    shown = {i for i, r in enumerate(base.lists) if r.question in set(chosen)}
    assert listed == shown
    first = base.lists[min(shown)]
    assert found[id(first)] == f"variants[0].lists[{min(shown)}]"
    hidden = next(r for r in base.lists if r.question not in set(chosen))
    assert id(hidden) not in found
    assert found[id(base.metrics[0])] == "variants[0].metrics[0]"
