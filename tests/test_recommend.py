"""The recommendation on small runs-only projects whose numbers are worked by hand: each of the
false sentences the site once made, reproduced, with the sentence it says now written out.

Every project has one relevant document per question (grade 2) unless said; "first" ranks it
first, "second" puts an unjudged filler above it (reciprocal rank 1 -> 1/2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidencedesk.report._build import _build_model
from evidencedesk.report._candidate import md_escape
from evidencedesk.report._model import BuildOptions, CandidatePage
from evidencedesk.report._render import _render_markdown
from tests.synthetic_runs import write_project

SHIP = re.compile(r"(?<!not )(?<!may it )\bship\b", re.I)  # "ship" only as the gate's question


def qids(n: int) -> tuple[str, ...]:
    return tuple(f"q{i:02d}" for i in range(1, n + 1))


def first(q: str) -> list[str]:
    return [f"{q}a", "f"]


def second(q: str) -> list[str]:
    return ["f", f"{q}a"]


def bi_encoder(tmp: Path, policy: dict[str, object] | None) -> Path:
    """20 questions, grades 2 and 1: the candidate lifts both judged documents above two
    fillers on 19 of them; on the critical q01 the grade-1 document slips from rank 2 to 3
    (nDCG down a little, the reciprocal rank the same)."""
    qs = qids(20)
    qrels = {q: {f"{q}a": 2, f"{q}b": 1} for q in qs}
    base = {q: ["f1", "f2", f"{q}a", f"{q}b"] for q in qs}
    cand = {q: [f"{q}a", f"{q}b", "f1", "f2"] for q in qs}
    base["q01"], cand["q01"] = ["q01a", "q01b", "f1", "f2"], ["q01a", "f1", "q01b", "f2"]
    return write_project(tmp, qrels, {"base": base, "cand": cand}, policy=policy,
                         report='metrics = ["ndcg@10:linear", "mrr", "recall@10"]')  # fmt: skip


def split(tmp: Path, better: int, worse: int, n: int, candidates: int = 1) -> Path:
    """`better` questions go from second to first, `worse` from first to second, the rest stay
    first; reported: MRR, then nDCG@10 (linear gain)."""
    qs = qids(n)
    base = {q: second(q) if i < better else first(q) for i, q in enumerate(qs)}
    cand = {
        q: first(q) if i < better or i >= better + worse else second(q) for i, q in enumerate(qs)
    }
    runs = {"base": base, **{f"cand{j}": cand for j in range(1, candidates + 1)}}
    qrels = {q: {f"{q}a": 2} for q in qs}
    return write_project(tmp, qrels, runs, report='metrics = ["mrr", "ndcg@10:linear"]')


def candidates(project: Path) -> tuple[CandidatePage, ...]:
    return _build_model(BuildOptions(project=project), lambda stage: None).candidates


BI_HEADLINE = (
    "Better: nDCG@10 (linear gain) better (+0.431 [+0.380, +0.456], +19/−1 questions, "
    "Holm-adjusted randomization p < 0.001); also better: MRR."
)


def test_a_significant_win_reads_better_with_or_without_a_policy(tmp_path: Path) -> None:
    """Better on every metric with Holm p < 0.001: BETTER, never "not proven" -- with no gate
    policy, and with a critical question that moved a little on nDCG only (named, and decided by
    the gate, which passes it: its answer is still first)."""
    (free,) = candidates(bi_encoder(tmp_path / "none", None))
    assert (free.decision, free.recommendation.headline) == ("BETTER", BI_HEADLINE)
    assert free.badges == ("BETTER", "no gate policy — nothing checked")
    (gated,) = candidates(bi_encoder(tmp_path / "gated", {"k": 3, "critical": ["q01"]}))
    assert gated.decision == "BETTER"
    assert gated.recommendation.headline == (
        f"{BI_HEADLINE} Critical question(s) worse: q01 (on nDCG@10 (linear gain)) — the gate "
        "decides (GO)."
    )
    assert gated.badges == ("BETTER", "GO")
    for c in (free, gated):
        assert "not proven" not in c.recommendation.headline + c.recommendation.markdown


def test_the_recommendation_quotes_the_primary_metric_by_its_own_name(tmp_path: Path) -> None:
    """The interval bullet is nDCG@10's (the primary), named so, and its zero clause is its own."""
    (c,) = candidates(bi_encoder(tmp_path, None))
    assert (
        md_escape(
            "Δ nDCG@10 (linear gain) = +0.431 over 20 questions (95 % paired-bootstrap interval "
            "+0.380 to +0.456); the interval excludes zero; Holm-adjusted randomization p < 0.001"
        )
        in c.recommendation.markdown
    )
    assert "Δ MRR" not in c.recommendation.markdown
    # the gains came from unjudged fillers moving down: on condensed lists nothing moves, and
    # the recommendation says so
    assert (
        md_escape(
            "On condensed lists (each list's unjudged results removed before scoring), Δ nDCG@10 "
            "(linear gain) = +0.000 [+0.000, +0.000] over 20 questions: it does not move as on the "
            "full lists, so the holes in the judgments may decide this comparison; label the pairs of "
            "to-label.tsv before deciding"
        )
        in c.recommendation.markdown
    )


