"""Reading a TREC run into arrays: pyarrow's CSV reader first, a line-by-line reader second.

The fast path hands the file to ``pyarrow.csv`` (single-space or single-tab separated, as search
engines write runs) and keeps three typed columns. Anything it does not accept -- a parse error,
mixed whitespace, a missing or non-finite score, a line longer than its block (the per-line
limit), a duplicate document -- sends the file to :func:`slow_columns`, which reads it line by
line and either names the first bad line (``file:line: expected ..., found ...``) or returns the
same columns for an unusual but valid file.
"""

from __future__ import annotations

import math
import mmap
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from evidencedesk.errors import RunFileError
from evidencedesk.limits import MAX_LINE_BYTES, line_too_long

__all__ = [
    "Bad",
    "Columns",
    "arrow_options",
    "check_line",
    "doc_hashes",
    "fast_columns",
    "fast_qrels",
    "fixed_width",
    "has_duplicates",
    "key_hashes",
    "line_keys",
    "slow_columns",
    "table_columns",
]

RUN_FORM = "'qid Q0 docid rank score tag'"
# ASCII only: Python's float() also takes full-width and Arabic-Indic digits and "1_0"
_NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_M = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))

# qids (sorted bytes), the query code of every line, doc ids (fixed-width bytes), scores, tag
Columns = tuple[list[bytes], np.ndarray, np.ndarray, np.ndarray, bytes]


class Bad(Exception):
    """The fast path cannot take this file; the slow reader names the line or reads it."""


_TAIL = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [2**64 - 1], dtype=np.uint64)


