"""The verdict answers "did it get better?" from the statistics alone: the rules by hand, and a
property test holding the badge, the headline and the gate line to them over synthetic
comparisons on a project whose primary metric is not MRR."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evidencedesk
from evidencedesk.gate import GateLevel
from evidencedesk.report import _words as words
from evidencedesk.results import _verdicts as v
from evidencedesk.results._verdicts import Evidence, _verdict_of_evidence, decide_verdict
from evidencedesk.results.types import Comparison, Results
from evidencedesk.retrieval._stats import flips_needed, sign_test_p

UP = Evidence("mrr", 0.05, 0.01, 0.09, 9, 0, 0.004, 0.02)  # interval and Holm agree: up
INTERVAL_ONLY = Evidence("mrr", 0.05, 0.01, 0.09, 5, 0, 0.06, 0.30)
LEAN = Evidence("mrr", 0.03, -0.01, 0.07, 4, 0, 0.125, 0.25)  # the course page's 4 to 0
NOISE = Evidence("mrr", 0.02, -0.02, 0.06, 18, 13, 0.473, 0.48)
FLAT = Evidence("mrr", 0.0, -0.02, 0.02, 3, 3, 1.0, 1.0)


def mirror(e: Evidence) -> Evidence:
    return Evidence(e.metric, None if e.delta is None else -e.delta,
                    None if e.high is None else -e.high, None if e.low is None else -e.low,
                    e.worse, e.better, e.sign_p, e.holm_p)  # fmt: skip


def other(e: Evidence, metric: str = "ndcg@5") -> Evidence:
    return replace(e, metric=metric)


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        ([UP], "BETTER"),
        ([INTERVAL_ONLY], "PROMISING"),  # moved by its interval, not confirmed after Holm
        ([LEAN], "PROMISING"),  # did not move; flips lean better at p = 0.125 < 0.2
        ([NOISE], "NO CLEAR CHANGE"),  # +18/−13, p = 0.473: no lean
        ([FLAT], "NO CLEAR CHANGE"),
        ([mirror(UP)], "WORSE"),
        ([mirror(INTERVAL_ONLY)], "LEANS WORSE"),
        ([mirror(LEAN)], "LEANS WORSE"),
        ([UP, other(mirror(UP))], "MIXED"),
        ([FLAT, other(UP)], "NO CLEAR CHANGE"),  # only a metric other than the primary moved
        ([LEAN, other(mirror(INTERVAL_ONLY))], "NO CLEAR CHANGE"),  # leans, but one moved down
        ([UP, other(LEAN)], "BETTER"),
        ([Evidence("mrr", 0.05, None, None, 9, 0, 0.004, 0.02)], "BETTER"),  # Holm alone moves it
        ([Evidence("mrr", None, None, None, 0, 0, 1.0, 1.0)], "NO CLEAR CHANGE"),
    ],
)  # fmt: skip
def test_rules_by_hand(evidence: list[Evidence], verdict: str) -> None:
    assert _verdict_of_evidence(evidence, "mrr").verdict == verdict


def test_a_critical_question_is_carried_never_weighed() -> None:
    d = _verdict_of_evidence([UP], "mrr", ("rc02",))
    assert (d.verdict, d.critical_worse) == ("BETTER", ("rc02",))


def evidence_st(metric: str) -> st.SearchStrategy[Evidence]:
    @st.composite
    def build(draw: st.DrawFn) -> Evidence:
        delta = draw(st.floats(-0.3, 0.3, allow_nan=False))
        half = draw(st.floats(0.0, 0.3, allow_nan=False))
        better, worse = draw(st.integers(0, 40)), draw(st.integers(0, 40))
        p = sign_test_p(better, worse)
        holm = draw(st.floats(0.0, 1.0, allow_nan=False))
        return Evidence(metric, delta, delta - half, delta + half, better, worse, p, holm)

    return build()


@given(st.lists(st.sampled_from(["mrr", "ndcg@5", "recall@3"]), min_size=1, max_size=3,
                unique=True).flatmap(lambda ms: st.tuples(*[evidence_st(m) for m in ms])))  # fmt: skip
def test_every_verdict_follows_its_rule(evidence: tuple[Evidence, ...]) -> None:
    primary = evidence[0].metric
    head = evidence[0]
    d = _verdict_of_evidence(evidence, primary)
    up = {e.metric for e in evidence if e.direction == "up"}
    down = {e.metric for e in evidence if e.direction == "down"}
    assert (d.verdict == "MIXED") == bool(up and down)
    if d.verdict == "BETTER":
        assert head.direction == "up" and head.significant and not down
    if d.verdict == "WORSE":
        assert head.direction == "down" and head.significant and not up
    if d.verdict == "PROMISING":  # never of a Holm-significant change
        assert not down and not head.significant
        assert head.direction == "up" or (head.direction is None and head.sign_p < v.LEAN_P
                                          and head.better > head.worse)  # fmt: skip
    if d.verdict == "LEANS WORSE":
        assert not up and not head.significant
        assert head.direction == "down" or (head.direction is None and head.sign_p < v.LEAN_P
                                            and head.worse > head.better)  # fmt: skip
    if head.significant and head.direction == "up" and not down:
        assert d.verdict == "BETTER"


@pytest.fixture(scope="module")
def ndcg_results(generated_site: Callable[[int], Path]) -> Results:
    """Generated project 1 (primary nDCG@10 with linear gain, a gate policy), read back from the
    run's one build of it (tests/conftest.py)."""
    return evidencedesk.load_results(generated_site(1) / "results.json")


