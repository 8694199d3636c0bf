"""Judging TREC runs against qrels or our labels.

:func:`judge_trec_run` builds the :class:`Judged` lists every number of a build comes from
(drill-down pages, slices, paired statistics, the gate), matching the run and the qrels in one
vectorised pass; their values come from the one metric engine (:mod:`.metric_engine`). Building
the lists is most of the cost (about 0.4 s for 5,000 questions of 1,000 documents, the values
0.06 s): the lists are what the pages show, so there is no second path that skips them.

The questions are the labelled ones when labels are given, else every query in the qrels or the
run (sorted). A labelled question the run does not answer counts as an empty list (like
``trec_eval -c``); a question with no relevant judgment is undefined and left out of the means.
Document ids in a run may be chunk ids (``kc-returns-v3:c0``); grades come from the qrels, or
from the labels' ``grades`` when no qrels are given. Negative grades count as 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from evidencedesk.files.trec_keys import doc_hashes, fixed_width, query_salts
from evidencedesk.retrieval.metrics import RELEVANT, Judged

if TYPE_CHECKING:
    from evidencedesk.files.trec import Run

__all__ = [
    "judge_trec_run",
    "judge_trec_run_condensed",
    "qrels_from_labels",
]


def qrels_from_labels(labels: Iterable[Any]) -> dict[str, dict[str, int]]:
    """{question id: {chunk id: grade}} from labels (the TREC view of ``labels.jsonl``)."""
    return {label.id: dict(label.grades) for label in labels}


@dataclass(frozen=True)
class _Arrays:
    """The run's judged lines. `lines`/`grade` keep only the lines with a positive grade (a
    metric reads nothing else: an unjudged or grade-0 line adds 0 to every sum), so judging a
    run of 10 million lines keeps about as many entries as the qrels have; `judged` is every
    line the qrels grade at all, whatever the grade (Judged@k, condensed lists)."""

    questions: list[str]
    run_q: np.ndarray  # question index of every run query (-1: not a question)
    lines: np.ndarray  # run lines with a positive grade, ascending
    grade: np.ndarray  # their grades
    pool_q: np.ndarray  # question index of every positive judgment
    pool_g: np.ndarray  # its grade
    judged: np.ndarray  # every judged run line (any grade), ascending
    judged_grade: np.ndarray  # its grade (negative grades included)
    every_q: np.ndarray  # question index of every judgment, whatever its grade
    every_g: np.ndarray  # its grade

    def nonrelevant(self, relevant: int) -> np.ndarray:
        """Per question, the judgments graded 0 up to `relevant` - 1: bpref's N (a negative
        grade is "in the pool, not judged" there, as trec_eval reads it)."""
        below = (self.every_g >= 0) & (self.every_g < relevant)
        return np.bincount(self.every_q[below], minlength=len(self.questions))

    def line_grades(self, n_lines: int) -> np.ndarray:
        """The grade of every run line (0: not judged, or judged 0 or below)."""
        grades = np.zeros(n_lines, dtype=np.int64)
        grades[self.lines] = self.grade
        return grades

    def line_judged(self, n_lines: int) -> np.ndarray:
        """Whether each run line has a judgment."""
        flags = np.zeros(n_lines, dtype=bool)
        flags[self.judged] = True
        return flags

    def line_negative(self, n_lines: int) -> np.ndarray:
        """Whether each run line's judgment is below 0."""
        flags = np.zeros(n_lines, dtype=bool)
        flags[self.judged[self.judged_grade < 0]] = True
        return flags


