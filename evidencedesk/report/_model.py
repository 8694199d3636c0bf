"""The plain-data site model: the single contract between the statistics and the templates.

Every object is a frozen dataclass holding only str / int / float / bool / None, tuples and other
model objects. A page model references the Results row it shows and holds numbers, never their
text: the templates format them through the registered filters (`report.values.FILTERS`), so
they never compute a metric, a p-value or a rounding decision themselves. `to_dict()` gives a
JSON-ready view.
Page file names are derived from names with `slug()` (see `evidencedesk.report._site`).

Site-model sections that need the full pipeline (skipped for a runs-only project) hold the
Results rows themselves (sizing, citations, evidence) or reference them (ablations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from evidencedesk.errors import EvidencedeskError
from evidencedesk.files._text import SEED_EXPECTED, is_seed
from evidencedesk.gate import GateLevel
from evidencedesk.report._gate_view import GatePage, RuleRow
from evidencedesk.report._since_view import SinceView
from evidencedesk.report._site import slug
from evidencedesk.report._values import Plain, Stat, config_word
from evidencedesk.report._words import defined_by
from evidencedesk.results._plan import DataSize, Plan, cut_apart
from evidencedesk.results.types import (
    AblationResult,
    CitationRow,
    Comparison,
    ConfigChange,
    DocumentFact,
    EvidenceResult,
    Flip,
    JudgedShare,
    ModelFacts,
    NotRun,
    Results,
    SizingRow,
    Skipped,
    TagValue,
    ToLabel,
    VariantResult,
)


@dataclass(frozen=True)
class SizingSection(Plain):
    """The sizing page: its reranker and price list, and a row per (depth, final) setting."""

    reranker: str
    price_list: str
    rows: tuple[SizingRow, ...]
    note: str = ""


@dataclass(frozen=True)
class AblationLine(Plain):
    """One ablations row: the Results row (`row`: its metrics, MRR change, flips, p, costs) and
    its change to the base config in words."""

    row: AblationResult
    change: str  # "reranker=feature"; the base row says "base"
    is_base: bool
    values: tuple[float | None, ...]  # the row's metrics, one per AblationSection.metric_names


@dataclass(frozen=True)
class AblationSection(Plain):
    """The ablations page: the base config, the metric columns and one row per change."""

    base: str  # a description of the base config
    metric_names: tuple[str, ...]
    rows: tuple[AblationLine, ...]


@dataclass(frozen=True)
class CitationSection(Plain):
    """The citations page: the scored answers and the support check's negation limit."""

    cases: tuple[CitationRow, ...]
    limit: str  # the negation limit, stated


@dataclass(frozen=True)
class Caveat(Plain):
    """A caveat of the report (toy embedder, lexical rerankers …), in full and in a few words."""

    key: str  # "dense", "rerankers", "labels", "tuning", ...
    text: str
    words: str = ""  # the caveat in a few words, for the one-line mention on other pages


@dataclass(frozen=True)
class Definition(Plain):
    """A term of the methods page and what it means."""

    term: str
    text: str


@dataclass(frozen=True)
class InputFile(Plain):
    """An input file of the build and its sha256, as the methods page lists them."""

    path: str  # relative to the project, so builds in different checkouts match
    sha256: str


