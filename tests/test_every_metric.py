"""Every registered metric, every property: read from the registry (`metric_names.MEASURES`, each
form at several cut-offs, and `metrics.KINDS`), so a new metric is tested by being registered.

For each: the vectorised column equals the readable reference bit for bit (hand-made judged lists
with tied grades, an empty list, no relevant judgment, every result relevant, a cut-off longer
than the list, unjudged and negatively graded results; and random lists); undefined is None, not
0, exactly where its declaration says; values lie in [0, 1]; and, where trec_eval has the
measure, pytrec_eval's value per question to 1e-12. The registry itself refuses a kind without a
reference or a column, and computes a toy kind registered through the same function.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencedesk._metric_names import MEASURES, Measure, read_metric
from evidencedesk.errors import UnknownNameError
from evidencedesk.retrieval._metric_engine import Lines, lines_of
from evidencedesk.retrieval.metrics import (
    KINDS,
    Judged,
    Kind,
    _kind_of,
    _metric_value,
    _of_judged,
    _recall_column,
    _values_of,
    per_question,
    per_question_all,
    recall_at,
    registry,
    summarize,
)
from evidencedesk.retrieval.trec_judge import judge_trec_run
from tests.test_trec_eval_agreement import _agree, _read_back, graded_collection

CUTOFFS = (1, 3, 10)  # 10: longer than every hand-made list


def _names(m: Measure) -> list[str]:
    return [m.form.replace("{k}", str(k)) for k in CUTOFFS] if m.cutoff else [m.form]


# every registered metric at every cut-off: (name, its declaration)
NAMES = [(name, m) for m in MEASURES for name in _names(m)]
IDS = [name for name, _ in NAMES]

LISTS = (
    Judged("worked", (), True, (0, 2, 1, 0, 2), (2, 2, 1), nonrelevant=2),
    # tied grades in the list and in the pool; the best document (3) never returned
    Judged("ties", (), True, (2, 2, 1, 1, 0, 0), (3, 2, 2, 1, 1), nonrelevant=3),
    Judged("empty", (), True, (), (2, 1), nonrelevant=1),
    Judged("no relevant", (), False, (1, 0, 1), (1, 1), nonrelevant=3),
    Judged("all relevant", (), True, (3, 2, 2), (3, 2, 2), nonrelevant=0),
    Judged("missed", (), True, (0, 0, 0), (2,), nonrelevant=4),
    Judged("short", (), True, (2,), (2, 2, 2, 1), nonrelevant=5),
    Judged("unjudged", (), True, (0, 2, 0, 0), (2, 1), judged=(False, True, True, False),
           nonrelevant=1),
    Judged("negative", (), True, (0, 2, 0), (2,), negative=(True, False, False), nonrelevant=1),
    Judged("threshold 1", (), True, (0, 1, 0), (1, 1), relevant=1, nonrelevant=2),
)  # fmt: skip


def test_the_registry_covers_every_declared_kind_and_nothing_else() -> None:
    assert set(KINDS) == {m.kind for m in MEASURES}
    assert {read_metric(name).kind for name in IDS} == set(KINDS)
    assert len(IDS) == len(set(IDS)) == 30


@pytest.mark.parametrize(("name", "m"), NAMES, ids=IDS)
def test_the_column_equals_the_reference_bit_for_bit(name: str, m: Measure) -> None:
    reference = [_metric_value(j, name) for j in LISTS]
    assert _of_judged(LISTS, [name]) == {name: reference}
    column = _values_of(lines_of(LISTS), name)
    assert [None if math.isnan(v) else v for v in column.tolist()] == reference
    assert per_question_all(LISTS, name) == {j.id: v for j, v in zip(LISTS, reference, strict=True)}
    kept = [v for v in reference if v is not None]
    assert summarize(LISTS, [name])[name].value == math.fsum(kept) / len(kept)
    assert per_question(LISTS, name) == {
        j.id: v for j, v in zip(LISTS, reference, strict=True) if v is not None
    }


def _undefined(m: Measure, j: Judged) -> bool:
    """Where the declaration says the metric is undefined: no relevant judgment; for Judged@k,
    also an empty list."""
    empty = "the list is empty" in m.undefined
    return not j.defined or (empty and j.size == 0)


@pytest.mark.parametrize(("name", "m"), NAMES, ids=IDS)
def test_undefined_is_none_not_zero_and_values_lie_in_the_unit_interval(
    name: str, m: Measure
) -> None:
    values = {j.id: _metric_value(j, name) for j in LISTS}
    assert [qid for qid, v in values.items() if v is None] == [
        j.id for j in LISTS if _undefined(m, j)
    ]
    assert all(0.0 <= v <= 1.0 for v in values.values() if v is not None)
    # a question with relevant judgments, none returned: a quality metric scores it 0, not None
    assert values["missed"] == (1.0 if m.diagnostic else 0.0)


_grades = st.lists(st.integers(-2, 4), max_size=12)
_flags = st.lists(st.booleans(), min_size=12, max_size=12)


@given(
    st.lists(st.tuples(_grades, _grades, st.integers(1, 3), _flags, st.integers(0, 6)),
             max_size=12)
)  # fmt: skip
def test_every_column_equals_its_reference_on_random_lists(rows: list[Any]) -> None:
    # lists hold unjudged results and results graded below 0 (read as 0, skipped by bpref)
    questions = [
        Judged(f"q{i}", (), True, tuple(max(g, 0) for g in grades),
               tuple(sorted((g for g in pool if g > 0), reverse=True)), relevant=relevant,
               judged=tuple(judged[: len(grades)]) if not all(judged[: len(grades)]) else None,
               nonrelevant=nonrelevant,
               negative=tuple(g < 0 for g in grades) if any(g < 0 for g in grades) else None)
        for i, (grades, pool, relevant, judged, nonrelevant) in enumerate(rows)
    ]  # fmt: skip
    engine = _of_judged(questions, IDS)
    for name in IDS:
        assert engine[name] == [_metric_value(j, name) for j in questions], name


# -- pytrec_eval, for every registered metric trec_eval has -------------------------------------


def _trec(m: Measure, k: int) -> tuple[str, str, str]:
    """(our name, the measure asked of pytrec_eval, the key of its answer)."""
    assert m.trec_eval is not None
    ours, theirs = m.form.replace("{k}", str(k)), m.trec_eval
    return (
        ours,
        theirs.replace("_{k}", ".{k}").replace("{k}", str(k)),
        theirs.replace("{k}", str(k)),
    )


TREC = list(dict.fromkeys(_trec(m, k) for m in MEASURES if m.trec_eval for k in (5, 10)))


def _asked(measures: Any) -> set[str]:
    """pytrec_eval's measure set: the cut-offs of one measure named together (``P.5,10``)."""
    cuts: dict[str, list[str]] = {}
    for measure in measures:
        base, _, cut = measure.partition(".")
        cuts.setdefault(base, [])
        if cut:
            cuts[base].append(cut)
    return {base + ("." + ",".join(c) if c else "") for base, c in cuts.items()}


