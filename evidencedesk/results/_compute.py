"""The statistics of the Results, each computed once.

`Book` memoizes every interval by (run key, metric): a candidate whose config equals a built-in
variant's, or a sizing row equal to one, reuses the variant's interval instead of resampling
again. All statistics come from `evidencedesk.retrieval._stats` through this module.

The Results of either kind of project, from its evaluated parts: inputs facts, flips and the
numbers both kinds share (the evaluation stages themselves live in `stages`, walked by `evaluate`).

How far the judgments reach, computed once: Judged@k of every run, each candidate's Judged@k
against the baseline's, the primary metric on condensed lists, and the pairs to label next.

An unjudged result counts as not relevant in every metric, so a candidate that finds documents
the assessors never saw is penalised for the holes in the labels. These numbers say how large
the holes are where the comparison looks (`JudgedShare`, with the caveat rule of
`verdicts.unjudged_caveat`), whether the verdict survives them (the primary metric on
condensed lists: Sakai 2007, ``trec_eval -J``), and which pairs would close them first
(`to_label`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from evidencedesk._metric_names import Metric
from evidencedesk.files._trec_keys import decoded_ids, fixed_width_of
from evidencedesk.gate import GatePolicy
from evidencedesk.results._inputs import ProjectInputs, chunk_facts, documents, questions
from evidencedesk.results._settings import _SHOWN, Settings
from evidencedesk.results._verdicts import evidence_of, unjudged_caveat
from evidencedesk.results.types import (
    SCHEMA_VERSION,
    Ablations,
    CandidateResult,
    CitationRow,
    Comparison,
    EvidenceResult,
    Flip,
    GateOutcome,
    Inputs,
    JudgedShare,
    MetricStat,
    ModelFacts,
    Notice,
    NotRun,
    PolicyFacts,
    QuestionFact,
    RankedList,
    Results,
    RunCosts,
    SizingRow,
    Skipped,
    TagValue,
    ToLabel,
    VariantResult,
)
from evidencedesk.retrieval._metric_engine import (
    JudgedLists,
    defined,
    lines_of,
    list_heads,
    question_ids,
    question_tags,
)
from evidencedesk.retrieval._stats import (
    ALPHA,
    bootstrap_ci,
    column_flips,
    flips_needed,
    holm,
    randomization_p,
    row_columns,
)
from evidencedesk.retrieval.catalog import Scope
from evidencedesk.retrieval.metrics import (
    Judged,
    _aligned,
    _condense,
    _mean_defined,
    _of_judged,
    _paired_bootstrap_ci,
    _tag_groups,
    paired,
    per_question_all,
)
from evidencedesk.version import __version__

# per metric name, each question's value in judged order (None: undefined for that question)
_Columns = Mapping[str, Sequence[float | None]]


def _question_columns(
    judged: Sequence[Judged], names: Sequence[str], averaging: str = "defined"
) -> tuple[Sequence[str], dict[str, list[float | None]]]:
    """The question ids in judged order, and per metric name each question's value in that
    order (None when undefined): one pass of the metric engine for every name.

    `averaging` "trec_eval": a question with no relevant judgment takes the value trec_eval
    gives it (0, but nDCG's: `metrics.Kind.undefined`) instead of being left out (Judged@k, a
    diagnostic, keeps its own rule)."""
    return question_ids(judged), _of_judged(judged, list(dict.fromkeys(names)), averaging)


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
        values: Sequence[float | None] | None = None,
    ) -> MetricStat:
        """The metric's mean and interval over `judged` (`values`: its `_question_columns`
        column, when the caller has it already)."""
        if (key, metric) not in self._stats:
            column = (
                _question_columns(judged, [metric], self.averaging)[1][metric]
                if values is None
                else values
            )
            mean, n, left = _mean_defined(column)
            ci = bootstrap_ci([v for v in column if v is not None], seed=self.seed)
            self._stats[key, metric] = MetricStat(metric, mean, ci.low, ci.high, n, left)
        return self._stats[key, metric]


def first_relevant(j: Judged) -> int | None:
    """The rank of the first relevant result of a judged list (None: none is relevant)."""
    grades, relevant = j.grades, j.relevant
    # the first place of each relevant grade the list holds, found in C: a list holds a few
    # distinct grades, and a build asks this of every list (150,000 at 50,000 questions)
    at = [grades.index(g) for g in set(grades) if g >= relevant]
    return min(at) + 1 if at else None


def ranked_lists(
    judged: Sequence[Judged],
    metrics: Sequence[Metric],
    keep: int | None = None,
    values: _Columns | None = None,
    *,
    averaging: str,
) -> tuple[RankedList, ...]:
    """Per-question values and lists; `keep` cuts long lists (the values use the whole list).
    `values`: the `_question_columns` of the metrics, when the caller has them already, else
    made under the settings' `averaging` (a candidate's values as its baseline's are made)."""
    names, ids = [m.name for m in metrics], question_ids(judged)
    if values is None:
        values = _question_columns(judged, names, averaging)[1]
    firsts = _first_relevant_ranks(judged)
    if firsts is None:
        firsts = [first_relevant(j) for j in judged]
    # each question's values as one row (a dict made from a zip, not a lookup a metric)
    columns = [values[name] for name in names]
    rows = zip(*columns, strict=True) if columns else itertools.repeat(())
    lines = judged.lines if isinstance(judged, JudgedLists) else None
    if keep == 0 and lines is not None and lines.size is not None:  # no list needs making
        return tuple(
            RankedList(q, (), (), size, first, dict(zip(names, row, strict=True)))
            for q, size, first, row in zip(ids, lines.size.tolist(), firsts, rows, strict=True)
        )  # fmt: skip
    return tuple(
        RankedList(
            j.id,
            tuple(j.ids[:keep]),
            tuple(j.grades[:keep]),
            j.size,
            first,
            dict(zip(names, row, strict=True)),
            _flags(j.judged, keep),
        )
        for j, first, row in zip(judged, firsts, rows, strict=True)
    )


