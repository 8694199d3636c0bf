"""How far a run's ids meet the judgments: checked before a run's numbers mean anything.

A run whose query ids never match the qrels' (``q19335`` against ``19335``), or whose document
ids are never judged (``Skinner_1932`` against ``<ent:Skinner_1932>``), would otherwise get a
confident row of zeros. `check_coverage` refuses such a run with one line: the coverage, three
example ids from each side, and the rewrite that would make them match when a simple one does
(zero padding, a prefix or suffix, case, surrounding brackets, a ``.0``). The same line refuses a
run that answers fewer of the judged queries than ``[runs].min_coverage``, a run whose top-k
documents the corpus (when one is given) does not hold beyond the share that key allows, and,
without a corpus, a run whose judged share is far below the other runs' where a rewrite of its
unjudged ids would make them judged ids (`check_judged_shares`).
"""

from __future__ import annotations

import itertools
import math
import os
import statistics
import unicodedata
import weakref
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from evidencedesk.errors import RunFileError
from evidencedesk.files._project_file import (
    MIN_COVERAGE,  # below it, a run's ids are refused
)
from evidencedesk.files._trec_keys import doc_hashes, fixed_width_of
from evidencedesk.files.trec import TrecRun
from evidencedesk.retrieval._memos import recent
from evidencedesk.retrieval.trec_judge import _judged_ids

__all__ = [
    "FAR_BELOW",
    "Coverage",
    "MIN_COVERAGE",
    "check_coverage",
    "check_judged_shares",
    "corpus_share",
    "coverage",
    "id_rewrite",
    "unjudged_top",
]

_SAMPLE = 2000  # ids a rewrite is tried on
EXAMPLES = 3  # ids of each side an error names
_AFFIXES = 8  # longest prefix or suffix a rewrite adds or removes
_MARKS = 8  # most separators of each side a rewrite replaces (`_marks`)


@dataclass(frozen=True)
class Coverage:
    """A run's ids against the judgments."""

    judged_queries: int  # queries with at least one judgment
    answered: int  # of those, how many the run answers
    run_queries: int  # queries in the run
    k: int  # the top k the document counts read
    top: int  # results in the top k of the answered judged queries
    judged_anywhere: int  # of those, documents the judgments grade for some query

    @property
    def query_share(self) -> float:
        return self.answered / self.judged_queries if self.judged_queries else 0.0

    @property
    def anywhere_share(self) -> float:
        return self.judged_anywhere / self.top if self.top else 0.0

    def partial(self, threshold: float) -> bool:
        """Whether the run answers fewer of the judged queries than `threshold` (a share)."""
        return self.query_share < threshold

    def to_dict(self) -> dict[str, int]:
        return {
            "judged_queries": self.judged_queries,
            "answered": self.answered,
            "run_queries": self.run_queries,
            "k": self.k,
            "top": self.top,
            "judged_anywhere": self.judged_anywhere,
        }


def _top_lines(run: TrecRun, queries: Sequence[int], k: int) -> np.ndarray:
    """The line numbers of the top k of each of the run's queries `queries` (indices)."""
    if not queries:
        return np.zeros(0, dtype=np.int64)
    q = np.asarray(queries, dtype=np.int64)
    starts = run.offsets[q]
    sizes = np.minimum(run.offsets[q + 1] - starts, k)
    bounds = np.r_[0, np.cumsum(sizes)]
    return np.repeat(starts - bounds[:-1], sizes) + np.arange(int(bounds[-1]), dtype=np.int64)


def _hashes(ids: Iterable[str]) -> np.ndarray:
    return doc_hashes(fixed_width_of(list(ids)))