@pytest.fixture(scope="module", params=[(21, 1), (22, 2), (23, 1), (24, 2)], ids=str)
def agreement(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, dict[str, dict[str, float]], dict[str, bool]]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    seed, relevance = request.param
    qrels, run = graded_collection(seed)
    qrels_back, run_back = _read_back(tmp_path_factory.mktemp("agreement"), qrels, run)
    judged = judge_trec_run(run_back, qrels_back, relevant=relevance)
    asked = _asked(request for _, request, _ in TREC)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=relevance)
    reference = theirs.evaluate({q: r for q, r in run.items() if q in qrels})
    relevant_in = {q: any(g >= relevance for g in qrels[q].values()) for q in reference}
    assert sum(relevant_in.values()) >= 150 and not all(relevant_in.values())
    return judged, reference, relevant_in


def test_every_measure_trec_eval_has_is_compared() -> None:
    assert {read_metric(ours).measure for ours, _, _ in TREC} == {
        m for m in MEASURES if m.trec_eval
    }
    assert len(TREC) == 15


@pytest.mark.parametrize(("ours", "asked", "key"), TREC, ids=[t[0] for t in TREC])
def test_every_metric_equals_pytrec_eval_per_question_to_1e_12(
    agreement: tuple[Any, dict[str, dict[str, float]], dict[str, bool]],
    ours: str,
    asked: str,
    key: str,
) -> None:
    judged, reference, relevant_in = agreement
    compared = _agree(per_question_all(judged, ours), reference, key, relevant_in)
    assert compared == sum(relevant_in.values())