def _first_relevant_ranks(judged: Sequence[Judged]) -> list[int | None] | None:
    """`first_relevant` of every list of a judge's lists (`JudgedLists`), from the arrays the
    metrics read (each judged result's rank and grade): one pass for every question instead of
    a look through each list (150,000 lists at 50,000 questions x 3 runs). None for other lists,
    and where a threshold below 1 makes an unjudged result (grade 0) relevant: the arrays hold
    judged results alone."""
    if not isinstance(judged, JudgedLists):
        return None
    lines = judged.lines
    if lines.n != len(judged) or not bool(np.all(lines.relevant >= 1)):
        return None
    hit = lines.grade >= lines.relevant[lines.line_q]
    none = np.iinfo(np.int64).max
    first = np.full(lines.n, none, dtype=np.int64)
    np.minimum.at(first, lines.line_q[hit], lines.rank[hit])
    return [None if f == none else f + 1 for f in first.tolist()]


def _flags(judged: tuple[bool, ...] | None, keep: int | None) -> tuple[bool, ...] | None:
    """The judged flags of a list's kept head (None when every kept result is judged)."""
    if judged is None:
        return None
    head = judged[:keep]
    return None if all(head) else head


def tag_values(
    judged: Sequence[Judged],
    metrics: Sequence[Metric],
    averaging: str,
    book: Book | None = None,
    key: Hashable = None,
    values: _Columns | None = None,
) -> tuple[TagValue, ...]:
    """Each metric's mean by tag, under the settings' `averaging` rule; with a `book`, also its
    95 % bootstrap interval over the tag's questions (only tags that at least two questions
    define need a bootstrap call). `values`: the `_question_columns` of the metrics under that
    rule, when the caller has them already."""
    groups = _tag_groups(question_tags(judged))  # the questions of each tag, once
    if not groups:  # no question carries a tag: no value to compute
        return ()
    if values is None:
        values = _question_columns(judged, [m.name for m in metrics], averaging)[1]
    out = []
    for m in metrics:
        column = values[m.name]
        for tag, at in groups.items():  # as `by_tag_all`
            tagged = [column[i] for i in at]
            mean, n, _ = _mean_defined(tagged)
            low = high = None
            if book is not None and n >= 2:
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
    # the judge's own lists stay as they are: they carry the arrays every value is read from
    judged = judged if isinstance(judged, JudgedLists) else list(judged)
    metrics = settings.metrics
    # every question's value of every metric and slice metric, in one pass of the engine
    _, values = _question_columns(judged, [m.name for m in (*metrics, *settings.slices)],
                                  settings.averaging)  # fmt: skip
    return VariantResult(
        name=name,
        kind=kind,
        description=description,
        config=config,
        metrics=tuple(book.stat(key, judged, m.name, values[m.name]) for m in metrics),
        costs=costs,
        lists=ranked_lists(judged, metrics, keep, values, averaging=settings.averaging),
        slices=tag_values(judged, settings.slices, settings.averaging, book, key, values),
    )