@pytest.mark.parametrize(
    ("better", "worse", "n", "verdict", "headline"),
    [
        # +18/−13 of 40, sign-test p = 0.473: no lean, whatever the gap in questions
        (18, 13, 40, "NO CLEAR CHANGE",
         "No clear change: MRR +0.062 [−0.075, +0.200], flips +18/−13 (no lean: sign-test p = "
         "0.473, not below 0.2); no reported metric moved."),
        # the course page's 4 to 0 (p = 0.125): encouraging, not proven; the interval excludes 0
        (4, 0, 21, "PROMISING",
         "Promising, not proven: MRR better by its interval (+0.095 [+0.024, +0.190], +4/−0 "
         "questions), not significant after Holm (randomization p = 0.125); also better by its "
         "interval: nDCG@10 (linear gain)."),
        (0, 4, 21, "LEANS WORSE",
         "Leans worse, not proven: MRR worse by its interval (−0.095 [−0.190, −0.024], +0/−4 "
         "questions), not significant after Holm (randomization p = 0.125); also worse by its "
         "interval: nDCG@10 (linear gain)."),
        (3, 3, 21, "NO CLEAR CHANGE",
         "No clear change: MRR +0.000 [−0.119, +0.119], flips +3/−3 (balanced: sign-test p = "
         "1.000); no reported metric moved."),
    ],
)  # fmt: skip
def test_flips_lean_only_below_the_documented_level(
    tmp_path: Path, better: int, worse: int, n: int, verdict: str, headline: str
) -> None:
    (c,) = candidates(split(tmp_path, better, worse, n))
    assert (c.decision, c.recommendation.headline) == (verdict, headline)


def test_what_it_would_take_reads_the_paired_differences_and_holm(tmp_path: Path) -> None:
    """4 to 0 of 21: the paired test's smallest p over 4 differences is 2/16 = 0.125, so at 4 per
    21 it needs 6 changed questions, 32 in all; with two candidates, Holm asks p < 0.025."""
    (one,) = candidates(split(tmp_path / "one", 4, 0, 21))
    assert (
        md_escape(
            "What it would take: at the observed mean difference and spread of MRR, about 32 "
            "questions in all (now 21) would bring a paired test to p < 0.05, about 36 for an 80 % "
            "chance; at the observed flip rate, the sign test reaches an unadjusted p < 0.05 at every "
            "total from about 29 questions on (an 80 % chance of it from about 32) — estimates that "
            "assume what was observed stays as observed"
        )
        in one.recommendation.markdown
    )
    two = candidates(split(tmp_path / "two", 4, 0, 21, candidates=2))
    assert (
        md_escape(
            "about 37 questions in all (now 21) would bring a paired test to p < 0.05 / 2 (what "
            "Holm's adjustment over the 2 candidates asks at most for an adjusted p < 0.05), about "
            "43 for "
            "an 80 % chance; at the observed flip rate, the sign test reaches an unadjusted p < 0.05 "
            "at every total from about 29 questions on"
        )
        in two[0].recommendation.markdown
    )


def test_the_two_answers_are_said_apart_and_nothing_says_ship(tmp_path: Path) -> None:
    (c,) = candidates(split(tmp_path, 0, 4, 21))
    # the badges say the two answers; the recommendation does not say them again
    assert c.badges == ("LEANS WORSE", "no gate policy — nothing checked")
    assert "Verdict" not in c.recommendation.markdown and "gate" not in c.recommendation.markdown
    assert not SHIP.search(c.recommendation.headline + c.recommendation.markdown)
    # the flips counted; the questions named in the page's flips section
    assert '<li>Flips on MRR: better on 0, worse on 4, 17 tied; exact sign-test p = 0.125 (<a ' \
        'href="#flips">which questions</a>).</li>' in _render_markdown(c.recommendation.markdown)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "escaped"),
    [("a_b *c*", "a\\_b \\*c\\*"), ("[x](y)", "\\[x\\]\\(y\\)"), ("one\ntwo", "one two"),
     ("<b>", "\\<b\\>")],
)  # fmt: skip
def test_md_escape_makes_data_inert(text: str, escaped: str) -> None:
    assert md_escape(text) == escaped
