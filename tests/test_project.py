"""The project file: the demo as a project, the two kinds of project, one clear error per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.errors import ConfigError
from evidencedesk.paths import _ANSWERS, _LABELS, CORPUS, DATA, DOCS, DUPS, TENANT_DOCS
from evidencedesk.results._inputs import DEMO_PROJECT, Project, load_project
from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.labels import QuestionCounts, load_labels
from evidencedesk.retrieval.lifecycle import _TENANTS_FILE
from tests.project_fixtures import make_runs_only_project


def test_demo_project_points_at_the_default_files() -> None:
    project = load_project(DEMO_PROJECT)
    assert project.path == DEMO_PROJECT and project.root == DATA
    assert project.kind == "pipeline" and project.documents_format == "markdown"
    assert project.documents == (CORPUS, DOCS)
    assert (project.labels, project.answers, project.dups) == (_LABELS, _ANSWERS, DUPS)
    assert (project.tenants, project.tenant_documents) == (_TENANTS_FILE, TENANT_DOCS)
    assert (project.candidates, project.notes) == (DATA / "candidates.toml", DATA / "notes")
    assert project.policy == DATA / "gate_policy_retrieval.json"
    assert project.baseline == DATA / "baseline_retrieval.json"
    assert project.runs_dir == DATA / "runs" and project.updates == DATA / "updates"
    assert [name for name, _ in project.runs] == [
        p.stem for p in sorted((DATA / "runs").glob("*.run"))
    ]
    assert (project.relevance, project.max_grade, project.seed) == (2, 2, 0)
    assert project.skipped_stages() == ()


def test_demo_project_loads_the_same_catalog_and_labels() -> None:
    project = load_project(DEMO_PROJECT)
    catalog = project.load_catalog()
    assert catalog is not None and catalog.chunks == load_catalog().chunks
    labels = project.load_labels(catalog)
    default = load_labels(_LABELS, catalog)
    assert [(lab.id, lab.tags, lab.answerable) for lab in labels] == [
        (lab.id, lab.tags, lab.answerable) for lab in default
    ]
    assert [dict(lab.grades) for lab in labels] == [dict(lab.grades) for lab in default]
    files = project.input_files()
    assert files[0] == DEMO_PROJECT and _LABELS in files and CORPUS / "kc-returns-v3.md" in files
    assert len(files) == len(set(files))
    assert project.to_dict()["documents"] == ["corpus", "docs"]


def test_generated_runs_only_project(tmp_path: Path) -> None:
    path = make_runs_only_project(tmp_path, questions=50, runs=3)
    project = load_project(path)
    assert project.kind == "runs" and project.load_catalog() is None
    assert [name for name, _ in project.runs] == ["base", "better", "worse"]
    assert project.baseline_run == "base" and project.max_grade == 3
    labels = project.load_labels(None)
    # the question with no judgment at all is counted and left out (trec_eval ignores it too)
    assert len(labels) == 49 and "q050" not in {lab.id for lab in labels}
    assert all(lab.relevant_grade == 2 and not lab.complete for lab in labels)
    graded: dict[str, list[int]] = {}
    for line in (path.parent / "qrels.txt").read_text().splitlines():
        qid, _, _, grade = line.split()
        graded.setdefault(qid, []).append(int(grade))
    relevant = sum(max(g) >= 2 for g in graded.values())
    assert project.question_counts() == QuestionCounts(50, 49, relevant, 1, 0, 2, ("q050",))
    assert {stage for stage, _ in project.skipped_stages()} == {
        "sizing",
        "ablations",
        "citations",
        "evidence",
    }
    assert load_project(path.parent).path == path  # a folder means its evidencedesk.toml


# -- one clear error per mistake ------------------------------------------------------------


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "one"}\n{"_id": "q2", "text": "two"}\n', encoding="utf-8"
    )
    (tmp_path / "qrels.txt").write_text("q1 0 d1 3\nq1 0 d2 1\nq2 0 d3 2\nq2 0 d4 0\n")
    (tmp_path / "runs").mkdir()
    for name in ("a", "b"):
        (tmp_path / "runs" / f"{name}.run").write_text("q1 Q0 d1 1 2.0 x\nq2 Q0 d3 1 1.0 x\n")
    return tmp_path


VALID = """[questions]
queries = "queries.jsonl"
qrels = "qrels.txt"
relevance = 2