def _values_of(variant: VariantResult, metric: str) -> dict[str, float | None]:
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
    values = [_values_of(v, metric) for v in variants]
    asked = [tuple(v) for v in values]  # each variant's questions, in its order
    raw: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...], int, float]] = {}
    for i, (a, va) in enumerate(zip(variants, values, strict=True)):
        for j, (b, vb) in enumerate(zip(variants, values, strict=True)):
            if a is b:
                continue
            if j < i and asked[i] == asked[j]:  # b against a, mirrored: the same questions
                # in the same order, so a's wins are b's losses, in order; the sign test is
                # symmetric (a pair took two passes, and two sign tests of 50,000 questions)
                worse, better, tied, p_value = raw[b.name, a.name]
                raw[a.name, b.name] = (better, worse, tied, p_value)
                continue
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
        cmp = c.on[metric]
        out.append(Flip(baseline or "", c.name, metric, cmp.better, cmp.worse, cmp.tied,
                        cmp.sign_p, "candidates", cmp.sign_holm_p))  # fmt: skip
    return tuple(out)


def delta_interval(
    base: Sequence[Judged], other: Sequence[Judged], metric: str, seed: int
) -> tuple[float | None, float | None]:
    """The paired 95 % bootstrap interval of mean(other − base) on `metric`."""
    a, b = per_question_all(base, metric), per_question_all(other, metric)
    ci = _paired_bootstrap_ci(a, b, metric, seed=seed)
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
    # per-question values once per run (one pass for every metric)
    names = [m.name for m in metrics]
    base_ids, a = _question_columns(base_judged, names, book.averaging)
    raw: dict[str, tuple[list[MetricStat], list[Comparison]]] = {}
    for name, (key, judged) in runs.items():
        own, out = [], []
        ids, values = _question_columns(judged, names, book.averaging)
        for m in metrics:
            b = values[m.name]
            # the questions both define, paired once for the interval (as
            # `_paired_bootstrap_ci`), the flips, the randomization test and the spread (each
            # aligned them again)
            qids, x, y = _paired_columns(base_ids, a[m.name], ids, b)
            d = y - x
            differences = d.tolist()  # Python's y - x, each the same double
            ci = bootstrap_ci(differences, seed=book.seed)
            f = column_flips(qids, d)  # as `paired`
            rand = randomization_p(differences, book.seed)  # as `_randomization_test`
            mine = book.stat(key, judged, m.name, b)
            own.append(mine)
            out.append(Comparison(m.name, stats[m.name], mine, ci.mean, ci.low, ci.high, ci.n,
                                  f.better, f.worse, f.tied, f.p, rand, rand, f.p,
                                  _spread(differences), flips_needed(ci.n)))  # fmt: skip
        raw[name] = (own, out)
    for i in range(len(metrics)):  # each metric is one family of tests across the candidates
        decisive = holm({name: out[i].randomization_p for name, (_, out) in raw.items()})
        signs = holm({name: out[i].sign_p for name, (_, out) in raw.items()})
        for name, (_, out) in raw.items():
            out[i] = replace(out[i], holm_p=decisive[name], sign_holm_p=signs[name])
    return {name: (tuple(own), tuple(out)) for name, (own, out) in raw.items()}


