"""The gate never skips silently: runs-only projects gate against the baseline run, and every
policy key is evaluated or listed "not evaluated: <why>" (results, candidate page, gate page)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from evidencedesk import cli
from evidencedesk.report._build import _build_model
from evidencedesk.report._model import BuildOptions
from tests.page_text import unmarked
from tests.synthetic_runs import write_project

QIDS = tuple(f"q{n:02d}" for n in range(1, 13))
QRELS = {q: {f"{q}-a": 2, f"{q}-x": 0} for q in QIDS}
BASE = {q: [f"{q}-a", f"{q}-x", "junk"] for q in QIDS}
# q01..q03 drop the answer to rank 2: MRR 1.000 -> (9 + 3 × 0.5) / 12 = 0.875, recall@3 unchanged
DROP = {q: ([f"{q}-x", f"{q}-a", "junk"] if q in QIDS[:3] else BASE[q]) for q in QIDS}


def _project(tmp_path: Path, **policy: object) -> Path:
    return write_project(tmp_path, QRELS, {"base": BASE, "drop": DROP},
                         policy={"k": 3, "max_drop": 0.05, **policy})  # fmt: skip


def test_a_drop_beyond_max_drop_is_review_with_the_drop_line(tmp_path: Path) -> None:
    model = _build_model(BuildOptions(project=_project(tmp_path)), lambda stage: None)
    (c,) = model.candidates
    assert c.gate_level == "REVIEW"
    # the gate's reciprocal rank reads its top k: it is named so, never the site's "MRR"
    rr = "MRR@3 (reciprocal rank within the gate's top 3)"
    assert [g.text for g in c.gate_lines] == [
        f"{rr} dropped 0.125 against the gate's baseline (1.000 → 0.875), more than the allowed "
        "0.050",
        f"{rr} worse for 3 question(s) (q01, q02, q03), better for 0 (sign-test p = 0.250)",
    ]
    assert c.gate_baseline == "the baseline run base"
    rows = {(r.rule, r.metric): (r.observed, r.threshold, r.status) for r in c.gate_rules}
    assert rows[("max_drop", rr)] == ("drop 0.125 (1.000 → 0.875)", "drop ≤ 0.050", "REVIEW")
    assert rows[("max_drop", "R@3")] == ("no drop (1.000 → 1.000)", "drop ≤ 0.050", "pass")
    assert rows[("critical", "")][2] == "not evaluated: no critical question ids in the policy"
    # the gate answers may it ship; the verdict (from the statistics) is its own answer
    assert c.decision == "NO CLEAR CHANGE"
    assert c.recommendation.headline == (
        "No clear change: nDCG@10 (linear gain) −0.092 [−0.185, +0.000], flips +0/−3 (no "
        "lean: sign-test p = 0.250, not below 0.2); no reported metric moved."
    )


def test_a_rule_switched_off_is_listed_not_evaluated(tmp_path: Path) -> None:
    project = _project(tmp_path, review_on_mrr_flips=False, max_drop=0.2)
    out = tmp_path / "site"
    code = cli.main(["build", "--project", str(project), "--out", str(out)],
                    stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert code == 0
    gate = json.loads((out / "results.json").read_text("utf-8"))["candidates"][0]["gate"]
    assert gate["level"] == "GO" and gate["baseline"] == "the baseline run base"
    flips = [r for r in gate["rules"] if r["rule"] == "review_on_mrr_flips"]
    assert flips == [{"metric": "mrr", "observed": None, "reference": None,
                      "rule": "review_on_mrr_flips", "status": "not evaluated", "threshold": None,
                      "why": "switched off in the policy (review_on_mrr_flips = false)"}]  # fmt: skip
    (page,) = out.glob("candidate-drop*.html")
    text = page.read_text("utf-8")
    assert "not evaluated: switched off in the policy (review_on_mrr_flips = false)" in text
    gate_page = (out / "gate.html").read_text("utf-8")
    assert "drop 0.125 (1.000 → 0.875)" in gate_page and "drop ≤ 0.200" in gate_page
    assert "The policy names no critical questions." in gate_page


def test_a_critical_question_that_gets_worse_while_passing_is_named(tmp_path: Path) -> None:
    project = _project(tmp_path, max_drop=0.2, review_on_mrr_flips=False, critical=["q02"],
                       notes={"q02": "a miss can hurt a rider"})  # fmt: skip
    out = tmp_path / "site"
    assert cli.main(["build", "--project", str(project), "--out", str(out)],
                    stdout=io.StringIO(), stderr=io.StringIO()) == 0  # fmt: skip
    results = json.loads((out / "results.json").read_text("utf-8"))
    (cand,) = results["candidates"]
    assert cand["gate"]["level"] == "GO"  # q02 still has its answer in the top 3
    assert cand["decision"]["critical_worse"] == ["q02"]
    index = (out / "index.html").read_text("utf-8")
    # the candidate's row names the question beside its gate badge, which still says GO
    row = index[index.index("<tbody>", index.index('class="sortable decision-table')) :]
    row = unmarked(row[: row.index("</tr>")])
    assert (
        'title="critical question(s) worse under this candidate: q02">critical ▼ q02</span>' in row
    )
    assert '<span class="badge badge-go"><span aria-hidden="true">✓</span> GO</span>' in row
    (cand_page,) = out.glob("candidate-drop*.html")
    assert (
        "Critical question(s) worse: q02 (on nDCG@10 (linear gain) and MRR) — the gate decides "
        "(GO)."
    ) in cand_page.read_text("utf-8")
    page = (out / "question-q02.html").read_text("utf-8")
    assert '<span class="tag tag-critical">critical</span>' in page
    assert "a miss can hurt a rider. It got worse on some reported metric under:" in page
    assert "tag-critical" not in (out / "question-q05.html").read_text("utf-8")
