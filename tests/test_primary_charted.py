"""The primary metric is charted and tabled per variant whatever it is (issue 37's class 2): a
project deciding on MAP got "R@10 per variant (the primary metric)" over a chart of R@10. So is
every other reported metric: a project reporting R@100 saw it only on candidate pages."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.paths import _ROOT
from evidencedesk.results._serialize import load
from evidencedesk.results._settings import _RUNS_COLUMNS, Metric, _columns

EXAMPLE = _ROOT / "examples" / "millbrook-library"


@pytest.mark.parametrize(
    ("reported", "columns"),
    [(["ndcg@10:linear"], ["recall@10", "precision@10", "mrr", "ndcg@10:linear"]),
     (["map"], ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "map"]),
     (["recall@100"], ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "recall@100"]),
     # every reported metric is a column, the primary first; the four are not repeated
     (["map", "recall@100", "mrr@10"],
      ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "map", "recall@100", "mrr@10"]),
     (["mrr", "map", "precision@10"],
      ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "map"])],
)  # fmt: skip
def test_the_reported_metrics_join_the_benchmark_columns(
    reported: list[str], columns: list[str]
) -> None:
    compared = tuple(Metric.of(n) for n in reported)
    assert [m.name for m in _columns(_RUNS_COLUMNS, compared)] == columns


def test_a_map_project_charts_and_tables_map(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "qrels").mkdir(parents=True)
    shutil.copy(EXAMPLE / "qrels" / "test.tsv", project / "qrels")
    shutil.copytree(EXAMPLE / "runs", project / "runs")
    (project / "evidencedesk.toml").write_text(
        '[project]\nname = "map"\n[questions]\nqrels = "qrels/test.tsv"\n'
        '[runs]\ndir = "runs"\nbaseline = "bm25"\n[report]\nmetrics = ["map", "precision@10", "recall@100"]\n',
        "utf-8",
    )
    site = tmp_path / "site"
    argv = ["build", "--project", str(project), "--out", str(site), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    index = (site / "index.html").read_text("utf-8")
    assert "<strong>MAP per variant (the primary metric).</strong>" in index
    assert "R@10 per variant (the primary metric)" not in index
    benchmark = (site / "benchmark.html").read_text("utf-8")
    assert "MAP per variant." in benchmark
    # a reported metric that is neither the primary nor one of the four: a column of both tables
    assert "<strong>R@100 per variant.</strong>" in benchmark
    assert '<th scope="col" class="num">R@100</th>' in index
    assert '<th scope="col" class="num">R@100</th>' in benchmark
    results = load(site / "results.json")
    means = {m.metric: m for m in results.variants[0].metrics}
    # 31 judged queries, each with a grade >= 1 (the threshold of a project naming none)
    assert means["map"].n == 31 and means["map"].low is not None