def _paired_columns(
    base_ids: Sequence[str],
    base: Sequence[float | None],
    ids: Sequence[str],
    values: Sequence[float | None],
) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
    """The questions both runs define, in the baseline's order, with the baseline's and the
    run's values as float64 columns: `_aligned`'s rows as columns. Where the two runs judged the
    same questions in the same order (a runs-only project's runs, a pipeline's variants) each
    value is paired by its place, with no dict made."""
    if list(ids) == list(base_ids):
        x, y = np.array(base, dtype=np.float64), np.array(values, dtype=np.float64)
        if None not in base and None not in values:
            return ids, x, y
        # a None is NaN in its column: left out by where it is None, not by its NaN
        both = [a is not None and b is not None for a, b in zip(base, values, strict=True)]
        keep = np.array(both, dtype=bool)
        return list(itertools.compress(ids, both)), x[keep], y[keep]
    return row_columns(
        _aligned(dict(zip(base_ids, base, strict=True)), dict(zip(ids, values, strict=True)))
    )


def _spread(differences: Sequence[float]) -> float | None:
    """The sample standard deviation of the per-question differences b - a (None below two)."""
    if len(differences) < 2:
        return None
    d = np.array(differences, dtype=np.float64)
    mean = math.fsum(differences) / d.size
    # the deviations in one numpy pass, squared by Python's float power (C's pow, whose last
    # bit can differ from the product's): the same sum as a loop over the differences
    deviations = (d - mean).tolist()
    return math.sqrt(math.fsum(map(pow, deviations, itertools.repeat(2))) / (d.size - 1))


def in_noise(best: Sequence[Judged], other: Sequence[Judged], metric: str = "mrr") -> bool:
    """Not distinguishable from the best: a gap of at most two questions, or sign-test p >= the
    significance level (`ALPHA`, 0.05)."""
    if best is other:
        return True
    f = paired(list(best), list(other), metric)
    return len(f.better) - len(f.worse) >= -2 or f.p >= ALPHA


def question_facts(read: ProjectInputs) -> tuple[QuestionFact, ...]:
    """The questions as the Results hold them: a pipeline's metrics read the judgments in scope
    (its catalog's `Scope()`), a runs-only project's read them all."""
    catalog = read.catalog
    pipeline = read.kind == "pipeline"
    return questions(read.labels, catalog.allowed(Scope()) if catalog is not None and pipeline
                     else None)  # fmt: skip


def _inputs(
    read: ProjectInputs, settings: Settings, variants: Sequence[VariantResult],
    facts: tuple[QuestionFact, ...], candidates: Sequence[CandidateResult] = (),
    to_label: Sequence[ToLabel] = (), run_notices: Sequence[Notice] = (),
) -> Inputs:  # fmt: skip
    files, digest = read.hashes.result()
    catalog, labels = read.catalog, read.labels
    ids: set[str] = set()
    if catalog is not None:  # the chunks the site names (a runs-only project has no catalog)
        ids = {c for lb in labels for c, g in lb.grades.items() if g > 0}
        ids |= {c for v in variants for r in v.lists for c in r.ids[:_SHOWN]}
        ids |= {c for cand in candidates for r in cand.lists for c in r.ids[:_SHOWN]}
        ids |= {row.document for row in to_label}  # to-label.tsv gives their title and text
    return Inputs(
        project=read.name,
        files=files,
        input_hash=digest,
        skipped=tuple(Skipped(s, r) for s, r in read.skipped),
        documents=documents(catalog),
        chunks=len(catalog) if catalog is not None else 0,
        questions=facts,
        chunk_facts=chunk_facts(catalog, ids, settings.restricted_text == "hide"),
        command=read.command,
        demo=read.demo,
        counts=read.counts,
        notices=(*read.notices, *run_notices),
        qrels_file=read.qrels_file,
        qrels_format=read.qrels_format,
        qrels_tabs=read.qrels_tabs,
    )


