"""Judging TREC runs against qrels or our labels: the one judge path, vectorised.

:func:`judge_trec_run` matches the run and the qrels in one vectorised pass and makes, from the
run's own arrays, both things a build needs: the flat arrays every value is computed from (a
`metric_engine.Lines`, handed to the one metric engine as they are) and the per-question
:class:`Judged` lists the drill-down pages, condensed lists and the gate show. The two
come from the same arrays in the same pass (`metric_engine.JudgedLists` carries both): a run's
values never wait for its lists to be turned back into arrays (only a list cut afterwards, such
as the gate's top k, is converted, by `metric_engine.lines_of`, to the same arrays; a test holds
the two equal field by field).

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

from evidencedesk._metric_names import DEFAULT_RELEVANCE
from evidencedesk.files._trec_keys import decoded_ids, doc_hashes, fixed_width_of, query_salts
from evidencedesk.files._trec_scan import judged_candidates
from evidencedesk.retrieval._memos import recent
from evidencedesk.retrieval._metric_engine import Heads, JudgedLists, Lines, spans
from evidencedesk.retrieval.metrics import Judged

if TYPE_CHECKING:
    from evidencedesk.files.trec import TrecRun

__all__ = [
    "judge_trec_run",
]


def _qrels_from_labels(labels: Iterable[Any]) -> dict[str, dict[str, int]]:
    """{question id: {chunk id: grade}} from labels (the TREC view of ``labels.jsonl``)."""
    return {label.id: dict(label.grades) for label in labels}


@dataclass(frozen=True)
class _Arrays:
    """The run's judged lines. `lines`/`grade` keep only the lines with a positive grade (a
    metric reads nothing else: an unjudged or grade-0 line adds 0 to every sum), so judging a
    run of 10 million lines keeps about as many entries as the qrels have; `judged` is every
    line the qrels grade at all, whatever the grade (Judged@k, condensed lists)."""

    questions: list[str]
    asked: np.ndarray  # per question, the index of its run query (-1: the run does not answer it)
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

    def line_judged(self, n_lines: int) -> np.ndarray:
        """Whether each run line has a judgment."""
        flags = np.zeros(n_lines, dtype=bool)
        flags[self.judged] = True
        return flags


def _candidates(keys: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The lines whose (query, doc) key may be a judged one: through the compiled scan's
    library where it is built (`judged_candidates`), else `_bitmap_candidates`."""
    compiled = judged_candidates(keys, judged)
    return compiled if compiled is not None else _bitmap_candidates(keys, judged)


def _bitmap_candidates(keys: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The lines whose (query, doc) key may be a judged one, through numpy: two bitmaps of the
    judged keys' top bits, a 1 MB one (it stays in a core's cache) over every line, a 16 MB one
    over its picks, and a third of their low 24 bits over what is left. The third keeps the candidates few when
    the judgments fill the first two: 600,000 judgments (50,000 questions) set half of the 1 MB
    bitmap, and 2 million of 50 million lines passed both, each looked up at random in the
    judged keys (a binary search that took half a second a run); with it, 300,000 pass."""
    # the bits index the bitmaps as int64 (a uint64 index is first copied to intp by numpy)
    small = np.zeros(1 << 20, dtype=bool)
    small[(judged >> np.uint64(44)).view(np.int64)] = True
    large = np.zeros(1 << 24, dtype=bool)
    large[(judged >> np.uint64(40)).view(np.int64)] = True
    low = np.zeros(1 << 24, dtype=bool)
    low[(judged & _LOW).view(np.int64)] = True
    found = [np.zeros(0, dtype=np.intp)]
    # `_STEP` lines at a time: each step's arrays reuse the last step's memory (an array of
    # the run's length would be fresh memory, and the kernel's zeroing of its pages took longer
    # than the look-ups)
    for at in range(0, keys.size, _STEP):
        part = keys[at : at + _STEP]
        cand = np.flatnonzero(small[(part >> np.uint64(44)).view(np.int64)])
        cand = cand[large[(part[cand] >> np.uint64(40)).view(np.int64)]]
        found.append(cand[low[(part[cand] & _LOW).view(np.int64)]] + at)
    return np.concatenate(found)


_LOW = np.uint64((1 << 24) - 1)  # a key's low 24 bits: the third bitmap's index


# lines: a step's 8-byte temporaries (2 MiB) stay below the 4 MiB from which numpy asks the
# kernel for huge pages, whose faults stalled on compaction (steps of a million lines took 0.13 s
# for a 10-million-line run in a fresh process, these 0.08 s)
_STEP = 1 << 18


@dataclass(frozen=True, eq=False)
class _Judgments:
    """Every judgment of the questions, as arrays: the qrels read once, and shared by every run
    judged against them (a build judges each of its runs against the same qrels: walking their
    dicts again for each run took a tenth of judging it). A judgment's key is its document's
    hash xor its question's salt: the key `line_keys` gives the run line that returns it."""

    questions: list[str]
    every_q: np.ndarray  # question index of every judgment, in question order
    every_g: np.ndarray  # its grade
    ids: np.ndarray  # its document id, fixed width (`fixed_width_of`)
    keys: np.ndarray  # its (question, document) key


