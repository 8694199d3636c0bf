"""Exports a spreadsheet opens cannot run: every text cell of to-label.tsv and the per-question
CSV is neutralised as OWASP's CSV-injection guidance says (a leading ``'`` before = + - @ tab
CR), white space inside a name never adds a column or a line, and ids and numbers stay byte-exact
for the round trip back to qrels."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.files._writing import text_cell
from evidencedesk.results._serialize import PER_QUESTION, TO_LABEL
from evidencedesk.results.types import ChunkFact, Results, ToLabel
from tests.test_results_units import export_texts, tiny_results

FORMULA = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ('=HYPERLINK("http://x.example","x")', '\'=HYPERLINK("http://x.example","x")'),
        ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
        ("@SUM(1+1)", "'@SUM(1+1)"),
        ("-2+3", "'-2+3"),
        ("+1", "'+1"),
        ("\t=1+1", "'=1+1"),  # the tab goes, and the formula behind it is still neutralised
        ("\r\n@x", "'@x"),
        ("a\tb\nc\r\nd\u2028e", "a b c d e"),  # no cell adds a column or a line
        ("plain text", "plain text"),
        ("name\udc80.run", "name\ufffd.run"),  # a file name's byte that is not UTF-8
        ("a-b = c", "a-b = c"),  # only the first character matters
        ("", ""),
    ],
)
def test_a_text_cell_cannot_start_a_formula_or_a_line(text: str, cell: str) -> None:
    assert text_cell(text) == cell


def test_a_cut_cell_is_cut_before_the_apostrophe_is_added() -> None:
    assert text_cell("  =" + "x" * 10, 4) == "'=xxx"
    assert text_cell("abcdef", 3) == "abc"


HOSTILE_RUN = "=cmd|' /C calc'!A0"
TAB_RUN, NEWLINE_RUN = "run\twith tab", "run\nwith newline"


def hostile_results() -> Results:
    """The tiny results with hostile text everywhere a TSV or CSV shows text from data."""
    r = tiny_results()
    variant = replace(r.variants[0], name=HOSTILE_RUN)
    questions = tuple(
        replace(q, question=text, tags=tags)
        for q, text, tags in zip(
            r.inputs.questions,
            ['=HYPERLINK("http://x.example","x")', "\tline one\nline two", "-2+3"],
            [("@SUM(1+1)",), ("direct", "stale"), ("+tag",)],
            strict=True,
        )
    )
    facts = (
        ChunkFact("d-2", "=1+1", "@SUM(1+1) is\ttabbed\nand broken", ()),
        ChunkFact("d3", "plain title", "-minus first\r\nthen more", ("superseded",)),
    )
    to_label = (
        ToLabel("q1", "d-2", 1, (TAB_RUN, NEWLINE_RUN), 2),
        ToLabel("q2", "d3", 3, (HOSTILE_RUN,), 1),
    )
    inputs = replace(r.inputs, questions=questions, chunk_facts=facts)
    return replace(r, baseline=HOSTILE_RUN, variants=(variant,), inputs=inputs, to_label=to_label)


def _no_formula(rows: list[list[str]], text_columns: set[int]) -> None:
    for row in rows:
        for i in text_columns:
            assert not row[i].startswith(FORMULA), row


def test_to_label_tsv_reads_back_with_the_header_s_columns_and_no_formula() -> None:
    text = export_texts(hostile_results())[TO_LABEL]
    lines = text.splitlines()
    assert len(lines) == 3  # the header and one line per pair: no name added a line
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    assert header[0] == "# query" and len(header) == 10
    assert all(len(row) == len(header) for row in rows)
    assert rows[1] == ["q1", "0", "d-2", "", "1", "run with tab,run with newline", "2",
                       "'=HYPERLINK(\"http://x.example\",\"x\")", "'=1+1",
                       "'@SUM(1+1) is tabbed and broken"]  # fmt: skip
    assert rows[2] == ["q2", "0", "d3", "", "3", "'=cmd|' /C calc'!A0", "1", "line one line two",
                       "plain title", "'-minus first then more"]  # fmt: skip
    # ids and the grade column byte-exact: the first four columns are a qrels line once graded
    assert [(r[0], r[1], r[2], r[3]) for r in rows[1:]] == [("q1", "0", "d-2", ""),
                                                             ("q2", "0", "d3", "")]  # fmt: skip
    _no_formula(rows[1:], {5, 7, 8, 9})


def test_per_question_csv_reads_back_with_the_header_s_columns_and_no_formula() -> None:
    text = export_texts(hostile_results())[PER_QUESTION]
    assert len(text.splitlines()) == 4
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["question", "variant", "recall@1", "recall@3", "mrr", "ndcg@5",
                       "first_relevant_rank", "tags"]  # fmt: skip
    assert all(len(row) == len(rows[0]) for row in rows)
    assert rows[1] == ["q1", "'=cmd|' /C calc'!A0", "0.0", "1.0", "0.5",
                       "0.6590018048024133", "2", "'@SUM(1+1)"]  # fmt: skip
    assert rows[2][7] == "direct stale" and rows[3][7] == "'+tag"
    _no_formula(rows[1:], {1, 7})


def test_pandas_reads_each_export_as_the_header_s_table() -> None:
    pandas = pytest.importorskip("pandas")
    files = export_texts(hostile_results())
    tsv = pandas.read_csv(io.StringIO(files[TO_LABEL]), sep="\t", dtype=str,
                          keep_default_na=False, quoting=csv.QUOTE_NONE)  # fmt: skip
    assert tsv.shape == (2, 10)
    per_question = pandas.read_csv(io.StringIO(files[PER_QUESTION]), dtype=str,
                                   keep_default_na=False)  # fmt: skip
    assert per_question.shape == (3, 8)
    for table in (tsv, per_question):
        for column in table.columns:
            assert not any(str(v).startswith(FORMULA[:4]) for v in table[column]), column


# -- any text at all: hypothesis -----------------------------------------------------------------

# every category: controls, format (bidi, zero-width), separators, surrogates, combining marks
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=40)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(ANY_TEXT, min_size=1, max_size=4), text=ANY_TEXT)
def test_any_name_or_text_keeps_both_exports_tables_of_the_header_s_columns(
    names: list[str], text: str
) -> None:
    r = hostile_results()
    variant = replace(r.variants[0], name=names[0])
    facts = (ChunkFact("d-2", text, text, ()), ChunkFact("d3", text, None, ()))
    to_label = (ToLabel("q1", "d-2", 1, tuple(names), 2), ToLabel("q2", "d3", 3, (names[0],), 1))
    questions = tuple(replace(q, question=text, tags=tuple(names)) for q in r.inputs.questions)
    inputs = replace(r.inputs, questions=questions, chunk_facts=facts)
    r = replace(r, baseline=names[0], variants=(variant,), inputs=inputs, to_label=to_label)
    files = export_texts(r)  # every export can be written as UTF-8: the site encodes them
    tsv = files[TO_LABEL]
    assert len(tsv.splitlines()) == 3 and tsv.count("\n") == 3
    rows = list(csv.reader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [len(row) for row in rows] == [10, 10, 10]
    assert rows[1][7] == text_cell(text) and rows[1][5] == ",".join(map(text_cell, names))
    _no_formula(rows[1:], {5, 7, 8, 9})
    per_question = files[PER_QUESTION]
    assert len(per_question.splitlines()) == 4
    table = list(csv.reader(io.StringIO(per_question)))
    assert [len(row) for row in table] == [8, 8, 8, 8]
    assert [row[1] for row in table[1:]] == [text_cell(names[0])] * 3
    _no_formula(table[1:], {1, 7})
