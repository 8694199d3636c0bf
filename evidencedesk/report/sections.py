"""Site-model sections that need the full pipeline (skipped for a runs-only project)."""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.report.values import Num, Plain, Stat


@dataclass(frozen=True)
class SizingRow(Plain):
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
class Sizing(Plain):
    reranker: str
    price_list: str
    rows: tuple[SizingRow, ...]
    note: str = ""


@dataclass(frozen=True)
class AblationRow(Plain):
    change: str  # "reranker=feature"; the base row says "base"
    is_base: bool
    metrics: tuple[Num, ...]  # one per Ablations.metric_names
    mrr_delta: Num
    better: tuple[str, ...]
    worse: tuple[str, ...]
    p: Num
    pairs: Num
    delta: Stat | None = None  # mrr_delta with its paired 95 % interval (None on the base row)


@dataclass(frozen=True)
class Ablations(Plain):
    base: str  # a description of the base config
    metric_names: tuple[str, ...]
    rows: tuple[AblationRow, ...]


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
class Citations(Plain):
    cases: tuple[CitationCase, ...]
    limit: str  # the negation limit, stated


@dataclass(frozen=True)
class Merge(Plain):
    kept: str
    merged: tuple[str, ...]


@dataclass(frozen=True)
class HeldBack(Plain):
    first: str
    second: str
    reason: str


@dataclass(frozen=True)
class CompressionRow(Plain):
    setting: str  # "spans", "budget 120 tokens", ...
    tokens_before: Num
    tokens_after: Num
    kept: int  # questions whose evidence survived
    total: int
    cut_off: tuple[str, ...]  # question ids that lost their evidence


@dataclass(frozen=True)
class StateRow(Plain):
    state: str  # freshness / deletion state ("old index, not rebuilt", ...)
    served: str  # what is served
    stale: bool  # serves text it should not
    note: str


@dataclass(frozen=True)
class TenantRow(Plain):
    tenant: str
    filtered: bool  # False for the control row
    questions: int
    leaks: int
    leaked: tuple[str, ...]  # chunk ids


@dataclass(frozen=True)
class Evidence(Plain):
    kept: int
    merges: tuple[Merge, ...]
    held_back: tuple[HeldBack, ...]
    compression: tuple[CompressionRow, ...]
    freshness: tuple[StateRow, ...]
    deletion: tuple[StateRow, ...]
    tenants: tuple[TenantRow, ...]
    notes: tuple[str, ...] = ()
