"""Ids and names with characters of every Unicode category (issue 38, done-when): controls, bidi
controls, zero-width characters, lone surrogates, combining marks, newlines, tabs -- through the
loaders (TREC qrels, runs, labels.jsonl; BEIR queries, corpus and qrels), the exports, the page
renderer, and ``evidencedesk build`` with such a run name or question id (the real templates).

Each property: a loader either reads exactly what the file says or refuses it with one
`EvidencedeskError` line (never another exception: a traceback); what was read, written back as
the TREC exports and the to-label TSV write it, reads back as the same table; and a page carries
every string from data escaped, and isolated (FSI … PDI, or ``<bdi>``) when it holds a
character that could reorder the page's own words; a build exits 0 or refuses in one ``error:``
line (exit 2), and its pages show an id's invisible characters (`visible`).
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from evidencedesk._inert import printable, visible
from evidencedesk.cli import main
from evidencedesk.errors import EvidencedeskError, InputError
from evidencedesk.files._trec_keys import id_problem
from evidencedesk.files.trec import TrecRun, read_qrels, read_run, write_qrels, write_run
from evidencedesk.report._render import _BIDI, _READ_AS_CLAIM, _balanced, environment
from evidencedesk.results._serialize import TO_LABEL
from evidencedesk.results.types import ToLabel
from evidencedesk.retrieval.beir import (
    _QRELS_HEADER,
    _Query,
    read_beir_corpus,
    read_beir_qrels,
    read_queries,
)
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.labels import load_labels
from tests.synthetic_runs import write_project
from tests.test_results_units import export_texts, tiny_results

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
    text = export_texts(results)[TO_LABEL]
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [len(row) for row in rows] == [10, 10]
    assert rows[1][:4] == [qid, "0", doc, ""]


@FUZZ
@given(text=NAMES, name=NAMES)
@example(text="0", name="\u2066")  # a lone LRI in a sentence: closed inside its <bdi>
def test_a_page_carries_any_string_escaped_and_isolated(text: str, name: str) -> None:
    env = environment(names=(name,))
    isolated = "\u2068{}\u2069"
    # a name the audit could read as a claim ("P<", "hybrid 0.75") is data: marked wherever it is
    data = {name} if _READ_AS_CLAIM.search(name) else set()
    for value, template in ((text, "{{ v }}"), (name, "{{ v }}"), (text, "{{ v | shown_id }}")):
        shown = visible(value) if "shown_id" in template else value
        page = env.from_string(f"<p>{template}</p>").render(v=value)
        inner = str(escape(shown))
        # isolated with its own isolates balanced: a lone LRI is closed inside the wrapper
        wrapped = isolated.format(str(escape(_balanced(shown))))
        expected = wrapped if _BIDI.search(shown) else inner
        if shown in data:
            expected = f'<bdi dir="auto">{expected}</bdi>'
        assert page == f"<p>{expected}</p>"
        # inside an attribute's quotes: escaped and isolated, never marked
        page = env.from_string('<p title="{{ v | attribute }}"></p>').render(v=value)
        attribute = (
            isolated.format(escape(_balanced(value))) if _BIDI.search(value) else escape(value)
        )
        assert page == f'<p title="{attribute}"></p>'
    # a sentence of ours holding the name: the name inside <bdi> when it could reorder the page
    page = env.from_string("<p>{{ s | isolate }}</p>").render(s=f"{name} is better")
    escaped = str(escape(name))
    if data:
        assert '<bdi dir="auto">' in page and page.endswith(" is better</p>")
    elif _BIDI.search(name):  # its own isolates balanced inside, as in the wrapper above
        assert f"<bdi>{escape(_balanced(name))}</bdi> is better" in page
    else:
        assert page == f"<p>{escaped} is better</p>"


# -- BEIR loaders ------------------------------------------------------------------------------


def _refused_at_its_line(read: Callable[[Path], object], path: Path) -> object | None:
    """What `read` returns, or None when it refuses with one line that names the file and the
    line (``path:line: …``; a file with nothing in it names no line); anything else fails."""
    try:
        read_back = read(path)
    except EvidencedeskError as exc:
        event(f"refused: {exc.detail[:24]}" if isinstance(exc, InputError) else "refused")
        message = str(exc)
        assert len(message.splitlines()) == 1, message
        at_a_line = re.match(rf"{re.escape(str(path))}:[0-9]+: ", message) is not None
        assert at_a_line or message.startswith(f"{path}: expected at least one"), message
        return None
    event("read")
    return read_back


@FUZZ
@given(qid=IDS, text=NAMES, ascii=st.booleans())
def test_any_beir_jsonl_query_is_read_as_written_or_refused(
    qid: str, text: str, ascii: bool
) -> None:
    lines = [
        json.dumps({"_id": qid, "text": text}, ensure_ascii=ascii),
        '{"_id": "q0", "text": "zero"}',
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "queries.jsonl", "".join(line + "\n" for line in lines))
        queries = _refused_at_its_line(read_queries, path)
    if queries is not None:  # JSON escapes every line end: the text is the file's, stripped
        assert queries == [_Query(qid, text.strip()), _Query("q0", "zero")]


@FUZZ
@given(qid=IDS, text=NAMES)
def test_any_beir_tsv_query_is_read_as_written_or_refused(qid: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "queries.tsv", f"{qid}\t{text}\nq0\tzero\n")
        queries = _refused_at_its_line(read_queries, path)
    if queries is not None and _one_word(qid) and not any(c in "\r\n" for c in text):
        assert queries == [_Query(qid.removeprefix("\ufeff"), text.strip()), _Query("q0", "zero")]


@FUZZ
@given(doc=IDS, title=NAMES, text=NAMES, ascii=st.booleans())
def test_any_beir_document_is_read_as_written_or_refused(
    doc: str, title: str, text: str, ascii: bool
) -> None:
    row = json.dumps({"_id": doc, "title": title, "text": text}, ensure_ascii=ascii)
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "corpus.jsonl", f'{row}\n{{"_id": "d0", "text": "zero"}}\n')
        catalog = _refused_at_its_line(read_beir_corpus, path)
    if catalog is not None:
        assert isinstance(catalog, Catalog)
        chunks = [(c.id, c.doc_id, c.title, c.text) for c in catalog.chunks]
        assert chunks == [(doc, doc, title, text), ("d0", "d0", "", "zero")]


@FUZZ
@given(qid=IDS, doc=IDS, grade=st.integers(-2, 3), header=st.booleans())
def test_any_beir_qrels_ids_are_read_as_written_or_refused(
    qid: str, doc: str, grade: int, header: bool
) -> None:
    head = "\t".join(_QRELS_HEADER) + "\n" if header else ""
    with tempfile.TemporaryDirectory() as folder:
        path = _file(folder, "qrels.tsv", f"{head}{qid}\t{doc}\t{grade}\nq0\td0\t2\n")
        qrels = _refused_at_its_line(read_beir_qrels, path)
    if qrels is not None and _one_word(qid, doc):
        expected: dict[str, dict[str, int]] = {}
        expected.setdefault(qid if header else qid.removeprefix("\ufeff"), {})[doc] = grade
        expected.setdefault("q0", {})["d0"] = 2
        assert qrels == expected


# -- the command line and the real templates ---------------------------------------------------

# a build takes a third of a second: a few examples, and no explaining a failure (hundreds more)
BUILDS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no shrinking: each example is a build
)


def _holdable(name: str) -> bool:
    """Whether a file system can hold a run file named after `name`."""
    return (
        not any(c in "/\x00" or "\ud800" <= c <= "\udfff" for c in name)
        and name not in (".", "..")
        and len(f"{name}.run".encode()) <= 200
    )


RUN_NAMES = NAMES.filter(_holdable)
_AROUND = st.text(CHAR | st.sampled_from("run "), max_size=4)
_INITIATORS, _PDI = "\u2066\u2067\u2068", "\u2069"  # LRI, RLI, FSI; pop directional isolate
# a character that can turn text around (`_BIDI`), the issue's own (U+202E) drawn often
_TURNS = st.sampled_from("\u202e\u202b\u200f\u061c\u05d0\u0645") | st.from_regex(
    _BIDI, fullmatch=True
)


def _apart(name: str) -> bool:
    """Whether `name` can be told apart from the isolate around it on a page (it neither starts
    with an isolate initiator nor ends with a PDI) and a file system can hold it."""
    return _holdable(name) and not name.startswith(tuple(_INITIATORS)) and not name.endswith(_PDI)


# a name holding a right-to-left letter or a bidirectional control
BIDI_NAMES = st.builds(
    "{}{}{}".format, _AROUND, _TURNS | st.sampled_from(_INITIATORS + _PDI), _AROUND
).filter(_apart)
# a name holding a PDI and, after it, a character that can turn text around other than an isolate
CLOSING_NAMES = st.builds(
    "{}\u2069{}{}".format, _AROUND, _TURNS.filter(lambda c: c not in _INITIATORS + _PDI), _AROUND
).filter(_apart)
# a query id holding a character that draws nothing (`visible` shows it), and none that no
# query id may hold (white space, a control character, a formula's first character)
_ID_CHAR = (CHAR | st.sampled_from("q01")).filter(
    lambda c: not c.isspace() and unicodedata.category(c) not in ("Cc", "Cs")
)
INVISIBLE_IDS = st.builds(
    "{}{}{}".format,
    st.text(_ID_CHAR, max_size=3),
    st.sampled_from("\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\ufeff"),
    st.text(_ID_CHAR, max_size=3),
).filter(lambda qid: visible(qid) != qid and id_problem(qid, "query") is None)


def _append(path: Path, text: str) -> None:
    with path.open("ab") as handle:
        handle.write(text.encode("utf-8", "surrogatepass"))


def _build(folder: str, qid: str = "q1", name: str = "cand") -> tuple[int, str, Path]:
    """Build a runs-only project whose question `qid` a run `name` (its file's name) answers:
    the exit status, what was written on standard error and the site's folder."""
    root = Path(folder)
    project = write_project(root / "p", {"q2": {"d2": 2}}, {"base": {"q2": ["x", "d2"]}})
    _append(root / "p" / "queries.jsonl", json.dumps({"_id": qid, "text": "fuzzed?"}) + "\n")
    _append(root / "p" / "qrels.txt", f"{qid} 0 d1 2\n")
    _append(root / "p" / "runs" / "base.run", f"{qid} Q0 d1 1 9.0 base\n")
    _file(
        str(root / "p" / "runs"),
        f"{name}.run",
        f"{qid} Q0 x 1 9.0 c\n{qid} Q0 d1 2 8.0 c\nq2 Q0 d2 1 9.0 c\n",
    )
    out, err = root / "site", io.StringIO()
    argv = ["build", "--project", str(project), "--out", str(out), "-q"]
    code = main(argv, stdout=io.StringIO(), stderr=err)
    return code, err.getvalue(), out


def _built_or_refused(code: int, err: str, out: Path) -> bool:
    """Whether the build succeeded (and wrote the site); a refusal must be one ``error:`` line."""
    assert code in (0, 2), err
    assert "Traceback" not in err, err
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("error: "), err
        event(f"refused: {re.sub(r'^error: .*?:[0-9]+: ', '', err)[:24]}")
        return False
    event("built")
    assert (out / "index.html").is_file()
    return True


@BUILDS
@given(qid=IDS, name=RUN_NAMES)
def test_any_run_name_and_query_id_build_or_are_refused_in_one_line(qid: str, name: str) -> None:
    """A run file named `name` and a question `qid` in every input: a site, or one error line."""
    with tempfile.TemporaryDirectory() as folder:
        _built_or_refused(*_build(folder, qid, name))


_HIDDEN = re.compile(r"<script\b.*?</script>|<style\b.*?</style>|<!--.*?-->", re.S | re.I)


def _page_text(page: str) -> Iterator[tuple[str, bool]]:
    """Each run of a page's text (outside tags and so attributes, scripts and styles), unescaped,
    with whether it lies inside a ``<bdi>`` element."""
    page, bdi, at = _HIDDEN.sub("<hidden>", page), 0, 0
    for tag in re.finditer(r"<[^>]*>", page):
        yield html.unescape(page[at : tag.start()]), bdi > 0
        if re.match(r"</?bdi\b", tag.group(), re.I):
            bdi += -1 if tag.group().startswith("</") else 1
        at = tag.end()
    yield html.unescape(page[at:]), bdi > 0


def _isolates_after(text: str, depth: int = 0) -> int:
    """How many isolates are open after `text` when `depth` were open before it (a PDI closes
    the last one open; one with none open does nothing, as in the Unicode bidi algorithm)."""
    for c in text:
        depth = depth + 1 if c in _INITIATORS else max(depth - (c == _PDI), 0)
    return depth


def _inside_isolate(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` starts inside FSI/LRI/RLI … PDI (wrapped, or inside a longer
    string that is) and a PDI follows it."""
    return _isolates_after(text[:start]) > 0 and _PDI in text[end:]


def _stays_inside(text: str, start: int, end: int) -> bool:
    """`_inside_isolate`, and no character of `text[start:end]` that can turn text around
    (`_BIDI`) stands outside every isolate: a PDI of the value's own closes the isolate it was
    wrapped in, and an override after it runs on over the page's words."""
    if not _inside_isolate(text, start, end):
        return False
    depth = _isolates_after(text[:start])
    for c in text[start:end]:
        if depth == 0 and c not in _INITIATORS + _PDI and _BIDI.match(c):
            return False
        depth = _isolates_after(c, depth)
    return True


def _shown(
    site: Path, value: str, inside: Callable[[str, int, int], bool] = _inside_isolate
) -> Iterator[tuple[str, str, bool]]:
    """(page, text, isolated) for every place a page of `site` shows `value` in its text:
    isolated when inside a ``<bdi>`` element or when `inside` says so."""
    for page in sorted(site.rglob("*.html")):
        for text, in_bdi in _page_text(page.read_bytes().decode("utf-8")):
            start = text.find(value)
            while start != -1:
                yield page.name, text, in_bdi or inside(text, start, start + len(value))
                start = text.find(value, start + 1)


def _unisolated(folder: str, name: str, inside: Callable[[str, int, int], bool]) -> list[str]:
    """Each page text that shows the run `name` outside an isolate, once a build with that run
    succeeded (none when it was refused)."""
    code, err, out = _build(folder, name=name)
    if not _built_or_refused(code, err, out):
        return []
    if name.startswith("."):  # a hidden file in the runs folder is skipped, never read as a run
        assert not list(_shown(out, _balanced(name))), "a hidden run file was read"
        return []
    as_shown = _balanced(name)  # as pages show it: its isolates balanced
    if not _BIDI.search(as_shown):
        return []  # a lone PDI dropped: nothing left that could turn text around
    shown = list(_shown(out, as_shown, inside))
    assert shown, "the name is on no page"
    return [f"{page}: {text!a}" for page, text, isolated in shown if not isolated]


@BUILDS
@given(name=BIDI_NAMES)
def test_a_run_name_that_can_turn_text_around_is_isolated_on_every_page(name: str) -> None:
    """Every place a page's text shows the name (outside attributes and scripts) is inside an
    isolate: wrapped in FSI … PDI (alone or within a longer string) or inside ``<bdi>``."""
    with tempfile.TemporaryDirectory() as folder:
        assert _unisolated(folder, name, _inside_isolate) == []


@BUILDS
@given(name=CLOSING_NAMES)
def test_a_run_name_cannot_close_its_own_isolate(name: str) -> None:
    """A name holding a PDI and, after it, a character that can turn text around: the isolate
    around it must hold that character too (`<bdi>`, or the PDI made inert)."""
    with tempfile.TemporaryDirectory() as folder:
        assert _unisolated(folder, name, _stays_inside) == []


@BUILDS
@given(qid=INVISIBLE_IDS)
def test_a_question_id_that_draws_nothing_is_shown_on_every_page(qid: str) -> None:
    """No page's text holds the id with its invisible character raw; the pages show it visibly.
    (Run names are not ids: a page shows them as they are.)"""
    with tempfile.TemporaryDirectory() as folder:
        code, err, out = _build(folder, qid=qid)
        if not _built_or_refused(code, err, out):
            return
        raw = [(page, text) for page, text, _ in _shown(out, qid)]
        # shown visibly, its own isolates balanced (a lone PDI dropped, as for every text)
        assert list(_shown(out, _balanced(visible(qid)))), "the id is on no page"
    assert raw == []
