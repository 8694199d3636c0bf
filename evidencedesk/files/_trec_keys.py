"""Document ids as 8-byte words, and the hashes that judge and check a run without a hash table.

An id is held zero-padded to whole 8-byte words (:func:`fixed_width`, straight from an Arrow string
array); its hash is a splitmix64 step per word (:func:`doc_hashes`), the same in arrays of any
width. A line's (query, document) key is the document's hash xor a salt of its query
(:func:`query_salts`, :func:`line_keys`): the duplicate check sorts the keys and judging looks the
judged keys up among them; equal hashes are always confirmed on the ids.

pyarrow is imported here, in one place for the package: a broken install is one line naming what
to reinstall (`errors.PackageLoadError`), whichever module needs it first. Arrays cross between
numpy and Arrow through their buffers (`numbers_of`, `indices_of`, `fixed_width_of`), never
through ``pa.array``, ``pa.scalar`` or ``to_numpy``: those ask whether pandas is installed, and
where it is, importing it costs more than reading the demo's runs.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

try:  # numpy's own module (numpy 1.26 has the name too): `plain_empty` reads a setting
    from numpy._core import multiarray as _numpy_arrays
except ImportError:
    _numpy_arrays = None  # type: ignore[assignment]

from evidencedesk._inert import look_alike, visible
from evidencedesk.errors import PackageLoadError
from evidencedesk.files._text import FORMULA_STARTS, has_control, has_space

try:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:  # Arrow's functions by name, without pyarrow.compute's wrappers (50 ms to import)
        import pyarrow._compute as _compute
        from pyarrow._compute import CastOptions, MatchSubstringOptions, PadOptions
    except ImportError:  # a pyarrow that moved its private module: the public one, the same calls
        import pyarrow.compute as _compute
        from pyarrow.compute import (
            CastOptions,
            MatchSubstringOptions,
            PadOptions,
        )

    # Arrow's arrays of the TREC readers come from the C library's malloc, not Arrow's default
    # pool (mimalloc or jemalloc), by an argument of each call that allocates -- the process's
    # default pool is left as it is. The default pool hands freed pages back to the kernel
    # and faults fresh ones in again: reading a 10-million-line run spent more time in the
    # kernel zeroing pages (about 1 s) than in parsing; malloc reuses what the last block freed.
    POOL = pa.system_memory_pool()
except Exception as exc:  # a broken install: one line naming what to reinstall
    raise PackageLoadError("pyarrow", exc) from None

__all__ = [
    "POOL",
    "CastOptions",
    "MatchSubstringOptions",
    "flags_of",
    "joined",
    "decoded_ids",
    "fixed_width_of",
    "indices_of",
    "numbers_of",
    "pa",
    "pacsv",
    "kernel",
    "alike_earlier",
    "alike_problem",
    "confirmed",
    "doc_hashes",
    "doc_words",
    "fixed_width",
    "has_alike",
    "has_duplicates",
    "id_problem",
    "line_keys",
    "longest_of",
    "offsets_of",
    "plain_concatenate",
    "plain_empty",
    "query_salts",
    "repeated_keys",
]


def id_problem(value: str, kind: str) -> str | None:
    """Why `value` cannot be a `kind` ("query", "document") id of a TREC file, as an error's
    ``expected …, found …``; None when it can. An id must read back as itself from the TREC
    exports: no white space or control character anywhere (trec_eval splits a line at white
    space), a query id must not start with ``#`` (the line would read as a comment), and no id
    may start with a character a spreadsheet reads as a formula (`files._text.FORMULA_STARTS`: the id
    columns of to-label.tsv and the CSV exports are written as they are, for the round trip
    back to qrels)."""
    if kind == "query" and value.startswith("#"):
        return (
            f"expected a query id not starting with '#' (a comment in a TREC file), found {value!r}"
        )
    if value.startswith(FORMULA_STARTS):
        return (f"expected a {kind} id not starting with '=', '+', '-' or '@' (a spreadsheet "
                f"would run it as a formula), found {value!r}")  # fmt: skip
    if has_space(value) or has_control(value):
        return (f"expected a {kind} id without white space or control characters, found "
                f"{value!r}")  # fmt: skip
    return None


def alike_earlier(
    value: str, line: int, seen: dict[str, tuple[str, int]]
) -> tuple[str, int] | None:
    """The earlier id (and its line) of one file that `value` looks like -- the same but for
    invisible characters or Unicode normalisation (`inert.look_alike`) -- or None; `seen` (the
    file's ids so far, by their look-alike form) records `value` at `line`."""
    earlier = seen.setdefault(look_alike(value), (value, line))
    return earlier if earlier[0] != value else None


def has_alike(ids: Collection[str]) -> bool:
    """Whether two distinct ids among `ids` look alike (`alike_earlier`): a readers' fast path
    asks, and its line loop names the line. Ids all in ASCII never do (one scan: of the ids
    joined, in C, not one call an id -- a tenth of reading 300,000 judgments)."""
    if "".join(ids).isascii():
        return False
    seen: dict[str, tuple[str, int]] = {}
    return any(alike_earlier(value, 0, seen) is not None for value in ids)


def alike_problem(kind: str, value: str, earlier: str, line: int) -> str:
    """The ``expected …, found …`` of a `kind` id that looks like one on an earlier `line`: both
    shown with their invisible characters (`inert.visible`), or as escapes when even those
    look the same (a composed and a decomposed accent)."""
    one, other = visible(value), visible(earlier)
    if unicodedata.normalize("NFC", one) == unicodedata.normalize("NFC", other):
        one, other = ascii(value)[1:-1], ascii(earlier)[1:-1]
    return (
        f"expected {kind} ids that differ in more than invisible characters or Unicode "
        f"normalisation, found '{one}' and '{other}' (line {line})"
    )


_M = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def offsets_of(arr: pa.Array) -> np.ndarray:
    """The ``len(arr) + 1`` offsets of an Arrow string or binary array's values in its data
    buffer (a view, no copy)."""
    kind = np.int64 if arr.type in (pa.large_string(), pa.large_binary()) else np.int32
    return np.frombuffer(arr.buffers()[1], dtype=kind)[arr.offset : arr.offset + len(arr) + 1]


def kernel(name: str, *args: Any, options: Any = None) -> Any:
    """Arrow's compute function `name` on `args` (arrays, chunked arrays or scalars), its arrays
    from `POOL`: called by name, as ``pyarrow.compute`` calls it, without importing that module
    -- it builds a Python wrapper for each of Arrow's functions when imported (50 ms)."""
    return _compute.call_function(name, list(args), options, POOL)


def joined(column: pa.ChunkedArray) -> pa.Array:
    """A column's chunks as one array, from `POOL` (``combine_chunks`` takes a pool and uses
    the default one)."""
    if column.num_chunks == 1:
        return column.chunk(0)
    if column.num_chunks == 0:
        return column.combine_chunks()
    return pa.concat_arrays(column.chunks, memory_pool=POOL)


def flags_of(arr: pa.BooleanArray) -> np.ndarray:
    """An Arrow boolean array without nulls as a numpy bool array (its bits unpacked)."""
    bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
    flags = np.unpackbits(bits, count=arr.offset + len(arr), bitorder="little")
    return flags[arr.offset :].view(bool)


def numbers_of(column: pa.ChunkedArray | pa.Array, dtype: type) -> np.ndarray | None:
    """A numeric Arrow column as a numpy array of `dtype` (a read-only view of one chunk, or the
    chunks joined); None when it holds a null."""
    arr = joined(column) if isinstance(column, pa.ChunkedArray) else column
    if arr.null_count:
        return None
    return np.frombuffer(
        arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * np.dtype(dtype).itemsize
    )


def plain_empty(count: int, dtype: Any) -> np.ndarray:
    """``np.empty(count, dtype)``, in memory from `POOL` (the C library's malloc) where numpy
    would ask the kernel for transparent huge pages for it (numpy's default on Linux, for every
    array of 4 MiB or more). Where the kernel compacts memory to find them (its default THP
    defrag setting), and on the VM of docs/scale.md whose host takes back the guest's free
    high-order memory, faulting in the columns a 10-million-line run is joined into took one to
    two seconds of system time by turns; in plain pages a tenth of that, every time. Where numpy
    asks for none (the command line's ``--tune`` turns its request off) numpy's own array: taken
    from malloc through pyarrow there, the joins raised a tuned 50,000-question build's peak
    from 3.3 to 4.0 GB. Nothing about the process is changed: numpy's setting is only read."""
    asks = getattr(_numpy_arrays, "_get_madvise_hugepage", None)
    if asks is None or not asks():
        return np.empty(count, dtype=dtype)
    dtype = np.dtype(dtype)
    buffer = pa.allocate_buffer(max(1, count * dtype.itemsize), memory_pool=POOL)
    return np.frombuffer(buffer, dtype=dtype, count=count)


def plain_concatenate(pieces: Sequence[np.ndarray]) -> np.ndarray:
    """``np.concatenate(pieces)`` into a `plain_empty` array."""
    dtype = np.result_type(*(piece.dtype for piece in pieces))
    return np.concatenate(pieces, out=plain_empty(sum(piece.size for piece in pieces), dtype))


def indices_of(values: np.ndarray) -> pa.Array:
    """Integer positions as an Arrow int64 array (for ``take``), from their buffer."""
    data = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def fixed_width_of(ids: Sequence[str | bytes]) -> np.ndarray:
    """Ids as :func:`fixed_width` holds them (UTF-8, zero-padded to whole 8-byte words), from
    Python strings or bytes. All ASCII strings (or all bytes), as most ids are, are joined into
    one Arrow binary array in C -- one join, one encode and their lengths -- instead of a Python
    loop of ``str.encode`` (three times as long for the 300,000 judged ids of 10,000 questions;
    ``pa.array`` would be as quick, but imports pandas when it is installed)."""
    if not len(ids):
        return np.empty(0, dtype="S8")
    try:
        joined = ("" if isinstance(ids[0], str) else b"").join(ids)  # type: ignore[arg-type]
    except TypeError:  # str and bytes mixed
        joined = None
    if isinstance(joined, str):
        joined = joined.encode("ascii") if joined.isascii() else None
    if joined is None:
        raw = [i.encode("utf-8") if isinstance(i, str) else i for i in ids]
        words = -(-max(1, max(map(len, raw))) // 8)
        return np.array(raw, dtype=f"S{8 * words}")
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, ids), dtype=np.int64, count=len(ids)), out=offsets[1:])
    arr = pa.Array.from_buffers(pa.large_binary(), len(ids),
                                [None, pa.py_buffer(offsets), pa.py_buffer(joined)])  # fmt: skip
    return fixed_width(arr)


