"""The fast TREC reader (pyarrow) and the line reader accept and refuse exactly the same bytes.

A run goes to pyarrow first and to the line reader when pyarrow cannot take it; either way the
result must be the one the line reader gives (the line reader reads a line as trec_eval does:
split at any white space, comments and columns after the tag ignored). Each generated file is
read both ways and the two outcomes compared: the same run, or the same one-line error.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from evidencedesk.errors import LabelsError, RunFileError
from evidencedesk.files import _trec_arrays as trec_arrays
from evidencedesk.files import trec
from evidencedesk.files._text import MAX_LINE_BYTES
from evidencedesk.files.trec import _ScoreOrder, read_qrels, read_run

ODD = [
    b"\x0b",  # vertical tab: white space to the line reader, part of an id to pyarrow
    b"\x0c",  # form feed
    b"\r",  # a carriage return inside a line
    b"\t",  # a tab in a space-separated line
    b"  ",  # two spaces
    b"#",  # a comment marker inside an id is part of the id
    b"\xe9",  # Latin-1: not UTF-8
    "é".encode(),  # UTF-8, not ASCII
    b"\x00",  # NUL
]


def _line(rng: random.Random, q: int, d: int) -> bytes:
    score = rng.choice([f"{rng.uniform(0, 10):.4f}", str(rng.randint(0, 5)), "1e-3"])
    cols = [f"q{q}".encode(), b"Q0", f"d{d}".encode(), str(d).encode(), score.encode(), b"tag"]
    roll = rng.random()
    if roll < 0.15:  # an odd byte inside one column
        i = rng.randrange(6)
        cols[i] = cols[i][:1] + rng.choice(ODD) + cols[i][1:]
    elif roll < 0.2:
        cols.append(b"extra")  # a column after the tag (trec_eval ignores it)
    elif roll < 0.25:
        cols = cols[:5]  # a column missing
    sep = b"\t" if rng.random() < 0.05 else b" "
    return sep.join(cols)


def _file(seed: int) -> bytes:
    rng = random.Random(seed)
    lines = []
    for q in range(rng.randint(1, 4)):
        for d in rng.sample(range(30), rng.randint(1, 6)):
            lines.append(_line(rng, q, d))
        if rng.random() < 0.2:
            lines.append(b"# a comment " + rng.choice([b"", b"q1 Q0 d1 1 2.0 t"]))
        if rng.random() < 0.1:
            lines.append(b"")
    end = rng.choice([b"\n", b"\r\n"])
    text = end.join(lines) + (end if rng.random() < 0.8 else b"")
    return (b"\xef\xbb\xbf" if rng.random() < 0.05 else b"") + text


def _outcome(path: Path, line_reader_only: bool) -> object:
    original = trec_arrays.fast_columns
    if line_reader_only:

        def refuse(_: object) -> object:
            raise trec_arrays.Bad

        trec.fast_columns = refuse  # type: ignore[assignment]
    try:
        run = read_run(path)
    except RunFileError as exc:
        return ("error", str(exc))
    finally:
        trec.fast_columns = original
    docs = [d.decode() for d in run.docs.tolist()]
    return (run.qids, run.offsets.tolist(), docs, run.scores.tolist(), run.tag, run.order)


SEEDS = range(300)  # one generated file each


def test_both_readers_read_each_odd_file_alike(tmp_path: Path) -> None:
    # the same 300 files that were 300 parametrized rows (one behaviour, 300 random values): one
    # test reads them all and names every file the readers disagree on, with both outcomes
    disagree, refused = {}, 0
    for seed in SEEDS:
        path = tmp_path / f"run-{seed}.txt"
        path.write_bytes(_file(seed))
        fast, slow = _outcome(path, False), _outcome(path, True)
        if fast != slow:
            disagree[seed] = (fast, slow)
        refused += isinstance(slow, tuple) and slow[0] == "error"
    assert disagree == {}
    assert len({_file(seed) for seed in SEEDS}) == len(SEEDS)  # 300 different files
    assert 100 < refused < 200  # both sides: 157 files are refused (the same line), 143 read


@pytest.mark.parametrize("extra", [-1, 0, 1, 6])
def test_both_readers_draw_the_line_limit_at_the_same_byte(tmp_path: Path, extra: int) -> None:
    base = b"q2 Q0  1 1.0 t"
    line = b"q2 Q0 " + b"x" * (MAX_LINE_BYTES + extra - len(base)) + b" 1 1.0 t"
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2.0 t\n" + line + b"\nq3 Q0 d1 1 2.0 t\n")
    fast, slow = _outcome(path, False), _outcome(path, True)
    assert fast == slow
    if extra > 0:
        assert fast == (
            "error",
            f"{path}:2: expected a line of at most {MAX_LINE_BYTES} bytes, found one of "
            f"{MAX_LINE_BYTES + extra} bytes",
        )


def test_a_vertical_tab_splits_an_id_as_trec_eval_splits_it(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1\x0bx 1 2.0 tag\n")
    # seven columns to trec_eval: q1 Q0 d1 x 1 2.0 tag -- document d1, score 1, tag 2.0
    assert _outcome(path, False) == (("q1",), [0, 1], ["d1"], [1.0], "2.0", _ScoreOrder())


@pytest.mark.parametrize("odd", [b"\x0b", b"\x0c", b"\t"])
def test_both_qrels_readers_split_odd_white_space_alike(tmp_path: Path, odd: bytes) -> None:
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d" + odd + b"2 0\n")
    with pytest.raises(LabelsError) as caught:
        read_qrels(path)
    assert str(caught.value) == f"{path}:2: expected 4 columns, found 5"


def test_a_carriage_return_ends_a_qrels_line_as_it_ends_a_run_line(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d\r2 0\n")
    with pytest.raises(LabelsError) as caught:
        read_qrels(path)
    assert str(caught.value) == f"{path}:2: expected 4 columns, found 3"


def test_a_latin_1_tag_is_the_line_readers_utf_8_error(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2.0 caf\xe9\nq1 Q0 d2 2 1.0 caf\xe9\n")
    with pytest.raises(RunFileError) as caught:
        read_run(path)
    assert str(caught.value) == f"{path}:1: expected UTF-8 text, found byte 0xe9"
