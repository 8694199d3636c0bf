"""Ids and names with characters of every Unicode category (issue 38, done-when): controls, bidi
controls, zero-width characters, lone surrogates, combining marks, newlines, tabs -- through the
loaders (TREC qrels, runs, labels.jsonl), the exports and the page renderer.

Each property: a loader either reads exactly what the file says or refuses it with one
`EvidencedeskError` line (never another exception: a traceback); what was read, written back as
the TREC exports and the to-label TSV write it, reads back as the same table; and a page carries
every string from data escaped, and isolated (FSI … PDI) when it holds a character that could
reorder the page's own words.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from evidencedesk._inert import printable, visible
from evidencedesk.errors import EvidencedeskError
from evidencedesk.files.trec import TrecRun, read_qrels, read_run, write_qrels, write_run
from evidencedesk.report._render import _BIDI, environment
from evidencedesk.report._site import slug
from evidencedesk.results._serialize import TO_LABEL, _export_files
from evidencedesk.results.types import ToLabel
from evidencedesk.retrieval.labels import load_labels
from tests.test_results_units import tiny_results

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# one of each kind the issue names, drawn often; any character at all (surrogates included) too
SPECIAL = (
    "\x00\x01\t\n\r\x0b\x0c\x1b\x7f\x85\x9b"  # C0, DEL, C1 controls, tab, newline, CR
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # bidi controls
    "\u00ad\u180e\u200b\u200c\u200d\u2060\ufeff"  # zero-width and invisible
    "\u0301\u0308\u20dd"  # combining marks
    "\u00a0\u2028\u2029\u3000 "  # other white space
    "\ud800\udfff"  # lone surrogates
    "#'\"<>&=+-@\\/.:"  # what quotes, comments, formulas and paths are made of
    "\u00e9\u0645\u05d0\uff51\ufb01\U0001f600"  # letters outside ASCII: composed, RTL, wide
)
CHAR = st.sampled_from(SPECIAL) | st.characters(codec=None, categories=None)
IDS = st.text(CHAR | st.sampled_from("qd01"), min_size=1, max_size=6)
NAMES = st.text(CHAR | st.sampled_from("run "), min_size=1, max_size=10)


def _refused_in_one_line(read: Callable[[Path], object], path: Path) -> object | None:
    """What `read` returns, or None when it refuses with one line (anything else fails)."""
    try:
        return read(path)
    except EvidencedeskError as exc:
        assert len(printable(str(exc)).splitlines()) == 1, str(exc)
        assert str(exc).startswith(str(path)), str(exc)
        return None


def _one_word(*values: str) -> bool:
    """Whether each value is one column of a TREC line (holds no white space)."""
    return not any(c.isspace() for value in values for c in value)


def _file(folder: str, name: str, text: str) -> Path:
    path = Path(folder) / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))  # a lone surrogate: bytes not UTF-8
    return path


@FUZZ
@given(qid=IDS, doc=IDS)
def test_any_qrels_ids_are_read_as_written_or_refused_and_export_back(qid: str, doc: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "q.qrels", f"{qid} 0 {doc} 1\n")
        qrels = _refused_in_one_line(read_qrels, path)
        if qrels is None:
            return
        if _one_word(qid, doc):  # white space splits a column: the line says something else
            assert qrels == {qid.removeprefix("\ufeff"): {doc: 1}}  # a leading BOM is the file's
        back = Path(folder) / "back.qrels"
        write_qrels(back, qrels)  # type: ignore[arg-type]
        assert read_qrels(back) == qrels


@FUZZ
@given(qid=IDS, doc=IDS, tag=NAMES)
def test_any_run_ids_and_tag_are_read_as_written_or_refused_and_export_back(
    qid: str, doc: str, tag: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "a.run", f"{qid} Q0 {doc} 1 2.5 {tag}\n")
        run = _refused_in_one_line(read_run, path)
        if run is None:
            return
        assert isinstance(run, TrecRun)
        if _one_word(qid, doc, tag):
            assert run.to_dict() == {qid.removeprefix("\ufeff"): {doc: 2.5}}
            assert run.tag == tag
        back = Path(folder) / "back.run"
        write_run(back, run)
        assert read_run(back).to_dict() == run.to_dict()


@FUZZ
@given(qid=IDS, chunk=IDS, other=IDS, question=NAMES)
def test_any_labels_ids_are_read_as_written_or_refused(
    qid: str, chunk: str, other: str, question: str
) -> None:
    lines = [
        {"id": qid, "question": question, "grades": {chunk: 2}},
        {"id": other, "question": "second?", "grades": {}},
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "labels.jsonl", "".join(json.dumps(o) + "\n" for o in lines))
        labels = _refused_in_one_line(load_labels, path)
        if labels is None:
            return
        assert isinstance(labels, list)
        assert [(x.id, x.question, x.grades) for x in labels] == [
            (qid, question, {chunk: 2}),
            (other, "second?", {}),
        ]


@FUZZ
@given(qid=IDS, doc=IDS, names=st.lists(NAMES, min_size=1, max_size=3))
def test_read_ids_keep_the_to_label_columns_byte_exact(
    qid: str, doc: str, names: list[str]
) -> None:
    """An id a qrels file reads (`read_qrels`) is written to to-label.tsv as it is, and reads
    back from it, with any run names beside it, as the header's ten columns."""
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "q.qrels", f"{qid} 0 {doc} 1\n")
        if _refused_in_one_line(read_qrels, path) is None:
            return
    qid = qid.removeprefix("\ufeff")
    if not _one_word(qid, doc):
        return
    results = replace(tiny_results(), to_label=(ToLabel(qid, doc, 1, tuple(names), 1),))
    text = _export_files(results, slug)[TO_LABEL]
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [len(row) for row in rows] == [10, 10]
    assert rows[1][:4] == [qid, "0", doc, ""]


@FUZZ
@given(text=NAMES, name=NAMES)
def test_a_page_carries_any_string_escaped_and_isolated(text: str, name: str) -> None:
    env = environment(names=(name,))
    isolated = "\u2068{}\u2069"
    for value, template in ((text, "{{ v }}"), (name, "{{ v }}"), (text, "{{ v | shown_id }}")):
        shown = visible(value) if "shown_id" in template else value
        page = env.from_string(f"<p>{template}</p>").render(v=value)
        inner = str(escape(shown))
        assert page == f"<p>{isolated.format(inner) if _BIDI.search(shown) else inner}</p>"
    # a sentence of ours holding the name: the name inside <bdi> when it could reorder the page
    page = env.from_string("<p>{{ s | isolate }}</p>").render(s=f"{name} is better")
    escaped = str(escape(name))
    if _BIDI.search(name):
        assert f"<bdi>{escaped}</bdi> is better" in page
    else:
        assert page == f"<p>{escaped} is better</p>"
