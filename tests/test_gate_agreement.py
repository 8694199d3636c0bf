"""One gate answer (issue 35, item 5): ``benchmark --gate`` and ``build --fail-on block`` decide
the same candidates against the same policy and baseline; the flips rule's evidence keys; the
gate page's "N of M rules" counts the rows it lists."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.cli._init import _STARTER_GATE
from evidencedesk.gate import GateLevel, GatePolicy, _decide_gate, _GateInput, _Reference
from evidencedesk.paths import DATA
from evidencedesk.report._gate_view import rule_rows, summary
from evidencedesk.results.types import PolicyFacts, RuleValue
from tests.project_fixtures import make_runs_only_project

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "millbrook-library"


def main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _strict_runs_only(tmp_path: Path) -> Path:
    """A runs-only project whose policy blocks a run: the case where the two used to disagree
    (benchmark --gate gated the baseline run: GO; the build blocked a candidate)."""
    toml = make_runs_only_project(tmp_path, questions=20, runs=3)
    (toml.parent / "policy.json").write_text('{"k": 5, "min_recall": 0.6}\n', encoding="utf-8")
    with toml.open("a", encoding="utf-8") as f:
        f.write('[gate]\npolicy = "policy.json"\n')
    return toml


@pytest.mark.parametrize("which", ["runs-only", "strict runs-only", "pipeline", "demo"])
def test_benchmark_gate_decides_what_the_build_decides(tmp_path: Path, which: str) -> None:
    project = {
        "runs-only": EXAMPLE / "runs-only",
        "strict runs-only": _strict_runs_only(tmp_path) if which == "strict runs-only" else None,
        "pipeline": EXAMPLE,
        "demo": DATA / "evidencedesk.toml",
    }[which]
    code, out, err = main("benchmark", "--project", str(project), "--gate", "--json")
    assert code in (0, 1), err
    gate = json.loads(out)["gate"]
    site = tmp_path / "site"
    built, _, err = main("build", "--project", str(project), "--out", str(site), "-q",
                         "--fail-on", "block")  # fmt: skip
    assert built in (0, 1), err
    results = json.loads((site / "results.json").read_text("utf-8"))
    decided = {c["name"]: c["gate"]["level"] for c in results["candidates"]}
    assert decided, "every project here has candidates"
    assert {c["name"]: c["level"] for c in gate["candidates"]} == decided
    assert code == built  # exit 1 for the same BLOCK, 0 for the same GO / REVIEW
    worst = "BLOCK" if "BLOCK" in decided.values() else "REVIEW" if "REVIEW" in decided.values() \
        else "GO"  # fmt: skip
    assert gate["level"] == worst
    if which == "strict runs-only":
        assert code == built == 1 and gate["baseline"] == ["the baseline run base"]


def test_the_gate_lines_name_each_candidate(tmp_path: Path) -> None:
    code, out, _ = main("benchmark", "--project", str(_strict_runs_only(tmp_path)), "--gate")
    assert code == 1
    tail = out.split("\n\ngate: ")[1].splitlines()
    assert tail[0] == "2 candidate(s), as the build gates them, vs the baseline run base"
    # the baseline misses the policy's floor too: said before the candidates
    assert tail[1].startswith("  The baseline base itself fails the gate policy (BLOCK): R@5 "
                              "0.400 is below the minimum 0.600. ")  # fmt: skip
    assert re.fullmatch(r"  BLOCK   (better|worse)", tail[2])
    assert tail[-1] == "GATE: BLOCK"


def _flips(worse: int, better: int, k: int = 3) -> tuple[_GateInput, _Reference]:
    """A run that lost `worse` questions and won `better` against its reference (rr 1 vs 0.5)."""
    ids = [f"q{i:02d}" for i in range(worse + better)]
    now = {q: (0.5 if i < worse else 1.0) for i, q in enumerate(ids)}
    before = {q: (1.0 if i < worse else 0.5) for i, q in enumerate(ids)}
    shaped = _GateInput(k, 3, 1.0, 1.0, dict.fromkeys(ids, True), dict(now),
                       dict.fromkeys(ids, 1.0), sum(now.values()) / len(ids))  # fmt: skip
    reference = _Reference(k, {f"recall@{k}": 1.0, "mrr": shaped.mrr}, before, run="base")
    return shaped, reference


def _starter() -> GatePolicy:
    """The policy `evidencedesk init` suggests, read from its comment lines."""
    start = next(i for i, line in enumerate(_STARTER_GATE) if line.startswith("#   {"))
    text = "".join(line.lstrip("# ") for line in _STARTER_GATE[start : start + 2])
    return GatePolicy.model_validate_json(text)


@pytest.mark.parametrize(
    ("policy", "worse", "better", "reviewed"),
    [
        ({}, 8, 7, True),  # the course page's rule: one more worse than better reviews
        ({}, 7, 7, False),
        ({"flips_max_p": 0.2}, 8, 7, False),  # p = 1.000: noise
        ({"flips_max_p": 0.2}, 6, 0, True),  # p = 0.031
        ({"flips_max_p": 0.2}, 5, 1, False),  # p = 14 / 64 = 0.219
        ({"flips_min_net": 3}, 8, 7, False),
        ({"flips_min_net": 3}, 9, 6, True),
    ],
)
def test_the_flips_rule_asks_for_the_evidence_the_policy_names(
    policy: dict[str, float], worse: int, better: int, reviewed: bool
) -> None:
    shaped, reference = _flips(worse, better)
    result = _decide_gate(GatePolicy(**policy), shaped, reference)
    assert (result.level is GateLevel.REVIEW) == reviewed


def test_the_starter_policy_does_not_review_8_worse_against_7_better() -> None:
    starter = _starter()
    assert starter.flips_max_p == 0.2
    shaped, reference = _flips(8, 7, starter.k)
    assert _decide_gate(starter, shaped, reference).level is GateLevel.GO
    shaped, reference = _flips(8, 7)
    # the course page's policy (no evidence keys) keeps SPEC §8's rule, worded as it is there
    demo = GatePolicy.model_validate_json((DATA / "gate_policy_retrieval.json").read_text())
    assert (demo.flips_min_net, demo.flips_max_p) == (1, 1.0)  # it names neither key
    result = _decide_gate(demo, shaped, reference)  # (its critical ids are not among q00…q14)
    assert result.lines[-1] == (
        "review: MRR within the final list worse for 8 question(s) [q00, q01, q02, q03, q04, q05, "
        "q06, q07], better for 7 (sign-test p=1.000)"
    )


def test_the_policy_keys_are_validated() -> None:
    from pydantic import ValidationError

    for bad in ({"flips_min_net": 0}, {"flips_max_p": 0.0}, {"flips_max_p": 1.5}):
        with pytest.raises(ValidationError):
            GatePolicy(**bad)


_ROWS = (
    RuleValue("critical", None, 1.0, 1.0, None, "pass", None),
    RuleValue("min_recall", "recall@3", 0.8, 0.75, None, "pass", None),
    RuleValue("min_pass_rate", None, 0.9, 0.8, None, "pass", None),
    RuleValue("max_drop", "recall@3", 0.8, 0.02, 0.8, "pass", None),
    RuleValue("max_drop", "mrr", 0.5, 0.02, 0.6, "REVIEW", None),
    RuleValue("review_on_mrr_flips", "mrr", None, None, None, "not evaluated", "no baseline"),
)


def test_n_of_m_rules_counts_every_row_listed() -> None:
    # the bug: "4 of 5 rules pass · 1 REVIEW · 1 not evaluated" listed six rows
    assert summary(_ROWS) == "4 of 6 rules pass · 1 REVIEW · 1 not evaluated"
    assert len(rule_rows(_ROWS, 3, "pipeline")) == 6


def test_the_flips_rows_state_the_evidence_asked_for() -> None:
    facts = PolicyFacts(3, 0.0, 0.0, 0.0, True, (), {}, 1, 0.2)
    # 8 lost, 5 won: more worse than better, but the policy asks for p <= 0.2 (here 0.58)
    flips = RuleValue("review_on_mrr_flips", "mrr", 8.0, None, 5.0, "pass", None)
    row = rule_rows((flips,), 3, "pipeline", facts)[0]
    assert (row.observed, row.threshold, row.status) == (
        "worse for 8, better for 5", "worse ≤ better or sign-test p > 0.200", "pass",
    )  # fmt: skip
    assert rule_rows((flips,), 3, "pipeline")[0].threshold == "worse ≤ better"  # the defaults


def test_the_flips_row_holds_the_losses_and_wins_its_gate_line_names(demo_results) -> None:  # type: ignore[no-untyped-def]
    # observed: the questions MRR lost; reference: those it won, whether the rule fired or not
    rows = {c.name: next(r for r in c.gate.rules if r.rule == "review_on_mrr_flips")
            for c in demo_results.candidates}  # fmt: skip
    fired = {c.name: g for c in demo_results.candidates for g in c.gate.checks
             if g.rule == "review_on_mrr_flips"}  # fmt: skip
    assert sorted(fired) == ["dense: MiniLM", "pair cut to 8 words"]
    for name, g in fired.items():
        assert (rows[name].observed, rows[name].reference) == (len(g.questions), g.counts[0])
    assert (rows["pair cut to 8 words"].observed, rows["pair cut to 8 words"].reference) == (4, 0)
    assert all(r.status == "pass" and r.observed is not None and r.observed <= (r.reference or 0)
               for name, r in rows.items() if name not in fired)  # fmt: skip


def test_the_gate_records_the_top_k_it_read(demo_results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # a pipeline candidate: its final list, whether or not it changes `final`
    base_final = demo_results.variant(demo_results.baseline).config["final"]
    k = {c.name: c.gate.k for c in demo_results.candidates}
    assert base_final == 3 and k["final 5"] == 5 and k["depth 20"] == k["rerank blend"] == 3
    # a runs-only run: the policy's k; with no policy, nothing was read
    site = tmp_path / "site"
    assert main("build", "--project", str(_strict_runs_only(tmp_path)), "--out", str(site),
                "-q")[0] == 0  # fmt: skip
    results = json.loads((site / "results.json").read_text("utf-8"))
    assert {c["gate"]["k"] for c in results["candidates"]} == {5}
    toml = make_runs_only_project(tmp_path / "plain", questions=20, runs=3)
    plain = tmp_path / "plain-site"
    assert main("build", "--project", str(toml), "--out", str(plain), "-q")[0] == 0
    results = json.loads((plain / "results.json").read_text("utf-8"))
    assert results["policy"] is None
    assert [c["gate"]["k"] for c in results["candidates"]] == [None, None]
