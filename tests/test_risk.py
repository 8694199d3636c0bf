"""Risk statements from the config: a candidate that filters after ranking says what the
pre-filter protects (marked chunks that reached its candidate lists, linked), whatever the metrics."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from evidencedesk.report._candidate import risk
from evidencedesk.results._inputs import exposure
from evidencedesk.results.types import Exposure
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.parts import Parts


def _chunk(cid: str, visibility: str = "public", status: str = "current") -> SimpleNamespace:
    return SimpleNamespace(id=cid, visibility=visibility, status=status)


class Unfiltered:
    """A stage one that returns the same three chunks, and records the `allowed` it was given."""

    def __init__(self) -> None:
        self.allowed: list[object] = []

    def search(self, query: str, k: int, allowed: object = None) -> list[SimpleNamespace]:
        self.allowed.append(allowed)
        chunks = [_chunk("pub:c0"), _chunk("memo:c0", visibility="restricted"),
                  _chunk("old:c1", status="superseded")]  # fmt: skip
        return [SimpleNamespace(chunk=c) for c in chunks[:k]]


def test_exposure_lists_marked_chunks_an_unfiltered_stage_one_returns() -> None:
    first = Unfiltered()
    labels = [Label("q1", "a question", (), True), Label("q2", "another", (), True)]
    found = exposure(Parts(searchers={"hybrid": first}), "hybrid", 3, labels)
    assert found == (
        Exposure("q1", "memo:c0", ("restricted",)), Exposure("q1", "old:c1", ("superseded",)),
        Exposure("q2", "memo:c0", ("restricted",)), Exposure("q2", "old:c1", ("superseded",)),
    )  # fmt: skip
    assert first.allowed == [None, None]  # the filter is what is being measured: none applied
    assert exposure(Parts(searchers={"hybrid": Unfiltered()}), "hybrid", 1, labels) == ()


def test_the_risk_is_stated_even_when_nothing_changed() -> None:
    cand = SimpleNamespace(exposure=(Exposure("q1", "memo:c0", ("restricted",)),
                                     Exposure("q-2", "old:c1", ("superseded",)),
                                     Exposure("q-2", "memo:c0", ("restricted",))),
                           diff=(SimpleNamespace(field="prefilter"),),
                           comparisons=(SimpleNamespace(worse=()),), lists=())  # fmt: skip
    statement = risk(cand)  # type: ignore[arg-type]
    assert statement is not None
    head, body = statement
    assert head == (
        "Risk: it removes the pre-filter — 2 restricted or superseded chunk(s) reached its "
        "candidate lists, 3 time(s) in all."
    )  # memo:c0 in two questions' lists: one chunk, two times
    assert (
        "1 restricted and 1 superseded chunk(s) reached the candidate lists of 2 question(s), 3 "
        "time(s) in all ([q\\-2](question-q-2.html), [q1](question-q1.html)) before the late "
        "filter removed them"
    ) in body
    assert "[q\\-2](question-q-2.html)" in body and "[q1](question-q1.html)" in body
    assert "costs answers" not in body  # nothing got worse: no cost is claimed
    assert risk(SimpleNamespace(exposure=None)) is None  # type: ignore[arg-type]


def test_the_demo_s_candidate_without_the_pre_filter_states_its_risk(demo_results) -> None:  # type: ignore[no-untyped-def]
    from evidencedesk.report._candidate import candidate_models
    from evidencedesk.report._claims import Claims

    (page,) = [c for c in candidate_models(demo_results, Claims(demo_results))
               if c.name == "no pre-filter"]  # fmt: skip
    cand = next(c for c in demo_results.candidates if c.name == "no pre-filter")
    head, body = risk(cand)  # type: ignore[misc]
    assert page.recommendation.headline.endswith(head)
    assert body in page.recommendation.markdown


def _cand(
    worse: tuple[str, ...], sizes: dict[str, int], fields: tuple[str, ...] = ("prefilter",)
) -> SimpleNamespace:
    return SimpleNamespace(
        exposure=(
            Exposure("q1", "memo:c0", ("restricted",)),
            Exposure("q2", "old:c1", ("superseded",)),
        ),
        diff=tuple(SimpleNamespace(field=f) for f in fields),
        comparisons=(SimpleNamespace(worse=worse),),
        lists=tuple(SimpleNamespace(question=q, size=n) for q, n in sizes.items()),
    )


COST = "Here it also costs answers: on 1 question(s) ([q1](question-q1.html)) those chunks"


@pytest.mark.parametrize(
    ("cand", "costs"),
    [
        (_cand(("q1",), {"q1": 2, "q2": 3}), True),  # worse, exposed, a shorter final list
        (_cand((), {"q1": 2, "q2": 3}), False),  # nothing worse: no cost claimed
        (_cand(("q1",), {"q1": 3, "q2": 3}), False),  # worse, but the list kept its size
        (_cand(("q3",), {"q3": 2}), False),  # worse where no marked chunk came
        (_cand(("q1",), {"q1": 2}, ("prefilter", "depth")), False),  # two changes: not the filter's
    ],
)
def test_the_cost_in_answers_is_said_only_when_the_late_filter_lost_one(cand, costs) -> None:  # type: ignore[no-untyped-def]
    _, body = risk(cand)  # type: ignore[misc]
    assert (COST in body) is costs
    if costs:
        assert body.endswith(
            "outranked a chunk that answers the question and pushed it out of the first stage's "
            "list; the late filter then removed them, leaving a shorter final list without it."
        )


def test_the_demo_s_candidate_without_the_pre_filter_says_it_cost_an_answer(demo_results) -> None:  # type: ignore[no-untyped-def]
    cand = next(c for c in demo_results.candidates if c.name == "no pre-filter")
    _, body = risk(cand)  # type: ignore[misc]
    assert "Here it also costs answers: on 1 question(s) ([rs01](question-rs01.html))" in body
