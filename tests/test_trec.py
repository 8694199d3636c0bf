"""TREC qrels / run I/O: round trips, trec_eval's ordering, exact error messages, judging paths."""

from __future__ import annotations

import itertools
import math
import mmap
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.errors import LabelsError, RunFileError
from evidencedesk.files import _trec_arrays as trec_arrays
from evidencedesk.files import _trec_keys as trec_keys
from evidencedesk.files.trec import (
    TrecRun,
    _ScoreOrder,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)
from evidencedesk.results._inputs import judged_depth
from evidencedesk.retrieval._metric_engine import list_heads
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, _metric_value, summarize
from evidencedesk.retrieval.trec_judge import _qrels_from_labels, judge_trec_run
from tests.project_fixtures import make_runs_only_project

NAMES = ["recall@1", "recall@5", "precision@3", "hit@2", "mrr", "ndcg@5", "ndcg@10:linear"]


def write(tmp_path: Path, text: str, name: str = "run.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# -- round trips ------------------------------------------------------------------------------


def test_qrels_round_trip(tmp_path: Path) -> None:
    qrels = {"q2": {"kc-returns-v3:c0": 2, "d1": 0}, "q1": {"d9": 1, "d3": 2}}
    write_qrels(tmp_path / "q.txt", qrels)
    assert (tmp_path / "q.txt").read_text().splitlines()[0] == "q2 0 kc-returns-v3:c0 2"
    assert read_qrels(tmp_path / "q.txt") == qrels


def test_run_round_trip(tmp_path: Path) -> None:
    data = {"q1": {"a": 3.0, "b": 2.5, "c": -1e-7}, "q0": {"kc-returns-v3:c0": 0.1 + 0.2}}
    write_run(tmp_path / "r.txt", data, "mine")
    lines = (tmp_path / "r.txt").read_text().splitlines()
    assert lines[0] == "q0 Q0 kc-returns-v3:c0 1 0.30000000000000004 mine"
    assert lines[1:] == ["q1 Q0 a 1 3.0 mine", "q1 Q0 b 2 2.5 mine", "q1 Q0 c 3 -1e-07 mine"]
    run = read_run(tmp_path / "r.txt")
    assert run.to_dict() == data and run.tag == "mine"
    assert run.qids == ("q0", "q1") and len(run) == 2 and run.n_lines == 4
    write_run(tmp_path / "again.txt", run)
    assert (tmp_path / "again.txt").read_text() == (tmp_path / "r.txt").read_text()


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z0-9:._][a-z0-9:._-]{0,11}", fullmatch=True),
        st.dictionaries(
            st.from_regex(r"[A-Za-z0-9:#/_][A-Za-z0-9:#/_-]{0,19}", fullmatch=True),
            st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-5, 5).map(float),
            min_size=1,
            max_size=8,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_run_round_trip_property(tmp_path_factory, data) -> None:
    path = tmp_path_factory.mktemp("rt") / "r.txt"
    write_run(path, data, "t")
    run = read_run(path)
    assert run.to_dict() == data
    assert run.to_dict() == TrecRun.from_dict(data).to_dict()
    for qid in run.qids:  # score descending, ties by document id descending
        pairs = [(s, d) for d, s in run.ranked(qid)]
        assert pairs == sorted(pairs, key=lambda p: (p[0], p[1].encode()), reverse=True)


# -- reading order ----------------------------------------------------------------------------


def test_reading_orders_like_trec_eval(tmp_path: Path) -> None:
    text = (
        "q10 Q0 d1 1 1.0 t\n"
        "q2 Q0 a 9 5 t\n"
        "q10 Q0 d10 2 1.0 t\n"  # same query again later in the file
        "q10 Q0 d2 3 1.0 t\n"
        "q10 Q0 d0 4 7.5 t\n"
        "q2 Q0 b 1 4 t\n"
    )
    run = read_run(write(tmp_path, text))
    assert run.qids == ("q10", "q2")  # sorted as strings, like trec_eval
    # rank column ignored; ties by doc id descending as strings: d2 > d10 > d1
    assert [d for d, _ in run.ranked("q10")] == ["d0", "d2", "d10", "d1"]
    assert run.ranked("q2") == [("a", 5.0), ("b", 4.0)]
    assert run.ranked("nope") == []
    # q10's last line (7.5) scores higher than its line before it (1.0): said, ranked all the same
    assert run.order == _ScoreOrder(rising=1, rising_ids=("q10",))


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 9 t\n", _ScoreOrder()),  # best first: none
        # a tie is no rise, and a query is flat only when all its lines tie
        ("q1 Q0 a 1 2 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\n", _ScoreOrder()),
        # distances written best first: every query's scores rise
        (
            "q2 Q0 a 1 0.1 t\nq2 Q0 b 2 0.4 t\nq1 Q0 c 1 0.2 t\nq1 Q0 d 2 0.3 t\n",
            _ScoreOrder(rising=2, rising_ids=("q1", "q2")),
        ),
        # a reranker's ranks with the first stage's scores: one query's order changed
        (
            "q1 Q0 a 1 5 t\nq1 Q0 b 2 4 t\nq2 Q0 c 1 1 t\nq2 Q0 d 2 3 t\nq2 Q0 e 3 2 t\n",
            _ScoreOrder(rising=1, rising_ids=("q2",)),
        ),
        # queries interleaved: each query's lines are compared with its own line before them
        (
            "q1 Q0 a 1 5 t\nq2 Q0 b 1 1 t\nq1 Q0 c 2 4 t\nq2 Q0 d 2 3 t\n",
            _ScoreOrder(rising=1, rising_ids=("q2",)),
        ),
        # a later query first, each best first: no rise
        ("q2 Q0 a 1 5 t\nq2 Q0 b 2 4 t\nq1 Q0 c 1 9 t\nq1 Q0 d 2 1 t\n", _ScoreOrder()),
        # five queries rise: the count, and the first three in query order
        (
            "".join(f"q{n} Q0 a 1 1 t\nq{n} Q0 b 2 2 t\n" for n in (5, 4, 3, 2, 1)),
            _ScoreOrder(rising=5, rising_ids=("q1", "q2", "q3")),
        ),
        # one score for every line: ranked by document id; a query of one line is not flat
        (
            "q1 Q0 a 1 0 t\nq1 Q0 b 2 0 t\nq2 Q0 c 1 0 t\nq3 Q0 d 1 1 t\nq3 Q0 e 2 1 t\n",
            _ScoreOrder(flat=2, flat_ids=("q1", "q3")),
        ),
        # both at once, in one query: it rises, then its lines tie
        (
            "q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 3 t\nq2 Q0 d 2 3 t\n",
            _ScoreOrder(rising=1, rising_ids=("q1",), flat=1, flat_ids=("q2",)),
        ),
    ],
)
def test_where_the_file_order_does_not_count_is_counted(
    tmp_path: Path, text: str, order: _ScoreOrder
) -> None:
    run = read_run(write(tmp_path, text))
    assert run.order == order
    # and the lines are ranked by score whatever their order: each query's best first
    for q in run.qids:
        scores = [s for _, s in run.ranked(q)]
        assert scores == sorted(scores, reverse=True)


def test_blocks_out_of_order_and_ties_in_engine_order(tmp_path: Path) -> None:
    text = (
        "q2 Q0 a 1 2.0 t\nq2 Q0 b 2 1.0 t\nq2 Q0 c 3 1.0 t\nq2 Q0 d 4 1.0 t\nq2 Q0 e 5 0.5 t\n"
        "q10 Q0 x 1 3 t\nq10 Q0 y 2 3 t\n"
    )
    run = read_run(write(tmp_path, text))
    assert run.qids == ("q10", "q2")
    assert [d for d, _ in run.ranked("q2")] == ["a", "d", "c", "b", "e"]
    assert [d for d, _ in run.ranked("q10")] == ["y", "x"]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_line_order_reads_like_from_dict(tmp_path_factory, data) -> None:
    rows = data.draw(
        st.lists(
            st.tuples(
                st.sampled_from(["q1", "q2", "q10", "a"]),
                st.from_regex(r"d[0-9]{1,3}", fullmatch=True),
                st.integers(0, 4).map(lambda x: x / 2),
            ),
            min_size=1,
            max_size=40,
            unique_by=lambda r: (r[0], r[1]),
        )
    )
    engine_like = data.draw(st.booleans())
    if engine_like:  # grouped and sorted by score, ties in any order
        rows.sort(key=lambda r: (r[0], -r[2]))
    path = tmp_path_factory.mktemp("order") / "r.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in rows))
    expected: dict[str, dict[str, float]] = {}
    for q, d, s in rows:
        expected.setdefault(q, {})[d] = s
    run = read_run(path)
    assert run.to_dict() == TrecRun.from_dict(expected).to_dict()
    assert [list(v) for v in run.to_dict().values()] == [
        list(v) for v in TrecRun.from_dict(expected).to_dict().values()
    ]


