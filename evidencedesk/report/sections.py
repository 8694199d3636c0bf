"""Site-model sections that need the full pipeline (skipped for a runs-only project): the
page-shaped form (formatted `Num`s, `Stat`s) of `results.rows`; where a row needs no formatting
(merges, held-back pairs, tenants) the section holds the Results row itself."""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.report.values import Num, Plain, Stat
from evidencedesk.results.rows import HeldBack, Merge, TenantRow


@dataclass(frozen=True)
class SizingLine(Plain):
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
    reranker: str
    price_list: str
    rows: tuple[SizingLine, ...]
    note: str = ""


@dataclass(frozen=True)
class AblationLine(Plain):
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
    base: str  # a description of the base config
    metric_names: tuple[str, ...]
    rows: tuple[AblationLine, ...]


@dataclass(frozen=True)
class CitationCase(Plain):
    id: str
    tests: str  # what the case tests
    answer: str
    coverage: Num
    resolve: Num
    support: Num
    note: str


@dataclass(frozen=True)
class CitationSection(Plain):
    cases: tuple[CitationCase, ...]
    limit: str  # the negation limit, stated


@dataclass(frozen=True)
class CompressionLine(Plain):
    setting: str  # "spans", "budget 120 tokens", ...
    tokens_before: Num
    tokens_after: Num
    kept: int  # questions whose evidence survived
    total: int
    cut_off: tuple[str, ...]  # question ids that lost their evidence


@dataclass(frozen=True)
class StateLine(Plain):
    state: str  # freshness / deletion state ("old index, not rebuilt", ...)
    served: str  # what is served
    stale: bool  # serves text it should not
    note: str


@dataclass(frozen=True)
class EvidenceSection(Plain):
    kept: int
    merges: tuple[Merge, ...]
    held_back: tuple[HeldBack, ...]
    compression: tuple[CompressionLine, ...]
    freshness: tuple[StateLine, ...]
    deletion: tuple[StateLine, ...]
    tenants: tuple[TenantRow, ...]
    notes: tuple[str, ...] = ()
