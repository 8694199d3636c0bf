"""Inputs of an evaluation: external TREC runs (named, checked, read), input hashes and the facts
about documents, questions and chunks that the Results carry for the pages."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidencedesk.errors import ConfigError
from evidencedesk.files.project_schema import MAX_RUNS
from evidencedesk.files.text import read_text
from evidencedesk.files.trec import TrecRun, read_run
from evidencedesk.metric_names import split_metric
from evidencedesk.results.project import Project
from evidencedesk.results.types import SHOWN, ChunkFact, DocumentFact, InputHash, QuestionFact
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.coverage import Coverage
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metric_engine import JudgedLists
from evidencedesk.retrieval.metrics import Judged

RunPaths = Sequence[tuple[str, Path]]  # ("--run NAME=PATH" options)


def run_note(path: Path) -> str | None:
    """The first paragraph of ``<run>.md`` beside a run file: how the run was made."""
    note = path.with_suffix(".md")
    if not note.is_file():
        return None
    text = read_text(note, ConfigError, "Markdown note about the run")
    return " ".join(text.strip().split("\n\n", 1)[0].split()) or None


def _check_run_name(name: str, path: Path, builtin: Sequence[str], used: Collection[str],
                   source: str = "") -> None:  # fmt: skip
    """Refuse a run named like a built-in variant or like an earlier run (`source`: "--run x: ").

    A run called ``hybrid`` would give the site two ``hybrid`` rows and two equal HTML ids.
    """
    if name in builtin:
        raise ConfigError(
            path,
            f"{source}expected a run name other than the built-in variants "
            f"({', '.join(builtin)}), found {name!r}",
        )
    if name in used:
        raise ConfigError(path, f"{source}expected a new variant name, found {name!r} already used")


def baseline_run(project: Project, runs: RunPaths = ()) -> str:
    """A runs-only project's baseline run: ``[runs].baseline``, else the first run (the
    project's, then the ``--run`` ones); every other run is a candidate compared with it."""
    return project.baseline_run or [*project.runs, *runs][0][0]


def check_run_names(project: Project, runs: RunPaths, builtin: Sequence[str] = ()) -> None:
    """The project's runs, then the ``--run`` ones, through the one `_check_run_name`."""
    total = len(project.runs) + len(runs)
    if total > MAX_RUNS:
        raise ConfigError(
            project.path,
            f"expected at most {MAX_RUNS} runs (the project's and --run together), found {total}",
        )
    used: set[str] = set()
    for name, path in project.runs:
        _check_run_name(name, path, builtin, used)
        used.add(name)
    for name, path in runs:
        _check_run_name(name, path, builtin, used, f"--run {name}: ")
        used.add(name)


def external_runs(
    project: Project, runs: RunPaths, builtin: Sequence[str] = ()
) -> dict[str, TrecRun]:
    """The project's runs plus ``--run NAME=PATH`` ones; every name checked before any is read."""
    check_run_names(project, runs, builtin)
    found = project.load_runs()
    found.update((name, read_run(path)) for name, path in runs)
    return found


@dataclass(frozen=True)
class JudgedRun:
    """An external run once read and judged: its tag, its judged lists, the same lists
    condensed (None when not asked for), and its ids' coverage of the judgments."""

    tag: str
    judged: Sequence[Judged]
    condensed: Sequence[Judged] | None
    coverage: Coverage


def _frozen(judged: Sequence[Judged], now: bool = True) -> Sequence[Judged]:
    """`judged` as a tuple; the judge's own lists (`metric_engine.JudgedLists`, frozen, with
    the arrays the metrics read) built `now`, so that the run they come from can be let go
    (condensed lists come from the judged lines alone: made only if a comparison reads them)."""
    if isinstance(judged, JudgedLists):
        return judged.built() if now else judged
    return judged if isinstance(judged, tuple) else tuple(judged)