def _policy_facts(policy: GatePolicy | None) -> PolicyFacts | None:
    """The gate policy's values as the Results record them (None: no policy)."""
    if policy is None:
        return None
    return PolicyFacts(policy.k, policy.min_recall, policy.min_pass_rate, policy.max_drop,
                       policy.review_on_mrr_flips, tuple(policy.critical), dict(policy.notes),
                       policy.flips_min_net, policy.flips_max_p)  # fmt: skip


def _answerable_count(judged: Sequence[Judged]) -> int:
    """The questions whose judgments hold a relevant grade (`Judged.n_relevant`), from the
    arrays the metrics read."""
    return int(np.count_nonzero(defined(lines_of(judged))))


def results_of(
    read: ProjectInputs, settings: Settings, variants: Sequence[VariantResult], baseline: str,
    base_judged: Sequence[Judged], candidates: Sequence[CandidateResult],
    facts: tuple[QuestionFact, ...], sizing: tuple[SizingRow, ...] | None = None,
    ablations: Ablations | None = None, citations: tuple[CitationRow, ...] | None = None,
    evidence: EvidenceResult | None = None,
    to_label: tuple[tuple[ToLabel, ...], int] = ((), 0),
    not_run: Sequence[NotRun] = (), models: Sequence[ModelFacts] = (),
    baseline_gate: GateOutcome | None = None, run_notices: Sequence[Notice] = (),
) -> Results:  # fmt: skip
    """The Results of either kind of project (the pipeline's sections are None for runs-only);
    `facts`: `question_facts` of `read`; `to_label`: the pairs to label next and how many
    there are (`judgments.to_label`); `run_notices`: what reading the runs found, after the
    inputs' own notices."""
    # what the Results take from the inputs, then the statistics
    inputs = _inputs(read, settings, variants, facts, candidates, to_label[0], run_notices)
    policy = _policy_facts(read.policy)
    answerable = _answerable_count(base_judged)
    return Results(
        schema_version=SCHEMA_VERSION,
        version=__version__,
        settings=settings,
        inputs=inputs,
        baseline=baseline,
        variants=tuple(variants),
        flips=flips(variants, settings.flips_metric, baseline, candidates),
        flips_needed=flips_needed(answerable),
        answerable=answerable,
        candidates=tuple(candidates),
        sizing=sizing,
        ablations=ablations,
        citations=citations,
        evidence=evidence,
        policy=policy,
        to_label=to_label[0],
        to_label_total=to_label[1],
        not_run=tuple(not_run),
        models=tuple(models),
        baseline_gate=baseline_gate,
    )


TO_LABEL_CAP = 5000  # rows of to-label.tsv (the first ones every run's best ranked: `to_label`)


def judged_metric(k: int) -> Metric:
    """The Judged@k metric: the share of a run's top k that the judgments grade."""
    return Metric.of(f"judged@{k}")


def judged_stat(book: Book, key: Hashable, judged: Sequence[Judged], k: int) -> MetricStat:
    """A run's Judged@k: its mean over the questions in the comparison, with the interval."""
    return book.stat(key, judged, judged_metric(k).name)


def judged_share(
    base: Sequence[Judged], candidate: Sequence[Judged], k: int, seed: int,
    holds: bool | None = None,
) -> JudgedShare:  # fmt: skip
    """The candidate's Judged@k against the baseline's, paired question by question: both means
    over the questions both lists define (a run that returns nothing for a question has no
    Judged@k there), so that the difference shown beside them is theirs. `holds`: the
    comparison on condensed lists moves as on the full lists (its verdict holds where the
    judgments reach), so the unjudged share cannot change the answer and carries no caveat."""
    name = judged_metric(k).name
    base_ids, a = _question_columns(base, [name])
    ids, b = _question_columns(candidate, [name])
    _, x, y = _paired_columns(base_ids, a[name], ids, b[name])  # as a comparison pairs them
    ci = bootstrap_ci((y - x).tolist(), seed=seed)
    mean_a = _mean_defined(x.tolist())[0]
    mean_b = _mean_defined(y.tolist())[0]
    return JudgedShare(k, mean_a, mean_b, ci.mean, ci.low, ci.high, ci.n,
                       unjudged_caveat(mean_a, mean_b, ci.high) and not holds)  # fmt: skip


