"""The example project (examples/millbrook-library): it loads, its runs read, they regenerate."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencedesk.gate import load_policy
from evidencedesk.paths import _ROOT
from evidencedesk.results._inputs import load_project

EXAMPLE = _ROOT / "examples" / "millbrook-library"


def test_example_project_loads() -> None:
    project = load_project(EXAMPLE / "evidencedesk.toml")
    assert project.kind == "pipeline" and project.documents_format == "beir"
    assert project.qrels_format == "beir" and (project.relevance, project.max_grade) == (2, 3)
    catalog = project.load_catalog()
    assert catalog is not None and len(catalog) == 42 and len(catalog.documents) == 42
    assert all(chunk.id == chunk.doc_id for chunk in catalog.chunks)
    labels = project.load_labels(catalog)
    # 32 queries, one (q31) with no judgment at all: counted, left out as trec_eval leaves it out
    assert len(labels) == 31 and sum(lab.answerable for lab in labels) == 30
    assert project.question_counts().unjudged_ids == ("q31",)
    assert {tag for lab in labels for tag in lab.tags} == {
        "direct",
        "paraphrase",
        "number",
        "exact_term",
        "unanswerable",
    }
    assert all(lab.answerable != ("unanswerable" in lab.tags) for lab in labels)
    assert load_policy(project.policy, labels).critical == ("q14",)
    assert [name for name, _ in project.runs] == ["bm25", "rerank"]


def test_example_runs_are_readable_and_name_corpus_documents() -> None:
    project = load_project(EXAMPLE)
    catalog = project.load_catalog()
    runs = project.load_runs()
    assert list(runs) == ["bm25", "rerank"]
    for run in runs.values():
        assert len(run) == 32 and run.n_lines > 32 * 10
        assert all(doc in catalog for qid in run.qids for doc, _ in run.ranked(qid))
    assert runs["bm25"].ranked("q01")[0][0] == "mpl-hours-weekday"


def test_runs_only_variant_sees_the_same_questions() -> None:
    pipeline = load_project(EXAMPLE)
    runs_only = load_project(EXAMPLE / "runs-only" / "evidencedesk.toml")
    assert runs_only.kind == "runs" and runs_only.baseline_run == "bm25"
    assert runs_only.load_catalog() is None
    assert [p for _, p in runs_only.runs] == [p for _, p in pipeline.runs]
    assert runs_only.load_labels() == pipeline.load_labels(pipeline.load_catalog())


def test_make_runs_regenerates_the_committed_runs(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_runs", EXAMPLE / "make_runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    for name in ("bm25", "rerank"):
        assert (tmp_path / f"{name}.run").read_bytes() == (EXAMPLE / "runs" / f"{name}.run").read_bytes()  # fmt: skip


@pytest.mark.parametrize(
    ("which", "said"),
    [("demo", "id, title, chunks, status, visibility, language of each"),
     ("pipeline", "id, title and chunks of each")],
)  # fmt: skip
def test_the_index_describes_the_columns_the_documents_page_shows(
    which: str, said: str, demo_site: Path, example_site: Callable[[str], Path]
) -> None:
    # the index promised status, visibility and language even where the documents page shows
    # none of them (the example's documents carry no such attribute)
    site = demo_site if which == "demo" else example_site(which)
    assert f"{said}, on their own page" in (site / "index.html").read_text("utf-8")
    heads = re.findall(
        r'<th scope="col"[^>]*>([^<]+)', (site / "documents.html").read_text("utf-8")
    )
    assert [h.lower() for h in heads] == [
        w.strip() for w in said.replace(" and ", ", ").removesuffix(" of each").split(",")
    ]
