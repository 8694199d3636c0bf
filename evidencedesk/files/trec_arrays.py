"""Reading a TREC run into arrays: pyarrow's CSV reader first, a line-by-line reader second.

The fast path reads the file with pyarrow's streaming CSV reader (single-space or single-tab
separated, as search engines write runs), three typed columns, in 1 MiB blocks; a run of
`_MIN_RANGE` bytes or more in byte ranges cut at newlines, one thread each, and the blocks turn
into arrays in :mod:`.trec_parts`. Anything it does not accept -- a parse error,
mixed whitespace, a missing or non-finite score, a line longer than its block (the per-line
limit), a duplicate document -- sends the file to :func:`slow_columns`, which reads it line by
line and either names the first bad line (``file:line: expected ..., found ...``) or returns the
same columns for an unusual but valid file.
"""

from __future__ import annotations

import itertools
import math
import mmap
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from evidencedesk.errors import RunFileError
from evidencedesk.files.arrow import pa, pacsv, pc
from evidencedesk.files.limits import MAX_LINE_BYTES, line_too_long, shown
from evidencedesk.files.trec_keys import alike_earlier, alike_problem, has_alike, id_problem
from evidencedesk.files.trec_parts import (
    Bad,
    Columns,
    Part,
    block_part,
    join_parts,
    odd_space,
    plain_ids,
    read_range,
    stretches,
    table_columns,
)

__all__ = [
    "Bad",
    "Columns",
    "Part",
    "arrow_options",
    "check_line",
    "fast_columns",
    "fast_qrels",
    "join_parts",
    "block_part",
    "slow_columns",
    "table_columns",
]

# the six columns of a run line, as an error message names them
_RUN_FORM = "'qid Q0 docid rank score tag'"
# ASCII only: Python's float() also takes full-width and Arabic-Indic digits and "1_0"
NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _first_line(mm: mmap.mmap) -> bytes:
    start = 3 if mm[:3] == b"\xef\xbb\xbf" else 0
    for line in iter(lambda: mm.readline(), b""):
        if line.strip():
            return line[start:] if start else line
        start = 0
    return b""


def fast_columns(path: str | Path) -> Columns:
    """The run's columns through pyarrow; raises :class:`Bad` when the file needs the slow path."""
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        if size == 0:
            raise Bad
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            first = _first_line(mm)
            cuts = _cuts(mm, size)
    parts = first.split()
    if len(parts) != 6:
        raise Bad
    try:
        parts[5].decode("utf-8")  # the run's tag: the line reader names a bad byte's line
    except UnicodeDecodeError:
        raise Bad from None
    options = arrow_options("\t" if b"\t" in first and b" " not in first.strip() else " ")
    try:
        if len(cuts) == 2:  # one range: parse in this thread, arrays in a worker
            columns = join_parts(read_range(path, 0, size, options, worker=True), parts[5])
        else:
            ranges = list(itertools.pairwise(cuts))  # a range per thread, each parsed and
            with ThreadPoolExecutor(max_workers=len(ranges)) as pool:  # turned into arrays
                found = list(pool.map(lambda r: read_range(path, r[0], r[1], options), ranges))
            columns = join_parts([p for range_parts in found for p in range_parts], parts[5])
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Bad from None
    if any(q.startswith(b"#") for q in columns[0]):
        raise Bad  # a comment line: the line reader skips it
    if _has_alike_ids(columns[0], columns[2]):
        raise Bad  # the line reader names the look-alike id's line
    return columns


def _has_alike_ids(qids: list[bytes], docs: np.ndarray) -> bool:
    """Whether two query ids or two document ids of a run look alike (`trec_keys.has_alike`);
    the document ids are compared only when one of their bytes is outside ASCII."""
    if not all(q.isascii() for q in qids) and has_alike([q.decode("utf-8") for q in qids]):
        return True
    raw = np.ascontiguousarray(docs).view(np.uint8)
    if raw.size == 0 or int(raw.max()) < 0x80:
        return False
    return has_alike([d.decode("utf-8") for d in np.unique(docs).tolist()])