def judged_external_runs(
    project: Project,
    runs: RunPaths,
    judge: Callable[[TrecRun], tuple[Sequence[Judged], Sequence[Judged] | None]],
    check: Callable[[TrecRun, Path], Coverage],
    reading: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> dict[str, JudgedRun]:
    """name -> `JudgedRun` of the project's and the ``--run`` runs, each read, checked
    (`check`: its coverage, or the error refusing it, before it is judged), judged and let go
    before the next is read: a run of 50 million lines takes ~2 GB as arrays, its judged lists
    (cut to `judged_depth`) a small part of that. Each read runs inside `reading()` (the build
    holds its input hashing off meanwhile: the read uses every core)."""
    check_run_names(project, runs)
    out: dict[str, JudgedRun] = {}
    for name, path in [*project.runs, *runs]:
        with reading():
            trec = read_run(path)
        found = check(trec, path)
        judged, condensed = judge(trec)
        # kept as they come: the judge's lists carry the arrays the metrics read
        out[name] = JudgedRun(trec.tag, _frozen(judged),
                              None if condensed is None else _frozen(condensed, now=False),
                              found)  # fmt: skip
        del trec
    return out


def judged_depth(metrics: Iterable[str], *cutoffs: int) -> int:
    """How much of each external run's list is kept once judged: the largest cut-off of the
    reported metrics and of `cutoffs` (the gate's k), and at least the `SHOWN` results a question
    page lists. `judge_trec_run(depth=...)` also keeps each list down to its first relevant
    result, so every reported value is the whole list's."""
    ks = [k for _, k, _ in map(split_metric, metrics) if k is not None]
    return max([SHOWN, *ks, *cutoffs])


_HASH_BLOCK = 4 << 20  # bytes hashed between two looks at `may_run`


def _sha256(path: Path, may_run: threading.Event | None = None) -> str:
    """The file's sha256, read block by block (a 2 GB run is not held in memory to hash it);
    before each block, waits while `may_run` is clear."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        # a buffer no larger than the file: zeroing 4 MB for each of 100,000 small documents
        # cost more than reading them
        size = os.fstat(handle.fileno()).st_size
        block = bytearray(max(1, min(_HASH_BLOCK, size + 1)))
        view = memoryview(block)
        while True:
            if may_run is not None:
                may_run.wait()
            got = handle.readinto(block)
            if not got:
                return digest.hexdigest()
            digest.update(view[:got])


def input_hashes(
    project: Project, runs: RunPaths, may_run: threading.Event | None = None
) -> tuple[tuple[InputHash, ...], str]:
    """Project-relative input paths with their sha256, and one short hash over all of them
    (`may_run`: hashing waits while it is clear)."""
    files = [(project.relative(p), p) for p in project.input_files()]
    files += [(f"--run {name}", path) for name, path in runs]
    found = tuple(InputHash(rel, _sha256(p, may_run)) for rel, p in files if p.is_file())
    digest = hashlib.sha256("\n".join(f"{i.path} {i.sha256}" for i in found).encode()).hexdigest()
    return found, digest[:16]


def documents(catalog: Catalog | None) -> tuple[DocumentFact, ...]:
    """Every document of the catalog with its chunk count (none in a runs-only project)."""
    if catalog is None:
        return ()
    per_doc = Counter(c.doc_id for c in catalog.chunks)
    return tuple(
        DocumentFact(d.id, d.title, per_doc[d.id], d.status, d.visibility, d.language)
        for d in catalog.documents
    )


def questions(labels: Sequence[Label], allowed: Collection[str] | None) -> tuple[QuestionFact, ...]:
    """Every label; `judgments` are the grades in scope (all of them when `allowed` is None)."""
    return tuple(
        QuestionFact(
            lb.id,
            lb.question,
            tuple(lb.tags),
            lb.answerable,
            dict(lb.grades),
            {c: g for c, g in lb.grades.items() if allowed is None or c in allowed},
        )
        for lb in labels
    )


def marks_of(chunk: Any) -> tuple[str, ...]:
    """What a reader must be told about a chunk before reading or forwarding it."""
    if chunk is None:
        return ()
    marks: list[str] = []
    if chunk.visibility == "restricted":
        marks.append("restricted")
    if chunk.status == "superseded":
        marks.append("superseded")
    return tuple(marks)


def chunk_facts(catalog: Catalog | None, ids: Iterable[str], hide: bool) -> tuple[ChunkFact, ...]:
    """Facts of the catalog chunks among `ids`, in catalog order; restricted text withheld on
    `hide`."""
    if catalog is None:
        return ()
    wanted = set(ids)
    out = []
    for chunk in catalog.chunks:
        if chunk.id in wanted:
            marks = marks_of(chunk)
            text = None if hide and "restricted" in marks else chunk.text
            out.append(ChunkFact(chunk.id, chunk.title, text, marks))
    return tuple(out)
