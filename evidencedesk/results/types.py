"""The typed Results: plain frozen dataclasses of numbers, ids and input facts, no display text.

Everything the site shows is computed once into these objects by `evidencedesk.results._evaluate`
and presented by `evidencedesk.report`; `evidencedesk.results._serialize` writes and reads them as
``results.json`` (field by field, documented in docs/results-schema.md). ``None`` is "undefined"
or "not known", never zero.

Rows of the pipeline-only sections of the Results: sizing, ablations, citations, evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from evidencedesk._metric_names import canonical
from evidencedesk.gate import GateCheck, GateLevel
from evidencedesk.results._plan import Plan, decide
from evidencedesk.results._settings import Settings
from evidencedesk.results._verdicts import Decision
from evidencedesk.retrieval._coverage import Coverage
from evidencedesk.retrieval.labels import QuestionCounts


@dataclass(frozen=True)
class MetricStat:
    """One run's mean of one metric with its 95 % bootstrap interval."""

    metric: str
    mean: float | None
    low: float | None
    high: float | None
    n: int  # questions that define the metric
    left_out: int  # questions where it is undefined (no relevant chunk)


@dataclass(frozen=True)
class RunCosts:
    """What a run costs per question; None where it is not known (an external run)."""

    pairs_per_question: float | None
    tokens_per_question: float | None
    latency_ms: float | None  # from the hypothetical price list; None without one


@dataclass(frozen=True)
class SizingRow:
    """One sizing-sweep setting (depth, final): recall, MRR, costs, whether within noise."""

    depth: int
    final: int
    recall: float | None  # recall at the row's own final size
    mrr: MetricStat
    costs: RunCosts
    within_noise: bool  # MRR not distinguishable from the best row (see the sizing note)
    smallest_in_noise: bool
    best: bool


@dataclass(frozen=True)
class AblationResult:
    """One ablation: a change to the base config, its metrics, MRR change, flips, p, interval."""

    changes: dict[str, Any]  # {} for the base row
    metrics: dict[str, float | None]
    mrr_delta: float | None
    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float
    costs: RunCosts
    # the paired 95 % bootstrap interval of mrr_delta (None on the base row)
    mrr_low: float | None = None
    mrr_high: float | None = None


@dataclass(frozen=True)
class Ablations:
    """The ablation study: the base config's label and one row per change (the base first)."""

    base: str  # the base config's label
    rows: tuple[AblationResult, ...]


@dataclass(frozen=True)
class CitationRow:
    """One scored answer of the citation checks: its coverage, resolve and support."""

    id: str
    case: str
    answer: str
    coverage: float | None
    resolve: float | None
    support: float | None
    note: str


@dataclass(frozen=True)
class Merge:
    """A dedupe merge: the chunk kept and the near-duplicates merged into it."""

    kept: str
    merged: tuple[str, ...]


@dataclass(frozen=True)
class HeldBack:
    """Two similar chunks with different numbers, both kept and held back for a human."""

    first: str
    second: str
    reason: str


@dataclass(frozen=True)
class CompressionRow:
    """One context-compression setting: tokens before and after, questions that kept evidence."""

    setting: str
    tokens_before: int
    tokens_after: int
    kept: int
    total: int
    cut_off: tuple[str, ...]


@dataclass(frozen=True)
class StateRow:
    """One index state of the freshness or deletion check: the chunks served, whether stale."""

    state: str
    served: tuple[str, ...]  # chunk ids served
    stale: bool
    note: str


@dataclass(frozen=True)
class TenantRow:
    """One tenant's isolation check, filtered or not: questions asked, other tenants' chunks."""

    tenant: str
    filtered: bool
    questions: int
    leaks: int
    leaked: tuple[str, ...]


