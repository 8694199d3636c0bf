"""The run reader's compiled scan (`files._trec_scan`): the lines it takes come out as the very
arrays pyarrow's parse gives, and every line it cannot read exactly as pyarrow does is declined
(the window goes to pyarrow and its checks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.errors import RunFileError
from evidencedesk.files import _trec_arrays as trec_arrays
from evidencedesk.files import _trec_scan as trec_scan
from evidencedesk.files._trec_keys import doc_hashes
from evidencedesk.files.trec import read_run

needs_scan = pytest.mark.skipif(
    trec_scan._LIBRARY is None, reason="the compiled scan is not built (no C compiler at install)"
)
LIMIT = 1 << 19  # the longest line the reader lets the scan take (half the line limit)


def scanned(text: bytes, width: int = 16, delimiter: str = " ") -> trec_scan.Scanned | None:
    return trec_scan.scan(memoryview(text), ord(delimiter), width, LIMIT)


@needs_scan
def test_a_window_scans_into_stretches_padded_ids_hashes_and_scores() -> None:
    lines = scanned(b"q1 Q0 abc 1 2.5 t\nq1 Q0 abcdefghi 2 -0.25 t\nq2 Q0 x 1 10 t\n")
    assert lines is not None
    assert lines.heads == [b"q1", b"q2"]
    assert lines.lengths.tolist() == [2, 1]
    assert lines.docs.dtype == np.dtype("S16")  # the widest id, 9 bytes, in whole words
    assert lines.docs.tolist() == [b"abc", b"abcdefghi", b"x"]
    assert lines.scores.tolist() == [2.5, -0.25, 10.0]
    assert lines.hashes.tolist() == doc_hashes(lines.docs).tolist()
    assert lines.widest_query == 2


@needs_scan
@pytest.mark.parametrize(
    ("ids", "width", "dtype"),
    [
        ([b"a", b"abcdefgh"], 16, "S8"),  # narrower than the width it was given: cut to 8
        ([b"a", b"abcdefghi"], 8, "S16"),  # wider: scanned again at 16
        ([b"a" * 20, b"b"], 16, "S24"),
        ([b"a" * 17], 8, "S24"),
    ],
)
def test_ids_are_padded_to_the_widest_in_whole_words(
    ids: list[bytes], width: int, dtype: str
) -> None:
    lines = scanned(b"".join(b"q Q0 %s 1 1 t\n" % d for d in ids), width)
    assert lines is not None
    assert lines.docs.dtype == np.dtype(dtype)
    assert lines.docs.tolist() == ids
    assert lines.hashes.tolist() == doc_hashes(lines.docs).tolist()


@needs_scan
@pytest.mark.parametrize(
    "text",
    [
        b"q Q0 d 1 1 t\r\nq Q0 e 2 0 t\r\n",  # CRLF
        b"q Q0 d 1 1 t\nq Q0 e 2 0 t",  # the last line without a newline
    ],
)
def test_line_ends_the_scan_takes(text: bytes) -> None:
    lines = scanned(text)
    assert lines is not None
    assert lines.docs.tolist() == [b"d", b"e"]
    assert lines.scores.tolist() == [1.0, 0.0]


@needs_scan
def test_a_tab_separated_window_scans_at_tabs() -> None:
    lines = scanned(b"q\tQ0\td\t1\t1.5\tt\n", delimiter="\t")
    assert lines is not None and lines.scores.tolist() == [1.5]
    assert scanned(b"q\tQ0\td\t1\t1.5\tt\n") is None  # a tab where the delimiter is a space


@needs_scan
@pytest.mark.parametrize(
    "text",
    [
        b"q Q0 d 1 1 t\n\nq Q0 e 2 0 t\n",  # a blank line
        b"q Q0  d 1 1 t\n",  # an empty field
        b"q Q0 d 1 1\n",  # five fields
        b"q Q0 d 1 1 t x\n",  # seven
        b"q Q0 d 1 1 t \n",  # a space before the newline
        b"q Q0 d 1 1 t\r",  # a carriage return not before a newline
        b"q Q0 d 1 1 t\rq Q0 e 1 1 t\n",
        b"q Q0 d\t1 1 t\n",  # a tab in a space-separated line
        b"q Q0 d\x00 1 1 t\n",  # NUL
        b"q Q0 d\x7f 1 1 t\n",  # DEL
        b"q Q0 d\x0b 1 1 t\n",  # a vertical tab
        "q Q0 dé 1 1 t\n".encode(),  # beyond ASCII
        b"#q Q0 d 1 1 t\n",  # a comment
        b"=q Q0 d 1 1 t\n",  # a spreadsheet formula's first character, in either id
        b"q Q0 +d 1 1 t\n",
        b"q Q0 -d 1 1 t\n",
        b"q Q0 @d 1 1 t\n",
        b"q Q0 d 1 1 t\n=q Q0 d 1 1 t\n",  # a later query's id
        b"q Q0 d 1 1 t\nq Q0 " + b"d" * LIMIT + b" 1 1 t\n",  # a line over the limit
    ],
)
def test_lines_the_scan_declines(text: bytes) -> None:
    assert scanned(text) is None


@needs_scan
@pytest.mark.parametrize("at", range(11))  # every place in a word of eight, and past it
@pytest.mark.parametrize("byte", [0x00, 0x09, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFF])
def test_a_field_ends_at_its_first_byte_outside_printable_ascii(at: int, byte: int) -> None:
    # fields are found eight bytes a step: a byte outside 0x21-0x7e anywhere in an id ends it
    # there (the line then has a field too many, or a byte no field takes: declined); a byte
    # inside that range is the id's, wherever it falls in a word
    doc = bytearray(b"d" * 12)
    doc[at] = byte
    text = b"query Q0 " + bytes(doc) + b" 1 0.5 tag\nquery Q0 " + b"e" * 12 + b" 2 0.25 tag\n"
    lines = scanned(text)
    if 0x21 <= byte <= 0x7E:
        assert lines is not None and lines.docs.tolist()[0] == bytes(doc)
    else:
        assert lines is None


@needs_scan
@pytest.mark.parametrize(
    "score",
    [
        "+1",  # pyarrow's forms that are not the scan's: pyarrow reads them
        ".5",
        "5.",
        "1e5",
        "1E-5",
        "nan",
        "inf",
        "-",
        "1.2.3",
        "0x10",
        "1234567890123456",  # 16 digits: beyond the exact product
        "0.1234567890123456",
        "0." + "0" * 22 + "1",  # 23 decimals
    ],
)
def test_scores_the_scan_declines(score: str) -> None:
    assert scanned(f"q Q0 d 1 {score} t\n".encode()) is None


@needs_scan
@pytest.mark.parametrize(
    ("score", "value"),
    [
        ("0", 0.0),
        ("-0", -0.0),
        ("007", 7.0),
        ("45.6550", 45.655),
        ("-1.5", -1.5),
        ("123456789012345", 123456789012345.0),  # 15 digits
        ("0.000000000000000000001", 1e-21),
        ("0.1", 0.1),
        ("0.30000000000000", 0.3),  # trailing zeros count as digits: 15 here
    ],
)
def test_scores_the_scan_reads(score: str, value: float) -> None:
    lines = scanned(f"q Q0 d 1 {score} t\n".encode())
    assert lines is not None
    assert lines.scores.tobytes() == np.array([value]).tobytes()  # the same bits, -0.0 too


@needs_scan
@settings(max_examples=300, deadline=None)
@given(
    whole=st.integers(0, 10**9 - 1),  # with six decimals, at most the 15 digits it takes
    fraction=st.text("0123456789", min_size=0, max_size=6),
    negative=st.booleans(),
)
def test_every_score_the_scan_reads_is_the_correctly_rounded_double(
    whole: int, fraction: str, negative: bool
) -> None:
    text = ("-" if negative else "") + str(whole) + (f".{fraction}" if fraction else "")
    lines = scanned(f"q Q0 d 1 {text} t\n".encode())
    assert lines is not None
    assert lines.scores.tobytes() == np.array([float(text)]).tobytes()


RUNS = {
    "ties and returning queries": "".join(
        f"q{q % 7} Q0 d{(q * 7919 + i) % 1000} {i} {(i * 13) % 5 / 4} t\n"
        for q in range(40)
        for i in range(12)
    ),
    "signed zeros, leading and trailing zeros": "".join(
        f"q{i // 4} Q0 d{i} {i} {('-0', '-0.0', '007', '0.30000000000000')[i % 4]} t\n"
        for i in range(40)
    ),
    "ids of 1 to 30 bytes": "".join(
        f"q{i % 3} Q0 {'d' * (1 + i % 30)}{i} {i} {100 - i} t\n" for i in range(120)
    ),
    "CRLF, no newline at the end": "".join(
        f"q{i // 5} Q0 d{i} {i} {i % 3}.25 t\r\n" for i in range(60)
    ).rstrip("\r\n"),
    "scores the scan declines in a later window": "".join(
        f"q{i // 10} Q0 d{i} {i} {'1e-3' if i == 100 else i} t\n" for i in range(150)
    ),
    "an id beyond ASCII in a later window": "".join(
        f"q{i // 10} Q0 {'dé' if i == 90 else 'd'}{i} {i} {i} t\n" for i in range(150)
    ),
}


# read straight into the run's columns: each of these has its queries out of byte order ("q10"
# before "q2"), so its stretches are written grouped by query, the windows the scan declines
# parsed by pyarrow and written there too (a run in order is placed only where every window is
# scanned)
GROUPED = ("ties and returning queries", "CRLF, no newline at the end",
           "scores the scan declines in a later window", "an id beyond ASCII in a later window")  # fmt: skip
# placed or not by the widths the ranges meet before one stops the others (a test of its own:
# test_ids_wider_than_the_first_line_s_are_placed_again_at_their_width)
EITHER = ("ids of 1 to 30 bytes",)


def small_windows(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Windows of 400 bytes (lines of at most 200), byte ranges of 500 bytes or more, at most
    `threads` of them: a small file read as a large one is."""
    monkeypatch.setattr(trec_arrays, "MAX_LINE_BYTES", 200)
    monkeypatch.setattr(trec_arrays, "_GROUP", 4)
    monkeypatch.setattr(trec_arrays, "_THREADS", threads)
    monkeypatch.setattr(trec_arrays, "_MIN_RANGE", 500)


