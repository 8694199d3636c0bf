"""The primary metric is charted and tabled per variant whatever it is (issue 37's class 2): a
project deciding on MAP got "R@10 per variant (the primary metric)" over a chart of R@10."""

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
    ("primary", "columns"),
    [("ndcg@10:linear", ["recall@10", "precision@10", "mrr", "ndcg@10:linear"]),
     ("map", ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "map"]),
     ("recall@100", ["recall@10", "precision@10", "mrr", "ndcg@10:linear", "recall@100"])],
)  # fmt: skip
def test_the_primary_joins_the_benchmark_columns(primary: str, columns: list[str]) -> None:
    assert [m.name for m in _columns(_RUNS_COLUMNS, Metric.of(primary))] == columns


def test_a_map_project_charts_and_tables_map(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "qrels").mkdir(parents=True)
    shutil.copy(EXAMPLE / "qrels" / "test.tsv", project / "qrels")
    shutil.copytree(EXAMPLE / "runs", project / "runs")
    (project / "evidencedesk.toml").write_text(
        '[project]\nname = "map"\n[questions]\nqrels = "qrels/test.tsv"\n'
        '[runs]\ndir = "runs"\nbaseline = "bm25"\n[report]\nmetrics = ["map", "precision@10"]\n',
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
    results = load(site / "results.json")
    means = {m.metric: m for m in results.variants[0].metrics}
    # 31 judged queries, each with a grade >= 1 (the threshold of a project naming none)
    assert means["map"].n == 31 and means["map"].low is not None