@dataclass(frozen=True)
class EvidenceResult:
    """The evidence checks: dedupe, compression, freshness, deletion and tenant isolation."""

    kept: int
    merges: tuple[Merge, ...]
    held_back: tuple[HeldBack, ...]
    compression: tuple[CompressionRow, ...]
    freshness: tuple[StateRow, ...]
    deletion: tuple[StateRow, ...]
    tenants: tuple[TenantRow, ...]
    notes: tuple[str, ...] = ()


SCHEMA_VERSION = 2  # the version of results.json's layout (1 still loads: `serialize.loads`)


@dataclass(frozen=True)
class RankedList:
    """One question's final list in one run, judged."""

    question: str
    ids: tuple[str, ...]  # the whole list, or its top `_SHOWN` when `size` is larger
    grades: tuple[int, ...]
    size: int  # length of the judged list
    first_relevant: int | None  # rank of the first relevant chunk
    values: dict[str, float | None]  # reported metric -> this question's value
    judged: tuple[bool, ...] | None = None  # per id: the judgments grade it; None: all are


@dataclass(frozen=True)
class TagValue:
    """A metric's mean over the questions of one tag."""

    metric: str
    tag: str
    mean: float | None
    n: int
    # 95 % bootstrap interval over the tag's questions (a variant's slices; None for a candidate's
    # slices, and when fewer than two questions define the metric)
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class VariantResult:
    """One variant (built-in searcher or TREC run): metrics, costs, ranked lists and slices."""

    name: str
    kind: str  # "builtin" | "external"
    description: str
    config: dict[str, Any] | None  # Config fields of a built-in variant; None for a TREC run
    metrics: tuple[MetricStat, ...]  # one per reported metric (Settings.metrics)
    costs: RunCosts
    lists: tuple[RankedList, ...]
    slices: tuple[TagValue, ...]
    # a TREC run's ids against the judgments (None: a built-in searcher, whose ids are the
    # catalog's); Judged@k (`Settings.judged_k`) with its interval
    coverage: Coverage | None = None
    judged: MetricStat | None = None


@dataclass(frozen=True)
class JudgedShare:
    """A candidate's Judged@k against the baseline's: both means, the paired difference with its
    95 % bootstrap interval, and whether it is clearly lower (`verdicts.unjudged_caveat`) where
    that can change the answer (the condensed lists do not move as the full lists): unjudged
    results count as not relevant, so the comparison can understate the candidate."""

    k: int
    baseline: float | None
    candidate: float | None
    delta: float | None
    low: float | None
    high: float | None
    n: int
    caveat: bool


@dataclass(frozen=True)
class Flip:
    """Run b against run a on one metric: questions b wins / loses, ties, exact sign test, and
    the sign test's p adjusted (Holm) across the comparisons of its family."""

    a: str
    b: str
    metric: str
    better: tuple[str, ...]
    worse: tuple[str, ...]
    tied: int
    p: float
    # "variants": a pair of variants, Holm across every unordered pair of variants (both orders
    # of a pair share it); "candidates": the baseline against a candidate, Holm across the
    # candidates (the candidate's Comparison.holm_p on the flips metric)
    family: str
    holm_p: float


@dataclass(frozen=True)
class Comparison:
    """A candidate against the baseline on one metric: paired difference, flips and tests."""

    metric: str
    baseline: MetricStat
    candidate: MetricStat
    delta: float | None  # mean of the paired differences, with its paired-bootstrap interval
    low: float | None
    high: float | None
    n: int  # questions defined in both runs
    better: tuple[str, ...]  # question ids where the candidate beats the baseline
    worse: tuple[str, ...]
    tied: int
    sign_p: float  # exact two-sided sign test over the untied questions
    randomization_p: float  # paired sign-flip permutation test of the mean difference
    # the randomization p adjusted (Holm) across the candidates, per metric: what decides
    # whether the metric moved (results.verdicts)
    holm_p: float
    # the sign test's p adjusted the same way (shown beside the flips); the per-question
    # differences' standard deviation (what it would take)
    sign_holm_p: float = 1.0
    sd: float | None = None
    # one-way flips (and no losses) the exact sign test needs for p < 0.05 over these `n`
    # questions; None when no split of `n` reaches it
    flips_needed: int | None = None