def fully_judged(*runs: Sequence[Judged]) -> bool:
    """Whether every result of these runs is judged (so condensed lists would change nothing)."""
    return all(_every_result_judged(run) for run in runs)


def _every_result_judged(run: Sequence[Judged]) -> bool:
    heads = list_heads(run)  # a judge's lists: their heads say it, no list is made
    if heads is not None:
        return bool(heads.judged.all())
    return all(j.judged is None for j in run)


def condensed_lists(judged: Sequence[Judged]) -> tuple[Judged, ...]:
    """Each whole list condensed (`metrics._condense`): a pipeline's final lists."""
    return tuple(_condense(j) for j in judged)


def condensed_comparisons(
    base: Sequence[Judged],
    runs: Mapping[str, Sequence[Judged]],
    primary: Metric,
    book: Book,
    full: Mapping[str, Sequence[Comparison]],
) -> dict[str, tuple[Comparison, bool]]:
    """Per candidate: the primary metric's comparison on condensed lists (Holm across the
    candidates, as on full lists) and whether it moved as the primary metric's comparison on
    the full lists (among the candidate's comparisons `full`) did: up, down, or not at all."""
    stats = [book.stat(("condensed", "baseline"), base, primary.name)]
    found = comparisons(stats, base, {n: (("condensed", n), j) for n, j in runs.items()},
                        [primary], book)  # fmt: skip
    out = {}
    for name, (_, (cmp,)) in found.items():
        head = next(c for c in full[name] if c.metric == primary.name)
        agrees = evidence_of(cmp).direction == evidence_of(head).direction
        out[name] = (cmp, agrees)
    return out


def _unjudged(j: Judged, k: int) -> dict[str, int]:
    """The unjudged ids of a list's top k, with their rank."""
    if j.judged is None:
        return {}
    return {i: r for r, (i, f) in enumerate(zip(j.ids[:k], j.judged[:k], strict=False), 1) if not f}


