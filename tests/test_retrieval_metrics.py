"""Ranking metrics: SPEC section 4 worked example, undefined-not-zero, names, slices, properties."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk._metric_names import METRIC_FORMS
from evidencedesk.errors import UnknownNameError
from evidencedesk.retrieval._metric_engine import lines_of
from evidencedesk.retrieval.metrics import (
    Judged,
    _average_precision,
    _bpref,
    _condense,
    _hit_at,
    _metric_value,
    _of_judged,
    _r_precision,
    by_tag,
    by_tag_all,
    dcg,
    gain,
    judge_run,
    ndcg_at,
    per_question,
    per_question_all,
    precision_at,
    recall_at,
    reciprocal_rank,
    summarize,
)

EXAMPLE = Judged("ex", ("direct",), True, (0, 2, 1, 0, 2), (2, 2, 1))


def judged(qid: str, grades, pool, tags=("direct",)) -> Judged:
    return Judged(qid, tuple(tags), any(g >= 2 for g in pool), tuple(grades), tuple(pool))


# -- the worked example -----------------------------------------------------------------------


def test_worked_example_recall_precision_rr() -> None:
    assert [recall_at(EXAMPLE, k) for k in (1, 2, 5)] == [0.0, 0.5, 1.0]
    assert [precision_at(EXAMPLE, k) for k in (1, 2, 5)] == [0.0, 0.5, 0.4]
    assert reciprocal_rank(EXAMPLE) == 0.5


def test_worked_example_ndcg_both_variants() -> None:
    exp = ndcg_at(EXAMPLE, 5)
    linear = ndcg_at(EXAMPLE, 5, "linear")
    assert exp is not None and linear is not None
    assert f"{exp:.3f}" == "0.659"
    assert f"{linear:.3f}" == "0.674"
    # by hand: DCG exp = 3/log2 3 + 1/log2 4 + 3/log2 6; ideal = 3 + 3/log2 3 + 1/log2 4
    by_hand = (3 / math.log2(3) + 0.5 + 3 / math.log2(6)) / (3 + 3 / math.log2(3) + 0.5)
    assert exp == pytest.approx(by_hand, abs=1e-12)
    ideal_first = Judged("ex", (), True, (2, 2, 1, 0, 0), (2, 2, 1))
    assert f"{ndcg_at(ideal_first, 5):.3f}" == "1.000"
    assert ndcg_at(ideal_first, 5, "linear") == pytest.approx(1.0, abs=1e-15)


def test_gain_and_dcg() -> None:
    assert [gain(g) for g in (0, 1, 2, 3)] == [0.0, 1.0, 3.0, 7.0]
    assert [gain(g, "linear") for g in (0, 1, 2)] == [0.0, 1.0, 2.0]
    assert dcg([2, 1], "linear") == pytest.approx(2 + 1 / math.log2(3))
    for bad in ("burges", "", "EXP"):
        with pytest.raises(ValueError, match="unknown nDCG gain"):
            gain(1, bad)
        with pytest.raises(ValueError):
            ndcg_at(EXAMPLE, 5, bad)


def test_worked_example_ap_rprec_mrr_at_k_and_ndcg_over_the_whole_list() -> None:
    # relevant at ranks 2 and 5, R = 2: AP = (1/2 + 2/5) / 2; AP@k divides by R, not min(R, k)
    assert _average_precision(EXAMPLE) == 0.45
    assert [_average_precision(EXAMPLE, k) for k in (1, 2, 4, 5)] == [0.0, 0.25, 0.25, 0.45]
    assert _r_precision(EXAMPLE) == 0.5  # one of the top R = 2 is relevant
    assert [reciprocal_rank(EXAMPLE, k) for k in (1, 2, 10)] == [0.0, 0.5, 0.5]
    # a longer list than the pool: the whole list's nDCG reads rank 6 too, nDCG@5 does not
    longer = Judged("ex", (), True, (0, 2, 1, 0, 0, 2), (2, 2, 1))
    by_hand = (3 / math.log2(3) + 1 / math.log2(4) + 3 / math.log2(7)) / (
        3 + 3 / math.log2(3) + 1 / math.log2(4)
    )
    assert ndcg_at(longer, None) == pytest.approx(by_hand, abs=1e-15)
    assert ndcg_at(longer, 5) == pytest.approx(
        (3 / math.log2(3) + 0.5) / (3 + 3 / math.log2(3) + 0.5), abs=1e-15
    )
    assert _metric_value(longer, "ndcg") == ndcg_at(longer, None)
    assert _metric_value(longer, "ndcg:linear") == ndcg_at(longer, None, "linear")
    assert _metric_value(longer, "AP") == _metric_value(longer, "map") == _average_precision(longer)


@pytest.mark.parametrize(
    ("judged_flags", "negative", "expected"),
    [
        # ranks 1, 3, 4 judged non-relevant (N = 3, R = 2): rank 2 scores 1 - 1/2, rank 5 0
        (None, None, 0.25),
        # ranks 1 and 4 unjudged: they count neither way: rank 2 scores 1, rank 5 1 - 1/2
        ((False, True, True, False, True), None, 0.75),
        # rank 1 graded below 0: skipped as trec_eval skips it: rank 2 1, rank 5 1 - 2/2
        (None, (True, False, False, False, False), 0.5),
    ],
)
def test_bpref_by_hand(judged_flags, negative, expected: float) -> None:  # type: ignore[no-untyped-def]
    j = Judged("ex", (), True, (0, 2, 1, 0, 2), (2, 2, 1), judged=judged_flags,
               nonrelevant=3, negative=negative)  # fmt: skip
    assert _bpref(j) == expected
    assert _of_judged([j], ["bpref"]) == {"bpref": [expected]}


def test_bpref_without_judged_non_relevant_documents_is_one_per_relevant_found() -> None:
    j = Judged("q", (), True, (0, 2, 0), (2, 2), judged=(False, True, False), nonrelevant=0)
    assert _bpref(j) == 0.5  # one of two relevant found, nothing judged non-relevant above it
    # N smaller than the judged non-relevant results the list holds: N is at least those
    short = Judged("q", (), True, (0, 2), (2,), nonrelevant=0)
    assert _bpref(short) == 0.0 == _of_judged([short], ["bpref"])["bpref"][0]


def test_bpref_needs_the_number_of_judged_non_relevant_documents() -> None:
    with pytest.raises(ValueError, match="Judged.nonrelevant"):
        _bpref(EXAMPLE)
    with pytest.raises(ValueError, match="judged non-relevant documents for bpref"):
        _of_judged([EXAMPLE], ["bpref"])
    assert _bpref(Judged("u", (), False, (0,), ())) is None  # undefined before N is read


def test_condense_keeps_the_negative_flags_of_the_results_it_keeps() -> None:
    j = Judged("q", (), True, (0, 0, 2, 0), (2,), ids=("a", "b", "c", "d"),
               judged=(False, True, True, True), nonrelevant=2,
               negative=(False, True, False, False))  # fmt: skip
    kept = _condense(j)
    assert (kept.ids, kept.negative, kept.judged) == (("b", "c", "d"), (True, False, False), None)
    assert _bpref(kept) == _bpref(j) == 1.0  # bpref ignores unjudged results: the same either way


# -- undefined is None, not zero --------------------------------------------------------------


def test_unanswerable_question_is_undefined_for_every_metric() -> None:
    unanswerable = Judged("u1", ("unanswerable",), False, (1, 0, 0), (1, 1))
    for value in (
        recall_at(unanswerable, 3),
        precision_at(unanswerable, 3),
        _hit_at(unanswerable, 3),
        reciprocal_rank(unanswerable),
        ndcg_at(unanswerable, 3),
        ndcg_at(unanswerable, 3, "linear"),
        ndcg_at(unanswerable, None),
        reciprocal_rank(unanswerable, 2),
        _average_precision(unanswerable),
        _average_precision(unanswerable, 2),
        _r_precision(unanswerable),
        _bpref(unanswerable),
    ):
        assert value is None


def test_undefined_questions_are_left_out_of_means_and_counted() -> None:
    found = judged("a", (2, 0), (2,))
    missed = judged("b", (0, 0), (2,))
    empty = Judged("u", ("unanswerable",), False, (0, 0), ())
    result = summarize([found, missed, empty], ["mrr", "recall@1", "precision@2", "ndcg@2"])
    assert result["mrr"].value == 0.5  # (1 + 0) / 2, not (1 + 0 + 0) / 3
    assert (result["mrr"].n, result["mrr"].left_out) == (2, 1)
    assert result["recall@1"].value == 0.5
    assert result["precision@2"].value == 0.25
    assert result["mrr"].to_dict() == {"name": "mrr", "value": 0.5, "n": 2, "left_out": 1}
    only_empty = summarize([empty], ["mrr"])["mrr"]
    assert (only_empty.value, only_empty.n, only_empty.left_out) == (None, 0, 1)


def test_missed_question_scores_zero_not_none() -> None:
    missed = judged("b", (0, 1), (2, 1))
    assert reciprocal_rank(missed) == 0.0
    assert recall_at(missed, 2) == 0.0
    assert ndcg_at(missed, 2) == pytest.approx(1 / math.log2(3) / (3 + 1 / math.log2(3)))


def test_precision_divides_by_k_on_a_short_list() -> None:
    short = judged("s", (2,), (2, 2))
    assert precision_at(short, 1) == 1.0
    assert precision_at(short, 5) == 0.2
    assert recall_at(short, 5) == 0.5


def test_relevance_threshold_is_per_judged() -> None:
    lenient = Judged("l", (), True, (1, 0), (1,), relevant=1)
    assert reciprocal_rank(lenient) == 1.0
    assert reciprocal_rank(Judged("s", (), True, (1, 0), (1,))) is None


@pytest.mark.parametrize("k", [0, -1])
def test_bad_cutoff(k: int) -> None:
    with pytest.raises(ValueError, match="k >= 1"):
        recall_at(EXAMPLE, k)


# -- names, per question, slices --------------------------------------------------------------


def test_unknown_metric_name_lists_the_valid_forms() -> None:
    for bad in ("mapp", "recall", "recall@0", "mrr@0", "ndcg@5:burges", "recall@3:linear"):
        with pytest.raises(UnknownNameError) as info:
            summarize([EXAMPLE], [bad])
        assert isinstance(info.value, ValueError)
        for form in METRIC_FORMS:
            assert form in str(info.value)


def test_all_forms_parse() -> None:
    names = ["recall@3", "precision@3", "hit@3", "mrr", "ndcg@5", "ndcg@5:linear", "ndcg@5:exp",
             "mrr@1", "map", "map@2", "rprec", "ndcg", "ndcg:linear"]  # fmt: skip
    result = summarize([EXAMPLE], names)
    assert list(result) == names
    assert result["hit@3"].value == 1.0
    assert result["ndcg@5:exp"].value == result["ndcg@5"].value
    assert [result[n].value for n in ("mrr@1", "map", "map@2", "rprec")] == [0.0, 0.45, 0.25, 0.5]


def test_other_tools_names_are_keys_of_their_own_summaries() -> None:
    # a notebook keyed by the names it asked for, valued as evidencedesk's own names
    theirs = summarize([EXAMPLE], ["AP", "map_cut_2", "Rprec", "recip_rank", "P_5", "ndcg_cut_5"])
    ours = summarize([EXAMPLE], ["map", "map@2", "rprec", "mrr", "precision@5", "ndcg@5:linear"])
    assert [s.value for s in theirs.values()] == [s.value for s in ours.values()]
    assert list(theirs) == ["AP", "map_cut_2", "Rprec", "recip_rank", "P_5", "ndcg_cut_5"]
    assert per_question([EXAMPLE], "RR@1") == {"ex": 0.0}


def test_per_question_leaves_undefined_out_and_per_question_all_keeps_them() -> None:
    rows = [
        judged("z", (2,), (2,)),
        Judged("u", (), False, (0,), ()),
        judged("m", (0, 0), (2,)),  # missed: 0, defined
        judged("a", (0, 2), (2,)),
    ]
    values = per_question(rows, "mrr")
    assert values == {"z": 1.0, "m": 0.0, "a": 0.5} and list(values) == ["z", "m", "a"]
    assert sum(values.values()) / len(values) == 0.5 == summarize(rows, ["mrr"])["mrr"]
    assert per_question_all(rows, "mrr") == {"z": 1.0, "u": None, "m": 0.0, "a": 0.5}
    assert list(per_question_all(rows, "mrr")) == ["z", "u", "m", "a"]
    assert per_question([Judged("u", (), False, (0,), ())], "recall@3") == {}


def test_by_tag_counts_two_tag_questions_in_both_and_sorts() -> None:
    rows = [
        judged("a", (2,), (2,), tags=("paraphrase", "bangla")),
        judged("b", (0, 2), (2,), tags=("direct",)),
        judged("c", (0, 0), (2,), tags=("bangla",)),
        Judged("u", ("unanswerable",), False, (0,), ()),
    ]
    slices = by_tag(rows, "mrr")
    # the values may be given: per judged question in order, or as per_question's dict, where a
    # question left out is undefined
    assert by_tag(rows, "mrr", [1.0, 0.5, 0.0, None]) == slices
    assert by_tag(rows, "mrr", per_question(rows, "mrr")) == slices
    # a tag with no defined question is left out; by_tag_all keeps it as (None, 0)
    assert by_tag(rows, "mrr", {"a": 1.0}) == {"bangla": (1.0, 1), "paraphrase": (1.0, 1)}
    assert by_tag_all(rows, "mrr", {"a": 1.0}) == {
        "bangla": (1.0, 1),
        "direct": (None, 0),
        "paraphrase": (1.0, 1),
        "unanswerable": (None, 0),
    }
    assert list(slices) == ["bangla", "direct", "paraphrase"]
    assert slices["bangla"] == (0.5, 2)
    assert slices["paraphrase"] == (1.0, 1)
    assert slices["direct"] == (0.5, 1)
    assert by_tag_all(rows, "mrr")["unanswerable"] == (None, 0)
    # a tag a question carries twice counts it once
    twice = [judged("a", (2,), (2,), tags=("bangla", "bangla")), rows[2]]
    assert by_tag_all(twice, "mrr") == {"bangla": (0.5, 2)}


def test_judged_to_dict() -> None:
    d = Judged("q", ("a",), True, (2,), (2,), ids=("kc:c0",)).to_dict()
    assert d == {
        "id": "q",
        "tags": ["a"],
        "answerable": True,
        "grades": [2],
        "pool": [2],
        "ids": ["kc:c0"],
        "relevant": 2,
    }


# -- judge_run against a fake searcher --------------------------------------------------------


@dataclass(frozen=True)
class _Chunk:
    id: str


@dataclass(frozen=True)
class _Cand:
    rank: int
    score: float
    chunk: _Chunk


@dataclass
class _Label:
    id: str
    question: str
    tags: tuple[str, ...]
    answerable: bool
    grades: dict[str, int] = field(default_factory=dict)

    def grade_of(self, chunk: _Chunk | str) -> int:
        return self.grades.get(chunk if isinstance(chunk, str) else chunk.id, 0)


class _Catalog:
    def __init__(self) -> None:
        self.scopes: list[object] = []

    def allowed(self, scope: object = None) -> frozenset[str]:
        self.scopes.append(scope)
        return frozenset({"d:c0", "d:c1", "d:c2"})


class _Searcher:
    name = "fake"

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, frozenset[str] | None]] = []

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[_Cand]:
        self.calls.append((query, k, allowed))
        ids = sorted(allowed or ())[:k]
        return [_Cand(i, 1.0 / i, _Chunk(c)) for i, c in enumerate(ids, start=1)]


def test_judge_run_uses_allowed_pool_and_label_grades() -> None:
    labels = [
        _Label("q1", "where?", ("direct",), True, {"d:c1": 2, "x:c9": 2, "d:c2": 1}),
        _Label("q2", "nothing", ("unanswerable",), False, {}),
    ]
    catalog, searcher = _Catalog(), _Searcher()
    rows = judge_run(searcher, catalog, labels, scope="S", k=2)
    assert catalog.scopes == ["S"]  # allowed computed once
    assert [c[:2] for c in searcher.calls] == [("where?", 2), ("nothing", 2)]
    first = rows[0]
    assert first.grades == (0, 2) and first.ids == ("d:c0", "d:c1")
    assert first.pool == (2, 1)  # x:c9 is not allowed
    assert first.tags == ("direct",) and first.answerable
    assert reciprocal_rank(first) == 0.5 and recall_at(first, 2) == 1.0
    assert reciprocal_rank(rows[1]) is None
    # a labels file grades every chunk: N = the allowed chunks without a relevant grade
    assert (first.nonrelevant, first.negative, first.judged) == (2, None, None)


def test_judge_run_keeps_negative_grades_apart_for_bpref() -> None:
    label = _Label("q1", "where?", ("direct",), True, {"d:c0": -2, "d:c1": 2})
    (row,) = judge_run(_Searcher(), _Catalog(), [label], k=3)
    assert row.grades == (0, 2, 0) and row.negative == (True, False, False)
    assert row.nonrelevant == 1  # d:c2 only: d:c0 is graded below 0, d:c1 relevant
    assert _bpref(row) == 1.0  # the -2 above the relevant chunk counts neither way


# -- properties -------------------------------------------------------------------------------

grades_st = st.lists(st.integers(0, 3), max_size=12)


@st.composite
def consistent_judged(draw: st.DrawFn) -> Judged:
    """A returned list drawn from a pool: every returned grade is one of the pool's chunks."""
    pool = draw(st.lists(st.integers(0, 3), min_size=1, max_size=15))
    order = draw(st.permutations(list(range(len(pool)))))
    n = draw(st.integers(0, len(pool)))
    extra = draw(st.integers(0, 3))  # unjudged results (grade 0)
    grades = [pool[i] for i in order[:n]] + [0] * extra
    positions = draw(st.permutations(list(range(len(grades)))))
    grades = [grades[i] for i in positions]
    return Judged("q", (), True, tuple(grades), tuple(sorted(pool, reverse=True)))


