"""A run's arrays from pyarrow's parsed blocks: each group of blocks becomes a :class:`Part`
(scores, stretches of equal query ids, fixed-width document ids and the lines' keys) and the parts
of a run join into its columns (:func:`join_parts`). Anything the fast path cannot take raises
:class:`Bad`, and the caller's line-by-line reader names the line.
"""

from __future__ import annotations

import io
import itertools
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evidencedesk.files.arrow import pa, pacsv, pc
from evidencedesk.files.limits import MAX_LINE_BYTES
from evidencedesk.files.trec_keys import (
    doc_hashes,
    fixed_width,
    line_keys,
    offsets_of,
    query_salts,
)

__all__ = [
    "Bad",
    "Columns",
    "Part",
    "block_part",
    "join_parts",
    "plain_ids",
    "read_parts",
    "read_range",
    "stretches",
    "table_columns",
]

# a run with more stretches of equal query ids than this (and than one per 64 lines) is joined in
# file order
_STRETCHES = 4096
_GROUP = 16  # record batches (of up to MAX_LINE_BYTES of text each) turned into arrays at once

# qids (sorted bytes), the query code of every line, doc ids (fixed-width bytes), scores, tag,
# and the lines' (query, document) `line_keys` (None: not computed yet)
Columns = tuple[list[bytes], np.ndarray, np.ndarray, np.ndarray, bytes, np.ndarray | None]


class Bad(Exception):
    """The fast path cannot take this file; the slow reader names the line or reads it."""


@dataclass(frozen=True, eq=False)
class Part:
    """The arrays of consecutive lines of a run, in file order."""

    heads: list[bytes]  # the query id of each stretch of lines with equal ids
    lengths: np.ndarray  # each stretch's number of lines
    docs: np.ndarray  # fixed-width document ids
    keys: np.ndarray  # each line's (query, document) key: `line_keys`, its query's own salt
    scores: np.ndarray
    longest: int  # the longest query id plus the document ids' width, in bytes


def block_part(table: pa.Table) -> Part:
    """A parsed block's arrays; raises :class:`Bad` on a non-finite score.

    A run holds each query's lines together, so only the first id of each stretch of equal ids
    is kept (a comparison of neighbours, not a hash of every line); a run whose queries come
    back later just has more stretches.
    """
    scores = table["s"].to_numpy()
    if not np.isfinite(scores).all():
        raise Bad
    queries, ids = table["q"].combine_chunks(), table["d"].combine_chunks()
    if not (plain_ids(queries) and plain_ids(ids)):
        raise Bad  # the line reader names the line
    bounds, heads = stretches(queries)  # heads: bytes
    docs = fixed_width(ids)
    longest = int(pc.max(pc.binary_length(queries)).as_py()) + docs.dtype.itemsize
    lengths = np.diff(bounds)
    # the keys here, in the reading thread: a query's salt comes from its own id
    keys = line_keys(lengths, doc_hashes(docs), query_salts(heads))
    return Part(heads, lengths, docs, keys, scores, longest)


def stretches(ids: pa.Array) -> tuple[np.ndarray, list[Any]]:
    """Where each stretch of equal neighbouring ids starts (and, last, the array's length) and
    each stretch's id: a comparison of neighbours, not a hash of every line."""
    n = len(ids)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    starts = np.r_[0, np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1]
    return np.r_[starts, n], ids.take(pa.array(starts)).to_pylist()


# white space and control characters beyond ASCII (str.isspace's and category Cc), which the
# line reader refuses in an id (`trec_keys.id_problem`)
_ODD_CHARS = (
    r"[\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\p{Cc}]"
)


def plain_ids(ids: pa.Array) -> bool:
    """Whether binary (or text) ids are UTF-8 text without white space or control characters beyond
    ASCII (the byte checks of `_Range` refuse the ASCII ones): at once when every byte is
    ASCII (a numpy pass over the bytes), else by Arrow's own check (a cast to text)."""
    offsets = offsets_of(ids)
    data = ids.buffers()[2]
    if data is None or offsets[-1] == offsets[0]:
        return True
    if np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]].max() < 0x80:
        return True
    try:
        text = ids.cast(pa.string())
    except pa.ArrowInvalid:
        return False
    return not pc.any(pc.match_substring_regex(text, _ODD_CHARS)).as_py()