@dataclass(frozen=True)
class Meta(Plain):
    """What every page's header, footer and the methods page say about the build and its inputs."""

    title: str
    project: str
    seed: int
    version: str
    input_hash: str
    relevance: str  # "relevant = grade ≥ 2"
    baseline: str  # the baseline variant's name
    primary: str  # the primary metric's label (flips, sign test, verdict); no default
    caveats: tuple[Caveat, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    inputs: tuple[InputFile, ...] = ()
    price_list: str = ""  # "4 ms per query + 1.5 ms per scored pair" (hypothetical)
    reproduce: str = "python -m evidencedesk.report build --seed 0"
    grade_caption: str = ""  # the project's grade scale, in words
    relevance_text: str = ""  # the methods page's relevance sentence
    kind: str = "pipeline"  # "runs": no built-in searchers, rerankers or latency to caveat
    demo: bool = False
    # above this many questions intervals and randomization p come from large-sample formulas
    large_sample: int | None = None
    counts: str = ""  # the questions counted, in the one wording (report.notices)
    rules: tuple[tuple[str, str], ...] = ()  # (key, words) of the methods' fixed statements
    notices: tuple[str, ...] = ()  # what to know about the inputs before reading a number
    judged_k: int = 10  # Judged@k's k (results.settings.judged_k)
    averaging: str = "defined"  # [report] averaging
    # under trec_eval's averaging, how a judged question with no relevant judgment counts
    # ("counts 0 in the means", `words.trec_eval_counts`)
    trec_eval_counts: str = ""
    # what leaves a question's metrics undefined ("relevant document (no relevant judgment)",
    # `words.undefined_when`)
    undefined_when: str = ""
    # what the exports cannot recompute ("" or ", Judged@k … excepted: …"): a labels file grades
    # every chunk, a missing grade 0, and the qrels export lists the grades (`words`)
    exports_exception: str = ""
    recompute_from: str = ""  # the exports and files that hold every number (`words`)
    # after "an unjudged result counts as not relevant": "" or bpref's exception (`words`)
    bpref_excepted: str = ""
    # the reported metrics whose cut-off is above the variants' final lists, in a sentence
    # ("" when none is: `words.past_final`)
    past_final: str = ""
    max_depth: int | None = None  # [runs] max_depth: each run cut to its top max_depth
    # what a TREC run's top documents are checked against: "" without a TREC run (the methods
    # page's coverage entry is left out), the corpus where the project has one, else the
    # judged ids (`coverage.check_coverage`)
    coverage_against: Literal["", "corpus", "judgments"] = ""
    models: tuple[ModelFacts, ...] = ()  # the real models that ran (methods page)
    # the reported metrics' definitions, from their declarations (`metric_names.definitions`)
    metric_definitions: tuple[Definition, ...] = ()

    @property
    def defined_by(self) -> str:
        """What a question needs for its metrics to be defined (`words.defined_by`)."""
        return defined_by(self.kind)


@dataclass(frozen=True)
class Count(Plain):
    """A tag or a grade with its count: questions with the tag, label grades of that value."""

    key: str
    count: int


@dataclass(frozen=True)
class ClaimedCount(Plain):
    """A count the site claims (report.claims): `count` is the claim's words."""

    key: str
    count: str


@dataclass(frozen=True)
class Dataset(Plain):
    """What the index and documents page say of the data: documents, chunk, question, tag counts."""

    documents: tuple[DocumentFact, ...]
    chunks: int
    questions: int
    answerable: int
    tags: tuple[Count, ...]  # a two-tag question counts in both
    grades: tuple[Count, ...]  # key "0" / "1" / "2"
    # the document attributes the documents page shows: those whose values differ between
    # documents ("status", "visibility", "language"); a BEIR corpus has none
    attributes: tuple[str, ...] = ()

    @property
    def chunked(self) -> bool:
        """Whether the pages count the chunks beside the documents (`plan.cut_apart`)."""
        return cut_apart(len(self.documents), self.chunks)


@dataclass(frozen=True)
class Variant(Plain):
    """One variant (a built-in searcher or a TREC run): its Results row, its metrics under
    their labels, and what a reader must know of it."""

    row: VariantResult
    caveat: str | None
    metrics: tuple[Stat, ...]  # r@1, r@3, mrr, ndcg@5 (Stat.name is the display label)
    judged: Stat | None = None  # Judged@k with its interval
    warning: str | None = None  # a run answering too few of the judged queries

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def kind(self) -> Literal["builtin", "external"]:
        return "external" if self.row.kind == "external" else "builtin"

    @property
    def slug(self) -> str:
        return slug(self.row.name)


@dataclass(frozen=True)
class BenchmarkRow(Plain):
    """One row of the benchmark table: a variant's four metric columns and cost, its flips
    against the baseline."""

    variant: Variant
    flips: str  # "+3/−1" against the baseline (a claim), "—" on the baseline's row


@dataclass(frozen=True)
class FlipCell(Plain):
    """One cell of a flips table: the Results flips (`row`: the column variant against the row
    variant) and the cell's words; None on the diagonal."""

    row: Flip | None
    text: str  # "+4/−1", a claim; "" on the diagonal
    significant: bool = False  # Holm-adjusted p < 0.05

    @property
    def better(self) -> int:
        """Questions where the column variant beats the row variant."""
        return 0 if self.row is None else len(self.row.better)

    @property
    def worse(self) -> int:
        return 0 if self.row is None else len(self.row.worse)

    @property
    def tied(self) -> int:
        """Questions compared that neither run wins (the shade reads the net share)."""
        return 0 if self.row is None else self.row.tied


@dataclass(frozen=True)
class FlipLine(Plain):
    """One comparison as a line: `run` against `against` (a candidate, or a pair of variants)."""

    run: str
    against: str
    kind: str  # "candidate" | "variant" | "external run"
    cell: FlipCell  # run's better / worse against `against`
    tied: int = 0
    words: str = ""  # the line in words, a claim ("sparse against hybrid: +0/−3, …")


@dataclass(frozen=True)
class GridRow(Plain):
    """One question's row of the flips grid: its reciprocal-rank change under each variant."""

    question: str  # question id
    deltas: tuple[float | None, ...]  # reciprocal-rank change vs the baseline, per grid variant
    defined: bool = True  # False: no relevant judgment, so no value to change (cells "—")


@dataclass(frozen=True)
class FlipMatrix(Plain):
    """The flips page: flips between every pair of variants, and the per-question grid."""

    variants: tuple[str, ...]
    cells: tuple[tuple[FlipCell, ...], ...]  # [row][column]
    grid_variants: tuple[str, ...]
    grid: tuple[GridRow, ...]
    metric: str = "reciprocal rank"
    baseline: str = ""  # first in `variants`: the triangle's first column is the baseline
    candidates: tuple[FlipLine, ...] = ()  # each candidate against the baseline
    pairs: tuple[FlipLine, ...] = ()  # each pair of variants once (the triangle as a list)
    grid_more: int = 0  # questions left out of `grid` (above the page limit: results.pages)
    legend: str = ""  # what the grid's cells mean, a claim
    star: str = ""  # what the ★ marks, a claim (report.words.RULES)
    shades: str = ""  # what each shade means, a claim (report.words.RULES)


@dataclass(frozen=True)
class SliceCell(Plain):
    """One cell of a slices table: a variant's Results value over one tag's questions (`row`:
    its mean and 95 % bootstrap interval; None: the variant has none)."""

    row: TagValue | None
    small: bool = False  # n below SMALL_SLICE: greyed, "too few to read"

    @property
    def mean(self) -> float | None:
        return None if self.row is None else self.row.mean

    @property
    def low(self) -> float | None:
        return None if self.row is None else self.row.low

    @property
    def high(self) -> float | None:
        return None if self.row is None else self.row.high

    @property
    def n(self) -> int:
        return 0 if self.row is None else self.row.n


@dataclass(frozen=True)
class SliceRow(Plain):
    """One variant's row of a slices table: a cell per tag."""

    variant: str
    cells: tuple[SliceCell, ...]  # one per SliceTable.tags


@dataclass(frozen=True)
class SliceTable(Plain):
    """The slices page's table for one metric: every variant by tag."""

    metric: str
    tags: tuple[str, ...]
    rows: tuple[SliceRow, ...]
    # tags whose n here is below the index's count of questions with the tag: "restricted 2 of 3"
    fewer: tuple[str, ...] = ()
    small: int = 0  # values on fewer questions are greyed ("too few to read"): SMALL_SLICE


@dataclass(frozen=True)
class DiffRow(Plain):
    """One row of a candidate's config diff: the Results change (`row`) in a reader's words."""

    row: ConfigChange
    capped: str = ""  # "(final capped by depth …)" on the row that caps the final list

    @property
    def field(self) -> str:
        return self.row.field

    @property
    def baseline(self) -> str:
        return config_word(self.row.field, self.row.baseline)

    @property
    def candidate(self) -> str:
        words = config_word(self.row.field, self.row.candidate)
        return f"{words} ({self.capped})" if self.capped else words


@dataclass(frozen=True)
class NotRunPage(Plain):
    """A candidate not run on this machine (an optional extra is absent): its one line."""

    row: NotRun
    diff: tuple[DiffRow, ...]

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def reason(self) -> str:
        return self.row.reason

    @property
    def slug(self) -> str:
        return slug(self.row.name)


@dataclass(frozen=True)
class MetricPair(Plain):
    """One metric on a candidate page: the Results comparison (`row`) under the metric's label."""

    row: Comparison
    label: str
    flips_claim: str = ""  # this metric's own flips "+3/−0" (a claim: never another metric's)
    sign_p_claim: str = ""  # this metric's own sign-test p (a claim)


@dataclass(frozen=True)
class Flips(Plain):
    """A candidate's flips on the flips metric: the Results comparison (`row`), the flips this
    label set needs and the tests' p-values in words."""

    row: Comparison
    needed: int | None  # one-way flips this label set needs for p < 0.05
    # a list longer than `inline` shows its first `inline` ids and links the question list
    # filtered to the rest (`more`: the better and worse lists' links); 0: every id inline
    inline: int = 0
    more: tuple[str, str] = ("", "")
    words: FlipWords | None = None  # the p-values and flips-needed line as claims


@dataclass(frozen=True)
class FlipWords(Plain):
    """A candidate's flips section in words, each a claim (report.claims)."""

    sign_test: str  # the exact sign test's p
    randomization_test: str  # the randomization test's p
    holm_adjusted: str  # the randomization p, Holm-adjusted across the candidates: what decides
    needed: str


@dataclass(frozen=True)
class SliceCompare(Plain):
    """One tag on a candidate page: the baseline's and the candidate's Results values over the
    tag's questions (None: the run has none)."""

    tag: str
    base: TagValue | None
    cand: TagValue | None
    small: bool = False  # fewer than SMALL_SLICE questions: greyed, never highlighted

    @property
    def n(self) -> int:
        return 0 if self.base is None else self.base.n

    @property
    def before(self) -> float | None:
        return None if self.base is None else self.base.mean

    @property
    def after(self) -> float | None:
        return None if self.cand is None else self.cand.mean

    @property
    def delta(self) -> float | None:
        before, after = self.before, self.after
        return None if before is None or after is None else after - before


@dataclass(frozen=True)
class CostRow(Plain):
    """One row of a candidate's cost table: a measure for baseline and candidate, and the change."""

    measure: str  # "scored pairs / question", "tokens / question", "latency (hypothetical)"
    baseline: float | None
    candidate: float | None
    change: str  # "−40 %", "+12.0 ms", "same"
    digits: int = 1  # the decimals the two values show


@dataclass(frozen=True)
class GateLine(Plain):
    """One line of a candidate's gate section: its level and its words."""

    level: GateLevel
    text: str


@dataclass(frozen=True)
class Recommendation(Plain):
    """A candidate's written recommendation: its verdict's CSS word, headline and Markdown body."""

    category: str  # the verdict as a CSS word: blocked, worse, leans-worse, mixed, ...
    headline: str  # starts with the verdict's words
    markdown: str
    verdict: str = ""  # the one verdict (results.verdicts.VERDICTS), shown as the badge


@dataclass(frozen=True)
class JudgedView(Plain):
    """A candidate's Judged@k against the baseline's (`row`), and the caveat when it is clearly
    lower."""

    row: JudgedShare
    caveat_words: str  # "" unless the candidate's top k is clearly less judged
    words: str = ""  # "0.940 → 0.780 (Δ −0.160 [−0.21, −0.11])", a claim


@dataclass(frozen=True)
class CondensedView(Plain):
    """The primary metric on condensed lists (unjudged results removed before scoring)."""

    row: Comparison
    agrees: bool  # it moved (or did not) as on the full lists
    words: str  # what that says about the verdict


@dataclass(frozen=True)
class CandidatePage(Plain):
    """A candidate page: diff, metrics, flips, slices, cost, gate and recommendation."""

    name: str
    rationale: str
    diff: tuple[DiffRow, ...]
    metrics: tuple[MetricPair, ...]  # the first is MRR, the headline metric
    flips: Flips
    slices: tuple[SliceCompare, ...]
    cost: tuple[CostRow, ...]
    gate_level: GateLevel
    gate_lines: tuple[GateLine, ...]
    recommendation: Recommendation
    note_markdown: str | None = None
    gate_rules: tuple[RuleRow, ...] = ()  # every policy key: observed vs threshold, or why not
    gate_baseline: str | None = None  # what max_drop and the flips rule compared with
    note_heading: str = "Reviewer's note"  # "" when the note opens with its own heading
    slice_small: int = 5  # slices of fewer questions are greyed (report.benchmark.SMALL_SLICE)
    judged: JudgedView | None = None
    condensed: CondensedView | None = None  # None: every result of both runs is judged
    warnings: tuple[str, ...] = ()  # the runs it compares answer too few judged queries
    notices: tuple[str, ...] = ()  # the inputs' notices about the runs it compares
    keyfacts: tuple[str, ...] = ()  # the header's primary difference and flips, as claims
    badges: tuple[str, str] = ("", "")  # the verdict's and the gate's words, as claims
    gated: bool = True  # False: the project has no gate policy, so the gate checked nothing
    # the caveats its numbers bear (`meta.caveats` keys): the components of the baseline's and
    # its own configuration, and the demo's tuning
    caveat_keys: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return slug(self.name)

    @property
    def decision(self) -> str:
        """The candidate's one verdict, shown as its badge (`gate_level` is the gate's)."""
        return self.recommendation.verdict


@dataclass(frozen=True)
class CandidateRow(Plain):
    """One candidate's row on the index (report.assemble.bottom_line)."""

    name: str
    slug: str
    verdict: str  # the candidate's one verdict (its badge)
    gate: str  # the gate badge's words: GO, REVIEW, BLOCK, or that no policy checked it
    primary: Comparison  # the primary metric's: its paired difference, interval and n
    flips: str  # "+3/−0" on the flips metric
    cost: str  # "pairs/question +10.0 · tokens same · latency +375 % (hypothetical)"
    critical: tuple[str, ...]  # critical question ids worse under this candidate
    gated: bool = True  # False: the project has no gate policy, so `gate` was never checked


@dataclass(frozen=True)
class VerdictTile(Plain):
    """How many candidates got better, worse or neither (`tallies`: keys "better", "worse",
    "unclear"), and each verdict that occurs counted by its name (`by_verdict`); each count a
    claim (report.claims)."""

    tallies: tuple[ClaimedCount, ...]
    by_verdict: tuple[ClaimedCount, ...]  # key: the verdict's name


@dataclass(frozen=True)
class GateTile(Plain):
    """What the gate says: each gate level counted (a claim), best first; `checked` False: no
    gate policy."""

    checked: bool
    levels: tuple[ClaimedCount, ...] = ()  # key: the gate level


@dataclass(frozen=True)
class LeadTile(Plain):
    """The best lead (`results.summary.best_lead`): its primary-metric difference from the
    baseline with its interval (a claim: "Δ MRR +0.048 [+0.000, +0.119]") over `n` questions."""

    candidate: str
    slug: str
    verdict: str
    gate: str
    gated: bool
    delta: str
    n: int
    tied: str = ""  # ", tied with …": the candidates with the same bound and difference


@dataclass(frozen=True)
class DataTile(Plain):
    """What the numbers rest on (`size`: the plan's `data`)."""

    size: DataSize
    baseline: str
    judged_share: str  # the baseline's Judged@k with its interval, a claim; "": not measured


@dataclass(frozen=True)
class BottomLine(Plain):
    """The index's first screen (report.assemble.bottom_line): one line counting both answers and naming
    the best lead, four tiles, then one row per candidate."""

    headline: str  # "1 better, 2 no clear change; gate: 3 GO. Best lead: …" (claims)
    verdicts: VerdictTile
    gate: GateTile
    lead: LeadTile | None  # None: no candidate has an interval on the primary metric
    data: DataTile
    rows: tuple[CandidateRow, ...]
    metric: str  # the primary metric's label (the rows' Δ column)
    flips_metric: str  # the flips metric's label
    baseline_fails: str = ""  # the baseline fails the policy's own floors, said first (a claim)


# a badge of a chunk that the metrics treat differently (restricted, superseded)
Mark = Literal["restricted", "superseded"]


# what a restricted chunk shows when the project hides restricted text
HIDDEN_TEXT = "(restricted text not shown)"


@dataclass(frozen=True)
class GradedChunk(Plain):
    """One graded chunk of a question page: its grade, title, text and badges."""

    chunk_id: str
    grade: int
    title: str
    text: str  # HIDDEN_TEXT for a restricted chunk when the project hides restricted text
    marks: tuple[Mark, ...] = ()  # shown as badges wherever the chunk appears
    hidden: bool = False  # the text was withheld ([report].restricted_text = "hide")
    snippet: str = ""  # the start of `text` (report.questions.snippet); "" when `text` is short


@dataclass(frozen=True)
class RankedItem(Plain):
    """One result of a ranked list on a question page: its rank, chunk, grade and snippet."""

    rank: int
    chunk_id: str
    grade: int  # the grade the metrics used (0 for a chunk out of scope)
    marks: tuple[Mark, ...] = ()
    title: str = ""
    snippet: str = ""  # the start of the chunk's text; HIDDEN_TEXT when withheld; "" if unknown
    hidden: bool = False
    label_grade: int | None = None  # the label's higher grade when the metrics used a lower one
    judged: bool = True  # False: no judgment grades it (it counts as not relevant)
    text: str = ""  # the whole text (at most FULL_TEXT characters) when the snippet is its start


@dataclass(frozen=True)
class VariantList(Plain):
    """One variant's ranked list for a question: its first relevant rank and reciprocal rank."""

    variant: str
    items: tuple[RankedItem, ...]
    first_answer: int | None  # rank of the first relevant chunk
    rr: float | None
    rr_delta: float | None  # vs the baseline
    not_shown: int = 0  # results beyond the ones listed on the page
    anchor: str = ""  # the list's id on the question page ("list-<slug>")
    folded: int = 0  # items after this many are listed folded (a details element); 0: none
    words: str = ""  # "first relevant at 2 · MRR 0.500 · Δ −0.500", a claim


# how a chunk moved between the baseline's list and a candidate's
_Move = Literal["up", "down", "same", "new", "dropped"]


@dataclass(frozen=True)
class AlignedItem(Plain):
    """One chunk of a side-by-side diff: its rank in the baseline's and the candidate's list."""

    chunk: RankedItem  # rank = the candidate's rank, or the baseline's for a dropped chunk
    base_rank: int | None  # None: new in the candidate's list
    cand_rank: int | None  # None: dropped from it
    move: _Move
    by: int  # ranks moved (0 unless up or down)
    move_text: str  # "▲ up 2", "▼ down 1", "= same rank", "+ new", "− dropped"


@dataclass(frozen=True)
class QuestionMetric(Plain):
    """One metric of a question: its value in the baseline's list and in a candidate's."""

    label: str
    before: float | None  # None: undefined (no relevant judgment) or no list
    after: float | None

    @property
    def delta(self) -> float | None:
        before, after = self.before, self.after
        return None if before is None or after is None else after - before


@dataclass(frozen=True)
class SideBySide(Plain):
    """The baseline's list against one candidate's list for one question."""

    candidate: str
    anchor: str  # "vs-<slug>": the section's id on the question page
    page: str  # the candidate's page file
    changed: bool  # the candidate's list differs from the baseline's
    direction: Literal["better", "worse", ""]  # on the flips metric; "" tied
    same_run: str | None  # the variant that is the same run, if any
    rows: tuple[AlignedItem, ...]  # the candidate's list in order, then the dropped chunks
    metrics: tuple[QuestionMetric, ...]  # every reported metric on this question, both lists
    base_first: int | None  # rank of the first relevant chunk in each list
    cand_first: int | None
    not_shown: int = 0  # candidate results beyond SHOWN
    critical_worse: bool = False  # a critical question that got worse under this candidate
    # the variant whose list on the page is this candidate's run: the rows show there, once
    listed: str | None = None


@dataclass(frozen=True)
class QuestionFlip(Plain):
    """A variant under which a question got better or worse (linking its list on the page)."""

    variant: str
    direction: Literal["better", "worse"]
    anchor: str = ""  # the variant's list on the question page


@dataclass(frozen=True)
class Question(Plain):
    """A question page: the question, its graded chunks, every variant's list, each candidate."""

    id: str
    question: str
    tags: tuple[str, ...]
    answerable: bool
    graded: tuple[GradedChunk, ...]
    lists: tuple[VariantList, ...]
    flips: tuple[QuestionFlip, ...]
    # "unanswerable" (the labels say so), "no judgments" (none in the qrels), "no relevant
    # judgment", "out of scope" (its relevant chunks all superseded or restricted) or ""
    status: str = ""
    critical: str | None = None  # why the gate policy calls it critical; None: not critical
    critical_worse: tuple[str, ...] = ()  # candidates under which this critical question got worse
    candidates: tuple[SideBySide, ...] = ()  # one per candidate, in the candidates' order
    graded_folded: bool = False  # many graded chunks: their table starts folded (GRADED_OPEN)

    @property
    def name(self) -> str:
        """What its page is titled."""
        return self.id

    @property
    def slug(self) -> str:
        return slug(self.id)

    def list_of(self, variant: str | None) -> VariantList | None:
        """The page's list of `variant` (None: no such list, or no variant named)."""
        return next((v for v in self.lists if v.variant == variant), None) if variant else None

    def rows_of(self, shown: VariantList) -> tuple[SideBySide | None, tuple[_ShownRows, ...]]:
        """How the page lists `shown`: the candidate whose run it is, when that candidate's list
        differs from the baseline's (then its rows against the baseline: the ranks shown open,
        then the ranks folded and the baseline's chunks it dropped), else None and its own
        items (the ranks shown open, then the folded ones); one part when nothing is folded."""
        against = next((d for d in self.candidates if d.listed == shown.variant and d.changed),
                       None)  # fmt: skip
        folded = shown.folded
        if against is None:
            items = shown.items
            return None, ((items[:folded], items[folded:]) if folded else (items,))
        head: list[AlignedItem] = []
        tail: list[AlignedItem] = []
        for row in against.rows:
            opened = row.cand_rank and (not folded or row.cand_rank <= folded)
            (head if opened else tail).append(row)
        return against, ((tuple(head), tuple(tail)) if tail else (tuple(head),))


# the rows of one part of a list on a question page (`Question.rows_of`)
_ShownRows = tuple[RankedItem, ...] | tuple[AlignedItem, ...]


@dataclass(frozen=True)
class QuestionRow(Plain):
    """One row of the question list (kept lean: a project may have 50,000 of them)."""

    id: str
    question: str
    tags: tuple[str, ...]
    critical: bool
    better: tuple[str, ...]  # candidates better / worse on this question (flips metric)
    worse: tuple[str, ...]
    passed: bool | None  # the baseline's first relevant chunk within `QuestionList.depth`
    has_page: bool


@dataclass(frozen=True)
class QuestionList(Plain):
    """The question list (questions.html): a row per question, and the pass rule that marks them."""

    rows: tuple[QuestionRow, ...]  # every question, in the labels' order
    depth: int  # pass = the baseline has a relevant chunk (or document) in its top `depth`
    pass_rule: str  # that rule in words
    metric: str  # the label of the metric "better" and "worse" are on (the flips metric)
    static_rows: int  # rows written into the page (the rest only through JavaScript)
    # the list's columns, in order: Tags only when a question has one, Critical only when the
    # gate policy names a critical question (`LIST_COLUMNS` holds them all)
    columns: tuple[str, ...]


@dataclass(frozen=True)
class ToLabelLine(Plain):
    """One row of the to-label page: an unjudged pair (`row`) with its question's and
    document's text."""

    row: ToLabel
    text: str  # the question's text ("" when the queries file has none)
    title: str  # the document's title


@dataclass(frozen=True)
class ToLabelPage(Plain):
    """The to-label page: what data/to-label.tsv holds, its first rows, and the round trip."""

    file: str  # "data/to-label.tsv"
    k: int
    rows: tuple[ToLabelLine, ...]  # the first rows of the file
    in_file: int  # rows the file holds
    total: int  # unjudged pairs in all (the file holds at most its cap)
    # the round trip, run in the project's folder: the qrels file the project reads ("" when
    # the results do not say), its format's name, and the command that appends the graded rows
    judgments: str = ""
    judgments_format: str = ""
    append: str = ""
    report_files: tuple[str, ...] = ()  # what --compare-to reads: results.json (and its split)


@dataclass(frozen=True)
class SiteModel(Plain):
    """Everything the templates show, page by page: the one object the site is rendered from."""

    meta: Meta
    dataset: Dataset
    variants: tuple[Variant, ...]
    benchmark: tuple[BenchmarkRow, ...]
    flip_matrix: FlipMatrix
    slices: tuple[SliceTable, ...]
    candidates: tuple[CandidatePage, ...]
    questions: tuple[Question, ...]  # the questions that get a page
    # headers of the benchmark's four metric columns (BenchmarkRow.r1, r3, mrr, ndcg5)
    # the four columns of the project's kind, then the primary metric when it is not one of them
    benchmark_columns: tuple[str, ...]
    sizing: SizingSection | None = None  # None: skipped, see meta.skipped
    ablations: AblationSection | None = None
    citations: CitationSection | None = None
    evidence: EvidenceResult | None = None
    omitted_questions: int = 0  # question pages not written (beyond 500 questions)
    page_rule: str = ""  # which questions get a page when some are left out (results.pages)
    gate: GatePage | None = None  # None: no gate policy (no gate.html)
    bottom_line: BottomLine | None = None  # the index's first screen; None in test models
    since: SinceView | None = None  # changes since the report given to --compare-to
    question_list: QuestionList | None = None  # None: no questions.html (test models)
    to_label: ToLabelPage | None = None  # None: no unjudged pair in any compared top k
    # every claim of every page (report.claims): written as claims.json for `evidencedesk audit`
    claims: object | None = field(default=None, compare=False, repr=False)
    not_run: tuple[NotRunPage, ...] = ()  # candidates whose optional extra is not installed
    # the Results this model presents (written as results.json and data/); None in test models
    results: Results | None = field(default=None, compare=False, repr=False)
    # what the report shows, decided once from the Results (results.plan.decide); None in
    # test models
    plan: Plan | None = field(default=None, compare=False, repr=False)

    @property
    def documents(self) -> tuple[DocumentFact, ...]:
        """The documents page's rows (none: no documents page)."""
        return self.dataset.documents

    @property
    def sliced(self) -> bool:
        """Whether any question has a tag: the slices page's tables and the methods' entry."""
        return bool(self.slices and self.slices[0].tags)


@dataclass(frozen=True)
class SitePage:
    """One page of the site, or a page per item (a candidate, a question): what the navigation,
    the renderer (`report.render`) and the claims said on every page (`report.assemble`) read.

    `shows` is the `SiteModel` attribute the page lays out ("": the page is always written); a
    page whose attribute is None or empty is not written. With `each` (the template's name for
    the item) the attribute is a tuple and each item gets the page ``file.format(item.slug)``,
    titled by its name."""

    file: str  # "flips.html"; "candidate-{}.html" for a page per item
    template: str
    title: str = ""  # the navigation's words; "" for a page per item (titled by the item)
    shows: str = ""
    nav: bool = True  # listed in every page's navigation
    each: str = ""
    # the claim kinds every page that shows them says (report.assemble): "counts" (the
    # questions counted), "notice" (what to know about the inputs)
    says: tuple[str, ...] = ()


# every page of the site, in the order they are written and listed: a new page is its model's
# builder (report.assemble.present), its template and one line here
PAGES = (
    SitePage("index.html", "index.html", "Overview", says=("counts", "notice")),
    SitePage("benchmark.html", "benchmark.html", "Benchmark & intervals",
             says=("counts", "notice")),
    SitePage("flips.html", "flips.html", "Flips"),
    SitePage("slices.html", "slices.html", "Slices", says=("counts",)),
    SitePage("questions.html", "questions.html", "Questions", "question_list"),
    SitePage("sizing.html", "sizing.html", "Sizing", "sizing"),
    SitePage("ablations.html", "ablations.html", "Ablations", "ablations"),
    SitePage("citations.html", "citations.html", "Citations", "citations"),
    SitePage("evidence.html", "evidence.html", "Evidence", "evidence"),
    SitePage("gate.html", "gate.html", "Gate", "gate"),
    SitePage("since.html", "since.html", "Since last report", "since"),
    SitePage("methods.html", "methods.html", "Methods", says=("counts",)),
    # linked from the pages that read them, not from the navigation
    SitePage("to-label.html", "to-label.html", "What to label next", "to_label", nav=False),
    SitePage("documents.html", "documents.html", "Documents", "documents", nav=False),
    SitePage("candidate-{}.html", "candidate.html", shows="candidates", nav=False, each="c",
             says=("counts",)),
    SitePage("candidate-{}.html", "candidate_not_run.html", shows="not_run", nav=False, each="c"),
    SitePage("question-{}.html", "question.html", shows="questions", nav=False, each="q"),
)  # fmt: skip


@dataclass(frozen=True)
class BuildOptions(Plain):
    """What a build is asked for: output folder, seed, --fail-on, runs, project, --compare-to."""

    out: Path = Path("site")
    seed: int = 0
    fail_on: Literal["never", "review", "block"] = "never"
    runs: tuple[tuple[str, Path], ...] = ()
    project: Path | None = None
    compare_to: Path | None = None  # a previous build's results.json (or its site folder)
    # the evidencedesk.results._inputs.Project that `report.build.prepare` loaded from `project`, so that
    # the build reads the project once (None: the build loads it), and the line naming it
    loaded: object | None = field(default=None, compare=False, repr=False)
    named: str = field(default="", compare=False, repr=False)
    # the arguments typed after `build` that decide the site (--project as typed, --seed, each
    # --run and --compare-to as typed): the footer's reproduce command; None (the notebook API):
    # the Results' own (`Inputs.command`)
    command: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not is_seed(self.seed):
            raise EvidencedeskError(f"seed: {SEED_EXPECTED}, found {self.seed!r}")
