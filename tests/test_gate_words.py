"""The gate's terminal lines say what the site says: its MRR is named with the list it reads
("MRR@k" of a runs-only gate, not the table's MRR; "MRR within the final list" of a pipeline's,
whose lists' lengths differ between a candidate and the baseline), a p-value is never "0.000", and a critical question fails for
want of a relevant *result* (a chunk or a run's document). Values worked by hand."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk.gate import (
    GateCheck,
    GateLevel,
    GatePolicy,
    _cut,
    _decide_gate,
    _Reference,
    _shape,
)
from evidencedesk.report._exports import export_tables
from evidencedesk.results.types import Results
from evidencedesk.retrieval._stats import p_is, p_text, sign_test_p
from evidencedesk.retrieval.metrics import Judged


def _doc(qid: str, grades: tuple[int, ...]) -> Judged:
    """A run's ranked documents for `qid` (one relevant document, grade 2, in the judgments)."""
    return Judged(qid, (), True, grades, (2,), tuple(f"{qid}-d{i}" for i in range(len(grades))))


# a runs-only project's lists, 5 deep, read by the gate at its top 3:
# base: q1's relevant document at rank 1, q2's at rank 2, q3's at rank 4 (outside the top 3)
# cand: q1's at rank 2, q2's at rank 5 (outside), q3's at rank 4 (outside)
BASE = (_doc("q1", (2, 0, 0, 0, 0)), _doc("q2", (0, 2, 0, 0, 0)), _doc("q3", (0, 0, 0, 2, 0)))
CAND = (_doc("q1", (0, 2, 0, 0, 0)), _doc("q2", (0, 0, 0, 0, 2)), _doc("q3", (0, 0, 0, 2, 0)))
POLICY = GatePolicy(k=3, max_drop=0.02, critical=("q2",))


def test_the_gate_names_its_mrr_with_the_top_k_it_reads() -> None:
    # the whole lists' MRR (a table's): base (1 + 1/2 + 1/4) / 3 = 0.583, cand (1/2 + 1/5 + 1/4)
    # / 3 = 0.317; the gate's, within the top 3: base (1 + 1/2 + 0) / 3 = 0.500, cand (1/2 + 0 +
    # 0) / 3 = 0.167 -- the numbers its line prints, so it names them MRR@3
    reference = _Reference.of_judged(_cut(BASE, 3), 3, 3, "base")
    result = _decide_gate(POLICY, _shape(_cut(CAND, 3), 3, 3, "top"), reference)
    assert result.lines == (
        "block: critical: q2 failed (no relevant result in the top 3)",
        "review: recall@3 dropped 0.333 vs baseline (0.667 -> 0.333), more than the allowed 0.020",
        "review: MRR@3 dropped 0.333 vs baseline (0.500 -> 0.167), more than the allowed 0.020",
        "review: MRR@3 worse for 2 question(s) [q1, q2], better for 0 (sign-test p=0.500)",
    )
    assert [c.k for c in result.checks] == [3, None, 3, 3]  # the final list's size, kept as data


def test_a_tiny_sign_test_p_prints_below_0_001_never_0_000() -> None:
    # +1/−35 (the QA's reversed run): p = 2 * (1 + 36) / 2^36 = 1.08e-9
    p = sign_test_p(1, 35)
    assert p == pytest.approx(74 / 2**36)
    check = GateCheck(GateLevel.REVIEW, "review_on_mrr_flips", "mrr",
                      questions=("q1", "q2"), k=10, counts=(1,), p=p, cut="top")  # fmt: skip
    assert check.line() == (
        "review: MRR@10 worse for 2 question(s) [q1, q2], better for 1 (sign-test p<0.001)"
    )
    assert "0.000" not in check.line()


def test_a_check_from_an_earlier_results_json_without_k_still_reads() -> None:
    check = GateCheck(GateLevel.REVIEW, "max_drop", "mrr", 0.626, 0.02, reference=0.675)
    assert (
        check.text()
        == "mrr dropped 0.049 vs baseline (0.675 -> 0.626), more than the allowed 0.020"
    )
    assert replace(check, k=10, cut="top").text() == (
        "MRR@10 dropped 0.049 vs baseline (0.675 -> 0.626), more than the allowed 0.020"
    )
    # a pipeline's gate reads each run's final list: the baseline's 3 against a candidate's 1
    # here, so no one k names both values
    assert replace(check, k=1).text() == (
        "MRR within the final list dropped 0.049 vs baseline (0.675 -> 0.626), more than the "
        "allowed 0.020"
    )


@pytest.mark.parametrize(
    ("p", "text", "said"),
    [
        (0.125, "0.125", "p = 0.125"),
        (0.001, "0.001", "p = 0.001"),
        (0.0009999, "< 0.001", "p < 0.001"),
        (74 / 2**36, "< 0.001", "p < 0.001"),
        (1.0, "1.000", "p = 1.000"),
    ],
)
def test_one_rule_for_a_p_value_and_the_site_reads_it(p: float, text: str, said: str) -> None:
    assert (p_text(p), p_is(p)) == (text, said)


def test_the_markdown_export_prints_a_tiny_holm_p_as_below_0_001(demo_site: Path) -> None:
    from evidencedesk.results._serialize import load

    results: Results = load(demo_site / "results.json")
    first = results.candidates[0]
    primary = first.decision.primary
    tiny = tuple(replace(c, holm_p=1e-6) if c.metric == primary else c for c in first.comparisons)
    results = replace(
        results, candidates=(replace(first, comparisons=tiny), *results.candidates[1:])
    )
    markdown = export_tables(results, "markdown")
    row = next(
        line
        for line in markdown.splitlines()
        if line.startswith(f"| `{first.name}` | {first.decision.verdict}")
    )
    assert row.endswith("| < 0.001 |")
    assert "0.000 |" not in markdown.split("| Candidate |")[1]
    latex = export_tables(results, "latex")
    assert "& $<$ 0.001 \\\\" in latex  # "<" in LaTeX text mode would print as an inverted "!"


def test_a_runs_only_site_says_a_critical_case_reads_the_runs_top_k(tmp_path: Path) -> None:
    """A TREC run has no final list: its critical case reads the run's top k, in the site's
    gate lines as in the terminal's, and the audit restates the same words."""
    import evidencedesk
    from evidencedesk.report._audit import audit
    from tests.page_text import visible
    from tests.synthetic_runs import write_project

    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    base = {"q1": ["d1", "x"], "q2": ["d2", "x"]}
    cand = {"q1": ["d1", "x"], "q2": ["x", "y", "d2"]}  # q2's document below the top 2
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1,
                            policy={"k": 2, "critical": ["q2"]})  # fmt: skip
    out = tmp_path / "site"
    evidencedesk.build(project=project, out=out)
    page = visible((out / "candidate-cand.html").read_text("utf-8"), unescape=True)
    assert "critical: q2 failed: no relevant result (grade ≥ 1) in the top 2" in page
    assert "in the final" not in page
    assert [d.line() for d in audit(out)[0]] == []
