"""The index's bottom line: the tiles' numbers (results.summary) for hand-made verdict sets, the
decision rows, and the demo's rows and tiles equal to its Results' numbers."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.gate import GateCheck, GateLevel
from evidencedesk.report._assemble import _cost_text, bottom_line, change
from evidencedesk.report._claims import Claims
from evidencedesk.report._model import ClaimedCount, Dataset, GateTile
from evidencedesk.report._questions import LIST_DATA
from evidencedesk.report._site import slug
from evidencedesk.results import _plan as plan
from evidencedesk.results._plan import DataSize, VerdictCounts
from evidencedesk.results._settings import _COMPARED, _PIPELINE_COLUMNS, Settings
from evidencedesk.results._verdicts import Decision
from evidencedesk.results.types import (
    SCHEMA_VERSION,
    CandidateResult,
    Comparison,
    DocumentFact,
    GateOutcome,
    Inputs,
    MetricStat,
    PolicyFacts,
    Results,
    RunCosts,
    VariantResult,
)
from evidencedesk.retrieval.labels import QuestionCounts
from tests.page_text import visible

SETTINGS = Settings(0, 2, "pipeline", _PIPELINE_COLUMNS, _COMPARED, "mrr", None)
BASE_COSTS = RunCosts(0.0, 200.0, 4.0)


def stat(metric: str, mean: float) -> MetricStat:
    return MetricStat(metric, mean, mean - 0.1, mean + 0.1, 20, 0)


def comparison(metric: str, delta: float, low: float, high: float, better: int, worse: int,
               sign_p: float = 0.5, holm_p: float = 0.5) -> Comparison:  # fmt: skip
    return Comparison(metric, stat(metric, 0.6), stat(metric, 0.6 + delta), delta, low, high, 20,
                      tuple(f"b{i}" for i in range(better)), tuple(f"w{i}" for i in range(worse)),
                      20 - better - worse, sign_p, sign_p, holm_p)  # fmt: skip


def candidate(name: str, decision: Decision, mrr: Comparison, gate: str = "GO",
              checks: tuple[GateCheck, ...] = (), costs: RunCosts = BASE_COSTS) -> CandidateResult:  # fmt: skip
    others = tuple(comparison(m, 0.0, -0.05, 0.05, 0, 0) for m in ("recall@3", "ndcg@5"))
    return CandidateResult(name, "", (), (), (mrr, *others), (), costs,
                           GateOutcome(GateLevel(gate), checks, True), None, decision)  # fmt: skip


POLICY = PolicyFacts(3, 0.75, 0.8, 0.02, True, ("rc02",), {})


def results(*cands: CandidateResult, policy: PolicyFacts | None = POLICY) -> Results:
    base = VariantResult("hybrid", "builtin", "", {"final": 3}, (), BASE_COSTS, (), ())
    inputs = Inputs("p", (), "", (), (), 0, (), ())
    return Results(SCHEMA_VERSION, "0", SETTINGS, inputs, "hybrid", (base,), (), None, 20, cands, None, None,
                   None, None, policy)  # fmt: skip


MIN_RECALL = GateCheck(GateLevel.BLOCK, "min_recall", "recall@3", 0.6, 0.75)
BETTER = candidate(
    "rerank feature",
    Decision("BETTER", "mrr", ("mrr",), (), ()),
    comparison("mrr", 0.1, 0.04, 0.16, 9, 0, 0.004, 0.008),
    costs=RunCosts(10.0, 200.0, 19.0),
)
PROMISING = candidate(
    "rerank overlap",
    Decision("PROMISING", "mrr", ("mrr",), (), (), questions=20, for_p05=39, for_power=42),
    comparison("mrr", 0.05, 0.01, 0.12, 4, 0, 0.125, 0.25),
)
# worse with a blocking gate: the verdict and the gate are two answers, each counted
WORSE = candidate(
    "pair cut to 8 words",
    Decision("WORSE", "mrr", (), ("mrr",), ()),
    comparison("mrr", -0.12, -0.2, -0.03, 0, 5, 0.0625, 0.02),
    gate="BLOCK",
    checks=(MIN_RECALL,),
)
NO_CHANGE = candidate(
    "final 5",
    Decision("NO CLEAR CHANGE", "mrr", (), (), ()),
    comparison("mrr", 0.01, -0.02, 0.04, 1, 0),
)
LEANS = candidate(
    "sparse only",
    Decision("LEANS WORSE", "mrr", (), ("mrr",), ()),
    comparison("mrr", -0.2, -0.3, -0.1, 0, 7),
    gate="REVIEW",
)
BLOCKED_BETTER = candidate(  # better, and blocked by the gate: two answers, each counted
    "dense first stage",
    Decision("BETTER", "mrr", ("mrr",), (), ("rc02",)),
    comparison("mrr", 0.08, 0.02, 0.14, 8, 1, 0.04, 0.01),
    gate="BLOCK",
    checks=(MIN_RECALL,),
)


def line_of(*cands: CandidateResult, policy: PolicyFacts | None = POLICY):  # type: ignore[no-untyped-def]
    r = results(*cands, policy=policy)
    return bottom_line(r, Claims(r), r.plan)


def test_the_verdict_tile_counts_each_verdict_by_its_name() -> None:
    v = line_of(PROMISING, WORSE, BETTER, BLOCKED_BETTER, LEANS, NO_CHANGE).verdicts
    assert [(c.key, c.count) for c in v.tallies] == [
        ("better", "2"),
        ("worse", "1"),
        ("unclear", "3"),
    ]
    assert [(c.key, c.count) for c in v.by_verdict] == [
        ("BETTER", "2"), ("PROMISING", "1"), ("NO CLEAR CHANGE", "1"), ("LEANS WORSE", "1"),
        ("WORSE", "1"),
    ]  # fmt: skip
    assert plan.verdict_counts(()) == VerdictCounts(0, 0, 0, ())


def test_the_gate_tile_counts_go_review_block_or_says_nothing_was_checked() -> None:
    assert line_of(PROMISING, WORSE, LEANS, BLOCKED_BETTER, NO_CHANGE).gate == GateTile(
        True, (ClaimedCount("GO", "2"), ClaimedCount("REVIEW", "1"), ClaimedCount("BLOCK", "2")))  # fmt: skip
    unchecked = replace(PROMISING, gate=GateOutcome(GateLevel.REVIEW, (), False))
    assert plan.gate_counts(results(unchecked, policy=None)) is None
    no_policy = line_of(unchecked, policy=None)
    assert no_policy.gate == GateTile(checked=False)
    assert [(r.gate, r.gated) for r in no_policy.rows] == [
        ("no gate policy — nothing checked", False)
    ]


# lower bounds of the primary metric's paired interval, worked by hand: BETTER +0.04,
# BLOCKED_BETTER +0.02, PROMISING +0.01, NO_CHANGE −0.02 (ahead by +0.01), WORSE −0.2 and LEANS
# −0.3 (behind: never a lead)
@pytest.mark.parametrize(
    ("cands", "lead"),
    [
        ((PROMISING, WORSE, BETTER, LEANS), "rerank feature"),  # +0.04 beats +0.01
        ((PROMISING, BLOCKED_BETTER), "dense first stage"),  # the gate does not choose the lead
        ((LEANS, NO_CHANGE), "final 5"),  # ahead, though its interval holds 0
        ((WORSE, LEANS), None),  # no candidate ahead of the baseline
        ((), None),
    ],
)
def test_the_best_lead_has_the_largest_lower_bound_among_those_ahead(
    cands: tuple[CandidateResult, ...], lead: str | None
) -> None:
    got = plan.best_lead(results(*cands))
    assert (got.candidate if got else None) == lead


def test_equal_lower_bounds_go_to_the_larger_difference_then_the_name() -> None:
    # the demo's case: several candidates whose intervals all start at +0.000
    def at_zero(name: str, delta: float) -> CandidateResult:
        return replace(PROMISING, name=name, comparisons=(
            comparison("mrr", delta, 0.0, 2 * delta, 3, 0), *PROMISING.comparisons[1:]))  # fmt: skip

    small, large, noise = at_zero("final 5", 0.01), at_zero("rerank overlap", 0.048), 2.6e-18
    same = at_zero("rerank blend", 0.048)
    assert plan.best_lead(results(small, large)).candidate == "rerank overlap"
    assert plan.best_lead(results(large, same)).candidate == "rerank blend"  # by name
    # the name chose: the lead names whom it ties (a smaller difference on the same bound: none)
    assert plan.best_lead(results(large, small, same)).tied == ("rerank overlap",)
    assert plan.best_lead(results(small, large)).tied == ()
    tile = line_of(large, small, same).lead
    assert tile is not None and (tile.candidate, tile.tied) == (
        "rerank blend",
        ", tied with rerank overlap",
    )
    # a lower bound off by float noise (below stats.TIE) ties with 0
    nudged = replace(small, comparisons=(comparison("mrr", 0.01, noise, 0.02, 1, 0),
                                         *small.comparisons[1:]))  # fmt: skip
    assert plan.best_lead(results(nudged, large)).candidate == "rerank overlap"


def test_no_lead_when_no_candidate_has_an_interval() -> None:
    first = PROMISING.comparisons[0]
    bare = replace(PROMISING, comparisons=(replace(first, low=None, high=None),
                                           *PROMISING.comparisons[1:]))  # fmt: skip
    assert plan.best_lead(results(bare)) is None
    assert line_of(bare).lead is None


def test_the_lead_tile_says_its_difference_as_a_claim() -> None:
    lead = line_of(PROMISING, BETTER).lead
    assert lead is not None
    assert (lead.candidate, lead.slug, lead.verdict, lead.gate, lead.gated, lead.delta, lead.n) == (
        "rerank feature", slug("rerank feature"), "BETTER", "GO", True,
        "Δ MRR +0.100 [+0.040, +0.160]", 20)  # fmt: skip


def test_the_data_tile_counts_the_questions_and_the_baselines_judged_share() -> None:
    counts = QuestionCounts(32, 31, 30, 1, 0, 2)
    judged = MetricStat("judged@10", 0.167, 0.144, 0.19, 30, 1)
    r = results(PROMISING)
    base = replace(r.variants[0], judged=judged)
    r = replace(r, variants=(base,), answerable=30,
                inputs=replace(r.inputs, counts=counts, chunks=49,
                               documents=(DocumentFact("d1", "T", 3, "current", "public", "en"),)))  # fmt: skip
    size = plan.data_size(r)
    assert size == DataSize(32, 31, 30, (), 1, 49, 10, judged)
    assert size.deciding == 30  # the fixture names no question no run answers
    tile = bottom_line(r, Claims(r), r.plan).data
    assert tile.size == size
    assert tile.judged_share == "Judged@10 of hybrid: 0.167 [0.144, 0.190]"
    # a results.json from before the questions were counted: the labels, judged unknown
    old = plan.data_size(replace(r, inputs=replace(r.inputs, counts=None)))
    assert (old.questions, old.judged) == (0, None)


@pytest.mark.parametrize(
    ("documents", "chunks", "chunked"),
    [
        (1, 49, True),  # paragraphs: "49 chunks in 1 document"
        (20, 60, True),
        (3, 2, True),  # fewer chunks than documents (empty ones dropped): both counted
        (20, 20, False),  # one chunk a document (a BEIR corpus): the documents alone
        (0, 0, False),  # a runs-only project without a corpus
    ],
)
def test_the_chunks_are_counted_beside_the_documents_only_when_they_differ(
    documents: int, chunks: int, chunked: bool
) -> None:
    facts = tuple(
        DocumentFact(f"d{i}", "T", 1, "current", "public", "en") for i in range(documents)
    )
    r = results(PROMISING)
    r = replace(r, inputs=replace(r.inputs, chunks=chunks, documents=facts))
    # the plan's count (the data tile) and the site model's (the lede, the dataset section)
    assert plan.data_size(r).chunked is chunked
    assert Dataset(facts, chunks, 0, 0, (), ()).chunked is chunked


CASES = {
    "no candidates": ((), POLICY, ""),
    "better and worse": (
        (BETTER, WORSE), POLICY,
        "1 better, 1 worse; gate: 1 GO, 1 BLOCK. Best lead: rerank feature, Δ MRR +0.100 "
        "[+0.040, +0.160] over 20 questions (better).",
    ),
    # the largest lower bound leads, not the file order nor the largest mean
    "the surest lead": (
        (replace(PROMISING, name="a wide one", comparisons=(
            comparison("mrr", 0.2, 0.002, 0.4, 6, 1, 0.125, 0.25), *PROMISING.comparisons[1:])),
         PROMISING), POLICY,
        "2 promising; gate: 2 GO. Best lead: rerank overlap, Δ MRR +0.050 [+0.010, +0.120] over "
        "20 questions (promising).",
    ),
    "nothing ahead, no policy": (
        (WORSE,), None,
        "1 worse; gate: no gate policy — nothing checked. No best lead: no candidate is ahead of "
        "the baseline on MRR.",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_the_bottom_line_counts_both_answers(case: str) -> None:
    cands, policy, headline = CASES[case]
    line = line_of(*cands, policy=policy)
    assert line.headline == headline
    assert [r.name for r in line.rows] == [c.name for c in cands]


@pytest.mark.parametrize(
    ("base", "cand", "text"),
    [
        (RunCosts(0.0, 200.0, 4.0), RunCosts(10.0, 200.0, 19.0),
         "pairs/question 0 → 10 · tokens/question same · latency +375 % (hypothetical)"),
        (RunCosts(0.0, 200.0, None), RunCosts(0.0, 199.5, None), "pairs/question same · tokens/question −0.2 %"),
        (RunCosts(0.0, 200.0, 4.0), RunCosts(0.0, 200.0, 4.0), "same cost"),
        (RunCosts(None, None, None), RunCosts(None, None, None), "not known"),  # external runs
    ],
)  # fmt: skip
def test_cost_change_is_not_known_for_an_external_run_never_same(
    base: RunCosts, cand: RunCosts, text: str
) -> None:
    assert _cost_text(base, cand) == text


@pytest.mark.parametrize(
    ("base", "cand", "text"),
    [(4.0, 19.0, "+375 %"), (220.7, 220.2, "−0.2 %"), (200.0, 199.0, "−0.5 %"),
     (100.0, 97.0, "−3 %"), (0.0, 3.0, "0 → 3"), (5.0, 5.0, "same")],
)  # fmt: skip
def test_change_never_says_minus_zero(base: float, cand: float, text: str) -> None:
    assert change(base, cand) == text


def test_the_demo_rows_are_the_results_numbers(demo_site: Path) -> None:
    results = evidencedesk.load_results(demo_site / "results.json")
    line = bottom_line(results, Claims(results), results.plan)
    assert len(line.rows) == len(results.candidates) == 10
    for row, c in zip(line.rows, results.candidates, strict=True):
        mrr = c.comparison("mrr")
        assert (row.name, row.verdict, row.gate) == (c.name, c.decision.verdict, c.gate.level)
        assert row.primary == mrr  # the row references the Results comparison it shows
        assert row.flips == f"+{len(mrr.better)}/−{len(mrr.worse)}"
        assert row.critical == c.decision.critical_worse
    overlap = next(r for r in line.rows if r.name == "rerank overlap")
    assert (
        overlap.cost
        == "pairs/question 0 → 10 · tokens/question +0.1 % · latency +375 % (hypothetical)"
    )
    lead = line.lead  # intervals that start at +0.000: the largest difference of them
    assert lead is not None and (lead.candidate, lead.delta) == (
        "rerank overlap", "Δ MRR +0.056 [+0.000, +0.135]")  # fmt: skip
    assert [c.count for c in line.verdicts.tallies] == ["0", "0", "10"]
    assert [(c.key, c.count) for c in line.gate.levels] == [
        ("GO", "6"),
        ("REVIEW", "2"),
        ("BLOCK", "2"),
    ]
    page = (demo_site / "index.html").read_text("utf-8")
    assert page.index('id="bottom-line"') < page.index('id="verdicts"') < page.index('id="dataset"')
    tiles = page[page.index('<div class="tiles">') : page.index('<section id="verdicts">')]
    assert visible(tiles) == (
        "Better than hybrid? 0 better 0 worse 10 unclear = NO CLEAR CHANGE × 9 ▽ LEANS WORSE × 1 "
        "May it ship? (release gate) ✓ GO × 6 ! REVIEW × 2 ✕ BLOCK × 2 Each rule, per candidate → "
        "Best lead rerank overlap Δ MRR +0.056 [+0.000, +0.135] n=21 = NO CLEAR CHANGE ✓ GO What "
        "it rests on 24 questions 21 decide decide: those with a relevant chunk in scope · 24 judged 20 "
        "documents · 60 chunks Judged@3 of hybrid: 1.000 [1.000, 1.000]"
    )
    assert "<li>" not in page[page.index('id="bottom-line"') : page.index('<div class="tiles">')]


def test_every_page_links_the_downloads_this_build_wrote(demo_site: Path) -> None:
    written = {"results.json"} | {
        str(p.relative_to(demo_site)) for p in (demo_site / "data").rglob("*") if p.is_file()
    }
    written.remove(LIST_DATA)  # the question list's own rows, read by its script: not a download
    for page in ("index.html", "gate.html", "methods.html", "question-rc01.html"):
        html = (demo_site / page).read_text("utf-8")
        footer = html.split('<p class="downloads">')[1].split("</p>")[0]
        links = set(re.findall(r'<a href="([^"#]+)"', footer)) - {"methods.html"}
        assert links == written, page
