"""The Results of either kind of project, from its evaluated parts: inputs facts, flips and the
numbers both kinds share (the evaluation stages themselves live in `evaluate` and `runs_only`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from evidencedesk import paths
from evidencedesk.gate import GatePolicy
from evidencedesk.results import compute
from evidencedesk.results.gate_stage import policy_facts
from evidencedesk.results.inputs import (
    RunPaths,
    chunk_facts,
    documents,
    input_hashes,
    questions,
)
from evidencedesk.results.project import Project
from evidencedesk.results.rows import Ablations, CitationRow, EvidenceResult, SizingRow
from evidencedesk.results.settings import Settings
from evidencedesk.results.types import (
    SCHEMA_VERSION,
    SHOWN,
    CandidateResult,
    InputHash,
    Inputs,
    ModelFacts,
    Notice,
    NotRun,
    Results,
    Skipped,
    ToLabel,
    VariantResult,
)
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.coverage import Coverage
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.stats import flips_needed
from evidencedesk.version import __version__


class Hashing:
    """The input files' sha256 (`input_hashes`), computed in a background thread from the start
    of an evaluation: hashlib releases the GIL on large blocks, so hashing gigabytes of runs
    overlaps judging them instead of following it. Inside `held()` it waits (a run's read uses
    every core; judging one uses one). `result()` waits for it and raises what hashing raised."""

    def __init__(self, project: Project, runs: RunPaths) -> None:
        self._may_run = threading.Event()
        self._may_run.set()
        self._args = (project, runs, self._may_run)
        self._value: tuple[tuple[InputHash, ...], str] | None = None
        self._error: BaseException | None = None
        # a daemon: an interrupted build does not wait for the hashing to finish
        self._thread = threading.Thread(target=self._run, name="input-hashes", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = input_hashes(*self._args)
        except BaseException as exc:  # handed to result(), in the evaluating thread
            self._error = exc

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hashing waits (after its current block) until the block ends, however it ends."""
        self._may_run.clear()
        try:
            yield
        finally:
            self._may_run.set()

    def result(self) -> tuple[tuple[InputHash, ...], str]:
        self._may_run.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None  # noqa: S101 - set whenever no error was raised
        return self._value


def _inputs(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    settings: Settings, variants: Sequence[VariantResult],
    candidates: Sequence[CandidateResult] = (), hashes: Hashing | None = None,
    to_label: Sequence[ToLabel] = (),
) -> Inputs:  # fmt: skip
    files, digest = hashes.result() if hashes is not None else input_hashes(project, runs)
    allowed = catalog.allowed(Scope()) if catalog is not None else None
    ids: set[str] = set()
    if catalog is not None:  # the chunks the site names (a runs-only project has no catalog)
        ids = {c for lb in labels for c, g in lb.grades.items() if g > 0}
        ids |= {c for v in variants for r in v.lists for c in r.ids[:SHOWN]}
        ids |= {c for cand in candidates for r in cand.lists for c in r.ids[:SHOWN]}
        ids |= {row.document for row in to_label}  # to-label.tsv gives their title and text
    return Inputs(
        project=project.name,
        files=files,
        input_hash=digest,
        skipped=tuple(Skipped(s, r) for s, r in project.skipped_stages()),
        documents=documents(catalog),
        chunks=len(catalog) if catalog is not None else 0,
        questions=questions(labels, allowed),
        chunk_facts=chunk_facts(catalog, ids, settings.restricted_text == "hide"),
        command=_command(project, runs, settings.seed),
        demo=_is_demo(project),
        counts=project.question_counts(),
        notices=notices(
            project,
            runs,
            catalog,
            settings,
            {v.name: v.coverage for v in variants if v.coverage is not None},
        ),
    )