def join_parts(parts: list[Part], tag: bytes) -> Columns:
    """The columns of a run from its parts, grouped by query when that is cheap; raises
    :class:`Bad` when it has no line or a line may be over the limit (pyarrow's block bounds
    lines only roughly: measure).

    A run holds each query's lines in a few stretches, so its parts are joined stretch by
    stretch in query order (stable: a query's stretches keep file order) -- the copy that joins
    the parts also groups the lines, instead of a second gather of every column. A run whose
    queries change on most lines is joined in file order and grouped by the caller.
    """
    parts = [p for p in parts if p.scores.size]
    if not parts or max(p.longest for p in parts) > MAX_LINE_BYTES - 16:
        raise Bad
    heads = [h for p in parts for h in p.heads]
    qids = sorted(set(heads))  # byte order, as trec_eval sorts
    index = {q: i for i, q in enumerate(qids)}
    stretch = np.fromiter((index[q] for q in heads), dtype=np.int64, count=len(heads))
    lengths = np.concatenate([p.lengths for p in parts])
    n_lines = int(lengths.sum())
    columns = ("docs", "keys", "scores")
    if len(heads) > max(_STRETCHES, n_lines // 64) or bool(np.all(stretch[1:] >= stretch[:-1])):
        codes = np.repeat(stretch, lengths)  # numpy widens ids to the widest part's
        docs, keys, scores = (np.concatenate([getattr(p, c) for p in parts]) for c in columns)
        return qids, codes, docs, scores, tag, keys
    owner = np.repeat(np.arange(len(parts)), [len(p.heads) for p in parts]).tolist()
    ends = np.concatenate([np.cumsum(p.lengths) for p in parts]).tolist()
    order = np.argsort(stretch, kind="stable").tolist()
    spans = [(parts[owner[i]], ends[i] - int(lengths[i]), ends[i]) for i in order]
    docs, keys, scores = (
        np.concatenate([getattr(p, c)[a:b] for p, a, b in spans]) for c in columns
    )
    codes = np.repeat(stretch[order], lengths[order])
    return qids, codes, docs, scores, tag, keys


def table_columns(table: pa.Table, tag: bytes) -> Columns:
    """Columns of a parsed table; raises :class:`Bad` on an empty table or a non-finite score."""
    if table.num_rows == 0:
        raise Bad
    return join_parts([block_part(table)], tag)


def _groups(reader: pacsv.CSVStreamingReader) -> Iterator[pa.Table]:
    """The parsed blocks, `_GROUP` at a time (the last group may be smaller)."""
    group: list[pa.RecordBatch] = []
    for batch in itertools.chain(reader, [None]):
        if batch is not None:
            group.append(batch)
        if group and (batch is None or len(group) == _GROUP):
            yield pa.Table.from_batches(group)
            group = []


def read_parts(reader: pacsv.CSVStreamingReader) -> list[Part]:
    """The parsed blocks as :class:`Part` s: pyarrow parses the next blocks (without the GIL)
    while a worker thread turns the last ones into arrays; at most two groups wait for it."""
    done: list[Part] = []
    waiting: deque[Future[Part]] = deque()
    with ThreadPoolExecutor(max_workers=1) as worker:
        for table in _groups(reader):
            waiting.append(worker.submit(block_part, table))
            while len(waiting) > 2 or (waiting and waiting[0].done()):
                done.append(waiting.popleft().result())  # raises the worker's Bad
        done.extend(f.result() for f in waiting)
    return done


_CR, _LF, _TAB, _SPACE = 13, 10, 9, 32


# the control bytes a run or qrels file may not hold: \v and \f (white space pyarrow does not
# split at) and every other one but \t, \n and \r (an id may not hold one:
# `trec_keys.id_problem`)
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[:32] = True
_CONTROL[[_TAB, _LF, _CR]] = False
_CONTROL[127] = True
# per delimiter, every byte `odd_space` or the NUL check may object to: a control byte, the other
# of tab and space, a carriage return; a block holding none of them (nearly every block) is
# passed in one table look-up a byte
_SUSPECT = {
    delimiter: _CONTROL
    | (np.arange(256) == (_TAB if delimiter == _SPACE else _SPACE))
    | (np.arange(256) == _CR)
    for delimiter in (_SPACE, _TAB)
}


def odd_space(data: np.ndarray, delimiter: int) -> bool:
    """Whether these bytes hold white space that the line reader (and trec_eval, which split
    a line at any white space) would read differently from pyarrow, which splits only at
    `delimiter`: a vertical tab, a form feed, a carriage return not ending a line, or the
    other of tab and space; or a control byte, which no id may hold (`_CONTROL`)."""
    if _CONTROL[data].any():  # one table look-up per byte
        return True
    if (data == (_TAB if delimiter == _SPACE else _SPACE)).any():
        return True
    cr = data == _CR
    if not cr.any():
        return False
    # CRLF files read alike (the line reader strips the \r); a \r anywhere else does not
    return bool(cr[-1] or np.count_nonzero(cr[:-1] & (data[1:] == _LF)) != np.count_nonzero(cr))


class _Range(io.RawIOBase):
    """Bytes `start` to `stop` of a file, read as a file of their own (not a memory map, whose
    pages would count in the process's memory once read, and fault in one by one).

    Every byte read is checked for NUL (numpy's fixed-width ids would drop a trailing one) and
    for white space pyarrow and the line reader would split differently (`odd_space`): on the
    first, the range ends early and `refused` is set, and the caller sends the file to the
    line-by-line reader -- the check rides along the read, in each range's thread, instead of
    a pass of its own over the file.
    """

    def __init__(self, path: str | Path, start: int, stop: int, delimiter: int) -> None:
        super().__init__()
        self._file = open(path, "rb")  # noqa: SIM115 -- closed with the range
        self._file.seek(start)
        self._left = stop - start
        self._delimiter = delimiter
        self.refused = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = min(len(buffer), self._left)
        got = (self._file.readinto(memoryview(buffer)[:size]) or 0) if size > 0 else 0
        if got:
            data = np.frombuffer(buffer, dtype=np.uint8, count=got)
            suspect = _SUSPECT.get(self._delimiter)
            if (suspect is None or suspect[data].any()) and (
                not data.all() or odd_space(data, self._delimiter)
            ):
                self.refused, self._left = True, 0
                return 0
        self._left -= got
        return got

    def close(self) -> None:
        self._file.close()
        super().close()


def read_range(
    path: str | Path, start: int, stop: int, options: dict[str, Any], worker: bool = False
) -> list[Part]:
    """One byte range's parts, parsed and turned into arrays in the calling thread (or, with
    `worker`, in a worker thread while this one parses: :func:`read_parts`); raises
    :class:`Bad` when the range holds a NUL byte or odd white space (`odd_space`)."""
    delimiter = ord(options["parse_options"].delimiter)
    with (
        _Range(path, start, stop, delimiter) as raw,
        pacsv.open_csv(pa.PythonFile(raw, "r"), **options) as reader,
    ):
        done = read_parts(reader) if worker else [block_part(t) for t in _groups(reader)]
    if raw.refused:
        raise Bad
    return done
