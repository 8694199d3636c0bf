"""Ranking metrics over judged result lists (SPEC section 4).

A question whose pool holds no relevant chunk is *undefined*: every metric returns ``None`` for
it, and means leave it out (and say how many they left out). Relevant = grade >= ``Judged.relevant``
(`DEFAULT_RELEVANCE`, 2, by default). The statistics (`Summary`, intervals, the sign test) live in
:mod:`.stats` and are re-exported here; the paired comparisons of two runs (`paired`,
`_paired_bootstrap_ci`, `_randomization_test`) take judged lists or per-question values.

Every metric is declared once, with its names in trec_eval, ir_measures and ranx, in
:mod:`evidencedesk._metric_names`; `_parse_metric` reads any of those names into a `Metric`.

`KINDS` is the one registry from a metric's kind to what computes it: its readable reference
(`recall_at`, `ndcg_at`, ...: the definitions, written to be read, one judged list at a time)
and its vectorised column (:mod:`.metric_engine`: every question at once). `_metric_value`
dispatches to the reference; the means and per-question tables (`summarize`, `per_question`,
`per_question_all`, `by_tag`, the paired tests) to the column, which the tests hold equal to the
reference bit for bit (``tests/test_every_metric.py``, every registered kind).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from evidencedesk._metric_names import DEFAULT_RELEVANCE, MEASURES, Measure, Metric, read_metric
from evidencedesk.errors import UnknownNameError
from evidencedesk.retrieval import _metric_engine as engine
from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._metric_engine import (
    JudgedLike,
    JudgedLists,
    Lines,
    as_values,
    defined,
    lines_of,
    question_ids,
    question_tags,
)
from evidencedesk.retrieval._stats import (
    RANDOMIZATION_RESAMPLES,
    Interval,
    Paired,
    Summary,
    bootstrap_ci,
    randomization_p,
    sign_flips,
)

__all__ = [
    "KINDS",
    "Interval",
    "Judged",
    "Kind",
    "Paired",
    "Summary",
    "bootstrap_ci",
    "by_tag",
    "by_tag_all",
    "dcg",
    "gain",
    "judge_run",
    "ndcg_at",
    "paired",
    "per_question",
    "per_question_all",
    "precision_at",
    "recall_at",
    "reciprocal_rank",
    "registry",
    "summarize",
]

_GAINS = ("exp", "linear")  # the nDCG gains `gain` takes


@dataclass(frozen=True)
class Judged:
    """One question's returned list, judged. ``grades``: the returned list in order; ``pool``: grades
    of every allowed chunk, best first (zeros may be omitted) -- the ideal list.

    ``returned``: how long the returned list was when ``grades`` and ``ids`` hold only its head
    (a long TREC run judged to the depth its metrics need, `trec_judge.judge_trec_run`); None
    when they hold all of it. ``size`` is that length either way.

    ``judged``: per returned result, whether the judgments grade it at all (an unjudged result
    counts as not relevant, like a judged 0, but the honest reading of a comparison needs to
    know how many there are); None when every returned result is judged (a labels file grades
    every chunk: a missing grade there means 0).

    ``nonrelevant``: how many documents the judgments grade below the relevance threshold (0 up
    to ``relevant - 1``; a negative grade is not counted): bpref's N, None when not known (bpref
    is then refused). ``negative``: per returned result, whether its grade was negative before
    it was read as 0 (TREC's -2 "junk"); bpref skips such a result, as trec_eval reads a
    negative grade as "in the pool, not judged"; None when none was.
    """

    id: str
    tags: tuple[str, ...]
    answerable: bool
    grades: tuple[int, ...]
    pool: tuple[int, ...]
    ids: tuple[str, ...] = ()
    relevant: int = DEFAULT_RELEVANCE
    returned: int | None = None
    judged: tuple[bool, ...] | None = None
    nonrelevant: int | None = None
    negative: tuple[bool, ...] | None = None

    @property
    def size(self) -> int:
        return len(self.grades) if self.returned is None else self.returned

    @property
    def n_relevant(self) -> int:
        return sum(1 for g in self.pool if g >= self.relevant)

    @property
    def defined(self) -> bool:
        return self.n_relevant > 0

    def value(self, name: str) -> float | None:
        """This question's value of the metric `name` by its reference (None when
        undefined)."""
        return _metric_value(self, name)

    def to_dict(self) -> dict[str, Any]:
        return (
            {
                "id": self.id,
                "tags": list(self.tags),
                "answerable": self.answerable,
                "grades": list(self.grades),
                "pool": list(self.pool),
                "ids": list(self.ids),
                "relevant": self.relevant,
            }
            | ({} if self.returned is None else {"returned": self.returned})
            | ({} if self.judged is None else {"judged": list(self.judged)})
            | ({} if self.nonrelevant is None else {"nonrelevant": self.nonrelevant})
            | ({} if self.negative is None else {"negative": list(self.negative)})
        )


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"expected a cut-off k >= 1, found {k!r}")


def _hits(j: Judged, k: int) -> int:
    _check_k(k)
    return sum(1 for g in j.grades[:k] if g >= j.relevant)


def recall_at(j: Judged, k: int) -> float | None:
    """Relevant in the top k / relevant in the pool; None when the pool has none."""
    hits, total = _hits(j, k), j.n_relevant
    return None if total == 0 else hits / total


def precision_at(j: Judged, k: int) -> float | None:
    """Relevant in the top k / k (a short list still divides by k); None when undefined."""
    hits = _hits(j, k)
    return None if not j.defined else hits / k


def _hit_at(j: Judged, k: int) -> float | None:
    """1.0 when a relevant result is in the top k, else 0.0; None when undefined."""
    hits = _hits(j, k)
    return None if not j.defined else float(hits > 0)


def _judged_at(j: Judged, k: int) -> float | None:
    """Judged@k (ir_measures' name): the share of the top k results that have a judgment at
    all, over the results there are (min(k, list length)); None when undefined or nothing was
    returned. Not a quality metric: it says how far the other metrics can be trusted."""
    _check_k(k)
    top = min(k, j.size)
    if not j.defined or top == 0:
        return None
    flags = j.judged[:top] if j.judged is not None else (True,) * top
    return sum(flags) / top


def reciprocal_rank(j: Judged, k: int | None = None) -> float | None:
    """1 / rank of the first relevant result, 0 if none returned (with `k`: none in the top k,
    MRR@k); None when undefined."""
    top = _top(j, k)
    if not j.defined:
        return None
    for rank, g in enumerate(top, start=1):
        if g >= j.relevant:
            return 1.0 / rank
    return 0.0


def _top(j: Judged, k: int | None) -> tuple[int, ...]:
    """The grades a metric with cut-off `k` reads (all of them when k is None)."""
    if k is None:
        return j.grades
    _check_k(k)
    return j.grades[:k]


def _average_precision(j: Judged, k: int | None = None) -> float | None:
    """AP: the precision at the rank of each relevant result returned (within the top k, with
    `k`), summed, / every relevant document in the pool (trec_eval's ``map`` and
    ``map_cut_k``: R, not min(R, k)); None when undefined."""
    top = _top(j, k)
    if not j.defined:
        return None
    hits, total = 0, 0.0
    for rank, g in enumerate(top, start=1):
        if g >= j.relevant:
            hits += 1
            total += hits / rank
    return total / j.n_relevant


def _r_precision(j: Judged) -> float | None:
    """Relevant results in the top R / R, R the relevant documents in the pool; None when
    undefined."""
    if not j.defined:
        return None
    r = j.n_relevant
    return sum(1 for g in j.grades[:r] if g >= j.relevant) / r


def _bpref(j: Judged) -> float | None:
    """bpref (Buckley & Voorhees 2004), as trec_eval computes it: each relevant result returned
    scores 1 - min(n, R) / min(N, R), n the judged non-relevant results ranked above it (1 when
    n is 0), summed, / R. Unjudged results, and results graded below 0, count neither way; N is
    ``j.nonrelevant``. None when undefined; a ValueError when N is not known."""
    if not j.defined:
        return None
    if j.nonrelevant is None:
        raise ValueError(
            f"{j.id}: expected the number of judged non-relevant documents (Judged.nonrelevant) "
            "for bpref, found None"
        )
    judged = j.judged if j.judged is not None else (True,) * len(j.grades)
    negative = j.negative if j.negative is not None else (False,) * len(j.grades)
    nonrel = [known and not below_zero and g < j.relevant
              for g, known, below_zero in zip(j.grades, judged, negative, strict=True)]  # fmt: skip
    r = j.n_relevant
    # N counts at least the judged non-relevant results the list holds (trec_eval's N always
    # does: it counts them in the same qrels)
    cap = min(max(j.nonrelevant, sum(nonrel)), r)
    above, total = 0, 0.0
    for g, judged_nonrel in zip(j.grades, nonrel, strict=True):
        if g >= j.relevant:
            total += 1.0 if above == 0 else 1.0 - min(above, r) / cap
        elif judged_nonrel:
            above += 1
    return total / r


def gain(grade: int, gain: str = "exp") -> float:
    """ "exp": 2^grade - 1 (textbook, default); "linear": grade (trec_eval ``ndcg_cut``)."""
    if gain == "exp":
        return float(2**grade - 1)
    if gain == "linear":
        return float(grade)
    raise ValueError(f"unknown nDCG gain {gain!r}; expected one of: {', '.join(_GAINS)}")


def dcg(grades: Iterable[int], gain: str = "exp") -> float:
    """Sum of gain / log2(1 + rank), rank from 1."""
    return sum(_gain(g, gain) / math.log2(1 + rank) for rank, g in enumerate(grades, start=1))


_gain = gain  # `dcg` and `ndcg_at` name their argument `gain` too


def ndcg_at(j: Judged, k: int | None, gain: str = "exp") -> float | None:
    """DCG of the top k / DCG of the ideal list ``pool[:k]`` (k None: of the whole list / of the
    whole pool, trec_eval's ``ndcg``); None when undefined."""
    _top(j, k)  # validate k and the gain even for undefined questions
    _gain(0, gain)
    if not j.defined:
        return None
    return _ndcg(j, k, gain)


def _ndcg(j: Judged, k: int | None, gain: str) -> float:
    """DCG of the top k / DCG of the ideal list, 0 when the ideal list gains nothing: what
    trec_eval gives every judged question, one with no relevant judgment too (its grades below
    the relevance threshold keep their gain: `Kind.undefined`)."""
    ideal = dcg(sorted(j.pool, reverse=True)[:k], gain)
    return dcg(_top(j, k), gain) / ideal if ideal > 0 else 0.0


def _condense(j: Judged) -> Judged:
    """`j` with its unjudged results removed before any metric reads it: Sakai's condensed
    list (what ``trec_eval -J`` evaluates). It needs the whole list (``returned`` is None); a
    list whose every result is judged is itself."""
    if j.judged is None:
        return j
    if j.returned is not None:
        raise ValueError(f"expected a whole list to condense, found the head of {j.returned}")
    keep = [i for i, flag in enumerate(j.judged) if flag]
    negative = None if j.negative is None else tuple(j.negative[i] for i in keep)
    return replace(j, grades=tuple(j.grades[i] for i in keep),
                   ids=tuple(j.ids[i] for i in keep) if j.ids else (), judged=None,
                   negative=negative if negative and any(negative) else None)  # fmt: skip


# -- the registry: each kind's reference and column --------------------------------------------


@dataclass(frozen=True)
class Kind:
    """What computes one kind of metric (`Measure.kind`): its readable `reference`, one judged
    list at a time (the definition, written to be read), and its vectorised `column`
    (`metric_engine`: every question at once, equal to the reference bit for bit). `takes`: the
    keyword arguments the reference takes besides the judged list (``k``, the cut-off, and
    ``gain``, nDCG's); the column always takes (lines, k, gain)."""

    kind: str
    reference: Callable[..., float | None]
    column: Callable[[Lines, int | None, str], np.ndarray]
    takes: tuple[str, ...] = ("k",)
    # what trec_eval gives a question the kind leaves undefined (no relevant judgment), which
    # `[report] averaging = "trec_eval"` averages in: 0, unless the kind names its reference for
    # such a question here; its column's value there is that one's (nDCG's grades below the
    # relevance threshold keep their gain, in trec_eval as here)
    undefined: Callable[..., float] | None = None

    def _given(self, k: int | None, gain: str | None) -> dict[str, object]:
        given = {"k": k, "gain": gain or "exp"}
        return {name: given[name] for name in self.takes}

    def value(self, j: Judged, k: int | None, gain: str | None) -> float | None:
        """One question's value by the reference (None when undefined)."""
        return self.reference(j, **self._given(k, gain))

    def trec_eval_value(self, j: Judged, k: int | None, gain: str | None) -> float:
        """Trec_eval's value of a question `value` leaves undefined (by the reference)."""
        return 0.0 if self.undefined is None else self.undefined(j, **self._given(k, gain))

    def values(
        self, lines: Lines, k: int | None, gain: str | None, averaging: str = "defined"
    ) -> np.ndarray:
        """Every question's value by the column: NaN where undefined, or under trec_eval's
        `averaging` the value trec_eval gives such a question (`trec_eval_value`)."""
        values = self.column(lines, k, gain or "exp")
        if averaging != "trec_eval":
            values[~defined(lines)] = np.nan
        elif self.undefined is None:
            values[~defined(lines)] = 0.0
        return values


def registry(kinds: Iterable[Kind], measures: Iterable[Measure]) -> Mapping[str, Kind]:
    """Kind -> its `Kind` (read-only), checked: every kind a measure declares has a reference
    and a column, each kind is registered once, and none is registered that no measure declares.
    Run at import on `MEASURES`, so a measure declared without either fails the import."""
    out: dict[str, Kind] = {}
    for entry in kinds:
        if entry.kind in out:
            raise ValueError(
                f"expected each metric kind registered once, found {entry.kind!r} twice"
            )
        if not set(entry.takes) <= {"k", "gain"}:
            raise ValueError(
                f"expected the metric kind {entry.kind!r} to take k and gain, found {entry.takes}"
            )
        if not callable(entry.reference) or not callable(entry.column):
            raise ValueError(
                f"expected a reference and a column function for the metric kind {entry.kind!r}, "
                f"found {entry.reference!r} and {entry.column!r}"
            )
        out[entry.kind] = entry
    declared = dict.fromkeys(m.kind for m in measures)
    missing = [kind for kind in declared if kind not in out]
    if missing:
        raise ValueError(
            f"expected a reference and a column for every declared metric kind, found none for "
            f"{', '.join(missing)}"
        )
    unused = [kind for kind in out if kind not in declared]
    if unused:
        raise ValueError(f"expected every registered kind declared in MEASURES, found {unused}")
    return MappingProxyType(out)


# -- the vectorised columns: each kind's values for every question at once, bit for bit its
# reference's (tests/test_every_metric.py); the arrays they read are `_metric_engine`'s Lines


def _recall_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top k / R (`metrics.recall_at`)."""
    n_rel = engine.n_relevant(lines)
    hits = engine.hits(lines, engine.cutoff(k, "recall"))
    return engine.over_r(hits, n_rel)


def _precision_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top k / k (`metrics.precision_at`)."""
    cut = engine.cutoff(k, "precision")
    return engine.hits(lines, cut) / cut


def _hit_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """1 when a relevant result is in the top k (`metrics._hit_at`)."""
    return (engine.hits(lines, engine.cutoff(k, "hit")) > 0).astype(np.float64)


def _judged_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """The judged share of the top min(k, list length) (`metrics._judged_at`); NaN for an empty
    list."""
    if lines.judged is None or lines.size is None:
        raise ValueError("Judged@k needs every returned result, found only graded lines")
    shown = np.minimum(lines.size, engine.cutoff(k, "judged"))
    seen = np.bincount(lines.line_q[lines.judged & engine.in_top(lines, k)], minlength=lines.n)
    values: np.ndarray = np.divide(seen, shown, out=np.full(lines.n, np.nan), where=shown > 0)
    return values


def _rr_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """1 / the rank of the first relevant result in the top k, or of the list (`metrics.
    reciprocal_rank`)."""
    kept = engine.relevant(lines) & engine.in_top(lines, k)
    lq, rk = lines.line_q[kept], lines.rank[kept]
    first = engine.first_in_block(lq)
    values = np.zeros(lines.n)
    values[lq[first]] = 1.0 / (rk[first] + 1.0)
    return values


def _ap_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """Average precision of the top k, or of the list, over R (`metrics._average_precision`)."""
    n_rel = engine.n_relevant(lines)
    kept = engine.relevant(lines) & engine.in_top(lines, k)
    lq, rk = lines.line_q[kept], lines.rank[kept]
    precision = (engine.in_block(lq) + 1) / (rk + 1)  # hits so far / rank, at each relevant result
    return engine.over_r(np.bincount(lq, weights=precision, minlength=lines.n), n_rel)


def _rprec_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """Relevant in the top R / R (`metrics._r_precision`)."""
    n_rel, q = engine.n_relevant(lines), lines.line_q
    hits = np.bincount(q[engine.relevant(lines) & (lines.rank < n_rel[q])], minlength=lines.n)
    return engine.over_r(hits, n_rel)


def _bpref_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """bpref, as trec_eval computes it (`metrics._bpref`)."""
    if lines.nonrel is None or lines.n_nonrel is None:
        raise ValueError("bpref needs the judged non-relevant results, found only graded lines")
    n, q, rel, n_rel = lines.n, lines.line_q, engine.relevant(lines), engine.n_relevant(lines)
    if ((lines.n_nonrel < 0) & (n_rel > 0)).any():
        missing = int(np.flatnonzero((lines.n_nonrel < 0) & (n_rel > 0))[0])
        raise ValueError(
            f"expected the number of judged non-relevant documents for bpref, found None for "
            f"question {missing}"
        )
    # judged non-relevant results ranked above each line, within its question
    seen = np.cumsum(lines.nonrel) - lines.nonrel
    above = (
        seen
        - seen[np.flatnonzero(engine.first_in_block(q))][np.cumsum(engine.first_in_block(q)) - 1]
        if q.size
        else seen
    )
    # N counts at least the judged non-relevant results the list holds, as in `metrics._bpref`
    at_least = np.maximum(lines.n_nonrel, np.bincount(q[lines.nonrel], minlength=n))
    r, cap = n_rel[q[rel]], np.minimum(at_least, n_rel)[q[rel]]
    share = np.divide(np.minimum(above[rel], r), cap, out=np.zeros(r.size), where=cap > 0)
    terms = np.where(above[rel] == 0, 1.0, 1.0 - share)
    return engine.over_r(np.bincount(q[rel], weights=terms, minlength=n), n_rel)


def _ndcg_column(lines: engine.Lines, k: int | None, gain: str) -> np.ndarray:
    """DCG of the top k, or of the list, over the ideal list's (`metrics.ndcg_at`)."""
    n, q, rank, top = lines.n, lines.line_q, lines.rank, engine.in_top(lines, k)
    gained = engine.dcg_sums(q[top], rank[top], lines.grade[top], gain, n)
    order = np.lexsort((-lines.pool_g, lines.pool_q))  # each ideal list best first
    pq, pg = lines.pool_q[order], lines.pool_g[order]
    prank = np.arange(pq.size) - np.searchsorted(pq, pq)
    best = np.ones(pq.size, dtype=bool) if k is None else prank < k
    ideal = engine.dcg_sums(pq[best], prank[best], pg[best], gain, n)
    # every question's, one with no relevant judgment too (`metrics._ndcg`: trec_eval's value)
    values: np.ndarray = np.divide(gained, ideal, out=np.zeros(n), where=ideal > 0)
    return values


# every kind of metric, its reference beside its column: adding a metric is its declaration in
# `metric_names.MEASURES` and one line here (with its two functions)
KINDS = registry(
    (
        Kind("recall", recall_at, _recall_column),
        Kind("precision", precision_at, _precision_column),
        Kind("hit", _hit_at, _hit_column),
        Kind("mrr", reciprocal_rank, _rr_column),
        Kind("map", _average_precision, _ap_column),
        Kind("rprec", _r_precision, _rprec_column, takes=()),
        Kind("ndcg", ndcg_at, _ndcg_column, takes=("k", "gain"), undefined=_ndcg),
        Kind("bpref", _bpref, _bpref_column, takes=()),
        Kind("judged", _judged_at, _judged_column),
    ),
    MEASURES,
)


def _kind_of(metric: Metric) -> Kind:
    """The registered `Kind` that computes `metric`; an undeclared kind is an
    `UnknownNameError` naming the registered ones."""
    found = KINDS.get(metric.kind)
    if found is None:
        raise UnknownNameError("metric kind", metric.kind, tuple(KINDS))
    return found


def _parse_metric(name: object) -> Metric:
    """Any name `evidencedesk._metric_names` declares: evidencedesk's (``recall@k``, ``mrr``,
    ``map@k``, ``ndcg@k:linear``, ``bpref``, ...) or trec_eval's, ir_measures' and ranx's for
    the same metric (``P_10``, ``AP``, ``ndcg_cut_10``, ``RR@10``, ...)."""
    return read_metric(name)


def _metric_value(j: Judged, name: str | Metric) -> float | None:
    """One question's value of a metric by the readable definitions (None when undefined)."""
    metric = name if isinstance(name, Metric) else read_metric(name)
    return _kind_of(metric).value(j, metric.k, metric.gain)


def _trec_eval_value(j: Judged, name: str | Metric) -> float:
    """The value trec_eval gives a question a metric leaves undefined (no relevant judgment),
    by the readable definitions: 0, but nDCG's (`Kind.undefined`)."""
    metric = name if isinstance(name, Metric) else read_metric(name)
    return _kind_of(metric).trec_eval_value(j, metric.k, metric.gain)


def _values_of(lines: Lines, name: str | Metric, averaging: str = "defined") -> np.ndarray:
    """Every question's value of a metric (``recall@10``, ``mrr``, ``ndcg@10:linear``, ``AP``,
    ...) by the vectorised engine, NaN where undefined; under `averaging` "trec_eval", a
    quality metric's undefined questions take the value trec_eval gives them (a diagnostic,
    Judged@k, keeps its own rule)."""
    metric = name if isinstance(name, Metric) else read_metric(name)
    if metric.measure.diagnostic:
        averaging = "defined"
    return _kind_of(metric).values(lines, metric.k, metric.gain, averaging)


def _of_judged(
    judged: Sequence[Any], names: Iterable[str], averaging: str = "defined"
) -> dict[str, list[float | None]]:
    """Per metric name, every question's value (None when undefined), in judged order: the
    values every mean, table and paired test of the kit reads (under `averaging` "trec_eval",
    those trec_eval averages: `_values_of`).

    Within a build, a judge's lists (`JudgedLists`: a run's) keep each metric's values once
    made (the build's memo "metric values", with the lists' arrays, so that their identity
    stays theirs): a run's variant, its comparisons and its Judged@k read the same values, and
    made them afresh each time (0.13 s of a 10,000-question build's CPU). Only read: the
    lists are shared."""
    lines = lines_of(judged)
    if not isinstance(judged, JudgedLists):
        return {name: as_values(_values_of(lines, name, averaging)) for name in names}
    kept: dict[tuple[int, str, str], tuple[Lines, list[float | None]]] = memo("metric values", dict)
    out = {}
    for name in names:
        found = kept.get((id(lines), name, averaging))
        if found is None or found[0] is not lines:
            values = as_values(_values_of(lines, name, averaging))
            found = kept[id(lines), name, averaging] = (lines, values)
        out[name] = found[1]
    return out


# -- pairing two runs --------------------------------------------------------------------------


class _Scored(JudgedLike, Protocol):
    """A judged question (`Judged`), seen through what pairing needs: also its id."""

    @property
    def id(self) -> str: ...


# a run's per-question values: its judged questions, or question id -> value
_Values = Sequence[_Scored] | Mapping[str, float | None]


def _values(run: _Values, name: str) -> Mapping[str, float | None]:
    if isinstance(run, Mapping):
        return run  # only read: no copy (a comparison aligns each pair of runs three times)
    # judged lists: the one metric engine's values, as `per_question_all` gives them
    return dict(zip((j.id for j in run), _of_judged(run, [name])[name], strict=True))


def _aligned(a: _Values, b: _Values, name: str = "mrr") -> list[tuple[str, float, float]]:
    """(question id, value in a, value in b) for questions defined in both, in a's order; `a`
    and `b` are judged lists (`name` picks the values) or question id -> value."""
    va, vb = _values(a, name), _values(b, name)
    xs: list[Any] = list(va.values())
    ys: list[Any] = list(map(vb.get, va))
    if None not in xs and None not in ys:  # both define every question of a: zipped in C
        return list(zip(va, map(float, xs), map(float, ys), strict=True))
    return [(qid, float(x), float(y))
            for qid, x, y in zip(va, xs, ys, strict=True) if x is not None and y is not None]  # fmt: skip


def paired(a: _Values, b: _Values, name: str = "mrr") -> Paired:
    """Which questions b wins / loses against a, ties, and the exact sign-test p."""
    return sign_flips(_aligned(a, b, name))


def _paired_bootstrap_ci(
    a: _Values,
    b: _Values,
    name: str = "mrr",
    seed: int = 0,
    resamples: int = 10_000,
    level: float = 0.95,
) -> Interval:
    """Interval of mean(b - a); each resample draws the same questions for both runs."""
    return bootstrap_ci([y - x for _, x, y in _aligned(a, b, name)], seed, resamples, level)


def _randomization_test(
    a: _Values, b: _Values, name: str = "mrr", seed: int = 0,
    resamples: int = RANDOMIZATION_RESAMPLES,
) -> float:  # fmt: skip
    """Two-sided paired sign-flip permutation test of mean(b - a) (`stats.randomization_p`)."""
    return randomization_p([y - x for _, x, y in _aligned(a, b, name)], seed, resamples)


# -- aggregates -------------------------------------------------------------------------------


def _mean_defined(values: Sequence[float | None]) -> tuple[float | None, int, int]:
    """The one mean of the kit: over the defined values (None left out), summed exactly
    (`math.fsum`); with how many counted and how many were left out."""
    kept = [v for v in values if v is not None]
    return (math.fsum(kept) / len(kept) if kept else None), len(kept), len(values) - len(kept)


def summarize(judged: Sequence[Judged], names: Iterable[str]) -> dict[str, Summary]:
    """Per name: the mean over defined questions, how many counted, how many left out."""
    values = _of_judged(judged, list(names))
    out: dict[str, Summary] = {}
    for name, column in values.items():
        value, n, left = _mean_defined(column)
        out[name] = Summary(name, value, n, left)
    return out


def per_question(judged: Sequence[Judged], name: str) -> dict[str, float]:
    """Question id -> value for the questions that define the metric, in judged order.

    Undefined questions are left out, as means leave them out, so ``sum(v.values()) / len(v)``
    is the mean `summarize` reports. `per_question_all` keeps them, as None.
    """
    return {
        qid: value for qid, value in per_question_all(judged, name).items() if value is not None
    }


def per_question_all(judged: Sequence[Judged], name: str) -> dict[str, float | None]:
    """Question id -> value for every judged question, None where undefined, in judged order."""
    values = _of_judged(judged, [name])[name]
    return dict(zip((j.id for j in judged), values, strict=True))


def by_tag(
    judged: Sequence[Judged],
    name: str,
    values: Sequence[float | None] | Mapping[str, float | None] | None = None,
) -> dict[str, tuple[float, int]]:
    """Tag -> (mean over defined questions, number of defined questions); tags sorted.

    Undefined questions are left out, as in `per_question`, and so is a tag none of whose
    questions defines the metric (an ``unanswerable`` tag under MRR): every slice has a number.
    `by_tag_all` keeps such a tag, as (None, 0). `values`: the questions' values of `name`, when
    the caller has them already -- one per judged question in order, or question id -> value as
    `per_question` gives it (a question it leaves out is undefined)."""
    return {
        tag: (mean, n)
        for tag, (mean, n) in by_tag_all(judged, name, values).items()
        if mean is not None
    }


def by_tag_all(
    judged: Sequence[Judged],
    name: str,
    values: Sequence[float | None] | Mapping[str, float | None] | None = None,
) -> dict[str, tuple[float | None, int]]:
    """Tag -> (mean over defined questions or None, number of defined questions) for every tag."""
    if values is None:
        values = _of_judged(judged, [name])[name]
    elif isinstance(values, Mapping):
        values = [values.get(q) for q in question_ids(judged)]
    if len(values) != len(judged):
        raise ValueError(f"expected a value per judged question ({len(judged)}), found "
                         f"{len(values)}")  # fmt: skip
    result: dict[str, tuple[float | None, int]] = {}
    for tag, at in _tag_groups(question_tags(judged)).items():
        value, n, _ = _mean_defined([values[i] for i in at])
        result[tag] = (value, n)
    return result


def _tag_groups(tags: Sequence[tuple[str, ...]]) -> dict[str, list[int]]:
    """Tag -> the places of the questions that carry it (each once, in order); tags sorted.
    `tags`: each question's tags (`question_tags`)."""
    groups: dict[str, list[int]] = {}
    for i, own in enumerate(tags):
        if len(own) == 1:  # most questions carry one tag: no need to drop repeats
            groups.setdefault(own[0], []).append(i)
            continue
        for tag in dict.fromkeys(own):
            groups.setdefault(tag, []).append(i)
    return {tag: groups[tag] for tag in sorted(groups)}


# -- judging a searcher -----------------------------------------------------------------------


class _Label(Protocol):
    # read-only properties, so that a frozen dataclass (`labels.Label`) satisfies them
    @property
    def id(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def answerable(self) -> bool: ...
    @property
    def grades(self) -> Any: ...

    def grade_of(self, chunk: Any) -> int: ...


class _Catalog(Protocol):
    def allowed(self, scope: Any = None) -> frozenset[str]: ...


def judge_run(
    searcher: Any, catalog: _Catalog, labels: Iterable[_Label], scope: Any = None, k: int = 10
) -> list[Judged]:
    """Ask every labelled question within the scope's allowed chunks; judge the top k.

    A negative grade counts as 0 (not relevant; `Judged.negative` keeps that it was negative);
    a label whose grades are not `complete` (qrels) marks the results it does not grade as
    unjudged (`Judged.judged`). bpref's N (`Judged.nonrelevant`): the allowed chunks graded
    below the relevance threshold -- with a complete labels file every allowed chunk without
    a relevant (or negative) grade."""
    _check_k(k)
    allowed = catalog.allowed(scope)
    judged: list[Judged] = []
    for label in labels:
        found = searcher.search(label.question, k, allowed)
        relevant = getattr(label, "relevant_grade", DEFAULT_RELEVANCE)
        grades = {cid: g for cid, g in label.grades.items() if cid in allowed}
        pool = sorted((g for g in grades.values() if g > 0), reverse=True)
        ids = tuple(c.chunk.id for c in found)
        raw = tuple(label.grade_of(c.chunk) for c in found)
        flags = None
        complete = getattr(label, "complete", True)
        if complete:  # every allowed chunk is judged; a missing grade is 0
            below = len(allowed) - sum(1 for g in grades.values() if g >= relevant or g < 0)
        else:
            flags = tuple(i in label.grades for i in ids)
            flags = None if all(flags) else flags
            below = sum(1 for g in grades.values() if 0 <= g < relevant)
        judged.append(
            Judged(
                id=label.id,
                tags=tuple(label.tags),
                answerable=bool(label.answerable),
                grades=tuple(max(g, 0) for g in raw),
                pool=tuple(pool),
                ids=ids,
                relevant=relevant,
                judged=flags,
                nonrelevant=below,
                negative=tuple(g < 0 for g in raw) if any(g < 0 for g in raw) else None,
            )
        )
    return judged
