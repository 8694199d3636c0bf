"""One verdict per candidate: the rules by hand, and badge vs sentence over a grid of results."""

from __future__ import annotations

import itertools

import pytest

from evidencedesk.report.recommend import PREFIX, headline
from evidencedesk.results import verdicts as v
from evidencedesk.results.verdicts import Evidence, decide

NDCG = Evidence("ndcg@10:linear", -0.014, -0.024, -0.004, 54, 99, 0.0004, 0.0012)
MRR = Evidence("mrr", -0.011, -0.030, 0.008, 39, 54, 0.146, 0.292)


def test_metrics_that_disagree_are_named_with_their_direction() -> None:
    d = decide([NDCG, MRR], "mrr", "GO")
    assert (d.verdict, d.up, d.down) == ("WORSE", (), ("ndcg@10:linear",))
    text = headline(d, (("nDCG@10 (linear gain)", NDCG), ("MRR", MRR)))
    assert text == (
        "Worse: nDCG@10 (linear gain) worse (−0.014 [−0.024, −0.004], 54 up / 99 down) "
        "while MRR flips lean worse (+39/−54, p=0.146)."
    )
    assert "same quality" not in text


@pytest.mark.parametrize(
    ("evidence", "gate", "critical", "verdict"),
    [
        ([Evidence("mrr", 0.05, 0.01, 0.09, 9, 0, 0.004, 0.02)], "GO", (), "BETTER"),
        ([Evidence("mrr", 0.05, 0.01, 0.09, 9, 0, 0.004, 0.02)], "REVIEW", (), "PROMISING"),
        ([Evidence("mrr", 0.05, 0.01, 0.09, 9, 0, 0.004, 0.02)], "GO", ("rc02",), "MIXED"),
        ([Evidence("mrr", 0.05, 0.01, 0.09, 9, 0, 0.004, 0.02)], "BLOCK", (), "BLOCKED"),
        # the interval excludes zero but Holm does not confirm the primary: not proven
        ([Evidence("mrr", 0.05, 0.01, 0.09, 5, 0, 0.06, 0.30)], "GO", (), "PROMISING"),
        ([Evidence("mrr", 0.0, -0.02, 0.02, 3, 3, 1.0, 1.0)], "GO", (), "NO CLEAR CHANGE"),
        ([Evidence("mrr", -0.03, -0.09, 0.01, 1, 4, 0.375, 0.75)], "GO", (), "LEANS WORSE"),
        ([Evidence("mrr", 0.01, -0.01, 0.03, 2, 1, 1.0, 1.0),
          Evidence("ndcg@5", 0.02, 0.004, 0.06, 4, 0, 0.125, 1.0)], "GO", (), "PROMISING"),
        ([Evidence("mrr", 0.03, 0.01, 0.05, 5, 0, 0.06, 0.1),
          Evidence("ndcg@5", -0.02, -0.04, -0.01, 0, 4, 0.125, 1.0)], "GO", (), "MIXED"),
    ],
)  # fmt: skip
def test_rules_by_hand(evidence: list[Evidence], gate: str, critical: tuple[str, ...],
                       verdict: str) -> None:  # fmt: skip
    assert decide(evidence, "mrr", gate, critical).verdict == verdict


def test_critical_questions_that_got_worse_are_named_even_when_passing() -> None:
    e = Evidence("mrr", 0.0, -0.02, 0.02, 2, 1, 1.0, 1.0)
    d = decide([e], "mrr", "GO", ("rc02",))
    assert headline(d, (("MRR", e),)).endswith(
        "Critical question(s) worse: rc02 (the gate still passes it)."
    )


# the grid: each metric no change / noise / lean / interval-only / Holm-only / both, either way
SHAPES = [
    (0.0, 0.0, 0.0, 0, 0, 1.0, 1.0),
    (0.01, -0.02, 0.04, 3, 2, 1.0, 1.0),
    (0.03, -0.01, 0.07, 6, 1, 0.125, 0.5),
    (0.03, 0.005, 0.07, 4, 0, 0.125, 0.5),
    (0.02, -0.01, 0.05, 9, 0, 0.004, 0.02),
    (0.05, 0.01, 0.09, 12, 1, 0.003, 0.01),
]


def _shape(metric: str, shape: tuple[float, float, float, int, int, float, float],
           sign: int) -> Evidence:  # fmt: skip
    d, lo, hi, b, w, p, holm = shape
    if sign > 0:
        return Evidence(metric, d, lo, hi, b, w, p, holm)
    return Evidence(metric, -d, -hi, -lo, w, b, p, holm)


GRID = [
    (m, n, gate, crit)
    for m, n in itertools.product([(s, sign) for s in SHAPES for sign in (1, -1)], repeat=2)
    for gate in ("GO", "REVIEW", "BLOCK")
    for crit in ((), ("rc02",))
]


@pytest.mark.parametrize(("mrr", "ndcg", "gate", "crit"), GRID)
def test_badge_and_sentence_never_disagree(
    mrr: tuple[tuple[float, ...], int], ndcg: tuple[tuple[float, ...], int], gate: str,
    crit: tuple[str, ...],
) -> None:  # fmt: skip
    ev = [_shape("mrr", mrr[0], mrr[1]), _shape("ndcg@10", ndcg[0], ndcg[1])]  # type: ignore[arg-type]
    d = decide(ev, "mrr", gate, crit)
    text = headline(d, (("MRR", ev[0]), ("nDCG@10", ev[1])), "a rule failed")
    moved = {e.metric: e.direction for e in ev if e.direction}
    assert d.verdict in v.VERDICTS
    assert text.startswith(PREFIX[d.verdict] + ":")
    assert ("same quality" in text) == (d.verdict == "NO CLEAR CHANGE")
    assert (d.verdict == "BLOCKED") == (gate == "BLOCK")
    if d.verdict == "NO CLEAR CHANGE":
        assert not moved
    if d.verdict != "BLOCKED":
        for label, e in (("MRR", ev[0]), ("nDCG@10", ev[1])):
            if e.direction:
                word = "better" if e.direction == "up" else "worse"
                assert f"{label} {word} (" in text
        if set(moved.values()) == {"up", "down"}:
            assert d.verdict == "MIXED"
        if d.verdict == "WORSE":
            assert "down" in moved.values() and "up" not in moved.values()
    if d.verdict == "BETTER":
        assert gate == "GO" and not crit and moved.get("mrr") == "up"
        assert ev[0].holm_p < 0.05 and "down" not in moved.values()
    if crit:
        assert "rc02" in text