@pytest.mark.parametrize(("threads", "stretches"), [(1, 4096), (3, 4096), (3, 0)])
def test_a_run_read_in_many_blocks_reads_like_one_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int, stretches: int
) -> None:
    # 200-byte blocks, two to a part, in one range (parsed here, arrays in a worker) or three
    # ranges (a thread each): queries straddle blocks, parts and ranges, come back in a later
    # part, tie across a part boundary, and ids of the widest part are 16 bytes
    rng = random.Random(5)
    data = {
        f"q{q}": {f"d{rng.randrange(10**rng.choice((2, 6, 12)))}": rng.randint(0, 3) / 2
                  for _ in range(rng.randint(1, 30))}
        for q in range(25)
    }  # fmt: skip
    lines = [f"{q} Q0 {d} 0 {s} t\n" for q, docs in data.items() for d, s in docs.items()]
    rng.shuffle(lines)
    path = tmp_path / "r.txt"
    path.write_text("".join(lines))
    whole = read_run(path)
    monkeypatch.setattr(trec_arrays, "MAX_LINE_BYTES", 200)
    monkeypatch.setattr(trec_arrays, "_GROUP", 2)
    monkeypatch.setattr(trec_arrays, "_THREADS", threads)
    monkeypatch.setattr(trec_arrays, "_MIN_RANGE", 500)
    # stretches of equal query ids are joined in query order, unless there are too many
    monkeypatch.setattr(trec_arrays, "_STRETCHES", stretches)
    parts = trec_arrays.fast_columns(path)
    query_codes = np.asarray(parts[1])  # the join gives them as stretches
    assert len(parts[1]) == query_codes.size == len(lines)
    grouped = bool(np.all(query_codes[1:] >= query_codes[:-1]))
    assert grouped is (stretches > 0)
    if grouped:  # within a query, the lines keep file order (but for the documents of a
        # tie, which each part puts in trec_eval's order): the scores do, and each line's
        # (query, document) moves as one
        in_file = [(q, d, float(s)) for q, _, d, _, s, _ in map(str.split, lines)]
        in_file.sort(key=lambda line: line[0].encode())
        codes, ids, scores = query_codes.tolist(), parts[2].tolist(), parts[3].tolist()
        joined = [(parts[0][c].decode(), d.decode(), s)
                  for c, d, s in zip(codes, ids, scores, strict=True)]  # fmt: skip
        assert [(q, s) for q, _, s in joined] == [(q, s) for q, _, s in in_file]
        assert sorted(joined) == sorted(in_file)
    blocks = read_run(path)
    assert blocks.to_dict() == whole.to_dict() == TrecRun.from_dict(data).to_dict()
    assert [list(v) for v in blocks.to_dict().values()] == [
        list(v) for v in TrecRun.from_dict(data).to_dict().values()
    ]
    assert np.array_equal(blocks.keys, whole.keys)
    # a duplicate far from its first line, parts apart, is still named by its line
    path.write_text("".join(lines) + lines[0])
    with pytest.raises(RunFileError, match=rf"r.txt:{len(lines) + 1}: expected each document"):
        read_run(path)


def test_whitespace_crlf_blank_lines_bom_and_no_final_newline(tmp_path: Path) -> None:
    text = "\ufeffq1\tQ0  d1 1 2.5 t\r\n\n   \nq1 Q0 d2 2 +1.25e0 t\r\nq1 Q0 d3 3 .5 t"
    run = read_run(write(tmp_path, text))
    assert run.ranked("q1") == [("d1", 2.5), ("d2", 1.25), ("d3", 0.5)]


def test_unicode_ids(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "প্রশ্ন১ Q0 কাগজ:c0 1 1 t\nপ্রশ্ন১ Q0 b 2 0.5 t\n"))
    assert run.to_dict() == {"প্রশ্ন১": {"কাগজ:c0": 1.0, "b": 0.5}}


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.floats(-1e12, 1e12, allow_nan=False).map(repr),
        st.decimals(-(10**9), 10**9, places=6, allow_nan=False).map(str),
        st.integers(-(10**18), 10**18).map(str),
        st.from_regex(r"[-+]?[0-9]{0,10}\.?[0-9]{0,10}([eE][-+]?[0-9]{1,2})?", fullmatch=True),
    )
)
def test_both_readers_parse_scores_like_float(tmp_path_factory, text: str) -> None:
    try:
        expected = float(text)
    except ValueError:
        return
    path = tmp_path_factory.mktemp("score") / "r.txt"
    path.write_text(f"q1 Q0 d1 1 {text} t\n")
    assert trec_arrays.fast_columns(path)[3].tolist() == [expected]
    assert trec_arrays.slow_columns(path)[3].tolist() == [expected]


def test_slow_reader_reads_what_the_fast_one_reads(tmp_path: Path) -> None:
    rng = random.Random(3)
    data = {
        f"q{q}": {f"doc-{rng.randrange(10**6)}": rng.randint(0, 40) / 4 for _ in range(50)}
        for q in range(40)
    }
    path = tmp_path / "r.txt"
    write_run(path, data, "t")
    whole = read_run(path)
    (tmp_path / "tabs.txt").write_text(path.read_text().replace(" ", "  "))  # fast path refuses
    with pytest.raises(trec_arrays.Bad):
        trec_arrays.fast_columns(tmp_path / "tabs.txt")
    slow = read_run(tmp_path / "tabs.txt")
    assert slow.to_dict() == whole.to_dict() == TrecRun.from_dict(data).to_dict()
    assert np.array_equal(slow.offsets, whole.offsets)
    assert np.array_equal(slow.keys, whole.keys)


# -- malformed files --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\nq1 Q0 d3 3 0.4\n",
            "run.txt:3: expected 6 columns, found 5",
        ),
        ("q1 Q0 d1 1.0 t\n", "run.txt:1: expected 6 columns, found 5"),
        # a space at a line's start: white space splits once (pyarrow saw an empty query id)
        ("q1 Q0 d1 1 1.0 t\n Q0 d2 2 0.5 t\n", "run.txt:2: expected 6 columns, found 5"),
        # two spaces after the query id, the tag missing: not document Q0 with score 1
        ("q1 Q0 d1 1 1.0 t\nq1  Q0 d2 1 0.5\n", "run.txt:2: expected 6 columns, found 5"),
        # two spaces where the rank stands: not a line without its rank
        ("q1 Q0 d1 1 1.0 t\nq1 Q0 d2  0.5 t\n", "run.txt:2: expected 6 columns, found 5"),
        (
            "q1 Q0 d1 1 1.0 t\n\nq1 Q0 d2 2 high t\n",
            "run.txt:3: expected a numeric score in column 5, found 'high'",
        ),
        ("q1 Q0 d1 1 nan t\n", "run.txt:1: expected a finite score in column 5, found 'nan'"),
        (
            "q1 Q0 d1 1 1.0 t\nq2 Q0 d3 1 1.0 t\nq1 Q0 d3 2 0.5 t\nq1 Q0 d3 3 0.2 t\n",
            "run.txt:4: expected each document once per query, found 'd3' again",
        ),
        ("", "run.txt: expected lines 'qid Q0 docid rank score tag', found an empty file"),
        ("\n  \n", "run.txt: expected lines 'qid Q0 docid rank score tag', found an empty file"),
    ],
)
def test_run_errors_name_file_line_and_expectation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text)
    with pytest.raises(RunFileError) as info:
        read_run("run.txt")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        ([b"d1", b"q-12"], True),  # ASCII: one numpy pass
        (["কাগজ:c0".encode(), "straße".encode()], True),  # UTF-8: Arrow's own check
        ([b"d1", b"d\xff"], False),
        ([b"\xc3", b"d1"], False),  # a cut multi-byte sequence
        ([], True),
        ([b"", b""], False),  # an empty column: a space at a line's start, or two in a row
    ],
)
def test_ids_read_as_bytes_are_checked_as_utf8(ids: list[bytes], text: bool) -> None:
    # (and, beyond ASCII, for white space and control characters: test_run_ids)
    assert trec_arrays.plain_ids(pa.array(ids, pa.binary())) is text


def test_only_the_bytes_of_a_slice_of_ids_are_checked(tmp_path: Path) -> None:
    arr = pa.array([b"d\xff", "কাগজ".encode(), b"d1"], pa.binary())
    assert trec_arrays.plain_ids(arr) is False
    assert trec_arrays.plain_ids(arr.slice(1)) is True
    assert trec_arrays.plain_ids(arr.slice(2)) is True
    # a bad byte in a query id, read in byte ranges: the line reader names its line
    path = tmp_path / "r.txt"
    path.write_bytes(
        b"".join(b"q%d Q0 d%d 0 %d t\n" % (i // 10, i, i) for i in range(99))
        + b"q\xe9 Q0 d 0 1 t\n"
    )
    with pytest.raises(RunFileError, match=r"r.txt:100: expected UTF-8 text, found byte 0xe9$"):
        read_run(path)


def test_run_error_on_bad_utf8_and_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.txt").write_bytes(b"q1 Q0 d1 1 1 t\nq1 Q0 d\xff 2 0.5 t\n")
    with pytest.raises(RunFileError, match=r"^run.txt:2: expected UTF-8 text, found byte 0xff$"):
        read_run("run.txt")
    with pytest.raises(RunFileError, match="^missing.txt: expected a readable file"):
        read_run("missing.txt")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 0 d1 2\nq1 0 d2\n", "qrels.txt:2: expected 4 columns, found 3"),
        # a space at a line's start, or two in a row: white space splits once, as trec_eval
        # splits (pyarrow saw an empty column there, an empty query id or a missing "0")
        ("q1 0 d1 2\n 0 d2 1\n", "qrels.txt:2: expected 4 columns, found 3"),
        ("\n 0 0 1\n", "qrels.txt:2: expected 4 columns, found 3"),
        ("q1 0 d1 2\nq1  d2 1\n", "qrels.txt:2: expected 4 columns, found 3"),
        ("q1 0 d1 two\n", "qrels.txt:1: expected an integer grade in column 4, found 'two'"),
        (
            "q1 0 d1 2\nq1 0 d1 1\n",
            "qrels.txt:2: expected each document once per query, found 'd1' again",
        ),
        ("\n", "qrels.txt: expected lines 'qid 0 docid grade', found an empty file"),
    ],
)
def test_qrels_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text, "qrels.txt")
    with pytest.raises(LabelsError) as info:
        read_qrels("qrels.txt")
    assert str(info.value) == message


