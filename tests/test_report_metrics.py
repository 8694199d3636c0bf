"""Metrics chosen per project ([report] metrics / primary), and a headline that names every
reported metric that moved: nDCG@10 significantly worse while MRR's flips balance is said."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.errors import EvidencedeskError
from evidencedesk.report._build import _build_model
from evidencedesk.report._model import BuildOptions
from evidencedesk.results._inputs import load_project
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
    model = _build_model(BuildOptions(project=_project(tmp_path)), lambda stage: None)
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
    assert (len(c.flips.row.better), len(c.flips.row.worse)) == (1, 11)


def test_mrr_primary_names_ndcg_and_its_direction_while_mrr_flips_balance(tmp_path: Path) -> None:
    project = _project(tmp_path, 'metrics = ["mrr", "ndcg@10:linear"]\nprimary = "mrr"')
    model = _build_model(BuildOptions(project=project), lambda stage: None)
    (c,) = model.candidates
    # the primary did not move: no clear change, and the headline names what did move
    assert c.decision == "NO CLEAR CHANGE"
    assert c.recommendation.headline == (
        "No clear change: MRR +0.000 [−0.125, +0.125], flips +1/−1 (balanced: sign-test p = "
        "1.000); worse: nDCG@10 (linear gain)."
    )


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ('metrics = ["mrr", "ndcg@x"]',
         "[report].metrics: expected metric names (recall@k, precision@k, hit@k, mrr, mrr@k, map, "
         "map@k, rprec, ndcg@k, ndcg@k:linear, ndcg, ndcg:linear, bpref, or trec_eval's, "
         "ir_measures' or ranx's name for one: docs/metrics.md), found 'ndcg@x'; did you mean "
         "ndcg or ndcg@10?"),
        ('metrics = ["ndcg_cut10"]',
         "found 'ndcg_cut10'; did you mean ndcg@10:linear (ndcg_cut_10), ndcg@10 or map@10 "
         "(map_cut_10)?"),
        ('metrics = ["judged@10"]',
         "found 'judged@10' (a diagnostic the site shows for every run, not a quality metric)"),
        ('metrics = ["mrr", "MRR"]', "[report].metrics: expected each metric once, found a list ['mrr', 'MRR']"),
        # two names of one metric: trec_eval's and evidencedesk's
        ('metrics = ["map", "AP"]', "[report].metrics: expected each metric once, found a list ['map', 'AP']"),
        ('metrics = ["ndcg@5", "ndcg@5:exp"]', "expected each metric once"),
        ('primary = "P@10"\nmetrics = ["map"]',
         "[report].primary: expected one of the reported metrics (map), found 'P@10' (precision@10)"),
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


TREC_NAMES = 'metrics = ["map", "bpref", "Rprec", "ndcg", "RR@10"]'
LABELS = ["MAP", "bpref", "R-prec", "nDCG (exp gain)", "MRR@10 (cut at 10)"]


def test_a_runs_only_project_reports_trec_evals_measures_under_their_labels(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path, TREC_NAMES)
    out = tmp_path / "site"
    code = cli.main(["build", "--project", str(project), "--out", str(out), "-q"],
                    stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert code == 0
    results = json.loads((out / "results.json").read_text("utf-8"))
    settings = results["settings"]
    compared = [(m["name"], m["label"]) for m in settings["compared"]]
    assert compared == list(zip(["map", "bpref", "rprec", "ndcg", "mrr@10"], LABELS, strict=True))
    assert settings["flips_metric"] == "map"
    assert settings["judged_k"] == 10  # a primary without a cut-off: a run's top 10
    (candidate,) = results["candidates"]
    by_metric = {c["metric"]: c for c in candidate["comparisons"]}
    for name in ("map", "bpref", "rprec", "ndcg", "mrr@10"):
        c = by_metric[name]  # every statistic of every metric: interval, Δ, flips, tests, Holm
        for key in ("delta", "low", "high", "sign_p", "randomization_p", "holm_p"):
            assert isinstance(c[key], float), (name, key)
        assert len(c["better"]) + len(c["worse"]) + c["tied"] == c["n"] == 12
    # the second answer slips from rank 2 to 5 in ten questions: MAP and R-prec drop, the
    # first answer stays (MRR@10 the same), nothing judged non-relevant (bpref stays 1)
    assert by_metric["map"]["delta"] == pytest.approx(-0.25)
    assert by_metric["rprec"]["delta"] == pytest.approx(-5 / 12)
    assert by_metric["bpref"]["delta"] == 0.0 and by_metric["mrr@10"]["delta"] == 0.0
    page = (out / "candidate-cand.html").read_text("utf-8")
    methods = (out / "methods.html").read_text("utf-8")
    for shown in LABELS:
        assert shown in page and f"<dt>{shown}</dt>" in methods, shown
    assert "Other tools: trec_eval map, ir_measures AP, ranx map." in methods
    assert "trec_eval&#39;s recip_rank has no cut-off" in methods


def test_the_primary_may_be_any_name_of_a_reported_metric(tmp_path: Path) -> None:
    loaded = load_project(_project(tmp_path, f'{TREC_NAMES}\nprimary = "MRR@10"'))
    assert loaded.report_metrics == ("map", "bpref", "rprec", "ndcg", "mrr@10")
    assert loaded.primary == "mrr@10"


def test_validate_shows_the_metrics_by_label_and_notes_a_name_read_otherwise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evidencedesk.cli import main

    assert main(["validate", "--project", str(_project(tmp_path, TREC_NAMES))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"metrics: {', '.join(LABELS)} (the first is the primary)" in lines
    assert (
        "note: 'ndcg' reads as nDCG (exp gain); trec_eval's, ir_measures' and ranx's ndcg is "
        "nDCG (linear gain), written ndcg:linear here"
    ) in lines


def test_a_notebook_finds_a_comparison_under_any_of_its_metrics_names(tmp_path: Path) -> None:
    model = _build_model(BuildOptions(project=_project(tmp_path, TREC_NAMES)), lambda stage: None)
    (candidate,) = model.results.candidates  # type: ignore[union-attr]
    assert candidate.comparison("AP") is candidate.comparison("map")
    assert candidate.comparison("Rprec").metric == "rprec"
    assert candidate.comparison("RR@10").metric == "mrr@10"
