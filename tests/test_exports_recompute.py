"""The exports hold exactly what the numbers were computed from: pytrec_eval, given only
``site/data/qrels.txt`` and ``site/data/runs/*.run``, gives every variant's means in
results.json, on a runs-only project and on a pipeline project."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.paths import _ROOT
from evidencedesk.report._site import slug
from tests.generated_projects import generated

pytrec_eval = pytest.importorskip("pytrec_eval")

# our metric -> pytrec_eval's measure (linear gain: trec_eval's nDCG)
MEASURES = {"mrr": "recip_rank", "map": "map", "recall@3": "recall_3", "recall@10": "recall_10",
            "precision@3": "P_3", "precision@10": "P_10", "ndcg@5:linear": "ndcg_cut_5",
            "ndcg@10:linear": "ndcg_cut_10"}  # fmt: skip


def _build(project: Path, out: Path) -> dict:
    code = cli.main(["build", "--project", str(project), "--out", str(out), "-q"],
                    stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert code == 0
    return json.loads((out / "results.json").read_text("utf-8"))


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text("utf-8").splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    return qrels


def _read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text("utf-8").splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


def _recompute(site: Path, results: dict) -> int:
    """Every exported variant's mean of every metric pytrec_eval knows, from the exports alone,
    against results.json; returns how many means were compared."""
    qrels = _read_qrels(site / "data" / "qrels.txt")
    level = results["settings"]["relevance"]
    # a question without a relevant judgment is undefined, left out of the mean ("defined")
    defined = [q for q, docs in qrels.items() if any(g >= level for g in docs.values())]
    compared = 0
    for variant in results["variants"]:
        path = site / "data" / "runs" / f"{slug(variant['name'])}.run"
        assert path.is_file(), variant["name"]  # every variant's lines are exported
        measures = {MEASURES[s["metric"]] for s in variant["metrics"] if s["metric"] in MEASURES}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(
            _read_run(path)
        )
        for stat in variant["metrics"]:
            if stat["metric"] not in MEASURES:
                continue
            values = [theirs.get(q, {}).get(MEASURES[stat["metric"]], 0.0) for q in defined]
            assert stat["n"] == len(defined), (variant["name"], stat["metric"])
            assert stat["mean"] == pytest.approx(sum(values) / len(values), abs=1e-9), (
                variant["name"], stat["metric"]
            )  # fmt: skip
            compared += 1
    return compared


def test_a_runs_only_projects_exports_give_its_means(tmp_path: Path) -> None:
    project, _ = generated(tmp_path / "p", 4)  # nine candidates, one answering part of the queries
    metrics = 'metrics = ["ndcg@10:linear", "recall@10", "precision@10", "mrr", "map"]'
    project.write_text(re.sub(r"(?m)^metrics = .*$", metrics, project.read_text("utf-8")))
    site = tmp_path / "site"
    results = _build(project, site)
    assert _recompute(site, results) == 10 * 5


def test_a_runs_only_projects_exports_keep_judged_documents_the_corpus_lacks(
    tmp_path: Path,
) -> None:
    project, _ = generated(tmp_path / "p", 4)
    # a corpus that holds every document but d013 (judged for q001): its judgments still count
    ids = [f"d{n:03d}" for n in range(120) if n != 13]
    (tmp_path / "p" / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": i, "text": "words"}) + "\n" for i in ids), "utf-8"
    )
    text = project.read_text("utf-8").replace(
        "[questions]", '[documents]\ncorpus = "corpus.jsonl"\nindex = false\n\n[questions]'
    )
    project.write_text(text, "utf-8")
    site = tmp_path / "site"
    results = _build(project, site)
    assert "q001 0 d013 1\n" in (site / "data" / "qrels.txt").read_text("utf-8")
    assert _recompute(site, results) > 0
    (notice,) = [n for n in results["inputs"]["notices"] if n["kind"] == "judged_not_in_corpus"]
    assert (notice["path"], notice["count"], notice["names"]) == (
        "qrels.txt",
        1,
        ["d013 (nearest: d012)"],
    )


def test_a_pipeline_projects_exports_give_its_means(tmp_path: Path) -> None:
    root = tmp_path / "millbrook"
    shutil.copytree(_ROOT / "examples" / "millbrook-library", root)
    project = root / "evidencedesk.toml"
    project.write_text(project.read_text("utf-8").replace(
        'candidates = "candidates.toml"',
        'candidates = "candidates.toml"\n'
        'metrics = ["mrr", "recall@3", "ndcg@5:linear", "precision@3", "map"]',
    ), "utf-8")  # fmt: skip
    site = tmp_path / "site"
    results = _build(project, site)
    assert _recompute(site, results) == len(results["variants"]) * 5
