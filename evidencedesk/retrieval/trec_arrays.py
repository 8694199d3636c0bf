"""Byte-level numpy helpers behind :mod:`.trec`: split run lines into columns, parse scores, hash
(query, document) keys and look them up -- no Python loop per line.

Anything unusual makes :func:`parse_chunk` raise :class:`Bad`; the caller then re-reads the file
line by line to name the first bad line.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["Bad", "HashIndex", "doc_words", "has_duplicates", "key_hash", "parse_chunk"]

_POW10 = 10.0 ** np.arange(16)
_M = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


class Bad(Exception):
    """The fast path saw something wrong (or unusual); the slow reader names it."""


def _canonical(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Token bounds, shape (lines, 6), when every line is six tokens joined by single spaces."""
    sep = np.flatnonzero((buf == 32) | (buf == 10))
    if sep.size % 6 or np.count_nonzero(buf <= 32) != sep.size:
        return None
    ends = sep.reshape(-1, 6)
    if (buf[ends[:, 5]] != 10).any() or (buf[ends[:, :5]] != 32).any():
        return None
    starts = np.empty_like(ends)
    starts[0, 0] = 0
    starts[1:, 0] = ends[:-1, 5] + 1
    starts[:, 1:] = ends[:, :5] + 1
    if (ends <= starts).any():  # an empty token: a blank line or a double space
        return None
    return starts, ends


