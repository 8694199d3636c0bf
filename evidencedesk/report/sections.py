"""Site-model sections that need the full pipeline (skipped for a runs-only project): the
page-shaped form (formatted `Num`s, `Stat`s) of `results.rows`; where a row needs no formatting
(merges, held-back pairs, tenants) the section holds the Results row itself."""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.report.values import Num, Plain, Stat
from evidencedesk.results.rows import HeldBack, Merge, TenantRow


@dataclass(frozen=True)
class SizingLine(Plain):
    """One sizing row: a (depth, final) setting's recall, MRR, cost, and whether within noise."""

    depth: int
    final: int
    recall: Num  # recall at `final`
    mrr: Stat
    pairs: Num
    tokens: Num
    latency: Num  # hypothetical milliseconds from the price list
    within_noise: bool  # MRR inside the noise of the best setting
    smallest_in_noise: bool  # the cheapest such setting (marked on the page)
    best: bool


@dataclass(frozen=True)
class SizingSection(Plain):
    """The sizing page: its reranker and price list, and a row per (depth, final) setting."""

    reranker: str
    price_list: str
    rows: tuple[SizingLine, ...]
    note: str = ""


@dataclass(frozen=True)
class AblationLine(Plain):
    """One ablations row: a change to the base config, its metrics, MRR change, flips and p."""

    change: str  # "reranker=feature"; the base row says "base"
    is_base: bool
    metrics: tuple[Num, ...]  # one per AblationSection.metric_names
    mrr_delta: Num
    better: tuple[str, ...]
    worse: tuple[str, ...]
    p: Num
    pairs: Num
    delta: Stat | None = None  # mrr_delta with its paired 95 % interval (None on the base row)


@dataclass(frozen=True)
class AblationSection(Plain):
    """The ablations page: the base config, the metric columns and one row per change."""

    base: str  # a description of the base config
    metric_names: tuple[str, ...]
    rows: tuple[AblationLine, ...]


@dataclass(frozen=True)
class CitationCase(Plain):
    """One answer on the citations page: what it tests, its coverage, resolve and support."""

    id: str
    tests: str  # what the case tests
    answer: str
    coverage: Num
    resolve: Num
    support: Num
    note: str


@dataclass(frozen=True)
class CitationSection(Plain):
    """The citations page: the scored answers and the support check's negation limit."""

    cases: tuple[CitationCase, ...]
    limit: str  # the negation limit, stated


@dataclass(frozen=True)
class CompressionLine(Plain):
    """One compression setting: tokens before and after, questions that lost their evidence."""

    setting: str  # "spans", "budget 120 tokens", ...
    tokens_before: Num
    tokens_after: Num
    kept: int  # questions whose evidence survived
    total: int
    cut_off: tuple[str, ...]  # question ids that lost their evidence


@dataclass(frozen=True)
class StateLine(Plain):
    """One row of the freshness or deletion table: an index state and what it serves."""

    state: str  # freshness / deletion state ("old index, not rebuilt", ...)
    served: str  # what is served
    stale: bool  # serves text it should not
    note: str


@dataclass(frozen=True)
class EvidenceSection(Plain):
    """The evidence page: dedupe, compression, freshness, deletion and tenant isolation."""

    kept: int
    merges: tuple[Merge, ...]
    held_back: tuple[HeldBack, ...]
    compression: tuple[CompressionLine, ...]
    freshness: tuple[StateLine, ...]
    deletion: tuple[StateLine, ...]
    tenants: tuple[TenantRow, ...]
    notes: tuple[str, ...] = ()
