"""The statistics of the Results, each computed once.

`Book` memoizes every interval by (run key, metric): a candidate whose config equals a built-in
variant's, or a sizing row equal to one, reuses the variant's interval instead of resampling
again. All statistics come from `evidencedesk.retrieval.stats` through this module.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace

from evidencedesk.metric_names import DIAGNOSTIC, split_metric
from evidencedesk.results.rows import MetricStat, RunCosts
from evidencedesk.results.settings import Metric, Settings
from evidencedesk.results.types import (
    CandidateResult,
    Comparison,
    Flip,
    RankedList,
    TagValue,
    VariantResult,
)
from evidencedesk.retrieval.metric_engine import of_judged
from evidencedesk.retrieval.metrics import Judged, by_tag_all, mean_defined, per_question_all
from evidencedesk.retrieval.stats import (
    bootstrap_ci,
    flips_needed,
    holm,
    paired,
    paired_bootstrap_ci,
    randomization_test,
)

# question id -> one metric's value (None: undefined for that question)
_QuestionValues = Mapping[str, float | None]


def question_values(
    judged: Sequence[Judged], names: Sequence[str], averaging: str = "defined"
) -> dict[str, _QuestionValues]:
    """Per metric name, question id -> value (None when undefined), in judged order: one pass
    of the metric engine for every name (`per_question_all` of each name gives the same dicts).

    `averaging` "trec_eval": a question with no relevant judgment counts 0, as trec_eval
    averages it, instead of being left out (Judged@k, a diagnostic, keeps its own rule)."""
    columns = of_judged(judged, list(dict.fromkeys(names)))
    ids = [j.id for j in judged]
    if averaging == "trec_eval":
        columns = {
            name: column if split_metric(name)[0] in DIAGNOSTIC
            else [0.0 if v is None else v for v in column]
            for name, column in columns.items()
        }  # fmt: skip
    return {name: dict(zip(ids, column, strict=True)) for name, column in columns.items()}


class Book:
    """Intervals by (run key, metric), computed on first use with the settings' seed and
    averaging rule."""

    def __init__(self, seed: int, averaging: str = "defined") -> None:
        self.seed = seed
        self.averaging = averaging
        self._stats: dict[tuple[Hashable, str], MetricStat] = {}

    def tag_interval(
        self, key: Hashable, metric: str, tag: str, values: Sequence[float | None]
    ) -> tuple[float | None, float | None]:
        """The 95 % bootstrap interval of one tag's mean (None with fewer than two values)."""
        if (key, f"{metric}#{tag}") not in self._stats:
            ci = bootstrap_ci(values, seed=self.seed)
            self._stats[key, f"{metric}#{tag}"] = MetricStat(
                metric, ci.mean, ci.low, ci.high, ci.n, 0
            )
        s = self._stats[key, f"{metric}#{tag}"]
        return (s.low, s.high) if s.n >= 2 else (None, None)

    def stat(
        self,
        key: Hashable,
        judged: Sequence[Judged],
        metric: str,
        values: _QuestionValues | None = None,
    ) -> MetricStat:
        """The metric's mean and interval over `judged` (`values`: its `question_values`, when
        the caller has them already)."""
        if (key, metric) not in self._stats:
            if values is None:
                values = question_values(judged, [metric], self.averaging)[metric]
            mean, n, left = mean_defined(list(values.values()))
            ci = bootstrap_ci([v for v in values.values() if v is not None], seed=self.seed)
            self._stats[key, metric] = MetricStat(metric, mean, ci.low, ci.high, n, left)
        return self._stats[key, metric]


def first_relevant(j: Judged) -> int | None:
    """The rank of the first relevant result of a judged list (None: none is relevant)."""
    return next((r for r, g in enumerate(j.grades, start=1) if g >= j.relevant), None)