@given(consistent_judged(), st.integers(1, 20))
def test_every_metric_is_in_unit_interval(j: Judged, k: int) -> None:
    for value in (
        recall_at(j, k),
        precision_at(j, k),
        _hit_at(j, k),
        reciprocal_rank(j),
        ndcg_at(j, k),
        ndcg_at(j, k, "linear"),
    ):
        assert value is None or 0.0 <= value <= 1.0 + 1e-12
    assert (recall_at(j, k) is None) == (not any(g >= 2 for g in j.pool))


@given(st.lists(st.integers(0, 3), min_size=1, max_size=15), st.integers(1, 20))
def test_ideal_order_has_ndcg_one(pool: list[int], k: int) -> None:
    ideal = tuple(sorted(pool, reverse=True))
    j = Judged("q", (), True, ideal, ideal)
    for variant in ("exp", "linear"):
        value = ndcg_at(j, k, variant)
        assert value is None or value == pytest.approx(1.0, abs=1e-12)
    if any(g >= 2 for g in pool):
        assert ndcg_at(j, k) is not None


@given(consistent_judged())
def test_recall_is_monotone_in_k(j: Judged) -> None:
    values = [recall_at(j, k) for k in range(1, 20)]
    if values[0] is not None:
        assert all(a <= b for a, b in zip(values, values[1:], strict=False))


