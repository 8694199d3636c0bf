"""The Results of either kind of project, from its evaluated parts: inputs facts, flips and the
numbers both kinds share (the evaluation stages themselves live in `evaluate` and `runs_only`)."""

from __future__ import annotations

import bisect
import difflib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from evidencedesk import paths
from evidencedesk.gate import GatePolicy
from evidencedesk.results.compute import flips
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
    # a pipeline's metrics read the judgments in scope; a runs-only project's read them all
    pipeline = project.kind == "pipeline"
    allowed = catalog.allowed(Scope()) if catalog is not None and pipeline else None
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
        notices=notices(project, catalog, labels),
    )


def _nearest(doc: str, ordered: Sequence[str]) -> str:
    """The id of `ordered` (sorted) nearest to `doc`: of its sorted neighbours, the most alike
    (on a tie, the nearer in sort order, the one before first)."""
    at = bisect.bisect_left(ordered, doc)
    near = [ordered[i] for i in (at - 1, at, at - 2, at + 1) if 0 <= i < len(ordered)]
    return max(near, key=lambda c: difflib.SequenceMatcher(None, doc, c).ratio())


def _not_in_corpus(
    project: Project, catalog: Catalog | None, labels: Sequence[Label]
) -> list[Notice]:
    """Judged documents a runs-only project's corpus does not hold: their judgments count in
    every metric (a run may return them), but no question page can show them."""
    if catalog is None or project.kind != "runs" or project.qrels is None:
        return []
    judged = sorted({d for lb in labels for d in lb.grades})
    missing = [d for d in judged if d not in catalog]
    if not missing:
        return []
    ordered = sorted(catalog.ids())
    names = tuple(f"{d} (nearest: {_nearest(d, ordered)})" for d in missing[:3])
    return [Notice("judged_not_in_corpus", project.relative(project.qrels), None, len(missing),
                   len(judged), names)]  # fmt: skip


def notices(
    project: Project, catalog: Catalog | None, labels: Sequence[Label]
) -> tuple[Notice, ...]:
    """What a reader must know about the inputs before reading a number (`types.Notice`)."""
    found = [Notice("not_a_run", project.relative(p), None, 1, None, ())
             for p in project.skipped_files]  # fmt: skip
    if catalog is not None and catalog.empty:
        ids = tuple(doc for doc, _ in catalog.empty[:3])
        found.append(Notice("empty_document", project.relative(project.documents[0]),
                            catalog.empty[0][1], len(catalog.empty), len(catalog), ids))  # fmt: skip
    counts = project.question_counts()
    if counts.without_text and project.queries is not None and project.evaluate_unlisted:
        found.append(Notice("without_text", project.relative(project.qrels or project.queries), None,
                            counts.without_text, counts.judged, counts.without_text_ids))  # fmt: skip
    elif counts.without_text and project.queries is not None:
        found.append(Notice("unlisted", project.relative(project.queries), None,
                            counts.without_text, None, counts.without_text_ids))  # fmt: skip
    if counts.unjudged and project.queries is not None:
        found.append(Notice("unjudged", project.relative(project.queries), None, counts.unjudged,
                            counts.queries, counts.unjudged_ids))  # fmt: skip
    found += _not_in_corpus(project, catalog, labels)
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
        flips=flips(variants, settings.flips_metric, baseline, candidates),
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