def ranked_lists(
    judged: Sequence[Judged],
    metrics: Sequence[Metric],
    keep: int | None = None,
    values: Mapping[str, _QuestionValues] | None = None,
) -> tuple[RankedList, ...]:
    """Per-question values and lists; `keep` cuts long lists (the values use the whole list).
    `values`: the `question_values` of the metrics, when the caller has them already."""
    if values is None:
        values = question_values(judged, [m.name for m in metrics])
    return tuple(
        RankedList(
            j.id,
            tuple(j.ids[:keep]),
            tuple(j.grades[:keep]),
            j.size,
            first_relevant(j),
            {m.name: values[m.name][j.id] for m in metrics},
            _flags(j.judged, keep),
        )
        for j in judged
    )


def _flags(judged: tuple[bool, ...] | None, keep: int | None) -> tuple[bool, ...] | None:
    """The judged flags of a list's kept head (None when every kept result is judged)."""
    if judged is None:
        return None
    head = judged[:keep]
    return None if all(head) else head


def tag_values(
    judged: Sequence[Judged],
    metrics: Sequence[Metric],
    book: Book | None = None,
    key: Hashable = None,
    values: Mapping[str, _QuestionValues] | None = None,
) -> tuple[TagValue, ...]:
    """Each metric's mean by tag; with a `book`, also its 95 % bootstrap interval over the tag's
    questions (only tags that at least two questions define need a bootstrap call). `values`:
    the `question_values` of the metrics, when the caller has them already."""
    if values is None:
        values = question_values(judged, [m.name for m in metrics])
    out = []
    for m in metrics:
        column = values[m.name]
        by = by_tag_all(judged, m.name, [column[j.id] for j in judged])
        for tag, (mean, n) in by.items():
            low = high = None
            if book is not None and n >= 2:
                tagged = [column[j.id] for j in judged if tag in j.tags]
                low, high = book.tag_interval(key, m.name, tag, tagged)
            out.append(TagValue(m.name, tag, mean, n, low, high))
    return tuple(out)


def variant_result(
    key: Hashable,
    name: str,
    kind: str,
    description: str,
    config: dict[str, object] | None,
    judged: Sequence[Judged],
    costs: RunCosts,
    settings: Settings,
    book: Book,
    keep: int | None = None,
) -> VariantResult:
    """One variant's Results: metrics with intervals, costs, per-question lists and slices."""
    judged = list(judged)
    metrics = settings.metrics
    # every question's value of every metric and slice metric, in one pass of the engine
    values = question_values(judged, [m.name for m in (*metrics, *settings.slices)],
                             settings.averaging)  # fmt: skip
    return VariantResult(
        name=name,
        kind=kind,
        description=description,
        config=config,
        metrics=tuple(book.stat(key, judged, m.name, values[m.name]) for m in metrics),
        costs=costs,
        lists=ranked_lists(judged, metrics, keep, values),
        slices=tag_values(judged, settings.slices, book, key, values),
    )


def values_of(variant: VariantResult, metric: str) -> dict[str, float | None]:
    """Question id -> a variant's value of `metric` on that question."""
    return {r.question: r.values[metric] for r in variant.lists}


def flips(
    variants: Sequence[VariantResult],
    metric: str,
    baseline: str | None = None,
    candidates: Sequence[CandidateResult] = (),
) -> tuple[Flip, ...]:
    """Every ordered pair (a, b) of variants, a != b: b's wins and losses against a, with the
    sign test's p adjusted (Holm) across the unordered pairs (a pair's two orders are one test);
    then the baseline against each candidate, its flips and Holm p from the candidate's
    comparison on `metric` (adjusted across the candidates, as on its page)."""
    values = [values_of(v, metric) for v in variants]
    raw: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...], int, float]] = {}
    for a, va in zip(variants, values, strict=True):
        for b, vb in zip(variants, values, strict=True):
            if a is not b:
                p = paired(va, vb, metric)
                raw[a.name, b.name] = (p.better, p.worse, p.tied, p.p)
    index = {v.name: i for i, v in enumerate(variants)}
    pairs = {f"{index[a]}:{index[b]}": t[3] for (a, b), t in raw.items() if index[a] < index[b]}
    adjusted = holm(pairs) if pairs else {}

    def family_p(a: str, b: str) -> float:
        i, j = sorted((index[a], index[b]))
        return adjusted[f"{i}:{j}"]

    out = [
        Flip(a, b, metric, better, worse, tied, p, "variants", family_p(a, b))
        for (a, b), (better, worse, tied, p) in raw.items()
    ]
    for c in candidates:
        cmp = c.comparison(metric)
        out.append(Flip(baseline or "", c.name, metric, cmp.better, cmp.worse, cmp.tied,
                        cmp.sign_p, "candidates", cmp.sign_holm_p))  # fmt: skip
    return tuple(out)


