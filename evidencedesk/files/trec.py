"""TREC interop: qrels (``qid 0 docid grade``) and runs (``qid Q0 docid rank score tag``).

Runs are read with pyarrow's streaming CSV reader (:mod:`.trec_arrays`, in threads over byte
ranges for a large run; a line-by-line pass names the bad line when it fails) into a :class:`TrecRun`: arrays of document ids and scores, grouped by query (queries sorted by id, like trec_eval) with per-query
offsets. Each query is ordered by score descending, ties broken by document id descending -- the
order trec_eval uses -- so that our numbers and trec_eval's agree on tied scores too. The rank
column is ignored, as trec_eval ignores it; the queries whose lines' scores rise down the file,
and those whose lines all share one score, are counted (`_ScoreOrder`), since there the line
order a run was written in does not count, which the report says. Judging lives in
:mod:`.trec_judge`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evidencedesk.errors import LabelsError, RunFileError
from evidencedesk.files._text import (
    MAX_LINE_BYTES,
    LongestId,
    check_input,
    line_too_long,
    read_text,
    shown,
)
from evidencedesk.files._trec_arrays import (
    NUMBER,
    Bad,
    Columns,
    Stretches,
    _tie_order,
    fast_columns,
    fast_qrels,
    slow_columns,
)
from evidencedesk.files._trec_keys import (
    alike_earlier,
    alike_problem,
    doc_hashes,
    has_alike,
    id_problem,
    line_keys,
    query_salts,
)
from evidencedesk.files._writing import write_file

__all__ = [
    "Qrels",
    "TrecRun",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]

Qrels = dict[str, dict[str, int]]  # question id -> document id -> grade, as a qrels file gives them


@dataclass(frozen=True)
class _ScoreOrder:
    """Where a run's file order does not count, as read from the file: the queries with a line
    scoring higher than the query's line before it (`rising`: a run written best first with
    distances, or with the scores of a stage its ranks no longer follow), and the queries of two
    lines or more that all share one score (`flat`: ranked by document id alone), each with the
    first `_ORDER_IDS` of them (in query order). Ranked by score all the same, ties by document
    id descending, as trec_eval ranks them."""

    rising: int = 0
    rising_ids: tuple[str, ...] = ()
    flat: int = 0
    flat_ids: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class TrecRun:
    """A ranked run: query ``i`` owns ``docs[offsets[i]:offsets[i+1]]`` (bytes ids, best first);
    `order` (read from a file): the queries whose scores rise down it (`order.rising`, the first
    three `order.rising_ids`) and whose lines all tie (`order.flat`, `order.flat_ids`)."""

    qids: tuple[str, ...]
    offsets: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    tag: str = ""
    keys: np.ndarray | None = field(default=None, repr=False)  # hash per (query, doc id) line
    order: _ScoreOrder = _ScoreOrder()

    def __post_init__(self) -> None:
        # computed once: the duplicate check and judging both use them
        if self.keys is None:
            salts = query_salts([q.encode("utf-8") for q in self.qids])
            keys = line_keys(np.diff(self.offsets), doc_hashes(self.docs), salts)
            object.__setattr__(self, "keys", keys)

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def n_lines(self) -> int:
        return int(self.docs.size)

    def ranked(self, qid: str) -> list[tuple[str, float]]:
        """(doc id, score) of one query, best first; [] for a query not in the run."""
        try:
            i = self.qids.index(qid)
        except ValueError:
            return []
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        docs = [d.decode("utf-8") for d in self.docs[a:b].tolist()]
        return list(zip(docs, self.scores[a:b].tolist(), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        return {q: dict(self.ranked(q)) for q in self.qids}

    @classmethod
    def from_dict(cls, run: Mapping[str, Mapping[str, float]], tag: str = "") -> TrecRun:
        """Build from {qid: {docid: score}}; orders like :func:`read_run`."""
        qids = sorted(run, key=lambda q: q.encode("utf-8"))
        docs: list[bytes] = []
        scores: list[float] = []
        offsets = [0]
        for q in qids:
            items = sorted(((float(s), d.encode("utf-8")) for d, s in run[q].items()), reverse=True)
            docs.extend(d for _, d in items)
            scores.extend(s for s, _ in items)
            offsets.append(len(docs))
        width = max((len(d) for d in docs), default=1) or 1
        return cls(
            tuple(qids),
            np.asarray(offsets, dtype=np.int64),
            np.asarray(docs, dtype=f"S{width}"),
            np.asarray(scores, dtype=np.float64),
            tag,
        )


# -- qrels ------------------------------------------------------------------------------------


def _text(path: str | Path, error: type[LabelsError] | type[RunFileError]) -> str:
    return read_text(path, error)


# where a line of a qrels or run file ends: LF, CRLF, or a CR alone (an old Mac's)
_LINE_END = re.compile(r"\r\n|\r|\n")
# what separates the columns of a TREC line, as trec_eval and the run reader split them (ASCII
# white space; CR and LF end the line); the BEIR qrels reader splits at tabs, and both refuse
# an id holding any other white space (`id_problem`)
_ID_SPACE = re.compile(r"[ \t\v\f]+")

# judged grades; a negative one (TREC Web's -2 "junk", -1) is judged not relevant: it counts as
# 0 in every metric and is shown as its value
_GRADES = (-100, 100)
_GRADE = re.compile(r"-?[0-9]+")  # ASCII digits only; int() would take "１" and "1_0"


def read_qrels(path: str | Path) -> Qrels:
    """{qid: {docid: grade}} in file order; the second column is ignored, and so are blank
    lines and comment lines (first non-blank character ``#``), as trec_eval reads qrels.

    Grades are integers from -100 to 100 (`_GRADES`); a negative one is judged not relevant.
    """
    check_input(path, LabelsError)
    try:
        fast = fast_qrels(path, *_GRADES)
        if not has_alike(fast) and not has_alike(
            list(itertools.chain.from_iterable(fast.values()))
        ):
            return fast
    except Bad:
        pass  # the line loop below names the first bad line (or look-alike id)
    except OSError as exc:
        raise LabelsError(path, f"expected a readable file, found {exc.strerror or exc}") from None
    qrels: Qrels = {}
    alike: tuple[dict[str, tuple[str, int]], ...] = ({}, {})  # query ids, document ids
    count, longest = 0, LongestId()  # judgments, and the longest document id
    for number, line in enumerate(_LINE_END.split(_text(path, LabelsError)), start=1):
        if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8")) > MAX_LINE_BYTES:
            raise LabelsError(path, line_too_long(len(line.encode("utf-8"))), number)
        parts = _ID_SPACE.split(line.strip(" \t\v\f"))
        parts = [] if parts == [""] else parts
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 4:
            raise LabelsError(path, f"expected 4 columns, found {len(parts)}", number)
        qid, _, doc, grade = parts
        if not _GRADE.fullmatch(grade):
            raise LabelsError(
                path, f"expected an integer grade in column 4, found {shown(grade)}", number
            )
        value = int(grade) if len(grade) < 5 else _GRADES[1] + 1
        if not _GRADES[0] <= value <= _GRADES[1]:
            raise LabelsError(
                path,
                f"expected a grade from {_GRADES[0]} to {_GRADES[1]} in column 4, found "
                f"{shown(grade)}",
                number,
            )
        problem = id_problem(qid, "query") or id_problem(doc, "document")
        if problem is not None:
            raise LabelsError(path, problem, number)
        for key, kind, seen in ((qid, "query", alike[0]), (doc, "document", alike[1])):
            earlier = alike_earlier(key, number, seen)
            if earlier is not None:
                raise LabelsError(path, alike_problem(kind, key, *earlier), number)
        docs = qrels.setdefault(qid, {})
        if doc in docs:
            raise LabelsError(
                path, f"expected each document once per query, found {shown(doc)} again", number
            )
        docs[doc] = value
        count += 1
        longest.see(doc, number)
    if not qrels:
        raise LabelsError(path, "expected lines 'qid 0 docid grade', found an empty file")
    longest.check(path, count, "judgments", LabelsError)
    return qrels


def _check_id(kind: str, value: str) -> None:
    """Refuse an id the file would not read back as itself (`id_problem`; a run tag: ASCII white
    space, where the readers split columns and lines; a tag they read is written back)."""
    problem = id_problem(value, kind) if kind != "run tag" else None
    if problem is None and (not value or re.search(r"[ \t\n\r\v\f]", value)):
        problem = f"expected a {kind} without whitespace, found {value!r}"
    if problem is not None:
        raise ValueError(problem)


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Write ``qid 0 docid grade`` lines (`writing.write_file`: a new file, written atomically)."""
    lines: list[str] = []
    for qid, docs in qrels.items():
        _check_id("query", qid)
        for doc, grade in docs.items():
            _check_id("document", doc)
            lines.append(f"{qid} 0 {doc} {int(grade)}\n")
    write_file(path, "".join(lines).encode("utf-8"), "qrels file")


def write_run(
    path: str | Path, run: TrecRun | Mapping[str, Mapping[str, float]], tag: str | None = None,
    replaces: Callable[[Path], bool] | None = None, replaceable: str | None = None,
) -> None:  # fmt: skip
    """Write ``qid Q0 docid rank score tag`` lines, ranks from 1 in reading order
    (`writing.write_file`: a new file, written atomically; an existing one only when
    `replaces` says it is ours, `replaceable` wording what may be there)."""
    if not isinstance(run, TrecRun):
        run = TrecRun.from_dict(run)
    tag = tag or run.tag or "evidencedesk"
    _check_id("run tag", tag)
    lines: list[str] = []
    for i, qid in enumerate(run.qids):
        _check_id("query", qid)
        a, b = int(run.offsets[i]), int(run.offsets[i + 1])
        docs = [d.decode("utf-8") for d in run.docs[a:b].tolist()]
        for doc in docs:
            _check_id("document", doc)
        scores = run.scores[a:b].tolist()
        lines += [f"{qid} Q0 {d} {r} {s!r} {tag}\n"
                  for r, (d, s) in enumerate(zip(docs, scores, strict=True), start=1)]  # fmt: skip
    write_file(path, "".join(lines).encode("utf-8"), "run file", replaces, replaceable)


# -- reading runs -----------------------------------------------------------------------------


_SNIFF_BYTES = 64 << 10  # how much of a file `_looks_like_run` reads


def _looks_like_run(path: str | Path) -> bool:
    """Whether the file's first line that is neither blank nor a comment reads as a run line
    (six or more columns, a number in the fifth): how a folder of runs tells a run from a
    note or a README left beside them. A run that looks like one and is damaged further down
    is still read, and refused with its line."""
    with open(path, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    for line in head.removeprefix(b"\xef\xbb\xbf").split(b"\n"):
        parts = line.split()
        if parts and not parts[0].startswith(b"#"):
            return len(parts) >= 6 and NUMBER.fullmatch(parts[4]) is not None
    return False


def _block_order(qcode: np.ndarray) -> np.ndarray | None:
    """A permutation grouping the lines by query code (None when they already are)."""
    if qcode.size < 2 or bool(np.all(qcode[1:] >= qcode[:-1])):
        return None
    seg = np.flatnonzero(np.r_[True, qcode[1:] != qcode[:-1]])
    lens = np.diff(np.r_[seg, qcode.size])
    inv = qcode[seg]
    if np.unique(inv).size == seg.size:  # one block per query, blocks out of order: move blocks
        order = np.argsort(inv)
        starts = seg[order] - np.r_[0, np.cumsum(lens[order])[:-1]]
        return np.repeat(starts, lens[order]) + np.arange(qcode.size)
    return np.argsort(qcode, kind="stable")


_ORDER_IDS = 3  # the queries of each kind a `_ScoreOrder` names


def _rising(qcode: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The codes of the queries (lines grouped by query, each query's in file order) with a
    line scoring higher than the line before it, ascending."""
    rise = (qcode[1:] == qcode[:-1]) & (scores[:-1] < scores[1:])
    codes: np.ndarray = qcode[1:][rise]  # ascending, as the lines are grouped
    if not codes.size:
        return codes
    distinct: np.ndarray = codes[np.r_[True, codes[1:] != codes[:-1]]]
    return distinct


def _score_order(qcode: np.ndarray, scores: np.ndarray, rising: np.ndarray) -> np.ndarray | None:
    """Permutation to score descending within each query (None: already so, no query
    `rising`); tied scores in any order (:func:`_tie_order` puts them right)."""
    if not rising.size:
        return None
    # one lexsort: half the time of ranking the scores and sorting a combined integer key on a
    # run whose lines are shuffled (10 million lines: 1.6 s against 3.5 s)
    return np.lexsort((-scores, qcode))


def _sorted_run(columns: Columns) -> TrecRun:
    qids, lines, docs, scores, tag, keys = columns
    # lines in order already need no code per line (`Stretches.in_order_counts`: one pass that
    # stops at the first line out of place, where the sorts' checks each made arrays of the
    # run's length), and the few ties out of order (across two parts) are put right in place
    stretches = lines if isinstance(lines, Stretches) else Stretches.of(lines)
    found = stretches.in_order_counts(scores, len(qids), docs)
    rising = np.zeros(0, dtype=np.intp)  # in order: no score rises
    if found is not None and found[1].size <= _FEW_TIES:
        counts, wrong = found
        if wrong.size:
            _order_ties(wrong, counts, scores, docs, keys)
    else:
        qcode = stretches.lines() if isinstance(lines, Stretches) else lines
        docs, scores, keys, counts, rising = _put_in_order(qids, qcode, docs, scores, keys)
    if keys is None:
        keys = line_keys(counts, doc_hashes(docs), query_salts(qids))
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    names = tuple(q.decode("utf-8") for q in qids)
    order = _order_of(names, offsets, scores, rising)
    return TrecRun(names, offsets, docs, scores, tag.decode("utf-8"), keys, order)


def _order_of(
    names: tuple[str, ...], offsets: np.ndarray, scores: np.ndarray, rising: np.ndarray
) -> _ScoreOrder:
    """The `_ScoreOrder` of a run in trec_eval's order (each query's scores falling), given the
    queries whose scores rose in the file (`_rising`): a query is flat when its first score,
    the highest, equals its last, the lowest."""
    multi = np.flatnonzero(np.diff(offsets) >= 2)
    flat = multi[scores[offsets[multi]] == scores[offsets[multi + 1] - 1]]
    return _ScoreOrder(int(rising.size), tuple(names[i] for i in rising[:_ORDER_IDS].tolist()),
                      int(flat.size), tuple(names[i] for i in flat[:_ORDER_IDS].tolist()))  # fmt: skip


_FEW_TIES = 4096  # ties out of order that `_order_ties` puts right one by one (more: a sort)


def _order_ties(
    wrong: np.ndarray,
    counts: np.ndarray,
    scores: np.ndarray,
    docs: np.ndarray,
    keys: np.ndarray | None,
) -> None:
    """Put in trec_eval's order (document id descending), in place, each tie holding one of the
    pairs `wrong` (upper lines of tied neighbours of one query whose documents are out of
    order). `Stretches.in_order_counts` has checked every other line: within a query (`counts`
    lines each, in query order) the scores never rise, so a tie is the query's lines of that
    score, found by a binary search of its scores."""
    ends = np.cumsum(counts)
    done = -1  # the last line of the last tie put in order
    for upper in wrong.tolist():
        if upper <= done:
            continue
        query = int(np.searchsorted(ends, upper, side="right"))
        first, last = int(ends[query] - counts[query]), int(ends[query])
        falling = -scores[first:last]  # ascending
        start = first + int(np.searchsorted(falling, -scores[upper], side="left"))
        stop = first + int(np.searchsorted(falling, -scores[upper], side="right"))
        order = start + np.argsort(docs[start:stop], kind="stable")[::-1]
        docs[start:stop] = docs[order]
        if keys is not None:
            keys[start:stop] = keys[order]
        done = stop - 1


def _put_in_order(
    qids: list[bytes],
    qcode: np.ndarray,
    docs: np.ndarray,
    scores: np.ndarray,
    keys: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """The lines in trec_eval's order (query, then score descending, then document id
    descending), each query's number of lines, and the queries whose scores rise down the file
    (`_rising`)."""
    order = _block_order(qcode)  # stable: each query's lines stay in file order
    if order is not None:
        qcode, docs, scores = qcode[order], docs[order], scores[order]
        keys = None if keys is None else keys[order]
    rising = _rising(qcode, scores)
    order = _score_order(qcode, scores, rising)
    if order is not None:
        qcode, docs, scores = qcode[order], docs[order], scores[order]
        keys = None if keys is None else keys[order]
    fix = _tie_order(qcode, scores, docs)
    if fix is not None:  # within one query: a line's key moves with its document
        at, source = fix
        docs[at] = docs[source]
        if keys is not None:
            keys[at] = keys[source]
    # the lines are grouped by query, ascending: each query's count from where its lines start
    # (the bounds in the codes' own type: int64 bounds made numpy copy every code to int64
    # first, 400 MB and a quarter second for a run of 50 million lines)
    counts = np.diff(np.searchsorted(qcode, np.arange(len(qids) + 1, dtype=qcode.dtype)))
    return docs, scores, keys, counts, rising


# the first bytes of a compressed file, and the program that decompresses it
_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
               (b"\x28\xb5\x2f\xfd", "zstd"))  # fmt: skip


def _refuse_compressed(path: str | Path) -> None:
    """A compressed run is refused by name of its format: read as text, its first line would
    say only that a byte is not UTF-8."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    for magic, program in _COMPRESSED:
        if head.startswith(magic):
            raise RunFileError(
                path,
                f"expected an uncompressed TREC run, found {program}-compressed data "
                f"(decompress it first, e.g. {program} -d)",
                1,
            )


def read_run(path: str | Path) -> TrecRun:
    """Read a TREC run; errors name file:line and what was expected.

    Only a regular file within the per-file limit is opened (`evidencedesk.files._text`); lines
    longer than ``MAX_LINE_BYTES`` are refused.
    """
    check_input(path, RunFileError)
    try:
        _refuse_compressed(path)
        try:
            return _sorted_run(fast_columns(path))
        except Bad:
            return _sorted_run(slow_columns(path))
    except OSError as exc:
        raise RunFileError(path, f"expected a readable file, found {exc.strerror or exc}") from None