@dataclass(frozen=True)
class RuleValue:
    """One policy rule on one candidate: observed value against its threshold, or why not."""

    rule: str  # a policy key: critical, min_recall, min_pass_rate, max_drop, review_on_mrr_flips
    metric: str | None
    observed: float | None
    threshold: float | None
    # what observed is set against: the baseline's value (max_drop); the questions MRR won
    # (review_on_mrr_flips, whose observed is the questions it lost)
    reference: float | None
    status: str  # "pass" | "REVIEW" | "BLOCK" | "not evaluated"
    why: str | None  # why not evaluated; None when evaluated

    @property
    def margin(self) -> float | None:
        """Observed minus the limit it must stay at or above (negative: breached): recall or
        pass rate minus its floor; critical questions passing minus all of them; for max_drop the
        value minus (the baseline's value minus the allowed drop). None without a threshold."""
        if self.observed is None or self.threshold is None or self.status == "not evaluated":
            return None
        if self.rule == "max_drop":
            if self.reference is None:
                return None
            return self.observed - (self.reference - self.threshold)
        return self.observed - self.threshold


@dataclass(frozen=True)
class GateOutcome:
    """A candidate's gate level: its lines, every policy rule's value, what it compared with."""

    level: GateLevel
    checks: tuple[GateCheck, ...]
    evaluated: bool  # False: no gate policy in the project
    rules: tuple[RuleValue, ...] = ()  # every policy key, evaluated or "not evaluated: why"
    baseline: str | None = None  # what max_drop and the flips rule compare with; None: nothing
    k: int | None = None  # the top k the gate read (a pipeline's final list); None: no policy

    @property
    def word(self) -> str:
        """The level as the since page and the exports name it: GO, REVIEW or BLOCK, or "not
        checked" without a policy (the badge's "no gate policy — nothing checked"; the level
        is then REVIEW, for --fail-on)."""
        return self.level.value if self.evaluated else "not checked"


@dataclass(frozen=True)
class ConfigChange:
    """A Config field whose value differs between the baseline and a candidate."""

    field: str
    baseline: str
    candidate: str


@dataclass(frozen=True)
class Exposure:
    """A marked chunk an unfiltered stage one put in a question's candidate list."""

    question: str
    chunk: str
    marks: tuple[str, ...]  # "restricted", "superseded"


@dataclass(frozen=True)
class CandidateResult:
    """One candidate against the baseline: diff, comparisons, gate, verdict and lists."""

    name: str
    rationale: str
    diff: tuple[ConfigChange, ...]
    metrics: tuple[MetricStat, ...]  # the candidate's own means, one per reported metric
    comparisons: tuple[Comparison, ...]  # one per reported metric (Settings.metrics)
    slices: tuple[TagValue, ...]  # the candidate's headline metric by tag
    costs: RunCosts
    gate: GateOutcome
    note: str | None  # the human-written Markdown note
    decision: Decision  # the verdict (results.verdicts), from the statistics alone
    # prefilter = false only: marked chunks in the candidate lists before the scope filter
    exposure: tuple[Exposure, ...] | None = None
    # the candidate's final list per question (like VariantResult.lists); empty when the same
    # run is already a variant: `lists_of` names it and its lists are the candidate's
    lists: tuple[RankedList, ...] = ()
    lists_of: str | None = None
    # how much of each top k is judged, against the baseline; the primary metric on condensed
    # lists (unjudged results removed first; None when every result of both runs is judged) and
    # whether it moved the way the full lists' did
    judged: JudgedShare | None = None
    condensed: Comparison | None = None
    condensed_agrees: bool | None = None

    @cached_property
    def on(self) -> dict[str, Comparison]:
        """The comparisons by their metric's canonical name (``cand.on["mrr"]``)."""
        return {c.metric: c for c in self.comparisons}

    def comparison(self, metric: str) -> Comparison:
        """The comparison on `metric`: its canonical name or any other it answers to (``AP``)."""
        return self.on.get(metric) or self.on[canonical(metric)]

    def ranked(self, results: Results) -> tuple[RankedList, ...]:
        """The candidate's lists: its own, or those of the variant `lists_of` names."""
        return self.lists if self.lists_of is None else results.variant(self.lists_of).lists