@needs_scan
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_run_reads_to_the_same_columns_with_and_without_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, threads: int
) -> None:
    path = tmp_path / "r.txt"
    path.write_text(RUNS[name], encoding="utf-8")
    # windows of 400 bytes, in one range or three: ids narrow and widen window to window, and
    # a declined window sits between scanned ones
    small_windows(monkeypatch, threads)
    outcomes: list[bool] = []
    placed: list[bool] = []  # whether the ranges were read straight into the run's columns
    grouped: list[bool] = []  # and whether grouped by query there

    def recorded(*args: object) -> trec_scan.Scanned | None:
        lines = trec_scan.scan(*args)  # type: ignore[arg-type]
        if args[4] is None:  # the windows read into arrays of their own, not placed
            outcomes.append(lines is not None)
        return lines

    def placing(*args: Any) -> Any:
        done = placed_ranges(*args)
        placed.append(done is not None)
        grouped.append(done is not None and done[2])
        return done

    placed_ranges = trec_arrays._placed
    monkeypatch.setattr(trec_arrays, "scan", recorded)
    monkeypatch.setattr(trec_arrays, "_placed", placing)
    scanned_columns = trec_arrays.fast_columns(path)
    # ranges are placed unless a window is declined (an id wider than the first line's words
    # places them again, at a width it fits); a file of one range is read as parts
    ranges = min(threads, path.stat().st_size // 500)
    if name not in EITHER:
        assert placed == ([] if ranges < 2 else [name in GROUPED])
        assert grouped == placed
    if not placed or not placed[0] or grouped[0]:
        assert outcomes.count(True) >= 2  # windows the scan took ...
        assert outcomes.count(False) == (1 if "declines" in name or "beyond" in name else 0)
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    parsed_columns = trec_arrays.fast_columns(path)
    qids, codes, docs, scores, tag, keys = scanned_columns
    assert qids == parsed_columns[0] and tag == parsed_columns[4]
    assert np.array_equal(np.asarray(codes), np.asarray(parsed_columns[1]))
    assert docs.dtype == parsed_columns[2].dtype and np.array_equal(docs, parsed_columns[2])
    assert scores.tobytes() == parsed_columns[3].tobytes()
    assert keys is not None and np.array_equal(keys, parsed_columns[5])


@needs_scan
def test_a_duplicate_in_a_scanned_run_is_named_by_the_line_reader(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq1 Q0 d1 3 0 t\n")
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == (f"{path}:3: expected each document once per query, found 'd1' again")


@needs_scan
@pytest.mark.parametrize("grouped", [False, True])
def test_a_duplicate_across_two_ranges_is_named_by_the_line_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grouped: bool
) -> None:
    # a last line listing again a document of a query's first line: q0's 'd0', in the first
    # range (its queries out of order: placed grouped by query), or q6's 'd514' (in byte
    # order: placed in file order)
    path = tmp_path / "r.txt"
    text = RUNS["ties and returning queries"]
    if not grouped:
        text = "".join(sorted(text.splitlines(keepends=True), key=lambda line: line.split()[0]))
    again = "q0 Q0 d0" if grouped else "q6 Q0 d514"
    lines = text.count("\n") + 1
    path.write_text(f"{text}{again} 99 0 t\n")
    small_windows(monkeypatch, 3)
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == (
        f"{path}:{lines}: expected each document once per query, found '{again.split()[2]}' again"
    )


def test_without_the_library_or_when_turned_off_pyarrow_reads_every_window(
    tmp_path: Path,
) -> None:
    assert trec_scan._load(tmp_path) is None  # no library in this folder
    code = (
        "from evidencedesk.files import _trec_arrays as a, _trec_scan as s; import sys; "
        "print(s._LIBRARY is None, s.compiled(), a._range_lines(sys.argv[1], 0, 4))"
    )
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 d1 1 2 t\n")
    env = {**os.environ, "EVIDENCEDESK_SCAN": "off"}
    done = subprocess.run([sys.executable, "-c", code, str(run)], env=env, capture_output=True,
                          text=True)  # fmt: skip
    assert done.stdout.strip() == "True False None", done.stderr
    (tmp_path / trec_scan._NAME).write_bytes(b"not a shared library")
    assert trec_scan._load(tmp_path) is None  # built for another machine, say


def _built(folder: Path, source: bytes) -> Path:
    """A library compiled as the install compiles it (hatch_build.py) from `source`, in `folder`
    beside the package's own ``_trec_scan.c``."""
    from hatch_build import compile_scan

    folder.mkdir()
    (folder / "built-from.c").write_bytes(source)
    here = Path(trec_scan.__file__).parent / trec_scan._SOURCE
    (folder / trec_scan._SOURCE).write_bytes(here.read_bytes())
    problem = compile_scan(folder / "built-from.c", folder / trec_scan._NAME)
    if problem is not None:
        pytest.skip(f"no C compiler: {problem}")
    return folder


def test_a_library_is_used_only_when_built_from_the_source_beside_it(tmp_path: Path) -> None:
    import hatch_build

    # the hook (which cannot import the package: it runs before numpy is installed) builds
    # the library the loader looks for, from the source the loader checks it against
    here = Path(trec_scan.__file__).parent.relative_to(Path(hatch_build.__file__).parent)
    assert hatch_build.LIBRARY == (here / trec_scan._NAME).as_posix()
    assert hatch_build.SOURCE == (here / trec_scan._SOURCE).as_posix()
    source = (Path(trec_scan.__file__).parent / trec_scan._SOURCE).read_bytes()
    assert trec_scan._load(_built(tmp_path / "same", source)) is not None
    # a library left from an older source (a checkout pulled since its install): its functions
    # may take other arguments, so pyarrow reads every window
    older = source.replace(b"#define EVIDENCEDESK_SCAN_DECLINED (-1)",
                           b"#define EVIDENCEDESK_SCAN_DECLINED (-3)")  # fmt: skip
    assert older != source
    assert trec_scan._load(_built(tmp_path / "older", older)) is None


def test_without_a_working_compiler_the_install_says_why_and_builds_no_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hatch_build import compile_scan

    source = tmp_path / "scan.c"
    source.write_text("int f(void) { return 0; }\n")
    monkeypatch.setenv("CC", "false")  # a compiler that fails
    problem = compile_scan(source, tmp_path / trec_scan._NAME)
    assert problem is not None and problem.startswith("false -O2 -shared -fPIC")
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    problem = compile_scan(source, tmp_path / trec_scan._NAME)
    assert problem is not None and "No such file or directory" in problem
    assert not (tmp_path / trec_scan._NAME).exists()


JUDGED_KEY = 0xABCDE12345678901  # the judged (query, document) key of the cases below


@needs_scan
@pytest.mark.parametrize(
    ("key", "passes"),
    [
        (JUDGED_KEY, True),
        (0xABCDE12345000000, False),  # its top 23 bits, other low 24 bits
        (0x1111110000678901, False),  # its low 24 bits, other top bits
        (0xABCDE1FFFF678901, True),  # both, other bits between: passed, the caller confirms
        (0, False),
    ],
)
def test_a_key_is_a_judged_candidate_when_both_bitmaps_hold_its_bits(
    key: int, passes: bool
) -> None:
    keys = np.array([7, key], dtype=np.uint64)
    found = trec_scan.judged_candidates(keys, np.array([JUDGED_KEY], dtype=np.uint64))
    assert found is not None and found.tolist() == ([1] if passes else [])


@needs_scan
def test_judged_candidates_are_every_judged_line_ascending_across_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evidencedesk.retrieval.trec_judge import _bitmap_candidates

    monkeypatch.setattr(trec_scan, "_STEP", 1000)  # 20 calls, each writing from the room's start
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 2**63, 20_000, dtype=np.int64).view(np.uint64) * np.uint64(2)
    judged = np.concatenate([keys[rng.choice(keys.size, 300, replace=False)],
                             rng.integers(0, 2**63, 3000, dtype=np.int64).view(np.uint64)])  # fmt: skip
    found = trec_scan.judged_candidates(keys, judged)
    assert found is not None
    truly = np.flatnonzero(np.isin(keys, judged))
    assert truly.size == 300
    assert np.all(np.diff(found) > 0) and np.isin(truly, found).all()
    assert found.size < 320  # a few passed that the caller's confirmation drops
    by_numpy = _bitmap_candidates(keys, judged)  # the reader without the library, alike
    assert np.isin(truly, by_numpy).all() and np.all(np.diff(by_numpy) > 0)
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    assert trec_scan.judged_candidates(keys, judged) is None


