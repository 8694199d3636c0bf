"""`Settings`: every choice an evaluation depends on, built once from the project and the options.

The seed is the CLI's ``--seed``, else ``[project].seed``, else 0 (the report CLI resolves that
into `BuildOptions.seed`); the relevance threshold is the project's; the reported metrics and the
experiment design depend on the project's kind (a pipeline we can run, or runs only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from evidencedesk.metric_names import split_metric
from evidencedesk.project_schema import DEFAULT_METRICS
from evidencedesk.retrieval.evalreport import Config

JUDGED_K = 10  # the top k Judged@k reads of a run when the primary metric has no cut-off (MRR)

Kind = Literal["pipeline", "runs"]


@dataclass(frozen=True)
class Metric:
    """A reported metric: its `metrics.summarize` name and its display label."""

    name: str  # "mrr", "recall@3", "ndcg@10:linear"
    label: str  # "MRR", "r@3", "nDCG@10 (linear gain)"

    @property
    def gain(self) -> str | None:
        """The nDCG gain variant ("exp" unless the name says ":linear"); None for other metrics."""
        if not self.name.startswith("ndcg@"):
            return None
        return self.name.partition(":")[2] or "exp"


@dataclass(frozen=True)
class Design:
    """The pipeline's experiment design: baseline, hypothetical prices, sizing grid, ablations."""

    baseline: dict[str, Any]  # Config fields of the baseline (Config())
    stage_one_ms: float
    per_pair_ms: float
    sizing_reranker: str
    sizing_depths: tuple[int, ...]
    sizing_finals: tuple[int, ...]
    ablation_base: dict[str, Any]  # Config fields of the ablation base
    ablation_changes: tuple[dict[str, Any], ...]


PIPELINE_COLUMNS = (
    Metric("recall@1", "r@1"),
    Metric("recall@3", "r@3"),
    Metric("mrr", "MRR"),
    Metric("ndcg@5", "nDCG@5 (exp gain)"),
)
RUNS_COLUMNS = (
    Metric("recall@10", "R@10"),
    Metric("precision@10", "P@10"),
    Metric("mrr", "MRR"),
    Metric("ndcg@10:linear", "nDCG@10 (linear gain)"),
)
# candidate comparisons, the first is the headline metric (flips, sign test, Holm)
# every nDCG label names its gain: exponential (2^grade - 1) and linear (trec_eval) differ
COMPARED = (
    Metric("mrr", "MRR"),
    Metric("recall@3", "recall@3"),
    Metric("ndcg@5", "nDCG@5 (exp gain)"),
)
LABELS = {m.name: m.label for m in (*COMPARED, *RUNS_COLUMNS)}


def label(name: str) -> str:
    """A metric's display label: "mrr" -> "MRR", "precision@10" -> "P@10", "ndcg@10:linear" ->
    "nDCG@10 (linear gain)" (every nDCG names its gain)."""
    if name in LABELS:
        return LABELS[name]
    kind, _, rest = name.partition("@")
    short = {"recall": "R", "precision": "P", "hit": "hit", "ndcg": "nDCG"}.get(kind, kind)
    cut, _, gain = rest.partition(":")
    if kind == "ndcg":
        return f"nDCG@{cut} ({gain or 'exp'} gain)"
    return f"{short}@{cut}"


def reported(names: tuple[str, ...], primary: str | None) -> tuple[Metric, ...]:
    """The compared metrics, the primary first."""
    first = primary or names[0]
    return tuple(Metric(n, label(n)) for n in (first, *[n for n in names if n != first]))


ABLATION_METRICS = PIPELINE_COLUMNS
PIPELINE_DESIGN = Design(
    baseline={},
    stage_one_ms=4.0,
    per_pair_ms=1.5,
    sizing_reranker="feature",
    sizing_depths=(3, 5, 10, 20),
    sizing_finals=(1, 3, 5),
    ablation_base={"reranker": "feature"},
    ablation_changes=(
        {"reranker": "none"},
        {"first_stage": "sparse"},
        {"first_stage": "dense"},
        {"depth": 3},
        {"depth": 20},
        {"final": 1},
        {"final": 5},
        {"max_words": 8},
        {"prefilter": False},
    ),
)


@dataclass(frozen=True)
class Settings:
    """The evaluation's settings; the same settings and inputs give the same Results."""

    seed: int
    relevance: int  # relevant = grade >= relevance
    kind: Kind
    columns: tuple[Metric, ...]  # the benchmark's four columns
    compared: tuple[Metric, ...]  # candidate vs baseline, the first is the headline metric
    flips_metric: str  # the per-question flips (matrix, sign test, Holm): "mrr"
    design: Design | None  # None for runs-only projects
    restricted_text: Literal["show", "hide"] = "show"
    # where the questions come from: a labels file (it says which are unanswerable) or qrels
    questions_from: Literal["labels", "qrels"] = "labels"
    # Judged@k and the run coverage read each list's top `judged_k` (the primary metric's
    # cut-off, else 10); a run answering fewer than `min_coverage` of the judged queries is
    # warned about
    judged_k: int = 10
    min_coverage: float = 0.9
    # "defined": a question with no relevant judgment is left out of the means; "trec_eval":
    # it counts 0 ([report] averaging)
    averaging: Literal["defined", "trec_eval"] = "defined"
    max_depth: int | None = None  # [runs] max_depth: results per query evaluated (trec_eval -M)
    # [questions] grades: what each grade means, highest first (empty: neutral "grade 2" words)
    grade_names: tuple[tuple[int, str], ...] = ()
    # [searchers] dense: the embedder of the dense searcher (and so of the hybrid)
    dense: Literal["toy", "minilm"] = "toy"

    @property
    def slices(self) -> tuple[Metric, ...]:
        """Slice tables: MRR and the second benchmark column."""
        return (Metric("mrr", "MRR"), self.columns[1])

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """Every reported metric, once, in first-use order (columns, comparisons, slices)."""
        seen: dict[str, Metric] = {}
        for m in (*self.columns, *self.compared, *self.slices):
            seen.setdefault(m.name, m)
        return tuple(seen.values())

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)


def settings_for(project: Any, seed: int) -> Settings:
    """Settings of `project` (an `evidencedesk.project.Project`) with the resolved `seed`."""
    runs_only = project.kind == "runs" or project.documents_format == "none"
    names = (
        getattr(project, "report_metrics", None)
        or DEFAULT_METRICS["runs" if runs_only else "pipeline"]
    )
    compared = reported(tuple(names), getattr(project, "primary", None))
    return Settings(
        seed=seed,
        relevance=project.relevance,
        kind="runs" if runs_only else "pipeline",
        columns=RUNS_COLUMNS if runs_only else PIPELINE_COLUMNS,
        compared=compared,
        flips_metric=compared[0].name,
        design=None if runs_only else PIPELINE_DESIGN,
        restricted_text=project.restricted_text,
        questions_from="labels" if project.labels is not None else "qrels",
        # without a cut-off, a pipeline's final list (Config().final, 3), a run's top 10
        judged_k=split_metric(compared[0].name)[1] or (JUDGED_K if runs_only else Config().final),
        min_coverage=project.min_coverage,
        averaging=project.averaging,
        max_depth=project.max_depth,
        grade_names=tuple(getattr(project, "grade_names", ())),
        dense=getattr(project, "dense", "toy"),
    )
