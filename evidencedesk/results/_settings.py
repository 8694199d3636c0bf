"""`Settings`: every choice an evaluation depends on, built once from the project and the options.

The seed is the CLI's ``--seed``, else ``[project].seed``, else 0 (the report CLI resolves that
into `BuildOptions.seed`); the relevance threshold is the project's; the reported metrics and the
experiment design depend on the project's kind (a pipeline we can run, or runs only).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from evidencedesk._metric_names import Metric, definitions, split_metric
from evidencedesk.files._project_file import DEFAULT_METRICS, ProjectKind
from evidencedesk.retrieval.evalreport import Config, _sizing_grid

# the top k Judged@k reads of a run when the primary metric has no cut-off (MRR, MAP, R-prec,
# nDCG over the whole list, bpref); a pipeline's final list instead (Config().final)
_JUDGED_K = 10

# the kind of project: built-in searchers over documents, or TREC runs only


_SHOWN = 20  # ranked results a question page lists per variant (all that a long run keeps)


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

    @property
    def skipped_cells(self) -> tuple[tuple[int, int], ...]:
        """The sizing grid's (depth, final) cells the sweep does not run: depth < final, each
        the same run as its depth x depth cell."""
        return tuple(_sizing_grid(self.sizing_depths, self.sizing_finals)[1])


# the benchmark table's four metric columns in a pipeline project
_PIPELINE_COLUMNS = tuple(map(Metric.of, ("recall@1", "recall@3", "mrr", "ndcg@5")))
# the benchmark table's four metric columns in a runs-only project
_RUNS_COLUMNS = tuple(map(Metric.of, ("recall@10", "precision@10", "mrr", "ndcg@10:linear")))
# candidate comparisons, the first is the headline metric (flips, sign test, Holm)
_COMPARED = tuple(map(Metric.of, ("mrr", "recall@3", "ndcg@5")))


def _columns(default: tuple[Metric, ...], compared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The benchmark's columns: the four of the project's kind, then each reported metric that
    is not one of them (MAP, R@100, MRR@10, ...), the primary first: every variant's mean and
    interval of each metric the project asked for, and of the one the verdicts are decided on,
    is then charted and tabled."""
    return (*default, *(m for m in compared if m not in default))


def reported(names: tuple[str, ...], primary: str | None) -> tuple[Metric, ...]:
    """The compared metrics (any declared names, kept canonical), the primary first."""
    metrics = [Metric.of(n) for n in names]
    first = Metric.of(primary) if primary else metrics[0]
    return (first, *[m for m in metrics if m.name != first.name])


# the pipeline project's design: the hypothetical prices, the sizing grid and the ablations
_PIPELINE_DESIGN = Design(
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
    kind: ProjectKind
    columns: tuple[Metric, ...]  # the benchmark table: its kind's four, then the other reported
    compared: tuple[Metric, ...]  # candidate vs baseline, the first is the headline metric
    flips_metric: str  # the per-question flips (matrix, sign test, Holm): "mrr"
    design: Design | None  # None for runs-only projects
    restricted_text: Literal["show", "hide"] = "show"
    # where the questions come from: a labels file (it says which are unanswerable) or qrels
    questions_from: Literal["labels", "qrels"] = "labels"
    # Judged@k and the run coverage read each list's top `judged_k` (the primary metric's
    # cut-off, else 10); a run answering fewer than `min_coverage` of the judged queries is
    # refused, one answering fewer than all of them warned about
    judged_k: int = 10
    min_coverage: float = 0.9
    # "defined": a question with no relevant judgment is left out of the means; "trec_eval":
    # it is averaged in as trec_eval scores it, 0 but nDCG's ([report] averaging)
    averaging: Literal["defined", "trec_eval"] = "defined"
    max_depth: int | None = None  # [runs] max_depth: results per query evaluated (trec_eval -M)
    # [questions] grades: what each grade means, highest first (empty: neutral "grade 2" words)
    grade_names: tuple[tuple[int, str], ...] = ()
    # [searchers] dense: the embedder of the dense searcher (and so of the hybrid)
    dense: Literal["toy", "minilm"] = "toy"

    @cached_property  # (asked for every claim that names a metric: thousands a large build)
    def slices(self) -> tuple[Metric, ...]:
        """Slice tables: the primary metric first (a candidate's slices are its first), then MRR
        and the second benchmark column, each once."""
        seen: dict[str, Metric] = {}
        for m in (self.compared[0], Metric.of("mrr"), self.columns[1]):
            seen.setdefault(m.name, m)
        return tuple(seen.values())

    @cached_property
    def past_final(self) -> tuple[Metric, ...]:
        """The reported metrics whose cut-off is above the final lists a pipeline's variants
        return (`Config().final` results; a candidate may change its own): on those lists they
        read every result and no further. Empty for a runs-only project."""
        if self.kind != "pipeline":
            return ()
        final = Config().final
        return tuple(m for m in self.compared if (split_metric(m.name)[1] or 0) > final)

    @cached_property
    def metrics(self) -> tuple[Metric, ...]:
        """Every reported metric, once, in first-use order (columns, comparisons, slices)."""
        seen: dict[str, Metric] = {}
        for m in (*self.columns, *self.compared, *self.slices):
            seen.setdefault(m.name, m)
        return tuple(seen.values())

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    @property
    def flips(self) -> Metric:
        """The flips metric, declared: its labels (per question, MRR's is the reciprocal rank)."""
        return Metric.of(self.flips_metric)

    @property
    def definitions(self) -> tuple[tuple[str, str], ...]:
        """(term, text) of every reported metric, for the methods page (`definitions`)."""
        return definitions(m.name for m in self.metrics)


def settings_for(project: Any, seed: int) -> Settings:
    """Settings of `project` (an `evidencedesk.results._inputs.Project`) with the resolved `seed`."""
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
        columns=_columns(_RUNS_COLUMNS if runs_only else _PIPELINE_COLUMNS, compared),
        compared=compared,
        flips_metric=compared[0].name,
        design=None if runs_only else _PIPELINE_DESIGN,
        restricted_text=project.restricted_text,
        questions_from="labels" if project.labels is not None else "qrels",
        # a primary without a cut-off (mrr, map, rprec, ndcg, bpref): a pipeline's final list
        # (Config().final, 3), a run's top 10
        judged_k=split_metric(compared[0].name)[1] or (_JUDGED_K if runs_only else Config().final),
        min_coverage=project.min_coverage,
        averaging=project.averaging,
        max_depth=project.max_depth,
        grade_names=tuple(getattr(project, "grade_names", ())),
        dense=getattr(project, "dense", "toy"),
    )
