"""Settings, the gate's structured lines, the exports and the JSON codec on small hand-made data."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk.gate import GateCheck, GateLevel, GatePolicy, _decide_gate, _Reference, _shape
from evidencedesk.report._since_view import since_view
from evidencedesk.report._site import slug
from evidencedesk.results import _compute as compute
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._inputs import load_project, questions
from evidencedesk.results._serialize import (
    QuestionRows,
    _per_question_csv,
    _qrels_text,
    _run_text,
    site_exports,
)
from evidencedesk.results._settings import (
    _COMPARED,
    _PIPELINE_COLUMNS,
    Metric,
    Settings,
    settings_for,
)
from evidencedesk.results.since import QuestionChange, since
from evidencedesk.results.types import SCHEMA_VERSION, Inputs, Results, RunCosts
from evidencedesk.retrieval.evalreport import Config
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, _aligned, per_question_all, summarize
from tests.project_fixtures import make_runs_only_project

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("name", "gain"),
    [("ndcg@5", "exp"), ("ndcg@10:linear", "linear"), ("ndcg@5:exp", "exp"), ("mrr", None)],
)
def test_metric_gain(name: str, gain: str | None) -> None:
    assert Metric(name, name).gain == gain


def test_settings_of_the_demo_and_of_a_runs_only_project(tmp_path: Path) -> None:
    demo = settings_for(load_project(REPO / "data" / "evidencedesk.toml"), seed=7)
    assert (demo.seed, demo.relevance, demo.kind) == (7, 2, "pipeline")
    assert [m.name for m in demo.metrics] == ["recall@1", "recall@3", "mrr", "ndcg@5"]
    assert demo.design is not None and demo.design.sizing_depths == (3, 5, 10, 20)
    runs = settings_for(load_project(make_runs_only_project(tmp_path, questions=5, runs=2)), 0)
    assert (runs.kind, runs.design) == ("runs", None)
    # columns, then the compared metrics not among them, each once; runs-only projects compare
    # their own four (nDCG@10 linear primary), not the pipeline's recall@3 and nDCG@5
    assert [m.name for m in runs.metrics] == ["recall@10", "precision@10", "mrr", "ndcg@10:linear"]
    assert [m.name for m in runs.compared] == [
        "ndcg@10:linear", "recall@10", "precision@10", "mrr"
    ]  # fmt: skip
    assert (demo.flips_metric, runs.flips_metric) == ("mrr", "ndcg@10:linear")


def _judged(
    qid: str, grades: tuple[int, ...], pool: tuple[int, ...], ids: tuple[str, ...]
) -> Judged:
    return Judged(qid, ("direct",), True, grades, pool, ids)


# run: q1 finds its answer at rank 2; q2 finds a useful chunk only; q3 has no relevant chunk
LISTS = (
    _judged("q1", (0, 2, 1), (2, 1), ("d1", "d2", "d3")),
    _judged("q2", (1,), (2, 1), ("d3",)),
    _judged("q3", (0,), (1,), ("d4",)),
)


def tiny_results() -> Results:
    settings = Settings(0, 2, "pipeline", _PIPELINE_COLUMNS, _COMPARED, "mrr", None)
    variant = compute.variant_result("k", "base run", "builtin", "", None, LISTS,
                                     RunCosts(None, None, None), settings, compute.Book(0))  # fmt: skip
    labels = [
        Label("q1", "first?", ("direct",), True, {"d2": 2, "d3": 1, "x9": 2}),
        Label("q2", "second?", ("direct", "stale"), True, {"d5": 2, "d3": 1}),
        Label("q3", "third?", ("unanswerable",), False, {"d4": 1}),
    ]
    facts = questions(labels, allowed={"d2", "d3", "d4", "d5"})
    inputs = Inputs("tiny", (), "", (), (), 0, facts, ())
    return Results(SCHEMA_VERSION, "0", settings, inputs, "base run", (variant,), (), None, 2, (), None, None,
                   None, None)  # fmt: skip


def test_one_pass_of_question_values_gives_what_each_metric_s_own_pass_gives() -> None:
    names = [m.name for m in (*_PIPELINE_COLUMNS, *_COMPARED)]
    ids, values = compute._question_columns(LISTS, [*names, names[0]])
    assert list(values) == list(dict.fromkeys(names))  # a repeated name: one column
    assert list(ids) == ["q1", "q2", "q3"]
    for name in names:
        assert dict(zip(ids, values[name], strict=True)) == per_question_all(LISTS, name)
    assert values["mrr"] == [0.5, 0.0, None]  # q3 has no relevant chunk
    # a Book given the values states what it computes from the lists themselves
    for name in names:
        given = compute.Book(0).stat("k", LISTS, name, values[name])
        assert given == compute.Book(0).stat("k", LISTS, name)
        summary = summarize(LISTS, [name])[name]  # the mean the metrics module gives
        assert (given.mean, given.n, given.left_out) == (summary.value, summary.n, summary.left_out)
    assert compute.Book(0).stat("k", LISTS, "mrr", values["mrr"]).n == 2
    assert compute.Book(0).stat("k", LISTS, "mrr", values["mrr"]).left_out == 1
    metrics = list(_PIPELINE_COLUMNS)
    assert compute.ranked_lists(LISTS, metrics, 2, values, averaging="defined") == (
        compute.ranked_lists(LISTS, metrics, 2, averaging="defined")
    )
    book_a, book_b = compute.Book(0), compute.Book(0)
    assert compute.tag_values(LISTS, metrics, "defined", book_a, "k", values) == (
        compute.tag_values(LISTS, metrics, "defined", book_b, "k")
    )


@pytest.mark.parametrize(
    ("base", "values", "rows"),
    [
        (
            [0.5, 0.0, 1.0],
            [1.0, 0.0, 0.25],
            [("q1", 0.5, 1.0), ("q2", 0.0, 0.0), ("q3", 1.0, 0.25)],
        ),
        # q1 undefined in the run, q2 in the baseline: only q3 is paired
        ([0.5, None, 1.0], [None, 0.0, 0.25], [("q3", 1.0, 0.25)]),
        ([None, None, None], [0.5, 0.5, 0.5], []),
    ],
)
def test_values_paired_by_their_place_are_the_aligned_rows(
    base: list[float | None], values: list[float | None], rows: list[tuple[str, float, float]]
) -> None:
    ids = ["q1", "q2", "q3"]
    qids, x, y = compute._paired_columns(ids, base, ids, values)
    assert list(zip(qids, x.tolist(), y.tolist(), strict=True)) == rows
    assert rows == _aligned(dict(zip(ids, base, strict=True)), dict(zip(ids, values, strict=True)))
    # a run that judged its questions in another order is paired by id, in the baseline's order
    qids, x, y = compute._paired_columns(ids, base, ids[::-1], values[::-1])
    assert list(zip(qids, x.tolist(), y.tolist(), strict=True)) == rows


def test_a_run_s_comparison_does_not_depend_on_the_order_of_its_questions() -> None:
    # the candidate finds q1's answer at rank 1 (the baseline at rank 2) and loses q2's
    candidate = (
        _judged("q1", (2, 0, 1), (2, 1), ("d2", "d1", "d3")),
        _judged("q2", (0,), (2, 1), ("d9",)),
        _judged("q3", (0,), (1,), ("d4",)),
    )
    metrics = list(_PIPELINE_COLUMNS)
    book = compute.Book(0)
    base_stats = [book.stat("base", LISTS, m.name) for m in metrics]
    in_order = compute.comparisons(base_stats, LISTS, {"c": ("c", candidate)}, metrics, book)
    backwards = compute.comparisons(
        base_stats, LISTS, {"c": ("c", candidate[::-1])}, metrics, compute.Book(0)
    )
    assert in_order["c"][1] == backwards["c"][1]
    mrr = next(c for c in in_order["c"][1] if c.metric == "mrr")
    # MRR: q1 0.5 -> 1.0, q2 0.0 -> 0.0; q3 has no relevant chunk and is left out
    assert (mrr.delta, mrr.n, mrr.better, mrr.worse, mrr.tied) == (0.25, 2, ("q1",), (), 1)


def test_since_reads_each_run_s_pass_at_its_own_final_list() -> None:
    # q1's first relevant chunk is at rank 2 (grades 0, 2, 1; relevance 2): inside a final
    # list of 3, outside one of 1. The policy's k (none: 10) passed it in both reports.
    base = tiny_results()
    variant = base.variants[0]

    def finals(*sizes: int) -> Results:
        names = ["base run", "wide"]
        runs = tuple(
            replace(variant, name=n, config={"final": f})
            for n, f in zip(names, sizes, strict=False)
        )
        return replace(base, variants=runs)

    s = since(finals(3), finals(1))
    assert s.newly_fail == (QuestionChange("q1", ("base run",)),)
    assert (s.newly_pass, s.k, s.depths) == ((), 1, (("base run", 1),))
    view = since_view(s, finals(1))
    assert [g.title for g in view.groups] == ["Questions that newly fail"]
    assert view.groups[0].rule == (
        "a relevant result within the first 1 before, none now or no relevant chunk in scope now"
    )
    mixed = since(finals(1, 1), finals(3, 1))
    assert mixed.newly_pass == (QuestionChange("q1", ("base run",)),)
    assert mixed.depths == (("base run", 3), ("wide", 1))
    assert since_view(mixed, finals(3, 1)).groups[0].rule == (
        "no relevant result within the first k (each run's final list: base run 3, wide 1) (or "
        "no relevant chunk in scope) before, one now"
    )
    runs_only = since(base, base)  # no config: the policy's k, else 10
    assert (runs_only.k, runs_only.depths) == (10, (("base run", 10),))


def export_texts(results: Results) -> dict[str, str]:
    """The site's exports of `results` as text (up to the page limit none is compressed)."""
    return {name: data.decode("utf-8") for name, data in site_exports(results, slug).items()}