def test_write_rejects_ids_with_whitespace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="without white space"):
        write_run(tmp_path / "r.txt", {"q 1": {"d": 1.0}})
    with pytest.raises(ValueError, match="without white space"):
        write_qrels(tmp_path / "q.txt", {"q1": {"d 1": 1}})


# -- judging ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Label:
    id: str
    tags: tuple[str, ...]
    answerable: bool
    grades: dict[str, int]


def test_judging_a_run_of_chunk_ids_against_labels(tmp_path: Path) -> None:
    labels = [
        _Label(
            "rc02", ("paraphrase", "stale"), True, {"kc-returns-v3:c0": 2, "kc-returns-v2:c0": 1}
        ),
        _Label("rc01", ("direct",), True, {"kc-shipping:c1": 2}),
        _Label("u01", ("unanswerable",), False, {}),
    ]
    text = (
        "rc02 Q0 kc-returns-v2:c0 1 9.0 bm25\n"
        "rc02 Q0 kc-returns-v3:c0 2 8.0 bm25\n"
        "rc02 Q0 hb-frames:c3 3 7.0 bm25\n"
        "u01 Q0 kc-helmets:c0 1 3.0 bm25\n"
        "zz99 Q0 kc-helmets:c0 1 3.0 bm25\n"
    )
    run = read_run(write(tmp_path, text))
    judged = judge_trec_run(run, labels_meta=labels)
    assert [j.id for j in judged] == ["rc02", "rc01", "u01"]  # labels order; zz99 not a label
    first = judged[0]
    assert first == Judged(
        "rc02",
        ("paraphrase", "stale"),
        True,
        (1, 2, 0),
        (2, 1),
        ("kc-returns-v2:c0", "kc-returns-v3:c0", "hb-frames:c3"),
        judged=(True, True, False),  # the labels grade no hb-frames chunk for rc02
        nonrelevant=1,  # bpref's N: kc-returns-v2:c0, graded 1 below the threshold 2
    )
    assert judged[1].grades == () and judged[1].pool == (2,)  # not answered: a miss, not skipped
    assert judged[2].answerable is False and judged[2].pool == ()
    summary = summarize(judged, ["mrr"])["mrr"]
    assert (summary.value, summary.n, summary.left_out) == (0.25, 2, 1)
    assert _qrels_from_labels(labels)["rc01"] == {"kc-shipping:c1": 2}
    assert [len(j.grades) for j in judge_trec_run(run, labels_meta=labels, k=2)] == [2, 0, 1]
    with pytest.raises(ValueError, match="expected qrels or labels"):
        judge_trec_run(run)


def test_without_labels_questions_are_the_union_and_unjudged_ones_are_left_out() -> None:
    run = TrecRun.from_dict({"a": {"x": 1.0, "y": 0.5}, "b": {"x": 1.0}})
    qrels = {"a": {"y": 2, "z": -1}, "c": {"w": 2}}
    judged = judge_trec_run(run, qrels)
    assert [(j.id, j.grades, j.pool) for j in judged] == [
        ("a", (0, 2), (2,)),  # negative grades count as 0 and leave the pool
        ("b", (0,), ()),
        ("c", (), (2,)),
    ]
    summary = summarize(judged, NAMES)
    assert all((summary[name].n, summary[name].left_out) == (2, 1) for name in NAMES)
    assert (summary["mrr"].value, summary["mrr"].n, summary["mrr"].left_out) == (0.25, 2, 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_mean_is_the_mean_of_the_per_question_definitions(seed: int) -> None:
    rng = random.Random(seed)
    run_data: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(120):
        docs = {
            f"kc-doc-{rng.randrange(300)}:c{rng.randrange(4)}" for _ in range(rng.randint(0, 30))
        }
        if docs and rng.random() < 0.9:
            run_data[f"q{q}"] = {d: float(rng.randint(0, 9)) for d in docs}
        if rng.random() < 0.85:
            pool = list(docs)[: rng.randint(0, len(docs))] + [
                f"extra-{q}-{i}" for i in range(rng.randint(0, 3))
            ]
            qrels[f"q{q}"] = {d: rng.choice((0, 1, 2, 3)) for d in pool}
    run = TrecRun.from_dict(run_data)
    for relevant in (1, 2, 3):
        # the reference: each question's value from the per-question definitions in `metrics`
        judged = judge_trec_run(run, qrels, relevant=relevant)
        fast = summarize(judged, NAMES)  # the vectorised engine over the judged lists
        for name in NAMES:
            values = [_metric_value(j, name) for j in judged]
            kept = [v for v in values if v is not None]
            assert (fast[name].n, fast[name].left_out) == (len(kept), len(values) - len(kept))
            assert fast[name].value == (math.fsum(kept) / len(kept) if kept else None)


def test_ids_of_any_length_are_judged_whatever_the_longest_id() -> None:
    # "d1" is one 8-byte word; in a run whose longest id takes four words it must still match
    # the qrels' "d1" (an array of one-word ids): padding words do not change an id's hash
    long_id = "a-document-id-of-27-bytes.x"
    run = TrecRun.from_dict({"q1": {long_id: 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}})
    qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d1": 2}}
    assert [j.grades for j in judge_trec_run(run, qrels)] == [(0, 2, 1), (2,)]
    assert summarize(judge_trec_run(run, qrels), ["mrr"])["mrr"].value == (1 / 2 + 1) / 2
    narrow, wide = np.array([b"d1", b"d2"]), np.array([b"d1", b"d2", long_id.encode()])
    assert np.array_equal(trec_keys.doc_hashes(narrow), trec_keys.doc_hashes(wide)[:2])


def test_a_query_s_salt_comes_from_its_own_id() -> None:
    # the same salt in any list of queries (a part of a run knows only its own queries), a
    # different one per id, and a query named like a document does not cancel its key to 0
    ids = [b"q1", b"q10", b"a-query-id-longer-than-eight-bytes"]
    salts = trec_keys.query_salts(ids)
    assert np.array_equal(trec_keys.query_salts(ids[::-1]), salts[::-1])
    assert np.array_equal(trec_keys.query_salts(ids[1:2]), salts[1:2])
    assert len(set(salts.tolist())) == 3
    assert trec_keys.query_salts([]).size == 0
    same = trec_keys.line_keys(np.array([1]), trec_keys.doc_hashes(np.array([b"q1"])), salts[:1])
    assert same.tolist() != [0]
    run = TrecRun.from_dict({"q1": {"q1": 1.0, "d": 0.5}})  # a run's keys, made here or read
    assert run.keys is not None
    assert run.keys[0] == same[0]


@pytest.mark.parametrize("width", [8, 3, 16])
def test_distinct_ids_map_back_like_numpy_unique(width: int) -> None:
    from evidencedesk.retrieval.trec_judge import _distinct

    rng = np.random.default_rng(width)
    raw = [b"d%d" % i for i in rng.integers(0, 50, 400).tolist()] + [b"", b"\xff\x01"]
    docs = np.array([d[:width] for d in raw], dtype=f"S{width}")
    distinct, inverse = _distinct(docs)
    expected, _ = np.unique(docs, return_inverse=True)
    assert sorted(distinct.tolist()) == expected.tolist()  # each id once (order may differ)
    assert distinct[inverse].tolist() == docs.tolist()  # and every id maps back to itself


@pytest.mark.parametrize("hashes", ["real", "all equal", "pairs equal"])
def test_distinct_ids_by_hash_confirm_equal_hashes_on_the_ids(
    hashes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ids of 16 bytes are told apart by their 64-bit hashes; a hash two different ids share
    # (forced here) must not merge them: such a sort falls back to the ids' bytes
    from evidencedesk.retrieval import trec_judge

    real = trec_keys.doc_hashes
    if hashes == "all equal":
        monkeypatch.setattr(trec_judge, "doc_hashes", lambda d: np.zeros(d.size, np.uint64))
    elif hashes == "pairs equal":
        monkeypatch.setattr(trec_judge, "doc_hashes", lambda d: real(d) >> np.uint64(63))
    docs = np.array([b"document-%07d" % i for i in (5, 3, 5, 9, 3, 3, 1)], dtype="S16")
    distinct, inverse = trec_judge._distinct(docs)
    assert sorted(distinct.tolist()) == [b"document-%07d" % i for i in (1, 3, 5, 9)]
    assert distinct[inverse].tolist() == docs.tolist()


def test_judged_to_a_depth_keeps_every_value_of_the_whole_list() -> None:
    # q1: first relevant at rank 7, beyond depth 3 -> kept through rank 7; q2: relevant at rank 2
    # -> the top 3; q3: nothing relevant -> the top 3; q4: a list shorter than the depth
    run = TrecRun.from_dict(
        {
            "q1": {f"a{i}": 10.0 - i for i in range(10)},
            "q2": {f"b{i}": 10.0 - i for i in range(10)},
            "q3": {f"c{i}": 10.0 - i for i in range(10)},
            "q4": {"d0": 1.0, "d1": 0.5},
        }
    )
    qrels = {"q1": {"a6": 2, "a1": 1}, "q2": {"b1": 3, "b8": 2}, "q3": {"x": 2}, "q4": {"d1": 2}}
    whole = judge_trec_run(run, qrels)
    head = judge_trec_run(run, qrels, depth=3)
    assert [len(j.grades) for j in head] == [7, 3, 3, 2]
    assert [j.returned for j in head] == [10, 10, 10, None]
    assert [j.size for j in head] == [10, 10, 10, 2] == [j.size for j in whole]
    assert head[0].grades == (0, 1, 0, 0, 0, 0, 2) and head[0].ids[-1] == "a6"
    names = ["mrr", "recall@3", "precision@3", "hit@1", "ndcg@3", "ndcg@3:linear"]
    assert summarize(head, names) == summarize(whole, names)
    for name in names:
        assert [_metric_value(j, name) for j in head] == [_metric_value(j, name) for j in whole]
    assert head[0].to_dict()["returned"] == 10 and "returned" not in whole[0].to_dict()


@pytest.mark.parametrize(
    ("metrics", "cutoffs", "depth"),
    [
        (["ndcg@10:linear", "recall@10", "precision@10", "mrr"], (10,), 20),  # SHOWN = 20
        (["recall@100", "mrr"], (10,), 100),
        (["mrr"], (30,), 30),
        (["ndcg@5"], (), 20),
    ],
)
def test_judged_depth_of_a_runs_only_project(metrics, cutoffs, depth) -> None:
    assert judged_depth(metrics, *cutoffs) == depth


# -- hostile files (issue 11): typed, bounded, numbers in range, a line named ------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 d1 1 inf t\n", "run.txt:1: expected a finite score in column 5, found 'inf'"),
        (
            "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 -Infinity t\n",
            "run.txt:2: expected a finite score in column 5, found '-Infinity'",
        ),  # fmt: skip
        ("q1 Q0 d1 1 1e400 t\n", "run.txt:1: expected a finite score in column 5, found '1e400'"),
        ("q1 Q0 d1 1 NA t\n", "run.txt:1: expected a numeric score in column 5, found 'NA'"),
        ("q1 Q0 d1 1 1_0 t\n", "run.txt:1: expected a numeric score in column 5, found '1_0'"),
        ("q1 Q0 d1 1 １.５ t\n", "run.txt:1: expected a numeric score in column 5, found '１.５'"),
        (
            "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 ١٢ t\n",
            "run.txt:2: expected a numeric score in column 5, found '١٢'",
        ),  # fmt: skip
        (
            "q1 Q0 d1 1 1 t\nq1 Q0 d\0x 2 0.5 t\n",
            "run.txt:2: expected column 3 without NUL bytes, found 'd\\x00x'",
        ),  # fmt: skip
        ("q\0 Q0 d1 1 1 t\n", "run.txt:1: expected column 1 without NUL bytes, found 'q\\x00'"),
    ],
)
def test_hostile_scores_and_ids_name_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text)
    with pytest.raises(RunFileError) as info:
        read_run("run.txt")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("threads", "column", "message"),
    [
        (1, 6, "expected column 6 without NUL bytes, found 't\\x00'"),
        (3, 2, "expected column 2 without NUL bytes, found 'Q0\\x00'"),
        (3, 3, "expected column 3 without NUL bytes, found 'd100\\x00'"),
    ],
)
def test_a_nul_byte_late_in_a_run_read_in_ranges_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int, column: int, message: str
) -> None:
    # the NUL check rides along each range's read: a NUL in the last range, in a column the
    # fast path never parses (2, 6) or in an id, still sends the file to the line reader
    lines = [f"q{i // 10} Q0 d{i} 0 {i} t\n" for i in range(120)]
    columns = lines[100].split()
    columns[column - 1] += "\0"
    lines[100] = " ".join(columns) + "\n"
    path = tmp_path / "r.txt"
    path.write_text("".join(lines))
    monkeypatch.setattr(trec_arrays, "MAX_LINE_BYTES", 200)
    monkeypatch.setattr(trec_arrays, "_GROUP", 2)
    monkeypatch.setattr(trec_arrays, "_THREADS", threads)
    monkeypatch.setattr(trec_arrays, "_MIN_RANGE", 500)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        assert len(trec_arrays._cuts(mm, mm.size())) == threads + 1  # the NUL is in the last
    with pytest.raises(trec_arrays.Bad):
        trec_arrays.fast_columns(path)
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:101: {message}"