@dataclass(frozen=True, eq=False)
class _JudgedIds:
    """Every document id a qrels mapping judges, in its order (each question's together), padded
    (`fixed_width_of`) and hashed (`doc_hashes`) once a build: the judge (`_judgments`) and the
    run checks (`coverage`) read the same arrays (`_judged_ids`)."""

    qrels: Mapping[str, Mapping[str, int]]
    ids: np.ndarray  # fixed width
    hashes: np.ndarray  # each id's `doc_hashes`
    starts: dict[str, int]  # where each question's ids start


def _judged_ids(qrels: Mapping[str, Mapping[str, int]]) -> _JudgedIds:
    """`qrels`' `_JudgedIds`: made once a build for the same qrels (the build's memo holds them,
    and they hold the qrels, so their id stays theirs); outside a build, made afresh."""

    def make() -> _JudgedIds:
        ids = fixed_width_of(list(itertools.chain.from_iterable(qrels.values())))
        # (the last of the n + 1 running totals is the end: no question's start)
        starts = dict(
            zip(qrels, itertools.accumulate(map(len, qrels.values()), initial=0), strict=False)
        )
        return _JudgedIds(qrels, ids, doc_hashes(ids), starts)

    return recent("judged id arrays", lambda found: found.qrels is qrels, make)


def _judgments(qrels: Mapping[str, Mapping[str, int]], questions: list[str]) -> _Judgments:
    """The judgments of `questions` as arrays: the grades joined by C-level chains, the ids and
    their hashes taken in question order from the qrels' `_judged_ids`."""
    judgments = [qrels.get(q, {}) for q in questions]
    sizes = np.fromiter(map(len, judgments), dtype=np.int64, count=len(judgments))
    total = int(sizes.sum())
    every_g = np.fromiter(itertools.chain.from_iterable(j.values() for j in judgments), np.int64,
                          total)  # fmt: skip
    every_q = np.repeat(np.arange(len(questions), dtype=np.int64), sizes)
    ids = np.empty(0, dtype="S8")
    keys = np.zeros(0, dtype=np.uint64)
    if total:
        shared = _judged_ids(qrels)
        first = np.fromiter((shared.starts.get(q, 0) for q in questions), np.int64, len(questions))
        # each judgment's place among the qrels' ids: its question's first, plus its rank there
        take = np.repeat(first - (np.cumsum(sizes) - sizes), sizes) + np.arange(total)
        salts = query_salts([q.encode("utf-8") for q in questions])
        ids, keys = shared.ids[take], shared.hashes[take] ^ salts[every_q]
    return _Judgments(questions, every_q, every_g, ids, keys)


def _shared_judgments(qrels: Mapping[str, Mapping[str, int]], labels: Sequence[Any]) -> _Judgments:
    """The judgments of the labelled questions, read once for every run a build judges against
    them (`_judge_trec_run_condensed`'s `judgments`)."""
    return _judgments(qrels, [label.id for label in labels])