[runs]
dir = "runs"
baseline = "a"
"""


def load_project_text(folder: Path, text: str) -> Project:
    path = folder / "evidencedesk.toml"
    path.write_text(text, encoding="utf-8")
    return load_project(path)


def _error(folder: Path, text: str) -> str:
    path = folder / "evidencedesk.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_project(path)
    return str(caught.value)


def test_valid_fixture_loads(project_dir: Path) -> None:
    (project_dir / "evidencedesk.toml").write_text(VALID, encoding="utf-8")
    project = load_project(project_dir / "evidencedesk.toml")
    assert project.qrels_format == "trec" and project.name == project_dir.name
    labels = project.load_labels()
    assert [lab.relevant for lab in labels] == [frozenset({"d1"}), frozenset({"d3"})]


def test_unknown_key(project_dir: Path) -> None:
    text = VALID.replace("qrels = ", "qrel = ")
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:3: [questions].qrel: unknown key; "
        "expected one of: labels, queries, qrels, tags, relevance, grades, evaluate_unlisted"
    )


def test_unknown_section(project_dir: Path) -> None:
    assert _error(project_dir, VALID + "\n[output]\nsite = 'x'\n") == (
        f"{project_dir}/evidencedesk.toml:10: unknown section [output]; expected one of: "
        "[project], [documents], [searchers], [questions], [runs], [report], [gate], [extras]"
    )


def test_missing_file(project_dir: Path) -> None:
    text = VALID.replace('"qrels.txt"', '"judgments/qrels.txt"')
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:3: [questions].qrels: expected a TREC qrels file or "
        "a BEIR qrels .tsv file at 'judgments/qrels.txt', found nothing at "
        f"{project_dir}/judgments/qrels.txt"
    )


def test_baseline_run_not_in_runs(project_dir: Path) -> None:
    text = VALID.replace('baseline = "a"', 'baseline = "c"')
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:8: [runs].baseline: expected the name of one of the "
        "runs (a, b), found 'c'"
    )


def test_threshold_outside_grades(project_dir: Path) -> None:
    text = VALID.replace("relevance = 2", "relevance = 4")
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:4: [questions].relevance: expected a relevance "
        "threshold from 1 to 3 (grades seen in the judgments: 0, 1, 2, 3), found 4"
    )


def test_default_threshold_of_qrels_is_trec_evals(project_dir: Path) -> None:
    (project_dir / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d3 0\nq3 0 d4 2\n")
    project = load_project_text(project_dir, VALID.replace("relevance = 2\n", ""))
    assert project.relevance == 1  # trec_eval's -l default: grade 1 is relevant
    # q1; q3's grade 2 counts only for the threshold: the queries file does not list q3
    assert project.question_counts().relevant == 1


def test_default_threshold_without_any_relevant_grade(project_dir: Path) -> None:
    (project_dir / "qrels.txt").write_text("q1 0 d1 0\nq2 0 d3 -2\n")
    assert _error(project_dir, VALID.replace("relevance = 2\n", "")) == (
        f"{project_dir}/evidencedesk.toml:1: [questions]: expected at least one judgment with a "
        "positive grade, found none (grades seen in the judgments: -2, 0)"
    )


def test_wrong_type(project_dir: Path) -> None:
    text = VALID.replace("relevance = 2", 'relevance = "2"')
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:4: [questions].relevance: expected an integer grade "
        "(relevant = grade >= relevance), found a string '2'"
    )


def test_documents_in_two_forms(project_dir: Path) -> None:
    (project_dir / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n')
    (project_dir / "md").mkdir()
    text = '[documents]\nfolders = ["md"]\ncorpus = "corpus.jsonl"\n\n' + VALID
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:3: [documents].corpus: expected documents in one form: "
        "'folders' (Markdown) or 'corpus' (BEIR corpus.jsonl), found both 'folders' and 'corpus'"
    )


def test_neither_labels_nor_queries(project_dir: Path) -> None:
    text = VALID.replace('queries = "queries.jsonl"\nqrels = "qrels.txt"\n', "")
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:1: [questions]: expected 'labels' (labels.jsonl), "
        "'qrels' (with 'queries' for their text), found neither"
    )


def test_queries_without_qrels(project_dir: Path) -> None:
    text = VALID.replace('qrels = "qrels.txt"\n', "")
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:1: [questions].qrels: expected a qrels file to go with "
        "'queries', found none"
    )


def test_runs_only_needs_a_baseline_run(project_dir: Path) -> None:
    text = VALID.replace('baseline = "a"\n', "")
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:6: [runs].baseline: expected the name of the run the "
        "others are compared with (one of: a, b), found none"
    )


def test_runs_only_refuses_pipeline_settings(project_dir: Path) -> None:
    (project_dir / "answers.jsonl").write_text("{}\n")
    text = VALID + '\n[extras]\nanswers = "answers.jsonl"\n'
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:11: [extras].answers: expected no pipeline settings "
        "in a runs-only project (no corpus is indexed), found one"
    )


def test_list_of_folders_must_be_folders(project_dir: Path) -> None:
    text = '[documents]\nfolders = "md"\n\n' + VALID
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:2: [documents].folders: expected a list of folders of "
        "Markdown documents (a non-empty list of strings), found a string 'md'"
    )


def test_toml_syntax_error(project_dir: Path) -> None:
    message = _error(project_dir, VALID + "name = \n")
    assert message.startswith(f"{project_dir}/evidencedesk.toml:9: expected valid TOML")


def test_explicit_run_list_and_duplicate_names(project_dir: Path) -> None:
    text = VALID.replace(
        'dir = "runs"',
        'files = [{ name = "first", path = "runs/a.run" }, "runs/b.run"]',
    ).replace('baseline = "a"', 'baseline = "first"')
    (project_dir / "evidencedesk.toml").write_text(text, encoding="utf-8")
    project = load_project(project_dir / "evidencedesk.toml")
    assert [name for name, _ in project.runs] == ["first", "b"]
    assert project.to_dict()["runs"] == [["first", "runs/a.run"], ["b", "runs/b.run"]]
    clash = text.replace('name = "first"', 'name = "b"').replace('"first"', '"b"')
    assert "[runs].files: expected unique run names, found 'b'" in _error(project_dir, clash)


def test_the_first_mistake_in_the_file_is_reported(project_dir: Path) -> None:
    """Two wrong types: the one on the earlier line wins, whatever the order of the sections."""
    text = (
        '[runs]\ndir = "runs"\nbaseline = 7\n\n'
        '[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.txt"\nrelevance = "2"\n'
    )
    assert _error(project_dir, text) == (
        f"{project_dir}/evidencedesk.toml:3: [runs].baseline: expected the name of one of the "
        "runs, found an integer 7"
    )
