"""BEIR and TREC layout readers: round trips, file:line errors, judgments -> labels."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evidencedesk.cli import main
from evidencedesk.errors import DocumentError, LabelsError
from evidencedesk.files.trec import read_qrels, read_run, write_qrels, write_run
from evidencedesk.results._evidence import _duplicates
from evidencedesk.retrieval.beir import (
    _checked_queries,
    _labels_from_judgments,
    _plain_queries,
    _Query,
    read_beir_corpus,
    read_beir_qrels,
    read_queries,
    read_tags,
)
from evidencedesk.retrieval.labels import Label
from tests.beir_files import write_beir_corpus, write_beir_qrels, write_beir_queries
from tests.conftest import make_chunk
from tests.synthetic_runs import write_project

GRADED = {"q1": {"d1": 3, "d2": 2, "d3": 1, "d4": 0}, "q2": {"d2": 2, "d5": 1}, "q3": {"d4": 1}}
QUERIES = [_Query("q1", "first", ("short",)), _Query("q2", "second", ()), _Query("q3", "third", ())]


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- corpus -----------------------------------------------------------------------------------


def test_corpus_round_trip(tmp_path: Path) -> None:
    chunks = [
        make_chunk("doc-1", "Bikes may be returned within 30 days.", "Returns"),
        make_chunk("MED/42", "বাইক ফেরত দেওয়ার নিয়ম ৩০ দিন।", ""),
    ]
    path = tmp_path / "corpus.jsonl"
    write_beir_corpus(path, chunks)
    catalog = read_beir_corpus(path)
    assert [(c.id, c.doc_id, c.title, c.text) for c in catalog.chunks] == [
        (c.id, c.id, c.title, c.text) for c in chunks
    ]
    assert [d.id for d in catalog.documents] == ["doc-1", "MED/42"]
    assert catalog.allowed() == frozenset({"doc-1", "MED/42"})
    write_beir_corpus(tmp_path / "again.jsonl", catalog.chunks)
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()


def test_the_evidence_checks_name_a_passage_by_its_own_id(tmp_path: Path) -> None:
    """The duplicates check adds the dups folder to the catalog: a BEIR passage keeps its id
    (chunked again it would be 'p1:c0', an id no other page and no judgment knows)."""
    path = tmp_path / "corpus.jsonl"
    write_beir_corpus(path, [
        make_chunk("p1", "Bikes may be returned within 30 days of purchase.", "Returns"),
        make_chunk("p2", "Bikes may be returned within 14 days of purchase.", "Returns"),
    ])  # fmt: skip
    catalog = read_beir_corpus(path)
    dups = tmp_path / "dups"
    dups.mkdir()
    (dups / "faq.md").write_text(
        "---\nid: faq\ntitle: FAQ\nversion: 1\nstatus: current\nvisibility: public\n"
        "language: en\n---\nBikes may be returned within 30 days of purchase.\n",
        encoding="utf-8",
    )
    assert catalog.with_documents([]).ids() == ("p1", "p2")
    label = Label("q1", "within how many days may bikes be returned", (), True, {"p1": 2})
    kept, merges, held = _duplicates(catalog, [label], dups)
    assert (kept, [(m.kept, m.merged) for m in merges]) == (2, [("p1", ("faq:c0",))])
    assert [(h.first, h.second) for h in held] == [("p1", "p2")]
    with pytest.raises(DocumentError, match="expected a unique document id, found 'p1' already"):
        catalog.with_documents(catalog.documents[:1])


def test_corpus_accepts_id_and_integer_ids(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.jsonl", '{"id": 7, "text": "seven"}\n\n{"_id": "8", "title": "T", "text": ""}\n')  # fmt: skip
    assert read_beir_corpus(path).ids() == ("7", "8")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"_id": "a", "text": "x"}\nnot json\n', 2, "expected a JSON object, found invalid JSON"),
        ('["a", "x"]\n', 1, "expected a JSON object, found list"),
        ('{"title": "t", "text": "x"}\n', 1, "expected field '_id' or 'id', found none"),
        ('{"_id": "a b", "text": "x"}\n', 1, "expected '_id' to be a non-empty id without spaces"),
        ('{"_id": "a", "title": "t"}\n', 1, "expected field 'text' to be a string, found none"),
        (
            '{"_id": "a", "text": "x"}\n{"_id": "b", "text": "y"}\n{"_id": "a", "text": "z"}\n',
            3,
            "expected unique document ids, found 'a' again (first on line 1)",
        ),
    ],
)
def test_corpus_errors_name_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = _write(tmp_path / "corpus.jsonl", text)
    with pytest.raises(DocumentError) as caught:
        read_beir_corpus(path)
    assert str(caught.value).startswith(f"{path}:{line}: {message}")


def test_corpus_non_utf8_and_empty(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "corpus.jsonl", b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "\xff"}\n'
    )
    with pytest.raises(
        DocumentError, match=r"corpus.jsonl:2: expected UTF-8 text, found byte 0xff"
    ):
        read_beir_corpus(path)
    _write(path, "\n")
    with pytest.raises(DocumentError, match="expected at least one document, found none"):
        read_beir_corpus(path)


# -- queries and tags -------------------------------------------------------------------------


def test_queries_round_trip_with_tags(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    write_beir_queries(path, QUERIES)
    assert read_queries(path) == QUERIES
    assert '"tags"' not in path.read_text().splitlines()[1]  # no empty tag column written


def test_queries_tsv(tmp_path: Path) -> None:
    path = _write(tmp_path / "queries.tsv", "q1\tfirst question\nq2\tsecond\n")
    assert read_queries(path) == [_Query("q1", "first question"), _Query("q2", "second")]
    _write(path, "q1\tfirst\nq2 second\n")
    with pytest.raises(LabelsError, match=r"queries.tsv:2: expected 'query id<TAB>query text'"):
        read_queries(path)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            '{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n',
            2,
            "expected unique query ids, found 'q1' again (first on line 1)",
        ),  # fmt: skip
        ('{"_id": "q1", "text": " "}\n', 1, "expected 'text' to be a non-empty string"),
        (
            '{"_id": "q1", "text": "a", "tags": "x"}\n',
            1,
            "expected 'tags' to be a list of non-empty strings",
        ),  # fmt: skip
        ("{oops\n", 1, "expected a JSON object, found invalid JSON"),
        # the per-question CSV separates a question's tags by spaces: one tag, one word
        (
            '{"_id": "q1", "text": "a", "tags": ["ok"]}\n'
            '{"_id": "q2", "text": "b", "tags": ["ok", "two words"]}\n',
            2,
            "expected tags without spaces or control characters (e.g. 'long_tail'), found "
            "'two words'",
        ),  # fmt: skip
        (
            '{"_id": "q1", "text": "a", "tags": ["line\\nbreak"]}\n',
            1,
            "expected tags without spaces or control characters (e.g. 'long_tail'), found "
            "'line\\nbreak'",
        ),  # fmt: skip
    ],
)
def test_query_errors(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = _write(tmp_path / "queries.jsonl", text)
    with pytest.raises(LabelsError) as caught:
        read_queries(path)
    assert str(caught.value).startswith(f"{path}:{line}: {message}")


def test_tags_files(tmp_path: Path) -> None:
    tsv = _write(tmp_path / "tags.tsv", "query-id\ttags\nq1\tshort, numeric\nq2\t\n")
    assert read_tags(tsv) == {"q1": ("short", "numeric"), "q2": ()}
    jsonl = _write(tmp_path / "tags.jsonl", '{"id": "q1", "tags": ["a", "a", "b"]}\n')
    assert read_tags(jsonl) == {"q1": ("a", "b")}
    _write(tsv, "q1\ta\nq1\tb\n")
    with pytest.raises(LabelsError, match=r"tags.tsv:2: expected one tags line per query"):
        read_tags(tsv)
    for path, text in ((tsv, "q1\tshort, long tail\n"),
                       (jsonl, '{"id": "q1", "tags": ["short", "long tail"]}\n')):  # fmt: skip
        _write(path, text)
        with pytest.raises(LabelsError) as caught:
            read_tags(path)
        assert str(caught.value) == (
            f"{path}:1: expected tags without spaces or control characters (e.g. 'long_tail'), "
            "found 'long tail'"
        )


# -- qrels ------------------------------------------------------------------------------------


def test_beir_qrels_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    write_beir_qrels(path, GRADED)
    assert path.read_text().splitlines()[0] == "query-id\tcorpus-id\tscore"
    assert read_beir_qrels(path) == GRADED
    _write(path, "q1\td1\t3\n")  # header is optional
    assert read_beir_qrels(path) == {"q1": {"d1": 3}}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "query-id\tcorpus-id\tscore\nq1\td1\n",
            2,
            "expected 'query-id<TAB>corpus-id<TAB>score', found 'q1\\td1'",
        ),  # fmt: skip
        (
            "query-id\tcorpus-id\tscore\nq1\td1\thigh\n",
            2,
            "expected an integer score, found 'high'",
        ),
        (
            "qid\tdoc\tgrade\n",
            1,
            "expected a header 'query-id<TAB>corpus-id<TAB>score' or an integer score",
        ),  # fmt: skip
        (
            "q1 0 d1 2\n",
            1,
            "expected 'query-id<TAB>corpus-id<TAB>score', found 'q1 0 d1 2' (a TREC qrels file?",
        ),  # fmt: skip
        (
            "q1\td1\t2\nq1\td1\t1\n",
            2,
            "expected one judgment per query and document, found q1 d1 again (first on line 1)",
        ),  # fmt: skip
    ],
)
def test_beir_qrels_errors(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = _write(tmp_path / "test.tsv", text)
    with pytest.raises(LabelsError) as caught:
        read_beir_qrels(path)
    assert str(caught.value).startswith(f"{path}:{line}: {message}")


def test_a_later_line_of_a_beir_qrels_file_gets_no_rename_hint(tmp_path: Path) -> None:
    # the first line decides the format (a BEIR header here): renaming the file would not
    # change how it reads, so the one-field line is named without the TREC hint
    path = _write(tmp_path / "test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1 0 d2 1\n")
    with pytest.raises(LabelsError) as caught:
        read_beir_qrels(path)
    assert str(caught.value) == (
        f"{path}:3: expected 'query-id<TAB>corpus-id<TAB>score', found 'q1 0 d2 1'"
    )


def test_trec_layout_round_trip(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    write_qrels(qrels, GRADED)
    assert read_qrels(qrels) == GRADED
    run = tmp_path / "a.run"
    write_run(run, {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d5": 0.5}}, tag="a")
    assert read_run(run).to_dict() == {"q1": {"d1": 2.5, "d2": 1.0}, "q2": {"d5": 0.5}}
    _write(qrels, "q1 0 d1 2\nq1 0 d2\n")
    with pytest.raises(LabelsError, match=r"qrels.txt:2: expected 4 columns, found 3"):
        read_qrels(qrels)


# -- judgments -> labels ----------------------------------------------------------------------


def test_labels_at_threshold_2_and_3() -> None:
    at2 = _labels_from_judgments(QUERIES, GRADED, relevance=2)
    assert [lab.id for lab in at2] == ["q1", "q2", "q3"]
    assert [lab.relevant for lab in at2] == [frozenset({"d1", "d2"}), frozenset({"d2"}), frozenset()]  # fmt: skip
    assert [lab.answerable for lab in at2] == [True, True, False]
    assert all(lab.relevant_grade == 2 for lab in at2) and at2[0].grade_of("d3") == 1
    at3 = _labels_from_judgments(QUERIES, GRADED, relevance=3)
    assert [lab.relevant for lab in at3] == [frozenset({"d1"}), frozenset(), frozenset()]
    assert [lab.answerable for lab in at3] == [True, False, False]


def test_labels_tags_and_unjudged_queries() -> None:
    queries = [*QUERIES, _Query("q4", "never judged")]
    labels = _labels_from_judgments(queries, GRADED, 2, {"q1": ("short", "numeric"), "q4": ("rare",)})  # fmt: skip
    # q4 has no judgment: trec_eval leaves it out, and so do we (QuestionCounts counts it)
    assert [lab.id for lab in labels] == ["q1", "q2", "q3"]
    assert [lab.tags for lab in labels] == [("short", "numeric"), (), ()]


def test_labels_keep_judged_queries_the_queries_file_does_not_list() -> None:
    labels = _labels_from_judgments(QUERIES[:2], GRADED, 2)
    assert [(lab.id, lab.question) for lab in labels] == [
        ("q1", "first"), ("q2", "second"), ("q3", ""),  # q3: judged, no text of its own
    ]  # fmt: skip
    assert labels[2].grades == GRADED["q3"] and not labels[2].complete
    with pytest.raises(LabelsError, match="expected tags only for known queries, found unknown query id 'q9'"):  # fmt: skip
        _labels_from_judgments(QUERIES, GRADED, 2, {"q9": ("x",)})


@pytest.mark.parametrize(
    ("qrels", "judgments", "missing"),
    [
        ("test.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t2\nq1\tc\t1\n", "c"),
        ("qrels.txt", "q1 0 a 2\nq1 0 c 1\n", "c"),
        # an id another column of an earlier line holds (a's score, TREC's iteration): its line
        ("test.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t2\nq1\t2\t1\n", "2"),
        ("qrels.txt", "q1 0 a 2\nq1 0 0 1\n", "0"),
    ],
)
def test_a_judged_id_not_in_the_corpus_is_refused_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, judgments: str, missing: str
) -> None:
    _write(tmp_path / "corpus.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "b", "text": "y"}\n')
    _write(tmp_path / "queries.jsonl", '{"_id": "q1", "text": "what"}\n')
    _write(tmp_path / qrels, judgments)
    _write(tmp_path / "evidencedesk.toml", '[documents]\ncorpus = "corpus.jsonl"\n[questions]\n'
           f'queries = "queries.jsonl"\nqrels = "{qrels}"\n')  # fmt: skip
    assert main(["validate", "--project", str(tmp_path)]) == 2
    line = 3 if qrels.endswith(".tsv") else 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / qrels}:{line}: expected judged ids from the corpus, found "
        f"'{missing}' "
        "(query 'q1') which is not a chunk or document id of the catalog\n"
    )


def test_an_empty_document_is_listed_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "a", "text": "x"}\n{"_id": "b", "title": "", "text": " "}\n')
    catalog = read_beir_corpus(path)
    assert catalog.ids() == ("a", "b") and catalog.empty == (("b", 2),)


# queries files as rows (`files._records.rows`): the first row is fine, the second is the case
PLAIN_CASES = {
    "fine": {"_id": "q2", "text": " two ", "tags": [" b ", "a", "b"]},
    "an integer id": {"_id": 7, "text": "seven"},
    "an id under 'id'": {"id": "q2", "text": "two"},
    "'_id' first": {"_id": "q2", "id": "x y", "text": "two"},
    "a null '_id'": {"_id": None, "id": "q2", "text": "two"},
    "no id": {"text": "two"},
    "a boolean id": {"_id": True, "text": "two"},
    "an id with a space": {"_id": "q 2", "text": "two"},
    "an id with a tab": {"_id": "q\t2", "text": "two"},
    "an id with a control": {"_id": "q\x072", "text": "two"},
    "an id with a zero-width space": {"_id": "q\u200b2", "text": "two"},
    "an empty id": {"_id": "", "text": "two"},
    "a comment id": {"_id": "#2", "text": "two"},
    "a formula id": {"_id": "=2", "text": "two"},
    "the same id": {"_id": "q1", "text": "two"},
    "a look-alike id": {"_id": "q\u200d1", "text": "two"},
    "a blank text": {"_id": "q2", "text": "  "},
    "a text not a string": {"_id": "q2", "text": 2},
    "null tags": {"_id": "q2", "text": "two", "tags": None},
    "tags not a list": {"_id": "q2", "text": "two", "tags": "a"},
    "a blank tag": {"_id": "q2", "text": "two", "tags": [" "]},
    "a tag not a string": {"_id": "q2", "text": "two", "tags": [1]},
    "a tag with a space": {"_id": "q2", "text": "two", "tags": ["a b"]},
    "an accented id": {"_id": "q\u00e9", "text": "two", "tags": ["\u00e9t\u00e9"]},
    "a text line": "q2\ttwo",
}


@pytest.mark.parametrize("case", list(PLAIN_CASES))
def test_queries_checked_at_once_are_the_queries_checked_line_by_line(case: str) -> None:
    # the checks made once over every row accept only what the line-by-line checks accept, and
    # read it alike; anything else is left to those, which name the line
    rows = [(1, {"_id": "q1", "text": "one", "tags": ["a"]}), (2, PLAIN_CASES[case])]
    read: list[tuple[int, object]] = []
    plain = _plain_queries(iter(rows), read)  # type: ignore[arg-type]
    assert read == rows[: len(read)]
    try:
        checked: object = _checked_queries(rows, Path("q.jsonl"))  # type: ignore[arg-type]
    except LabelsError as exc:
        checked = str(exc)
    if plain is not None:
        assert plain == checked
    else:
        assert case not in ("fine", "an integer id", "an id under 'id'", "an accented id")
    if case == "fine":
        assert plain == [_Query("q1", "one", ("a",)), _Query("q2", "two", ("b", "a"))]


def test_a_queries_file_read_line_by_line_after_a_row_the_plain_checks_leave(
    tmp_path: Path,
) -> None:
    # the rows read before a text line are read again by the line-by-line checks, the rest
    # after them: every query once, in order, and the error names its line
    path = _write(tmp_path / "queries.jsonl", '{"_id": "q1", "text": "one"}\n[1]\n')
    with pytest.raises(LabelsError) as refused:
        read_queries(path)
    assert str(refused.value) == f"{path}:2: expected a JSON object, found list"
    path = _write(tmp_path / "queries.jsonl",
                  '{"_id": "q1", "text": "one"}\n{"_id": "q 2", "text": "two"}\n'
                  '{"_id": "q3", "text": "three"}\n')  # fmt: skip
    with pytest.raises(LabelsError) as refused:
        read_queries(path)
    assert str(refused.value) == (
        f"{path}:2: expected '_id' to be a non-empty id without spaces, found 'q 2'"
    )


def test_queries_whose_ids_look_alike_are_left_to_the_line_by_line_checks() -> None:
    rows = [(1, {"_id": "q\u00e9", "text": "one"}), (2, {"_id": "qe\u0301", "text": "two"})]
    assert _plain_queries(iter(rows), []) is None  # type: ignore[arg-type]
    with pytest.raises(LabelsError) as refused:
        _checked_queries(rows, Path("q.jsonl"))  # type: ignore[arg-type]
    assert "normalisation" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("tags.tsv", "q1\tshort\nq9\tx\n", 2),
        ("tags.jsonl", '{"id": "q1", "tags": ["short"]}\n\n{"id": "q9", "tags": ["x"]}\n', 3),
    ],
)
def test_tags_for_an_unknown_query_name_their_line(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    """The build's one line names the tags file and the line of the id no query has."""
    project = write_project(tmp_path, {"q1": {"d1": 2}}, {"base": {"q1": ["d1"]}})
    (tmp_path / name).write_text(text, "utf-8")
    toml = project.read_text("utf-8")
    project.write_text(toml.replace("relevance = 2", f'relevance = 2\ntags = "{name}"'), "utf-8")
    err = io.StringIO()
    code = main(["build", "--project", str(project), "--out", str(tmp_path / "site")],
                    stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert code == 2
    assert err.getvalue() == (
        f"error: {tmp_path / name}:{line}: expected tags only for known queries, found unknown "
        "query id 'q9'\n"
    )