def _arrays(run: TrecRun, pool: _Judgments) -> _Arrays:
    questions, every_q, every_g = pool.questions, pool.every_q, pool.every_g
    run_index = {q: i for i, q in enumerate(run.qids)}
    positive = every_g > 0
    asked = np.fromiter((run_index.get(q, -1) for q in questions), np.int64, len(questions))
    every_r = asked[every_q]  # the judgment's run query (-1: the run does not answer it)
    lines = np.zeros(0, dtype=np.int64)
    grade = np.zeros(0, dtype=np.int64)
    answered = every_r >= 0
    if answered.any() and run.n_lines:
        judged, h_pool = pool.ids[answered], pool.keys[answered]  # the keys `line_keys` gives
        keys = run.keys  # a TrecRun fills its (query, doc) key hashes on creation
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
    return _Arrays(questions, asked, lines[keep], grade[keep], every_q[positive],
                   every_g[positive], lines, grade, every_q, every_g)  # fmt: skip


def _questions(run: TrecRun, qrels: Mapping[str, Any], labels: Sequence[Any] | None) -> list[str]:
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
        qrels = _qrels_from_labels(labels)
    return qrels, labels


def _ends(run: TrecRun, arrays: _Arrays, relevant: int, depth: int, graded: bool) -> np.ndarray:
    """Per run query: where its judged head ends -- its top `depth`, and on through its first
    relevant result (MRR and the first relevant rank need it), or with `graded` through its last
    positively graded one (AP, R-precision, nDCG and bpref over the whole list), within its
    list."""
    starts, stops = run.offsets[:-1], run.offsets[1:]
    ends: np.ndarray = np.minimum(stops, starts + depth)
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
    a 64-bit word per id -- the id itself when it is one word wide, else its `doc_hashes`
    hash, with every pair of equal hashes confirmed on the ids' bytes (numpy sorts bytes
    strings, and finds unique values, several times slower)."""
    if docs.size == 0 or docs.dtype.itemsize % 8:
        distinct, inverse = np.unique(docs, return_inverse=True)
        return distinct, inverse.ravel()
    if docs.dtype.itemsize == 8:
        words = np.ascontiguousarray(docs).view(np.uint64)
    else:
        words = doc_hashes(docs)
    order = np.argsort(words)
    ordered = words[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    if docs.dtype.itemsize != 8:
        same = np.flatnonzero(~first)  # equal hashes: the ids must be equal too
        if same.size and not np.array_equal(docs[order[same]], docs[order[same - 1]]):
            distinct, inverse = np.unique(docs, return_inverse=True)  # a collision: by bytes
            return distinct, inverse.ravel()
    inverse = np.empty(docs.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return docs[order[first]], inverse


class _Lists:
    """What a judge's per-question `Judged` lists are made from: each question's kept lines
    (`Heads`: ids and judged flags; with their grades and negative flags), copied out of the
    run when first needed (`heads`; then the run can be let go), and its scalars. Called with
    question indices, it makes those questions' lists."""

    def __init__(
        self,
        kept: Callable[[], tuple[Heads, np.ndarray, np.ndarray]],
        questions: list[str],
        labels: Sequence[Any] | None,
        pool: np.ndarray,
        pool_bounds: np.ndarray,
        answers: np.ndarray,
        size: np.ndarray,
        head: np.ndarray,
        relevant: int,
        nonrelevant: list[int],
    ) -> None:
        # makes the kept lines from the run (`_lists`); dropped, with the run, once they are made
        self._kept: Callable[[], tuple[Heads, np.ndarray, np.ndarray]] | None = kept
        self._made: tuple[Heads, np.ndarray, np.ndarray] | None = None
        self.questions = questions
        self.labels = labels
        self.pool = pool  # each question's positive grades, best first, flat
        self.pool_bounds = pool_bounds  # question i's are pool[pool_bounds[i]:pool_bounds[i + 1]]
        self.answers = answers  # per question: the judgments hold a relevant grade
        self.size = size  # per question: its list's length
        self.head = head  # per question: only the list's head is kept (`Judged.returned`)
        self.relevant = relevant
        self.nonrelevant = nonrelevant

    def _lines(self) -> tuple[Heads, np.ndarray, np.ndarray]:
        """The kept lines' `Heads`, grades (0: unjudged or graded 0) and negative flags."""
        if self._made is None:
            assert self._kept is not None  # noqa: S101 - dropped only once made
            self._made, self._kept = self._kept(), None
        return self._made

    def heads(self) -> Heads:
        return self._lines()[0]

    def __call__(self, indices: Sequence[int]) -> list[Judged]:
        """The lists of the questions at `indices`, their ids decoded in one pass: one str per
        distinct document id, shared by every list that returns it (a run of 50,000 questions
        x 1,000 documents holds 50 million ids but far fewer distinct documents)."""
        heads, grades_of, negative_of_line = self._lines()
        at = np.asarray(indices, dtype=np.int64)
        starts, sizes = heads.bounds[at], np.diff(heads.bounds)[at]
        lines = spans(starts, sizes)
        bounds = np.r_[0, np.cumsum(sizes)].tolist()
        distinct, inverse = _distinct(heads.ids[lines])
        ids = np.array(decoded_ids(distinct), dtype=object)[inverse].tolist()
        grades = grades_of[lines].tolist()
        flags, negative = heads.judged[lines], negative_of_line[lines]
        line_q = np.repeat(np.arange(at.size), sizes)
        unjudged = np.bincount(line_q[~flags], minlength=at.size).tolist()
        negatives = np.bincount(line_q[negative], minlength=at.size).tolist()
        flags_of, negative_of = flags.tolist(), negative.tolist()
        pool_sizes = np.diff(self.pool_bounds)[at]
        pool = self.pool[spans(self.pool_bounds[at], pool_sizes)].tolist()
        pool_at = np.r_[0, np.cumsum(pool_sizes)].tolist()
        returned = np.where(self.head[at], self.size[at], -1).tolist()
        answers = self.answers[at].tolist()
        out: list[Judged] = []
        for n, i in enumerate(at.tolist()):
            a, b = bounds[n], bounds[n + 1]
            label = self.labels[i] if self.labels is not None else None
            out.append(
                Judged(
                    id=self.questions[i],
                    tags=tuple(label.tags) if label is not None else (),
                    answerable=bool(label.answerable) if label is not None else answers[n],
                    grades=tuple(grades[a:b]),
                    pool=tuple(pool[pool_at[n] : pool_at[n + 1]]),
                    ids=tuple(ids[a:b]),
                    relevant=self.relevant,
                    returned=None if returned[n] < 0 else returned[n],
                    judged=tuple(flags_of[a:b]) if unjudged[n] else None,
                    nonrelevant=self.nonrelevant[i],
                    negative=tuple(negative_of[a:b]) if negatives[n] else None,
                )
            )
        return out