def decoded_ids(ids: np.ndarray) -> list[str]:
    """Fixed-width ids (`fixed_width_of`) as str: one UTF-8 decode of all of them, joined by
    NUL (no id holds one: the readers refuse NUL bytes), instead of one decode an id."""
    if not ids.size:
        return []
    return b"\x00".join(ids.tolist()).decode("utf-8").split("\x00")


def longest_of(arr: pa.Array) -> int:
    """The byte length of the longest value of a non-empty Arrow binary (or string) array."""
    return int(np.diff(offsets_of(arr)).max())


def fixed_width(arr: pa.Array, longest: int | None = None) -> np.ndarray:
    """An Arrow binary (or string) array as a numpy fixed-width bytes array, without a Python
    loop: Arrow's byte-wise right pad (``ascii_rpad``, which counts bytes and checks none of
    them) pads every id with NUL bytes to the longest one's length (`longest`, when the caller
    has measured it: `longest_of`) rounded up to whole 8-byte words, and its result's data
    buffer is the array (so that :func:`doc_words` is a plain view). A gather of 8-byte loads
    per word, cut at each id's end, took half as long again."""
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype="S8")
    width = 8 * -(-max(1, longest_of(arr) if longest is None else longest) // 8)
    large = arr.type in (pa.large_string(), pa.large_binary())
    # the same buffers read as text: no copy and no UTF-8 check (the pad does not decode)
    text = pa.Array.from_buffers(pa.large_string() if large else pa.string(), n,
                                 arr.buffers()[:3], offset=arr.offset)  # fmt: skip
    padded = kernel("ascii_rpad", text, options=PadOptions(width, "\x00"))
    start = int(offsets_of(padded)[0])
    return np.frombuffer(padded.buffers()[2], dtype=f"S{width}", count=n, offset=start)


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


def query_salts(qids: Sequence[bytes]) -> np.ndarray:
    """A 64-bit salt per query id, from the id's own bytes (its `doc_hashes`, mixed once more so
    that a query and a document of the same name do not cancel): the same in every part of every
    run, so a block of lines gets its keys without knowing the run's other queries.

    Ids of very different lengths are hashed in groups of one padded width each (an id hashes
    alike at any width): padded to the longest together, 50,000 query ids and one of 400 KB
    would take 20 GB."""
    if not len(qids):
        return np.zeros(0, dtype=np.uint64)
    words = (np.fromiter(map(len, qids), dtype=np.int64, count=len(qids)) + 7) // 8
    if int(words.max()) * words.size <= 4 * int(words.sum()) + _FEW_WORDS:
        return _mix(doc_hashes(fixed_width_of(qids)) ^ _M[1])
    salts = np.empty(words.size, dtype=np.uint64)
    for width in np.unique(words).tolist():
        at = np.flatnonzero(words == width)
        salts[at] = _mix(doc_hashes(fixed_width_of([qids[i] for i in at.tolist()])) ^ _M[1])
    return salts


_FEW_WORDS = 1 << 17  # padded words (1 MB) always hashed as one array


def line_keys(counts: np.ndarray, doc_hash: np.ndarray, salts: np.ndarray) -> np.ndarray:
    """The (query, document) key of lines grouped by query (query ``i`` owns the next
    ``counts[i]`` lines and has ``salts[i]``): the document's hash xor its query's salt, made in
    `doc_hash` itself (every caller's hashes are its own, and a run read straight into its
    columns has its keys where the scan wrote the hashes)."""
    doc_hash ^= np.repeat(salts, counts)
    return doc_hash


def has_duplicates(group: np.ndarray, docs: np.ndarray, keys: np.ndarray) -> bool:
    """Whether some (group, doc) key occurs twice (`group` ascending, `keys` their `line_keys`):
    each half of the groups' keys sorted in its own thread (numpy sorts without the GIL), equal
    neighbours confirmed on the ids."""
    cut = int(np.searchsorted(group, group[group.size // 2])) if group.size else 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        repeated = list(pool.map(repeated_keys, (keys[:cut], keys[cut:])))
    if not any(r.size for r in repeated):
        return False
    return confirmed(group, docs, keys, np.concatenate(repeated))


def repeated_keys(keys: np.ndarray) -> np.ndarray:
    """The keys that occur more than once among `keys` (a key n times is there n - 1 times)."""
    ordered = np.sort(keys)
    repeated: np.ndarray = ordered[1:][ordered[1:] == ordered[:-1]]
    return repeated


def confirmed(group: np.ndarray, docs: np.ndarray, keys: np.ndarray, repeated: np.ndarray) -> bool:
    """Whether, among the lines whose key is one of `repeated`, a (group, doc) occurs twice: a
    true duplicate, not a hash collision."""
    suspects = np.flatnonzero(np.isin(keys, repeated))
    pairs = list(zip(group[suspects].tolist(), docs[suspects].tolist(), strict=True))
    return len(set(pairs)) < len(pairs)
