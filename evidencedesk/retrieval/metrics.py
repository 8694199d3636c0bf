"""Ranking metrics over judged result lists (SPEC section 4).

A question whose pool holds no relevant chunk is *undefined*: every metric returns ``None`` for
it, and means leave it out (and say how many they left out). Relevant = grade >= ``Judged.relevant``
(2 by default). The statistics (`Summary`, intervals, paired tests) live in :mod:`.stats` and are
re-exported here.

The per-question functions (`recall_at`, `ndcg_at`, ...) are the definitions, written to be read;
the means and per-question tables (`summarize`, `per_question`, `per_question_all`, `by_tag`)
come from the one vectorised engine, :mod:`.metric_engine`, which the tests hold equal to these
functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from evidencedesk.metric_names import METRIC_FORMS, split_metric
from evidencedesk.retrieval.metric_engine import of_judged
from evidencedesk.retrieval.stats import (
    Interval,
    Paired,
    Summary,
    bootstrap_ci,
    flips_needed,
    holm,
    paired,
    paired_bootstrap_ci,
    randomization_test,
    sign_test_p,
)

__all__ = [
    "METRIC_FORMS",
    "Interval",
    "Judged",
    "MetricSpec",
    "Paired",
    "Summary",
    "bootstrap_ci",
    "by_tag",
    "condense",
    "dcg",
    "flips_needed",
    "gain",
    "hit_at",
    "holm",
    "judged_at",
    "judge_run",
    "metric_value",
    "ndcg_at",
    "paired",
    "paired_bootstrap_ci",
    "parse_metric",
    "per_question",
    "per_question_all",
    "precision_at",
    "randomization_test",
    "recall_at",
    "reciprocal_rank",
    "sign_test_p",
    "summarize",
]

RELEVANT = 2
VARIANTS = ("exp", "linear")


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
    """

    id: str
    tags: tuple[str, ...]
    answerable: bool
    grades: tuple[int, ...]
    pool: tuple[int, ...]
    ids: tuple[str, ...] = ()
    relevant: int = RELEVANT
    returned: int | None = None
    judged: tuple[bool, ...] | None = None

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
        """This question's value of the metric `name` (None when undefined); what lets
        :mod:`.stats` pair judged lists without importing this module (which imports it)."""
        return parse_metric(name).of(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tags": list(self.tags),
            "answerable": self.answerable,
            "grades": list(self.grades),
            "pool": list(self.pool),
            "ids": list(self.ids),
            "relevant": self.relevant,
        } | ({} if self.returned is None else {"returned": self.returned}) | (
            {} if self.judged is None else {"judged": list(self.judged)}
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


def hit_at(j: Judged, k: int) -> float | None:
    """1.0 when a relevant result is in the top k, else 0.0; None when undefined."""
    hits = _hits(j, k)
    return None if not j.defined else float(hits > 0)


def judged_at(j: Judged, k: int) -> float | None:
    """Judged@k (ir_measures' name): the share of the top k results that have a judgment at
    all, over the results there are (min(k, list length)); None when undefined or nothing was
    returned. Not a quality metric: it says how far the other metrics can be trusted."""
    _check_k(k)
    top = min(k, j.size)
    if not j.defined or top == 0:
        return None
    flags = j.judged[:top] if j.judged is not None else (True,) * top
    return sum(flags) / top


def reciprocal_rank(j: Judged) -> float | None:
    """1 / rank of the first relevant result, 0 if none returned; None when undefined."""
    if not j.defined:
        return None
    for rank, g in enumerate(j.grades, start=1):
        if g >= j.relevant:
            return 1.0 / rank
    return 0.0


def gain(grade: int, variant: str = "exp") -> float:
    """ "exp": 2^grade - 1 (textbook, default); "linear": grade (trec_eval ``ndcg_cut``)."""
    if variant == "exp":
        return float(2**grade - 1)
    if variant == "linear":
        return float(grade)
    raise ValueError(f"unknown gain variant {variant!r}; expected one of: {', '.join(VARIANTS)}")


def dcg(grades: Iterable[int], variant: str = "exp") -> float:
    """Sum of gain / log2(1 + rank), rank from 1."""
    return sum(gain(g, variant) / math.log2(1 + rank) for rank, g in enumerate(grades, start=1))


def ndcg_at(j: Judged, k: int, variant: str = "exp") -> float | None:
    """DCG of the top k / DCG of the ideal list ``pool[:k]``; None when undefined."""
    _check_k(k)
    gain(0, variant)  # validate the variant even for undefined questions
    if not j.defined:
        return None
    ideal = dcg(sorted(j.pool, reverse=True)[:k], variant)
    return dcg(j.grades[:k], variant) / ideal


def condense(j: Judged) -> Judged:
    """`j` with its unjudged results removed before any metric reads it: Sakai's condensed
    list (what ``trec_eval -J`` evaluates). It needs the whole list (``returned`` is None); a
    list whose every result is judged is itself."""
    if j.judged is None:
        return j
    if j.returned is not None:
        raise ValueError(f"expected a whole list to condense, found the head of {j.returned}")
    keep = [i for i, flag in enumerate(j.judged) if flag]
    return replace(j, grades=tuple(j.grades[i] for i in keep),
                   ids=tuple(j.ids[i] for i in keep) if j.ids else (), judged=None)  # fmt: skip


# -- names ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: kind (recall, precision, hit, mrr, ndcg), cut-off, nDCG gain."""

    name: str
    kind: str
    k: int | None = None
    variant: str = "exp"

    def of(self, j: Judged) -> float | None:
        if self.kind == "mrr":
            return reciprocal_rank(j)
        assert self.k is not None
        if self.kind == "ndcg":
            return ndcg_at(j, self.k, self.variant)
        fn: Callable[[Judged, int], float | None] = {
            "recall": recall_at,
            "precision": precision_at,
            "hit": hit_at,
            "judged": judged_at,
        }[self.kind]
        return fn(j, self.k)


def parse_metric(name: str) -> MetricSpec:
    """``recall@k``, ``precision@k``, ``hit@k``, ``mrr``, ``ndcg@k[:linear|:exp]``."""
    kind, k, variant = split_metric(name)
    return MetricSpec(name, kind) if kind == "mrr" else MetricSpec(name, kind, k, variant)


def metric_value(j: Judged, name: str | MetricSpec) -> float | None:
    spec = name if isinstance(name, MetricSpec) else parse_metric(name)
    return spec.of(j)


# -- aggregates -------------------------------------------------------------------------------


def _mean(values: Sequence[float | None]) -> tuple[float | None, int, int]:
    kept = [v for v in values if v is not None]
    return (math.fsum(kept) / len(kept) if kept else None), len(kept), len(values) - len(kept)


def summarize(judged: Sequence[Judged], names: Iterable[str]) -> dict[str, Summary]:
    """Per name: the mean over defined questions, how many counted, how many left out."""
    specs = [parse_metric(n) for n in names]
    values = of_judged(judged, [spec.name for spec in specs])
    out: dict[str, Summary] = {}
    for spec in specs:
        value, n, left = _mean(values[spec.name])
        out[spec.name] = Summary(spec.name, value, n, left)
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
    spec = parse_metric(name)
    values = of_judged(judged, [spec.name])[spec.name]
    return dict(zip((j.id for j in judged), values, strict=True))


def by_tag(
    judged: Sequence[Judged],
    name: str,
    values: Sequence[float | None] | Mapping[str, float | None] | None = None,
) -> dict[str, tuple[float | None, int]]:
    """Tag -> (mean over defined questions, number of defined questions); tags sorted.
    `values`: the questions' values of `name`, when the caller has them already -- one per
    judged question in order, or question id -> value as `per_question` gives it (a question
    it leaves out is undefined)."""
    spec = parse_metric(name)
    if values is None:
        values = of_judged(judged, [spec.name])[spec.name]
    elif isinstance(values, Mapping):
        values = [values.get(j.id) for j in judged]
    groups: dict[str, list[float | None]] = {}
    for j, value in zip(judged, values, strict=True):
        for tag in dict.fromkeys(j.tags):
            groups.setdefault(tag, []).append(value)
    result: dict[str, tuple[float | None, int]] = {}
    for tag in sorted(groups):
        value, n, _ = _mean(groups[tag])
        result[tag] = (value, n)
    return result


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

    A negative grade counts as 0 (not relevant); a label whose grades are not `complete`
    (qrels) marks the results it does not grade as unjudged (`Judged.judged`)."""
    _check_k(k)
    allowed = catalog.allowed(scope)
    judged: list[Judged] = []
    for label in labels:
        found = searcher.search(label.question, k, allowed)
        pool = sorted(
            (g for cid, g in label.grades.items() if cid in allowed and g > 0), reverse=True
        )
        ids = tuple(c.chunk.id for c in found)
        flags = None
        if not getattr(label, "complete", True):
            flags = tuple(i in label.grades for i in ids)
            flags = None if all(flags) else flags
        judged.append(
            Judged(
                id=label.id,
                tags=tuple(label.tags),
                answerable=bool(label.answerable),
                grades=tuple(max(label.grade_of(c.chunk), 0) for c in found),
                pool=tuple(pool),
                ids=ids,
                relevant=getattr(label, "relevant_grade", RELEVANT),
                judged=flags,
            )
        )
    return judged