def _top_entries(
    runs: Sequence[Sequence[Judged]], index: Mapping[str, int], k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every entry of every list's top k, flat, run after run: its run, its question (`index`:
    a question id's place; a list of another question is left out), its rank, whether it is
    unjudged, and its id (fixed-width UTF-8 bytes, `fixed_width_of`)."""
    found = [_run_top(judged, index, k) for judged in runs]
    sizes = [question.size for question, _, _, _ in found]
    run_of = np.repeat(np.arange(len(runs), dtype=np.int64), sizes)
    question, rank, open_, ids = (np.concatenate(column) for column in zip(*found, strict=True))
    return run_of, question, rank, open_, ids


def _run_top(
    judged: Sequence[Judged], index: Mapping[str, int], k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_top_entries` of one run: question, rank, unjudged and id of each entry; a judge's lists
    from their heads (no list is made)."""
    heads = list_heads(judged)
    if heads is not None:
        place = np.fromiter((index.get(q, -1) for q in question_ids(judged)), np.int64,
                            len(judged))  # fmt: skip
        sizes = np.minimum(np.diff(heads.bounds), k)
        at = heads.top(k)
        line_q = np.repeat(np.arange(len(judged), dtype=np.int64), sizes)
        kept = place[line_q] >= 0
        rank = at - heads.bounds[line_q] + 1
        return place[line_q][kept], rank[kept], ~heads.judged[at][kept], heads.ids[at][kept]
    lists = [(index[j.id], j) for j in judged if j.id in index]
    tops = [j.ids[:k] for _, j in lists]
    size = np.fromiter(map(len, tops), np.int64, len(tops))
    total = int(size.sum())
    rank = np.arange(1, total + 1, dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    # a list's judged flags; None: every result judged
    flags = ((True,) * len(t) if j.judged is None else j.judged[:k]
             for t, (_, j) in zip(tops, lists, strict=True))  # fmt: skip
    return (np.repeat(np.array([n for n, _ in lists], dtype=np.int64), size), rank,
            ~np.fromiter(itertools.chain.from_iterable(flags), dtype=bool, count=total),
            fixed_width_of(list(itertools.chain.from_iterable(tops))))  # fmt: skip


def _sorted_distinct(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids in sorted order (bytes order: UTF-8 sorts as its code points, as the
    ids' str do) and each id's place among them. Ids at most one word wide sort as big-endian
    words, padded to eight bytes with the NUL bytes their fixed width pads them with already (no
    id holds one): three times as fast as sorting them as strings (7-byte ids, 1.5 million)."""
    if ids.dtype.itemsize <= 8:
        words = ids if ids.dtype.itemsize == 8 else ids.astype("S8")
        distinct, inverse = np.unique(words.view(">u8"), return_inverse=True)
        return distinct.view("S8").astype(ids.dtype), inverse.ravel()
    distinct, inverse = np.unique(ids, return_inverse=True)
    return distinct, inverse.ravel()


def to_label(
    baseline: Sequence[Judged], candidates: Mapping[str, Sequence[Judged]], baseline_name: str,
    k: int, cap: int = TO_LABEL_CAP, corpus: Collection[str] | None = None,
) -> tuple[tuple[ToLabel, ...], int]:  # fmt: skip
    """The unjudged (question, document) pairs of the baseline's and the candidates' top k,
    depth by depth as TREC pools them: by the best rank a run gives them, then those that split
    a baseline-candidate comparison (in one run's top k, not in the other's) before those every
    run holds, then by question order and document id. A prefix of the rows grades every run's
    results alike; an order by the number of comparisons a pair splits puts the baseline's
    first (it is in every comparison), and an unjudged result counting as not relevant, grading
    a prefix of that order favours the baseline. At most `cap` rows, and how many
    pairs there are in all. With `corpus` (the project's document ids), a document it does not
    hold is never listed: nobody could read it to label it.

    One numpy pass over every top k entry (a 10,000-question project has 100,000s of pairs): a
    pair is its question's place times the number of distinct ids plus its id's place in
    sorted order, so sorting pairs sorts them by question order, then document id."""
    runs = {baseline_name: baseline, **candidates}
    names = list(runs)
    asked = question_ids(baseline)  # no list is made
    index: dict[str, int] = {}
    for n, q in enumerate(asked):
        index.setdefault(q, n)
    run_of, question, rank, unjudged, ids = _top_entries(list(runs.values()), index, k)
    distinct, doc = _sorted_distinct(ids)
    pair = question * max(len(distinct), 1) + doc
    if corpus is not None:  # an id the corpus does not hold is never listed
        unjudged &= np.fromiter((d in corpus for d in decoded_ids(distinct)), dtype=bool,
                                count=len(distinct))[doc]  # fmt: skip
    # each pair once: a bit per run whose top k holds it, a bit per run returning it unjudged
    every, at = np.unique(pair, return_inverse=True)
    held = np.zeros(every.size, dtype=np.int64)
    np.bitwise_or.at(held, at, np.left_shift(1, run_of))
    opened = np.zeros(every.size, dtype=np.int64)
    np.bitwise_or.at(opened, at[unjudged], np.left_shift(1, run_of[unjudged]))
    best = np.full(every.size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, at[unjudged], rank[unjudged])
    shown = np.flatnonzero(opened)
    found, held, returning, best = every[shown], held[shown], opened[shown], best[shown]
    base = (held >> names.index(baseline_name)) & 1
    splits = np.zeros(found.size, dtype=np.int64)
    for c in candidates:
        splits += base != (held >> names.index(c)) & 1
    order = np.lexsort((found, splits == 0, best))[:cap]
    width = max(len(distinct), 1)
    rows = tuple(
        ToLabel(
            asked[int(found[i] // width)],
            distinct[int(found[i] % width)].decode("utf-8"),
            int(best[i]),
            tuple(nm for r, nm in enumerate(names) if returning[i] >> r & 1),
            int(splits[i]),
        )
        for i in order
    )
    return rows, int(found.size)


__all__ = [
    "TO_LABEL_CAP",
    "condensed_comparisons",
    "condensed_lists",
    "fully_judged",
    "judged_metric",
    "judged_share",
    "judged_stat",
    "to_label",
]