@pytest.mark.parametrize(
    ("size", "cut"),
    [
        (40, 32),  # the window ends inside the third line: cut after the second
        (32, 32),  # it ends just after a newline: no cut
        (1000, 48),  # it reaches the range's end: all of it, the last line without a newline
    ],
)
def test_a_window_of_a_run_ends_after_its_last_whole_line(
    tmp_path: Path, size: int, cut: int
) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(b"q1 Q0 d1 1 3 t\nq1 Q0 d22 2 2 tt\nq1 Q0 d333 3 1 t")  # 15, 17, 16 bytes
    with path.open("rb", buffering=0) as handle:
        window = trec_arrays._read_window(handle, 0, path.stat().st_size, size)
        later = trec_arrays._read_window(handle, 15, path.stat().st_size, 25)
    assert window.to_pybytes() == path.read_bytes()[:cut]
    assert later.to_pybytes() == b"q1 Q0 d22 2 2 tt\n"  # a window may start anywhere a line does


def test_a_window_without_a_newline_in_its_last_line_limit_goes_to_the_line_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trec_arrays, "MAX_LINE_BYTES", 20)
    path = tmp_path / "r.txt"
    long = b"q1 Q0 " + b"d" * 30 + b" 2 2 t\n"  # 43 bytes: over the (patched) limit
    path.write_bytes(b"q1 Q0 d1 1 3 t\n" + long + b"q1 Q0 d3 3 1 t\n")
    with path.open("rb", buffering=0) as handle:
        with pytest.raises(trec_arrays.Bad):  # bytes 15 to 55: no newline in the last 21
            trec_arrays._read_window(handle, 15, path.stat().st_size, 40)
        assert trec_arrays._read_window(handle, 0, path.stat().st_size, 40).size == 15
    # a range is read window by window, a window a group of blocks of half the limit
    monkeypatch.setattr(trec_arrays, "_GROUP", 4)  # windows of 40 bytes: the long line fits none
    with pytest.raises(trec_arrays.Bad):
        trec_arrays.fast_columns(path)
    monkeypatch.undo()  # at the real limit the line reader reads the line
    assert read_run(path).to_dict() == {"q1": {"d1": 3.0, "d" * 30: 2.0, "d3": 1.0}}


