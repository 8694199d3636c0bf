"""The index's bottom line and decision rows: exact sentences for hand-made verdict sets, and the
demo's rows equal to its Results' numbers."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report.bottom_line import bottom_line, change, cost_text
from evidencedesk.report.claims import Claims
from evidencedesk.report.question_list import LIST_DATA
from evidencedesk.results.rows import Costs, MetricStat
from evidencedesk.results.settings import COMPARED, PIPELINE_COLUMNS, Settings
from evidencedesk.results.types import (
    CandidateResult,
    Comparison,
    GateCheck,
    GateOutcome,
    Inputs,
    PolicyFacts,
    Results,
    VariantResult,
)
from evidencedesk.results.verdicts import Decision

SETTINGS = Settings(0, 2, "pipeline", PIPELINE_COLUMNS, COMPARED, "mrr", None)
BASE_COSTS = Costs(0.0, 200.0, 4.0)


def stat(metric: str, mean: float) -> MetricStat:
    return MetricStat(metric, mean, mean - 0.1, mean + 0.1, 20, 0)


def comparison(metric: str, delta: float, low: float, high: float, better: int, worse: int,
               sign_p: float = 0.5, holm_p: float = 0.5) -> Comparison:  # fmt: skip
    return Comparison(metric, stat(metric, 0.6), stat(metric, 0.6 + delta), delta, low, high, 20,
                      tuple(f"b{i}" for i in range(better)), tuple(f"w{i}" for i in range(worse)),
                      20 - better - worse, sign_p, sign_p, holm_p)  # fmt: skip


def candidate(name: str, decision: Decision, mrr: Comparison, gate: str = "GO",
              checks: tuple[GateCheck, ...] = (), costs: Costs = BASE_COSTS) -> CandidateResult:  # fmt: skip
    others = tuple(comparison(m, 0.0, -0.05, 0.05, 0, 0) for m in ("recall@3", "ndcg@5"))
    return CandidateResult(name, "", (), (), (mrr, *others), (), costs,
                           GateOutcome(gate, checks, True), None, decision)  # fmt: skip


POLICY = PolicyFacts(3, 0.75, 0.8, 0.02, True, ("rc02",), {})


def results(*cands: CandidateResult, policy: PolicyFacts | None = POLICY) -> Results:
    base = VariantResult("hybrid", "builtin", "", {}, (), BASE_COSTS, (), ())
    inputs = Inputs("p", (), "", (), (), 0, (), ())
    return Results(1, "0", SETTINGS, inputs, "hybrid", (base,), (), None, 20, cands, None, None,
                   None, None, policy)  # fmt: skip


MIN_RECALL = GateCheck("BLOCK", "min_recall", "recall@3", 0.6, 0.75, (), None, None, (), None)
BETTER = candidate(
    "rerank feature",
    Decision("BETTER", "mrr", ("mrr",), (), ()),
    comparison("mrr", 0.1, 0.04, 0.16, 9, 0, 0.004, 0.008),
    costs=Costs(10.0, 200.0, 19.0),
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
CASES = {
    "no candidates": (
        (), POLICY,
        "No candidate changes to decide on: the project defines none, so this report "
        "describes its variants only.",
    ),
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
    line = bottom_line(results(*cands, policy=policy), Claims(results(*cands, policy=policy)))
    assert line.headline == headline
    assert [r.name for r in line.rows] == [c.name for c in cands]


def test_a_runs_only_project_with_one_run_has_nothing_to_decide() -> None:
    runs = replace(results(), settings=replace(SETTINGS, kind="runs"))
    assert bottom_line(runs, Claims(runs)).headline == (
        "No candidate changes to decide on: the project has no run besides its baseline hybrid, "
        "so this report describes that run only."
    )


@pytest.mark.parametrize(
    ("base", "cand", "text"),
    [
        (Costs(0.0, 200.0, 4.0), Costs(10.0, 200.0, 19.0),
         "pairs/question 0 → 10 · tokens/question same · latency +375 % (hypothetical)"),
        (Costs(0.0, 200.0, None), Costs(0.0, 199.5, None), "pairs/question same · tokens/question −0.2 %"),
        (Costs(0.0, 200.0, 4.0), Costs(0.0, 200.0, 4.0), "same cost"),
        (Costs(None, None, None), Costs(None, None, None), "not known"),  # external runs
    ],
)  # fmt: skip
def test_cost_change_is_not_known_for_an_external_run_never_same(
    base: Costs, cand: Costs, text: str
) -> None:
    assert cost_text(base, cand) == text


@pytest.mark.parametrize(
    ("base", "cand", "text"),
    [(4.0, 19.0, "+375 %"), (220.7, 220.2, "−0.2 %"), (200.0, 199.0, "−0.5 %"),
     (100.0, 97.0, "−3 %"), (0.0, 3.0, "0 → 3"), (5.0, 5.0, "same")],
)  # fmt: skip
def test_change_never_says_minus_zero(base: float, cand: float, text: str) -> None:
    assert change(base, cand) == text


def test_the_demo_rows_are_the_results_numbers(demo_site: Path) -> None:
    results = evidencedesk.load_results(demo_site / "results.json")
    line = bottom_line(results, Claims(results))
    assert len(line.rows) == len(results.candidates) == 10
    for row, c in zip(line.rows, results.candidates, strict=True):
        mrr = c.comparison("mrr")
        assert (row.name, row.verdict, row.gate) == (c.name, c.decision.verdict, c.gate.verdict)
        assert (row.delta.value, row.delta.low, row.delta.high, row.delta.n) == (
            mrr.delta, mrr.low, mrr.high, mrr.n
        )  # fmt: skip
        assert row.flips == f"+{len(mrr.better)}/−{len(mrr.worse)}"
        assert row.critical == c.decision.critical_worse
    overlap = next(r for r in line.rows if r.name == "rerank overlap")
    assert (
        overlap.cost
        == "pairs/question 0 → 10 · tokens/question same · latency +375 % (hypothetical)"
    )
    page = (demo_site / "index.html").read_text("utf-8")
    assert page.index('id="bottom-line"') < page.index('id="verdicts"') < page.index('id="dataset"')
    assert f"<strong>{line.headline}</strong>" in page


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