def _lists(
    run: TrecRun,
    arrays: _Arrays,
    judged: np.ndarray | None,
    starts: np.ndarray,
    stops: np.ndarray,
) -> tuple[Heads, np.ndarray, np.ndarray]:
    """Each question's run lines [start, stop) as `Heads` (their ids copied out of the run, so
    that it can be let go), with their grades and negative flags. The grades and flags are
    looked up for the kept lines alone (`judged`: whether each run line is judged, when the
    judged lines do not say it), not spread over arrays of the run's length first."""
    sizes = stops - starts
    lines = spans(starts, sizes)
    # each kept line's grade as the judgments give it, from one search among the judged lines
    # (the positive ones are `arrays.lines`, the negative ones the negative flags)
    given = np.zeros(lines.size, dtype=np.int64)
    pos, hit = _placed(arrays.judged, lines)
    given[hit] = arrays.judged_grade[pos]
    grades, negative = np.maximum(given, 0), given < 0
    flags = hit if judged is None else judged[lines]
    bounds = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    return Heads(bounds, run.docs[lines], flags), grades, negative


def _placed(at: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `lines` stands in the ascending `at`, and which of them stand there."""
    if not at.size:
        return np.zeros(0, dtype=np.int64), np.zeros(lines.size, dtype=bool)
    pos = np.minimum(np.searchsorted(at, lines), at.size - 1)
    found = at[pos] == lines
    return pos[found], found


def _judged_lines(
    run: TrecRun,
    arrays: _Arrays,
    judged: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    size: np.ndarray,
    relevant: int,
    nonrelevant: list[int],
    pool: tuple[np.ndarray, np.ndarray],
) -> Lines:
    """The arrays every metric reads: each question's judged lines (`judged`, the run's judged
    lines, ascending) within its kept range [a, b), with their ranks in the whole list. An unjudged line adds nothing to any metric
    (its grade is 0, and Judged@k and bpref count judged lines only), so a run of 10 million
    lines judged 30 a query keeps about as many entries as the qrels have."""
    a, b = bounds
    n = len(arrays.questions)
    sel = judged
    question_of = np.full(len(run.qids), -1, dtype=np.int64)
    found = arrays.asked >= 0
    question_of[arrays.asked[found]] = np.flatnonzero(found)
    q = question_of[np.searchsorted(run.offsets, sel, side="right") - 1]
    safe = np.maximum(q, 0)
    keep = (q >= 0) & (sel >= a[safe]) & (sel < b[safe])
    sel, q = sel[keep], q[keep]
    grade = np.zeros(sel.size, dtype=np.int64)
    pos, hit = _placed(sel, arrays.lines)
    grade[pos] = arrays.grade[hit]
    negative = np.zeros(sel.size, dtype=bool)
    pos, _ = _placed(sel, arrays.judged[arrays.judged_grade < 0])
    negative[pos] = True
    return Lines(
        n=n,
        line_q=q,
        rank=sel - a[q],
        grade=grade,
        pool_q=pool[0],
        pool_g=pool[1],
        relevant=np.full(n, relevant, dtype=np.int64),
        judged=np.ones(sel.size, dtype=bool),
        size=size,
        nonrel=~negative & (grade < relevant),
        n_nonrel=np.array(nonrelevant, dtype=np.int64),
    )


def _judge(
    run: TrecRun,
    arrays: _Arrays,
    labels: Sequence[Any] | None,
    k: int | None,
    relevant: int,
    depth: int | None,
    graded: bool = False,
    complete: Collection[str] | None = None,
    nonrelevant: list[int] | None = None,
) -> JudgedLists:
    """The Judged lists of `run`'s questions; `nonrelevant` (bpref's N per question) defaults
    to the qrels' judgments graded 0 up to `relevant` - 1. The arrays the metrics read and the
    lists' heads are made now (the run can then be let go); each question's list when first
    read (`JudgedLists`)."""
    questions = arrays.questions
    order = np.lexsort((-arrays.pool_g, arrays.pool_q))
    pool_g = arrays.pool_g[order]
    pool_bounds = np.searchsorted(arrays.pool_q[order], np.arange(len(questions) + 1))
    pool_q = np.repeat(np.arange(len(questions), dtype=np.int64), np.diff(pool_bounds))
    # each question's kept lines [a, b), and its list's length `size` (longer than b - a when
    # only its head was kept)
    asked = arrays.asked
    found = asked >= 0
    a = np.where(found, run.offsets[:-1][asked], 0)
    b = np.where(found, run.offsets[1:][asked], 0)
    if k is not None:
        b = np.minimum(b, a + k)
    size = b - a
    head = np.zeros(len(questions), dtype=bool)
    if depth is not None:
        ends = _ends(run, arrays, relevant, max(depth, 0), graded)[asked]
        head = found & (ends < b)
        b = np.where(head, ends, b)
    n = run.n_lines
    flags = None  # whether each line is judged: made for the lists only, unless `complete`
    judged = arrays.judged  # the judged lines, ascending
    if complete is not None and n:  # the judgments cover these ids: a missing grade is 0
        covered = fixed_width_of(sorted(complete))
        flags = arrays.line_judged(n) | np.isin(doc_hashes(run.docs), doc_hashes(covered))
        judged = np.flatnonzero(flags)
    if nonrelevant is None:
        nonrelevant = arrays.nonrelevant(relevant).tolist()
    lines = _judged_lines(run, arrays, judged, (a, b), size, relevant, nonrelevant,
                          (pool_q, pool_g))  # fmt: skip
    has_relevant = np.bincount(pool_q[pool_g >= relevant], minlength=len(questions)) > 0

    # the kept lines are copied out of the run only when a list or the heads are first asked
    # for (`JudgedLists.detached`: before a build lets the run go): the documented path's
    # `summarize` reads `lines` alone, and copying 10 million ids cost it a fifth
    make = _Lists(lambda: _lists(run, arrays, flags, a, b), questions, labels, pool_g,
                  pool_bounds, has_relevant, size, head, relevant, nonrelevant)  # fmt: skip
    tags = [tuple(label.tags) for label in labels] if labels is not None else None
    return JudgedLists(lines=lines, make=make, n=len(questions), ids=questions, tags=tags,
                       heads=make.heads)  # fmt: skip


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


def _condensed(run: TrecRun, arrays: _Arrays) -> tuple[TrecRun, _Arrays]:
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
    condensed = _Arrays(arrays.questions, arrays.asked, every[positive],
                        arrays.judged_grade[positive], arrays.pool_q, arrays.pool_g, every,
                        arrays.judged_grade, arrays.every_q, arrays.every_g)  # fmt: skip
    return kept, condensed


def judge_trec_run(
    run: TrecRun,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    labels_meta: Sequence[Any] | Mapping[str, Any] | None = None,
    k: int | None = None,
    relevant: int = DEFAULT_RELEVANCE,
    depth: int | None = None,
    complete: Collection[str] | None = None,
    graded: bool = False,
) -> JudgedLists:
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
    arrays = _arrays(run, _judgments(qrels, _questions(run, qrels, labels)))
    nonrelevant = None
    if complete is not None:
        nonrelevant = _complete_nonrelevant(arrays, qrels, relevant, complete)
    return _judge(run, arrays, labels, k, relevant, depth, graded, complete, nonrelevant)


def _judge_trec_run_condensed(
    run: TrecRun,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    labels_meta: Sequence[Any] | Mapping[str, Any] | None = None,
    k: int | None = None,
    relevant: int = DEFAULT_RELEVANCE,
    depth: int | None = None,
    graded: bool = False,
    judgments: _Judgments | None = None,
) -> tuple[JudgedLists, JudgedLists]:
    """`judge_trec_run`'s lists and the same run judged on condensed lists:
    each list with its unjudged results removed before the metrics read it (Sakai 2007; what
    ``trec_eval -J`` computes). ``k`` cuts the original list before condensing, ``depth`` (and
    ``graded``) the condensed one after; the run is matched against the qrels once for both.
    `judgments`: the qrels of the labelled questions already as arrays (`_shared_judgments`)."""
    qrels, labels = _labels_and_qrels(qrels, labels_meta)
    if judgments is None:
        judgments = _judgments(qrels, _questions(run, qrels, labels))
    arrays = _arrays(run, judgments)
    full = _judge(run, arrays, labels, k, relevant, depth, graded)
    if k is not None:  # only the judged lines within each list's top k
        top = arrays.judged - run.offsets[np.searchsorted(run.offsets, arrays.judged, "right") - 1]
        arrays = replace(arrays, judged=arrays.judged[top < k],
                         judged_grade=arrays.judged_grade[top < k])  # fmt: skip
    kept, condensed_arrays = _condensed(run, arrays)
    return full, _judge(kept, condensed_arrays, labels, None, relevant, depth, graded)