@needs_scan
@pytest.mark.parametrize(
    ("keys", "lengths", "repeats"),
    [
        ([5, 6, 7, 5, 8], [5], True),  # twice in one stretch
        ([5, 6, 7, 5, 8], [3, 2], False),  # once in each of two: two queries' keys
        ([5, 6, 7, 8, 8], [3, 2], True),  # twice in the last
        ([5, 5], [1, 1], False),
        ([0, 0], [2], True),  # a zero key is a key
        ([16, 32, 48, 16], [4], True),  # same low bits: probed on to the next slot
        ([16, 32, 48, 64], [4], False),
        ([], [], False),
    ],
)
def test_a_repeat_is_a_key_twice_within_one_stretch(
    keys: list[int], lengths: list[int], repeats: bool
) -> None:
    found = trec_scan.repeats_within(np.array(keys, dtype=np.uint64), np.array(lengths))
    assert found is repeats


@needs_scan
def test_repeats_within_stretches_as_a_sort_of_each_finds_them() -> None:
    # stretches of 1 to 3,000 lines (tables of 16 to 8,192 slots), keys drawn from a few values
    # so that some stretches hold a repeat: the table finds it wherever a sort does
    rng = np.random.default_rng(11)
    for _ in range(40):
        lengths = rng.integers(1, 3000, rng.integers(1, 6))
        keys = rng.integers(0, 2 * int(lengths.sum()) ** 2, lengths.sum()).astype(np.uint64)
        if rng.random() < 0.5:  # a repeat planted in a random stretch
            stretch = rng.integers(lengths.size)
            start = int(lengths[:stretch].sum())
            if lengths[stretch] > 1:
                keys[start + lengths[stretch] - 1] = keys[start]
        ends = np.cumsum(lengths)
        by_sort = any(trec_arrays.repeated_keys(part).size for part in np.split(keys, ends[:-1]))
        assert trec_scan.repeats_within(keys, lengths) is by_sort


