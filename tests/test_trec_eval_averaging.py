"""`[report] averaging = "trec_eval"` averages a judged question with no relevant judgment in as
trec_eval scores it: 0 for every metric but nDCG, whose grades below the relevance threshold keep
their gain (trec_eval's ndcg and ndcg_cut read every positive grade, whatever ``-l`` says).

Hand-worked, relevance 2, linear gain, cut at 3:
  q1 {d1: 2}, list [d1]: nDCG 1, RR 1, recall 1
  q2 {d2: 1, d3: 0} (nothing relevant), list [x, d2]: nDCG 1/log2(3) / 1 = 0.630930, RR 0, recall 0
  q3 {d4: 2}, list [x, y, d4]: nDCG 1/log2(4) = 0.5, RR 1/3, recall 1
  q4 {d5: 0} (nothing graded above 0), list [d5]: nDCG 0 (the ideal list gains nothing)
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._audit import audit
from evidencedesk.results.types import Results
from evidencedesk.retrieval.metrics import Judged, _metric_value, _trec_eval_value
from tests.page_text import visible
from tests.synthetic_runs import write_project

QRELS = {"q1": {"d1": 2}, "q2": {"d2": 1, "d3": 0}, "q3": {"d4": 2}, "q4": {"d5": 0}}
LISTS = {"q1": ["d1"], "q2": ["x", "d2"], "q3": ["x", "y", "d4"], "q4": ["d5"]}
METRICS = 'metrics = ["ndcg@3:linear", "mrr", "recall@3"]'
NDCG_Q2 = 1 / math.log2(3)
ROOT = Path(__file__).resolve().parents[1]


def _build(tmp_path: Path, averaging: str) -> Results:
    project = write_project(tmp_path / averaging, QRELS, {"base": LISTS, "cand": LISTS},
                            report=f'{METRICS}\naveraging = "{averaging}"',
                            policy={"k": 3})  # fmt: skip
    return evidencedesk.build(project=project, out=tmp_path / f"site-{averaging}")


@pytest.mark.parametrize(
    ("averaging", "ndcg", "mrr", "recall", "n"),
    [
        ("trec_eval", (1 + NDCG_Q2 + 0.5 + 0) / 4, (1 + 0 + 1 / 3 + 0) / 4, 2 / 4, 4),
        ("defined", (1 + 0.5) / 2, (1 + 1 / 3) / 2, 1.0, 2),
    ],
)
def test_the_means_count_a_question_with_nothing_relevant_as_the_averaging_says(
    tmp_path: Path, averaging: str, ndcg: float, mrr: float, recall: float, n: int
) -> None:
    results = _build(tmp_path, averaging)
    base = results.variants[0]
    means = {m.metric: (m.mean, m.n) for m in base.metrics}
    assert means["ndcg@3:linear"] == (pytest.approx(ndcg, abs=1e-12), n)
    assert means["mrr"] == (pytest.approx(mrr, abs=1e-12), n)
    assert means["recall@3"] == (pytest.approx(recall, abs=1e-12), n)
    # q2's values, the runs-only benchmark's columns (nDCG@10 among them) too
    q2 = next(r for r in base.lists if r.question == "q2").values
    if averaging == "trec_eval":
        assert q2 == {"ndcg@3:linear": pytest.approx(NDCG_Q2, abs=1e-12), "mrr": 0.0,
                      "recall@3": 0.0, "recall@10": 0.0, "precision@10": 0.0,
                      "ndcg@10:linear": pytest.approx(NDCG_Q2, abs=1e-12)}  # fmt: skip
    else:
        assert q2 == dict.fromkeys(("ndcg@3:linear", "mrr", "recall@3", "recall@10",
                                    "precision@10", "ndcg@10:linear"))  # fmt: skip


def test_the_readable_definition_gives_trec_eval_s_value_where_the_metric_is_undefined() -> None:
    # q2 above, and q4: nothing graded above 0, so the ideal list gains nothing
    q2 = Judged("q2", (), True, grades=(0, 1), pool=(1,), relevant=2)
    q4 = Judged("q4", (), True, grades=(0,), pool=(), relevant=2)
    assert _metric_value(q2, "ndcg@3:linear") is None
    assert _trec_eval_value(q2, "ndcg@3:linear") == pytest.approx(NDCG_Q2, abs=1e-15)
    assert _trec_eval_value(q2, "ndcg@3") == pytest.approx(NDCG_Q2, abs=1e-15)  # 2^1 - 1 = 1
    assert _trec_eval_value(q4, "ndcg@3:linear") == 0.0
    for name in ("mrr", "recall@3", "precision@3", "map", "bpref", "rprec"):
        assert _trec_eval_value(q2, name) == 0.0


def test_pytrec_eval_agrees_on_every_question(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    results = _build(tmp_path, "trec_eval")
    run = {q: {d: 100.0 - r for r, d in enumerate(ids, start=1)} for q, ids in LISTS.items()}
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut_3", "recip_rank", "recall_3"},
                                            relevance_level=2).evaluate(run)  # fmt: skip
    for row in results.variants[0].lists:
        expected = theirs[row.question]
        assert row.values["ndcg@3:linear"] == pytest.approx(expected["ndcg_cut_3"], abs=1e-12)
        assert row.values["mrr"] == pytest.approx(expected["recip_rank"], abs=1e-12)
        assert row.values["recall@3"] == pytest.approx(expected["recall_3"], abs=1e-12)


def test_the_pages_say_how_such_a_question_counts(tmp_path: Path) -> None:
    _build(tmp_path, "trec_eval")
    assert audit(tmp_path / "site-trec_eval")[0] == []
    site = tmp_path / "site-trec_eval"
    text = {page: visible((site / page).read_text("utf-8"), unescape=True)
            for page in ("index.html", "question-q4.html", "methods.html")}  # fmt: skip
    assert (
        "4 questions, all judged, 2 with a relevant judgment (grade ≥ 2); the other 2 judged count "
        "0 in the means but nDCG's, which reads their grades below 2 (trec_eval's averaging)"
    ) in text["index.html"]
    assert (
        "2 questions with a relevant judgment decide every comparison (nDCG's also reads the "
        "other judged questions' grades below 2, as trec_eval's averaging does): a one- or "
        "two-question difference is noise."
    ) in text["index.html"]
    assert (
        "(no relevant judgment): it counts 0 in the means but nDCG's, which reads its grades "
        "below 2, as trec_eval averages it"
    ) in text["question-q4.html"]
    assert (
        "as here, it counts 0 in the means but nDCG's, which reads its grades below 2, as "
        "trec_eval averages it: the benchmark, the candidates and the slices leave it out of no "
        "mean; the gate's means read only the questions with a relevant judgment."
    ) in text["methods.html"]


def test_the_gate_reads_the_questions_with_a_relevant_judgment_and_says_so(tmp_path: Path) -> None:
    # R@3 of the base: q1 1, q3 1 (d4 at rank 3): 1.000 over the two with a relevant judgment,
    # where trec_eval's averaging of the report's means would give (1 + 0 + 1 + 0) / 4
    _build(tmp_path, "trec_eval")
    gate = visible((tmp_path / "site-trec_eval" / "gate.html").read_text("utf-8"), unescape=True)
    assert (
        "min_recall 0.000 R@3 (recall within the top 3, averaged over the questions with a "
        "relevant judgment) is at least the minimum"
    ) in gate
    assert "min_recall R@3 1.000 ≥ 0.000" in gate


def test_a_pipeline_project_s_candidates_count_as_its_variants_do(tmp_path: Path) -> None:
    """The demo under trec_eval's averaging (without its MiniLM candidate: seconds of arithmetic).
    A candidate's per-question values were once made under the default averaging: None for the
    unanswerable questions where the baseline's list held 0, and, once nDCG gave them trec_eval's
    value, a candidate's flips counted a question its own list called undefined."""
    root = tmp_path / "demo"
    shutil.copytree(ROOT / "data", root, ignore=shutil.ignore_patterns("__pycache__"))
    candidates = root / "candidates.toml"
    blocks = candidates.read_text("utf-8").split("[[candidate]]")
    kept = [b for b in blocks if 'name = "dense: MiniLM"' not in b]
    candidates.write_text("[[candidate]]".join(kept), "utf-8")
    toml = root / "evidencedesk.toml"
    toml.write_text(toml.read_text("utf-8").replace(
        "[report]", '[report]\naveraging = "trec_eval"', 1), "utf-8")  # fmt: skip
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    assert len(results.candidates) == len(kept) - 1
    none = [(c.name, r.question) for c in results.candidates for r in c.lists
            if None in r.values.values()]  # fmt: skip
    assert none == []
    assert audit(tmp_path / "site")[0] == []
    # the ablations' and the sizing's means are the course API's: over the questions with a
    # relevant chunk in scope (their pages say so), as the gate's are (its page says so)
    for page, call in (("ablations.html", "ablate"), ("sizing.html", "run_config")):
        words = visible((tmp_path / "site" / page).read_text("utf-8"), unescape=True)
        assert (
            "Its means read only the questions with a relevant chunk in scope, as the course's "
            f"{call} computes them: not trec_eval's averaging, which the benchmark and the "
            "candidates use."
        ) in words
