"""The audit's independent oracle: every mean, interval, p-value, Holm adjustment and verdict of
a built site, computed a second time from the files the site exports, by code that shares no
computation with the build.

- **Means** from ``data/runs/*.run`` and ``data/qrels.txt`` with the readable per-question
  definitions of `evidencedesk.retrieval.metrics` (`_metric_value`: `recall_at`, `ndcg_at`, ...;
  never the vectorised engine), for every variant whose run the site exports; the per-question
  CSV must hold the same values. A variant without a run file (a runs-only project's run judged
  at full depth) is recomputed from ``data/per-question.csv`` alone. A candidate that is no
  variant (a pipeline candidate with its own lists) is recomputed from its lists in
  results.json (ids, with the qrels), or, when they hold only the head of each list, from the
  per-question values those lists carry.
- **Intervals and p-values** from those per-question values and results.json's seed, by a
  second implementation written here from docs/statistics.md: the percentile bootstrap drawn
  as documented (``default_rng(seed)``, ``integers(0, n)`` in chunks of ``_CELLS // n`` rows,
  each resample's mean summed in draw order, numpy's quantile), the randomization test (every
  sign pattern, seeded sign draws, or the normal limit), the exact sign test, Holm within each
  family (the candidates against the baseline on one metric; every unordered pair of variants
  on the flips metric).
- **Verdicts** by `VERDICT_RULES`, a table of (condition, verdict) rows written from the words
  of docs/verdicts.md and read in order, never by the build's own rule.

It imports neither the metric engine nor the statistics, resampling or verdict modules of the
build (tests/test_audit_oracle.py reads its imports): a wrong rule there is caught here.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from evidencedesk._inert import printable, visible
from evidencedesk._metric_names import label, split_metric
from evidencedesk.errors import AuditError
from evidencedesk.files._text import read_text
from evidencedesk.gate import GateCheck
from evidencedesk.report._site import slug
from evidencedesk.results.types import (
    CandidateResult,
    Comparison,
    Flip,
    GateOutcome,
    MetricStat,
    Notice,
    PolicyFacts,
    QuestionFact,
    Results,
    RuleValue,
    VariantResult,
    _resolve,
)
from evidencedesk.retrieval._coverage import Coverage
from evidencedesk.retrieval.metrics import Judged, _metric_value, _trec_eval_value

__all__ = [
    "CLAIM_WORDS",
    "Finding",
    "Moves",
    "VERDICT_RULES",
    "best_lead",
    "claim_words",
    "gate_level",
    "graded_list",
    "labelled_counts",
    "number_text",
    "p_text",
    "policy_cell",
    "rules_summary",
    "slice_fewer",
    "oracle_findings",
    "summary_lines",
    "verdict_of",
]

# The documented constants of docs/statistics.md, restated here on purpose: an oracle that
# imported them from the build would share a wrong one (tests/test_audit_oracle.py holds them
# equal to the build's).
_TOLERANCE = 1e-9  # how far a recomputed number may differ from results.json's
_TIE = 1e-12  # per-question differences this small are ties
_LARGE = 3_000  # values above which intervals and randomization p use their large-sample limits
_CELLS = 1 << 18  # resample-matrix cells per chunk of draws
_RESAMPLES = 10_000  # bootstrap resamples, and the randomization test's seeded sign draws
_EXACT_SIGNS = 20  # non-zero differences up to which every sign pattern is counted
_LEVEL = 0.95  # the intervals' coverage
_ALPHA = 0.05  # a Holm-adjusted p below it is significant
_LEAN = 0.2  # a sign-test p below it is a lean

_Values = dict[str, float | None]  # question id -> a metric's value (None: undefined)


@dataclass(frozen=True)
class Finding:
    """One number or verdict the site states and the oracle computes otherwise."""

    place: str  # the file, and where in it (``results.json candidates[0].comparisons[2]``)
    what: str  # the quantity (``low``, ``randomization_p``, ``verdict``)
    site: str  # what the site says
    oracle: str  # what the oracle computes, and from which files

    def line(self) -> str:
        """The audit line: place, quantity, the site's value and the oracle's."""
        return f"{self.place}: {self.what}: the site says {self.site}, the oracle computes {self.oracle}"


# -- reading the exports ----------------------------------------------------------------------


def _read(site: Path, name: str) -> str | None:
    """The text of an export (its ``.gz`` form when the site wrote that), or None."""
    path = site / name
    if path.is_file():
        return read_text(path, AuditError, "site export")
    packed = site / f"{name}.gz"
    if packed.is_file():
        try:
            return gzip.decompress(packed.read_bytes()).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as e:
            raise AuditError(packed, f"expected gzip-compressed UTF-8 text, found {e}") from None
    return None


def _qrels(site: Path) -> dict[str, dict[str, int]]:
    text = _read(site, "data/qrels.txt")
    if text is None:
        raise AuditError(site / "data/qrels.txt", "expected the site's qrels, found none")
    out: dict[str, dict[str, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if len(parts) != 4 or not parts[3].lstrip("-").isdigit():
            raise AuditError(
                site / "data/qrels.txt", f"expected 'qid 0 docid grade', found {line!r}", number
            )
        out.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return out


def _run(site: Path, variant: str) -> dict[str, list[str]] | None:
    """Question id -> document ids in rank order, from the variant's run file (None: none)."""
    text = _read(site, f"data/runs/{slug(variant)}.run")
    if text is None:
        return None
    ranked: dict[str, list[tuple[int, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if len(parts) != 6 or not parts[3].isdigit():
            raise AuditError(
                site / f"data/runs/{slug(variant)}.run",
                f"expected 'qid Q0 docid rank score tag', found {line!r}",
                number,
            )
        ranked.setdefault(parts[0], []).append((int(parts[3]), parts[2]))
    return {q: [doc for _, doc in sorted(rows)] for q, rows in ranked.items()}


_FIRST = "first_relevant_rank"  # the per-question CSV's column of each list's first relevant rank


def _csv(
    site: Path, metrics: Sequence[str]
) -> tuple[dict[str, dict[str, _Values]], dict[tuple[str, str], tuple[str, ...]]]:
    """Variant -> metric -> question id -> value, from the per-question CSV, in its row order
    (the first relevant rank as a column `_FIRST`); and each row's tags by (variant, question)."""
    text = _read(site, "data/per-question.csv")
    if text is None:
        raise AuditError(
            site / "data/per-question.csv", "expected the per-question values, found none"
        )
    out: dict[str, dict[str, _Values]] = {}
    tags: dict[tuple[str, str], tuple[str, ...]] = {}
    for number, row in enumerate(_rows(text), start=2):
        variant = _cell(row["variant"])
        tags[variant, row["question"]] = tuple(_cell(row.get("tags") or "").split())
        columns = out.setdefault(variant, {m: {} for m in (*metrics, _FIRST)})
        for m in (*metrics, _FIRST):
            cell = row.get(m)
            try:
                columns[m][row["question"]] = float(cell) if cell else None
            except ValueError:
                raise AuditError(
                    site / "data/per-question.csv",
                    f"{m}: expected a number, found {cell!r}",
                    number,
                ) from None
    return out, tags


def _rows(text: str) -> Iterable[dict[str, str]]:
    """The rows of a CSV text, whatever the length of its cells: an id or a question may be as
    long as the line limit allows, and the csv module refuses a cell over 128 KB by default (its
    limit is the process's: raised for this text, then put back)."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text)))
    try:
        return list(csv.DictReader(io.StringIO(text)))
    finally:
        csv.field_size_limit(limit)


def _cell(text: str) -> str:
    """A CSV text cell as written before the leading ``'`` that keeps a spreadsheet from
    running it (docs/results-schema.md)."""
    return text[1:] if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@") else text


# -- the per-question values ------------------------------------------------------------------


def _judged(
    qid: str, ids: Sequence[str], qrels: Mapping[str, int], results: Results, external: bool = False
) -> Judged:
    """One question's list, judged from the qrels as docs/metrics.md defines it: an unjudged
    document counts as grade 0, a negative grade too (and is flagged for bpref). bpref's N: the
    judgments graded 0 up to the threshold; with a labels file, which grades every chunk, every
    chunk in scope (the current, public ones) without a relevant or negative grade, and for an
    external run every chunk of the catalog."""
    relevant = results.settings.relevance
    grades = [qrels.get(d) for d in ids]
    # a labels file grades every chunk (a missing grade is 0); qrels grade only what they name,
    # in a pipeline project as in a runs-only one
    every = results.settings.kind == "pipeline" and results.settings.questions_from == "labels"
    flags = tuple(g is not None for g in grades)
    negative = tuple(g is not None and g < 0 for g in grades)
    if every:
        docs = results.inputs.documents
        chunks = results.inputs.chunks if external else sum(
            d.chunks for d in docs if d.status == "current" and d.visibility == "public"
        )  # fmt: skip
        nonrelevant = chunks - sum(1 for g in qrels.values() if g >= relevant or g < 0)
    else:
        nonrelevant = sum(1 for g in qrels.values() if 0 <= g < relevant)
    return Judged(
        id=qid,
        tags=(),
        answerable=True,
        grades=tuple(max(g or 0, 0) for g in grades),
        pool=tuple(sorted((g for g in qrels.values() if g > 0), reverse=True)),
        ids=tuple(ids),
        relevant=relevant,
        judged=None if every or all(flags) else flags,
        nonrelevant=nonrelevant,
        negative=negative if any(negative) else None,
    )


def _kernel_values(
    lists: Mapping[str, Sequence[str]], questions: Iterable[str], qrels: Mapping[str, Mapping[str, int]],
    results: Results, external: bool = False,
) -> dict[str, _Values]:  # fmt: skip
    """Metric -> question id -> value by the readable definitions, for every question."""
    depth = results.settings.max_depth
    trec = results.settings.averaging == "trec_eval"
    out: dict[str, _Values] = {m.name: {} for m in results.settings.metrics}
    for q in questions:
        ids = list(lists.get(q, ()))[:depth] if depth else list(lists.get(q, ()))
        judged = _judged(q, ids, qrels.get(q, {}), results, external)
        for m in results.settings.metrics:
            value = _metric_value(judged, m.name)
            if value is None and trec and not _diagnostic(m.name):
                # trec_eval's averaging: a question with no relevant judgment takes trec_eval's
                # value, 0 but for nDCG (its grades below the threshold keep their gain)
                value = _trec_eval_value(judged, m.name)
            out[m.name][q] = value
    return out


def _diagnostic(name: str) -> bool:
    return split_metric(name)[0] == "judged"


@dataclass(frozen=True)
class _Sources:
    """Every run's per-question values (variant and candidate name -> metric -> values) and the
    files each was computed from."""

    values: dict[str, dict[str, _Values]]
    source: dict[str, str]
    tags: dict[str, tuple[str, ...]]  # question id -> its tags (the per-question CSV's)


def _per_question(site: Path, results: Results, found: list[Finding]) -> _Sources:
    """The per-question values the oracle computes with; CSV rows that disagree with them are
    findings."""
    names = [m.name for m in results.settings.metrics]
    table, row_tags = _csv(site, names)
    tags = {q: t for (_, q), t in row_tags.items()}
    qrels = _qrels(site)
    qrels_name = "data/qrels.txt.gz" if (site / "data/qrels.txt.gz").is_file() else "data/qrels.txt"
    csv_name = "data/per-question.csv" + (
        ".gz" if (site / "data/per-question.csv.gz").is_file() else ""
    )
    # each row's tags are its question's in results.json (the slices below are computed from them)
    given = {q.id: tuple(q.tags) for q in results.inputs.questions}
    wrong_tags = [(v, q) for (v, q), t in row_tags.items() if q in given and t != given[q]]
    if wrong_tags:
        run_name, qid = wrong_tags[0]
        more = f" ({len(wrong_tags)} rows differ)" if len(wrong_tags) > 1 else ""
        found.append(Finding(f"{csv_name} ({run_name}, {qid})", "tags",
                             repr(" ".join(row_tags[run_name, qid])),
                             f"{' '.join(given[qid])!r} from results.json's questions{more}"))  # fmt: skip
    values: dict[str, dict[str, _Values]] = {}
    source: dict[str, str] = {}
    for v in results.variants:
        shown = table.get(v.name, {m: {} for m in (*names, _FIRST)})
        run = _run(site, v.name)
        if run is None:  # its values feed every number below; its first ranks are results.json's
            values[v.name], source[v.name] = shown, csv_name
            firsts = {r.question: r.first_relevant for r in v.lists}
            odd = [q for q in firsts if not _same(shown[_FIRST].get(q), firsts[q])]
            if odd:
                _csv_finding(found, f"{csv_name} ({v.name}, {odd[0]})", _FIRST,
                             shown[_FIRST].get(odd[0]), firsts[odd[0]],
                             f"results.json's lists of {v.name}", len(odd))  # fmt: skip
            continue
        mine = _kernel_values(run, list(shown[names[0]]), qrels, results, v.kind == "external")
        values[v.name] = mine
        source[v.name] = f"data/runs/{slug(v.name)}.run and {qrels_name}"
        mine = {**mine, _FIRST: _first_ranks(run, mine[names[0]], qrels, results)}
        wrong = [(q, m) for m in (*names, _FIRST) for q in mine[m]
                 if not _same(shown[m].get(q), mine[m][q])]  # fmt: skip
        if wrong:  # one line per run: the first value that differs, and how many do
            q, m = wrong[0]
            _csv_finding(found, f"{csv_name} ({v.name}, {q})", m, shown[m].get(q), mine[m][q],
                         source[v.name], len(wrong))  # fmt: skip
    for c in results.candidates:
        if c.lists_of is not None:
            values[c.name], source[c.name] = values[c.lists_of], source[c.lists_of]
        elif all(r.size == len(r.ids) for r in c.lists):
            lists = {r.question: r.ids for r in c.lists}
            values[c.name] = _kernel_values(lists, list(lists), qrels, results)
            source[c.name] = f"results.json's lists and {qrels_name}"
        else:
            values[c.name] = {m: {r.question: r.values.get(m) for r in c.lists} for m in names}
            source[c.name] = "results.json's per-question values"
    return _Sources(values, source, tags)


def _csv_finding(found: list[Finding], place: str, what: str, site: float | None,
                 mine: float | None, source: str, wrong: int) -> None:  # fmt: skip
    """A per-question CSV that disagrees: the first value that differs, and how many do."""
    more = f" ({wrong} values differ)" if wrong > 1 else ""
    said, computed = (_show(x if x is None or what != _FIRST else int(x)) for x in (site, mine))
    found.append(Finding(place, what, said, f"{computed} from {source}{more}"))


def _first_ranks(run: Mapping[str, Sequence[str]], questions: Iterable[str],
                 qrels: Mapping[str, Mapping[str, int]], results: Results) -> _Values:  # fmt: skip
    """Question id -> the rank of the first document of its list (cut at the judged depth) the
    qrels grade at least the relevance threshold (None: none is)."""
    depth, relevant = results.settings.max_depth, results.settings.relevance
    out: _Values = {}
    for q in questions:
        ids = list(run.get(q, ()))[:depth] if depth else list(run.get(q, ()))
        graded = qrels.get(q, {})
        out[q] = next(
            (float(k) for k, d in enumerate(ids, 1) if graded.get(d, 0) >= relevant), None
        )
    return out


# -- statistics, from docs/statistics.md ------------------------------------------------------


class _Draws:
    """The bootstrap's resample indices per n, drawn once per audit: every interval over n values
    of one seed draws the same resamples, and the same values give the same interval (kept in
    `ends`). Kept up to `_KEPT_CELLS` indices (the oldest n goes
    first), so a large project's audit holds one matrix, not one per n."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._kept: dict[int, list[np.ndarray]] = {}
        self._counts: dict[int, np.ndarray] = {}  # n -> each resample's count of each value
        self.ends: dict[bytes, list[float]] = {}  # the values' bytes -> their percentiles

    def of(self, n: int) -> list[np.ndarray]:
        if n not in self._kept:
            rng = np.random.default_rng(self.seed)
            rows = max(1, _CELLS // n)
            small = np.uint16 if n <= 1 << 16 else np.int32  # kept small; drawn as int32
            self._kept[n] = [
                rng.integers(0, n, size=(min(rows, _RESAMPLES - start), n), dtype=np.int32).astype(
                    small
                )
                for start in range(0, _RESAMPLES, rows)
            ]
            while sum(_RESAMPLES * k for k in self._kept) > _KEPT_CELLS and len(self._kept) > 1:
                del self._kept[next(iter(self._kept))]
        return self._kept[n]

    def means(self, values: np.ndarray) -> np.ndarray:
        """The mean of each resample of `values`. Up to `_COUNTED` values, as each resample's
        counts of each value (one matrix per n, counted once) times the values: a
        matrix-vector product, where gathering the resamples' values took most of a large
        project's audit; above, gathered. Counts are kept up to `_COUNTED_CELLS` (the oldest n
        goes first)."""
        n = len(values)
        if n > _COUNTED:
            return np.concatenate([values[idx].sum(axis=1) / n for idx in self.of(n)])
        if n not in self._counts:
            while self._counts and _RESAMPLES * (n + sum(self._counts)) > _COUNTED_CELLS:
                del self._counts[next(iter(self._counts))]
            blocks = []
            for idx in self.of(n):
                at = idx.astype(np.int64) + np.arange(len(idx))[:, None] * n  # cell in the block
                blocks.append(np.bincount(at.ravel(), minlength=idx.size).reshape(idx.shape))
            self._counts[n] = np.concatenate(blocks).astype(np.float64)
        # einsum's own loop, not BLAS: its threads would spin on the second core for a
        # product this small (twice the CPU time for the same wall time)
        means: np.ndarray = np.einsum("ij,j->i", self._counts[n], values) / n
        return means


_KEPT_CELLS = 1 << 26  # resample indices kept at once (128 MB as 16-bit integers)
_COUNTED = 1000  # values counted per resample up to this n (`_Draws.means`)
_COUNTED_CELLS = 1 << 24  # counts kept at once (128 MB as 64-bit floats)


def _interval(data: Sequence[float], draws: _Draws) -> tuple[float | None, float | None]:
    """The 95 % percentile bootstrap interval of the mean (docs/statistics.md)."""
    n = len(data)
    if n == 0:
        return None, None
    mean = math.fsum(data) / n
    if n == 1:
        return mean, mean
    values = np.asarray(data, dtype=np.float64)
    lo_b, hi_b = min(data), max(data)
    tail = (1.0 - _LEVEL) / 2.0
    if n > _LARGE:  # the Cornish-Fisher expansion of the bootstrap distribution
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in data) / n)
        if sd == 0.0:
            return mean, mean
        skew = math.fsum((v - mean) ** 3 for v in data) / n / sd**3
        ends = [mean + sd / math.sqrt(n) * (z + skew * (z * z - 1) / (6 * math.sqrt(n)))
                for z in (NormalDist().inv_cdf(tail), NormalDist().inv_cdf(1 - tail))]  # fmt: skip
    else:
        key = values.tobytes()  # a candidate that is a variant's run asks again: answer once
        if key not in draws.ends:
            means = draws.means(values)
            draws.ends[key] = [float(e) for e in np.quantile(means, (tail, 1.0 - tail))]
        ends = draws.ends[key]
    return min(max(ends[0], lo_b), hi_b), min(max(ends[1], lo_b), hi_b)


def _sign_p(better: int, worse: int) -> float:
    """The exact two-sided sign test: min(1, 2 P(X <= min)), X ~ Binomial(better + worse, 1/2)."""
    m = better + worse
    if m == 0:
        return 1.0
    low = min(better, worse)
    term = tail = math.comb(m, low)
    for i in range(low, 0, -1):  # C(m, i - 1) = C(m, i) * i / (m - i + 1), exactly
        term = term * i // (m - i + 1)
        tail += term
    return float(min(Fraction(1), Fraction(2 * tail, 2**m)))


def _randomization_p(d: Sequence[float], seed: int) -> float:
    """The two-sided paired sign-flip test of the mean difference (docs/statistics.md)."""
    diffs = np.asarray([x for x in d if abs(x) > _TIE], dtype=np.float64)
    m = int(diffs.size)
    if m == 0:
        return 1.0
    observed = abs(float(diffs.sum()))
    tol = 1e-9 * float(np.abs(diffs).sum())  # float noise in a sum of m terms
    if m > _LARGE:
        z = observed / math.sqrt(float(np.dot(diffs, diffs)))
        return min(1.0, 2.0 * (1.0 - NormalDist().cdf(z)))
    if m <= _EXACT_SIGNS:  # every sign pattern: the sums of s * d, one difference at a time
        sums = np.zeros(1)
        for x in diffs:
            sums = np.concatenate([sums + x, sums - x])
        return int(np.count_nonzero(np.abs(sums) >= observed - tol)) / float(1 << m)
    rng = np.random.default_rng(seed)
    count, rows = 0, max(1, _CELLS // m)
    for start in range(0, _RESAMPLES, rows):
        size = min(rows, _RESAMPLES - start)
        signs = rng.integers(0, 2, size=(size, m), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(np.abs(signs @ diffs) >= observed - tol))
    return (count + 1) / (_RESAMPLES + 1)


def _holm(ps: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni: the i-th smallest of m p-values times (m - i), made monotone, at most 1."""
    out: dict[str, float] = {}
    running = 0.0
    ordered = sorted(ps.items(), key=lambda item: item[1])
    for i, (key, p) in enumerate(ordered):
        running = max(running, min(1.0, (len(ps) - i) * p))
        out[key] = running
    return out


@dataclass(frozen=True)
class _Pair:
    """Two runs on one metric over the questions both define, in the first run's order."""

    d: tuple[float, ...]  # candidate - baseline, per question
    better: int
    worse: int


def _pair(a: _Values, b: _Values) -> _Pair:
    d = tuple(y - x for q, x in a.items() if x is not None and (y := b.get(q)) is not None)
    better = sum(1 for v in d if v > _TIE)
    worse = sum(1 for v in d if v < -_TIE)
    return _Pair(d, better, worse)


# -- comparing with results.json --------------------------------------------------------------


def _same(site: float | None, mine: float | None) -> bool:
    if site is None or mine is None:
        return site is None and mine is None
    return abs(site - mine) <= _TOLERANCE


def _show(value: object) -> str:
    return "null" if value is None else repr(value)


def _check(found: list[Finding], place: str, pairs: Iterable[tuple[str, object, object]],
           source: str) -> None:  # fmt: skip
    """A finding for each (quantity, site's value, oracle's value) that disagrees."""
    for what, site, mine in pairs:
        agree = (
            _same(site, mine)
            if isinstance(site, float | None) and isinstance(mine, float | None)
            else site == mine
        )
        if not agree:
            found.append(Finding(place, what, _show(site), f"{_show(mine)} from {source}"))


def _stat_pairs(
    stat: MetricStat, values: _Values, draws: _Draws
) -> list[tuple[str, object, object]]:
    defined = [v for v in values.values() if v is not None]
    low, high = _interval(defined, draws)
    mean = math.fsum(defined) / len(defined) if defined else None
    return [("mean", stat.mean, mean), ("n", stat.n, len(defined)),
            ("left_out", stat.left_out, len(values) - len(defined)),
            ("low", stat.low, low), ("high", stat.high, high)]  # fmt: skip


def _means(results: Results, sources: _Sources, draws: _Draws, found: list[Finding]) -> None:
    """Every variant's and candidate's means with their intervals, and their slices by tag."""
    runs = [("variants", i, v.name, v.metrics, v.slices) for i, v in enumerate(results.variants)]
    runs += [("candidates", i, c.name, c.metrics, c.slices)
             for i, c in enumerate(results.candidates)]  # fmt: skip
    for key, i, name, metrics, slices in runs:
        mine = sources.values[name]
        for j, stat in enumerate(metrics):
            place = f"results.json {key}[{i}].metrics[{j}] ({name}, {stat.metric})"
            _check(found, place, _stat_pairs(stat, mine.get(stat.metric, {}), draws),
                   sources.source[name])  # fmt: skip
        for j, tv in enumerate(slices):
            tagged = [
                v for q, v in mine.get(tv.metric, {}).items() if tv.tag in sources.tags.get(q, ())
            ]
            defined = [v for v in tagged if v is not None]
            low, high = _interval(defined, draws) if len(defined) >= 2 else (None, None)
            if key == "candidates":  # a candidate's slices carry no interval
                low = high = None
            mean = math.fsum(defined) / len(defined) if defined else None
            place = f"results.json {key}[{i}].slices[{j}] ({name}, {tv.metric}, tag {tv.tag})"
            _check(found, place, [("mean", tv.mean, mean), ("n", tv.n, len(defined)),
                                  ("low", tv.low, low), ("high", tv.high, high)],
                   f"{sources.source[name]} and the tags of data/per-question.csv")  # fmt: skip


@dataclass(frozen=True)
class _Tested:
    """The oracle's comparison of one candidate on one metric (before and after Holm)."""

    pair: _Pair
    low: float | None
    high: float | None
    sign_p: float
    randomization_p: float


def _comparisons(
    results: Results, sources: _Sources, draws: _Draws, found: list[Finding]
) -> dict[tuple[str, str], tuple[_Tested, float, float]]:
    """(candidate, metric) -> the oracle's test, its Holm-adjusted randomization and sign p."""
    base = sources.values[results.baseline]
    seed = results.settings.seed
    tested: dict[tuple[str, str], _Tested] = {}
    for i, c in enumerate(results.candidates):
        base_from, from_ = sources.source[results.baseline], sources.source[c.name]
        source = base_from if base_from == from_ else f"{base_from} against {from_}"
        for j, cmp in enumerate(c.comparisons):
            pair = _pair(base.get(cmp.metric, {}), sources.values[c.name].get(cmp.metric, {}))
            low, high = _interval(pair.d, draws)
            tested[c.name, cmp.metric] = t = _Tested(
                pair, low, high, _sign_p(pair.better, pair.worse), _randomization_p(pair.d, seed)
            )
            place = f"results.json candidates[{i}].comparisons[{j}] ({c.name}, {cmp.metric})"
            delta = math.fsum(pair.d) / len(pair.d) if pair.d else None
            _check(found, place, [
                ("delta", cmp.delta, delta), ("low", cmp.low, t.low), ("high", cmp.high, t.high),
                ("n", cmp.n, len(pair.d)), ("better", len(cmp.better), pair.better),
                ("worse", len(cmp.worse), pair.worse),
                ("sign_p", cmp.sign_p, t.sign_p), ("randomization_p", cmp.randomization_p,
                                                   t.randomization_p)], source)  # fmt: skip
            for side, stat, mine in (
                ("baseline", cmp.baseline, base),
                ("candidate", cmp.candidate, sources.values[c.name]),
            ):  # the means beside the delta
                _check(found, f"{place[:-1]}, {side})",
                       _stat_pairs(stat, mine.get(cmp.metric, {}), draws),
                       base_from if side == "baseline" else from_)  # fmt: skip
    out: dict[tuple[str, str], tuple[_Tested, float, float]] = {}
    for metric in {m for _, m in tested}:  # one Holm family per metric: the candidates
        family = {name: t for (name, m), t in tested.items() if m == metric}
        rand = _holm({name: t.randomization_p for name, t in family.items()})
        sign = _holm({name: t.sign_p for name, t in family.items()})
        for name, t in family.items():
            out[name, metric] = (t, rand[name], sign[name])
    for i, c in enumerate(results.candidates):
        for j, cmp in enumerate(c.comparisons):
            _, rand_holm, sign_holm = out[c.name, cmp.metric]
            place = f"results.json candidates[{i}].comparisons[{j}] ({c.name}, {cmp.metric})"
            _check(found, place, [("holm_p", cmp.holm_p, rand_holm),
                                  ("sign_holm_p", cmp.sign_holm_p, sign_holm)],
                   "Holm across the candidates' randomization and sign p")  # fmt: skip
    return out


def _flips(results: Results, sources: _Sources, found: list[Finding]) -> None:
    """The flips page's sign tests: every pair of variants (Holm across the unordered pairs)
    and the baseline against each candidate (the candidates' family)."""
    pairs: dict[frozenset[str], float] = {}
    mine: list[tuple[int, _Pair, float]] = []
    for i, f in enumerate(results.flips):
        if f.a not in sources.values or f.b not in sources.values:
            continue
        pair = _pair(sources.values[f.a].get(f.metric, {}), sources.values[f.b].get(f.metric, {}))
        p = _sign_p(pair.better, pair.worse)
        mine.append((i, pair, p))
        if f.family == "variants":
            pairs[frozenset((f.a, f.b))] = p
    adjusted = _holm({"\x00".join(sorted(k)): p for k, p in pairs.items()})
    candidates = _holm(_candidate_signs(results, sources, results.settings.flips_metric))
    for i, pair, p in mine:
        f = results.flips[i]
        holm_p = (
            adjusted.get("\x00".join(sorted((f.a, f.b))))
            if f.family == "variants"
            else candidates.get(f.b)
        )
        _check(found, f"results.json flips[{i}] ({f.a} → {f.b}, {f.metric})", [
            ("better", len(f.better), pair.better), ("worse", len(f.worse), pair.worse),
            ("p", f.p, p), ("holm_p", f.holm_p, holm_p)],
            f"the sign test on {sources.source.get(f.b, 'the per-question values')}")  # fmt: skip


def _candidate_signs(results: Results, sources: _Sources, metric: str) -> dict[str, float]:
    """Each candidate's sign-test p against the baseline on `metric` (one Holm family)."""
    base = sources.values[results.baseline].get(metric, {})
    out = {}
    for c in results.candidates:
        pair = _pair(base, sources.values[c.name].get(metric, {}))
        out[c.name] = _sign_p(pair.better, pair.worse)
    return out


# -- the verdicts, from docs/verdicts.md ------------------------------------------------------


@dataclass(frozen=True)
class Moves:
    """What the verdict rules read of one candidate: the reported metrics that moved up and
    down, how the primary moved (by Holm-adjusted p, or by its interval alone), and the lean of
    its flips."""

    up: tuple[str, ...]
    down: tuple[str, ...]
    primary_up_by_p: bool  # up with Holm-adjusted randomization p < 0.05
    primary_up_by_interval: bool  # up by its interval alone (p not below 0.05)
    primary_down_by_p: bool
    primary_down_by_interval: bool
    primary_still: bool  # the primary did not move
    lean_better: bool  # flips lean better with an exact sign-test p below 0.2
    lean_worse: bool


# docs/verdicts.md's rules, read top to bottom; the first row whose condition holds decides
VERDICT_RULES: tuple[tuple[Callable[[Moves], bool], str], ...] = (
    # "MIXED: some reported metric moved up and another moved down."
    (lambda s: bool(s.up) and bool(s.down), "MIXED"),
    # "BETTER: the primary metric moved up with Holm-adjusted p < 0.05, and no reported metric
    # moved down."
    (lambda s: s.primary_up_by_p and not s.down, "BETTER"),
    # "PROMISING: nothing moved down, and the primary metric moved up by its interval alone, or
    # it did not move but its flips lean better with an exact sign-test p below 0.2."
    (
        lambda s: not s.down and (s.primary_up_by_interval or (s.primary_still and s.lean_better)),
        "PROMISING",
    ),  # fmt: skip
    # "WORSE and LEANS WORSE: the mirror images, when nothing moved up."
    (lambda s: s.primary_down_by_p and not s.up, "WORSE"),
    (
        lambda s: not s.up and (s.primary_down_by_interval or (s.primary_still and s.lean_worse)),
        "LEANS WORSE",
    ),  # fmt: skip
    # "NO CLEAR CHANGE: anything else."
    (lambda s: True, "NO CLEAR CHANGE"),
)


def _moved(low: float | None, high: float | None, delta: float, holm_p: float) -> tuple[int, bool]:
    """(+1 up, -1 down or 0, whether by Holm's p): a metric moved when its interval excludes
    zero or its Holm-adjusted randomization p < 0.05, the way its paired difference points."""
    by_p = holm_p < _ALPHA
    by_interval = (low is not None and low > 0) or (high is not None and high < 0)
    if delta == 0 or not (by_p or by_interval):  # no difference points any way
        return 0, False
    return (1 if delta > 0 else -1), by_p


def verdict_of(moves: Moves) -> str:
    """The first verdict of `VERDICT_RULES` whose condition holds."""
    return next(verdict for holds, verdict in VERDICT_RULES if holds(moves))


_Tests = Mapping[tuple[str, str], tuple[_Tested, float, float]]  # see `_comparisons`


def _moves(c: CandidateResult, reported: Sequence[str], tested: _Tests) -> Moves:
    """What the verdict rules read of candidate `c`, from the oracle's own tests."""
    up, down = [], []
    how: dict[str, tuple[int, bool]] = {}
    for metric in reported:
        t, rand_holm, _ = tested[c.name, metric]
        delta = math.fsum(t.pair.d) / len(t.pair.d) if t.pair.d else 0.0
        how[metric] = _moved(t.low, t.high, delta, rand_holm)
        if how[metric][0] > 0:
            up.append(metric)
        elif how[metric][0] < 0:
            down.append(metric)
    primary = reported[0]
    way, by_p = how[primary]
    t = tested[c.name, primary][0]
    lean = t.sign_p < _LEAN
    return Moves(tuple(up), tuple(down), way > 0 and by_p, way > 0 and not by_p,
                 way < 0 and by_p, way < 0 and not by_p, way == 0,
                 lean and t.pair.better > t.pair.worse, lean and t.pair.worse > t.pair.better)  # fmt: skip


def _verdicts(results: Results, tested: _Tests, found: list[Finding]) -> None:
    """Each candidate's verdict, and the metrics it says moved, by `VERDICT_RULES`."""
    reported = [m.name for m in results.settings.compared]
    for i, c in enumerate(results.candidates):
        if any((c.name, m) not in tested for m in reported):
            continue
        moves = _moves(c, reported, tested)
        _check(found, f"results.json candidates[{i}].decision ({c.name})", [
            ("verdict", c.decision.verdict, verdict_of(moves)),
            ("up", sorted(c.decision.up), sorted(moves.up)),
            ("down", sorted(c.decision.down), sorted(moves.down))],
            "docs/verdicts.md's rules")  # fmt: skip


def oracle_findings(site: Path, results: Results) -> list[Finding]:
    """Every mean, interval, p-value, Holm adjustment and verdict of `results` (the site's
    results.json) the oracle computes otherwise from the site's exports."""
    found: list[Finding] = []
    sources = _per_question(site, results, found)
    draws = _Draws(results.settings.seed)
    _means(results, sources, draws, found)
    tested = _comparisons(results, sources, draws, found)
    _flips(results, sources, found)
    _verdicts(results, tested, found)
    for i, c in enumerate(results.candidates):  # the label caveat, by its rule
        if c.judged is not None:
            _check(found, f"results.json candidates[{i}].judged ({c.name})",
                   [("caveat", c.judged.caveat, _label_caveat(c))], "docs/verdicts.md's rule")  # fmt: skip
    return found


# -- the gate's rule cells and the components' caveats, restated ------------------------------
# The page checks hold a gate rule's cells and the caveats a page may state to these, written
# from docs/gate.md and docs/cli.md, not to the build's formatters and texts: a build formatter
# that printed a margin without its sign, or a caveat given where it does not apply, is a
# disagreement (tests/test_audit_oracle.py holds the texts equal to the build's).


# the question pages' rule (docs/site.md, "Question pages"): up to this many questions every
# question has a page; above, at most `_PAGE_CAP`, the questions the rule ranks first
_PAGE_LIMIT = 500
_PAGE_CAP = 1_000
_RUNS_ONLY_DEPTH = 10  # a pass: a relevant result in the top 10 of a runs-only project's list


def baseline_passes(results: Results) -> dict[str, bool | None]:
    """Each question the baseline's lists hold -> whether the baseline passes it: a relevant
    result within its pass depth (`_run_depth`); None where the flips metric is undefined (no
    relevant judgment: neither pass nor fail)."""
    depth = _run_depth(results, results.variant(results.baseline).config)
    flips = results.settings.flips_metric
    return {r.question: None if r.values.get(flips) is None
            else r.first_relevant is not None and r.first_relevant <= depth
            for r in results.variant(results.baseline).lists}  # fmt: skip


def page_rule(results: Results) -> str:
    """Which questions get a page above `_PAGE_LIMIT` questions, in words, with the oracle's own
    count of the others ("" up to the limit): the gate's critical questions, then those the
    baseline fails (a relevant judgment and no relevant result in its top pass depth), then
    those whose primary metric some candidate changes, most first; of the rest, those the
    baseline passes and no candidate changes get none, and those beyond `_PAGE_CAP` none."""
    questions = [q.id for q in results.inputs.questions]
    if len(questions) <= _PAGE_LIMIT:
        return ""
    flips = results.settings.flips_metric
    primary = results.settings.compared[0]
    critical = set(results.policy.critical) if results.policy is not None else set()
    base = {r.question: r for r in results.variant(results.baseline).lists}
    fails = {q for q, passed in baseline_passes(results).items() if passed is False}
    changed = set()
    for c in results.candidates:
        for r in c.ranked(results):
            b = base[r.question].values.get(primary.name) if r.question in base else None
            after = r.values.get(primary.name)
            if b is not None and after is not None and abs(after - b) > _TIE:
                changed.add(r.question)
    ranked = [q for q in questions if q in critical or q in fails or q in changed]
    # of the rest, a question whose flips metric is undefined has no relevant judgment
    undefined = sum(1 for q in set(questions) - set(ranked)
                    if q not in base or base[q].values.get(flips) is None)  # fmt: skip
    unchanged = len(questions) - len(ranked) - undefined
    capped = max(0, len(ranked) - _PAGE_CAP)
    order = ("the gate's critical questions first, then the questions the baseline fails, then"
             if critical else "the questions the baseline fails first, then")  # fmt: skip
    why = [f"{unchanged:,} the baseline passes and no candidate changes "
           f"{_one(unchanged, 'gets', 'get')} none"] * bool(unchanged)  # fmt: skip
    why += [f"{undefined:,} with no {defined_words(results.settings.kind)} "
            f"{_one(undefined, 'gets', 'get')} none"] * bool(undefined)  # fmt: skip
    why += [f"{capped:,} {_one(capped, 'falls', 'fall')} beyond the cap"] * bool(capped)
    return (f"above {_PAGE_LIMIT:,} questions at most {_PAGE_CAP:,} get a page — {order} those "
            f"whose {primary.label} changes most under some candidate (ties by id)"
            + (f"; of the others, {_and(why)}" if why else ""))  # fmt: skip


# the "Since last report" words (docs/since.md), restated: each group's key, title and what
# counts in it ({} the pass depth: `since_depth`), in the order the page lists them; the
# summary's counts, singular and plural, in order; the notes
SINCE_GROUPS = (
    ("inputs", "Inputs and labels",
     "project files whose sha256 changed, every label grade that changed"),
    ("verdicts", "Verdicts", "each candidate's verdict and gate level against the previous "
     "report, and the config change it tests when another took its name"),
    ("metrics", "Metrics beyond their previous interval",
     "the new mean lies outside the previous report's 95 % interval of the same run and metric"),
    ("fail", "Questions that newly fail",
     "a relevant result within the first {depth} before, none now or no {defined} now"),
    ("pass", "Questions that newly pass",
     "no relevant result within the first {depth} (or no {defined}) before, one now"),
)  # fmt: skip
SINCE_COUNTS = (
    ("files", "input file changed", "input files changed"),
    ("grades", "label grade changed", "label grades changed"),
    ("added", "question added", "questions added"),
    ("removed", "question removed", "questions removed"),
    ("verdicts", "verdict changed", "verdicts changed"),
    ("gates", "gate level changed (same verdict)", "gate levels changed (same verdicts)"),
    ("candidates added", "candidate added", "candidates added"),
    ("candidates removed", "candidate removed", "candidates removed"),
    ("redefined", "candidate redefined", "candidates redefined"),
    ("metrics", "metric moved beyond its interval", "metrics moved beyond their interval"),
    ("fail", "question newly fails", "questions newly fail"),
    ("pass", "question newly passes", "questions newly pass"),
)
SINCE_GROUP_OF = {"files": "inputs", "grades": "inputs", "added": "inputs", "removed": "inputs",
                  "verdicts": "verdicts", "gates": "verdicts", "candidates added": "verdicts",
                  "candidates removed": "verdicts", "redefined": "verdicts", "metrics": "metrics",
                  "fail": "fail", "pass": "pass"}  # fmt: skip
SINCE_NONE = ("No changes: the same verdicts, no metric outside its previous interval, no "
              "question newly failing or passing, and the same labels.")  # fmt: skip
SINCE_SAME_INPUTS = "The inputs are the same as the previous report's (same sha256)."
SINCE_SHOWN = 5  # changes per group the index lists (the rest on since.html)


def since_summary(counts: Mapping[str, int]) -> str:
    """The since summary of `counts` (by `SINCE_COUNTS`' keys): each count above 0, in order."""
    said = [f"{counts[key]} {one if counts[key] == 1 else many}"
            for key, one, many in SINCE_COUNTS if counts.get(key)]  # fmt: skip
    return " · ".join(said) if said else SINCE_NONE


def since_project_note(previous: str, current: str) -> str:
    return f"The previous report is of another project ({previous}); this one is {current}."


def since_relevant_note(previous: int | str, current: int, kind: str = "runs") -> str:
    """The note when the number of questions that can pass changed: with a relevant judgment,
    in a pipeline project (`kind`) a relevant chunk in scope."""
    return (f"Questions with a {defined_words(kind)} (only they can pass): {previous} → "
            f"{current}.")  # fmt: skip


def defined_words(kind: str) -> str:
    """What defines a question's metrics, and so what it needs to pass, by the project's kind
    (docs/site.md): a pipeline's metrics read the chunks in scope."""
    return "relevant chunk in scope" if kind == "pipeline" else "relevant judgment"


def since_relevant(results: Results) -> set[str]:
    """The questions with a relevant judgment (a judgment at or above the relevance): the only
    ones that can pass."""
    relevance = results.settings.relevance
    return {q.id for q in results.inputs.questions
            if any(g >= relevance for g in q.judgments.values())}  # fmt: skip


def since_seed_note(previous: int | str, current: int) -> str:
    return (f"The previous report used seed {previous}, this one seed {current}: intervals and "
            "resampled p-values differ with the seed.")  # fmt: skip


def since_tested(c: CandidateResult) -> str:
    """The config change candidate `c` tests, as the since page names it when another change
    took a candidate's name: each changed field and the candidate's value."""
    words = (f"{d.field} {config_words(d.field, d.candidate)}" for d in c.diff)
    return ", ".join(words) or "the baseline's config"


def since_verdict(before: str | None, after: str | None, gate_before: str | None,
                  gate_after: str | None) -> str:  # fmt: skip
    """A candidate's verdict and gate level before and after, as the since page says them."""
    if before is None:
        return f"new candidate: {after} (gate {gate_after})"
    if after is None:
        return f"removed (was {before}, gate {gate_before})"
    said = f"{before} → {after}" if before != after else f"still {after}"
    gate = (
        f"gate {gate_before} → {gate_after}" if gate_before != gate_after else f"gate {gate_after}"
    )
    return f"{said} ({gate})"


def _run_depth(results: Results, config: Mapping[str, Any] | None) -> int:
    """A run's pass depth: its final list in a pipeline project, the policy's k in a runs-only
    one, 10 without a policy (the gate's own pass rule)."""
    if config is not None:
        return int(config["final"])
    return results.policy.k if results.policy is not None else _RUNS_ONLY_DEPTH


# a config value as a candidate's "Config change" table says it (docs/pipeline.md's fields; the
# model as docs/minilm.md names it): these in words, None / True / False as "not set" / "yes" /
# "no", any other value (a number, a searcher, a run's name) as it is
_MINILM = "MiniLM-L6-v2 int8 (ONNX), a bi-encoder, not a cross-encoder"
_CONFIG_WORDS = {
    ("first_stage", "minilm"): f"minilm ({_MINILM})",
    ("reranker", "minilm"): f"minilm ({_MINILM})",
    ("max_words", "None"): "whole chunk (no cut)",
    ("prefilter", "True"): "yes: filter before ranking",
    ("prefilter", "False"): "no: filter after ranking",
}
_CONFIG_LITERALS = {"None": "not set", "True": "yes", "False": "no"}


def config_words(field: str, value: str) -> str:
    """A config field's value (as results.json's `diff` holds it) as a page says it."""
    return _CONFIG_WORDS.get((field, value)) or _CONFIG_LITERALS.get(value, value)


def since_depth(results: Results) -> str:
    """The pass depth the since page's question groups name: one number when every run has the
    baseline's, else each run's."""
    k = _run_depth(results, results.variant(results.baseline).config)
    depths = [(v.name, _run_depth(results, v.config)) for v in results.variants]
    if all(d == k for _, d in depths):
        return str(k)
    return "k (each run's final list: " + ", ".join(f"{n} {d}" for n, d in depths) + ")"


def since_outcomes(results: Results) -> dict[tuple[str, str], bool]:
    """(run, question) -> whether the question passes in that variant's list now: a relevant
    judgment and a relevant result within the run's pass depth (questions without a relevant
    judgment are left out: they neither pass nor fail)."""
    relevant = since_relevant(results)
    out = {}
    for v in results.variants:
        k = _run_depth(results, v.config)
        for r in v.lists:
            if r.question in relevant:
                out[v.name, r.question] = r.first_relevant is not None and r.first_relevant <= k
    return out


def number_text(value: float | None, digits: int = 3, signed: bool = False) -> str:
    """A number as the pages print it (docs/site.md): fixed decimals, a true minus sign, "—"
    for none."""
    if value is None:
        return "—"
    return (f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}").replace("-", "−")


def _three(value: float | None, signed: bool = False) -> str:
    """A number at the pages' three decimals (`number_text`)."""
    return number_text(value, 3, signed)


def _flips_rule(policy: PolicyFacts | None) -> str:
    """When the MRR-flips rule passes: no more worse than better questions, or fewer than the
    net the policy asks, or a sign-test p above its ceiling."""
    net = 1 if policy is None else policy.flips_min_net
    said = "worse ≤ better" if net == 1 else f"worse − better < {net}"
    if policy is not None and policy.flips_max_p < 1.0:
        said += f" or sign-test p > {_three(policy.flips_max_p)}"
    return said


def policy_cell(policy: PolicyFacts, key: str) -> str:
    """What the gate page's policy table says in words of the policy's `key` (docs/gate.md): the
    flips rule "off", "on" when it is the course page's rule (no more worse than better), or
    "on" with its pass condition when the policy asks for more evidence (a net count, a
    sign-test p: "on (passes when worse ≤ better or sign-test p > 0.200)")."""
    if key != "review_on_mrr_flips":
        raise LookupError(f"no words of the policy's {key!r} in the gate page's table")
    if not policy.review_on_mrr_flips:
        return "off"
    rule = _flips_rule(policy)
    return "on" if rule == _flips_rule(None) else f"on (passes when {rule})"


def rule_cell(results: Results, row: RuleValue, kind: str) -> str:
    """What the gate tables' cell `kind` (observed, threshold, margin) says of the policy rule
    `row`. The margin is the observed value minus the limit it must stay at or above: the floor
    of a recall or pass rate, all of the critical questions, the baseline's value minus the
    allowed drop."""
    rule, seen, limit, base = row.rule, row.observed, row.threshold, row.reference
    if kind == "observed":
        if rule == "critical":
            return "—" if seen is None or limit is None else f"{seen:.0f} of {limit:.0f} pass"
        if rule == "max_drop" and seen is not None and base is not None:
            drop = base - seen
            said = f"drop {_three(drop)}" if drop > 0 else "no drop"
            return f"{said} ({_three(base)} → {_three(seen)})"
        if rule == "review_on_mrr_flips":
            if row.status == "not evaluated":
                return "—"
            return f"worse for {seen or 0:.0f}, better for {base or 0:.0f}"
        return _three(seen)
    if kind == "threshold":
        if rule == "critical":
            return "all pass"
        if rule in ("min_recall", "min_pass_rate"):
            return f"≥ {_three(limit)}"
        return f"drop ≤ {_three(limit)}" if rule == "max_drop" else _flips_rule(results.policy)
    if seen is None or limit is None or row.status == "not evaluated":
        return "—"
    if rule == "max_drop" and base is None:
        return "—"
    margin = seen - (base - limit) if rule == "max_drop" and base is not None else seen - limit
    if rule == "critical":
        return "none fail" if margin >= 0 else f"{-margin:.0f} fail"
    return _three(margin, signed=True)


# each component's caveat on a pipeline project, in full and in its few words (the index and the
# methods page give them in full, the other pages in a few words)
COMPONENT_CAVEATS = {
    "dense": ("The dense searcher is a toy: hashed word and character-trigram features in a fixed "
              "vector, not a trained bi-encoder. It shows how the kit measures, not how good "
              "dense retrieval is.", "the dense searcher is a toy"),
    # MiniLM's, by what it ran as (results.json's models[].roles): each names only that
    **{f"minilm {ran}": (f"The MiniLM {ran} {verb} MiniLM-L6-v2 int8 (ONNX), a bi-encoder, not "
                         "a cross-encoder: a real trained model, but query and passage are "
                         "embedded separately and compared by cosine, never read together as a "
                         "cross-encoder reads a pair; its int8 weights are a compressed copy of "
                         "the fp32 model. It was trained on English text only.",
                         "MiniLM is a bi-encoder, not a cross-encoder")
       for ran, verb in (("searcher", "is"), ("reranker", "is"),
                         ("searcher and reranker", "are"))},
    "rerankers": ("The rerankers (overlap, feature, pair, blend) are hand-written lexical "
                  "stand-ins for a cross-encoder: they read words, not meaning, and cannot see a "
                  "paraphrase.", "the rerankers are lexical stand-ins"),
    "tuning": ("The feature scorer's weights and the gate's thresholds were chosen while looking "
               "at these labels: gains measured on them are optimistic until checked on unseen "
               "questions.", "tuned on these labels"),
}  # fmt: skip


def caveats_given(results: Results) -> tuple[set[str], set[str]]:
    """The component caveats (texts, words) results.json gives: none on a runs-only project; on
    a pipeline project the rerankers' always, the toy dense searcher's when its dense searcher
    is the toy, MiniLM's when a MiniLM model ran (naming what it ran as: searcher, reranker or
    both), the tuning's on the demo (its weights and thresholds were chosen on its labels)."""
    if results.settings.kind != "pipeline":
        return set(), set()
    ran = {role for m in results.models for role in m.roles}
    minilm = " and ".join(r for r in ("searcher", "reranker") if r in ran)
    on = {"dense": results.settings.dense == "toy", f"minilm {minilm}": bool(minilm),
          "rerankers": True, "tuning": results.inputs.demo}  # fmt: skip
    given = [COMPONENT_CAVEATS[k] for k, yes in on.items() if yes]
    return {text for text, _ in given}, {words for _, words in given}


# -- summary.md and the label caveat, restated -------------------------------------------------
# summary.md (docs/ci.md) line by line from results.json, written here from the summary's
# documented layout and the rules of docs/verdicts.md and docs/gate.md, not by the build's site
# model and words: which verdicts and gate levels it counts and in which order, the best lead,
# each candidate's row, each failing gate rule (`rule_cell`), each warning (the inputs' notices,
# a run's partial coverage, the unjudged caveat by its rule, the condensed lists' line, a
# candidate that did not run) and the seed and inputs it names.

_BEST_FIRST = ("BETTER", "PROMISING", "NO CLEAR CHANGE", "MIXED", "LEANS WORSE", "WORSE")
_LEVELS = ("GO", "REVIEW", "BLOCK")  # the gate levels, counted in this order
_UNJUDGED_GAP = 0.05  # Judged@k at least this far below the baseline's carries the caveat
# Markdown that must stay text (docs/ci.md): what opens or ends markup inside a line, GFM's
# extended autolinks, what may not start a line, a code span's fence
_MD_MARKUP = re.compile(r"([\\`*_\[\]<>|&~!@])")
_MD_AUTOLINK = re.compile(r"(?i)(?<=www)\.|:(?=//)")
_MD_LINE_START = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")
_MD_TICKS = re.compile("`+")


def _md_code(text: str, cell: bool = False) -> str:
    """A name or id as one code span (in a table cell its ``|`` escaped)."""
    shown = printable(visible(text)) or "(empty)"
    fence = "`" * (1 + max((len(t) for t in _MD_TICKS.findall(shown)), default=0))
    pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
    span = f"{fence}{pad}{shown}{pad}{fence}"
    return span.replace("|", "\\|") if cell else span


def _md_words(text: str, opens: bool = False) -> str:
    """Words as Markdown text: each markup character escaped; `opens` a line: no block start."""
    text = _MD_AUTOLINK.sub(lambda m: "\\" + m.group(), _MD_MARKUP.sub(r"\\\1", printable(text)))
    start = _MD_LINE_START.match(text) if opens else None
    if start is None:
        return text
    if start.group()[0].isdigit():
        return f"{start.group()}\\{text[start.end() :]}"
    return f"\\{text}"


def _label(results: Results, metric: str) -> str:
    return next(m.label for m in results.settings.metrics if m.name == metric)


def _delta_words(results: Results, metric: str, delta: float | None, low: float | None,
                 high: float | None, then: str = " ") -> str:  # fmt: skip
    """ "Δ nDCG@10 (linear gain) +0.048 [+0.000, +0.119]" (`then`: what stands before the Δ)."""
    bracket = "" if low is None or high is None else f" [{_three(low, True)}, {_three(high, True)}]"
    return f"Δ {_label(results, metric)}{then}{_three(delta, True)}{bracket}"


def _lead_key(c: CandidateResult) -> tuple[int, int] | None:
    """A candidate ahead on the primary metric (a paired difference above the tie, with an
    interval): its lower bound and difference, to the tie; None for any other."""
    d = c.on[c.decision.primary]
    if d.low is None or d.high is None or d.delta is None or d.delta <= _TIE:
        return None
    return round(d.low / _TIE), round(d.delta / _TIE)


def best_lead(results: Results) -> CandidateResult | None:
    """The best lead (docs/site.md): among the candidates ahead on the primary metric (a paired
    difference above the tie), the largest lower bound, then the larger difference, then the
    first name; None when no candidate is ahead with an interval."""
    ahead = [(-key[0], -key[1], c.name, c) for c in results.candidates
             if (key := _lead_key(c)) is not None]  # fmt: skip
    return min(ahead, key=lambda row: row[:3])[3] if ahead else None


def _lead_ties(results: Results, lead: CandidateResult) -> list[str]:
    """The other candidates whose primary difference and lower bound equal the best lead's (to
    the tie: the name chose among them), in the candidates' order."""
    key = _lead_key(lead)
    return [c.name for c in results.candidates if c is not lead and _lead_key(c) == key]


def tied_words(results: Results, lead: CandidateResult) -> str:
    """ ", tied with a and b" after the best lead's name (`_lead_ties`), or ""."""
    names = _lead_ties(results, lead)
    return f", tied with {_and(names)}" if names else ""


def _lead(results: Results) -> str:
    """The summary's best lead (`best_lead`)."""
    c = best_lead(results)
    if c is None:
        return "**Best lead:** none"
    d = c.on[c.decision.primary]
    words = _delta_words(results, d.metric, d.delta, d.low, d.high)
    return (f"**Best lead:** {_md_code(c.name)}{_md_words(tied_words(results, c))}, "
            f"{_md_words(words)} over "
            f"{_plural(d.n, 'question')} "
            f"({_md_words(c.decision.verdict)})")  # fmt: skip


def _summary_table(results: Results) -> list[str]:
    """The bottom line and a row per candidate: verdict, gate, the primary Δ, the flips."""
    cands, baseline = results.candidates, _md_code(results.baseline)
    if not cands:
        return [f"No candidate changes to decide on: only the baseline {baseline}."]
    verdicts = [c.decision.verdict for c in cands]
    counted = ", ".join(f"{verdicts.count(v)} {_md_words(v)}" for v in _BEST_FIRST if v in verdicts)
    levels = [gate_level(c.gate) for c in cands]
    gate = (", ".join(f"{levels.count(g)} {g}" for g in _LEVELS) if results.policy is not None
            else "no gate policy, nothing checked")  # fmt: skip
    flips_metric = results.settings.flips_metric
    lines = [f"**Did it get better?** {counted} · **May it ship?** {gate}  ", _lead(results), "",
             f"| Candidate | Verdict | Gate | Δ {_md_words(results.settings.compared[0].label)} "
             f"[95 % interval] | Flips ({_md_words(_label(results, flips_metric))}) |",
             "|---|---|---|---|---|"]  # fmt: skip
    for c in cands:
        d, f = c.on[c.decision.primary], c.on[flips_metric]
        span = "—" if d.low is None or d.high is None else \
            f"[{_three(d.low, True)}, {_three(d.high, True)}]"  # fmt: skip
        delta = f"{_three(d.delta, True)} {span} n={d.n}"
        lines.append(f"| {_md_code(c.name, cell=True)} | {_md_words(c.decision.verdict)} | "
                     f"{_md_words(gate_level(c.gate)) if c.gate.evaluated else 'not checked'} | "
                     f"{_md_words(delta)} | +{len(f.better)}/−{len(f.worse)} |")  # fmt: skip
    return [*lines, "", f"Verdict: did it get better than the baseline {baseline} (the "
            "statistics)? Gate: may it ship (the release policy)? Flips: questions better / worse."]  # fmt: skip


def _failing_rules(results: Results) -> list[str]:
    """Each gate rule a candidate fails (REVIEW or BLOCK), its cells as the gate page's."""
    if results.policy is None:
        return []
    lines = []
    for c in results.candidates:
        for r in c.gate.rules:
            if r.status not in ("REVIEW", "BLOCK"):
                continue
            metric = _gate_metric(results, r.metric, c.gate.k or 0)
            lines.append(f"- {_md_code(c.name)} {r.status}: `{r.rule}`"
                         f"{f' ({_md_words(metric)})' if metric else ''} "
                         f"{_md_words(rule_cell(results, r, 'observed'))}, needs "
                         f"{_md_words(rule_cell(results, r, 'threshold'))}")  # fmt: skip
    own = _baseline_fails(results, "")
    first = [f"{_md_words(own, opens=True)}.", ""] if own else []
    return ["", "## Gate: failing rules", "", *first,
            *(lines or ["None: every evaluated rule passes."])]  # fmt: skip


def _share(part: int, whole: int) -> str:
    """A whole percentage, never rounded to 0 % or 100 % when it is not."""
    pct = 0.0 if whole == 0 else part / whole * 100
    return "< 1 %" if 0 < pct < 1 else "> 99 %" if 99 < pct < 100 else f"{pct:.0f} %"


def _listed(names: tuple[str, ...], count: int) -> str:
    return f" ({', '.join(names)}{', …' if count > len(names) else ''})" if names else ""


def _notice(n: Notice, kind: str) -> str:
    """An input notice in words, starting with the file it is about (docs/cli.md)."""
    where = n.path if n.line is None else f"{n.path}:{n.line}"
    verb = "is" if n.count == 1 else "are"
    ids = _listed(n.names, n.count)
    if n.kind == "not_a_run":
        return f"{where}: skipped: not a TREC run (its first line is not 'qid Q0 docid rank score tag')"
    if n.kind == "empty_document":
        return (f"{where}: {_plural(n.count, 'document', 'documents')} with neither title nor "
                f"text{ids}: shown, never indexed")  # fmt: skip
    if n.kind == "without_text":
        return (f"{where}: {n.count} of the {_plural(n.total or 0, 'judged query', 'judged queries')} "
                f"{verb} not in the queries "
                f"file{ids}: evaluated and shown by {_one(n.count, 'its id', 'their ids')} "
                "([questions] evaluate_unlisted)")  # fmt: skip
    if n.kind == "unlisted":
        evaluate = "" if kind == "pipeline" else \
            f" ([questions] evaluate_unlisted = true evaluates {_one(n.count, 'it', 'them')})"  # fmt: skip
        return (f"{_plural(n.count, 'judged query', 'judged queries')} {verb} not in "
                f"{n.path}{ids}: left out{evaluate}")  # fmt: skip
    if n.kind == "judged_not_in_corpus":
        return (f"{where}: {n.count} of the {_plural(n.total or 0, 'judged document')} {verb} not in "
                f"the corpus"
                f"{ids}: {_one(n.count, 'its', 'their')} judgments count in every metric, no "
                f"page can show {_one(n.count, 'it', 'them')}")  # fmt: skip
    has = "has" if n.count == 1 else "have"
    if n.kind == "out_of_scope":
        return (f"{where}: {n.count} of the {n.total} questions with a relevant judgment {has} "
                f"it only on superseded or restricted chunks{ids}: out of scope, "
                f"{_one(n.count, 'it scores as a question', 'they score as questions')} with "
                "nothing relevant")  # fmt: skip
    if n.kind == "score_order":
        return (f"{where}: in {n.count} of its {_plural(n.total or 0, 'query', 'queries')} a line "
                "scores higher than the "
                f"query's line before it{ids}: ranked by score, highest first, as trec_eval "
                "ranks them (neither the rank column nor the line order counts); if a lower score "
                "means a better match (a distance), negate the scores")  # fmt: skip
    if n.kind == "score_ties":
        return (f"{where}: in {n.count} of its {_plural(n.total or 0, 'query', 'queries')} every "
                "line has the same score"
                f"{ids}: ranked by document id, descending, as trec_eval breaks ties (neither "
                "the rank column nor the line order counts); give each line a score that falls "
                "with its rank")  # fmt: skip
    return (f"{where}: {n.count} of its {_plural(n.total or 0, 'query', 'queries')} {has} no "
            f"judgment{ids}: left out, as trec_eval leaves {_one(n.count, 'it', 'them')} out")  # fmt: skip


def _label_caveat(c: CandidateResult) -> bool:
    """Whether the candidate carries the unjudged ("label before deciding") caveat, by
    docs/verdicts.md: its Judged@k at least 5 points below the baseline's over the questions
    both define, the paired interval of the difference below zero, and the comparison on
    condensed lists not moving as on the full lists (then the holes cannot change the answer)."""
    s = c.judged
    if s is None or s.baseline is None or s.candidate is None or s.high is None:
        return False
    return s.baseline - s.candidate >= _UNJUDGED_GAP and s.high < 0 and not c.condensed_agrees


def _warnings(results: Results) -> list[str]:
    """The inputs' notices, then each candidate's: the partial coverage of the runs its
    comparison reads, its depth, the unjudged caveat, the condensed lists' line where they
    disagree."""
    lines = [f"- {_md_words(_notice(n, results.settings.kind), opens=True)}"
             for n in results.inputs.notices]  # fmt: skip
    variants = {v.name: v for v in results.variants}
    for i, c in enumerate(results.candidates):
        found = []
        for name in dict.fromkeys([results.baseline, *([c.lists_of] if c.lists_of else [])]):
            cov = variants[name].coverage
            if cov is not None and cov.answered < cov.judged_queries:
                found.append(_partial(name, cov))
        depth = _depth(results, f"candidates[{i}]")
        found += [depth] if depth else []
        s = c.judged
        if (
            s is not None
            and s.baseline is not None
            and s.candidate is not None
            and _label_caveat(c)
        ):
            found.append(f"Caveat: its top {s.k} holds {round(100 * (1 - s.candidate))} % "
                         f"unjudged documents against {round(100 * (1 - s.baseline))} % for the "
                         "baseline; unjudged count as not relevant, so this comparison can "
                         "understate it")  # fmt: skip
        cond = c.condensed
        if cond is not None and not c.condensed_agrees:
            moved = _delta_words(results, cond.metric, cond.delta, cond.low, cond.high, " = ")
            found.append(f"On condensed lists (each list's unjudged results removed before "
                         f"scoring), {moved} "
                         f"over {_plural(cond.n, 'question')}: it does not move as on the full "
                         "lists, so the "
                         "holes in the judgments may decide this comparison; label the pairs of "
                         "to-label.tsv before deciding")  # fmt: skip
        lines += [f"- {_md_code(c.name)}: {_md_words(w)}" for w in found]
    lines += [f"- {_md_code(n.name)}: {_md_words(n.reason)}" for n in results.not_run]
    return ["", "## Warnings", "", *(lines or ["None about coverage or judgments."])]


def summary_lines(results: Results) -> list[str]:
    """summary.md's lines as results.json gives them (see above)."""
    title = f"evidencedesk report — {results.inputs.project}"
    return [f"# {_md_words(title, opens=True)}", "", *_summary_table(results),
            *_failing_rules(results), *_warnings(results), "", "## The full report", "",
            "The static site this file sits in: open `index.html` (it works offline); each "
            "candidate has its page"
            + (", the gate its rules on `gate.html`" if results.policy is not None else "")
            + f". Seed {results.settings.seed}, inputs `{results.inputs.input_hash[:12]}`."]  # fmt: skip


# -- the claims' words, restated ----------------------------------------------------------------
# Each claim a page records (`report.claims`: a kind, the results.json path it is about, its
# arguments) in words, restated here from results.json by a table of the kinds
# (`CLAIM_WORDS`), written from docs/site.md, docs/verdicts.md and docs/gate.md, not by the
# build's words: the audit holds every claim's and every marked row's words to these, so a
# build whose words said a wrong thing (a verdict's words, a sign, a p-value, a count) is a
# disagreement. tests/test_audit_oracle.py holds the two equal on every claim of every shape.

_NO_POLICY = "no gate policy — nothing checked"  # a gate line or badge without a policy
_IDS_SHOWN = 50  # question ids a gate line names before "…"
# the flips tables' shades: a question's change, and the net share of the questions compared
_DELTA_STEPS = (0.25, 0.5)
_FLIP_STEPS = (0.15, 0.3)
# each verdict's words at the head of a candidate's one line
_VERDICT_WORDS = {"WORSE": "Worse", "LEANS WORSE": "Leans worse, not proven", "MIXED": "Mixed",
                  "NO CLEAR CHANGE": "No clear change", "PROMISING": "Promising, not proven",
                  "BETTER": "Better"}  # fmt: skip
# the index's count of the verdicts, best first
_COUNTED_FIRST = ("BETTER", "PROMISING", "MIXED", "NO CLEAR CHANGE", "LEANS WORSE", "WORSE")


def gate_word(outcome: GateOutcome) -> str:
    """A gate as the since page names it: its level, or "not checked" without a gate policy
    (docs/since.md)."""
    return gate_level(outcome) if outcome.evaluated else "not checked"


def gate_level(outcome: GateOutcome) -> str:
    """A gate outcome's level (GO, REVIEW or BLOCK) as results.json holds it: the one place the
    audit reads it."""
    return outcome.level.value


def _of(results: Results, source: str, kind: type | tuple[type, ...], what: str) -> Any:
    """The object at `source` in results.json, which must be a `kind` (LookupError if not)."""
    found = _resolve(results, source)
    if not isinstance(found, kind):
        raise LookupError(f"expected {what} at {source!r}")
    return found


def _named(results: Results, metric: str) -> str:
    """A metric's full label in results.json's settings (LookupError: none, no default)."""
    for m in results.settings.metrics:
        if m.name == metric:
            return m.label
    raise LookupError(f"the results report no metric {metric!r}")


def _signed(x: float | None) -> str:
    return _three(x, signed=True)


def _span(low: float | None, high: float | None) -> str:
    """ " [+0.063, +0.156]", or nothing without an interval."""
    return "" if low is None or high is None else f" [{_signed(low)}, {_signed(high)}]"


def p_text(p: float) -> str:
    """A p-value as printed: "0.062", or "< 0.001" below that."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _p_is(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _wins(better: int, worse: int) -> str:
    return f"+{better}/−{worse}"


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"


def _one(count: int, one: str, more: str) -> str:
    """`one` for a count of 1, else `more` (a verb, a pronoun or a phrase in its number)."""
    return one if count == 1 else more


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# how a comparison moved, as docs/verdicts.md words it: by its interval (excluding zero) first,
# else by its Holm-adjusted randomization p below 0.05 the way its difference points


def _proven(c: Comparison) -> bool:
    return c.holm_p < _ALPHA and c.delta is not None and c.delta != 0


def _way(c: Comparison) -> str | None:
    if c.low is not None and c.low > 0:
        return "up"
    if c.high is not None and c.high < 0:
        return "down"
    if _proven(c):
        return "up" if c.delta is not None and c.delta > 0 else "down"
    return None


def _leaning(c: Comparison) -> str | None:
    """ "better" / "worse": the flips lean that way with a sign-test p below 0.2."""
    b, w = len(c.better), len(c.worse)
    if c.sign_p >= _LEAN or b == w:
        return None
    return "better" if b > w else "worse"


def _candidate_at(results: Results, source: str) -> CandidateResult:
    found: CandidateResult = _of(results, source, CandidateResult, "a candidate")
    return found


def _primary(c: CandidateResult) -> Comparison:
    return c.on[c.decision.primary]


def _moved_words(results: Results, c: Comparison) -> str:
    word = "better" if _way(c) == "up" else "worse"
    facts = (
        f"{_signed(c.delta)}{_span(c.low, c.high)}, {_wins(len(c.better), len(c.worse))} questions"
    )
    if _proven(c):
        return f"{_named(results, c.metric)} {word} ({facts}, Holm-adjusted randomization {_p_is(c.holm_p)})"
    return (f"{_named(results, c.metric)} {word} by its interval ({facts}), not significant after "
            f"Holm (randomization {_p_is(c.holm_p)})")  # fmt: skip


def _still_words(results: Results, c: Comparison) -> str:
    """A primary metric that did not move: how its flips stand."""
    name, b, w = _named(results, c.metric), len(c.better), len(c.worse)
    if b == w == 0:
        return f"{name} changed on no question"
    p, lean = f"sign-test {_p_is(c.sign_p)}", _leaning(c)
    if lean is not None:
        state = f"leans {lean}: {p}"
        delta = c.delta if c.delta is not None else 0.0
        if abs(delta) > _TIE and (delta > 0) != (lean == "better"):
            rose, (fewer, more) = ("rose", ("gains", "losses")) if delta > 0 else \
                ("fell", ("losses", "gains"))  # fmt: skip
            state += (f"; the mean {rose} all the same: fewer, larger {fewer} outweigh more, "
                      f"smaller {more}")  # fmt: skip
    elif b == w:
        state = f"balanced: {p}"
    else:
        state = f"no lean: {p}, not below {_LEAN}"
    return f"{name} {_signed(c.delta)}{_span(c.low, c.high)}, flips {_wins(b, w)} ({state})"


def _headline(results: Results, source: str) -> str:
    """A candidate's one line: its verdict's words (per metric where an unproven verdict stands
    beside a Holm-significant metric), how the primary moved or how its flips stand, the other
    reported metrics that moved by name and way, the critical questions that got worse."""
    c = _candidate_at(results, source)
    head, order = _primary(c), [m.name for m in results.settings.compared]
    others = sorted((x for x in c.comparisons if x.metric in order[1:] and _way(x)),
                    key=lambda x: order.index(x.metric))  # fmt: skip
    moved = _way(head) is not None
    parts = [_moved_words(results, head) if moved else _still_words(results, head)]
    if others:
        groups: dict[str, list[str]] = {}
        for x in others:
            word = "better" if _way(x) == "up" else "worse"
            key = ("also " if _way(head) == _way(x) else "") + word + \
                ("" if _proven(x) else " by its interval")  # fmt: skip
            groups.setdefault(key, []).append(_named(results, x.metric))
        parts.append("; ".join(f"{key}: {_and(names)}" for key, names in groups.items()))
    if not moved and not others:
        parts.append("no reported metric moved")
    verdict, proven = c.decision.verdict, [x for x in others if _proven(x)]
    words = _VERDICT_WORDS[verdict]
    if verdict in ("PROMISING", "LEANS WORSE") and proven:
        short, way = ("Promising", "better") if verdict == "PROMISING" else ("Leans worse", "worse")
        words = (f"{short} — {_named(results, head.metric)} not proven, "
                 f"{_and([_named(results, x.metric) for x in proven])} {way} after Holm")  # fmt: skip
    line = f"{words}: {'; '.join(parts)}."
    if c.decision.critical_worse:
        level = gate_level(c.gate) if c.gate.evaluated else _NO_POLICY
        # each with the reported metrics whose comparison counts it worse, in reported order
        on = {q: _and([_named(results, m) for m in order
                       for x in c.comparisons if x.metric == m and q in x.worse])
              for q in c.decision.critical_worse}  # fmt: skip
        line += (f" Critical question(s) worse: "
                 f"{', '.join(f'{q} (on {on[q]})' for q in c.decision.critical_worse)} — the gate "
                 f"decides ({level}).")  # fmt: skip
    return line


def _flips_words(results: Results, source: str) -> str:
    head = _primary(_candidate_at(results, source))
    return (f"Flips on {_named(results, head.metric)}: better on {len(head.better)}, worse on "
            f"{len(head.worse)}, {head.tied} tied; exact sign-test {_p_is(head.sign_p)}")  # fmt: skip


def _needed(results: Results, source: str) -> str:
    head = _primary(_candidate_at(results, source))
    if head.flips_needed is None:
        return (f"With {_plural(head.n, 'question')}, no split of flips reaches sign-test "
                f"p < {_ALPHA}")  # fmt: skip
    return (f"With {_plural(head.n, 'question')}, sign-test p < {_ALPHA} needs at least "
            f"{head.flips_needed} "
            "one-way flips (and no losses)")  # fmt: skip


def _interval_words(results: Results, source: str) -> str:
    head = _primary(_candidate_at(results, source))
    name = _named(results, head.metric)
    if head.delta is None:
        return f"Δ {name} is undefined for this comparison"
    text = f"Δ {name} = {_signed(head.delta)} over {_plural(head.n, 'question')}"
    if head.low is None or head.high is None:
        return text
    side = "includes" if head.low <= 0 <= head.high else "excludes"
    return (f"{text} (95 % paired-bootstrap interval {_signed(head.low)} to {_signed(head.high)}); "
            f"the interval {side} zero; Holm-adjusted randomization {_p_is(head.holm_p)}")  # fmt: skip


def _take(results: Results, source: str) -> str:
    d = _candidate_at(results, source).decision
    if d.questions is None or (d.for_t is None and d.for_p05 is None):
        return ""
    name, parts = _named(results, d.primary), []
    if d.for_t is not None:
        part = (f"at the observed mean difference and spread of {name}, about {d.for_t} questions "
                f"in all (now {d.questions}) would bring a paired test to p < "
                f"{_ALPHA}{f' / {d.family}' if d.family > 1 else ''}")  # fmt: skip
        if d.family > 1:
            part += (f" (what Holm's adjustment over the {d.family} candidates asks at most for an "
                     f"adjusted p < {_ALPHA})")  # fmt: skip
        if d.for_t_power is not None:
            part += f", about {d.for_t_power} for an 80 % chance"
        parts.append(part)
    if d.for_p05 is not None:
        part = (f"at the observed flip rate, the sign test reaches an unadjusted p < {_ALPHA} at "
                f"every total from about {d.for_p05} questions on")  # fmt: skip
        if d.for_power is not None:
            part += f" (an 80 % chance of it from about {d.for_power})"
        parts.append(part)
    return ("What it would take: " + "; ".join(parts) + " — estimates that assume what was "
            "observed stays as observed")  # fmt: skip


def _cost(results: Results, source: str) -> str:
    c, base = _candidate_at(results, source), results.baseline_variant.costs
    known = [(what, b, x) for what, b, x in (
        ("scored pairs", base.pairs_per_question, c.costs.pairs_per_question),
        ("prompt tokens", base.tokens_per_question, c.costs.tokens_per_question),
        ("ms of hypothetical latency", base.latency_ms, c.costs.latency_ms),
    ) if b is not None and x is not None]  # fmt: skip
    if not known:
        return "Cost: not measured (a TREC run's pairs, tokens and latency are not known)"
    parts = []
    for what, b, x in known:
        if abs(x - b) <= _TIE:
            continue
        if b > 0:
            pct = round(abs(x - b) / b * 100)
            if pct:
                parts.append(f"{pct} % {'fewer' if x < b else 'more'} {what}")
        else:
            parts.append(f"{x:g} {what} per question instead of none")
    return "Cost: " + (", ".join(parts) if parts else "the same as the baseline's")


def _unjudged(results: Results, source: str) -> str:
    s = _candidate_at(results, source).judged
    if s is None or not s.caveat or s.baseline is None or s.candidate is None:
        return ""
    return (f"Caveat: its top {s.k} holds {round(100 * (1 - s.candidate))} % unjudged documents "
            f"against {round(100 * (1 - s.baseline))} % for the baseline; unjudged count as not "
            "relevant, so this comparison can understate it")  # fmt: skip


def _condensed(results: Results, source: str) -> str:
    c = _candidate_at(results, source)
    cmp = c.condensed
    if cmp is None:
        return ""
    where = (f"On condensed lists (each list's unjudged results removed before scoring), Δ "
             f"{_named(results, cmp.metric)} = {_signed(cmp.delta)}{_span(cmp.low, cmp.high)} "
             f"over {_plural(cmp.n, 'question')}")  # fmt: skip
    if c.condensed_agrees and _way(cmp) is None:
        return (f"{where}: it does not move, nor does it on the full lists, so the verdict "
                "holds where the judgments reach")  # fmt: skip
    if c.condensed_agrees:
        return f"{where}: it moves as on the full lists, so the verdict holds where the judgments reach"
    return (f"{where}: it does not move as on the full lists, so the holes in the judgments may "
            "decide this comparison; label the pairs of to-label.tsv before deciding")  # fmt: skip


def _gate_metric(results: Results, metric: str | None, k: int) -> str:
    """A gate rule's metric as docs/gate.md names it: a runs-only gate's MRR is cut at its top k
    (MRR@k); a pipeline's reads each run's final list, the candidate's and the baseline's of
    different lengths when the candidate changes its final (no k)."""
    if metric is None:
        return ""
    if metric == "mrr" and results.settings.kind == "pipeline":
        return "MRR within the final list"
    return (
        f"MRR@{k} (reciprocal rank within the gate's top {k})" if metric == "mrr" else label(metric)
    )


def _gate_line(results: Results, source: str) -> str:
    """One gate check in words (docs/gate.md), its metric named with the top k it reads."""
    outcome = _of(results, source.rsplit(".checks[", 1)[0], GateOutcome, "a gate outcome")
    g = _of(results, source, GateCheck, "a gate check")
    metric = _gate_metric(results, g.metric, outcome.k or 0)
    q = visible(g.questions[0]) if g.questions else ""
    said: dict[str, Callable[[], str]] = {
        "critical_missing": lambda: f"critical: {q} has no case in this run (no relevant chunk in scope, so it cannot pass)",
        "critical": lambda: (f"critical: {q} failed: no relevant result (grade ≥ "
                             f"{results.settings.relevance}) in the "
                             f"{'top' if results.settings.kind == 'runs' else 'final'} {g.k}"),
        "min_recall": lambda: f"{metric} {_three(g.observed)} is below the minimum {_three(g.threshold)}",
        "min_pass_rate": lambda: (f"pass rate {_three(g.observed)} ({g.counts[0]}/{g.counts[1]}) is "
                                  f"below the minimum {_three(g.threshold)}"),
        "baseline_missing_metric": lambda: f"the saved baseline has no {metric} (it was saved at k = {g.k})",
        "max_drop": lambda: (f"{metric} dropped {_three((g.reference or 0.0) - (g.observed or 0.0))} "
                             f"against the gate's baseline ({_three(g.reference or 0.0)} → "
                             f"{_three(g.observed or 0.0)}), more than the allowed {_three(g.threshold)}"),
        "review_on_mrr_flips": lambda: (
            f"{metric} worse for {len(g.questions)} question(s) "
            f"({', '.join(visible(x) for x in g.questions[:_IDS_SHOWN])}"
            f"{', …' if len(g.questions) > _IDS_SHOWN else ''}), better for {g.counts[0]} "
            f"(sign-test {_p_is(g.p or 1.0)})"),
        "no_policy": lambda: "no gate policy in this project; nothing was checked",
    }  # fmt: skip
    if g.rule not in said:
        raise LookupError(f"unknown gate rule {g.rule!r}")
    return said[g.rule]()


def _baseline_fails(results: Results, source: str) -> str:
    own = results.baseline_gate
    if own is None or gate_level(own) == "GO":
        return ""
    lines = [_gate_line(results, f"baseline_gate.checks[{i}]") for i in range(len(own.checks))]
    level = gate_level(own)
    return (f"The baseline {results.baseline} itself fails the gate policy ({level}): "
            f"{'; '.join(lines)}. Every candidate is held to the same floors, so a candidate's "
            f"{level} may be the baseline's, not the change's")  # fmt: skip


def _gate_badge(results: Results, source: str) -> str:
    g = _candidate_at(results, source).gate
    if not g.evaluated:
        return _NO_POLICY
    if gate_level(g) not in _LEVELS:
        raise LookupError(f"no gate level {gate_level(g)!r} at {source!r}")
    return gate_level(g)


def _delta(results: Results, source: str) -> str:
    c = _of(results, source, Comparison, "a comparison")
    return f"Δ {_named(results, c.metric)} {_signed(c.delta)}{_span(c.low, c.high)}"


def _flip_of(results: Results, source: str) -> Flip | Comparison:
    found: Flip | Comparison = _of(results, source, (Flip, Comparison), "a flip or a comparison")
    return found


def _flips_of(results: Results, source: str) -> str:
    f = _flip_of(results, source)
    p = f.p if isinstance(f, Flip) else f.sign_p
    return (f"{_wins(len(f.better), len(f.worse))} on {_named(results, f.metric)}, sign-test "
            f"{_p_is(p)}")  # fmt: skip


def _flip_p(results: Results, source: str) -> str:
    f = _of(results, source, Flip, "a flip")
    return f"{_wins(len(f.better), len(f.worse))} {_p_is(f.p)}"


def _flip_line(results: Results, source: str) -> str:
    f = _of(results, source, Flip, "a flip")
    return (f"{f.b} against {f.a}: {_wins(len(f.better), len(f.worse))} on "
            f"{_named(results, f.metric)}, sign-test {_p_is(f.p)}, Holm-adjusted "
            f"{_p_is(f.holm_p)}")  # fmt: skip


def _list_value(results: Results, source: str, base: str = "") -> str:
    """A question page's list heading: its first relevant rank, the flips metric's value on the
    question and its change against the baseline's list at `base`."""
    metric, ranked = results.settings.flips_metric, _resolve(results, source)
    value, first = ranked.values.get(metric), ranked.first_relevant
    before = _resolve(results, base).values.get(metric) if base else None
    change = None if value is None or before is None else value - before
    return (f"first relevant at {'—' if first is None else first} · {_named(results, metric)} "
            f"{_three(value)} · Δ {_signed(change)}")  # fmt: skip


def _grid_legend(results: Results, source: str) -> str:
    metric = results.settings.flips_metric
    undefined = sum(1 for r in results.baseline_variant.lists if r.values.get(metric) is None)
    text = "Blue cells gained, orange cells lost, blank cells are unchanged"
    if undefined:
        text += (f"; — marks the {undefined} question(s) with no relevant judgment, which have no "
                 f"{_named(results, metric)} to change")  # fmt: skip
    return text


_P_FIELDS = ("sign_p", "randomization_p", "holm_p", "sign_holm_p")  # a `p` claim's p-values


def _p_claim(results: Results, source: str, which: str = "sign_p") -> str:
    c = _resolve(results, source)
    if not isinstance(c, Comparison) or which not in _P_FIELDS:
        raise LookupError(f"expected a comparison's {which} at {source!r}")
    return p_text(float(getattr(c, which)))


def _judged_words(results: Results, source: str) -> str:
    s = _candidate_at(results, source).judged
    if s is None:
        return ""
    return (f"{_three(s.baseline)} → {_three(s.candidate)} over {_plural(s.n, 'question')} (Δ "
            f"{_signed(s.delta)}{_span(s.low, s.high)})")  # fmt: skip


def _counts(results: Results, source: str) -> str:
    """The questions counted: "50 questions: 40 judged, 38 with a relevant judgment (grade ≥
    1); 10 without any judgment are left out" (trec_eval's averaging says what the other
    judged count)."""
    c = results.inputs.counts
    if c is None:
        return ""
    if c.judged == c.queries and not c.unjudged:
        text = f"{_plural(c.queries, 'question')}, all judged"
    else:
        text = f"{_plural(c.queries, 'question')}: {c.judged} judged"
    text += f", {c.relevant} with a relevant judgment (grade ≥ {c.threshold})"
    # a pipeline's questions relevant only out of scope have no relevant chunk to score
    relevance = results.settings.relevance
    in_scope = sum(1 for q in results.inputs.questions
                   if any(g >= relevance for g in q.judgments.values()))  # fmt: skip
    if results.settings.kind == "pipeline" and in_scope < c.relevant:
        text += f", {in_scope} of them in scope"
    else:
        in_scope = c.relevant
    if results.settings.averaging == "trec_eval" and c.judged > in_scope:
        # trec_eval's nDCG gives a grade below the threshold its gain; the other metrics read 0
        below = f" but nDCG's, which reads their grades below {relevance}" if relevance > 1 else ""
        text += (f"; the other {c.judged - in_scope} judged count 0 in the means{below} "
                 "(trec_eval's averaging)")  # fmt: skip
    if c.unjudged:
        text += f"; {c.unjudged} without any judgment {'is' if c.unjudged == 1 else 'are'} left out"
    return text


def _notice_claim(results: Results, source: str) -> str:
    n = _of(results, source, Notice, "a notice")
    if n.kind not in _NOTICE_KINDS:
        raise LookupError(f"unknown notice kind {n.kind!r}")
    return _notice(n, results.settings.kind)


_NOTICE_KINDS = ("not_a_run", "empty_document", "without_text", "unlisted",
                 "judged_not_in_corpus", "unjudged", "out_of_scope", "score_order",
                 "score_ties")  # fmt: skip


def _coverage(results: Results, source: str) -> str:
    v = _resolve(results, source)
    if not isinstance(v, VariantResult) or v.coverage is None:
        return ""
    return _partial(v.name, v.coverage)


def _partial(name: str, cov: Coverage) -> str:
    """A run that answers part of the judged queries, as its pages and summary.md warn of it."""
    return (f"Partial coverage: the run {name} answers {cov.answered} of the "
            f"{_plural(cov.judged_queries, 'judged query', 'judged queries')} "
            f"({_share(cov.answered, cov.judged_queries)}); "
            "the others count as empty lists.")  # fmt: skip


_CUT = re.compile(r"@(\d+)")  # a metric name's cut-off (none: it reads the whole list)


def _depth(results: Results, source: str) -> str:
    """A candidate's depth warning (docs/site.md): its lists and the baseline's go to different
    depths (the longest list each returns) and a reported metric reads past the shallower."""
    c = _candidate_at(results, source)
    mine = max([r.size for r in c.ranked(results)] or [0])
    base = max([r.size for r in results.variant(results.baseline).lists] or [0])
    shallow = min(mine, base)
    if mine == base:
        return ""
    # R-prec reads a question's first R results (R: its relevant documents)
    rel, compared = results.settings.relevance, results.settings.compared
    most = max([sum(g >= rel for g in q.judgments.values()) for q in results.inputs.questions]
               or [0]) if any(m.name == "rprec" for m in compared) else 0  # fmt: skip
    past = [m.label for m in compared
            if (most > shallow if m.name == "rprec"
                else (cut := _CUT.search(m.name)) is None or int(cut[1]) > shallow)]  # fmt: skip
    if not past:
        return ""
    read = "reads" if len(past) == 1 else "read"
    hint = f"; [runs] max_depth = {shallow} compares every run at one depth" \
        if results.settings.kind == "runs" else ""  # fmt: skip
    return (f"Depth: {c.name} returns up to {_plural(mine, 'result')} a question, the baseline "
            f"{results.baseline} up to {base}; {_and(past)} {read} past {shallow}, so part of the "
            f"difference is how far each list goes{hint}.")  # fmt: skip


def _verdict_counts(results: Results, source: str) -> str:
    found = [c.decision.verdict for c in results.candidates]
    parts = [f"{found.count(x)} {x.lower()}" for x in _COUNTED_FIRST if x in found]
    return ", ".join(parts) if parts else "no candidate"


def _gate_counts(results: Results, source: str) -> str:
    if results.policy is None:
        return f"gate: {_NO_POLICY}"
    found = [gate_level(c.gate) for c in results.candidates]
    parts = [f"{found.count(x)} {x}" for x in _LEVELS if x in found]
    return "gate: " + (", ".join(parts) if parts else "no candidate")


def _lead_words(results: Results, source: str) -> str:
    c = best_lead(results)
    if c is None:
        return ("No best lead: no candidate is ahead of the baseline on "
                f"{_named(results, results.settings.compared[0].name)}")  # fmt: skip
    d = _primary(c)
    # the reported metrics after the primary that moved down, in reported order
    down = [_named(results, m.name) for m in results.settings.compared[1:]
            for x in c.comparisons if x.metric == m.name and _way(x) == "down"]  # fmt: skip
    worse = f"; worse: {_and(down)}" if down else ""
    return (f"Best lead: {c.name}{tied_words(results, c)}, Δ {_named(results, d.metric)} "
            f"{_signed(d.delta)}"
            f"{_span(d.low, d.high)} over {_plural(d.n, 'question')} "
            f"({c.decision.verdict.lower()}{worse})")  # fmt: skip


def _tally(results: Results, source: str, of: str = "") -> str:
    """A count of the index's tiles: better (BETTER), worse (WORSE), unclear (the others), one
    verdict's, or one gate level's."""
    verdicts = [c.decision.verdict for c in results.candidates]
    tiles = {"better": verdicts.count("BETTER"), "worse": verdicts.count("WORSE")}
    tiles["unclear"] = len(verdicts) - tiles["better"] - tiles["worse"]
    if of in tiles:
        return str(tiles[of])
    if of in _VERDICT_WORDS:
        return str(verdicts.count(of))
    if of in _LEVELS:
        return str([gate_level(c.gate) for c in results.candidates].count(of))
    raise LookupError(f"nothing to count as {of!r}")


def _variant_judged(results: Results, source: str) -> str:
    v = _of(results, source, VariantResult, "a variant")
    s = v.judged
    if s is None:
        return ""
    span = "" if s.low is None or s.high is None else f" [{_three(s.low)}, {_three(s.high)}]"
    return f"{label(f'judged@{results.settings.judged_k}')} of {v.name}: {_three(s.mean)}{span}"


# the methods' fixed statements, restated from docs/verdicts.md, docs/statistics.md and
# docs/site.md (a `rule` claim's ``key``)
_RULE_WORDS: Mapping[str, str] = {
    "moved": ("A reported metric moved when its paired 95 % bootstrap interval excludes zero or its "
              "paired randomization test, Holm-adjusted across the candidates, gives p < "
              f"{_ALPHA}; it moved the way its paired difference points"),
    "reported": ("The reported metrics are the project's [report] metrics, the primary first; a "
                 "benchmark column the project does not report is shown, not weighed"),
    "randomization": ("The randomization test flips the signs of the per-question differences: "
                      f"exactly, over every sign pattern, up to {_EXACT_SIGNS} non-zero "
                      f"differences; with {_RESAMPLES:,} seeded resamples up to {_LARGE:,}; by its "
                      "normal limit above"),
    "better": (f"BETTER: the primary metric moved up with Holm-adjusted p < {_ALPHA}, and no "
               "reported metric moved down"),
    "promising": ("PROMISING (encouraging, not proven): nothing moved down, and the primary metric "
                  "moved up by its interval alone, or it did not move but its flips lean better "
                  f"with an exact sign-test p below {_LEAN}"),
    "worse": "WORSE and LEANS WORSE: the mirror images, when nothing moved up",
    "mixed": "MIXED: some reported metric moved up and another moved down",
    "no_clear_change": "NO CLEAR CHANGE: anything else",
    "gate": ("The gate answers whether it may ship: GO, REVIEW or BLOCK from the gate policy, or "
             f"{_NO_POLICY}; a critical question that got worse is named in the headline and "
             "decided by the gate, never by the verdict"),
    "not_proven": "Not proven is never said of a change that is significant after Holm's adjustment",
    "sign_example": ("Four better and none worse gives p = 0.125; six better and none worse, p = "
                     f"0.031, is the fewest one-way flips that give p < {_ALPHA}"),
    "holm_star": f"A ★ marks a Holm-adjusted sign-test p < {_ALPHA}",
    "shades": (f"A pair's cell is light when its net flips are under {round(100 * _FLIP_STEPS[0])} % "
               f"of the questions compared, medium under {round(100 * _FLIP_STEPS[1])} %, dark from "
               f"{round(100 * _FLIP_STEPS[1])} %; a question's cell is light when its change is "
               f"under {_DELTA_STEPS[0]}, medium under {_DELTA_STEPS[1]}, dark from {_DELTA_STEPS[1]}"),
    "take": ("For a candidate that is encouraging but not proven (PROMISING or LEANS WORSE), the "
             "page says how many questions would bring a paired test to p < "
             f"{_ALPHA} divided by the number of candidates (what Holm's adjustment asks at most) "
             "at the observed mean difference and spread, never fewer than one more than now nor "
             "fewer than give the randomization test enough changed questions, with an 80 % power "
             "estimate, and beside it what the sign test would need at the observed flip rate"),
    "unjudged": (f"A candidate whose Judged@k is at least {round(100 * _UNJUDGED_GAP)} points below "
                 "the baseline's, with the paired 95 % interval of the difference below zero, "
                 "carries that caveat in its headline and is told to label before deciding, "
                 "unless its primary metric on condensed lists moves as on the full lists (then "
                 "the holes cannot change the answer)"),
    "noise": ("Within noise = MRR not distinguishable from the best row: at most a two-question "
              f"gap, or a sign-test p ≥ {_ALPHA}"),
}  # fmt: skip


def _rule(results: Results, source: str, key: str = "") -> str:
    if key not in _RULE_WORDS:
        raise LookupError(f"no rule {key!r}")
    return _RULE_WORDS[key]


def _seen_grades(results: Results) -> list[int]:
    return sorted({g for q in results.inputs.questions for g in q.grades.values()})


def _grades(results: Results, source: str) -> str:
    names, rel = results.settings.grade_names, results.settings.relevance
    if names:
        return (
            f"Grades: {', '.join(f'{g} = {name}' for g, name in names)}; relevant = grade ≥ {rel}"
        )
    seen = _seen_grades(results)
    if len(seen) == 1:
        return f"Every judgment has grade {seen[0]} (the project names no scale); relevant = grade ≥ {rel}"
    if not seen:
        return f"Grades none (the project names none); relevant = grade ≥ {rel}"
    joint = " to " if seen[0] < 0 else "–"  # a dash after a number below 0 would read as a minus
    return f"Grades {seen[0]}{joint}{seen[-1]} (the project names none); relevant = grade ≥ {rel}"


def _relevance(results: Results, source: str) -> str:
    rel, named = results.settings.relevance, dict(results.settings.grade_names)
    bpref = "bpref" in {m.name for m in results.settings.compared}  # reads unjudged neither way
    missing = ("a missing grade counts as 0 (the labels file grades every chunk)"
               if results.settings.questions_from == "labels"
               else "unjudged results count as not relevant" + (
                   " (bpref excepted: it counts an unjudged result neither way)" if bpref else ""))  # fmt: skip
    seen = _seen_grades(results)
    negative = [str(g) for g in seen if g < 0]  # 0 to every metric; bpref counts them neither way
    if negative:
        missing += f"; a grade below 0 (here {_and(negative)}) counts as 0" + \
            (", and in bpref neither way" if bpref else "")  # fmt: skip
    if rel in named:
        why = f"{rel} = {named[rel]}"
    elif len(seen) == 1:
        why = f"every judgment here has grade {seen[0]}"
    else:
        why = f"the grades in these judgments run {f'{seen[0]}–{seen[-1]}' if seen else 'none'}"
    return (f"A result is relevant when its grade is at least {rel} ({why}); lower grades are not "
            f"relevant, and {missing}")  # fmt: skip


# claim kind -> its words from results.json (`claim_words`)
CLAIM_WORDS: Mapping[str, Callable[..., str]] = {
    "headline": _headline, "baseline_fails": _baseline_fails, "flips": _flips_words,
    "needed": _needed, "interval": _interval_words, "take": _take, "cost": _cost,
    "unjudged": _unjudged, "condensed": _condensed, "gate_line": _gate_line,
    "verdict": lambda results, source: _candidate_at(results, source).decision.verdict,
    "gate": _gate_badge, "delta": _delta,
    "flip_cell": lambda r, s: _wins(len(_flip_of(r, s).better), len(_flip_of(r, s).worse)),
    "flips_of": _flips_of, "flip_line": _flip_line, "flip_p": _flip_p,
    "grid_legend": _grid_legend, "list_value": _list_value, "p": _p_claim,
    "judged": _judged_words, "counts": _counts, "notice": _notice_claim, "coverage": _coverage,
    "depth": _depth,
    "summary": _verdict_counts, "gate_summary": _gate_counts, "lead": _lead_words,
    "tally": _tally, "variant_judged": _variant_judged, "rule": _rule, "grades": _grades,
    "relevance": _relevance,
}  # fmt: skip


def claim_words(results: Results, kind: str, source: str, args: Mapping[str, Any]) -> str:
    """A claim's words (`CLAIM_WORDS[kind]` of the object at `source`, with `args`), restated
    from results.json. Raises LookupError for a kind, path or argument results.json has not."""
    if kind not in CLAIM_WORDS:
        raise LookupError(f"unknown claim kind {kind!r}; expected one of: {', '.join(CLAIM_WORDS)}")
    return CLAIM_WORDS[kind](results, source, **args)


def rules_summary(rules: Sequence[RuleValue]) -> str:
    """A candidate's gate rules counted as the gate page says them (docs/gate.md): "4 of 6 rules
    pass · 1 BLOCK · 1 REVIEW · 1 not evaluated", each count after the first only where there is
    one."""
    said = [f"{sum(r.status == 'pass' for r in rules)} of {len(rules)} rules pass"]
    said += [f"{n} {status}" for status in ("BLOCK", "REVIEW", "not evaluated")
             if (n := sum(r.status == status for r in rules))]  # fmt: skip
    return " · ".join(said)


def graded_list(question: QuestionFact) -> list[tuple[str, int]]:
    """A question page's graded documents (docs/site.md): every document its labels grade above
    0 (`grades`, as labelled: one the metrics count as 0 because it is out of scope is listed at
    its label's grade; one graded 0 is not), best first: the highest grade first, then by id."""
    return sorted(((doc, g) for doc, g in question.grades.items() if g > 0),
                  key=lambda pair: (-pair[1], pair[0]))  # fmt: skip


def slice_fewer(results: Results, metric: str) -> str:
    """The slices page's line under a metric's heading (docs/site.md): each tag, in the table's
    order (sorted), on which the baseline's slice counts fewer questions than carry the tag
    ("restricted 2 of 3"), joined by commas; "" when there is none."""
    carry: dict[str, int] = {}
    for q in results.inputs.questions:
        for tag in set(q.tags):
            carry[tag] = carry.get(tag, 0) + 1
    base = {t.tag: t.n for t in results.baseline_variant.slices if t.metric == metric}
    tags = sorted({t.tag for v in results.variants for t in v.slices if t.metric == metric})
    return ", ".join(f"{t} {base[t]} of {carry[t]}" for t in tags
                     if t in base and t in carry and base[t] < carry[t])  # fmt: skip


def labelled_counts(results: Results) -> tuple[dict[str, int], dict[str, int]]:
    """The index's "What was evaluated" tables (docs/site.md): the questions carrying each tag
    (a question with two tags counts in both), and the labelled (question, document) pairs of
    each grade (every label grade, 0 included), each by its key as the page prints it."""
    tags: dict[str, int] = {}
    grades: dict[str, int] = {}
    for q in results.inputs.questions:
        for tag in set(q.tags):
            tags[tag] = tags.get(tag, 0) + 1
        for grade in q.grades.values():
            grades[str(grade)] = grades.get(str(grade), 0) + 1
    return tags, grades
