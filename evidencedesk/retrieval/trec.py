"""TREC interop: qrels (``qid 0 docid grade``) and runs (``qid Q0 docid rank score tag``).

Runs are read with numpy byte operations (no Python loop per line) into a :class:`Run`: arrays of
document ids and scores, grouped by query (queries sorted by id, like trec_eval) with per-query
offsets. Each query is ordered by score descending, ties broken by document id descending -- the
order trec_eval uses -- so that our numbers and trec_eval's agree on tied scores too. The rank
column is ignored, as trec_eval ignores it. Judging lives in :mod:`.trec_judge` (re-exported).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evidencedesk.errors import LabelsError, RunFileError
from evidencedesk.retrieval.trec_arrays import Bad, doc_words, has_duplicates, parse_chunk
from evidencedesk.textfile import read_text

__all__ = [
    "Run",
    "evaluate_run",
    "judge_trec_run",
    "qrels_from_labels",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]

Qrels = dict[str, dict[str, int]]
_CHUNK = 1 << 20  # bytes parsed per numpy pass (fits in cache)
RUN_FORM = "'qid Q0 docid rank score tag'"


@dataclass(frozen=True, eq=False)
class Run:
    """A ranked run: query ``i`` owns ``docs[offsets[i]:offsets[i+1]]`` (bytes ids, best first)."""

    qids: tuple[str, ...]
    offsets: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    tag: str = ""

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
    def from_dict(cls, run: Mapping[str, Mapping[str, float]], tag: str = "") -> Run:
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


def read_qrels(path: str | Path) -> Qrels:
    """{qid: {docid: grade}} in file order; the second column is ignored."""
    qrels: Qrels = {}
    for number, line in enumerate(_text(path, LabelsError).split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise LabelsError(path, f"expected 4 columns, found {len(parts)}", number)
        qid, _, doc, grade = parts
        try:
            value = int(grade)
        except ValueError:
            raise LabelsError(
                path, f"expected an integer grade in column 4, found {grade!r}", number
            ) from None
        docs = qrels.setdefault(qid, {})
        if doc in docs:
            raise LabelsError(
                path, f"expected each document once per query, found {doc!r} again", number
            )
        docs[doc] = value
    if not qrels:
        raise LabelsError(path, "expected lines 'qid 0 docid grade', found an empty file")
    return qrels


def _check_id(kind: str, value: str) -> None:
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"expected a {kind} without whitespace, found {value!r}")


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    lines: list[str] = []
    for qid, docs in qrels.items():
        _check_id("query id", qid)
        for doc, grade in docs.items():
            _check_id("document id", doc)
            lines.append(f"{qid} 0 {doc} {int(grade)}\n")
    Path(path).write_text("".join(lines), encoding="utf-8")


def write_run(
    path: str | Path, run: Run | Mapping[str, Mapping[str, float]], tag: str | None = None
) -> None:
    """Write ``qid Q0 docid rank score tag`` lines, ranks from 1 in reading order."""
    if not isinstance(run, Run):
        run = Run.from_dict(run)
    tag = tag or run.tag or "evidencedesk"
    _check_id("run tag", tag)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for i, qid in enumerate(run.qids):
            _check_id("query id", qid)
            a, b = int(run.offsets[i]), int(run.offsets[i + 1])
            docs = [d.decode("utf-8") for d in run.docs[a:b].tolist()]
            for doc in docs:
                _check_id("document id", doc)
            scores = run.scores[a:b].tolist()
            out.write(
                "".join(
                    f"{qid} Q0 {d} {r} {s!r} {tag}\n"
                    for r, (d, s) in enumerate(zip(docs, scores, strict=True), start=1)
                )
            )


# -- reading runs -----------------------------------------------------------------------------


def _diagnose(raw: bytes, path: str | Path) -> RunFileError:
    """The slow, line-by-line reading: finds the first bad line the fast path noticed."""
    seen: dict[bytes, dict[bytes, int]] = {}
    for number, line in enumerate(raw.split(b"\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return RunFileError(
                path, f"expected UTF-8 text, found byte 0x{line[exc.start]:02x}", number
            )
        if len(parts) != 6:
            return RunFileError(path, f"expected 6 columns, found {len(parts)}", number)
        text = parts[4].decode("utf-8")
        try:
            score = float(text)
        except ValueError:
            return RunFileError(
                path, f"expected a numeric score in column 5, found {text!r}", number
            )
        if not math.isfinite(score):
            return RunFileError(
                path, f"expected a finite score in column 5, found {text!r}", number
            )
        docs = seen.setdefault(parts[0], {})
        if parts[2] in docs:
            doc = parts[2].decode("utf-8")
            return RunFileError(
                path, f"expected each document once per query, found {doc!r} again", number
            )
        docs[parts[2]] = number
    return RunFileError(path, f"expected lines {RUN_FORM}, found an unreadable file")


def _query_codes(qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Distinct qids (sorted), the code of every line, and a permutation grouping the lines by
    code (None when they already are)."""
    seg = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    uniq, inv = np.unique(qs[seg], return_inverse=True)
    inv = inv.ravel()
    lens = np.diff(np.r_[seg, qs.size])
    qcode = np.repeat(inv, lens)
    if (np.diff(inv) > 0).all():
        return uniq, qcode, None
    if uniq.size == seg.size:  # one block per query, blocks out of order: move whole blocks
        order = np.argsort(inv)
        starts = seg[order] - np.r_[0, np.cumsum(lens[order])[:-1]]
        return uniq, qcode, np.repeat(starts, lens[order]) + np.arange(qs.size)
    return uniq, qcode, np.argsort(qcode, kind="stable")