def test_per_question_csv_has_every_metric_and_the_first_relevant_rank() -> None:
    assert _per_question_csv(QuestionRows.of(tiny_results())).splitlines() == [
        "question,variant,recall@1,recall@3,mrr,ndcg@5,first_relevant_rank,tags",
        # nDCG@5, exp gains 2^g - 1: (3/log2(3) + 1/log2(4)) / (3/log2(2) + 1/log2(3))
        "q1,base run,0.0,1.0,0.5,0.6590018048024133,2,direct",
        # a useful chunk at rank 1: (1/log2(2)) / (3 + 1/log2(3))
        "q2,base run,0.0,0.0,0.0,0.27541155237618664,,direct stale",
        "q3,base run,,,,,,unanswerable",
    ]


def test_runs_and_qrels_are_trec_files() -> None:
    r = tiny_results()
    assert _run_text(r, "base run", "base-run").splitlines() == [
        "q1 Q0 d1 1 3 base-run", "q1 Q0 d2 2 2 base-run", "q1 Q0 d3 3 1 base-run",
        "q2 Q0 d3 1 1 base-run", "q3 Q0 d4 1 1 base-run",
    ]  # fmt: skip
    # in scope only (x9 is not allowed), questions in label order, ids sorted
    assert (
        _qrels_text(r.inputs.questions) == "q1 0 d2 2\nq1 0 d3 1\nq2 0 d3 1\nq2 0 d5 2\nq3 0 d4 1\n"
    )
    assert sorted(export_texts(r)) == [
        "data/per-question.csv", "data/qrels.txt", "data/runs/base-run-" + slug("base run")[-8:] + ".run",
        "data/to-label.tsv",
    ]  # fmt: skip