def test_repeats_within_without_the_library_or_with_lines_left_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = np.array([1, 2, 1], dtype=np.uint64)
    if trec_scan._LIBRARY is not None:
        with pytest.raises(ValueError, match="expected stretches of 3 lines, found 2"):
            trec_scan.repeats_within(keys, np.array([2]))
    monkeypatch.setattr(trec_scan, "_TABLE_LINES", 2)  # a stretch too long for a table
    assert trec_scan.repeats_within(keys, np.array([3])) is None
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    assert trec_scan.repeats_within(keys, np.array([3])) is None
    # a part's check then sorts every key, as does a part whose stretches share a query
    assert trec_arrays._repeats([b"q1"], np.array([3]), keys) is True
    assert trec_arrays._repeats([b"q1", b"q2"], np.array([2, 1]), keys) is True  # or collide
    monkeypatch.undo()
    assert trec_arrays._repeats([b"q1", b"q1"], np.array([2, 1]), keys) is True
    if trec_scan._LIBRARY is not None:  # two queries' lines: one key each, no repeat
        assert trec_arrays._repeats([b"q1", b"q2"], np.array([2, 1]), keys) is False


@needs_scan
@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"", 0),
        (b"no newline", 0),
        (b"\n", 1),
        (b"a\r\nb\n\nc", 3),
        (b"\n" * 8160, 8160),  # 255 blocks of 32 bytes: the widest count an 8-bit counter holds
        (b"\n" * 8161, 8161),  # and one byte past them
        (b"x" * 31 + b"\n" + b"y" * 40 + b"\n", 2),  # a newline at a block's last byte
    ],
)
def test_count_lines_counts_every_newline(data: bytes, lines: int) -> None:
    assert trec_scan.count_lines(memoryview(data)) == lines