def fixed_width(arr: pa.Array) -> np.ndarray:
    """An Arrow string array as a numpy fixed-width bytes array, without a Python loop.

    The width is rounded up to whole 8-byte words: each word is one unaligned 8-byte load per
    string from its bytes, cut at the string's end, so that :func:`doc_words` is a plain view.
    """
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype="S8")
    kind = np.int64 if arr.type == pa.large_string() else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=kind)[arr.offset : arr.offset + n + 1]
    lens = np.diff(offsets)
    words = -(-max(1, int(lens.max())) // 8)
    first, last = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(last - first + 8 * words + 8, dtype=np.uint8)  # loads past the end read 0
    if last > first:
        padded[: last - first] = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[first:last]
    load = np.ndarray((padded.size - 7,), dtype=np.uint64, buffer=padded, strides=(1,))
    starts = offsets[:-1].astype(np.int64) - first
    out = np.empty((n, words), dtype=np.uint64)
    for c in range(words):
        word = load[starts + 8 * c]
        word &= _TAIL[np.clip(lens - 8 * c, 0, 8)]
        out[:, c] = word
    return out.view(f"S{8 * words}").ravel()


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
        if handle.seek(0, 2) == 0:
            raise Bad
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            if mm.find(b"\0") >= 0:  # numpy's fixed-width bytes would drop a trailing NUL
                raise Bad
            first = _first_line(mm)
    parts = first.split()
    if len(parts) != 6:
        raise Bad
    delimiter = "\t" if b"\t" in first and b" " not in first.strip() else " "
    try:
        table = pacsv.read_csv(path, **arrow_options(delimiter, MAX_LINE_BYTES))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Bad from None
    return table_columns(table, parts[5])


def arrow_options(delimiter: str, block_size: int) -> dict[str, object]:
    """pyarrow CSV options for a run: three typed columns, no quoting, no null markers.

    A line longer than `block_size` is an Arrow error, which sends the file to the slow path.
    """
    return {
        "read_options": pacsv.ReadOptions(column_names=list("qzdrst"), block_size=block_size),
        "parse_options": pacsv.ParseOptions(
            delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False
        ),
        "convert_options": pacsv.ConvertOptions(
            include_columns=["q", "d", "s"],
            column_types={"q": pa.string(), "d": pa.string(), "s": pa.float64()},
            null_values=[],
            strings_can_be_null=False,
        ),
    }


def table_columns(table: pa.Table, tag: bytes) -> Columns:
    """Columns of a parsed table; raises :class:`Bad` on an empty table or a non-finite score."""
    if table.num_rows == 0:
        raise Bad
    scores = table["s"].to_numpy()
    if not np.isfinite(scores).all():
        raise Bad
    qids, codes = _query_codes(table["q"].combine_chunks())
    docs = fixed_width(table["d"].combine_chunks())
    longest = int(pc.max(pc.binary_length(table["q"])).as_py()) + docs.dtype.itemsize
    if longest > MAX_LINE_BYTES - 16:  # pyarrow's block bounds lines only roughly: measure
        raise Bad
    return qids, codes, docs, scores, tag


def _query_codes(queries: pa.Array) -> tuple[list[bytes], np.ndarray]:
    """The distinct query ids in byte order (as trec_eval sorts) and each line's index into them.

    A run holds each query's lines together, so only the first line of each stretch of equal
    ids is looked up (a comparison of neighbours, not a hash of every line); a run whose queries
    come back later just has more stretches.
    """
    n = len(queries)
    change = pc.not_equal(queries.slice(1), queries.slice(0, n - 1))
    starts = np.r_[0, np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1]
    heads = [q.encode("utf-8") for q in queries.take(pa.array(starts)).to_pylist()]
    qids = sorted(set(heads))
    index = {q: i for i, q in enumerate(qids)}
    stretch = np.fromiter((index[q] for q in heads), dtype=np.int64, count=len(heads))
    return qids, np.repeat(stretch, np.diff(np.r_[starts, n]))


def fast_qrels(path: str | Path, low: int, high: int) -> dict[str, dict[str, int]]:
    """Qrels through pyarrow (grades ``-?[0-9]{1,3}`` within [low, high], each document once per
    query); raises :class:`Bad` for anything else, and the caller's line loop names it."""
    with open(path, "rb") as handle:
        if handle.seek(0, 2) == 0:
            raise Bad
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            if mm.find(b"\0") >= 0:
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
    ):
        raise Bad
    length = pc.add(pc.add(pc.utf8_length(table["q"]), pc.utf8_length(table["z"])), 3)
    length = pc.add(pc.add(length, pc.binary_length(table["d"])), pc.binary_length(table["g"]))
    if pc.max(length).as_py() > MAX_LINE_BYTES // 4:  # maybe over the line limit: measure it
        raise Bad
    grades = pc.cast(table["g"], pa.int64())
    if pc.min(grades).as_py() < low or pc.max(grades).as_py() > high:
        raise Bad
    qrels: dict[str, dict[str, int]] = {}
    rows = 0
    for q, d, g in zip(
        table["q"].to_pylist(), table["d"].to_pylist(), grades.to_pylist(), strict=True
    ):
        qrels.setdefault(q, {})[d] = g
        rows += 1
    if sum(map(len, qrels.values())) != rows:
        raise Bad  # a document twice for one query
    return qrels


def check_line(path: str | Path, line: bytes, number: int) -> tuple[list[bytes], float] | None:
    """The columns and score of one run line (None for a blank line), or its RunFileError."""
    if len(line) > MAX_LINE_BYTES:
        raise RunFileError(path, line_too_long(len(line)), number)
    parts = line.split()
    if not parts:
        return None
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunFileError(
            path, f"expected UTF-8 text, found byte 0x{line[exc.start]:02x}", number
        ) from None
    if len(parts) != 6:
        raise RunFileError(path, f"expected 6 columns, found {len(parts)}", number)
    for column, part in enumerate(parts, start=1):
        if b"\0" in part:
            found = part.decode("utf-8")
            raise RunFileError(
                path, f"expected column {column} without NUL bytes, found {found!r}", number
            )
    text = parts[4].decode("utf-8")
    if not _NUMBER.fullmatch(parts[4]):
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise RunFileError(path, f"expected a finite score in column 5, found {text!r}", number)
        raise RunFileError(path, f"expected a numeric score in column 5, found {text!r}", number)
    score = float(parts[4])
    if not math.isfinite(score):
        raise RunFileError(path, f"expected a finite score in column 5, found {text!r}", number)
    return parts, score