def test_a_run_cut_short_while_it_is_read_goes_to_the_line_reader(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(b"q1 Q0 d1 1 3 t\n")
    with path.open("rb", buffering=0) as handle, pytest.raises(trec_arrays.Bad):
        trec_arrays._read_window(handle, 15, 100, 64)  # measured at 100, now 15


def test_a_single_line_run_over_the_line_limit_is_refused_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # one byte over the limit: the line reader holds the file whole and measures the line, so a
    # 50 MB line took the same path as this one
    (tmp_path / "run.txt").write_bytes(b"7" * ((1 << 20) + 1))
    with pytest.raises(RunFileError) as info:
        read_run("run.txt")
    assert str(info.value) == (
        "run.txt:1: expected a line of at most 1048576 bytes, found one of 1048577 bytes"
    )
    # six columns, one of them long: pyarrow's blocks (half the limit) refuse the line, whichever
    # column it is -- the run tag and the Q0 and rank columns are not checked by any other means
    lines = {
        "document": lambda w: "q1 Q0 " + "d" * w + " 2 0.5 t",
        "tag": lambda w: "q1 Q0 d2 2 0.5 " + "t" * w,
        "Q0": lambda w: "q1 " + "Q" * w + " d2 2 0.5 t",
        "rank": lambda w: "q1 Q0 d2 " + "2" * w + " 0.5 t",
    }
    for column, line in lines.items():
        limit = (1 << 20) - len(line(0))  # the width that makes the line exactly 1 MiB
        for width in (2 << 20, limit + 100, limit + 1):  # the last: one byte over
            write(tmp_path, "q1 Q0 d1 1 1 t\n" + line(width) + "\n")
            with pytest.raises(RunFileError) as info:
                read_run("run.txt")
            assert str(info.value) == (
                f"run.txt:2: expected a line of at most 1048576 bytes, found one of "
                f"{len(line(width))} bytes"
            ), (column, width)
        write(tmp_path, "q1 Q0 d1 1 1 t\n" + line(limit) + "\n")  # exactly at the limit: read
        assert read_run("run.txt").n_lines == 2, column


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_devices_fifos_and_folders_are_refused_by_type(tmp_path: Path) -> None:
    with pytest.raises(RunFileError) as info:
        read_run("/dev/zero")
    assert str(info.value) == "/dev/zero: expected a regular file, found a character device"
    (tmp_path / "zero.run").symlink_to("/dev/zero")
    with pytest.raises(RunFileError, match="zero.run: expected a regular file, found a char"):
        read_run(tmp_path / "zero.run")
    os.mkfifo(tmp_path / "pipe.run")  # opening it would block until a writer came
    with pytest.raises(RunFileError, match="pipe.run: expected a regular file, found a named pipe"):
        read_run(tmp_path / "pipe.run")
    with pytest.raises(LabelsError, match="pipe.run: expected a regular file, found a named pipe"):
        read_qrels(tmp_path / "pipe.run")
    with pytest.raises(LabelsError, match=r"/tmp\S*: expected a regular file, found a folder$"):
        read_qrels(tmp_path)


@pytest.mark.parametrize(
    ("grade", "message"),
    [
        ("1024", "qrels.txt:2: expected a grade from -100 to 100 in column 4, found '1024'"),
        (
            "1000000000",
            "qrels.txt:2: expected a grade from -100 to 100 in column 4, found '1000000000'",
        ),  # fmt: skip
        (
            "9" * 5000,
            "qrels.txt:2: expected a grade from -100 to 100 in column 4, found "
            f"'{'9' * 40}'… (5000 characters)",
        ),  # a long value is named, not echoed
        ("-101", "qrels.txt:2: expected a grade from -100 to 100 in column 4, found '-101'"),
        ("101", "qrels.txt:2: expected a grade from -100 to 100 in column 4, found '101'"),
        ("２", "qrels.txt:2: expected an integer grade in column 4, found '２'"),
        ("1_0", "qrels.txt:2: expected an integer grade in column 4, found '1_0'"),
        ("+1", "qrels.txt:2: expected an integer grade in column 4, found '+1'"),
        ("1.0", "qrels.txt:2: expected an integer grade in column 4, found '1.0'"),
    ],
)
def test_qrels_grades_are_integers_from_minus_100_to_100(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grade: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, f"q1 0 d1 2\nq1 0 d2 {grade}\n", "qrels.txt")
    with pytest.raises(LabelsError) as info:
        read_qrels("qrels.txt")
    assert str(info.value) == message


def test_negative_grades_are_judged_not_relevant(tmp_path: Path) -> None:
    # TREC Web-track qrels grade junk pages -2; trec_eval reads them as judged, not relevant
    path = write(tmp_path, "q1 0 d1 -1\nq1 0 d2 100\nq1 0 d3 0\nq1 0 d4 -2\n", "qrels.txt")
    qrels = read_qrels(path)
    assert qrels == {"q1": {"d1": -1, "d2": 100, "d3": 0, "d4": -2}}
    run = TrecRun.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d5": 1.0, "d4": 0.5}})
    (judged,) = judge_trec_run(run, qrels)
    # -1 and -2 count as 0 and leave the pool, but they are judged; d5 is not
    assert (judged.grades, judged.pool) == ((0, 100, 0, 0), (100,))
    assert judged.judged == (True, True, False, True)
    assert summarize(judge_trec_run(run, qrels), ["mrr"])["mrr"].value == 0.5


def test_comment_lines_are_skipped_as_trec_eval_skips_them(tmp_path: Path) -> None:
    qrels = write(tmp_path, "# judged by two assessors\nq1 0 d1 1\n  # a b c\nq1 0 d#2 0\n",
                  "qrels.txt")  # fmt: skip
    assert read_qrels(qrels) == {"q1": {"d1": 1, "d#2": 0}}  # '#' inside an id is an id
    run = write(tmp_path, "# run made by bm25\nq1 Q0 d1 1 2.0 bm25\n# 1 2 3 4 5\n"
                "q1 Q0 d#2 2 1.0 bm25\n", "run.txt")  # fmt: skip
    read = read_run(run)
    assert read.qids == ("q1",) and read.ranked("q1") == [("d1", 2.0), ("d#2", 1.0)]


def test_columns_after_the_run_tag_are_ignored(tmp_path: Path) -> None:
    run = write(tmp_path, "q1 Q0 d1 1 2.0 bm25 extra words\nq1 Q0 d2 2 1.0 bm25\n", "run.txt")
    read = read_run(run)
    assert read.tag == "bm25" and read.ranked("q1") == [("d1", 2.0), ("d2", 1.0)]


def test_qrels_line_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "q1 0 d1 2\nq1 0 " + "é" * 600_000 + " 2\n", "qrels.txt")
    with pytest.raises(LabelsError) as info:
        read_qrels("qrels.txt")
    assert (
        str(info.value)
        == (
            "qrels.txt:2: expected a line of at most 1048576 bytes, found one of 1200007 bytes"  # 5 + 2 x 600,000 + 2
        )
    )


def test_cli_refuses_a_device_as_a_run_with_one_line(tmp_path: Path) -> None:
    project = make_runs_only_project(tmp_path, questions=6, runs=1)
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "evidencedesk.report", "build", "--project", str(project)]
        + ["--out", str(out), "--run", "x=/dev/zero"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "error: /dev/zero: expected a regular file, found a character device\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("groups", "docs", "keys", "expected"),
    [
        ([0, 0, 1, 1], [b"a", b"b", b"a", b"b"], [1, 2, 3, 4], False),
        ([0, 0, 1, 1], [b"a", b"a", b"a", b"b"], [1, 1, 3, 4], True),  # in the first half
        ([0, 1, 1, 1], [b"a", b"a", b"b", b"a"], [1, 2, 3, 2], True),  # in the second half
        ([0, 0, 0, 0], [b"a", b"b", b"c", b"a"], [5, 6, 7, 5], True),  # one group: one half
        ([0, 0, 1, 1], [b"a", b"b", b"c", b"d"], [9, 9, 8, 8], False),  # collisions, not dups
        ([], [], [], False),
    ],
)
def test_duplicate_check_sorts_halves_and_confirms_on_ids(groups, docs, keys, expected) -> None:
    assert (
        trec_keys.has_duplicates(
            np.array(groups, dtype=np.int64),
            np.array(docs, dtype="S8"),
            np.array(keys, dtype=np.uint64),
        )
        is expected
    )


_JUDGE_OPTIONS = [{}, {"k": 3}, {"depth": 2}, {"depth": 2, "graded": True},
                  {"relevant": 1, "k": 5, "depth": 1}]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "condensed"),
    [*((o, False) for o in _JUDGE_OPTIONS), *((o, True) for o in _JUDGE_OPTIONS),
     ({"complete": True}, False)],  # the condensed judge takes no complete ids
)  # fmt: skip
def test_the_judge_s_arrays_are_its_lists_as_arrays(options: dict, condensed: bool) -> None:
    # the metrics read the arrays the judge makes in its vectorised pass (`JudgedLists.lines`:
    # only the judged lines, an unjudged one adds nothing); every metric's value must be
    # exactly, bit for bit, what converting its per-question lists gives
    from evidencedesk.retrieval._metric_engine import JudgedLists, _convert, lines_of
    from evidencedesk.retrieval.metrics import _values_of
    from evidencedesk.retrieval.trec_judge import _judge_trec_run_condensed

    rng = random.Random(7)
    run_data = {
        f"q{q}": {
            f"d{rng.randrange(60)}": float(rng.randint(0, 5)) for _ in range(rng.randint(1, 12))
        }
        for q in range(40)
        if q % 9
    }
    qrels = {
        f"q{q}": {
            f"d{rng.randrange(60)}": rng.choice((-1, 0, 1, 2, 3)) for _ in range(rng.randint(0, 8))
        }
        for q in range(40)
        if q % 7
    }
    run = TrecRun.from_dict(run_data)
    whole = judge_trec_run(run, qrels)  # the fixture holds negative grades and unjudged results
    assert any(j.negative for j in whole) and any(j.judged for j in whole)
    options = dict(options)
    if options.pop("complete", False):
        options["complete"] = frozenset(f"d{i}" for i in range(30))
    if condensed:
        judged_lists = _judge_trec_run_condensed(run, qrels, **options)
    else:
        judged_lists = (judge_trec_run(run, qrels, **options),)
    for judged in judged_lists:
        assert isinstance(judged, JudgedLists) and lines_of(judged) is judged.lines
        expected = _convert(list(judged))
        assert judged.lines.n == expected.n == len(judged)
        assert np.array_equal(judged.lines.size, expected.size)
        for name in _EVERY_METRIC_FORM:
            made, want = _values_of(judged.lines, name), _values_of(expected, name)
            assert made.tobytes() == want.tobytes(), name


def test_means_come_from_the_arrays_without_building_the_lists() -> None:
    # the documented path (read, judge, summarize) never builds the per-question lists: a run
    # nobody drills into never has its ids decoded; reading a question builds its list alone,
    # an iteration every one
    run = TrecRun.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"c": 1.0}})
    judged = judge_trec_run(run, {"q1": {"b": 2, "c": 1}, "q2": {"a": 2}})
    means = summarize(judged, ["mrr", "precision@2"])
    assert (means["mrr"].value, means["precision@2"].value) == (0.25, 0.25)
    assert judged._items == [None, None] and len(judged) == 2
    assert judged._make._made is None  # nor are their ids copied out of the run
    assert judged[-1].ids == ("c",) and judged[1].grades == (0,) and judged[1].judged == (False,)
    assert judged._items[0] is None  # q1's list is not made yet
    assert judged.lists_at([1, 0, 1])[1].ids == ("a", "b", "c") and judged._make is not None
    assert [j.ids for j in judged] == [("a", "b", "c"), ("c",)] and judged._make is None
    again = judge_trec_run(run, {"q1": {"b": 2, "c": 1}, "q2": {"a": 2}})
    assert again == judged == tuple(judged) and isinstance(again._items, tuple)