@needs_scan
@pytest.mark.parametrize(
    ("data", "heads", "lengths"),
    [
        (b"", [], []),
        (b"q1 a\nq1 b\nq2 c\nq1 d", [b"q1", b"q2", b"q1"], [2, 1, 1]),  # a query back later
        (b"q1 a\nq1", [b"q1"], [2]),  # the last line its id alone, no newline
        (b"q1 a\nq10 b\nq1\tc\r\n", [b"q1", b"q10", b"q1"], [1, 1, 1]),  # an id's prefix
        (b"q123456789 x\n" * 3, [b"q123456789"], [3]),  # ids past one 8-byte word
        (b"q1 " + b"x" * 14 + b"\nq1 y\n", [b"q1"], [2]),  # a newline at a word's last byte
        # 0x8a and 0x0b are no newline; an id ends at a byte outside ASCII (the scan declines it)
        (b"q1 \xc4\x8a\x0b\x8a\x0a\x8aq2\n", [b"q1", b""], [1, 1]),
        (b"q1 a\n\n\nq1 b\n", [b"q1", b"", b"q1"], [1, 2, 1]),  # blank lines: an empty id
        (b"a\nb\nc\n", [b"a", b"b", b"c"], [1, 1, 1]),  # as many as the capacity
    ],
)
def test_count_stretches_splits_lines_where_the_scan_does(
    data: bytes, heads: list[bytes], lengths: list[int]
) -> None:
    found = trec_scan.count_stretches(memoryview(data), 3)
    assert found is not None
    assert found[0] == heads and found[1].tolist() == lengths