def duplicate(path: str | Path, doc: bytes, number: int) -> RunFileError:
    text = doc.decode("utf-8")
    return RunFileError(
        path, f"expected each document once per query, found {text!r} again", number
    )


def slow_columns(path: str | Path) -> Columns:
    """Line by line: the first bad line as a :class:`RunFileError`, or the columns."""
    with open(path, "rb") as handle:
        raw = handle.read()
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    seen: dict[bytes, dict[bytes, float]] = {}
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
        docs = seen.setdefault(parts[0], {})
        if parts[2] in docs:
            raise duplicate(path, parts[2], number)
        docs[parts[2]] = score
        tag = tag or parts[5]
    if not seen:
        raise RunFileError(path, f"expected lines {RUN_FORM}, found an empty file")
    qids = sorted(seen)
    index = {q: i for i, q in enumerate(qids)}
    codes = np.repeat(
        np.array([index[q] for q in seen], dtype=np.int64), [len(d) for d in seen.values()]
    )
    all_docs = [d for q in seen.values() for d in q]
    scores = np.array([s for q in seen.values() for s in q.values()], dtype=np.float64)
    width = -(-max(map(len, all_docs)) // 8) * 8
    return qids, codes, np.array(all_docs, dtype=f"S{width}"), scores, tag


def doc_words(docs: np.ndarray) -> np.ndarray:
    """Byte strings as (n, words) uint64 words in native byte order, zero padded."""
    size = docs.dtype.itemsize
    width = -(-size // 8)
    docs = np.ascontiguousarray(docs)
    if size == width * 8:
        return docs.view(np.uint64).reshape(docs.size, width)
    mat = np.zeros((docs.size, width * 8), dtype=np.uint8)
    mat[:, :size] = docs.view(np.uint8).reshape(docs.size, size)
    return mat.view(np.uint64)


def _mix(h: np.ndarray) -> np.ndarray:
    h ^= h >> np.uint64(30)
    h *= _M[1]
    h ^= h >> np.uint64(27)
    h *= _M[2]
    h ^= h >> np.uint64(31)
    return h


def doc_hashes(docs: np.ndarray) -> np.ndarray:
    """A 64-bit hash of every document id (splitmix64 steps over its 8-byte words).

    The zero words that pad an id to the array's width are skipped (an id has no NUL byte, so
    only padding is zero): an id hashes alike in arrays of any width.
    """
    words = doc_words(docs)
    h = np.full(docs.size, _M[0], dtype=np.uint64)
    for c in range(words.shape[1]):
        if c == 0:
            h = _mix(h ^ words[:, 0])
        else:
            h = np.where(words[:, c] != 0, _mix(h ^ words[:, c]), h)
    return h


def key_hashes(group: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (group, document): the document's hash xor a salt of the group (a
    splitmix64 of its number); equal keys, equal hashes."""
    return doc_hash ^ _mix((group.astype(np.uint64) + np.uint64(1)) * _M[0])


def line_keys(counts: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """`key_hashes` of lines grouped by query (query ``i`` owns the next ``counts[i]`` lines),
    one salt per query repeated rather than one mix per line."""
    salts = key_hashes(np.arange(counts.size), np.zeros(counts.size, dtype=np.uint64))
    return doc_hash ^ np.repeat(salts, counts)


def has_duplicates(group: np.ndarray, docs: np.ndarray, keys: np.ndarray) -> bool:
    """Whether some (group, doc) key occurs twice (`keys`: their `key_hashes`; sort, then confirm
    equal neighbours on the ids)."""
    hs = np.sort(keys)
    same = hs[1:] == hs[:-1]
    if not same.any():
        return False
    suspects = np.flatnonzero(np.isin(keys, hs[1:][same]))
    pairs = list(zip(group[suspects].tolist(), docs[suspects].tolist(), strict=True))
    return len(set(pairs)) < len(pairs)  # a true duplicate, not a hash collision