_EVERY_METRIC_FORM = [
    *(f"{kind}@{k}" for kind in ("recall", "precision", "hit", "mrr", "map", "judged")
      for k in (1, 2, 5)),
    *(f"ndcg@{k}:{gain}" for k in (1, 3, 10) for gain in ("exp", "linear")),
    "mrr", "map", "rprec", "ndcg", "ndcg:linear", "bpref",
]  # fmt: skip


def _tie_ordered(qcode: np.ndarray, scores: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """`docs` with the moves `_tie_order` gives applied (it must give some)."""
    from evidencedesk.files.trec import _tie_order

    fix = _tie_order(qcode, scores, docs)
    assert fix is not None
    fixed = docs.copy()
    fixed[fix[0]] = docs[fix[1]]
    return fixed


def _each_tie_sorted(qcode: np.ndarray, scores: np.ndarray, docs: np.ndarray) -> list[bytes]:
    """The ids with each tie (a query's lines of one score) sorted descending, as trec_eval."""
    expected: list[bytes] = []
    for _, group in itertools.groupby(range(qcode.size), key=lambda i: (qcode[i], scores[i])):
        expected += sorted((docs[i] for i in group), reverse=True)
    return expected


@pytest.mark.parametrize("width", [8, 5])
def test_ties_of_every_size_take_their_documents_in_descending_order(width: int) -> None:
    # two-line ties are swapped in place and longer ones sorted: the result must be what sorting
    # each (query, score) group by document id descending gives, lines outside ties untouched
    from evidencedesk.files.trec import _tie_order

    rng = np.random.default_rng(width)
    qcode = np.repeat(np.arange(300), rng.integers(1, 12, 300))
    scores = np.round(rng.random(qcode.size) * 3, 0)  # four score values: ties of 1 to 11 lines
    order = np.lexsort((-scores, qcode))
    qcode, scores = qcode[order], scores[order]
    names = rng.permutation(10_000)[: qcode.size]
    docs = np.array([b"d%0*d" % (width - 1, n % 10 ** (width - 1)) for n in names], f"S{width}")
    fixed = _tie_ordered(qcode, scores, docs)
    assert fixed.tolist() == _each_tie_sorted(qcode, scores, docs)
    sizes = np.diff(
        np.flatnonzero(np.r_[True, (qcode[1:] != qcode[:-1]) | (scores[1:] != scores[:-1]), True])
    )
    assert {1, 2, 3, 4}.issubset(set(sizes.tolist()))  # every kind of tie is there
    assert _tie_order(qcode, scores, fixed) is None  # and once in order, nothing moves


def test_long_ids_in_a_tie_are_ordered_on_all_their_bytes() -> None:
    # one 64-bit key a line orders a tie on its ids' first bytes only; ids alike in those (and
    # ids ending within them) are ordered again on every byte: descending, as trec_eval does

    ids = [b"doc-aaaa1", b"doc-aaaa2", b"doc-aaab", b"doc-a", b"doc-aaaa10", b"z", b"doc-aaaa"]
    docs = np.array(ids + [b"x", b"y", b"w"], dtype="S16")
    qcode = np.array([0] * 7 + [1] * 3)
    scores = np.array([5.0] * 7 + [1.0] * 3)  # one tie of seven lines, one of three
    assert _tie_ordered(qcode, scores, docs).tolist() == [b"z", b"doc-aaab", b"doc-aaaa2", b"doc-aaaa10", b"doc-aaaa1",
                              b"doc-aaaa", b"doc-a", b"y", b"x", b"w"]  # fmt: skip


@pytest.mark.parametrize("width", [16, 24])
def test_ties_of_long_ids_with_common_prefixes_match_a_sort_of_each_tie(width: int) -> None:
    rng = np.random.default_rng(width)
    qcode = np.repeat(np.arange(200), rng.integers(1, 40, 200))
    scores = np.round(rng.random(qcode.size) * 2, 0)  # three score values: long ties
    order = np.lexsort((-scores, qcode))
    qcode, scores = qcode[order], scores[order]
    # a shared prefix of 6 to 14 bytes and two random bytes after it: many ids alike in the
    # first word, some ending inside it (an id twice in a tie is no matter to the order)
    cut = rng.integers(6, width - 1, qcode.size)
    docs = np.array([b"p" * c + bytes(rng.integers(97, 100, 2).tolist()) for c in cut.tolist()],
                    f"S{width}")  # fmt: skip
    fixed = _tie_ordered(qcode, scores, docs)
    assert fixed.tolist() == _each_tie_sorted(qcode, scores, docs)


def test_detached_lists_copy_their_heads_out_of_the_run_and_let_it_go() -> None:
    # a build detaches a run's lists before it drops the run: the heads are copied then, the
    # run is no longer referenced, and the lists are still made from the heads when read
    import gc
    import weakref

    run = TrecRun.from_dict({"q1": {"a": 3.0, "b": 2.0}, "q2": {"c": 1.0}})
    gone = weakref.ref(run.docs)
    judged = judge_trec_run(run, {"q1": {"b": 2}, "q2": {"c": 1}}).detached()
    del run
    gc.collect()
    assert judged._make._kept is None and gone() is None
    heads = list_heads(judged)
    assert heads is not None and heads.bounds.tolist() == [0, 2, 3]
    assert heads.ids.tolist() == [b"a", b"b", b"c"] and heads.judged.tolist() == [False, True, True]
    assert [j.ids for j in judged] == [("a", "b"), ("c",)]
    assert [j.grades for j in judged] == [(0, 2), (1,)]


def test_judged_lists_keep_their_arrays_when_pickled_and_convert_when_remade() -> None:
    import pickle

    from evidencedesk.retrieval._metric_engine import JudgedLists

    run = TrecRun.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}})
    judged = judge_trec_run(run, {"q1": {"b": 2}, "q2": {"c": 1, "d": 2}})
    back = pickle.loads(pickle.dumps(judged))
    assert isinstance(back, JudgedLists) and back == judged
    # the judge's arrays hold the judged lines only (b at rank 1, c at rank 0)
    assert back.lines.grade.tolist() == [2, 1] and back.lines.rank.tolist() == [1, 0]
    remade = JudgedLists(list(judged))  # made from questions alone: converted when first read
    assert remade.lines.grade.tolist() == [0, 2, 1]
    assert remade.lines.pool_g.tolist() == judged.lines.pool_g.tolist() == [2, 2, 1]


def test_fixed_width_pads_each_id_with_nul_bytes_to_whole_words() -> None:
    # byte lengths, not characters: "é" is two bytes; the widest id (9 bytes) makes the
    # width 16; a slice of an array (an offset into its buffers) and large offsets read alike
    import pyarrow as pa

    from evidencedesk.files._trec_keys import doc_hashes, fixed_width, fixed_width_of

    ids = [b"\xc3\xa9", b"abcdefghi", b"", b"12345678"]
    for arr in (pa.array(ids, pa.binary()), pa.array([b"x", *ids], pa.large_binary())[1:]):
        docs = fixed_width(arr)
        assert docs.dtype == np.dtype("S16")
        assert docs.view(np.uint8).reshape(4, 16)[0].tolist() == [0xC3, 0xA9] + [0] * 14
        assert docs.tolist() == ids  # numpy drops the trailing NULs it reads back
        assert doc_hashes(docs).tolist() == doc_hashes(fixed_width_of(ids)).tolist()
    assert fixed_width(pa.array([b"abc"], pa.binary())).dtype == np.dtype("S8")
    assert fixed_width(pa.array([], pa.binary())).dtype == np.dtype("S8")


@pytest.mark.parametrize(
    ("ids", "width", "first_bytes"),
    [
        (["é", "abc"], 8, [0xC3, 0xA9, 0, 0, 0, 0, 0, 0]),  # UTF-8 bytes, not characters
        (["12345678"], 8, list(b"12345678")),  # exactly one word: no padding word
        (["123456789", b"x"], 16, list(b"123456789") + [0] * 7),  # str and bytes together
        (("", "a"), 8, [0] * 8),  # an empty id is eight NUL bytes; a tuple reads as a list
        ([b"q\x00"], 8, [0x71] + [0] * 7),  # a trailing NUL is padding like any other
        (["ab", "cdefghijk", ""], 16, list(b"ab") + [0] * 14),  # ASCII text: joined in C
        ([b"ab", b"cdefghijk"], 16, list(b"ab") + [0] * 14),  # bytes: joined in C
        (["a\x00b", "c"], 8, [0x61, 0, 0x62] + [0] * 5),  # lengths, not a separator, cut
    ],
)
def test_fixed_width_of_python_ids_pads_them_as_a_runs_ids(
    ids: list[str | bytes], width: int, first_bytes: list[int]
) -> None:
    import pyarrow as pa

    from evidencedesk.files._trec_keys import fixed_width, fixed_width_of

    docs = fixed_width_of(ids)
    assert docs.dtype == np.dtype(f"S{width}")
    assert docs.view(np.uint8).reshape(len(ids), width)[0].tolist() == first_bytes
    raw = [i.encode("utf-8") if isinstance(i, str) else i for i in ids]
    assert docs.tolist() == [r.rstrip(b"\x00") for r in raw]
    assert docs.tobytes() == fixed_width(pa.array(raw, pa.binary())).tobytes()