@needs_scan
def test_count_stretches_past_its_capacity_is_none() -> None:
    assert trec_scan.count_stretches(memoryview(b"a\nb\nc\nd\n"), 3) is None


@needs_scan
def test_a_range_s_stretches_are_joined_across_its_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # windows of 40 bytes: q1's 30 lines of 18 bytes span 14 of them, some holding q1 alone
    path = tmp_path / "r.txt"
    path.write_bytes(b"".join(b"q1 Q0 d%02d %02d 1 t\n" % (i, i) for i in range(30))
                     + b"q2 Q0 d1 1 1 t\nq2 Q0 d2 2 1 t")  # fmt: skip
    monkeypatch.setattr(trec_arrays, "MAX_LINE_BYTES", 20)
    size = path.stat().st_size
    heads, lengths = trec_arrays._range_stretches(path, 0, size, 2)  # type: ignore[misc]
    assert heads == [b"q1", b"q2"] and lengths.tolist() == [30, 2]
    assert trec_arrays._range_stretches(path, 0, size, 1) is None  # past its capacity
    assert trec_arrays._range_stretches(path, 0, size + 10, 2) is None  # the file cut short


@needs_scan
@needs_scan
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize(
    ("longest", "placings", "widths", "placed"),
    [
        (5, 3, [8], True),  # every id in the first line's word
        (12, 3, [8, 16], True),  # a wider id: placed again at two words
        (20, 3, [8, 24], True),  # the widest its window met, not one word more at a time
        (12, 1, [8], False),  # no width left to try: read as parts
    ],
)
def test_ids_wider_than_the_first_line_s_are_placed_again_at_their_width(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    longest: int,
    placings: int,
    widths: list[int],
    placed: bool,
    grouped: bool,
) -> None:
    # ids of 4 bytes but one of `longest`, in the second of three ranges' first window; the
    # queries in byte order ("q00" to "q14": placed in file order) or not ("q0" to "q14", "q10"
    # before "q2": placed grouped by query)
    path = tmp_path / "r.txt"
    path.write_text("".join(
        f"q{i // 10:{'' if grouped else '02'}} Q0 {'d' * ((longest if i == 60 else 4) - 3)}"
        f"{i:03} {i} {i} t\n"
        for i in range(150)
    ), encoding="utf-8")  # fmt: skip
    small_windows(monkeypatch, 3)
    monkeypatch.setattr(trec_arrays, "_PLACINGS", placings)
    tried: list[int] = []  # the widths of the places lines were scanned or written into
    placements: list[Any] = []

    def recorded(*args: Any) -> trec_scan.Scanned | None:
        if args[4] is not None:
            tried.append(args[4].width)
        return trec_scan.scan(*args)

    def grouping(*args: Any) -> Any:
        tried.append(args[4].width)
        return write(*args)

    def placing(*args: Any) -> Any:
        placements.append(place(*args))
        return placements[-1]

    place, write = trec_arrays._placed, trec_arrays._grouped_range
    monkeypatch.setattr(trec_arrays, "scan", recorded)
    monkeypatch.setattr(trec_arrays, "_grouped_range", grouping)
    monkeypatch.setattr(trec_arrays, "_placed", placing)
    columns = trec_arrays.fast_columns(path)
    assert sorted(set(tried)) == widths
    assert [p is not None for p in placements] == [placed]
    assert [p[2] for p in placements if p is not None] == [grouped] * placed
    assert columns[2].dtype == f"S{8 * -(-longest // 8)}"
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    for one, other in zip(columns, trec_arrays.fast_columns(path), strict=True):
        assert np.array_equal(np.asarray(one), np.asarray(other))