def _candidates(keys: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The lines whose (query, doc) key may be a judged one: two bitmaps of the judged keys' top
    bits, a 1 MB one (it stays in a core's cache) over every line, a 16 MB one over its picks."""
    # the top bits index the bitmaps as int64 (a uint64 index is first copied to intp by numpy)
    small = np.zeros(1 << 20, dtype=bool)
    small[(judged >> np.uint64(44)).view(np.int64)] = True
    large = np.zeros(1 << 24, dtype=bool)
    large[(judged >> np.uint64(40)).view(np.int64)] = True
    cand = np.flatnonzero(small[(keys >> np.uint64(44)).view(np.int64)])
    return cand[large[(keys[cand] >> np.uint64(40)).view(np.int64)]]


def _arrays(run: Run, qrels: Mapping[str, Mapping[str, int]], questions: list[str]) -> _Arrays:
    index = {q: i for i, q in enumerate(questions)}
    run_q = np.array([index.get(q, -1) for q in run.qids], dtype=np.int64)
    run_index = {q: i for i, q in enumerate(run.qids)}
    # every judgment of every question, in question order: each question's ids and grades
    # joined by C-level chains
    judgments = [qrels.get(q, {}) for q in questions]
    sizes = np.fromiter(map(len, judgments), dtype=np.int64, count=len(judgments))
    every_g = np.fromiter(
        itertools.chain.from_iterable(j.values() for j in judgments), np.int64, int(sizes.sum())
    )
    every_q = np.repeat(np.arange(len(questions), dtype=np.int64), sizes)
    positive = every_g > 0
    # the judgment's run query (-1: the run does not answer it)
    asked = np.fromiter((run_index.get(q, -1) for q in questions), np.int64, len(questions))
    every_r = asked[every_q]
    lines = np.zeros(0, dtype=np.int64)
    grade = np.zeros(0, dtype=np.int64)
    answered = every_r >= 0
    if answered.any() and run.n_lines:
        every_d = pa.array(list(itertools.chain.from_iterable(judgments)), pa.string())
        judged = fixed_width(every_d.filter(pa.array(answered)))
        salts = query_salts([q.encode("utf-8") for q in run.qids])
        h_pool = doc_hashes(judged) ^ salts[every_r[answered]]  # the keys `line_keys` gives
        keys = run.keys  # a Run fills its (query, doc) key hashes on creation
        assert keys is not None
        cand = _candidates(keys, h_pool)
        cand_r = np.searchsorted(run.offsets, cand, side="right") - 1
        order = np.argsort(h_pool)
        at = np.minimum(np.searchsorted(h_pool[order], keys[cand]), order.size - 1)
        src = order[at]
        # equal hashes are confirmed on the ids themselves (collisions are possible)
        exact = (h_pool[src] == keys[cand]) & (every_r[answered][src] == cand_r)
        exact &= judged[src] == run.docs[cand]
        lines, grade = cand[exact], every_g[answered][src[exact]]
    keep = grade > 0
    return _Arrays(questions, run_q, lines[keep], grade[keep], every_q[positive],
                   every_g[positive], lines, grade, every_q, every_g)  # fmt: skip


def _questions(run: Run, qrels: Mapping[str, Any], labels: Sequence[Any] | None) -> list[str]:
    if labels is not None:
        return [label.id for label in labels]
    return sorted(set(qrels) | set(run.qids), key=lambda q: q.encode("utf-8"))


def _labels_and_qrels(
    qrels: Mapping[str, Mapping[str, int]] | None, labels_meta: Any
) -> tuple[Mapping[str, Mapping[str, int]], list[Any] | None]:
    labels = None
    if labels_meta is not None:
        labels = list(labels_meta.values() if isinstance(labels_meta, Mapping) else labels_meta)
    if qrels is None:
        if labels is None:
            raise ValueError("expected qrels or labels to judge the run against, found neither")
        qrels = qrels_from_labels(labels)
    return qrels, labels


def _ends(run: Run, arrays: _Arrays, relevant: int, depth: int, graded: bool) -> np.ndarray:
    """Per run query: where its judged head ends -- its top `depth`, and on through its first
    relevant result (MRR and the first relevant rank need it), or with `graded` through its last
    positively graded one (AP, R-precision, nDCG and bpref over the whole list), within its
    list."""
    starts, stops = run.offsets[:-1], run.offsets[1:]
    ends = np.minimum(stops, starts + depth)
    hits = arrays.lines if graded else arrays.lines[arrays.grade >= relevant]
    if hits.size:
        query = np.searchsorted(run.offsets, hits, side="right") - 1
        if graded:
            mark = np.r_[query[1:] != query[:-1], True]  # each query's last graded line
        else:
            mark = np.r_[True, query[1:] != query[:-1]]  # its first relevant one
        ends[query[mark]] = np.maximum(ends[query[mark]], hits[mark] + 1)
    return ends


def _distinct(docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(docs, return_inverse=True)`` up to the order of the distinct ids: one sort of
    the ids as 8-byte words when they are one word wide (numpy sorts bytes strings, and finds
    unique values, several times slower)."""
    if docs.dtype.itemsize != 8 or docs.size == 0:
        distinct, inverse = np.unique(docs, return_inverse=True)
        return distinct, inverse.ravel()
    words = np.ascontiguousarray(docs).view(np.uint64)
    order = np.argsort(words)
    ordered = words[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    inverse = np.empty(docs.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first].view(docs.dtype), inverse


def _kept(
    run: Run,
    grades: np.ndarray,
    judged: np.ndarray,
    negative: np.ndarray,
    spans: list[tuple[int, int, int | None]],
) -> tuple[
    Callable[[int], tuple[str, ...]],
    Callable[[int], tuple[int, ...]],
    Callable[[int], tuple[bool, ...] | None],
    Callable[[int], tuple[bool, ...] | None],
]:
    """Each span's document ids, grades, judged flags and negative flags as tuples, decoded in
    one pass: one str per distinct document id, shared by every list that returns it (a run of
    50,000 questions x 1,000 documents holds 50 million ids but far fewer distinct documents).
    A span whose results are all judged has None for judged flags (`Judged.judged`), one with no
    negative grade None for negative flags (`Judged.negative`)."""
    starts = np.fromiter((a for a, _, _ in spans), dtype=np.int64, count=len(spans))
    sizes = np.fromiter((b - a for a, b, _ in spans), dtype=np.int64, count=len(spans))
    bounds = np.r_[0, np.cumsum(sizes)].tolist()
    lines = np.repeat(starts - bounds[:-1], sizes) + np.arange(bounds[-1], dtype=np.int64)
    distinct, inverse = _distinct(run.docs[lines])
    names = np.array([d.decode("utf-8") for d in distinct.tolist()], dtype=object)
    ids = names[inverse].tolist()
    kept = grades[lines].tolist()
    flags = judged[lines]
    span_of = np.repeat(np.arange(len(spans)), sizes)
    unjudged = np.bincount(span_of[~flags], minlength=len(spans)).tolist()
    flag_list = flags.tolist()
    below = negative[lines]
    negatives = np.bincount(span_of[below], minlength=len(spans)).tolist()
    below_list = below.tolist()

    def ids_of(i: int) -> tuple[str, ...]:
        return tuple(ids[bounds[i] : bounds[i + 1]])

    def grades_of(i: int) -> tuple[int, ...]:
        return tuple(kept[bounds[i] : bounds[i + 1]])

    def judged_of(i: int) -> tuple[bool, ...] | None:
        return tuple(flag_list[bounds[i] : bounds[i + 1]]) if unjudged[i] else None

    def negative_of(i: int) -> tuple[bool, ...] | None:
        return tuple(below_list[bounds[i] : bounds[i + 1]]) if negatives[i] else None

    return ids_of, grades_of, judged_of, negative_of


def _judge(
    run: Run,
    arrays: _Arrays,
    labels: Sequence[Any] | None,
    k: int | None,
    relevant: int,
    depth: int | None,
    graded: bool = False,
    complete: Collection[str] | None = None,
    nonrelevant: list[int] | None = None,
) -> list[Judged]:
    """The Judged lists of `run`'s questions; `nonrelevant` (bpref's N per question) defaults
    to the qrels' judgments graded 0 up to `relevant` - 1."""
    questions = arrays.questions
    order = np.lexsort((-arrays.pool_g, arrays.pool_q))
    pool_g = arrays.pool_g[order]
    pool_bounds = np.searchsorted(arrays.pool_q[order], np.arange(len(questions) + 1))
    run_index = {q: i for i, q in enumerate(run.qids)}
    ends = None if depth is None else _ends(run, arrays, relevant, max(depth, 0), graded).tolist()
    spans: list[tuple[int, int, int | None]] = []  # each question's kept lines, its length
    for q in questions:
        a = b = 0
        r = run_index.get(q)
        if r is not None:
            a, b = int(run.offsets[r]), int(run.offsets[r + 1])
        if k is not None:
            b = min(b, a + k)
        returned = None
        if ends is not None and r is not None and ends[r] < b:
            returned, b = b - a, ends[r]
        spans.append((a, b, returned))
    n = run.n_lines
    flags = arrays.line_judged(n)
    if complete is not None and n:  # the judgments cover these ids: a missing grade is 0
        covered = fixed_width(pa.array(sorted(complete), pa.string()))
        flags |= np.isin(doc_hashes(run.docs), doc_hashes(covered))
    if nonrelevant is None:
        nonrelevant = arrays.nonrelevant(relevant).tolist()
    ids_of, grades_of, judged_of, negative_of = _kept(
        run, arrays.line_grades(n), flags, arrays.line_negative(n), spans
    )
    out: list[Judged] = []
    for i, (q, (_, _, returned)) in enumerate(zip(questions, spans, strict=True)):
        pool = tuple(pool_g[pool_bounds[i] : pool_bounds[i + 1]].tolist())
        label = labels[i] if labels is not None else None
        out.append(
            Judged(
                id=q,
                tags=tuple(label.tags) if label is not None else (),
                answerable=bool(label.answerable)
                if label is not None
                else any(g >= relevant for g in pool),
                grades=grades_of(i),
                pool=pool,
                ids=ids_of(i),
                relevant=relevant,
                returned=returned,
                judged=judged_of(i),
                nonrelevant=nonrelevant[i],
                negative=negative_of(i),
            )
        )
    return out


def _complete_nonrelevant(
    arrays: _Arrays,
    qrels: Mapping[str, Mapping[str, int]],
    relevant: int,
    complete: Collection[str],
) -> list[int]:
    """bpref's N per question when the judgments cover every id of `complete` (a labels file):
    the judgments graded 0 up to `relevant` - 1, and every id of `complete` they do not grade
    (a missing grade is 0)."""
    counts = arrays.nonrelevant(relevant).tolist()
    return [
        count + len(complete) - sum(1 for d in qrels.get(q, {}) if d in complete)
        for q, count in zip(arrays.questions, counts, strict=True)
    ]


def _condensed(run: Run, arrays: _Arrays) -> tuple[Run, _Arrays]:
    """The run with its unjudged lines removed (Sakai's condensed lists; trec_eval -J), and its
    judged lines, which are now every line."""
    lines = arrays.judged
    query = np.searchsorted(run.offsets, lines, side="right") - 1
    counts = np.bincount(query, minlength=len(run.qids))
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    keys = None if run.keys is None else run.keys[lines]
    kept = type(run)(run.qids, offsets, run.docs[lines], run.scores[lines], run.tag, keys)
    every = np.arange(lines.size, dtype=np.int64)
    positive = arrays.judged_grade > 0
    condensed = _Arrays(arrays.questions, arrays.run_q, every[positive],
                        arrays.judged_grade[positive], arrays.pool_q, arrays.pool_g, every,
                        arrays.judged_grade, arrays.every_q, arrays.every_g)  # fmt: skip
    return kept, condensed


def judge_trec_run(
    run: Run,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    labels_meta: Sequence[Any] | Mapping[str, Any] | None = None,
    k: int | None = None,
    relevant: int = RELEVANT,
    depth: int | None = None,
    complete: Collection[str] | None = None,
    graded: bool = False,
) -> list[Judged]:
    """One :class:`Judged` per question (the top ``k`` of its ranked list; all when None).

    ``depth`` keeps only each list's head: its top ``depth`` and on through its first relevant
    result (with ``graded``, through its last positively graded result), with ``returned`` set
    to the list's length. Every metric whose cut-off is at most ``depth``, MRR and the first
    relevant rank (with ``graded`` also AP, R-precision, nDCG and bpref over the whole list:
    `metric_names.reads_whole_list`) are then what the whole list gives, for a fraction of the
    memory (a run of 1,000 documents a question judged for @10 metrics).
    Tags and ``answerable`` come from the labels when given; otherwise no tags, and answerable
    means "has a relevant judgment". ``Judged.judged`` marks the results the qrels grade, and
    with ``complete`` also every result among those ids (a labels file grades every chunk: a
    missing grade there is 0, not a hole); ``Judged.nonrelevant`` (bpref's N) counts the
    judgments graded 0 up to ``relevant`` - 1, and with ``complete`` every id of it the qrels
    do not grade.
    """
    qrels, labels = _labels_and_qrels(qrels, labels_meta)
    arrays = _arrays(run, qrels, _questions(run, qrels, labels))
    nonrelevant = None
    if complete is not None:
        nonrelevant = _complete_nonrelevant(arrays, qrels, relevant, complete)
    return _judge(run, arrays, labels, k, relevant, depth, graded, complete, nonrelevant)


def judge_trec_run_condensed(
    run: Run,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    labels_meta: Sequence[Any] | Mapping[str, Any] | None = None,
    k: int | None = None,
    relevant: int = RELEVANT,
    depth: int | None = None,
    graded: bool = False,
) -> tuple[list[Judged], list[Judged]]:
    """`judge_trec_run`'s lists and the same run judged on condensed lists:
    each list with its unjudged results removed before the metrics read it (Sakai 2007; what
    ``trec_eval -J`` computes). ``k`` cuts the original list before condensing, ``depth`` (and
    ``graded``) the condensed one after; the run is matched against the qrels once for both."""
    qrels, labels = _labels_and_qrels(qrels, labels_meta)
    arrays = _arrays(run, qrels, _questions(run, qrels, labels))
    full = _judge(run, arrays, labels, k, relevant, depth, graded)
    if k is not None:  # only the judged lines within each list's top k
        top = arrays.judged - run.offsets[np.searchsorted(run.offsets, arrays.judged, "right") - 1]
        arrays = replace(arrays, judged=arrays.judged[top < k],
                         judged_grade=arrays.judged_grade[top < k])  # fmt: skip
    kept, condensed_arrays = _condensed(run, arrays)
    return full, _judge(kept, condensed_arrays, labels, None, relevant, depth, graded)