def test_fixed_width_of_refuses_what_utf8_cannot_encode() -> None:
    from evidencedesk.files._trec_keys import fixed_width_of

    assert fixed_width_of([]).dtype == np.dtype("S8") and fixed_width_of([]).size == 0
    with pytest.raises(UnicodeEncodeError):
        fixed_width_of(["\ud800"])  # a lone surrogate: no reader lets one through


@pytest.mark.parametrize("delimiter", [" ", "\t"])
def test_the_byte_checks_object_to_exactly_their_bytes(delimiter: str) -> None:
    # each byte value once, in an otherwise plain line: the control bytes are those below 32
    # but tab, LF and CR, and DEL; the suspect ones add CR and the other of tab and space
    from evidencedesk.files._trec_arrays import _control, _suspect

    other = 9 if delimiter == " " else 32
    control = {*range(32), 127} - {9, 10, 13}
    for byte in range(256):
        line = np.frombuffer(f"q1{delimiter}Q0{delimiter}d1".encode() + bytes([byte]) + b"\n",
                             dtype=np.uint8)  # fmt: skip
        assert _control(line) == (byte in control), byte
        assert _suspect(line, ord(delimiter)) == (byte in control | {13, other}), byte
        # with a scratch buffer, as a range reads its blocks (a larger one, left from before)
        scratch = np.full(64, 10, dtype=np.uint8)
        assert _suspect(line, ord(delimiter), scratch) == (byte in control | {13, other}), byte


def _part(lines: list[tuple[str, str]]) -> object:
    import pyarrow as pa

    from evidencedesk.files._trec_arrays import block_part

    return block_part(pa.table({
        "q": pa.array([q.encode() for q, _ in lines], pa.binary()),
        "z": pa.array([b"Q0"] * len(lines), pa.binary()),
        "d": pa.array([d.encode() for _, d in lines], pa.binary()),
        "r": pa.array([str(i + 1).encode() for i in range(len(lines))], pa.binary()),
        "s": pa.array([float(len(lines) - i) for i in range(len(lines))], pa.float64()),
    }))  # fmt: skip


@pytest.mark.parametrize(
    ("first", "second", "duplicated"),
    [
        ([("q1", "d1"), ("q1", "d2")], [("q1", "d3"), ("q2", "d1")], False),
        ([("q1", "d1"), ("q1", "d2")], [("q1", "d3"), ("q1", "d1")], True),  # across two parts
        ([("q2", "d1"), ("q1", "d2")], [("q2", "d2"), ("q1", "d1")], False),  # both spread
        ([("q2", "d1"), ("q1", "d2")], [("q3", "d2"), ("q2", "d1")], True),  # q2 comes back
        ([("q1", "d1"), ("q2", "d2"), ("q1", "d1")], [("q3", "d1")], True),  # within one part
    ],
)
def test_parts_check_their_own_lines_and_the_join_the_queries_in_several(
    first: list[tuple[str, str]], second: list[tuple[str, str]], duplicated: bool
) -> None:
    from evidencedesk.files._trec_arrays import Bad, join_parts

    parts = [_part(first), _part(second)]
    assert [p.repeats for p in parts] == [first == [("q1", "d1"), ("q2", "d2"), ("q1", "d1")],
                                          False]  # fmt: skip
    if duplicated:
        with pytest.raises(Bad):
            join_parts(parts, b"tag")  # type: ignore[arg-type]
    else:
        qids, codes, docs, _, _, _ = join_parts(parts, b"tag")  # type: ignore[arg-type]
        pairs = [(qids[c], d) for c, d in zip(np.asarray(codes).tolist(), docs.tolist(),
                                              strict=True)]  # fmt: skip
        assert sorted(pairs) == sorted((q.encode(), d.encode()) for q, d in first + second)


def test_arrow_flags_and_joined_chunks_read_as_numpy() -> None:
    import pyarrow as pa

    from evidencedesk.files._trec_keys import flags_of, joined

    assert flags_of(pa.array([True, False, True, True, False, False, False, False, True])[1:]
                    ).tolist() == [False, True, True, False, False, False, False, True]  # fmt: skip
    column = pa.chunked_array([pa.array([b"a", b"bc"]), pa.array([b"d"])])
    assert joined(column).to_pylist() == [b"a", b"bc", b"d"]
    assert joined(pa.chunked_array([], pa.binary())).to_pylist() == []