@needs_scan
@pytest.mark.parametrize("counted", [-1, 1])
@pytest.mark.parametrize("grouped", [False, True])
def test_a_run_counted_otherwise_than_it_scans_is_read_as_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted: int, grouped: bool
) -> None:
    # a file that changed between the count and the scan: the ranges are read again as parts,
    # to the same columns (its queries out of order: written grouped by query; in order: in
    # file order)
    path = tmp_path / "r.txt"
    text = RUNS["ties and returning queries"]
    if not grouped:  # each query's lines together, the queries in byte order
        text = "".join(sorted(text.splitlines(keepends=True), key=lambda line: line.split()[0]))
    path.write_text(text, encoding="utf-8")
    small_windows(monkeypatch, 3)
    found: list[Any] = []
    place = trec_arrays._placed
    monkeypatch.setattr(trec_arrays, "_placed", lambda *a: found.append(place(*a)) or found[-1])
    placed = trec_arrays.fast_columns(path)
    assert found[0] is not None and found[0][2] == grouped

    def miscounted(*args: Any) -> Any:  # a run out of order is counted by its stretches
        heads, lengths = count(*args)
        return heads, np.r_[lengths[:-1], lengths[-1] + counted]

    count, lines = trec_arrays._range_stretches, trec_arrays._range_lines
    monkeypatch.setattr(trec_arrays, "_range_stretches", miscounted)
    monkeypatch.setattr(trec_arrays, "_range_lines", lambda *a: lines(*a) + counted)
    found.clear()
    parts = trec_arrays.fast_columns(path)
    assert found == [None]
    for one, other in zip(placed, parts, strict=True):
        assert np.array_equal(np.asarray(one), np.asarray(other))