def _general(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Token bounds for any ASCII whitespace; raises Bad unless each non-blank line has six."""
    sep = (buf == 32) | ((buf >= 9) & (buf <= 13))
    change = np.flatnonzero(sep[1:] != sep[:-1]) + 1
    if not sep[0]:
        change = np.r_[0, change]
    starts, ends = change[0::2], change[1::2]
    if starts.size % 6:
        raise Bad
    newlines = np.flatnonzero(buf == 10)
    line = np.searchsorted(newlines, starts[0::6])
    if (line != np.searchsorted(newlines, ends[5::6] - 1)).any() or (np.diff(line) <= 0).any():
        raise Bad  # a line without exactly six columns
    return starts.reshape(-1, 6), ends.reshape(-1, 6)


def _ids(padded: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Tokens as a fixed-width bytes array (zero padded, so numpy strips the padding)."""
    lens = e - s
    width = int(lens.max())
    mat = sliding_window_view(padded, width)[s]  # a fresh C-ordered (n, width) copy
    if int(lens.min()) < width:
        mat *= np.arange(width, dtype=np.int32) < lens[:, None]
    return mat.view(f"S{width}").ravel()


def _scores(padded: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Decimal scores ``[-+]digits[.digits]`` with at most 15 digits are parsed exactly
    (integer mantissa / 10^frac is correctly rounded, as float() is); others (exponents, long
    mantissas) go through numpy's float parser; non-numbers and non-finite values raise Bad."""
    lens = e - s
    n = s.size
    mant = np.zeros(n, dtype=np.int64)
    frac = np.zeros(n, dtype=np.int64)
    ndig = np.zeros(n, dtype=np.int64)
    seen_dot = np.zeros(n, dtype=bool)
    odd = np.zeros(n, dtype=bool)
    first = padded[s]
    negative = first == 45
    signed = negative | (first == 43)
    for c in range(int(lens.max())):
        ch = padded[s + c]
        inside = lens > c
        digit = ((ch - np.uint8(48)) < 10) & inside
        dot = (ch == 46) & inside
        other = inside & ~digit & ~dot
        if c == 0:
            other &= ~signed
        odd |= other | (dot & seen_dot)
        mant = np.where(digit, mant * 10 + (ch.astype(np.int64) - 48), mant)
        frac += digit & seen_dot
        ndig += digit
        seen_dot |= dot
    odd |= (ndig == 0) | (ndig > 15)
    values = mant / _POW10[np.minimum(frac, 15)]
    values = np.where(negative, -values, values)
    if odd.any():
        try:
            values[odd] = _ids(padded, s[odd], e[odd]).astype(np.float64)
        except ValueError:
            raise Bad from None
    if not np.isfinite(values).all():
        raise Bad
    return values


def parse_chunk(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
    """One newline-terminated chunk of a run -> qid bytes, doc bytes, scores, the first tag."""
    bounds = _canonical(buf) or _general(buf)
    starts, ends = bounds
    if starts.shape[0] == 0:
        empty = np.empty(0, dtype="S1")
        return empty, empty, np.empty(0), b""
    if int(buf.max()) >= 0x80:
        try:
            buf.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            raise Bad from None
    padded = np.concatenate([buf, np.zeros(int((ends - starts).max()), dtype=np.uint8)])
    qids = _ids(padded, starts[:, 0], ends[:, 0])
    docs = _ids(padded, starts[:, 2], ends[:, 2])
    scores = _scores(padded, starts[:, 4], ends[:, 4])
    return qids, docs, scores, buf[starts[0, 5] : ends[0, 5]].tobytes()


def doc_words(docs: np.ndarray, width: int) -> np.ndarray:
    """Byte strings as (n, width) big-endian uint64 words: integer order = byte order."""
    size = docs.dtype.itemsize
    mat = np.zeros((docs.size, width * 8), dtype=np.uint8)
    mat[:, :size] = np.ascontiguousarray(docs).view(np.uint8).reshape(docs.size, size)
    return mat.view(">u8").astype(np.uint64)


def key_hash(group: np.ndarray, words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (group, word row) per row (splitmix64 steps); equal keys, equal hashes."""
    h = (group.astype(np.uint64) + np.uint64(1)) * _M[0]
    for c in range(words.shape[1]):
        h ^= words[:, c]
        h ^= h >> np.uint64(30)
        h *= _M[1]
        h ^= h >> np.uint64(27)
        h *= _M[2]
        h ^= h >> np.uint64(31)
    return h


def has_duplicates(group: np.ndarray, docs: np.ndarray, words: np.ndarray) -> bool:
    """Whether some (group, doc) key occurs twice (hash, sort, then confirm exactly)."""
    h = key_hash(group, words)
    hs = np.sort(h)
    same = hs[1:] == hs[:-1]
    if not same.any():
        return False
    suspects = np.flatnonzero(np.isin(h, hs[1:][same]))
    keys = list(zip(group[suspects].tolist(), docs[suspects].tolist(), strict=True))
    return len(set(keys)) < len(keys)  # a true duplicate, not a hash collision


class HashIndex:
    """Open-addressing table of distinct 64-bit hashes -> row; vectorized insert and lookup."""

    def __init__(self, hashes: np.ndarray):
        bits = max(4, int(np.ceil(np.log2(max(1, hashes.size) * 4))))
        self.shift = np.uint64(64 - min(24, bits + 3))  # prefilter: a bitmap of the top bits
        self.seen = np.zeros(1 << (64 - int(self.shift)), dtype=bool)
        self.seen[hashes >> self.shift] = True
        self.mask = np.uint64((1 << bits) - 1)
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.rows = np.full(1 << bits, -1, dtype=np.int64)
        pending = np.arange(hashes.size)
        slots = hashes & self.mask
        while pending.size:
            free = self.rows[slots[pending]] == -1
            cand = pending[free]
            taken, first = np.unique(slots[cand], return_index=True)
            self.rows[taken] = cand[first]
            self.keys[taken] = hashes[cand[first]]
            placed = np.zeros(hashes.size, dtype=bool)
            placed[cand[first]] = True
            pending = pending[~placed[pending]]
            slots[pending] = (slots[pending] + np.uint64(1)) & self.mask

    def find(self, hashes: np.ndarray) -> np.ndarray:
        """Row of every hash, -1 when absent."""
        found = np.full(hashes.size, -1, dtype=np.int64)
        active = np.flatnonzero(self.seen[hashes >> self.shift])  # most keys stop here
        slots = hashes[active] & self.mask
        while active.size:
            rows = self.rows[slots]
            match = (rows >= 0) & (self.keys[slots] == hashes[active])
            found[active[match]] = rows[match]
            go_on = (rows >= 0) & ~match
            active, slots = active[go_on], (slots[go_on] + np.uint64(1)) & self.mask
        return found