def delta_interval(
    base: Sequence[Judged], other: Sequence[Judged], metric: str, seed: int
) -> tuple[float | None, float | None]:
    """The paired 95 % bootstrap interval of mean(other − base) on `metric`."""
    a, b = per_question_all(base, metric), per_question_all(other, metric)
    ci = paired_bootstrap_ci(a, b, metric, seed=seed)
    return ci.low, ci.high


def comparisons(
    base_stats: Sequence[MetricStat],
    base_judged: Sequence[Judged],
    runs: Mapping[str, tuple[Hashable, Sequence[Judged]]],
    metrics: Sequence[Metric],
    book: Book,
) -> dict[str, tuple[tuple[MetricStat, ...], tuple[Comparison, ...]]]:
    """Per candidate (name -> (run key, judged lists)): its own means and, per metric, the paired
    difference with its interval, the flips, sign and randomization tests, and Holm's p across
    the candidates. `base_stats`: the baseline's mean of each metric."""
    stats = {s.metric: s for s in base_stats}
    # per-question values once per run (one pass for every metric); the tests take dicts
    names = [m.name for m in metrics]
    a = question_values(base_judged, names, book.averaging)
    raw: dict[str, tuple[list[MetricStat], list[Comparison]]] = {}
    for name, (key, judged) in runs.items():
        own, out = [], []
        values = question_values(judged, names, book.averaging)
        for m in metrics:
            b = values[m.name]
            ci = paired_bootstrap_ci(a[m.name], b, m.name, seed=book.seed)
            f = paired(a[m.name], b, m.name)
            rand = randomization_test(a[m.name], b, m.name, seed=book.seed)
            mine = book.stat(key, judged, m.name, b)
            own.append(mine)
            out.append(Comparison(m.name, stats[m.name], mine, ci.mean, ci.low, ci.high, ci.n,
                                  f.better, f.worse, f.tied, f.p, rand, rand, f.p,
                                  _spread(a[m.name], b), flips_needed(ci.n)))  # fmt: skip
        raw[name] = (own, out)
    for i in range(len(metrics)):  # each metric is one family of tests across the candidates
        decisive = holm({name: out[i].randomization_p for name, (_, out) in raw.items()})
        signs = holm({name: out[i].sign_p for name, (_, out) in raw.items()})
        for name, (_, out) in raw.items():
            out[i] = replace(out[i], holm_p=decisive[name], sign_holm_p=signs[name])
    return {name: (tuple(own), tuple(out)) for name, (own, out) in raw.items()}


def _spread(a: _QuestionValues, b: _QuestionValues) -> float | None:
    """The sample standard deviation of the per-question differences b - a (None below two)."""
    d = [y - x for x, y in ((a.get(q), b.get(q)) for q in a) if x is not None and y is not None]
    if len(d) < 2:
        return None
    mean = math.fsum(d) / len(d)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in d) / (len(d) - 1))


def in_noise(best: Sequence[Judged], other: Sequence[Judged], metric: str = "mrr") -> bool:
    """Not distinguishable from the best: a gap of at most two questions, or sign-test p >= 0.05."""
    if best is other:
        return True
    f = paired(list(best), list(other), metric)
    return len(f.better) - len(f.worse) >= -2 or f.p >= 0.05
