"""Reading a TREC run into arrays: a one-pass scan in C or pyarrow's CSV reader first, a
line-by-line reader second.

The fast path reads the file in windows read into buffers (`_read_window`); a run of
`_MIN_RANGE` bytes or more in byte ranges cut at newlines, one thread each. Each window is
offered to the compiled scan (`files._trec_scan`), which takes the plain lines nearly every run
holds; a window it declines (or every window, where it is not built) is checked
(`_check_window`) and parsed by pyarrow's streaming CSV reader (single-space or single-tab
separated, as search engines write runs), five of its six columns, in blocks of half the line
limit, and the blocks turn into arrays below. Anything the fast path does not accept -- a parse
error, mixed whitespace, a missing or non-finite score, a line longer than its block (the
per-line limit), a duplicate document -- sends the file to :func:`slow_columns`, which reads it
line by line and either names the first bad line (``file:line: expected ..., found ...``) or
returns the same columns for an unusual but valid file.

A run's arrays from the scanned windows or pyarrow's parsed blocks: each becomes a :class:`Part`
(scores, stretches of equal query ids, fixed-width document ids and the lines' keys) and the parts
of a run join into its columns (:func:`join_parts`). A run of several ranges is first offered to
the scan whole (`_placed`): each range's lines counted, then scanned straight into their rows of
the run's columns, its parts views of them, nothing copied to join them. Anything the fast path
cannot take raises :class:`Bad`, and the caller's line-by-line reader names the line.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
import mmap
import os
import re
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evidencedesk._inert import shell_command
from evidencedesk.errors import RunFileError
from evidencedesk.files._text import (
    FORMULA_STARTS,
    MAX_LINE_BYTES,
    LongestId,
    line_too_long,
    padded_fits,
    padded_room,
    shown,
)
from evidencedesk.files._trec_keys import (
    POOL,
    CastOptions,
    MatchSubstringOptions,
    alike_earlier,
    alike_problem,
    confirmed,
    doc_hashes,
    fixed_width,
    flags_of,
    has_alike,
    has_duplicates,
    id_problem,
    indices_of,
    joined,
    kernel,
    line_keys,
    longest_of,
    numbers_of,
    offsets_of,
    pa,
    pacsv,
    plain_concatenate,
    plain_empty,
    query_salts,
    repeated_keys,
)
from evidencedesk.files._trec_scan import (
    Place,
    Scanned,
    WiderThanPlace,
    compiled,
    count_lines,
    count_stretches,
    repeats_within,
    scan,
)

# a run with more stretches of equal query ids than this (and than one per 64 lines) is joined in
# file order
_STRETCHES = 4096


_GROUP = 16  # record batches (of up to MAX_LINE_BYTES of text each) turned into arrays at once


@dataclass(frozen=True, eq=False)
class Stretches:
    """The query code of every line as stretches of equal codes: each stretch's code and number
    of lines, which is what `join_parts` knows. A run whose lines are in trec_eval's order
    already needs no code per line (`in_order_counts`): writing 50 million codes, and reading
    them again to check the order, was a tenth of joining a 50,000-question run."""

    codes: np.ndarray  # each stretch's query code (int32)
    lengths: np.ndarray  # its number of lines

    @classmethod
    def of(cls, qcode: np.ndarray) -> Stretches:
        """The stretches of a query code per line (the line reader's)."""
        change = np.flatnonzero(qcode[1:] != qcode[:-1]) + 1
        starts = np.r_[0, change] if qcode.size else change
        return cls(qcode[starts], np.diff(np.r_[starts, qcode.size]))

    def lines(self) -> np.ndarray:
        """Every line's query code."""
        return np.repeat(self.codes, self.lengths)

    def __len__(self) -> int:
        return int(self.lengths.sum())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        lines = self.lines()
        return lines if dtype is None else lines.astype(dtype)

    def in_order_counts(
        self, scores: np.ndarray, n_queries: int, docs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Each query's number of lines, and the upper line of each pair of tied neighbours
        whose documents are out of order, when every line is in trec_eval's order but for
        those (each next line starts a later query, or is of the same query with a lower
        score, or with an equal score: `block_part` has put each part's ties in order, and a
        tie across two parts may be left); None when a line is out of order otherwise.

        A million scores compared at a time; the places where a score does not fall must all
        be where a later query starts, or ties. Nothing of the run's length is made: a run with
        a tie used to fall back to a code per line and a sort's checks, arrays of the run's
        length that cost a 10-million-line run as much as its join."""
        codes, lengths = self.codes, self.lengths
        if bool(np.any(codes[1:] < codes[:-1])):
            return None
        # the pairs of neighbouring lines (numbered by the upper line) where a later query starts
        free = (np.cumsum(lengths) - 1)[:-1][codes[1:] > codes[:-1]]
        wrong = [np.zeros(0, dtype=np.intp)]
        for at in range(0, scores.size - 1, _CHUNK):
            s = scores[at : at + _CHUNK + 1]
            rise = np.flatnonzero(~(s[1:] < s[:-1])) + at
            if rise.size and free.size:
                place = np.minimum(np.searchsorted(free, rise), free.size - 1)
                rise = rise[free[place] != rise]  # within one query
            if rise.size:
                if not bool(np.all(scores[rise] == scores[rise + 1])):
                    return None
                wrong.append(rise[~(docs[rise] > docs[rise + 1])])
        counts = np.zeros(n_queries, dtype=np.int64)
        np.add.at(counts, codes, lengths)
        return counts, np.concatenate(wrong)


_CHUNK = 1 << 20  # scores `Stretches.in_order_counts` compares at a time (in a core's cache)


# qids (sorted bytes), the query code of every line (or its `Stretches`), doc ids (fixed-width
# bytes), scores, tag, and the lines' (query, document) `line_keys` (None: not computed yet)
Columns = tuple[
    list[bytes], np.ndarray | Stretches, np.ndarray, np.ndarray, bytes, np.ndarray | None
]


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
    repeats: bool  # a key occurs twice among these lines (a duplicate, or a hash collision)

    @property
    def lines(self) -> int:
        return int(self.lengths.sum())


def _empty_column(table: pa.Table, names: str) -> bool:
    """Whether a parsed run's or qrels' column among `names` (the second; a run's fourth, its
    rank, too) is empty on some line: two delimiters in a row, where the line reader (and
    trec_eval) split once and read that line's columns otherwise (an empty id is `plain_ids`' to
    refuse, an empty score or grade fails its parse)."""
    if table.num_rows == 0:
        return False
    return any(int(kernel("min", kernel("binary_length", table[name])).as_py()) == 0
               for name in names)  # fmt: skip


def block_part(table: pa.Table) -> Part:
    """A parsed block's arrays; raises :class:`Bad` on a non-finite score.

    A run holds each query's lines together, so only the first id of each stretch of equal ids
    is kept (a comparison of neighbours, not a hash of every line); a run whose queries come
    back later just has more stretches.
    """
    scores = numbers_of(table["s"], np.float64)
    if scores is None or not np.isfinite(scores).all():
        raise Bad
    # "q1  Q0 d1 1 2.5", its tag missing, would be read as document Q0 with score 1, and
    # "q1 Q0 d1  2.5 t" as a line with its rank; the line reader names both ("expected 6
    # columns, found 5")
    if _empty_column(table, "zr"):
        raise Bad
    queries, ids = joined(table["q"]), joined(table["d"])
    bounds, first = _stretch_heads(queries)
    # every line's query id is its stretch's first line's: the ids are checked and measured
    # there, once a stretch (a pass over every line's query id was a fifth of this function)
    if not (plain_ids(first) and plain_ids(ids)):
        raise Bad  # the line reader names the line
    heads: list[bytes] = first.to_pylist()
    longest = longest_of(ids)
    if not padded_fits(len(ids), longest, 0):
        raise Bad  # one id far longer than the rest: the line reader weighs the whole file
    docs = fixed_width(ids, longest)
    widest_query = longest_of(first)
    return _part(heads, np.diff(bounds), docs, doc_hashes(docs), scores, widest_query)


def _part_of(lines: pa.Table | Scanned) -> Part:
    """The arrays of a parsed group of blocks (`block_part`) or of a window the compiled scan
    read (`files._trec_scan`: the same arrays `block_part` makes of pyarrow's parse of it)."""
    if not isinstance(lines, Scanned):
        return block_part(lines)
    return _part(lines.heads, lines.lengths, lines.docs, lines.hashes, lines.scores,
                 lines.widest_query)  # fmt: skip


def _part(
    heads: list[bytes],
    lengths: np.ndarray,
    docs: np.ndarray,
    hashes: np.ndarray,
    scores: np.ndarray,
    widest_query: int,
) -> Part:
    """A part from its lines' stretches, fixed-width ids, their hashes and scores."""
    longest = widest_query + docs.dtype.itemsize
    # the keys here, in the reading thread: a query's salt comes from its own id
    keys = line_keys(lengths, hashes, query_salts(heads))
    # the documents of tied scores in trec_eval's order, here in the reading thread: the run's
    # own pass (`trec._sorted_run`) then finds nearly every tie in order (those across two
    # parts, or brought together by its sort by score, it puts right itself)
    fix = _tie_order(np.repeat(np.arange(lengths.size), lengths), scores, docs)
    if fix is not None:  # within one query: a line's key moves with its document
        at, source = fix
        docs[at], keys[at] = docs[source], keys[source]
    # and the duplicate check of these lines, also in this thread (`join_parts` checks only
    # the queries whose lines are in more than one part)
    return Part(heads, lengths, docs, keys, scores, longest, _repeats(heads, lengths, keys))


def _repeats(heads: list[bytes], lengths: np.ndarray, keys: np.ndarray) -> bool:
    """Whether a key occurs twice among a part's lines, where a document listed twice for one
    query is: within a stretch when each query has one (`trec_scan.repeats_within`), else
    among all of them (a key shared by two queries is a hash collision, no duplicate)."""
    if len(set(heads)) == len(heads):
        within = repeats_within(keys, lengths)
        if within is not None:
            return within
    return repeated_keys(keys).size > 0


def _desc_keys(docs: np.ndarray) -> tuple[np.ndarray, ...]:
    """np.lexsort keys (least significant first) that sort ascending where the ids sort
    descending: the ids' zero-padded 8-byte words, big-endian, complemented (bytes compare as
    their words do); other widths by rank."""
    width = docs.dtype.itemsize
    if docs.dtype.kind != "S" or width % 8:
        _, inverse = np.unique(docs, return_inverse=True)
        return (-inverse.ravel(),)
    words = np.ascontiguousarray(docs).view(">u8").reshape(docs.size, width // 8)
    return tuple(~words[:, w].astype(np.uint64) for w in range(width // 8 - 1, -1, -1))


def _tie_order(
    qcode: np.ndarray, scores: np.ndarray, docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Where lines of tied scores must take other lines' documents (doc id descending within a
    query's tie), as (positions, the lines they take); None when every tie is in order.

    Only the lines of ties move, and within a tie the query and score are the same: only the
    document columns change. Most ties are of two lines (two-decimal scores): a pair is swapped
    where its ids are in the wrong order, and only ties of three lines or more are sorted (a
    sort of every tied line took most of the time of reading a run of shuffled ties), and of
    those only the ties out of order (a run whose parts put their own ties in order leaves a
    few, across two parts).
    """
    ties = (qcode[1:] == qcode[:-1]) & (scores[:-1] == scores[1:])
    upper = np.flatnonzero(ties)  # the upper line of each pair of tied neighbours
    wrong = upper[~(docs[upper] > docs[upper + 1])]
    if not wrong.size:
        return None
    follows = np.zeros(qcode.size, dtype=bool)  # the line ties with the line above
    follows[1:] = ties
    in_tie = follows.copy()
    in_tie[:-1] |= ties
    idx = np.flatnonzero(in_tie)
    first = ~follows[idx]  # the first line of each tie
    starts = np.flatnonzero(first)
    sizes = np.diff(np.r_[starts, idx.size])
    pair = idx[starts[sizes == 2]]  # the upper line of each two-line tie
    swap = pair[docs[pair] < docs[pair + 1]]
    tie = np.cumsum(first)  # each tied line's tie, from 1
    unsorted = np.zeros(starts.size + 1, dtype=bool)
    unsorted[tie[np.searchsorted(idx, wrong)]] = True
    # the lines of ties of three lines or more, out of order
    larger = np.repeat(sizes > 2, sizes) & unsorted[tie]
    lines, tie = idx[larger], tie[larger]
    ordered = lines[_tie_sort(docs[lines], tie)]
    return np.r_[swap, swap + 1, lines], np.r_[swap + 1, swap, ordered]


def _tie_sort(docs: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """The order of lines by tie (ascending) and, within one, document id descending.

    One argsort of a 64-bit key per line -- the tie's number in the top bits, the id's first
    word (complemented) in the rest -- and a lexsort of the whole ids only among the lines whose
    keys come out equal: a lexsort of every line on the tie and each word of its id took three
    times as long (a million tied lines of 16-byte ids: 0.35 s against 0.1 s)."""
    width = docs.dtype.itemsize
    if docs.dtype.kind != "S" or width % 8 or not tie.size:
        return np.lexsort((*_desc_keys(docs), tie))
    tie = np.cumsum(np.r_[True, tie[1:] != tie[:-1]]) - 1  # numbered 0, 1, 2, ...
    bits = int(tie[-1]).bit_length() or 1
    first = ~np.ascontiguousarray(docs).view(">u8").reshape(docs.size, width // 8)[:, 0]
    key = (tie.astype(np.uint64) << np.uint64(64 - bits)) | (
        first.astype(np.uint64) >> np.uint64(bits)
    )
    order = np.argsort(key)
    ordered = key[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return order
    # the runs of equal keys: sorted again on their whole ids (the bits the key lost)
    at = np.flatnonzero(np.r_[same, False] | np.r_[False, same])
    run = np.cumsum(np.r_[True, ~same])[at]
    order[at] = order[at][np.lexsort((*_desc_keys(docs[order[at]]), run))]
    return order


def stretches(ids: pa.Array) -> tuple[np.ndarray, list[Any]]:
    """Where each stretch of equal neighbouring ids starts (and, last, the array's length) and
    each stretch's id: a comparison of neighbours, not a hash of every line."""
    bounds, first = _stretch_heads(ids)
    return bounds, first.to_pylist()


def _stretch_heads(ids: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """`stretches`, each stretch's id as an Arrow array."""
    n = len(ids)
    change = flags_of(kernel("not_equal", ids.slice(1), ids.slice(0, n - 1)))
    starts = np.r_[0, np.flatnonzero(change) + 1]
    return np.r_[starts, n], kernel("take", ids, indices_of(starts))


# white space and control characters beyond ASCII (str.isspace's and category Cc), which the
# line reader refuses in an id (`trec_keys.id_problem`)
_ODD_CHARS = (
    r"[\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\p{Cc}]"
)


_FORMULA_BYTES = tuple("".join(FORMULA_STARTS).encode("ascii"))  # an id may not start with one


def plain_ids(ids: pa.Array) -> bool:
    """Whether binary (or text) ids are UTF-8 text without white space or control characters beyond
    ASCII (the byte checks of `_check_window` refuse the ASCII ones) and none starts with a formula
    character (`files._text.FORMULA_STARTS`), and none is empty: at once when every byte is
    ASCII (a numpy pass over the bytes), else by Arrow's own check (a cast to text).

    An empty id is a column pyarrow found between two spaces (a line that starts with a space,
    or two spaces in a row), where the line reader, as trec_eval, splits once: it reads that
    line's columns otherwise, and names the line when their count is wrong."""
    offsets = offsets_of(ids)
    if not (offsets[:-1] < offsets[1:]).all():
        return False
    data = ids.buffers()[2]
    if data is None or offsets[-1] == offsets[0]:  # no id
        return True
    raw = np.frombuffer(data, dtype=np.uint8)
    first = raw.take(offsets[:-1].astype(np.intp))  # the first byte of each id
    if any((first == byte).any() for byte in _FORMULA_BYTES):  # comparisons, not a look-up table
        return False
    if raw[offsets[0] : offsets[-1]].max() < 0x80:
        return True
    try:
        text = ids.cast(pa.string())
    except pa.ArrowInvalid:
        return False
    odd = kernel("match_substring_regex", text, options=MatchSubstringOptions(_ODD_CHARS))
    return not kernel("any", odd).as_py()


def join_parts(
    parts: list[Part],
    tag: bytes,
    placed: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    grouped: bool = False,
) -> Columns:
    """The columns of a run from its parts, grouped by query when that is cheap; raises
    :class:`Bad` when it has no line or a line may be over the limit (pyarrow's block bounds
    lines only roughly: measure).

    A run holds each query's lines in a few stretches, so its parts are joined stretch by
    stretch in query order (stable: a query's stretches keep file order) -- the copy that joins
    the parts also groups the lines, instead of a second gather of every column. A run whose
    queries change on most lines is joined in file order and grouped by the caller.

    Raises :class:`Bad` too where a document is listed twice for one query (the line reader
    names the line): each part has checked its own lines in its reading thread, so only the
    queries whose lines are in several parts are checked here.

    `placed`: the run's docs, keys and scores, every part a view of its own lines there
    (`_placed`): a run in query order is those columns as they are, with no copy. `grouped`:
    `placed` holds the lines grouped by query already (`_Grouped`: each stretch written at its
    place in query order), and the parts only their stretches.
    """
    parts = [p for p in parts if p.lines]
    if not parts or max(p.longest for p in parts) > MAX_LINE_BYTES - 16:
        raise Bad
    heads = [h for p in parts for h in p.heads]
    qids = sorted(set(heads))  # byte order, as trec_eval sorts
    index = {q: i for i, q in enumerate(qids)}
    # query codes as int32: half the memory of every comparison of neighbours downstream
    stretch = np.fromiter((index[q] for q in heads), dtype=np.int32, count=len(heads))
    lengths = np.concatenate([p.lengths for p in parts])
    owner = np.repeat(np.arange(len(parts)), [len(p.heads) for p in parts])
    n_lines = int(lengths.sum())
    in_file_order = not grouped and (
        len(heads) > max(_STRETCHES, n_lines // 64) or bool(np.all(stretch[1:] >= stretch[:-1]))
    )
    if in_file_order:
        spans = [(p, 0, p.scores.size) for p in parts]  # numpy widens ids to the widest part's
        joined = stretch, lengths
    else:
        ends = np.concatenate([np.cumsum(p.lengths) for p in parts]).tolist()
        order = np.argsort(stretch, kind="stable")
        spans = [(parts[o], ends[i] - int(lengths[i]), ends[i])
                 for i, o in zip(order.tolist(), owner[order].tolist(), strict=True)]  # fmt: skip
        joined = stretch[order], lengths[order]

    def column(name: str) -> np.ndarray:
        return plain_concatenate([getattr(p, name)[a:b] for p, a, b in spans])

    if placed is not None and (in_file_order or grouped):  # the lines are where they belong
        docs, keys, scores = placed
    else:
        # the ids in a thread of their own while this one joins the rest: numpy copies without
        # the GIL, and half the join's time is the kernel's zeroing of the new arrays' pages
        with ThreadPoolExecutor(max_workers=1) as worker:
            ids = worker.submit(column, "docs")
            keys, scores = column("keys"), column("scores")
            docs = ids.result()
    repeats = any(p.repeats for p in parts)
    if _duplicated(repeats, len(parts), stretch, owner, joined, docs, keys):
        raise Bad
    return qids, Stretches(*joined), docs, scores, tag, keys


def _duplicated(
    repeats: bool,
    n_parts: int,
    stretch: np.ndarray,
    owner: np.ndarray,
    joined: tuple[np.ndarray, np.ndarray],
    docs: np.ndarray,
    keys: np.ndarray,
) -> bool:
    """Whether a document is listed twice for one query, given that each of `n_parts` parts
    checked its own lines: every line is checked where a part found a repeated key
    (`repeats`), else only the lines of the queries that have lines in more than one part
    (`stretch`, `owner`: each stretch's query code and part; `joined`: each stretch's query
    code and length in the joined lines' order)."""
    if repeats:
        return has_duplicates(np.repeat(*joined), docs, keys)
    # the distinct (query, part) pairs, and the queries among them more than once
    pairs = np.unique(stretch.astype(np.int64) * n_parts + owner)
    queries = pairs // n_parts
    spread = np.unique(queries[1:][queries[1:] == queries[:-1]])
    if not spread.size:
        return False
    # their stretches' lines among the joined ones (a few stretches, not a pass over the lines)
    query, lengths = joined
    at = np.flatnonzero(np.isin(query, spread))
    starts, sizes = (np.cumsum(lengths) - lengths)[at], lengths[at]
    lines = np.repeat(starts - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
    repeated = repeated_keys(keys[lines])
    codes = np.repeat(query[at], sizes)  # the query code of each of those lines
    return bool(repeated.size) and confirmed(codes, docs[lines], keys[lines], repeated)


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


def read_parts(groups: Iterable[pa.Table | Scanned]) -> Iterator[Part]:
    """Parsed groups of blocks (or scanned windows) as :class:`Part` s, in order: pyarrow (or
    the scan) reads the next ones (without the GIL) while a worker thread turns the last ones
    into arrays; at most two groups wait for it."""
    waiting: deque[Future[Part]] = deque()
    with ThreadPoolExecutor(max_workers=1) as worker:
        for table in groups:
            waiting.append(worker.submit(_part_of, table))
            while len(waiting) > 2 or (waiting and waiting[0].done()):
                yield waiting.popleft().result()  # raises the worker's Bad
        for future in waiting:
            yield future.result()


def _held(parts: Iterable[Part], room: int) -> list[Part]:
    """`parts` in a list; raises :class:`Bad` once their padded ids take more than `room`
    bytes (`files._text.padded_room`: each part pads to its own longest id, so a file with a long
    id in every window is refused before all of them are held, not after)."""
    done: list[Part] = []
    held = 0
    for part in parts:
        held += part.docs.nbytes
        if held > room:
            raise Bad  # the line reader names the longest id's line
        done.append(part)
    return done


_CR, _LF, _TAB, _SPACE = 13, 10, 9, 32


def _control(data: np.ndarray) -> bool:
    """Whether these bytes hold a control byte a run or qrels file may not hold: \\v and \\f
    (white space pyarrow does not split at), DEL and every other one below 32 but \\t, \\n and
    \\r (an id may not hold one: `trec_keys.id_problem`).

    Comparisons and counts over the bytes, not a look-up table indexed by them: numpy's
    indexing took 0.7 s of CPU over a 360 MB run, nine times these passes."""
    low = np.count_nonzero(data < 32)
    if low:
        low -= sum(np.count_nonzero(data == byte) for byte in (_TAB, _LF, _CR))
    return bool(low) or bool((data == 127).any())


def _suspect(data: np.ndarray, delimiter: int, scratch: np.ndarray | None = None) -> bool:
    """Whether `_odd_space` or the NUL check may object to these bytes: a control byte
    (`_control`), the other of tab and space, a carriage return -- that is, every byte below 32
    but \\n (and \\t where it is the delimiter), DEL, and a space where the delimiter is a tab.
    Nearly every block of a run holds none of them, and passes in a few comparisons.

    Space-separated bytes pass in two minima, into `scratch` (a buffer of at least their size,
    reused block after block) instead of three comparisons and three counts, half the CPU of a
    check every byte of every run goes through: xor 10 turns \\n into 0 and keeps every other
    byte below 32 below 32 (and every byte above it above it), so less one (0 wrapping to 255)
    only the bytes to object to fall below 31; xor 127 turns DEL into 0."""
    if delimiter == _SPACE and data.size:
        work = scratch[: data.size] if scratch is not None and scratch.size >= data.size else None
        work = np.bitwise_xor(data, _LF, out=work)
        np.subtract(work, 1, out=work)
        if int(work.min()) < 31:
            return True
        return int(np.bitwise_xor(data, 127, out=work).min()) == 0
    allowed = np.count_nonzero(data == _LF)
    if delimiter == _TAB:
        allowed += np.count_nonzero(data == _TAB)
        if (data == _SPACE).any():
            return True
    return np.count_nonzero(data < 32) != allowed or bool((data == 127).any())


def _odd_space(data: np.ndarray, delimiter: int) -> bool:
    """Whether these bytes hold white space that the line reader (and trec_eval, which split
    a line at any white space) would read differently from pyarrow, which splits only at
    `delimiter`: a vertical tab, a form feed, a carriage return not ending a line, or the
    other of tab and space; or a control byte, which no id may hold (`_control`)."""
    if _control(data):
        return True
    if (data == (_TAB if delimiter == _SPACE else _SPACE)).any():
        return True
    cr = data == _CR
    if not cr.any():
        return False
    # CRLF files read alike (the line reader strips the \r); a \r anywhere else does not
    return bool(cr[-1] or np.count_nonzero(cr[:-1] & (data[1:] == _LF)) != np.count_nonzero(cr))


def _read_window(handle: io.RawIOBase, start: int, stop: int, size: int) -> pa.Buffer:
    """Bytes `start` up to `stop` of a file (`handle`, unbuffered), at most `size` of them and
    cut just after a newline (unless they reach `stop`), read into a buffer pyarrow parses where
    it is, in C: a Python file object handed to pyarrow copied each block once more and held the
    interpreter's lock for every read (3 % of the CPU of reading a 10-million-line run). Not a
    memory map: its pages would count in the process's memory, and a file cut short while
    mapped kills the process.

    Raises :class:`Bad` where no newline ends a line in the last ``MAX_LINE_BYTES + 1`` bytes
    (a line over the limit, or one at it that the line reader then reads) and where the file
    is shorter than when it was measured; the caller sends the file to the line-by-line reader.
    """
    window = pa.allocate_buffer(min(stop - start, size), memory_pool=POOL)
    handle.seek(start)
    got = handle.readinto(memoryview(window).cast("B")) or 0
    if not got:
        raise Bad  # the file is shorter than when it was measured
    window = window.slice(0, got)
    if start + got < stop:  # cut after the last newline: in the last 4 KiB, nearly always
        for span in (4096, MAX_LINE_BYTES + 1):
            tail = got - min(got, span)
            cut = window.slice(tail).to_pybytes().rfind(b"\n")
            if cut >= 0:
                break
        if cut < 0:
            raise Bad
        window = window.slice(0, tail + cut + 1)
    return window


def _refused(data: np.ndarray, delimiter: int, scratch: np.ndarray | None = None) -> bool:
    """Whether bytes pyarrow is to parse hold a NUL byte (numpy's fixed-width ids would drop a
    trailing one) or white space pyarrow and the line reader would split differently
    (`_odd_space`): the two minima of `_suspect` first, which nearly every file passes, and only
    bytes they doubt are read again."""
    suspect = delimiter not in (_SPACE, _TAB) or _suspect(data, delimiter, scratch)
    return suspect and (not data.all() or _odd_space(data, delimiter))


def _check_window(window: pa.Buffer, delimiter: int, scratch: np.ndarray) -> None:
    """Raises :class:`Bad` where a window pyarrow is to parse is `_refused`. The check rides
    along the read, in each range's thread, instead of a pass of its own over the file."""
    if _refused(np.frombuffer(window, dtype=np.uint8), delimiter, scratch):
        raise Bad


class _Unplaced(Exception):
    """A range's lines cannot be written straight to their place (`_placed`): a window the scan
    declines, other lines than were counted, or another range's that could not be (`_placed`'s
    `abandoned`). An id wider than its place's is `WiderThanPlace`, which names a width."""


def _range_groups(
    path: str | Path,
    start: int,
    stop: int,
    options: dict[str, Any],
    place: Place | None = None,
    abandoned: threading.Event | None = None,
) -> Iterator[pa.Table | Scanned]:
    """The lines of bytes `start` to `stop`, window by window (`_read_window`), all read through
    one open file (the windows of a range come from one file, even where another is renamed
    over it meanwhile): each window as the compiled scan read it (`files._trec_scan`), or where
    it declines the window (or is not built), as pyarrow's parsed groups of blocks (`_groups`)
    of the checked window (`_check_window`).

    With `place` (the range's own rows of the run's columns, `_placed`), each window is scanned
    into its next rows; raises :class:`_Unplaced` where one cannot be, where the lines are not
    as many as its rows, or before a window once `abandoned` is set, and `WiderThanPlace` where
    a window's ids do not fit its width."""
    delimiter = ord(options["parse_options"].delimiter)
    size = _GROUP * MAX_LINE_BYTES // 2  # a window is a group of blocks: 8 MiB
    scratch = np.empty(min(size, max(0, stop - start)), dtype=np.uint8)  # `_suspect`'s
    # the ids' padded width the scan starts at (the last window's after it), or the place's
    width = 16 if place is None else place.width
    written = 0  # the lines scanned into the place so far
    with open(path, "rb", buffering=0) as handle:
        while start < stop:
            if abandoned is not None and abandoned.is_set():
                raise _Unplaced  # another range's lines cannot be placed: these are not needed
            window = _read_window(handle, start, stop, size)
            rest = None if place is None else place.after(written)
            scanned = scan(memoryview(window), delimiter, width, MAX_LINE_BYTES // 2, rest)
            if scanned is not None:
                width, written = scanned.docs.dtype.itemsize, written + scanned.scores.size
                yield scanned
            elif place is not None:
                raise _Unplaced
            else:
                _check_window(window, delimiter, scratch)
                with pacsv.open_csv(pa.BufferReader(window), **options) as reader:
                    yield from _groups(reader)
            start += window.size
            del window
    if place is not None and written != place.scores.size:
        raise _Unplaced  # the file changed since its lines were counted


def read_range(
    path: str | Path,
    start: int,
    stop: int,
    options: dict[str, Any],
    room: int,
    worker: bool = False,
) -> list[Part]:
    """One byte range's parts, parsed and turned into arrays in the calling thread (or, with
    `worker`, in a worker thread while this one parses: :func:`read_parts`); raises
    :class:`Bad` when the range holds a NUL byte or odd white space (`_odd_space`), or where
    its padded ids would take more than `room` bytes (`_held`)."""
    groups = _range_groups(path, start, stop, options)
    return _held(read_parts(groups) if worker else map(_part_of, groups), room)


_COUNTED = 1 << 20  # bytes `_range_lines` reads at a time


def _range_lines(path: str | Path, start: int, stop: int) -> int | None:
    """The lines of bytes `start` to `stop` of a file (cut just after a newline, or at its end):
    its newlines, counted window by window, and a last line without one; None without the
    compiled scan or where the file is shorter than when it was measured."""
    if not compiled():
        return None
    size = _COUNTED  # a buffer in a core's cache: the count reads what the copy just wrote
    buffer = memoryview(bytearray(min(size, max(1, stop - start))))
    lines, last = 0, _LF
    with open(path, "rb", buffering=0) as handle:
        handle.seek(start)
        while start < stop:
            got = handle.readinto(buffer[: min(size, stop - start)]) or 0
            counted = count_lines(buffer[:got]) if got else None
            if counted is None:
                return None
            lines, last, start = lines + counted, buffer[got - 1], start + got
    return lines + (last != _LF)


def _placed_range(
    path: str | Path,
    start: int,
    stop: int,
    options: dict[str, Any],
    place: Place,
    room: int,
    abandoned: threading.Event,
) -> list[Part]:
    """`read_range`'s parts of bytes `start` to `stop`, each window's lines scanned straight into
    the next rows of `place` (the range's own rows of the run's columns); raises
    :class:`_Unplaced` or `WiderThanPlace` where they cannot be; raising anything, it sets
    `abandoned` first (the other ranges stop at their next window: their lines are not needed)."""
    try:
        return _held(map(_part_of, _range_groups(path, start, stop, options, place, abandoned)),
                     room)  # fmt: skip
    except BaseException:
        abandoned.set()
        raise


def _range_stretches(
    path: str | Path, start: int, stop: int, capacity: int
) -> tuple[list[bytes], np.ndarray] | None:
    """The stretches of equal query ids among the lines of bytes `start` to `stop` (cut just
    after a newline, or at the file's end), as the scan splits them (`count_stretches`): each
    one's query id and number of lines, neighbours of one id joined; None without the compiled
    scan, past `capacity` stretches, or where the file is shorter than when it was measured."""
    if not compiled():
        return None
    heads: list[bytes] = []
    lengths: list[int] = []
    size = 2 * MAX_LINE_BYTES  # a window holds a whole line of the longest a run may have
    buffer = bytearray(min(size, max(1, stop - start)))  # one buffer, read into again and again
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as handle:
        handle.seek(start)
        while start < stop:
            got = handle.readinto(view[: min(size, stop - start)]) or 0
            if not got:
                return None  # the file is shorter than when it was measured
            if start + got < stop:  # whole lines: a stretch's id is read where its line starts
                cut = buffer.rfind(b"\n", 0, got)
                if cut < 0:
                    return None  # a line over the limit: the parts' reading refuses it
                got = cut + 1
                handle.seek(start + got)
            found = count_stretches(view[:got], capacity + 1 - len(heads))
            if found is None:
                return None
            ids, counts = found[0], found[1].tolist()
            if ids and heads and ids[0] == heads[-1]:  # a stretch across two windows
                lengths[-1] += counts[0]
                ids, counts = ids[1:], counts[1:]
            heads += ids
            lengths += counts
            if len(heads) > capacity:
                return None
            start += got
    return heads, np.array(lengths, dtype=np.int64)


_PROBES = 64  # lines `_looks_in_order` reads, evenly spread over the file


def _looks_in_order(path: str | Path, size: int) -> bool:
    """Whether the query ids of `_PROBES` lines spread evenly over the file's `size` bytes are in
    byte order: a run whose queries are in order is then counted by its newlines alone
    (`count_lines`, two thirds of the time its stretches take) and placed in file order; one
    that only looks so, out of order between two probes, is grouped by the join as before."""
    last = b""
    with open(path, "rb") as handle:
        for at in range(_PROBES):
            handle.seek(size * at // _PROBES)
            if at:
                handle.readline(MAX_LINE_BYTES + 1)  # the rest of a line cut into
            words = handle.readline(MAX_LINE_BYTES + 1).split(maxsplit=1)
            if words and words[0] < last:
                return False
            last = words[0] if words else last
    return True


@dataclass(frozen=True, eq=False)
class _Grouped:
    """Where a byte range's lines go among a run's columns written grouped by query (`_placed`):
    the range's stretches of equal query ids as `count_stretches` found them, in file order
    (each one's id and number of lines), and the row of the columns each one's first line
    takes."""

    heads: list[bytes]
    lengths: np.ndarray
    rows: np.ndarray

    @functools.cached_property
    def ends(self) -> np.ndarray:
        """The range's line after each stretch (made once, read for every window)."""
        return np.cumsum(self.lengths)

    def put(self, part: Part, line: int, place: Place) -> int:
        """Writes `part`'s lines (the range's from its line `line` on) to their rows of
        `place`; returns the range's line after them. Raises `WiderThanPlace` where its ids are
        wider than the place's, and :class:`_Unplaced` where its stretches are not the ones
        counted (the file changed since)."""
        width, own = place.width, part.docs.dtype.itemsize
        if own > width:
            raise WiderThanPlace(own)
        ends = self.ends
        at = int(np.searchsorted(ends, line, side="right"))  # the stretch `line` is in
        into = line - int(ends[at] - self.lengths[at]) if at < ends.size else 0
        docs = np.ascontiguousarray(part.docs).view(np.uint8).reshape(-1, own)
        rows = place.docs.reshape(-1, width)
        first = 0  # the part's first line of the stretch
        for head, count in zip(part.heads, part.lengths.tolist(), strict=True):
            if at >= len(self.heads) or head != self.heads[at]:
                raise _Unplaced
            if into + count > int(self.lengths[at]):
                raise _Unplaced
            row = int(self.rows[at]) + into
            rows[row : row + count, :own] = docs[first : first + count]
            if own < width:
                rows[row : row + count, own:] = 0
            place.hashes[row : row + count] = part.keys[first : first + count]
            place.scores[row : row + count] = part.scores[first : first + count]
            first += count
            into += count
            if into == int(self.lengths[at]):
                at, into = at + 1, 0
        return line + first


def _grouped_range(
    path: str | Path,
    start: int,
    stop: int,
    options: dict[str, Any],
    place: Place,
    grouped: _Grouped,
    abandoned: threading.Event,
) -> list[Part]:
    """`read_range`'s parts of bytes `start` to `stop`, each written to its stretches' rows of
    `place` (`_Grouped.put`) as it is read, and kept as its stretches alone (its lines are in
    `place`); raises as `_placed_range` does."""
    try:
        kept, line = [], 0
        for lines in _range_groups(path, start, stop, options, abandoned=abandoned):
            part = _part_of(lines)
            line = grouped.put(part, line, place)
            kept.append(Part(part.heads, part.lengths, np.zeros(0, dtype=part.docs.dtype),
                             np.zeros(0, dtype=np.uint64), np.zeros(0), part.longest,
                             part.repeats))  # fmt: skip
        if line != int(grouped.lengths.sum()):
            raise _Unplaced  # the file changed since its stretches were counted
        return kept
    except BaseException:
        abandoned.set()
        raise


def _grouping(stretches: list[tuple[list[bytes], np.ndarray]], lines: int) -> list[_Grouped] | None:
    """Each range's `_Grouped` rows, for a run whose queries are not in order (each query's
    stretches are written at its place in query order, as `join_parts` would join them: by id,
    then in file order); None where they are (the lines' order is theirs) or where the run's
    stretches are more than `join_parts` joins by stretch."""
    heads = [h for ids, _ in stretches for h in ids]
    if len(heads) > max(_STRETCHES, lines // 64):
        return None
    qids = sorted(set(heads))
    index = {q: i for i, q in enumerate(qids)}
    codes = np.fromiter((index[h] for h in heads), dtype=np.int64, count=len(heads))
    if bool(np.all(codes[1:] >= codes[:-1])):
        return None
    lengths = np.concatenate([counts for _, counts in stretches])
    order = np.argsort(codes, kind="stable")
    rows = np.empty(len(heads), dtype=np.int64)
    rows[order] = np.cumsum(lengths[order]) - lengths[order]
    cuts = np.cumsum([0, *(len(ids) for ids, _ in stretches)]).tolist()
    return [_Grouped(ids, counts, rows[a:b])
            for (ids, counts), (a, b) in zip(stretches, itertools.pairwise(cuts), strict=True)]  # fmt: skip


_PLACINGS = 3  # the widths a run's columns are tried at: its first id's, then wider ones found


def _placed(
    pool: ThreadPoolExecutor,
    path: str | Path,
    ranges: list[tuple[int, int]],
    options: dict[str, Any],
    width: int,
    room: int,
) -> tuple[list[list[Part]], tuple[np.ndarray, np.ndarray, np.ndarray], bool] | None:
    """The parts of each byte range, read by the compiled scan straight into the run's columns
    (docs of `width` bytes, the first line's id's words; keys; scores), those columns, and
    whether they hold the lines grouped by query; None where a range cannot be (`_Unplaced`,
    or no compiled scan): the caller reads parts of their own and joins them.

    Each range's stretches of equal query ids are counted first (`count_stretches`, a sixth of
    the scan's time), so that every range knows its rows: the copy that joined a run's parts
    into columns was a fifth of reading a 50-million-line run, and half of its new pages. A
    run whose queries are in order, or change on most lines, is written in file order; one
    whose queries are out of order (each query's lines together) is written grouped by query
    (`_Grouped`: each window read into arrays of its own and its stretches copied to their
    rows), where joining it by query copied every line into new columns a second time (0.5 s
    of the 1.8 s reading a 10-million-line run of shuffled queries took). Where a window holds an id wider than `width` (ids
    of 4 to 14 bytes, the first one short), the columns are made again at the width its ids
    fit, up to `_PLACINGS` widths in all: the windows scanned before it are read again, where
    the parts' join copied every line."""
    # as many stretches as `_grouping` takes at most: one per 64 lines of 12 bytes or more
    capacity = max(_STRETCHES, (ranges[-1][1] - ranges[0][0]) // (64 * 12))
    stretches: list[tuple[list[bytes], np.ndarray] | None] = [None]
    if not _looks_in_order(path, ranges[-1][1]):
        stretches = list(pool.map(lambda r: _range_stretches(path, r[0], r[1], capacity), ranges))
    counted = [s for s in stretches if s is not None]
    grouping: list[_Grouped] | None = None
    if len(counted) == len(ranges):
        counts = [int(lengths.sum()) for _, lengths in counted]
        grouping = _grouping(counted, sum(counts))
    else:
        lines = list(pool.map(lambda r: _range_lines(path, *r), ranges))
        counts = [c for c in lines if c is not None]
        if len(counts) < len(ranges):
            return None
    rows = np.cumsum([0, *counts]).tolist()
    for _ in range(_PLACINGS):
        if rows[-1] == 0 or rows[-1] * width > room:
            return None  # the parts' own reading refuses the file, or names why
        docs = plain_empty(rows[-1] * width, np.uint8)
        hashes, scores = plain_empty(rows[-1], np.uint64), plain_empty(rows[-1], np.float64)
        abandoned = threading.Event()
        if grouping is None:
            places = [Place(docs[a * width : b * width], hashes[a:b], scores[a:b], width)
                      for a, b in itertools.pairwise(rows)]  # fmt: skip
            tries = [pool.submit(_placed_range, path, *ranges[at], options, places[at], room,
                                 abandoned) for at in range(len(ranges))]  # fmt: skip
        else:
            whole = Place(docs, hashes, scores, width)
            tries = [pool.submit(_grouped_range, path, *ranges[at], options, whole,
                                 grouping[at], abandoned) for at in range(len(ranges))]  # fmt: skip
        found_parts, wider = [], 0
        for placing in tries:  # every range ended (or stopped) before the next width's
            try:
                found_parts.append(placing.result())
            except WiderThanPlace as too_wide:
                wider = max(wider, too_wide.width)
            except _Unplaced:
                pass  # declined, counted otherwise, or stopped by another range
        if len(found_parts) == len(ranges):
            return found_parts, (docs.view(f"S{width}"), hashes, scores), grouping is not None
        if wider <= width:
            return None  # declined, or not as many lines as counted: not a matter of width
        width = wider
    return None


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
    placed, grouped = None, False
    try:
        room = padded_room(size)
        if len(cuts) == 2:  # one range: parse in this thread, arrays in a worker
            found = [read_range(path, 0, size, options, room, worker=True)]
        else:
            ranges = list(itertools.pairwise(cuts))  # a range per thread, each parsed and
            with ThreadPoolExecutor(max_workers=len(ranges)) as pool:  # turned into arrays
                width = 8 * -(-len(parts[2]) // 8)  # the first id's words
                done = _placed(pool, path, ranges, options, width, room)
                if done is not None:
                    found, placed, grouped = done
                else:
                    found = list(
                        pool.map(lambda r: read_range(path, r[0], r[1], options, room), ranges)
                    )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Bad from None
    read = [p for range_parts in found for p in range_parts]
    lines = sum(p.lines for p in read)
    if not padded_fits(lines, max((p.docs.dtype.itemsize for p in read), default=0), size):
        raise Bad  # the line reader names the longest id's line
    columns = join_parts(read, parts[5], placed, grouped)
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


_THREADS = max(1, min(4, os.cpu_count() or 1))  # threads that read a large run's byte ranges


_MIN_RANGE = 16 << 20  # bytes: a smaller run is one range


def _cuts(mm: mmap.mmap, size: int) -> list[int]:
    """Where the file's byte ranges start and end: up to `_THREADS` ranges of at least
    `_MIN_RANGE` bytes, each cut just after a newline."""
    cuts = [0]
    n = min(_THREADS, size // _MIN_RANGE)
    for i in range(1, n):
        at = mm.find(b"\n", max(cuts[-1], size * i // n))
        if at < 0 or at + 1 >= size:
            break
        cuts.append(at + 1)
    return [*cuts, size]


def arrow_options(delimiter: str, block_size: int | None = None) -> dict[str, Any]:
    """pyarrow CSV options for a run: five typed columns (all but the tag), no quoting, no null
    markers.

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
        "memory_pool": POOL,  # `trec_keys.POOL`: malloc, not Arrow's default pool
        "convert_options": pacsv.ConvertOptions(
            # the second and fourth columns only to see that none is empty (`block_part`)
            include_columns=["q", "z", "d", "r", "s"],
            # bytes, not text: `block_part` checks UTF-8 only where a byte is not ASCII (the
            # parse itself took 15-25 % longer validating every id)
            column_types={**dict.fromkeys("qzdr", pa.binary()), "s": pa.float64()},
            null_values=[],
            strings_can_be_null=False,
        ),
    }


def _qrels_table(source: pa.NativeFile) -> pa.Table:
    """A qrels file's four columns as text, through `trec_keys.POOL`."""
    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=list("qzdg"), block_size=MAX_LINE_BYTES),
        parse_options=pacsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={c: pa.string() for c in "qzdg"},
            strings_can_be_null=False,
        ),
        memory_pool=POOL,
    )


def fast_qrels(path: str | Path, low: int, high: int) -> dict[str, dict[str, int]]:
    """Qrels through pyarrow (grades ``-?[0-9]{1,3}`` within [low, high], each document once per
    query); raises :class:`Bad` for anything else, and the caller's line loop names it."""
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        if size == 0:
            raise Bad
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            data = np.frombuffer(mm, dtype=np.uint8)
            refused = _refused(data, _SPACE)
            del data  # the map closes only once no array views it
            if refused:
                raise Bad
    try:
        # the file's blocks through malloc too: a path makes pyarrow read into its default pool,
        # whose first use reserves a gigabyte in transparent huge pages (`trec_keys.POOL`)
        with pa.OSFile(str(path), memory_pool=POOL) as source:
            table = _qrels_table(source)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise Bad from None
    # an integer grade of up to three digits; a comment line (the line loop skips it)
    grade, comment = MatchSubstringOptions(r"^-?[0-9]{1,3}$"), MatchSubstringOptions("#")
    if (
        table.num_rows == 0
        or not kernel("all", kernel("match_substring_regex", table["g"], options=grade)).as_py()
        or kernel("any", kernel("starts_with", table["q"], options=comment)).as_py()
        or not plain_ids(joined(table["q"]))  # the loop names the odd id's line
        or not plain_ids(joined(table["d"]))
        or _empty_column(table, "z")
    ):
        raise Bad
    # the three separators added after the sum (a Python 3 would be an Arrow scalar: pandas)
    length = kernel("add", kernel("utf8_length", table["q"]), kernel("utf8_length", table["z"]))
    doc_lengths = kernel("binary_length", table["d"])
    length = kernel("add", kernel("add", length, doc_lengths),
                    kernel("binary_length", table["g"]))  # fmt: skip
    if kernel("max", length).as_py() + 3 > MAX_LINE_BYTES // 4:  # maybe over the limit: measure
        raise Bad
    if not padded_fits(table.num_rows, kernel("max", doc_lengths).as_py(), size):
        raise Bad  # the line loop names the longest id's line
    grades = kernel("cast", table["g"], options=CastOptions.safe(pa.int64()))
    if kernel("min", grades).as_py() < low or kernel("max", grades).as_py() > high:
        raise Bad
    # one dict update per stretch of lines with equal query ids, not one per line
    bounds, heads = stretches(joined(table["q"]))
    starts = bounds.tolist()
    docs, values = table["d"].to_pylist(), grades.to_pylist()
    qrels: dict[str, dict[str, int]] = {}
    for q, a, b in zip(heads, starts, starts[1:], strict=False):
        qrels.setdefault(q, {}).update(zip(docs[a:b], values[a:b], strict=True))
    if sum(map(len, qrels.values())) != table.num_rows:
        raise Bad  # a document twice for one query
    return qrels


def ranked_list(parts: list[bytes]) -> bool:
    """A line's columns are ``qid docid rank`` (MS MARCO's run format): three, the last a rank."""
    return len(parts) == 3 and parts[2].isdigit()


def as_trec(path: str | Path, parts: list[bytes], in_runs: bool = True) -> str:
    """For a line of three columns ending in a rank (``qid docid rank``, as MS MARCO writes a
    run): the rewrite into a TREC run, its score minus the rank (and, `in_runs`, the original
    moved out of the runs it was read as one of); else nothing."""
    if not ranked_list(parts):
        return ""
    source = Path(path)
    target = source.with_name(f"{source.stem}.run")
    tag = re.sub(r"[^A-Za-z0-9._-]", "_", source.stem) or "run"  # one word inside awk's quotes
    program = f'{{print $1, "Q0", $2, $3, -$3, "{tag}"}}'
    rewrite = shell_command(("awk", program, str(source))) + " > " + shell_command((str(target),))
    moved = f", and {source.name} moved out of the runs" if in_runs else ""
    return (
        f": qid, docid and rank, as MS MARCO writes a run? As a TREC run (score: minus the "
        f"rank): {rewrite}{moved}"
    )


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
        raise RunFileError(path, f"expected 6 columns, found {len(parts)}{as_trec(path, parts)}",
                           number)  # fmt: skip
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
    size = len(raw)  # the file's, as the fast path weighs it (`padded_fits`)
    # CR-only and CRLF line ends are line ends too (a CR-only file read at LF alone is one line)
    raw = raw.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    seen: dict[bytes, dict[bytes, float]] = {}
    alike: tuple[dict[str, tuple[str, int]], ...] = ({}, {})  # query ids, document ids
    tag = b""
    start, number = 0, 0
    longest = LongestId()
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
        longest.see(parts[2], number)
    if not seen:
        found = "an empty file" if not raw.strip() else "only blank and comment lines"
        raise RunFileError(path, f"expected lines {_RUN_FORM}, found {found}")
    qids = sorted(seen)
    index = {q: i for i, q in enumerate(qids)}
    codes = np.repeat(
        np.array([index[q] for q in seen], dtype=np.int64), [len(d) for d in seen.values()]
    )
    all_docs = [d for q in seen.values() for d in q]
    longest.check(path, len(all_docs), "lines", RunFileError, size)
    scores = np.array([s for q in seen.values() for s in q.values()], dtype=np.float64)
    width = -(-longest.length // 8) * 8
    return qids, codes, np.array(all_docs, dtype=f"S{width}"), scores, tag, None


__all__ = [
    "Bad",
    "Columns",
    "Part",
    "Stretches",
    "arrow_options",
    "block_part",
    "check_line",
    "fast_columns",
    "fast_qrels",
    "join_parts",
    "pa",
    "pacsv",
    "plain_ids",
    "read_parts",
    "read_range",
    "slow_columns",
    "stretches",
    "table_columns",
]
