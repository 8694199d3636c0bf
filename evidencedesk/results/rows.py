"""Rows of the pipeline-only sections of the Results: sizing, ablations, citations, evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