def comparison_st(base: Comparison) -> st.SearchStrategy[Comparison]:
    @st.composite
    def build(draw: st.DrawFn) -> Comparison:
        delta = draw(st.floats(-0.3, 0.3, allow_nan=False).map(lambda x: round(x, 4)))
        half = draw(st.floats(0.0, 0.3, allow_nan=False).map(lambda x: round(x, 4)))
        b, w = draw(st.integers(0, 20)), draw(st.integers(0, 20))
        holm = draw(st.sampled_from([0.0004, 0.01, 0.049, 0.05, 0.2, 0.7, 1.0]))
        return replace(base, delta=delta, low=delta - half, high=delta + half,
                       better=tuple(f"b{i}" for i in range(b)), worse=tuple(f"w{i}" for i in range(w)),
                       tied=base.n - b - w, sign_p=sign_test_p(b, w), randomization_p=holm,
                       holm_p=holm, sd=0.2, flips_needed=flips_needed(base.n))  # fmt: skip

    return build()


LEANS = re.compile(r"leans (better|worse): sign-test p = (\d\.\d{3})")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_badge_headline_and_gate_line_follow_the_rules(
    ndcg_results: Results, data: st.DataObject
) -> None:
    results = ndcg_results
    cand = results.candidates[0]
    reported = [m.name for m in results.settings.compared]
    comparisons = tuple(data.draw(comparison_st(c)) if c.metric in reported else c
                        for c in cand.comparisons)  # fmt: skip
    gate = data.draw(st.sampled_from(list(GateLevel)))
    decision = decide_verdict(
        comparisons, reported, results.policy.critical, len(results.candidates)
    )  # type: ignore[union-attr]
    changed = replace(cand, comparisons=comparisons, decision=decision,
                      gate=replace(cand.gate, level=gate))  # fmt: skip
    results = replace(results, candidates=(changed, *results.candidates[1:]))
    source = "candidates[0]"
    headline = words.headline(results, source)
    head = changed.comparison(reported[0])
    # the badge and the headline say one verdict; the gate is its own answer and turns nothing
    assert words.verdict(results, source) == decision.verdict
    labels = [m.label for m in results.settings.compared]
    proven = [c for c in comparisons
              if c.metric in reported[1:] and v.evidence_of(c).significant]  # fmt: skip
    if decision.verdict in ("PROMISING", "LEANS WORSE") and proven:
        # per metric: the primary not proven, the Holm-significant others named as moved
        short = "Promising" if decision.verdict == "PROMISING" else "Leans worse"
        assert headline.startswith(f"{short} — {labels[0]} not proven, ")
        assert "not proven:" not in headline
    else:
        assert headline.startswith(words._PREFIX[decision.verdict] + ":")
    assert words.gate(results, source) == gate
    assert (
        decide_verdict(comparisons, reported, (), len(results.candidates)).verdict
        == decision.verdict
    )
    # "not proven" never of a Holm-significant primary; a lean only below the documented level
    if v.evidence_of(head).significant:
        assert "not proven" not in headline
    for _, p in LEANS.findall(headline):
        assert float(p) < v.LEAN_P
    # every metric the headline names is reported, by its full label; the primary comes first
    assert headline.split(": ", 1)[1].startswith(labels[0])
    assert "MRR@" not in headline and "(exp gain)" not in headline
    # the interval bullet's zero clause is the primary's own
    side = "includes" if head.low <= 0 <= head.high else "excludes"  # type: ignore[operator]
    assert f"; the interval {side} zero;" in words.interval(results, source)
    for line in (words.gate_line(results, f"{source}.gate.checks[{j}]")
                 for j in range(len(cand.gate.checks))):  # fmt: skip
        assert "mrr" not in line and "MRR " not in line  # the gate's RR is named with its k


def test_the_worked_examples_of_the_methods_page_are_computed() -> None:
    assert sign_test_p(4, 0) == 0.125 and round(sign_test_p(6, 0), 3) == 0.031
    assert flips_needed(21) == flips_needed(702) == 6 and sign_test_p(5, 0) > 0.05
    assert words.RULES["sign_example"]() == (
        "Four better and none worse gives p = 0.125; six better and none worse, p = 0.031, is "
        "the fewest one-way flips that give p < 0.05"
    )
