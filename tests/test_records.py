"""A project's input files are read into plain records (`files._records`) before any typed value
is made from them, and `read_inputs` reads each file once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evidencedesk.errors import ConfigError, DocumentError, InputError, LabelsError
from evidencedesk.files import _project_file, _records, _text
from evidencedesk.files._records import (
    baseline_file,
    candidate_notes,
    candidates_file,
    markdown_texts,
    rows,
)
from evidencedesk.results._inputs import load_project, read_inputs
from evidencedesk.retrieval.labels import QuestionCounts, _question_counts
from tests.conftest import EXAMPLE_PROJECTS, EXAMPLES


def test_rows_keep_their_line_numbers_and_a_tsv_name_reads_text(tmp_path: Path) -> None:
    tsv = tmp_path / "queries.tsv"
    tsv.write_text("q1\tfirst\n\nq2\tsecond\n")
    assert list(rows("queries", tsv)) == [(1, "q1\tfirst"), (3, "q2\tsecond")]
    jsonl = tmp_path / "queries.jsonl"
    jsonl.write_text('{"_id": "q1", "text": "a"}\n\n[1]\n')
    found = rows("queries", jsonl)
    assert next(found) == (1, {"_id": "q1", "text": "a"})
    with pytest.raises(LabelsError) as refused:
        next(found)
    assert str(refused.value) == f"{jsonl}:3: expected a JSON object, found list"


@pytest.mark.parametrize("batch", [1, 2, 3, 4096])
def test_json_rows_are_handed_out_in_order_before_a_later_line_is_refused(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # lines are read and checked `_JSON_BATCH` at a time: a line the reader refuses (bad
    # UTF-8) or the parser refuses comes out only after every line before it
    monkeypatch.setattr(_records, "_JSON_BATCH", batch)
    path = tmp_path / "queries.jsonl"
    path.write_bytes(b'{"_id": "q1"}\n{"_id": "q2"}\n\n{"_id": "q3"}\n{"_id": "\xff"}\n')
    found = rows("queries", path)
    assert [next(found) for _ in range(3)] == [(1, {"_id": "q1"}), (2, {"_id": "q2"}),
                                               (4, {"_id": "q3"})]  # fmt: skip
    with pytest.raises(LabelsError) as refused:
        next(found)
    assert str(refused.value).startswith(f"{path}:5: expected UTF-8 text")
    path.write_text('{"a": 1}\n{"b": 2}\n{"c": \n{"d": 4}\n')
    found = rows("queries", path)
    assert [next(found) for _ in range(2)] == [(1, {"a": 1}), (2, {"b": 2})]
    with pytest.raises(LabelsError) as refused:
        next(found)
    assert str(refused.value) == (
        f"{path}:3: expected a JSON object, found invalid JSON (Expecting value)"
    )


def test_a_stream_reads_nothing_before_its_first_record_is_asked_for(tmp_path: Path) -> None:
    missing = tmp_path / "corpus.jsonl"
    stream = rows("corpus", missing)  # no error yet: the file is opened by the first next()
    with pytest.raises(DocumentError) as refused:
        next(stream)
    assert str(refused.value) == (
        f"{missing}: expected a readable BEIR corpus file, found No such file or directory"
    )


def test_markdown_texts_read_each_folder_once_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("second")
    (tmp_path / "a.md").write_text("first")
    (tmp_path / "notes.txt").write_text("not a document")
    assert list(markdown_texts([tmp_path])) == [
        (tmp_path / "a.md", "first"),
        (tmp_path / "b.md", "second"),
    ]
    twice = markdown_texts([tmp_path, tmp_path])
    assert next(twice) == (tmp_path / "a.md", "first")
    next(twice)
    with pytest.raises(DocumentError) as refused:
        next(twice)
    assert str(refused.value) == f"{tmp_path}: expected each document folder once, found it twice"


def test_a_saved_baseline_ends_every_reading_error_with_how_to_rebuild_it(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text('{"schema": NaN}\n')
    with pytest.raises(ConfigError) as refused:
        baseline_file(path)
    assert str(refused.value) == (
        f"{path}:1: key 'schema': expected finite numbers, found NaN; "
        "rebuild it with --save-baseline"
    )


def test_candidate_notes_are_read_for_every_name_the_file_gives(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "fast-ranker.md").write_text("Why it is faster.\n")
    path = tmp_path / "candidates.toml"
    path.write_text(
        '[[candidate]]\nname = "Fast ranker"\n[[candidate]]\nname = "slow"\n'
        "[[candidate]]\nname = 3\n[[candidate]]\nrationale = 'no name'\n"
    )
    read = candidates_file(path)
    # a name that is not a string has no note: the candidates' check refuses it afterwards
    assert candidate_notes(notes, read) == {"Fast ranker": "Why it is faster.\n", "slow": None}
    assert candidate_notes(None, read) == {"Fast ranker": None, "slow": None}


def test_question_counts_from_the_judgments_and_the_listed_ids() -> None:
    judgments = {"q1": {"d1": 2}, "q2": {"d2": 0}, "q3": {}}
    # q3 (no judgment) and q4 (none at all) are unjudged; q2 is judged but not listed
    asked = _question_counts(judgments, 1, False, ["q1", "q3", "q4"])
    assert asked == QuestionCounts(3, 1, 1, 2, 1, 1, ("q3", "q4"), ("q2",))
    every = _question_counts(judgments, 1, False, ["q1", "q3", "q4"], evaluate_unlisted=True)
    assert every == QuestionCounts(4, 2, 1, 2, 1, 1, ("q3", "q4"), ("q2",))
    # without a queries file the judged ids are the questions; a labels file judges them all
    assert _question_counts(judgments, 1, False, None) == QuestionCounts(2, 2, 1, 0, 0, 1)
    assert _question_counts(judgments, 2, True, None) == QuestionCounts(3, 3, 1, 0, 0, 2)


@pytest.mark.parametrize("kind", sorted(EXAMPLE_PROJECTS))
def test_read_inputs_reads_each_input_file_once(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(EXAMPLE_PROJECTS[kind])
    opened: Counter[Path] = Counter()
    check = _text.check_input

    def counted(path: str | Path, error: type[InputError], what: str = "file") -> int:
        opened[Path(path)] += 1
        return check(path, error, what)

    # every reader checks a file (type, size) before it opens it, once per read
    monkeypatch.setattr(_text, "check_input", counted)
    inputs = read_inputs(project, (), 0)
    assert inputs.labels and opened
    assert [p for p, n in opened.items() if n > 1] == []
    given = [project.queries, project.tags, project.candidates, project.policy]
    if project.documents_format == "beir":
        given += project.documents
    assert {p for p in given if p is not None} <= set(opened)


def test_a_project_load_lists_its_runs_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the file's checks and the project it resolves to read one listing of the runs folder
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("bm25.run", "rerank.run"):
        (runs / name).write_bytes((EXAMPLES / "runs" / name).read_bytes())
    (runs / "README").write_text("not a run\n")  # no run's suffix, not a run line: skipped
    toml = tmp_path / "evidencedesk.toml"
    toml.write_text(
        f'[questions]\nqueries = "{EXAMPLES / "queries.jsonl"}"\n'
        f'qrels = "{EXAMPLES / "qrels" / "test.tsv"}"\nrelevance = 2\n'
        '[runs]\ndir = "runs"\nbaseline = "bm25"\n'
    )
    listed: Counter[Path] = Counter()
    listing = _project_file._runs_in_folder

    def counted(folder: Path, ignore: tuple[str, ...] = ()) -> Any:
        listed[folder] += 1
        return listing(folder, ignore)

    monkeypatch.setattr(_project_file, "_runs_in_folder", counted)
    project = load_project(toml)
    assert dict(listed) == {runs: 1}
    assert [name for name, _ in project.runs] == ["bm25", "rerank"]
    assert project.skipped_files == (runs / "README",)