@dataclass(frozen=True)
class NotRun:
    """A candidate this machine could not run: it names a model of an optional extra whose
    packages are not installed. Shown with the one line of `reason`; no number is made up."""

    name: str
    rationale: str
    diff: tuple[ConfigChange, ...]
    reason: str  # "not run: … is not installed; install it with: pip install '…'"
    note: str | None = None


@dataclass(frozen=True)
class ModelFacts:
    """A real model that ran (the methods page): its name and (what, value) lines -- model,
    licence, precision, files with their versions and sha256, runtime."""

    name: str
    facts: tuple[tuple[str, str], ...]
    # one line when the project's texts are mostly in a script the model was not trained for
    # (`retrieval.minilm._language_warning`): printed by the build, shown wherever the model is
    warning: str | None = None
    # what the model ran as in this report ("searcher": a first stage, "reranker": a second),
    # so that its caveat names what appears; a file from an earlier build: both
    roles: tuple[str, ...] = ("searcher", "reranker")


@dataclass(frozen=True)
class ChunkFact:
    """A chunk the results refer to: title, text (None when withheld) and marks."""

    id: str
    title: str
    text: str | None  # None: restricted text withheld ([report].restricted_text = "hide")
    marks: tuple[str, ...]  # "restricted", "superseded"


@dataclass(frozen=True)
class QuestionFact:
    """One question: its text, tags, label grades and the judgments the metrics use."""

    id: str
    question: str
    tags: tuple[str, ...]
    answerable: bool
    grades: dict[str, int]  # every label grade
    judgments: dict[str, int]  # the grades the metrics use (in scope); qrels.txt


@dataclass(frozen=True)
class DocumentFact:
    """One document of the catalog: its id, title, chunk count, status, visibility and language."""

    id: str
    title: str
    chunks: int
    status: str
    visibility: str
    language: str


@dataclass(frozen=True)
class Notice:
    """Something about the inputs a reader must know before reading a number (worded by
    `report.notices`): a file in the runs folder that is not a run, an empty document,
    judged queries the queries file does not list (evaluated or left out), queries without any
    judgment, judged documents the corpus does not hold, questions relevant only out of scope,
    a run whose scores rise down its file or all tie in a query."""

    kind: str  # one of NOTICES
    path: str  # the file it is about, relative to the project
    line: int | None
    count: int
    total: int | None
    names: tuple[str, ...]  # the ids or run names it is about (a few)
    run: str | None = None  # the run it is about (`score_order`, `score_ties`): said on its
    # candidates' pages


# the kinds of input notice
_NOTICES = ("not_a_run", "empty_document", "without_text", "unlisted", "unjudged",
            "judged_not_in_corpus", "out_of_scope", "score_order", "score_ties")  # fmt: skip


@dataclass(frozen=True)
class ToLabel:
    """An unjudged (question, document) pair in the top k of the baseline or a candidate: the
    best rank it has there, the runs that return it, and how many baseline-candidate
    comparisons it splits (in one run's top k, not in the other's)."""

    question: str
    document: str
    rank: int
    runs: tuple[str, ...]
    splits: int


@dataclass(frozen=True)
class InputHash:
    """An input file of the project and its sha256 (what a rerun must read to match)."""

    path: str  # relative to the project
    sha256: str


@dataclass(frozen=True)
class Skipped:
    """A pipeline stage that did not run, and why."""

    stage: str
    reason: str


