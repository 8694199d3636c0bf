"""The first relevant rank a question page and the per-question exports show
(`_compute.first_relevant`), hand-worked."""

from __future__ import annotations

import pytest

from evidencedesk.results._compute import first_relevant
from evidencedesk.retrieval.metrics import Judged


@pytest.mark.parametrize(
    ("grades", "relevant", "rank"),
    [
        ((0, 1, 3, 2), 2, 3),  # a 3 at rank 3 comes before the 2 at rank 4
        ((0, 2, 3, 2), 2, 2),  # the first of two 2s
        ((0, 1, 1), 2, None),  # nothing reaches the threshold
        ((0, 1, 1), 1, 2),  # a lower threshold
        ((-2, 0, 2), 2, 3),  # a negative (junk) grade is never relevant
        ((), 2, None),  # an empty list
    ],
)
def test_the_first_result_at_or_above_the_threshold(
    grades: tuple[int, ...], relevant: int, rank: int | None
) -> None:
    j = Judged("q1", (), True, grades, (2,), relevant=relevant)
    assert first_relevant(j) == rank