def test_reading_a_run_takes_no_memory_from_arrow_s_default_pool(tmp_path: Path) -> None:
    # `trec_keys.POOL` (malloc) for every array of the run reader, by each call's argument:
    # the process's default pool is left alone and never used by the read
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q{q % 7} Q0 d{q}-{d} {d} {1 / (d + 1):.4f} t\n"
                            for q in range(40) for d in range(q, q + 50)), "utf-8")  # fmt: skip
    script = (
        "import sys, pyarrow as pa\n"
        "from evidencedesk.files.trec import read_run\n"
        "run = read_run(sys.argv[1])\n"
        "print(len(run), run.n_lines, pa.default_memory_pool().max_memory())\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, check=True, timeout=120)  # fmt: skip
    assert done.stdout.split() == ["7", "2000", "0"]


def test_only_the_ties_out_of_order_are_moved() -> None:
    # the first tie (c, b, a) is in order and stays out of the fix; the second (x, z, y) takes
    # its documents from lines 4, 5 and 3 (z, y, x); the pair (q, p) is in order too
    from evidencedesk.files.trec import _tie_order

    qcode = np.zeros(8, dtype=np.int64)
    scores = np.array([3.0, 3.0, 3.0, 1.0, 1.0, 1.0, 0.5, 0.5])
    docs = np.array([b"c", b"b", b"a", b"x", b"z", b"y", b"q", b"p"], dtype="S8")
    fix = _tie_order(qcode, scores, docs)
    assert fix is not None
    assert (fix[0].tolist(), fix[1].tolist()) == ([3, 4, 5], [4, 5, 3])
    assert _tie_order(qcode, scores, np.array([b"c", b"b", b"a", b"z", b"y", b"x", b"q", b"p"],
                                              dtype="S8")) is None  # fmt: skip


def test_judgments_read_once_judge_every_run_as_the_qrels_do() -> None:
    # a build reads the qrels into arrays once (`_shared_judgments`) and judges every run against
    # them: each run's lists are those of judging it against the qrels themselves
    from evidencedesk.retrieval.trec_judge import _judge_trec_run_condensed, _shared_judgments

    labels = [Label(id=q, question=q, tags=(), answerable=True) for q in ("q1", "q2", "q3")]
    qrels = {"q1": {"d1": 2, "d2": 0, "long-document-id-1": 1}, "q2": {"d3": 3}, "q3": {}}
    runs = [
        TrecRun.from_dict(
            {"q1": {"d2": 3.0, "d1": 2.0, "long-document-id-1": 1.0}, "q2": {"d3": 1.0}}
        ),  # fmt: skip
        TrecRun.from_dict({"q2": {"d9": 2.0, "d3": 1.0}, "q9": {"d1": 1.0}}),
    ]
    shared = _shared_judgments(qrels, labels)
    for run in runs:
        alone = _judge_trec_run_condensed(run, qrels, labels, None, 1, 5)
        together = _judge_trec_run_condensed(run, qrels, labels, None, 1, 5, judgments=shared)
        assert [tuple(a) for a in alone] == [tuple(t) for t in together]
    first = _judge_trec_run_condensed(runs[0], qrels, labels, None, 1, 5, judgments=shared)[0]
    assert [j.grades for j in first] == [(0, 2, 1), (3,), ()]


def test_the_judge_s_candidates_hold_every_judged_key_and_drop_other_low_bits() -> None:
    # three bitmaps filter a run's lines before the exact look-up: every line whose key is a
    # judged one passes; a key that shares a judged key's top 44 bits but not its low 24 does not
    from evidencedesk.retrieval.trec_judge import _candidates

    judged = np.array([0x123456789ABCDEF0, 0x0FEDCBA987654321], dtype=np.uint64)
    keys = np.array(
        [0x0FEDCBA987654321, 0x123456789ABCDEF1, 7, 0x123456789ABCDEF0], dtype=np.uint64
    )
    assert _candidates(keys, judged).tolist() == [0, 3]


def test_the_judge_s_candidates_are_the_same_in_steps_of_any_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the lines are looked up `_STEP` at a time: a step's places are offset by where it starts
    from evidencedesk.retrieval import trec_judge

    rng = np.random.default_rng(5)
    judged = rng.integers(0, 2**64, size=50, dtype=np.uint64)
    keys = rng.integers(0, 2**64, size=1000, dtype=np.uint64)
    at = rng.choice(1000, size=40, replace=False)
    keys[at] = judged[:40]
    whole = trec_judge._candidates(keys, judged)
    assert set(at.tolist()) <= set(whole.tolist())
    for step in (1, 7, 256, 999, 1000):
        monkeypatch.setattr(trec_judge, "_STEP", step)
        assert trec_judge._candidates(keys, judged).tolist() == whole.tolist(), step


@pytest.mark.parametrize(
    ("codes", "starts", "lengths"),
    [
        ([0, 0, 1, 1, 2], [0, 1, 2], [2, 2, 1]),
        ([0, 1, 0], [0, 1, 0], [1, 1, 1]),  # a query that comes back is a stretch again
        ([3], [3], [1]),
        ([], [], []),
    ],
)
def test_stretches_of_a_code_per_line(codes, starts, lengths) -> None:
    from evidencedesk.files._trec_arrays import Stretches

    found = Stretches.of(np.array(codes, dtype=np.int32))
    assert (found.codes.tolist(), found.lengths.tolist()) == (starts, lengths)
    assert found.lines().tolist() == codes


@pytest.mark.parametrize(
    ("codes", "scores", "docs", "order"),
    [
        ([0, 0, 1, 1, 2], [3, 2, 9, 1, 5], "abcde", "abcde"),  # in trec_eval's order: kept
        ([0, 0, 1, 1, 2], [3, 3, 9, 1, 5], "abcde", "bacde"),  # a tie: document id descending
        ([0, 0, 1, 1, 2], [2, 3, 9, 1, 5], "abcde", "bacde"),  # a score rises within a query
        ([0, 1, 0], [3, 2, 1], "abc", "acb"),  # a query comes back
        ([1, 0], [2, 1], "ab", "ba"),  # queries out of order
        ([0], [1], "a", "a"),
    ],
)
def test_a_run_read_line_by_line_is_put_in_trec_eval_order(codes, scores, docs, order) -> None:
    # the line reader's columns hold a query code per line (no stretches): the same check of
    # the order (`Stretches.in_order_counts`), and the sorts where it fails
    from evidencedesk.files.trec import _sorted_run

    ids = np.array([d.encode() for d in docs], dtype="S8")
    keys = np.array([ord(d) for d in docs], dtype=np.uint64)  # each line's key moves with it
    qids = [b"q%d" % q for q in range(max(codes) + 1)]
    run = _sorted_run((qids, np.array(codes, dtype=np.int32), ids,
                       np.array(scores, dtype=np.float64), b"tag", keys))  # fmt: skip
    assert b"".join(run.docs.tolist()).decode() == order
    assert run.keys is not None and run.keys.tolist() == [ord(d) for d in order]
    counts = np.bincount(codes, minlength=len(qids)).tolist()
    assert np.diff(run.offsets).tolist() == counts


@pytest.mark.parametrize(
    ("codes", "lengths", "scores", "docs", "counts", "wrong"),
    [
        ([0, 0, 1], [2, 1, 2], [5, 4, 3, 9, 8], "abcde", [3, 2], []),  # a query in two stretches
        ([0, 0, 1], [2, 1, 2], [5, 4, 4.5, 9, 8], "abcde", None, None),  # the second scores higher
        ([0, 2], [2, 1], [5, 4, 9], "abc", [2, 0, 1], []),  # a query code without lines counts 0
        ([1, 0], [1, 1], [5, 4], "ab", None, None),  # queries out of order
        ([0, 1], [2, 2], [5, 5, 3, 2], "baxy", [2, 2], []),  # a tie in order: b before a
        ([0, 1], [2, 2], [5, 5, 3, 2], "abxy", [2, 2], [0]),  # a tie out of order at line 0
        ([0, 1], [2, 1], [5, 5, 5], "baz", [2, 1], []),  # equal scores across two queries
        ([0], [1], [7], "a", [1], []),  # one line
    ],
)
def test_stretches_count_the_queries_of_lines_in_order(
    codes: list[int],
    lengths: list[int],
    scores: list[float],
    docs: str,
    counts: list[int] | None,
    wrong: list[int] | None,
) -> None:
    from evidencedesk.files._trec_arrays import Stretches

    stretches = Stretches(np.array(codes, dtype=np.int32), np.array(lengths, dtype=np.int64))
    ids = np.array([d.encode() for d in docs], dtype="S8")
    found = stretches.in_order_counts(np.array(scores, dtype=np.float64), max(codes) + 1, ids)
    if counts is None:
        assert found is None
    else:
        assert found is not None
        assert (found[0].tolist(), found[1].tolist()) == (counts, wrong)
    lines = np.repeat(np.array(codes, dtype=np.int32), lengths)
    assert np.asarray(stretches).tolist() == lines.tolist()


def _order_but_ties(lines: list[int], scores: list[float], docs: list[bytes]) -> list[int] | None:
    """The pairs of tied neighbours out of order (by their upper line) when every other line is
    in trec_eval's order, else None: a line by line reading of the rule."""
    wrong = []
    for i in range(len(lines) - 1):
        if lines[i + 1] > lines[i]:
            continue
        if lines[i + 1] < lines[i] or scores[i + 1] > scores[i]:
            return None
        if scores[i + 1] == scores[i] and docs[i + 1] > docs[i]:
            wrong.append(i)
    return wrong


def test_stretches_agree_with_a_line_by_line_reading_across_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evidencedesk.files import _trec_arrays as trec_arrays

    monkeypatch.setattr(trec_arrays, "_CHUNK", 7)  # every boundary case within a few lines
    rng = np.random.default_rng(5)
    seen = {"in order": 0, "ties out of order": 0, "out of order": 0}
    for _ in range(400):
        n = int(rng.integers(1, 12))
        codes = np.sort(rng.integers(0, 6, n)).astype(np.int32)
        if rng.random() < 0.2:
            codes = rng.permutation(codes)
        lengths = rng.integers(1, 6, n)
        lines = np.repeat(codes, lengths)
        scores = -np.arange(lines.size, dtype=np.float64)  # falling everywhere
        places = rng.integers(0, lines.size, 2)
        scores[places] = rng.integers(-lines.size, 1, 2)  # and rising at up to two places
        if rng.random() < 0.5:  # or ties: runs of equal scores
            scores = np.floor(scores / int(rng.integers(2, 4)))
        docs = rng.permutation(np.array([f"d{i:03d}".encode() for i in range(lines.size)]))
        found = trec_arrays.Stretches(codes, lengths).in_order_counts(scores, 6, docs)
        expected = _order_but_ties(lines.tolist(), scores.tolist(), docs.tolist())
        if expected is None:
            assert found is None
            seen["out of order"] += 1
            continue
        assert found is not None
        assert found[0].tolist() == np.bincount(lines, minlength=6).tolist()
        assert found[1].tolist() == expected
        seen["ties out of order" if expected else "in order"] += 1
    assert min(seen.values()) > 20  # every case drawn often


@pytest.mark.parametrize("few", [4096, 0])  # 0: every tie out of order goes to the sort
def test_ties_across_two_parts_are_put_in_order_where_they_are(
    monkeypatch: pytest.MonkeyPatch, few: int
) -> None:
    from evidencedesk.files import trec
    from evidencedesk.files._trec_arrays import Stretches
    from evidencedesk.files.trec import _sorted_run

    monkeypatch.setattr(trec, "_FEW_TIES", few)

    # query a: 5, 3, 3, 3 (the tie b c d, read as d then b c by two parts); query b: 3, 1
    docs = np.array([b"x", b"d", b"b", b"c", b"z", b"y"], dtype="S8")
    scores = np.array([5, 3, 3, 3, 3, 1], dtype=np.float64)
    keys = np.arange(6, dtype=np.uint64) + np.uint64(100)  # each line's key moves with it
    lines = Stretches(np.array([0, 0, 1], dtype=np.int32), np.array([2, 2, 2]))
    run = _sorted_run(([b"a", b"b"], lines, docs, scores, b"tag", keys))
    assert run.docs.tolist() == [b"x", b"d", b"c", b"b", b"z", b"y"]
    assert run.keys is not None
    assert run.keys.tolist() == [100, 101, 103, 102, 104, 105]
    assert run.offsets.tolist() == [0, 4, 6]


@pytest.mark.parametrize("huge_pages", [True, False])
def test_joined_columns_take_plain_pages_where_numpy_would_ask_for_huge_ones(
    tmp_path: Path, huge_pages: bool
) -> None:
    """Where numpy asks the kernel for transparent huge pages (its default on Linux), a read
    run's joined columns are pyarrow buffers from malloc (`trec_keys.plain_concatenate`); where
    it does not (``--tune``), numpy's own arrays. The same lines either way."""
    import pyarrow as pa

    switch = np._core.multiarray._set_madvise_hugepage
    lines = [f"q{q} Q0 d{d:02d} {d} {10 - d // 2} t" for q in range(2) for d in range(8)]
    path = write(tmp_path, "\n".join(lines) + "\n")
    before = switch(huge_pages)
    try:
        run = read_run(path)
    finally:
        switch(before)
    for column in (run.docs, run.scores, run.keys):
        assert isinstance(column, np.ndarray)
        assert isinstance(column.base, pa.Buffer) is huge_pages
    # the ties (scores 10, 10, 9, 9, ...) in trec_eval's order: document id descending
    assert [d.decode() for d in run.docs[:4].tolist()] == ["d01", "d00", "d03", "d02"]
    assert run.offsets.tolist() == [0, 8, 16]