def _order(qcode: np.ndarray, scores: np.ndarray, docs: np.ndarray, words: np.ndarray):
    """Permutation to score descending, doc id descending within each query (None: in order)."""
    same = qcode[1:] == qcode[:-1]
    desc_keys = [~words[:, c] for c in range(words.shape[1] - 1, -1, -1)]
    if (same & (scores[:-1] < scores[1:])).any():  # not sorted by score: sort everything
        return np.lexsort((*desc_keys, -scores, qcode))
    ties = same & (scores[:-1] == scores[1:])
    if (docs[:-1][ties] > docs[1:][ties]).all():
        return None
    # sorted by score; only runs of tied scores need their documents reordered
    tie_run = np.cumsum(np.r_[True, ~ties])
    member = np.zeros(qcode.size, dtype=bool)
    member[:-1] |= ties
    member[1:] |= ties
    idx = np.flatnonzero(member)
    order = np.arange(qcode.size)
    order[idx] = idx[np.lexsort((*(k[idx] for k in desc_keys), tie_run[idx]))]
    return order


def read_run(path: str | Path) -> Run:
    """Read a TREC run; errors name file:line and what was expected."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RunFileError(path, f"expected a readable file, found {exc.strerror or exc}") from None
    data = np.frombuffer(raw, dtype=np.uint8)
    parts = []
    try:
        start = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
        while start < len(raw):
            stop = raw.rfind(b"\n", start, start + _CHUNK) + 1
            if stop <= start:
                stop = raw.find(b"\n", start + _CHUNK) + 1 or len(raw)
            buf = data[start:stop]
            if buf[-1] != 10:
                buf = np.concatenate([buf, np.array([10], dtype=np.uint8)])
            parts.append(parse_chunk(buf))
            start = stop
        parts = [p for p in parts if p[0].size]
        if not parts:
            raise RunFileError(path, f"expected lines {RUN_FORM}, found an empty file")
        qs = np.concatenate([p[0] for p in parts])
        docs = np.concatenate([p[1] for p in parts])
        scores = np.concatenate([p[2] for p in parts])
        uniq, qcode, perm = _query_codes(qs)
        if perm is not None:
            qcode, docs, scores = qcode[perm], docs[perm], scores[perm]
        words = doc_words(docs, -(-docs.dtype.itemsize // 8))
        order = _order(qcode, scores, docs, words)
        if order is not None:
            qcode, docs, scores, words = qcode[order], docs[order], scores[order], words[order]
        if has_duplicates(qcode, docs, words):
            raise Bad
    except Bad:
        raise _diagnose(raw, path) from None
    counts = np.bincount(qcode, minlength=uniq.size)
    qids = tuple(q.decode("utf-8") for q in uniq.tolist())
    tag = parts[0][3].decode("utf-8")
    return Run(qids, np.r_[0, np.cumsum(counts)].astype(np.int64), docs, scores, tag)


from evidencedesk.retrieval.trec_judge import (  # noqa: E402  (re-export; needs Run above)
    evaluate_run,
    judge_trec_run,
    qrels_from_labels,
)
