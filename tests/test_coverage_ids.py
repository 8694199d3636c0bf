"""The run checks read the judgments' ids once a build (`_coverage._judged`), and find a run's
unjudged top documents by hash with every equal hash confirmed on the ids (`unjudged_top`)."""

from __future__ import annotations

import numpy as np
import pytest

from evidencedesk.files.trec import TrecRun
from evidencedesk.retrieval import _coverage
from evidencedesk.retrieval._coverage import coverage, unjudged_top
from evidencedesk.retrieval._memos import build_memos

QRELS = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}, "q3": {}}
# q1's top 3: d9 (unjudged), d2 (judged 0), d8; q2: d1 (judged for q1), d9 again, d7;
# q4 is judged for no query: its documents are not read
RUN = TrecRun.from_dict(
    {
        "q1": {"d9": 3.0, "d2": 2.0, "d8": 1.0, "d5": 0.5},
        "q2": {"d1": 3.0, "d9": 2.0, "d7": 1.0},
        "q4": {"d6": 1.0},
    }
)


def test_the_unjudged_top_documents_in_run_order_each_once() -> None:
    assert unjudged_top(RUN, QRELS, 3) == ["d9", "d8", "d7"]
    assert unjudged_top(RUN, QRELS, 1) == ["d9"]


def test_an_equal_hash_of_other_bytes_is_looked_up_by_the_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every id hashes alike: each run document meets the hash of a judged id, and only its
    # text says whether it is one
    # (the run's ids are hashed here, the judged ones where the judge hashes them too)
    from evidencedesk.retrieval import trec_judge

    for module in (_coverage, trec_judge):
        monkeypatch.setattr(module, "doc_hashes", lambda ids: np.zeros(len(ids), dtype=np.uint64))
    assert unjudged_top(RUN, QRELS, 3) == ["d9", "d8", "d7"]


def test_a_build_reads_the_judgments_ids_once_for_every_run() -> None:
    with build_memos():
        first = _coverage._judged(QRELS, None)
        assert coverage(RUN, QRELS, 3) == coverage(RUN, QRELS, 3)
        assert _coverage._judged(QRELS, None) is first
        assert _coverage._judged(dict(QRELS), None) is not first  # other judgments: their own
    assert "every" not in vars(first)  # the ids as text: made only when a check needs them
    assert sorted(first.every) == ["d1", "d2", "d3"]
    assert first.queries == frozenset({"q1", "q2"})  # q3 grades nothing


def test_both_checks_of_a_run_look_its_top_ids_up_once_a_build_and_hold_it_weakly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc
    import weakref

    searched: list[int] = []
    real = _coverage._among

    def counting(hashes: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        searched.append(hashes.size)
        return real(hashes, known)

    monkeypatch.setattr(_coverage, "_among", counting)
    run = TrecRun.from_dict({"q1": {"d9": 3.0, "d2": 2.0, "d8": 1.0}, "q2": {"d1": 1.0}})
    with build_memos():
        assert coverage(run, QRELS, 3).judged_anywhere == 2  # d2, d1
        assert unjudged_top(run, QRELS, 3) == ["d9", "d8"]
        assert searched == [4]  # the 4 top ids, once for both
        assert unjudged_top(run, QRELS, 1) == ["d9"]  # another k: its own look-up
        assert unjudged_top(RUN, QRELS, 3) == ["d9", "d8", "d7"]  # another run: its own
        assert searched == [4, 2, 6]
        gone = weakref.ref(run)
        del run
        gc.collect()
        assert gone() is None  # the memo does not keep the run alive
    assert unjudged_top(RUN, QRELS, 3) == ["d9", "d8", "d7"]  # outside a build: afresh
    assert searched == [4, 2, 6, 6]


def test_an_id_judged_for_two_queries_is_one_judged_id() -> None:
    judged = _coverage._judged({"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}, ["d1", "d7"])
    assert sorted(judged.ids.tolist()) == [b"d1", b"d2", b"d7"]  # and the ids a labels file covers
    assert judged.known.tolist() == sorted(_coverage.doc_hashes(judged.ids).tolist())
    assert sorted(judged.every) == ["d1", "d2", "d7"]


def test_the_judge_and_the_checks_pad_and_hash_the_judged_ids_once_a_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evidencedesk.retrieval import trec_judge

    padded: list[int] = []
    real = trec_judge.fixed_width_of

    def counting(ids: list[str]) -> np.ndarray:
        padded.append(len(ids))
        return real(ids)

    monkeypatch.setattr(trec_judge, "fixed_width_of", counting)
    with build_memos():
        first = trec_judge._judged_ids(QRELS)
        judge = trec_judge._judgments(QRELS, ["q2", "q1", "q9"])  # another order, a question more
        assert coverage(RUN, QRELS, 3).judged_anywhere == 2
        assert trec_judge._judged_ids(QRELS) is first
    assert padded == [3]  # d1, d2 (q1), d3 (q2): once for both
    assert judge.ids.tolist() == [b"d3", b"d1", b"d2"]  # in the questions' order
    assert judge.every_q.tolist() == [0, 1, 1]
    assert first.starts == {"q1": 0, "q2": 2, "q3": 3}
    assert _coverage._judged(QRELS, None).known.tolist() == sorted(first.hashes.tolist())


def test_coverage_counts_the_judged_top_documents() -> None:
    # the top 3 of q1 and q2: 6 documents, of which d2 and d1 are judged for some query
    assert coverage(RUN, QRELS, 3).to_dict() == {
        "judged_queries": 2,
        "answered": 2,
        "run_queries": 3,
        "k": 3,
        "top": 6,
        "judged_anywhere": 2,
    }


@pytest.mark.parametrize(
    ("hashes", "known", "expected"),
    [
        ([5, 1, 9, 7], [1, 5, 7], [True, True, False, True]),  # above every known one
        ([0, 2], [1, 5], [False, False]),  # below and between
        ([3, 3], [3], [True, True]),
        ([4], [], [False]),  # nothing known
        ([], [1, 2], []),
        ([2**64 - 1], [1, 2**64 - 1], [True]),  # the largest 64-bit hash
    ],
)
def test_among_finds_each_hash_in_the_known_ones(
    hashes: list[int], known: list[int], expected: list[bool]
) -> None:
    from evidencedesk.retrieval._coverage import _among

    known_hashes = np.array(known, dtype=np.uint64)
    at, found = _among(np.array(hashes, dtype=np.uint64), known_hashes)
    assert found.dtype == np.bool_ and found.tolist() == expected
    # where a hash is there, `at` is its place among the known ones
    assert [known[i] for i, hit in zip(at.tolist(), expected, strict=True) if hit] == [
        h for h, hit in zip(hashes, expected, strict=True) if hit
    ]
