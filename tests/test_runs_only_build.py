"""A runs-only project built end to end; its numbers checked against trec_eval (pytrec_eval)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import pytrec_eval

from evidencedesk import cli
from evidencedesk.files.trec import read_qrels
from evidencedesk.report._build import _build_model
from evidencedesk.report._model import BuildOptions
from evidencedesk.results._inputs import load_project
from tests.project_fixtures import make_runs_only_project

MEASURES = {
    "recall_10": "R@10",
    "P_10": "P@10",
    "recip_rank": "MRR",
    "ndcg_cut_10": "nDCG@10 (linear gain)",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_runs_only_project(tmp_path_factory.mktemp("runs"), questions=50, runs=3, seed=0)


def trec_eval_means(project_file: Path, run_name: str) -> dict[str, float]:
    """trec_eval's per-query values at relevance 2, averaged the way evidencedesk does:
    over questions with a relevant judgment, a question missing from the run scoring 0."""
    root = project_file.parent
    qrels = read_qrels(root / "qrels.txt")
    run: dict[str, dict[str, float]] = {}
    for line in (root / "runs" / f"{run_name}.run").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=2)
    per_query = evaluator.evaluate(run)
    defined = [q for q, docs in qrels.items() if any(g >= 2 for g in docs.values())]
    return {
        label: sum(per_query.get(q, {}).get(measure, 0.0) for q in defined) / len(defined)
        for measure, label in MEASURES.items()
    }


def test_benchmark_numbers_equal_trec_eval(project: Path) -> None:
    model = _build_model(BuildOptions(project=project), lambda stage: None)
    assert model.benchmark_columns == ("R@10", "P@10", "MRR", "nDCG@10 (linear gain)")
    assert [v.name for v in model.variants] == ["base", "better", "worse"]
    for variant in model.variants:
        expected = trec_eval_means(project, variant.name)
        ours = {m.name: m.value for m in variant.metrics}
        for label, value in expected.items():
            assert ours[label] == pytest.approx(value, abs=1e-9), (variant.name, label)
    assert model.meta.relevance == "relevant = grade ≥ 2"
    assert [c.name for c in model.candidates] == ["better", "worse"]


def test_the_site_skips_pipeline_pages_and_says_why(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    stdout, stderr = io.StringIO(), io.StringIO()
    assert (
        cli.main(
            ["build", "--project", str(project), "--out", str(out)], stdout=stdout, stderr=stderr
        )
        == 0
    )
    names = {p.name for p in out.iterdir()}
    for page in ("sizing.html", "ablations.html", "citations.html", "evidence.html"):
        assert page not in names
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "runs-only project: no corpus is indexed" in index
    assert 'href="sizing.html"' not in index
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["seed"] == 0
    # 50 queries, one without any judgment: counted, named and left out (no page)
    assert len([n for n in names if n.startswith("question-")]) == 49
    assert "1 of its 50 queries has no judgment (q050)" in index
    assert load_project(project).kind == "runs"


def test_the_example_projects_build(example_site: Callable[[str], Path]) -> None:
    # built once for the run (tests/conftest.py's example_site, which asserts the exit status 0)
    for which, pages in (("pipeline", ("sizing.html", "ablations.html")), ("runs-only", ())):
        out = example_site(which)
        for page in pages:
            assert (out / page).is_file()
        assert (out / "index.html").read_text(encoding="utf-8").count("rerank") >= 1


@pytest.mark.parametrize(("depth", "copied"), [(20, True), (150, False)])
def test_the_index_names_data_runs_only_when_the_runs_are_copied(
    tmp_path: Path, depth: int, copied: bool
) -> None:
    # lists deeper than the judged depth keep only their top: the runs are the user's own files
    project = make_runs_only_project(tmp_path / "p", questions=12, runs=2, seed=1, depth=depth)
    out = tmp_path / "site"
    assert cli.main(["build", "--project", str(project), "--out", str(out), "--quiet"],
                    stdout=io.StringIO(), stderr=io.StringIO()) == 0  # fmt: skip
    index = (out / "index.html").read_text(encoding="utf-8")
    assert (out / "data" / "runs").is_dir() is copied
    assert ("each variant's run under <code>data/runs/</code>" in index) is copied