@dataclass(frozen=True, eq=False)
class _Targets:
    """Ids a rewrite is tried against (`_best_rewrite`): the ids, the first `_SAMPLE` of them
    in sorted order, each one by its lowercase form and their separators, each made once when
    first read (a
    build tries each run's unjudged ids against the same judged ids: sorting and lowering
    600,000 of them once a run took a third of a second)."""

    ids: Collection[str]

    @cached_property
    def first(self) -> list[str]:
        return sorted(self.ids)[:_SAMPLE]

    @cached_property
    def lowered(self) -> dict[str, str]:
        return {j.lower(): j for j in self.ids}

    @cached_property
    def marks(self) -> set[str]:
        return _marks(self.first)


@dataclass(frozen=True, eq=False)
class _Judged:
    """The judgments' ids, read once for every run a build checks (`_judged`)."""

    judgments: Mapping[str, Mapping[str, int]]
    complete: Collection[str] | None
    queries: frozenset[str]  # the judged queries (`_judged_queries`)
    known: np.ndarray  # the distinct hashes of `every`, ascending
    ids: np.ndarray  # the id (fixed width) of each of `known`

    @cached_property
    def every(self) -> frozenset[str]:
        """Every id the judgments grade for some query (`_every`), as text: made only when a
        hash is shared by two ids or a rewrite is tried (a set of 300,000 ids a build made
        for every check, where the hashes answer nearly always)."""
        return frozenset(_every(self.judgments, self.complete))

    @cached_property
    def targets(self) -> _Targets:
        """`every` as rewrites are tried against it (`check_judged_shares`)."""
        return _Targets(self.every)


def _judged(
    judgments: Mapping[str, Mapping[str, int]], complete: Collection[str] | None
) -> _Judged:
    """`judgments`' ids as every check reads them: made once a build for the same judgments
    (the build's memo holds them, and they hold the judgments, so their id stays theirs), not
    once for each run and each check (a set of every judged id, walked from the dicts, each
    time)."""

    def make() -> _Judged:
        # every judged id, padded and hashed once for the judge too (`_judged_ids`); an id
        # judged for several queries as often (its hash is kept once)
        shared = _judged_ids(judgments)
        ids, hashes = shared.ids, shared.hashes
        if complete is not None:
            covered = fixed_width_of(list(complete))
            ids = np.concatenate([ids, covered])
            hashes = np.concatenate([hashes, doc_hashes(covered)])
        known, first = np.unique(hashes, return_index=True)  # (first: in `ids`' order)
        return _Judged(judgments, complete, frozenset(_judged_queries(judgments, complete)),
                       known, ids[first])  # fmt: skip

    return recent("judged ids",
                  lambda found: found.judgments is judgments and found.complete is complete,
                  make)  # fmt: skip


def _every(
    judgments: Mapping[str, Mapping[str, int]], complete: Collection[str] | None
) -> set[str]:
    """Every id the judgments grade for some query (with `complete`: every id they cover)."""
    every = {d for docs in judgments.values() for d in docs}
    return every | set(complete) if complete is not None else every


def coverage(
    run: TrecRun, judgments: Mapping[str, Mapping[str, int]], k: int,
    complete: Collection[str] | None = None,
) -> Coverage:  # fmt: skip
    """`run`'s `Coverage` against `judgments` (query id -> {document id: grade}); `complete`:
    the ids the judgments cover whether or not they name them (a labels file grades every
    chunk of the catalog, a missing grade is 0)."""
    shared = _judged(judgments, complete)
    return _counted(run, shared, _top_judged(run, shared, k))


def _counted(run: TrecRun, shared: _Judged, top: _TopJudged) -> Coverage:
    return Coverage(len(shared.queries), top.answered, len(run.qids), top.k, int(top.docs.size),
                    int(top.same.sum()))  # fmt: skip


@dataclass(frozen=True, eq=False)
class _TopJudged:
    """A run's top k ids (of the judged queries it answers), in run order, each looked up by its
    hash among the judged ids (`_among`): once a build for both checks of the run (`coverage`,
    `unjudged_top`), which looked up the same 100,000 ids of a 10,000-question run twice. The
    build's memo holds the run only weakly, so the run is still let go after it is judged."""

    run: weakref.ref[TrecRun]
    judged: _Judged
    k: int
    answered: int  # the run's queries that the judgments grade
    docs: np.ndarray
    at: np.ndarray
    same: np.ndarray


