"""How far a run's ids meet the judgments: checked before a run's numbers mean anything.

A run whose query ids never match the qrels' (``q19335`` against ``19335``), or whose document
ids are never judged (``Skinner_1932`` against ``<ent:Skinner_1932>``), would otherwise get a
confident row of zeros. `check_coverage` refuses such a run with one line: the coverage, three
example ids from each side, and the rewrite that would make them match when a simple one does
(a prefix or suffix, case, surrounding brackets, a ``.0``). A run that answers only part of the
judged queries is kept, and its `Coverage` says so (the report warns where it is used).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from evidencedesk.errors import RunFileError
from evidencedesk.files.project_schema import (
    MIN_COVERAGE,  # below it, a run's coverage is warned about
)
from evidencedesk.files.trec import TrecRun
from evidencedesk.files.trec_keys import doc_hashes, fixed_width

__all__ = ["Coverage", "MIN_COVERAGE", "check_coverage", "coverage", "id_rewrite"]

_SAMPLE = 2000  # ids a rewrite is tried on
EXAMPLES = 3  # ids of each side an error names
_AFFIXES = 8  # longest prefix or suffix a rewrite adds or removes


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
    return doc_hashes(fixed_width(pa.array(list(ids), pa.string())))


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
    judged = set(judgments) if complete is not None else {q for q, d in judgments.items() if d}
    answered = [i for i, q in enumerate(run.qids) if q in judged]
    lines = _top_lines(run, answered, k)
    known = np.unique(_hashes(_every(judgments, complete)))
    anywhere = int(np.isin(doc_hashes(run.docs[lines]), known).sum()) if lines.size else 0
    return Coverage(len(judged), len(answered), len(run.qids), k, int(lines.size), anywhere)


def _common_prefix(ids: Sequence[str]) -> str:
    return os.path.commonprefix(list(ids))


def _common_suffix(ids: Sequence[str]) -> str:
    return os.path.commonprefix([i[::-1] for i in ids])[::-1]


def id_rewrite(
    ids: Sequence[str], judged: Collection[str], what: str
) -> tuple[str, int, int] | None:
    """The simplest rewrite of `ids` that makes most of them ids of `judged`: (its words, how
    many of the tried ids it matches, how many were tried), or None when none matches at least
    half of them. `what` names the ids ("query", "document")."""
    sample = sorted(set(ids))[:_SAMPLE]
    targets = sorted(judged)[:_SAMPLE]
    if not sample or not targets:
        return None
    theirs = f"the run's {what} ids"
    mine_pre, mine_suf = _common_prefix(sample), _common_suffix(sample)
    their_pre, their_suf = _common_prefix(targets), _common_suffix(targets)
    lowered = {j.lower(): j for j in judged}
    options: list[tuple[str, object]] = [
        (f"reading {theirs} without regard to case", lambda i: lowered.get(i.lower(), i)),
    ]
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
    best: tuple[str, int] | None = None
    for words, rewrite in options:
        hits = sum(rewrite(i) in judged for i in sample)  # type: ignore[operator]
        if best is None or hits > best[1]:
            best = (words, hits)
    if best is None or best[1] * 2 < len(sample):
        return None
    return best[0], best[1], len(sample)


def _examples(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in itertools.islice(dict.fromkeys(ids), EXAMPLES))


def _hint(ids: Sequence[str], judged: Collection[str], what: str) -> str:
    found = id_rewrite(ids, judged, what)
    if found is None:
        return ""
    words, hits, tried = found
    return f"; {words} would match {hits} of {tried}"


def check_coverage(
    run: TrecRun, judgments: Mapping[str, Mapping[str, int]], k: int, path: str | Path,
    complete: Collection[str] | None = None,
) -> Coverage:  # fmt: skip
    """`coverage`, after refusing a run that answers no judged query or whose top-k documents
    the judgments never grade: one `RunFileError` naming the run file, the coverage, example
    ids from each side and the likely fix."""
    found = coverage(run, judgments, k, complete)
    judged = sorted(judgments if complete is not None else (q for q, d in judgments.items() if d))
    if found.answered == 0:
        raise RunFileError(
            path,
            f"expected query ids that the judgments use, found none in common: the run answers "
            f"{found.run_queries} queries, the judgments grade {found.judged_queries} (run: "
            f"{_examples(run.qids)}; judgments: {_examples(judged)})"
            + _hint(run.qids, set(judged), "query"),
        )
    if found.judged_anywhere == 0:
        answered = [i for i, q in enumerate(run.qids) if q in set(judged)]
        docs = [d.decode("utf-8") for d in run.docs[_top_lines(run, answered, k)].tolist()]
        every = _every(judgments, complete)
        raise RunFileError(
            path,
            f"expected document ids that the judgments grade, found none of the {found.top} "
            f"documents in the run's top {k} graded for any query (run: {_examples(docs)}; "
            f"judgments: {_examples(sorted(every))})" + _hint(docs, every, "document"),
        )
    return found