@dataclass(frozen=True)
class Inputs:
    """What was evaluated: the project, its files and their hashes, documents and questions."""

    project: str
    files: tuple[InputHash, ...]
    input_hash: str
    skipped: tuple[Skipped, ...]
    documents: tuple[DocumentFact, ...]
    chunks: int
    questions: tuple[QuestionFact, ...]
    chunk_facts: tuple[ChunkFact, ...]
    # the build's arguments after "python -m evidencedesk.report build" (reproduce command)
    command: tuple[str, ...] = ()
    demo: bool = False  # the shipped demo project (its own caveats: tuning on these labels)
    counts: QuestionCounts | None = None  # None: a results.json from before they were counted
    notices: tuple[Notice, ...] = ()
    # the qrels file the judgments were read from, relative to the project, and its format
    # (`qid 0 docid grade` lines, or BEIR's three columns): where the graded rows of
    # to-label.tsv go; None with labels.jsonl (every chunk graded), or in an earlier results.json
    qrels_file: str | None = None
    qrels_format: Literal["trec", "beir"] | None = None
    # a TREC qrels file whose columns are tab-separated (MS MARCO's): the rows go back so
    qrels_tabs: bool = False


@dataclass(frozen=True)
class PolicyFacts:
    """The gate policy as the report shows it (the gate page)."""

    k: int
    min_recall: float
    min_pass_rate: float
    max_drop: float
    review_on_mrr_flips: bool
    critical: tuple[str, ...]
    notes: dict[str, str]  # critical id -> why it is critical
    flips_min_net: int = 1  # the flips rule's evidence (`gate._flips_fire`); 1 and 1.0: none asked
    flips_max_p: float = 1.0


# the columns of `Results.to_dataframe()`
_FRAME_COLUMNS = ("run", "role", "metric", "mean", "low", "high", "n", "left_out", "delta",
                 "delta_low", "delta_high")  # fmt: skip


def _frame(rows: list[tuple[Any, ...]], columns: tuple[str, ...], what: str) -> Any:
    """`rows` as a pandas DataFrame of `columns`; pandas absent: the extra named."""
    from evidencedesk.errors import MissingExtraError

    try:
        import pandas
    except ImportError:
        raise MissingExtraError(what, "pandas", ("pandas",)) from None
    return pandas.DataFrame.from_records(rows, columns=list(columns))