# -- the one engine against the per-question definitions --------------------------------------

# every registered metric's column against its reference, bit for bit: test_every_metric.py


def test_engine_worked_example_and_an_unsorted_pool() -> None:
    # pool given in any order: the engine sorts the ideal list itself, like ndcg_at
    shuffled = Judged("ex", (), True, (0, 2, 1, 0, 2), (1, 2, 2))
    assert _of_judged([EXAMPLE, shuffled], ["ndcg@5", "ndcg@5:linear", "mrr"]) == {
        "ndcg@5": [ndcg_at(EXAMPLE, 5), ndcg_at(EXAMPLE, 5)],
        "ndcg@5:linear": [ndcg_at(EXAMPLE, 5, "linear")] * 2,
        "mrr": [0.5, 0.5],
    }
    assert round(_of_judged([EXAMPLE], ["ndcg@5"])["ndcg@5"][0], 3) == 0.659
    assert _of_judged([], ["mrr"]) == {"mrr": []}
    with pytest.raises(UnknownNameError):
        _of_judged([EXAMPLE], ["ndcg@0"])


def test_engine_converts_the_same_judged_objects_once_in_a_build() -> None:
    from evidencedesk.retrieval._memos import build_memos

    a = [judged("a", (0, 2), (2,)), judged("b", (2,), (2, 1))]
    assert lines_of(a) is not lines_of(a)  # outside a build nothing is kept
    with build_memos():
        _in_a_build(a)


def _in_a_build(a: list[Judged]) -> None:
    first = lines_of(a)
    assert lines_of(tuple(a)) is first  # the same objects in another container: no new arrays
    assert lines_of(a[:1]) is not first
    twin = [judged("a", (0, 2), (2,)), judged("b", (2,), (2, 1))]  # equal, but other objects
    again = lines_of(twin)
    assert again is not first and again.grade.tolist() == first.grade.tolist() == [0, 2, 2]