def test_the_json_codec_round_trips_exactly() -> None:
    r = tiny_results()
    text = serialize.dumps(r)
    assert serialize.loads(text) == r
    assert serialize.dumps(serialize.loads(text)) == text


POLICY = GatePolicy(k=3, min_recall=0.9, min_pass_rate=0.9, max_drop=0.01,
                    critical=("q1", "q9"), review_on_mrr_flips=True)  # fmt: skip


def test_decide_gives_structured_checks_and_the_same_lines() -> None:
    now = _shape(LISTS, 3, 3)
    before = _Reference(3, {"recall@3": 1.0, "mrr": 1.0}, {"q1": 1.0, "q2": 1.0}, run="old")
    result = _decide_gate(POLICY, now, before)
    assert [(c.level, c.rule) for c in result.checks] == [
        (GateLevel.BLOCK, "critical_missing"),
        (GateLevel.BLOCK, "min_recall"),
        (GateLevel.BLOCK, "min_pass_rate"),
        (GateLevel.REVIEW, "max_drop"),
        (GateLevel.REVIEW, "max_drop"),
        (GateLevel.REVIEW, "review_on_mrr_flips"),
    ]
    assert result.lines == (
        "block: critical: q9 has no case in this run (no relevant chunk in scope, so it cannot pass)",
        "block: recall@3 0.500 is below the minimum 0.900",
        "block: pass rate 0.500 (1/2) is below the minimum 0.900",
        "review: recall@3 dropped 0.500 vs baseline (1.000 -> 0.500), more than the allowed 0.010",
        "review: MRR within the final list dropped 0.750 vs baseline (1.000 -> 0.250), more than "
        "the allowed 0.010",
        "review: MRR within the final list worse for 2 question(s) [q1, q2], better for 0 "
        "(sign-test p=0.500)",
    )
    flips = result.checks[-1]
    assert (flips.questions, flips.counts, flips.p) == (("q1", "q2"), (0,), 0.5)