@dataclass(frozen=True)
class Results:
    """Everything one evaluation computed (results.json): settings, inputs, variants, candidates."""

    schema_version: int
    version: str  # the evidencedesk version that computed them
    settings: Settings
    inputs: Inputs
    baseline: str  # the baseline variant's name
    variants: tuple[VariantResult, ...]
    # every ordered pair of variants on the flips metric, then the baseline against each candidate
    flips: tuple[Flip, ...]
    flips_needed: int | None  # one-way flips this label set needs for sign-test p < 0.05
    answerable: int  # questions in the comparison (a relevant chunk in scope)
    candidates: tuple[CandidateResult, ...]
    sizing: tuple[SizingRow, ...] | None
    ablations: Ablations | None
    citations: tuple[CitationRow, ...] | None
    evidence: EvidenceResult | None
    policy: PolicyFacts | None = None  # None: the project has no gate policy
    # the unjudged pairs worth labelling first (at most `TO_LABEL_CAP`), and how many there are
    to_label: tuple[ToLabel, ...] = ()
    to_label_total: int = 0
    not_run: tuple[NotRun, ...] = ()  # candidates whose optional extra is not installed
    models: tuple[ModelFacts, ...] = ()  # the real models that ran (none: toy and stand-ins only)
    # the baseline against the policy's own floors (critical, min_recall, min_pass_rate: the
    # rules that need no reference); None without a policy
    baseline_gate: GateOutcome | None = None

    def variant(self, name: str) -> VariantResult:
        return self.by_name[name]

    @cached_property
    def by_name(self) -> dict[str, VariantResult]:
        """The variants by name (``results.by_name["bm25"]``)."""
        return {v.name: v for v in self.variants}

    @cached_property
    def baseline_variant(self) -> VariantResult:
        """The baseline's variant (its lists, metrics and costs)."""
        return self.by_name[self.baseline]

    @cached_property
    def flip_of(self) -> dict[tuple[str, str, str], Flip]:
        """The flips by (a, b, family): ``results.flip_of["bm25", "dense", "variants"]``."""
        return {(f.a, f.b, f.family): f for f in self.flips}

    @cached_property
    def plan(self) -> Plan:
        """What the report shows, decided once per Results from their data (`results.plan`):
        which questions get a page and how deep, the flips grid, passes and the index's counts.
        Every page reads this one decision; none asks again."""
        return decide(self)

    def mean_rows(self) -> list[tuple[Any, ...]]:
        """One row per run and metric, in `_FRAME_COLUMNS`' order: every variant (its role
        "baseline" or "variant"), then every candidate with its paired difference from the
        baseline and that difference's 95 % interval (None for a variant)."""
        rows: list[tuple[Any, ...]] = []
        for v in self.variants:
            role = "baseline" if v.name == self.baseline else "variant"
            rows += [(v.name, role, m.metric, m.mean, m.low, m.high, m.n, m.left_out,
                      None, None, None) for m in v.metrics]  # fmt: skip
        for c in self.candidates:
            for m in c.metrics:
                d = c.comparison(m.metric)
                rows.append((c.name, "candidate", m.metric, m.mean, m.low, m.high, m.n,
                             m.left_out, d.delta, d.low, d.high))  # fmt: skip
        return rows

    def to_dataframe(self) -> Any:
        """`mean_rows` as a pandas DataFrame of `_FRAME_COLUMNS` (run, role, metric, mean, low,
        high, n, left_out, delta, delta_low, delta_high). Needs the pandas extra."""
        return _frame(self.mean_rows(), _FRAME_COLUMNS, "Results.to_dataframe()")

    def questions_to_dataframe(self) -> Any:
        """Every question's value of every reported metric in every run: a pandas DataFrame, one
        row per run, question and metric (run, question, metric, value; None where the metric is
        undefined). A candidate that is the same run as a variant is listed once, as the
        variant. Needs the pandas extra."""
        runs = [(v.name, v.lists) for v in self.variants]
        runs += [(c.name, c.lists) for c in self.candidates if c.lists_of is None]
        rows = [(name, r.question, metric, value) for name, lists in runs for r in lists
                for metric, value in r.values.items()]  # fmt: skip
        return _frame(rows, ("run", "question", "metric", "value"),
                      "Results.questions_to_dataframe()")  # fmt: skip

    def flip(self, a: str, b: str, family: str = "variants") -> Flip:
        return self.flip_of[a, b, family]


# Places in results.json: a claim's `source` path (``candidates[2].comparisons[0]``) names an
# object of the Results
_STEP = re.compile(r"([a-z_]+)((?:\[\d+\])*)")
_INDEX = re.compile(r"\[(\d+)\]")  # each index of a step


def _resolve(results: Results, source: str) -> Any:
    """The object at `source` (``candidates[2].comparisons[0]``) in `results`; `source` ""
    is the Results themselves. Raises LookupError for a path the Results do not have."""
    node: Any = results
    if not source:
        return node
    for step in source.split("."):
        match = _STEP.fullmatch(step)
        if match is None or not hasattr(node, match[1]):
            raise LookupError(f"no {step!r} in results.json at {source!r}")
        node = getattr(node, match[1])
        for index in _INDEX.findall(match[2]):
            if not isinstance(node, tuple | list) or int(index) >= len(node):
                raise LookupError(f"no [{index}] in results.json at {source!r}")
            node = node[int(index)]
    return node
