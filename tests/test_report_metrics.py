"""Metrics chosen per project ([report] metrics / primary), and a headline that names every
reported metric that moved: nDCG@10 significantly worse while MRR's flips balance is said."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evidencedesk.errors import EvidencedeskError
from evidencedesk.project import load_project
from evidencedesk.report import cli
from evidencedesk.report.model import BuildOptions
from evidencedesk.report.pipeline import build_model
from tests.synthetic_runs import write_project

QIDS = tuple(f"q{n:02d}" for n in range(1, 13))
FILL = [f"x{n}" for n in range(8)]
QRELS = {q: {f"{q}-a": 3, f"{q}-b": 2} for q in QIDS}


def _lists() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    base, cand = {}, {}
    for q in QIDS[:10]:  # the second answer slips from rank 2 to 5: nDCG down, MRR the same
        a, b = f"{q}-a", f"{q}-b"
        base[q] = [a, b, *FILL]
        cand[q] = [a, *FILL[:3], b, *FILL[3:]]
    a, b = "q11-a", "q11-b"  # better on both metrics
    base["q11"], cand["q11"] = [FILL[0], a, b, *FILL[1:]], [a, b, *FILL]
    a, b = "q12-a", "q12-b"  # worse on both metrics
    base["q12"], cand["q12"] = [a, b, *FILL], [FILL[0], a, b, *FILL[1:]]
    return base, cand


def _project(tmp_path: Path, report: str = "") -> Path:
    base, cand = _lists()
    return write_project(tmp_path, QRELS, {"base": base, "cand": cand}, report=report)


def test_runs_only_defaults_ndcg10_linear_primary(tmp_path: Path) -> None:
    model = build_model(BuildOptions(project=_project(tmp_path)), lambda stage: None)
    settings = model.results.settings  # type: ignore[union-attr]
    assert [m.name for m in settings.compared] == [
        "ndcg@10:linear", "recall@10", "precision@10", "mrr"
    ]  # fmt: skip
    assert settings.flips_metric == "ndcg@10:linear"
    (c,) = model.candidates
    assert c.decision == "WORSE"
    assert c.recommendation.headline == (
        "Worse: nDCG@10 (linear gain) worse (−0.095 [−0.166, −0.006], +1/−11 questions, "
        "Holm-adjusted randomization p = 0.028)."
    )
    assert (len(c.flips.better), len(c.flips.worse)) == (1, 11)


def test_mrr_primary_names_ndcg_and_its_direction_while_mrr_flips_balance(tmp_path: Path) -> None:
    project = _project(tmp_path, 'metrics = ["mrr", "ndcg@10:linear"]\nprimary = "mrr"')
    model = build_model(BuildOptions(project=project), lambda stage: None)
    (c,) = model.candidates
    # the primary did not move: no clear change, and the headline names what did move
    assert c.decision == "NO CLEAR CHANGE"
    assert c.recommendation.headline == (
        "No clear change: MRR +0.000 [−0.125, +0.125], flips +1/−1 (balanced: sign-test p = "
        "1.000); nDCG@10 (linear gain) worse (−0.095 [−0.166, −0.006], +1/−11 questions, "
        "Holm-adjusted randomization p = 0.028)."
    )


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ('metrics = ["mrr", "ndcg@x"]',
         "[report].metrics: expected metric names (recall@k, precision@k, hit@k, mrr, ndcg@k, "
         "ndcg@k:linear, ndcg@k:exp), found 'ndcg@x'"),
        ('metrics = ["mrr", "MRR"]', "[report].metrics: expected each metric once, found a list ['mrr', 'MRR']"),
        ('primary = "mrr"\nmetrics = ["recall@10"]',
         "[report].primary: expected one of the reported metrics (recall@10), found 'mrr'"),
        ('primary = "ndcg@5"',
         "[report].primary: expected one of the reported metrics (ndcg@10:linear, recall@10, "
         "precision@10, mrr), found 'ndcg@5'"),
    ],
)  # fmt: skip
def test_bad_metric_choices_are_one_line_errors(tmp_path: Path, report: str, message: str) -> None:
    project = _project(tmp_path, report)
    with pytest.raises(EvidencedeskError) as err:
        load_project(project)
    assert message in str(err.value)
    stderr = io.StringIO()
    code = cli.main(["build", "--project", str(project), "--out", str(tmp_path / "site")],
                    stdout=io.StringIO(), stderr=stderr)  # fmt: skip
    assert code == 2 and message in stderr.getvalue() and len(stderr.getvalue().splitlines()) == 1
