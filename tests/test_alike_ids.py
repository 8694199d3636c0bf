"""Two ids that differ only by invisible characters or Unicode normalisation are refused where
they are read (issue 38, item 3): qrels (TREC and BEIR), runs (the fast and the line reader),
labels.jsonl, BEIR queries and corpus; one line naming both ids and the earlier one's line. The
question list's script shows an id's invisible characters as ``inert.visible`` does.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencedesk._inert import look_alike, visible
from evidencedesk.errors import DocumentError, InputError, LabelsError, RunFileError
from evidencedesk.files._trec_keys import alike_problem, has_alike
from evidencedesk.files.trec import read_qrels, read_run
from evidencedesk.retrieval.beir import read_beir_corpus, read_beir_qrels, read_queries
from evidencedesk.retrieval.labels import load_labels
from tests.project_fixtures import make_runs_only_project
from tests.test_bad_input import build, snapshot

ZWSP, NFD_E, NFC_E = "\u200b", "e\u0301", "\u00e9"
SAYS = "ids that differ in more than invisible characters or Unicode normalisation"


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("q001", "q001"),
        ("q001\u200b", "q001"),
        ("q\u00ad001", "q001"),
        ("\ufeffq001", "q001"),
        ("q001\u2060", "q001"),
        ("q001\u200c\u200d", "q001"),
        ("\uff51\uff10\uff10\uff11", "q001"),  # full-width: NFKC
        (NFD_E, NFC_E),
        ("\ufb01le", "file"),  # the ligature fi: NFKC
    ],
)
def test_look_alike_drops_invisible_characters_and_normalises(text: str, form: str) -> None:
    assert look_alike(text) == form


def test_has_alike_finds_two_distinct_ids_of_one_form() -> None:
    assert has_alike(["q001", "q002", "q001\u200b"])
    assert has_alike([NFD_E, NFC_E])
    assert not has_alike(["q001", "q002", "q001"])  # the same id twice is not a look-alike
    assert not has_alike(["\u0642\u200c\u0627", "q001"])


def test_the_message_shows_both_ids_visibly_or_as_escapes() -> None:
    assert alike_problem("query", "q001\u200b", "q001", 2) == (
        f"expected query {SAYS}, found 'q001⟨U+200B⟩' and 'q001' (line 2)"
    )
    # a composed and a decomposed accent look the same even with invisible characters shown
    assert alike_problem("document", NFD_E, NFC_E, 7) == (
        f"expected document {SAYS}, found 'e\\u0301' and '\\xe9' (line 7)"
    )


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


Reader = Callable[[Path], object]
# (file name, content, reader, error class, line, kind, later id as shown, earlier id as shown)
CASES = [
    ("trec qrels, query ids", "a.qrels", "q001 0 d1 1\nq001\u200b 0 d2 1\n", read_qrels,
     LabelsError, 2, "query", "q001⟨U+200B⟩", "q001", 1),
    ("trec qrels, document ids", "a.qrels", f"q1 0 d{NFC_E} 1\nq2 0 d1 0\nq2 0 d{NFD_E} 1\n",
     read_qrels, LabelsError, 3, "document", "de\\u0301", "d\\xe9", 1),
    ("run, query ids (fast path)", "a.run",
     "q1 Q0 d1 1 2.0 t\n\ufeffq1 Q0 d1 1 2.0 t\n", read_run, RunFileError, 2, "query",
     "⟨U+FEFF⟩q1", "q1", 1),
    ("run, document ids (fast path)", "a.run",
     "q1 Q0 d1 1 3.0 t\nq1 Q0 d\u00ad1 2 2.0 t\n", read_run, RunFileError, 2, "document",
     "d⟨U+00AD⟩1", "d1", 1),
    ("run, document ids (line reader)", "a.run",
     "q1 Q0 \uff44\uff11 1 3.0 t\nq1  Q0 d1 2 2.0 t\n", read_run, RunFileError, 2, "document",
     "d1", "\uff44\uff11", 1),
    ("labels, question ids", "labels.jsonl",
     json.dumps({"id": "q1", "question": "a?", "grades": {"c1": 2}}) + "\n"
     + json.dumps({"id": "q1\u2060", "question": "b?", "grades": {"c2": 2}}) + "\n",
     load_labels, LabelsError, 2, "question", "q1⟨U+2060⟩", "q1", 1),
    ("labels, chunk ids", "labels.jsonl",
     json.dumps({"id": "q1", "question": "a?", "grades": {"c1": 2}}) + "\n"
     + json.dumps({"id": "q2", "question": "b?", "grades": {"c\u200d1": 2}}) + "\n",
     load_labels, LabelsError, 2, "chunk", "c⟨U+200D⟩1", "c1", 1),
    ("beir queries (jsonl)", "queries.jsonl",
     '{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n{"_id": "q\\u200b1", "text": "c"}\n',
     read_queries, LabelsError, 3, "query", "q⟨U+200B⟩1", "q1", 1),
    ("beir queries (tsv)", "queries.tsv", f"q{NFD_E}\ta\nq{NFC_E}\tb\n", read_queries,
     LabelsError, 2, "query", "q\\xe9", "qe\\u0301", 1),
    ("beir corpus", "corpus.jsonl",
     '{"_id": "d1", "text": "a"}\n{"_id": "d1\\u00ad", "text": "b"}\n', read_beir_corpus,
     DocumentError, 2, "document", "d1⟨U+00AD⟩", "d1", 1),
    ("beir qrels", "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td\u200b1\t0\n",
     read_beir_qrels, LabelsError, 3, "document", "d⟨U+200B⟩1", "d1", 2),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "content", "reader", "error", "line", "kind", "later", "earlier", "first"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_look_alike_ids_are_refused_where_read(
    tmp_path: Path, name: str, content: str, reader: Reader, error: type[InputError],
    line: int, kind: str, later: str, earlier: str, first: int,
) -> None:  # fmt: skip
    path = _write(tmp_path / name, content)
    with pytest.raises(error) as caught:
        reader(path)
    assert str(caught.value) == (
        f"{path}:{line}: expected {kind} {SAYS}, found '{later}' and '{earlier}' (line {first})"
    )


@pytest.mark.parametrize(
    ("name", "content", "reader"),
    [
        ("a.qrels", f"q{NFC_E} 0 d1 1\nq\u0642\u200c\u0627 0 d1 1\n", read_qrels),
        ("a.run", f"q1 Q0 d{NFC_E} 1 2.0 t\nq1 Q0 d{NFC_E}x 2 1.0 t\n", read_run),
        ("queries.tsv", "\u0645\u200c\u0627\ta\n\u0645\u0627x\tb\n", read_queries),
    ],
)
def test_ids_outside_ascii_that_differ_visibly_are_read(
    tmp_path: Path, name: str, content: str, reader: Reader
) -> None:
    reader(_write(tmp_path / name, content))


def test_a_build_refuses_look_alike_question_ids_and_keeps_the_site(tmp_path: Path) -> None:
    root = make_runs_only_project(tmp_path, questions=12, runs=2).parent
    out = tmp_path / "out" / "site"
    status, _, stderr = build(root, out)
    assert status == 0, stderr
    before = snapshot(out)
    qrels = root / "qrels.txt"
    lines = qrels.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.append(lines[0].replace("q001", "q001\u200b", 1))
    qrels.write_text("".join(lines), encoding="utf-8")

    status, stdout, stderr = build(root, out)

    assert (status, stderr) == (
        2,
        f"error: {qrels}:{len(lines)}: expected query {SAYS}, found 'q001⟨U+200B⟩' and 'q001' "
        "(line 1)\n",
    )
    assert "Traceback" not in stdout
    assert snapshot(out) == before


def test_a_build_refuses_two_runs_whose_names_look_alike_and_keeps_the_site(
    tmp_path: Path,
) -> None:
    root = make_runs_only_project(tmp_path, questions=12, runs=2).parent
    out = tmp_path / "out" / "site"
    assert build(root, out)[0] == 0
    before = snapshot(out)
    first = sorted((root / "runs").glob("*.run"))[-1]
    twin = first.with_name(f"{first.stem}{ZWSP}.run")  # `rerank` and `rerank` + U+200B
    shutil.copyfile(first, twin)

    status, _, stderr = build(root, out)

    shown = visible(twin.stem)
    assert (status, stderr) == (
        2,
        f"error: {root / 'runs' / f'{shown}.run'}: expected run names that differ in more than "
        f"invisible characters or Unicode normalisation, found '{shown}' and '{first.stem}'\n",
    )
    assert snapshot(out) == before


def test_an_id_with_an_invisible_character_is_shown_visibly_on_every_page(
    tmp_path: Path,
) -> None:
    root = make_runs_only_project(tmp_path, questions=12, runs=3).parent
    for path in [root / "qrels.txt", *(root / "runs").glob("*.run"), *root.glob("queries*")]:
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\bq001\b", f"q001{ZWSP}", text), encoding="utf-8")
    out = tmp_path / "site"
    assert build(root, out)[0] == 0
    pages = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    # what a reader sees: the text outside tags and scripts (attributes keep the id as it is)
    seen = {name: re.sub(r"<[^>]*>", "", re.sub(r"<script.*?</script>", "", page, flags=re.S))
            for name, page in pages.items()}  # fmt: skip
    assert {name for name, text in seen.items() if ZWSP in text} == set()
    assert sum("q001⟨U+200B⟩" in text for text in seen.values()) >= 4
    page = pages[next(n for n in pages if n.startswith("question-q001"))]
    assert "<title>q001⟨U+200B⟩ · " in page
    assert "q001⟨U+200B⟩, " in seen[next(n for n in pages if n.startswith("candidate-"))]


# -- the question list's script --------------------------------------------------------------

SCRIPT = Path(__file__).resolve().parent.parent / "templates" / "questions.js"
SAMPLES = [
    "q001", "q001\u200b", "\u200dq", "a\u200cb", "\u0628\u200c\u0627", "a\u200d\u200d",
    "\u00adx\u00ad", "\ufeff\u2060\u2061\u2064\u180e", "\u200b\u200d", "q\U0001f600\u200d",
]  # fmt: skip


def test_the_question_list_script_shows_ids_as_inert_visible_does() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")

    source = SCRIPT.read_text(encoding="utf-8")
    found = re.search(r"  var INVISIBLE = .*?\n  function visible\(s\) \{.*?\n  \}\n", source, re.S)
    assert found is not None, "questions.js: the visible() function moved"
    program = (
        found.group() + f"process.stdout.write(JSON.stringify({json.dumps(SAMPLES)}.map(visible)));"
    )
    done = subprocess.run([node, "-e", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [visible(s) for s in SAMPLES]