def _top_judged(run: TrecRun, shared: _Judged, k: int) -> _TopJudged:
    def make() -> _TopJudged:
        answered = [i for i, q in enumerate(run.qids) if q in shared.queries]
        docs = run.docs[_top_lines(run, answered, k)]
        at, same = _among(doc_hashes(docs), shared.known)
        return _TopJudged(weakref.ref(run), shared, k, len(answered), docs, at, same)

    return recent("top judged ids",
                  lambda found: found.run() is run and found.judged is shared and found.k == k,
                  make)  # fmt: skip


def _among(hashes: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `hashes` is among `known` (distinct, ascending), and whether it is there
    (`at` is only meaningful where it is): a binary search each. (``np.isin`` first made both
    sides distinct again, a hash table of each: five times as long for the top 10 of 10,000
    questions against 300,000 judged ids.)"""
    if not known.size or not hashes.size:
        return np.zeros(hashes.size, dtype=np.intp), np.zeros(hashes.size, dtype=bool)
    at = np.minimum(np.searchsorted(known, hashes), known.size - 1)
    return at, known[at] == hashes


def _common_prefix(ids: Sequence[str]) -> str:
    return os.path.commonprefix(list(ids))


def _common_suffix(ids: Sequence[str]) -> str:
    return os.path.commonprefix([i[::-1] for i in ids])[::-1]


@dataclass(frozen=True)
class Rewrite:
    """A rewrite of a run's ids into the judged ones: its words, how many of the tried ids it
    matches, how many were tried, and the first few it matches with what they become."""

    words: str
    hits: int
    tried: int
    examples: tuple[tuple[str, str], ...] = ()

    @property
    def most(self) -> bool:
        """Whether it matches at least half of the ids it was tried on."""
        return self.hits * 2 >= self.tried


def id_rewrite(ids: Sequence[str], judged: Collection[str], what: str) -> Rewrite | None:
    """The simplest rewrite of `ids` that makes most of them ids of `judged`, or None when none
    matches at least half of them. `what` names the ids ("query", "document")."""
    found = _best_rewrite(ids, judged, what)
    return found if found is not None and found.most else None


def _best_rewrite(
    ids: Sequence[str], judged: Collection[str] | _Targets, what: str
) -> Rewrite | None:
    """The rewrite of `ids` that makes the most of them ids of `judged`, as `id_rewrite`
    gives it, however few it matches; None when it matches none."""
    tried = judged if isinstance(judged, _Targets) else _Targets(judged)
    sample = sorted(set(ids))[:_SAMPLE]
    targets = tried.first
    if not sample or not targets:
        return None
    theirs = f"the run's {what} ids"
    mine_pre, mine_suf = _common_prefix(sample), _common_suffix(sample)
    their_pre, their_suf = _common_prefix(targets), _common_suffix(targets)
    lowered = tried.lowered
    options: list[tuple[str, Any]] = [
        (f"reading {theirs} without regard to case", lambda i: lowered.get(i.lower(), i)),
        (f"removing leading zeros from {theirs}", lambda i: i.lstrip("0") or "0"),
    ]
    digits = Counter(len(t) for t in targets if t.isdigit())
    if digits:  # the judged ids' usual width: a run that wrote "42" where they say "000042"
        width = digits.most_common(1)[0][0]
        options.append((f"zero-padding {theirs} to {width} digits",
                        lambda i, w=width: i.zfill(w) if i.isdigit() else i))  # fmt: skip
    for n in range(1, min(_AFFIXES, len(mine_pre)) + 1):
        cut = mine_pre[:n]
        options.append((f"removing the prefix {cut!r} from {theirs}", lambda i, c=cut: i[len(c) :]))
    for n in range(1, min(_AFFIXES, len(mine_suf)) + 1):
        cut = mine_suf[-n:]
        options.append(
            (f"removing the suffix {cut!r} from {theirs}", lambda i, c=cut: i[: -len(c)])
        )
    pres = [their_pre[:n] for n in range(min(_AFFIXES, len(their_pre)) + 1)]
    sufs = [their_suf[len(their_suf) - n :] for n in range(min(_AFFIXES, len(their_suf)) + 1)]
    for pre, suf in itertools.product(pres, sufs):
        if not pre and not suf:
            continue
        words = (
            f"adding the prefix {pre!r} to {theirs}" if not suf
            else f"adding the suffix {suf!r} to {theirs}" if not pre
            else f"writing {theirs} as {pre!r} + id + {suf!r}"
        )  # fmt: skip
        options.append((words, lambda i, p=pre, s=suf: f"{p}{i}{s}"))
    for n, m in itertools.product(
        range(min(_AFFIXES, len(mine_pre)) + 1), range(min(_AFFIXES, len(mine_suf)) + 1)
    ):
        if n and m:
            pre, suf = mine_pre[:n], mine_suf[len(mine_suf) - m :]
            options.append((f"removing {pre!r} before and {suf!r} after {theirs}",
                            lambda i, p=pre, s=suf: i[len(p) : len(i) - len(s)]))  # fmt: skip
    # a separator written another way ("doc_12" where the judgments say "doc/12") or left in:
    # each mark the tried ids hold and the judged ids never do, replaced by each of theirs or
    # removed (the tried ids may hold the judged ids' marks too: ids the judgments never saw)
    theirs_marks = tried.marks
    for mark in sorted(_marks(sample) - theirs_marks):
        for other in sorted(theirs_marks):
            options.append((f"writing {mark!r} as {other!r} in {theirs}",
                            lambda i, m=mark, o=other: i.replace(m, o)))  # fmt: skip
        options.append((f"removing {mark!r} from {theirs}", lambda i, m=mark: i.replace(m, "")))
    if not all(i.isascii() for i in sample):  # accented letters composed one way or the other
        for form in ("NFC", "NFD", "NFKC"):
            options.append((f"normalizing {theirs} to Unicode {form}",
                            lambda i, f=form: unicodedata.normalize(f, i)))  # fmt: skip
    best: tuple[str, int, Any] | None = None
    for words, rewrite in options:
        hits = sum(rewrite(i) in tried.ids for i in sample)
        if best is None or hits > best[1]:
            best = (words, hits, rewrite)
    if best is None or best[1] == 0:
        return None
    words, hits, rewrite = best
    matched = ((i, rewrite(i)) for i in sample)
    pairs = tuple(itertools.islice(((i, j) for i, j in matched if j in tried.ids), EXAMPLES))
    return Rewrite(words, hits, len(sample), pairs)


def _marks(ids: Iterable[str]) -> set[str]:
    """The separators in `ids` (characters neither letter nor digit), the `_MARKS` most common."""
    counts = Counter(c for i in ids for c in i if not c.isalnum())
    return {c for c, _ in counts.most_common(_MARKS)}


def _examples(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in itertools.islice(dict.fromkeys(ids), EXAMPLES))


def _hint(ids: Sequence[str], judged: Collection[str], what: str) -> str:
    return _hint_of(id_rewrite(ids, judged, what))


def _sides(ids: Sequence[str], targets: Collection[str], what: str, theirs: str) -> str:
    """`_sides_of` the rewrite that makes most of `ids` ids of `targets` (`id_rewrite`)."""
    return _sides_of(id_rewrite(ids, targets, what), ids, targets, theirs)


def _sides_of(
    found: Rewrite | None, ids: Sequence[str], targets: Collection[str], theirs: str
) -> str:
    """The two sides of an id mismatch, "(run: …; `theirs`: …)", and the rewrite `found`:
    with one, ids it matches, each beside the id it becomes; else the first ids of each side."""
    pairs = found.examples if found is not None else ()
    mine = [i for i, _ in pairs] if pairs else ids
    other = [j for _, j in pairs] if pairs else sorted(targets)
    return f"(run: {_examples(mine)}; {theirs}: {_examples(other)})" + _hint_of(found)


def _hint_of(found: Rewrite | None) -> str:
    if found is None:
        return ""
    return f"; {found.words} would match {found.hits} of {found.tried}"


def _top_ids(top: _TopJudged) -> list[str]:
    """`top`'s ids as text, in run order."""
    return [d.decode("utf-8") for d in top.docs.tolist()]


def _judged_queries(
    judgments: Mapping[str, Mapping[str, int]], complete: Collection[str] | None
) -> set[str]:
    return set(judgments) if complete is not None else {q for q, d in judgments.items() if d}


def corpus_share(
    run: TrecRun, judgments: Mapping[str, Mapping[str, int]], k: int, corpus: Collection[str],
    complete: Collection[str] | None = None,
) -> tuple[int, int]:  # fmt: skip
    """How many of the documents in the run's top k (of the judged queries it answers) the
    corpus holds, and how many documents that top k has."""
    docs = _top_judged(run, _judged(judgments, complete), k).docs
    if not docs.size:
        return 0, 0
    _, held = _among(doc_hashes(docs), np.unique(_hashes(corpus)))
    return int(held.sum()), int(docs.size)


def unjudged_top(
    run: TrecRun, judgments: Mapping[str, Mapping[str, int]], k: int,
    complete: Collection[str] | None = None,
) -> list[str]:  # fmt: skip
    """The documents of the run's top k (of the judged queries it answers) that the judgments
    grade for no query, in run order, each once (at most `_SAMPLE`).

    By hash first: an id whose hash no judged id has is unjudged, one whose bytes are the judged
    id of its hash is judged, and only the rest (a collision) is looked up as text; only the
    unjudged ids are decoded (the top 10 of 10,000 queries are 100,000 ids, nearly all judged
    or repeated)."""
    shared = _judged(judgments, complete)
    top = _top_judged(run, shared, k)
    docs = top.docs
    if not docs.size or not shared.known.size:
        unjudged = docs
    else:
        at, same = top.at, top.same
        judged = same & (shared.ids[at] == docs)
        collided = np.flatnonzero(same & ~judged)  # the hash of a judged id, other bytes
        if collided.size:
            judged[collided] = [d.decode("utf-8") in shared.every
                                for d in docs[collided].tolist()]  # fmt: skip
        unjudged = docs[~judged]
    # each once, in run order: the first of each distinct id
    _, first = np.unique(unjudged, return_index=True)
    kept = unjudged[np.sort(first)[:_SAMPLE]]
    return [d.decode("utf-8") for d in kept.tolist()]


def _percent(share: float) -> str:
    return f"{share * 100:.0f} %"


def check_coverage(
    run: TrecRun, judgments: Mapping[str, Mapping[str, int]], k: int, path: str | Path,
    complete: Collection[str] | None = None, *, min_coverage: float,
    corpus: Collection[str] | None = None,
) -> Coverage:  # fmt: skip
    """`coverage`, after refusing a run that answers no judged query or fewer of them than
    `min_coverage` (``[runs].min_coverage``), whose top-k documents the judgments never grade,
    or whose top-k documents `corpus` (the project's document ids, when it has a corpus) does
    not hold beyond the share `min_coverage` allows: one `RunFileError` naming the run file,
    the coverage, example ids from each side and the likely fix."""
    shared = _judged(judgments, complete)
    top = _top_judged(run, shared, k)
    found = _counted(run, shared, top)
    judged = sorted(shared.queries)
    if found.answered == 0:
        raise RunFileError(
            path,
            f"expected query ids that the judgments use, found none in common: the run answers "
            f"{found.run_queries} {'query' if found.run_queries == 1 else 'queries'}, the "
            f"judgments grade {found.judged_queries} "
            + _sides(run.qids, set(judged), "query", "judgments"),
        )
    if found.partial(min_coverage):
        asked = set(run.qids)
        missing = [q for q in judged if q not in asked]
        stray = [q for q in run.qids if q not in set(judged)]
        fix = _hint(stray, set(missing), "query") or (
            f"; if the others are meant to count as empty lists, set [runs].min_coverage = "
            f"{math.floor(found.query_share * 100) / 100:.2f} in the project file"  # accepts it
        )
        raise RunFileError(
            path,
            f"expected the run to answer at least {_percent(min_coverage)} of the judged queries "
            f"([runs].min_coverage), found {found.answered} of {found.judged_queries} "
            f"({_percent(found.query_share)}; unanswered: {_examples(missing)})" + fix,
        )
    if found.judged_anywhere == 0:
        docs = _top_ids(top)
        every = _every(judgments, complete)
        raise RunFileError(
            path,
            f"expected document ids that the judgments grade, found none of the {found.top} "
            f"documents in the run's top {k} graded for any query "
            + _sides(docs, every, "document", "judgments"),
        )
    if corpus is not None:
        docs = _top_ids(top)
        held = corpus if isinstance(corpus, (set, frozenset)) else frozenset(corpus)
        unknown = [d for d in docs if d not in held]
        if len(unknown) > (1 - min_coverage) * len(docs) + 1e-9:
            raise RunFileError(
                path,
                f"expected document ids of the corpus, found {len(unknown)} of the {len(docs)} "
                f"documents in the run's top {k} not in it ({_percent(len(unknown) / len(docs))}, "
                f"above the {_percent(1 - min_coverage)} [runs].min_coverage allows) "
                + _sides(unknown, held, "document", "corpus"),
            )
    return found


FAR_BELOW = 0.5  # a run judged at under this fraction of the other runs' median share is odd


def check_judged_shares(
    runs: Mapping[str, tuple[Path, Coverage, Sequence[str]]],
    judgments: Mapping[str, Mapping[str, int]], complete: Collection[str] | None = None,
    min_coverage: float = MIN_COVERAGE,
) -> None:  # fmt: skip
    """Without a corpus to hold a run's document ids against: refuse a run judged for some
    query less often than the median of the other runs whose unjudged ids (`unjudged_top`, per
    run name with its path and `Coverage`) are judged ids after a simple rewrite -- the mark
    of ids written another way, not of a run that finds documents the assessors never saw.
    Refused when the rewrite matches most of them and the run's share is under `FAR_BELOW`
    times the others' (`id_rewrite`), or when the top documents it would match (estimated
    from the ids it was tried on) are more than the share `min_coverage` leaves, as a corpus
    would refuse them."""
    shared = _judged(judgments, complete)
    for name, (path, found, unjudged) in runs.items():
        others = [c.anywhere_share for n, (_, c, _) in runs.items() if n != name]
        if not others or not unjudged:
            continue
        typical = statistics.median(others)
        if found.anywhere_share >= typical:
            continue
        best = _best_rewrite(unjudged, shared.targets, "document")
        if best is None:
            continue
        mostly = best.most and found.anywhere_share < FAR_BELOW * typical
        rewritten = (1 - found.anywhere_share) * best.hits / best.tried  # of its top documents
        if mostly or rewritten > 1 - min_coverage + 1e-9:
            share = "" if mostly else (
                f", about {_percent(rewritten)} of them judged ids written another way (above the "
                f"{_percent(1 - min_coverage)} [runs].min_coverage allows)"
            )  # fmt: skip
            raise RunFileError(
                path,
                f"expected document ids written like the judgments', found "
                f"{_percent(found.anywhere_share)} of the {found.top} documents in the run's top "
                f"{found.k} judged for some query, against {_percent(typical)} for the other "
                f"runs{share} " + _sides_of(best, unjudged, shared.every, "judgments"),
            )
