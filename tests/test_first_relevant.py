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


@pytest.mark.parametrize("relevant", [1, 2, 3])
def test_a_judges_lists_give_each_first_relevant_rank_from_their_arrays(relevant: int) -> None:
    """`ranked_lists` reads the first relevant rank of a judge's lists from the arrays the
    metrics read: the same rank `first_relevant` finds in each list (q3 is not in the run,
    d9 of q1 has a negative grade, q2's documents past its top 2 are unjudged)."""
    from evidencedesk.files.trec import TrecRun
    from evidencedesk.results._compute import _first_relevant_ranks
    from evidencedesk.retrieval.trec_judge import judge_trec_run

    run = TrecRun.from_dict({
        "q1": {"d9": 0.9, "d1": 0.8, "d2": 0.7, "d3": 0.6},
        "q2": {"d4": 0.9, "d5": 0.5, "d6": 0.4, "d7": 0.3},
    })  # fmt: skip
    qrels = {"q1": {"d9": -1, "d1": 1, "d2": 3, "d3": 2}, "q2": {"d4": 0, "d5": 1},
             "q3": {"d1": 3}}  # fmt: skip
    judged = judge_trec_run(run, qrels, relevant=relevant)
    ranks = {1: [2, 2, None], 2: [3, None, None], 3: [3, None, None]}[relevant]
    assert [first_relevant(j) for j in judged] == ranks
    assert _first_relevant_ranks(judged) == ranks
    assert _first_relevant_ranks(tuple(judged)) is None  # plain lists: found list by list