THREADS = max(1, min(4, os.cpu_count() or 1))  # threads that read a large run's byte ranges
_MIN_RANGE = 64 << 20  # bytes: a smaller run is one range


def _cuts(mm: mmap.mmap, size: int) -> list[int]:
    """Where the file's byte ranges start and end: up to `THREADS` ranges of at least
    `_MIN_RANGE` bytes, each cut just after a newline."""
    cuts = [0]
    n = min(THREADS, size // _MIN_RANGE)
    for i in range(1, n):
        at = mm.find(b"\n", max(cuts[-1], size * i // n))
        if at < 0 or at + 1 >= size:
            break
        cuts.append(at + 1)
    return [*cuts, size]


def arrow_options(delimiter: str, block_size: int | None = None) -> dict[str, Any]:
    """pyarrow CSV options for a run: three typed columns, no quoting, no null markers.

    Arrow refuses a line that straddles more than two blocks, which sends the file to the slow
    path, where the line reader measures it. Blocks of half the line limit therefore refuse every
    line over the limit, whichever of its columns is long (a row may reach into one next block:
    with blocks of the whole limit, lines of up to twice the limit were read when the excess was
    in a column no check measures, such as the run tag).
    """
    return {
        "read_options": pacsv.ReadOptions(
            column_names=list("qzdrst"), block_size=block_size or MAX_LINE_BYTES // 2
        ),
        "parse_options": pacsv.ParseOptions(
            delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False
        ),
        "convert_options": pacsv.ConvertOptions(
            include_columns=["q", "d", "s"],
            # bytes, not text: `block_part` checks UTF-8 only where a byte is not ASCII (the
            # parse itself took 15-25 % longer validating every id)
            column_types={"q": pa.binary(), "d": pa.binary(), "s": pa.float64()},
            null_values=[],
            strings_can_be_null=False,
        ),
    }


def fast_qrels(path: str | Path, low: int, high: int) -> dict[str, dict[str, int]]:
    """Qrels through pyarrow (grades ``-?[0-9]{1,3}`` within [low, high], each document once per
    query); raises :class:`Bad` for anything else, and the caller's line loop names it."""
    with open(path, "rb") as handle:
        if handle.seek(0, 2) == 0:
            raise Bad
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            data = np.frombuffer(mm, dtype=np.uint8)
            refused = not data.all() or odd_space(data, ord(" "))
            del data  # the map closes only once no array views it
            if refused:
                raise Bad
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list("qzdg"), block_size=MAX_LINE_BYTES),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in "qzdg"},
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Bad from None
    if (
        table.num_rows == 0
        or not pc.all(pc.match_substring_regex(table["g"], r"^-?[0-9]{1,3}$")).as_py()
        or pc.any(pc.starts_with(table["q"], "#")).as_py()  # a comment line: the loop skips it
        or not plain_ids(table["q"].combine_chunks())  # the loop names the odd id's line
        or not plain_ids(table["d"].combine_chunks())
    ):
        raise Bad
    length = pc.add(pc.add(pc.utf8_length(table["q"]), pc.utf8_length(table["z"])), 3)
    length = pc.add(pc.add(length, pc.binary_length(table["d"])), pc.binary_length(table["g"]))
    if pc.max(length).as_py() > MAX_LINE_BYTES // 4:  # maybe over the line limit: measure it
        raise Bad
    grades = pc.cast(table["g"], pa.int64())
    if pc.min(grades).as_py() < low or pc.max(grades).as_py() > high:
        raise Bad
    # one dict update per stretch of lines with equal query ids, not one per line
    bounds, heads = stretches(table["q"].combine_chunks())
    starts = bounds.tolist()
    docs, values = table["d"].to_pylist(), grades.to_pylist()
    qrels: dict[str, dict[str, int]] = {}
    for q, a, b in zip(heads, starts, starts[1:], strict=False):
        qrels.setdefault(q, {}).update(zip(docs[a:b], values[a:b], strict=True))
    if sum(map(len, qrels.values())) != table.num_rows:
        raise Bad  # a document twice for one query
    return qrels


def check_line(path: str | Path, line: bytes, number: int) -> tuple[list[bytes], float] | None:
    """The columns and score of one run line (None for a blank or comment line), or its
    RunFileError. As trec_eval reads a run: a line whose first non-blank character is ``#`` is
    a comment, and columns after the sixth (the run tag) are ignored."""
    if len(line) > MAX_LINE_BYTES:
        raise RunFileError(path, line_too_long(len(line)), number)
    parts = line.split()
    if not parts or parts[0].startswith(b"#"):
        return None
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunFileError(
            path, f"expected UTF-8 text, found byte 0x{line[exc.start]:02x}", number
        ) from None
    if len(parts) < 6:
        raise RunFileError(path, f"expected 6 columns, found {len(parts)}", number)
    parts = parts[:6]
    for column, part in enumerate(parts, start=1):
        if b"\0" in part:
            found = part.decode("utf-8")
            raise RunFileError(
                path, f"expected column {column} without NUL bytes, found {shown(found)}", number
            )
    for column, kind in ((0, "query"), (2, "document")):
        problem = id_problem(parts[column].decode("utf-8"), kind)
        if problem is not None:
            raise RunFileError(path, problem, number)
    text = parts[4].decode("utf-8")
    if not NUMBER.fullmatch(parts[4]):
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise RunFileError(
                path, f"expected a finite score in column 5, found {shown(text)}", number
            )
        raise RunFileError(
            path, f"expected a numeric score in column 5, found {shown(text)}", number
        )
    score = float(parts[4])
    if not math.isfinite(score):
        raise RunFileError(
            path, f"expected a finite score in column 5, found {shown(text)}", number
        )
    return parts, score


def duplicate(path: str | Path, doc: bytes, number: int) -> RunFileError:
    """The error for a document a run lists twice for one question, at its line."""
    text = doc.decode("utf-8")
    return RunFileError(
        path, f"expected each document once per query, found {shown(text)} again", number
    )


def slow_columns(path: str | Path) -> Columns:
    """Line by line: the first bad line as a :class:`RunFileError`, or the columns."""
    with open(path, "rb") as handle:
        raw = handle.read()
    # CR-only and CRLF line ends are line ends too (a CR-only file read at LF alone is one line)
    raw = raw.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    seen: dict[bytes, dict[bytes, float]] = {}
    alike: tuple[dict[str, tuple[str, int]], ...] = ({}, {})  # query ids, document ids
    tag = b""
    start, number = 0, 0
    while start < len(raw):
        stop = raw.find(b"\n", start)
        stop = len(raw) if stop < 0 else stop
        line, start, number = raw[start:stop], stop + 1, number + 1
        checked = check_line(path, line, number)
        if checked is None:
            continue
        parts, score = checked
        for column, kind, ids in ((0, "query", alike[0]), (2, "document", alike[1])):
            value = parts[column].decode("utf-8")
            earlier = alike_earlier(value, number, ids)
            if earlier is not None:
                raise RunFileError(path, alike_problem(kind, value, *earlier), number)
        docs = seen.setdefault(parts[0], {})
        if parts[2] in docs:
            raise duplicate(path, parts[2], number)
        docs[parts[2]] = score
        tag = tag or parts[5]
    if not seen:
        found = "an empty file" if not raw.strip() else "only blank and comment lines"
        raise RunFileError(path, f"expected lines {_RUN_FORM}, found {found}")
    qids = sorted(seen)
    index = {q: i for i, q in enumerate(qids)}
    codes = np.repeat(
        np.array([index[q] for q in seen], dtype=np.int64), [len(d) for d in seen.values()]
    )
    all_docs = [d for q in seen.values() for d in q]
    scores = np.array([s for q in seen.values() for s in q.values()], dtype=np.float64)
    width = -(-max(map(len, all_docs)) // 8) * 8
    return qids, codes, np.array(all_docs, dtype=f"S{width}"), scores, tag, None