def notices(
    project: Project, runs: RunPaths, catalog: Catalog | None, settings: Settings,
    coverage: Mapping[str, Coverage],
) -> tuple[Notice, ...]:  # fmt: skip
    """What a reader must know about the inputs before reading a number (`types.Notice`);
    `coverage`: each external run's, by name."""
    found = [Notice("not_a_run", project.relative(p), None, 1, None, ())
             for p in project.skipped_files]  # fmt: skip
    if catalog is not None and catalog.empty:
        ids = tuple(doc for doc, _ in catalog.empty[:3])
        found.append(Notice("empty_document", project.relative(project.documents[0]),
                            catalog.empty[0][1], len(catalog.empty), len(catalog), ids))  # fmt: skip
    counts = project.question_counts()
    if counts.without_text and project.qrels is not None:
        found.append(Notice("without_text", project.relative(project.qrels), None,
                            counts.without_text, counts.judged, counts.without_text_ids))  # fmt: skip
    if counts.unjudged and project.queries is not None:
        found.append(Notice("unjudged", project.relative(project.queries), None, counts.unjudged,
                            counts.queries, counts.unjudged_ids))  # fmt: skip
    where = {name: project.relative(path) for name, path in project.runs}
    where.update((name, f"--run {name}") for name, _ in runs)
    for name, covered in coverage.items():
        if covered.partial(settings.min_coverage):
            found.append(Notice("partial_coverage", where[name], None, covered.answered,
                                covered.judged_queries, (name,)))  # fmt: skip
    return tuple(found)


def _is_demo(project: Project) -> bool:
    return Path(project.path).resolve() == (paths.DATA / "evidencedesk.toml").resolve()


def _command(project: Project, runs: RunPaths, seed: int) -> tuple[str, ...]:
    """The same build's arguments: --project (the project folder, as run from its parent; none
    for the demo), --seed, and each --run by its file name (machine paths stay out of the site)."""
    args: list[str] = []
    if not _is_demo(project):
        args += ["--project", Path(project.path).parent.name]
    args += ["--seed", str(seed)]
    for name, path in runs:
        args += ["--run", f"{name}={Path(path).name}"]
    return tuple(args)


def _answerable_count(judged: Sequence[Judged]) -> int:
    return sum(1 for j in judged if j.n_relevant > 0)


def results_of(
    project: Project, runs: RunPaths, catalog: Catalog | None, labels: Sequence[Label],
    settings: Settings, variants: Sequence[VariantResult], baseline: str,
    base_judged: Sequence[Judged], candidates: Sequence[CandidateResult],
    policy: GatePolicy | None, sizing: tuple[SizingRow, ...] | None = None,
    ablations: Ablations | None = None, citations: tuple[CitationRow, ...] | None = None,
    evidence: EvidenceResult | None = None, hashes: Hashing | None = None,
    to_label: tuple[tuple[ToLabel, ...], int] = ((), 0),
    not_run: Sequence[NotRun] = (), models: Sequence[ModelFacts] = (),
) -> Results:  # fmt: skip
    """The Results of either kind of project (the pipeline's sections are None for runs-only);
    `hashes`: the input hashes started earlier (else they are computed here); `to_label`: the
    pairs to label next and how many there are (`judgments.to_label`)."""
    answerable = _answerable_count(base_judged)
    return Results(
        schema_version=SCHEMA_VERSION,
        version=__version__,
        settings=settings,
        inputs=_inputs(
            project, runs, catalog, labels, settings, variants, candidates, hashes, to_label[0]
        ),  # fmt: skip
        baseline=baseline,
        variants=tuple(variants),
        flips=compute.flips(variants, settings.flips_metric, baseline, candidates),
        flips_needed=flips_needed(answerable),
        answerable=answerable,
        candidates=tuple(candidates),
        sizing=sizing,
        ablations=ablations,
        citations=citations,
        evidence=evidence,
        policy=policy_facts(policy),
        to_label=to_label[0],
        to_label_total=to_label[1],
        not_run=tuple(not_run),
        models=tuple(models),
    )
