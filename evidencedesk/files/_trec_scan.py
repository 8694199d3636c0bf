"""The run reader's compiled scan (``_trec_scan.c``), through ctypes: a window of a run in one
pass, into the arrays pyarrow's parse and `_trec_arrays.block_part` would make of it.

The library is built with the package where a C compiler is at hand (hatch_build.py) and is
optional: without it (`_LIBRARY` None) every window is parsed by pyarrow, to the same arrays. The
scan takes only the lines it reads exactly as pyarrow does and declines any window with another
(`scan` returns None), which the caller then reads through pyarrow and its checks.

ctypes releases the interpreter's lock for the call: the windows of a run's byte ranges are
scanned on two cores at once.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evidencedesk.files._text import padded_fits
from evidencedesk.files._trec_keys import POOL, pa

_NAME = "libevidencedesk_scan.so"  # not a module name: no import finds it
_SOURCE = "_trec_scan.c"  # what it is built from (hatch_build.py), beside it in the package
_DECLINED, _WIDER = -1, -2
_SHORTEST_LINE = 12


def _load(folder: Path) -> ctypes.CDLL | None:
    """The compiled scan in `folder` (this module's), or None where it was not built, was built
    from another source than the ``_trec_scan.c`` beside it (a checkout pulled since its
    install: its functions may take other arguments), or the environment turns it off
    (``EVIDENCEDESK_SCAN=off``, for comparing the two readers)."""
    path, source = folder / _NAME, folder / _SOURCE
    if os.environ.get("EVIDENCEDESK_SCAN", "").lower() == "off" or not path.is_file():
        return None
    try:
        library = ctypes.CDLL(str(path))
        built_from = library.evidencedesk_scan_source
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    except (OSError, AttributeError):  # built for another machine, or before the digest
        return None
    built_from.restype = ctypes.c_char_p
    if built_from() != digest.encode("ascii"):
        return None
    pointer, size = ctypes.c_void_p, ctypes.c_long
    library.evidencedesk_scan_run.restype = size
    library.evidencedesk_scan_run.argtypes = [
        pointer, size, ctypes.c_int, size, size, pointer, pointer, pointer, size, pointer,
        pointer, pointer,
    ]  # fmt: skip
    library.evidencedesk_judged_bitmaps.restype = None
    library.evidencedesk_judged_bitmaps.argtypes = [
        pointer, size, pointer, ctypes.c_int, pointer, ctypes.c_int,
    ]  # fmt: skip
    library.evidencedesk_judged_candidates.restype = size
    library.evidencedesk_judged_candidates.argtypes = [
        pointer, size, size, pointer, ctypes.c_int, pointer, ctypes.c_int, pointer,
    ]  # fmt: skip
    library.evidencedesk_count_lines.restype = size
    library.evidencedesk_count_lines.argtypes = [pointer, size]
    library.evidencedesk_count_stretches.restype = size
    library.evidencedesk_count_stretches.argtypes = [pointer, size, size, pointer, pointer, pointer]
    library.evidencedesk_repeats_within.restype = ctypes.c_int
    library.evidencedesk_repeats_within.argtypes = [pointer, pointer, size, pointer, pointer, size]
    return library


_LIBRARY = _load(Path(__file__).parent)


@dataclass(frozen=True, eq=False)
class Scanned:
    """A window's lines as the scan wrote them, in file order."""

    heads: list[bytes]  # the query id of each stretch of lines with equal ids
    lengths: np.ndarray  # each stretch's number of lines
    docs: np.ndarray  # NUL-padded document ids, fixed width (whole 8-byte words)
    hashes: np.ndarray  # each id's `trec_keys.doc_hashes`
    scores: np.ndarray
    widest_query: int  # bytes


def _empty(size: int, dtype: type) -> np.ndarray:
    """A writable array from `trec_keys.POOL` (malloc), as pyarrow's parse allocates: numpy's
    own allocation asks for huge pages from 4 MiB up, whose faults stall where the kernel
    compacts memory for them (the room for an 8 MiB window's lines is tens of MB, of which
    only the lines it holds are touched)."""
    item = np.dtype(dtype).itemsize
    return np.frombuffer(pa.allocate_buffer(size * item, memory_pool=POOL), dtype=dtype)


class WiderThanPlace(Exception):
    """A window holds an id wider than its place's (`Place.width`): `width`, the window's widest
    id rounded up to whole 8-byte words, is a width its lines fit."""

    def __init__(self, width: int):
        super().__init__(width)
        self.width = width


@dataclass(frozen=True, eq=False)
class Place:
    """Where a window's lines go among a run's columns: the next rows of `docs` (ids NUL-padded to
    `width` bytes, a multiple of 8), `hashes` and `scores`, exactly as many as the lines left in
    the window's byte range (`count_lines` counted them)."""

    docs: np.ndarray  # uint8, `width` bytes a line
    hashes: np.ndarray  # uint64
    scores: np.ndarray  # float64
    width: int

    def after(self, lines: int) -> Place:
        """The rows left once the first `lines` are written."""
        w = self.width
        return Place(self.docs[lines * w :], self.hashes[lines:], self.scores[lines:], w)


def scan(
    window: memoryview, delimiter: int, width: int, longest_line: int, place: Place | None = None
) -> Scanned | None:
    """The lines of `window` (whole lines, bytes), or None where the scan declines them -- among
    others a line over `longest_line` bytes (pyarrow's block: a window with a longer line goes
    to pyarrow, which refuses it or not as it always has). Ids are padded to `width` bytes (a
    multiple of 8) or, where one is wider, to the widest rounded up to whole words; then cut to
    the widest id's words where `width` was wider, as `trec_keys.fixed_width` pads.

    With `place`, the lines are written there (the returned arrays are views of it), at its
    width: None also where the lines outnumber its rows, and :class:`WiderThanPlace` raised
    where an id is wider than its width."""
    if _LIBRARY is None:
        return None
    data = np.frombuffer(window, dtype=np.uint8)
    address, size = data.ctypes.data, data.size
    # room for every line the window could hold (six one-byte fields, five delimiters and a
    # newline: 12 bytes); the pages past the lines it holds are never touched
    capacity = size // _SHORTEST_LINE + 1
    found = np.zeros(3, dtype=np.int64)
    starts, heads = _empty(capacity, np.int64), _empty(2 * capacity, np.int64)
    if place is not None:
        width, capacity = place.width, place.scores.size
        docs, hashes, scores = place.docs, place.hashes, place.scores
    else:
        hashes, scores = _empty(capacity, np.uint64), _empty(capacity, np.float64)
    while True:
        if place is None:
            docs = _empty(capacity * width, np.uint8)
        lines = _LIBRARY.evidencedesk_scan_run(
            address, size, delimiter, width, longest_line, docs.ctypes.data,
            hashes.ctypes.data, scores.ctypes.data, capacity, starts.ctypes.data,
            heads.ctypes.data, found.ctypes.data,
        )  # fmt: skip
        if lines == _DECLINED:
            return None
        if lines != _WIDER:
            break
        width = 8 * -(-int(found[1]) // 8)  # the widest id's words
        if place is not None:
            raise WiderThanPlace(width)
        if not padded_fits(capacity, width, 0):  # one id far longer than the rest: the
            return None  # readers that weigh it against its file take the window
    n_stretches, widest_doc, widest_query = (int(v) for v in found)
    # a placed window keeps its place's width; another is cut to its widest id's words
    needed = width if place is not None else 8 * -(-max(1, widest_doc) // 8)
    matrix = docs[: lines * width].reshape(lines, width)
    if needed < width:  # a window of shorter ids than the last one's: `fixed_width`'s width
        matrix = np.ascontiguousarray(matrix[:, :needed])
    where = heads[: 2 * n_stretches].tolist()
    return Scanned(
        heads=[bytes(window[o : o + n]) for o, n in zip(where[::2], where[1::2], strict=True)],
        lengths=np.diff(np.r_[starts[:n_stretches], lines]),
        docs=matrix.view(f"S{needed}").ravel(),
        hashes=hashes[:lines],
        scores=scores[:lines],
        widest_query=widest_query,
    )


def compiled() -> bool:
    """Whether the compiled scan is loaded (else every call here returns None)."""
    return _LIBRARY is not None


def count_lines(data: memoryview) -> int | None:
    """The newlines among `data`'s bytes; None without the library."""
    if _LIBRARY is None:
        return None
    array = np.frombuffer(data, dtype=np.uint8)
    return int(_LIBRARY.evidencedesk_count_lines(array.ctypes.data, array.size))


def count_stretches(window: memoryview, capacity: int) -> tuple[list[bytes], np.ndarray] | None:
    """The stretches of lines with equal query ids among `window`'s whole lines, split where
    `scan` splits them: each one's query id and number of lines; None without the library or
    where they are more than `capacity`."""
    if _LIBRARY is None:
        return None
    data = np.frombuffer(window, dtype=np.uint8)
    room = max(1, min(capacity, data.size + 1))  # no more than its lines
    starts, heads = _empty(room, np.int64), _empty(2 * room, np.int64)  # plain pages
    found = np.zeros(1, dtype=np.int64)
    lines = _LIBRARY.evidencedesk_count_stretches(
        data.ctypes.data, data.size, room, starts.ctypes.data, heads.ctypes.data,
        found.ctypes.data,
    )  # fmt: skip
    if lines < 0:
        return None
    n = int(found[0])
    where = heads[: 2 * n].tolist()
    return (
        [bytes(window[o : o + k]) for o, k in zip(where[::2], where[1::2], strict=True)],
        np.diff(np.r_[starts[:n], lines]),
    )


# the judged keys' bitmaps (`judged_candidates`): 2^23 bits (1 MB, in a core's cache: read for
# every line) by a key's top bits, 2^24 bits by its low bits (read for the few the first passes)
_HIGH_BITS, _LOW_BITS = 23, 24
_STEP = 1 << 18  # lines a call: the room for their indices (2 MB) is used again by the next


def judged_candidates(keys: np.ndarray, judged: np.ndarray) -> np.ndarray | None:
    """The indices of `keys` (uint64) that may be among `judged`, ascending: every one that is,
    and some that are not (the caller confirms them); None without the library. Ten million
    run lines against 300,000 judgments in 0.07 s, where numpy's passes over bitmaps of bytes
    (`trec_judge._bitmap_candidates`) took 0.17 s: their random reads missed the caches."""
    if _LIBRARY is None:
        return None
    high = np.zeros(1 << (_HIGH_BITS - 3), dtype=np.uint8)
    low = np.zeros(1 << (_LOW_BITS - 3), dtype=np.uint8)
    judged = np.ascontiguousarray(judged, dtype=np.uint64)
    _LIBRARY.evidencedesk_judged_bitmaps(judged.ctypes.data, judged.size, high.ctypes.data,
                                         _HIGH_BITS, low.ctypes.data, _LOW_BITS)  # fmt: skip
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    room = np.empty(min(keys.size, _STEP), dtype=np.int64)
    found = [np.zeros(0, dtype=np.int64)]
    for at in range(0, keys.size, _STEP):
        n = _LIBRARY.evidencedesk_judged_candidates(
            keys.ctypes.data + 8 * at, min(_STEP, keys.size - at), at, high.ctypes.data,
            _HIGH_BITS, low.ctypes.data, _LOW_BITS, room.ctypes.data,
        )  # fmt: skip
        found.append(room[:n].copy())
    return np.concatenate(found)


_TABLE_LINES = 1 << 20  # the longest stretch `repeats_within` takes (a table of 25 MB)


def repeats_within(keys: np.ndarray, lengths: np.ndarray) -> bool | None:
    """Whether a key (uint64) occurs twice within one stretch of lines, `lengths` lines each in
    the order of `keys`; None without the library or for a stretch over `_TABLE_LINES`. One
    pass through a small table a stretch: a part's sort of every key, which also found the
    repeats across stretches, took a fifth of reading a run (a caller whose stretches may share
    a query sorts, `trec_keys.repeated_keys`)."""
    if _LIBRARY is None:
        return None
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    if int(lengths.sum()) != keys.size:
        raise ValueError(f"expected stretches of {keys.size} lines, found {int(lengths.sum())}")
    longest = int(lengths.max(initial=0))
    if longest > _TABLE_LINES:
        return None
    room = 1 << max(4, (2 * longest - 1).bit_length())
    slots = np.empty(room, dtype=np.uint64)
    marks = np.zeros(room, dtype=np.uint32)
    return bool(_LIBRARY.evidencedesk_repeats_within(
        keys.ctypes.data, lengths.ctypes.data, lengths.size, slots.ctypes.data, marks.ctypes.data,
        room,
    ))  # fmt: skip