# -- the registry -----------------------------------------------------------------------------


def _toy(j: Judged, k: int) -> float | None:
    """The share of the top k graded exactly 1: a toy kind's reference."""
    return None if not j.defined else sum(1 for g in j.grades[:k] if g == 1) / k


def _toy_column(lines: Lines, k: int | None, gain: str) -> np.ndarray:
    assert k is not None
    top = (lines.grade == 1) & (lines.rank < k)
    return np.bincount(lines.line_q[top], minlength=lines.n) / k


TOY = Measure("toy", "toy@{k}", "Toy@{k}", definition="ones in the top {k} ÷ {k}", cutoff=True)


def test_a_kind_registered_through_the_registry_is_computed() -> None:
    kinds = registry((*KINDS.values(), Kind("toy", _toy, _toy_column)), (*MEASURES, TOY))
    toy = kinds["toy"]
    assert [toy.value(j, 3, None) for j in LISTS] == [
        1 / 3, 1 / 3, 0.0, None, 0.0, 0.0, 0.0, 0.0, 0.0, 1 / 3
    ]  # fmt: skip
    column = toy.values(lines_of(LISTS), 3, None).tolist()
    assert [None if math.isnan(v) else v for v in column] == [toy.value(j, 3, None) for j in LISTS]


@pytest.mark.parametrize(
    ("kinds", "message"),
    [
        ((), "found none for recall, precision, hit, mrr, map, rprec, ndcg, bpref, judged"),
        (tuple(k for k in KINDS.values() if k.kind != "bpref"), "found none for bpref"),
        ((*KINDS.values(), KINDS["mrr"]), "found 'mrr' twice"),
        ((*KINDS.values(), Kind("toy", _toy, None)), "a reference and a column function for "  # type: ignore[arg-type]
         "the metric kind 'toy'"),
        ((*KINDS.values(), Kind("toy", _toy, _toy_column)), "found ['toy']"),
        ((Kind("toy", _toy, _toy_column, takes=("cut",)),), "to take k and gain, found ('cut',)"),
    ],
)  # fmt: skip
def test_a_bad_registry_fails(kinds: tuple[Kind, ...], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        registry(kinds, MEASURES)
    assert message in str(raised.value)


def test_a_measure_declared_without_a_kind_registered_fails() -> None:
    with pytest.raises(ValueError, match="found none for toy$"):
        registry(KINDS.values(), (*MEASURES, TOY))


def test_an_undeclared_kind_is_an_error_naming_the_kinds_never_hit_at_k() -> None:
    with pytest.raises(UnknownNameError) as raised:
        _kind_of(SimpleNamespace(kind="toy"))  # type: ignore[arg-type]
    assert str(raised.value) == (
        "unknown metric kind 'toy'; expected one of: recall, precision, hit, mrr, map, rprec, "
        "ndcg, bpref, judged"
    )


def test_the_registry_names_each_kind_s_reference_beside_its_column() -> None:
    assert (KINDS["recall"].reference, KINDS["recall"].column) == (recall_at, _recall_column)
    assert [k for k, entry in KINDS.items() if entry.takes != ("k",)] == ["rprec", "ndcg", "bpref"]


def test_a_registered_kind_is_its_reference_on_a_worked_example() -> None:
    worked = LISTS[0]  # grades 0 2 1 0 2, pool 2 2 1: relevant at ranks 2 and 5
    assert _metric_value(worked, "recall@3") == 0.5
    assert _metric_value(worked, "mrr") == 0.5
    assert _metric_value(worked, "map") == (1 / 2 + 2 / 5) / 2
    assert _metric_value(worked, "bpref") == (1 - 1 / 2 + 1 - 2 / 2) / 2