@needs_scan
def test_a_run_whose_queries_change_too_often_is_placed_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 stretches of 12 lines, more than a count of stretches takes (at most 8 here): its
    # lines are counted and placed as the file holds them, and grouped by query afterwards
    path = tmp_path / "r.txt"
    path.write_text(RUNS["ties and returning queries"], encoding="utf-8")
    small_windows(monkeypatch, 3)
    monkeypatch.setattr(trec_arrays, "_STRETCHES", 8)
    found: list[Any] = []
    counted: list[int | None] = []
    place, count = trec_arrays._placed, trec_arrays._range_lines
    monkeypatch.setattr(trec_arrays, "_placed", lambda *a: found.append(place(*a)) or found[-1])
    monkeypatch.setattr(
        trec_arrays, "_range_lines", lambda *a: counted.append(count(*a)) or counted[-1]
    )
    columns = trec_arrays.fast_columns(path)
    assert found[0] is not None and found[0][2] is False
    assert sum(c or 0 for c in counted) == 480  # every line, counted range by range
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    for one, other in zip(columns, trec_arrays.fast_columns(path), strict=True):
        assert np.array_equal(np.asarray(one), np.asarray(other))


@needs_scan
@pytest.mark.parametrize(
    ("queries", "in_order"),
    [
        (["q1", "q2", "q3"], True),
        (["q1", "q10", "q2"], True),  # byte order ("q10" before "q2"), as the join sorts
        (["q2", "q10", "q1"], False),
        (["q1", "q3", "q2"], False),
    ],
)
def test_a_run_looks_in_order_when_its_probed_query_ids_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, queries: list[str], in_order: bool
) -> None:
    # 20 lines a query, probed at 6 evenly spread lines (one line cut into at each probe)
    path = tmp_path / "r.txt"
    path.write_text("".join(f"{q} Q0 d{i:02} {i} 1 t\n" for q in queries for i in range(20)))
    monkeypatch.setattr(trec_arrays, "_PROBES", 6)
    assert trec_arrays._looks_in_order(path, path.stat().st_size) is in_order


@needs_scan
def test_a_run_out_of_order_only_between_its_probes_is_grouped_by_the_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # q2's lines before q1's, between two probes (the first line, "q0", and the line after the
    # middle, q2's last or q1's first): counted as a run in order is, placed in file order and
    # grouped by the join
    path = tmp_path / "r.txt"
    lines = [
        f"{q} Q0 d{i:02} {i} {50 - i} t\n" for q in ("q0", "q2", "q1", "q3") for i in range(25)
    ]
    path.write_text("".join(lines))
    small_windows(monkeypatch, 2)
    monkeypatch.setattr(trec_arrays, "_PROBES", 2)
    found: list[Any] = []
    place = trec_arrays._placed
    monkeypatch.setattr(trec_arrays, "_placed", lambda *a: found.append(place(*a)) or found[-1])
    columns = trec_arrays.fast_columns(path)
    assert found[0] is not None and found[0][2] is False
    assert columns[0] == [b"q0", b"q1", b"q2", b"q3"]
    monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    for one, other in zip(columns, trec_arrays.fast_columns(path), strict=True):
        assert np.array_equal(np.asarray(one), np.asarray(other))