@pytest.mark.parametrize(
    ("what", "shown"),
    [
        ({"run": "bm25"}, {"run": "bm25"}),
        ({"config": Config(reranker="pair", max_words=8)},
         {"first_stage": "hybrid", "reranker": "pair", "depth": 10, "final": 3, "max_words": 8,
          "prefilter": True}),
    ],
)  # fmt: skip
def test_a_reference_is_a_config_or_a_run_and_the_gate_shows_which(what, shown) -> None:
    reference = _Reference(3, {"recall@3": 1.0, "mrr": 1.0}, {"q1": 1.0}, **what)
    assert reference.what() == shown
    assert _decide_gate(POLICY, _shape(LISTS, 3, 3), reference).to_dict()["baseline"] == shown


@pytest.mark.parametrize("what", [{}, {"config": Config(), "run": "bm25"}])
def test_a_reference_of_neither_or_both_is_refused(what) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        _Reference(3, {}, {}, **what)


@pytest.mark.parametrize(
    ("check", "text"),
    [
        (GateCheck(GateLevel.BLOCK, "critical", questions=("rc02",), k=3),
         "critical: rc02 failed (no relevant result in the final 3)"),
        (GateCheck(GateLevel.REVIEW, "baseline_missing_metric", "recall@5", k=3),
         "baseline has no recall@5 (it was saved at k=3)"),
        (GateCheck(GateLevel.REVIEW, "no_policy"),
         "no gate policy in this project; nothing was checked"),
    ],
)  # fmt: skip
def test_gate_check_text(check: GateCheck, text: str) -> None:
    assert check.text() == text
    assert check.line() == f"{check.level.value.lower()}: {text}"


def test_gate_outcome_reads_judged_lists_against_a_run_or_no_policy() -> None:
    from evidencedesk.results._stages import _NO_POLICY_OUTCOME, gate_outcome

    same = gate_outcome(POLICY, LISTS, 3, _Reference.of_judged(LISTS, 3, 3, "same"))
    # compared with itself nothing dropped and nothing flipped: only the absolute floors remain
    assert [c.rule for c in same.checks] == ["critical_missing", "min_recall", "min_pass_rate"]
    assert (same.level, same.evaluated, same.checks[1].observed) == ("BLOCK", True, 0.5)
    assert gate_outcome(None, LISTS, 3, None) == _NO_POLICY_OUTCOME
    assert (_NO_POLICY_OUTCOME.level, _NO_POLICY_OUTCOME.evaluated) == ("REVIEW", False)


def test_flips_read_a_pair_s_mirror_off_it_only_over_the_same_questions() -> None:
    # b against a is a against b mirrored when both list the same questions in the same order;
    # c lists them in another order and is paired afresh: every flip equals its own pairing
    from evidencedesk.results.types import RankedList, VariantResult
    from evidencedesk.retrieval.metrics import paired

    def variant(name: str, mrr: dict[str, float | None]) -> VariantResult:
        lists = tuple(RankedList(q, (), (), 1, None, {"mrr": v}) for q, v in mrr.items())
        return VariantResult(name, "external", "", None, (), RunCosts(None, None, None), lists, ())

    a = variant("a", {"q1": 1.0, "q2": 0.5, "q3": None, "q4": 0.25})
    b = variant("b", {"q1": 0.5, "q2": 0.5, "q3": 1.0, "q4": 1.0})
    c = variant("c", {"q4": 0.5, "q3": 0.5, "q2": 1.0, "q1": 1.0})
    found = {(f.a, f.b): f for f in compute.flips([a, b, c], "mrr")}
    assert (found["b", "a"].better, found["b", "a"].worse) == (("q1",), ("q4",))
    assert (found["a", "b"].better, found["a", "b"].worse) == (("q4",), ("q1",))
    for (x, y), flip in found.items():
        values = {v.name: {r.question: r.values["mrr"] for r in v.lists} for v in (a, b, c)}
        p = paired(values[x], values[y], "mrr")
        assert (flip.better, flip.worse, flip.tied, flip.p) == (p.better, p.worse, p.tied, p.p)
    # against c each side lists its wins in its own order: no mirror of the other
    assert found["c", "a"].worse == ("q4", "q2") and found["a", "c"].better == ("q2", "q4")
