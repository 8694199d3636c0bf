"""Inputs of an evaluation: external TREC runs (named, checked, read), input hashes and the facts
about documents, questions and chunks that the Results carry for the pages.

What the scope filter protects: for a candidate that filters after ranking (``prefilter =
false``), the restricted and superseded chunks that reached its candidate lists before the filter.

A risk read from the config, not from the metrics: it is stated whatever the metrics say.

Places in results.json: a claim's `source` path (``candidates[2].comparisons[0]``) and the
object it names in a Results.

``evidencedesk.toml``: a project file that points the report at a team's own data.

Two kinds of project share one site:

- ``pipeline``: a corpus that evidencedesk indexes (Markdown folders or a BEIR ``corpus.jsonl``);
  the built-in searchers, rerankers, sizing sweep and ablations run over it;
- ``runs``: no corpus (or ``[documents].index = false``): each external TREC run is a variant,
  compared with ``[runs].baseline``; stages that need the pipeline are skipped.

The schema (sections, keys, types: pydantic models) lives in `evidencedesk.files._project_file`,
how keys combine in `evidencedesk.files._project_file`; errors are worded by
`evidencedesk.files._validation`. docs/project-file.md has an annotated example. The demo is itself a project: `DEMO_PROJECT`.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import hashlib
import io
import os
import sys
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from evidencedesk import paths
from evidencedesk._inert import look_alike, visible
from evidencedesk._metric_names import DEFAULT_RELEVANCE, split_metric
from evidencedesk.baseline import Baseline, _baseline_of
from evidencedesk.errors import ConfigError
from evidencedesk.files._project_file import (
    MAX_RUNS,
    MIN_COVERAGE,
    PROJECT_FILE,
    ProjectFile,
    ProjectSection,
    read_project_toml,
    resolve,
)
from evidencedesk.files._records import (
    LineFiles,
    Whole,
    baseline_file,
    candidate_notes,
    candidates_file,
    line_files,
    markdown_files,
    policy_file,
    run_note,
)
from evidencedesk.files._text import (
    DEFAULT_MAX_INPUT_MB,
    check_input,
    list_folder,
    name_problem,
    set_max_input_mb,
)
from evidencedesk.files.trec import TrecRun, read_qrels, read_run
from evidencedesk.gate import GatePolicy, _policy_of
from evidencedesk.paths import DATA, _require
from evidencedesk.results._candidates import CandidateChange, _candidates_of
from evidencedesk.results._settings import _SHOWN
from evidencedesk.results.types import (
    ChunkFact,
    DocumentFact,
    Exposure,
    InputHash,
    Notice,
    QuestionFact,
)
from evidencedesk.retrieval._coverage import Coverage
from evidencedesk.retrieval._metric_engine import JudgedLists
from evidencedesk.retrieval.beir import (
    _catalog_from,
    _labels_from,
    _Query,
    read_beir_qrels,
    read_queries,
)
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.labels import _EXAMPLES as EXAMPLES  # ids a notice names
from evidencedesk.retrieval.labels import (
    Label,
    QuestionCounts,
    _question_counts,
    _relevant_out_of_scope,
    load_labels,
)
from evidencedesk.retrieval.metrics import Judged
from evidencedesk.retrieval.parts import Parts

if TYPE_CHECKING:  # the evidence checks' module is imported where an update is read
    from evidencedesk.results._evidence import Update

DEMO_PROJECT = DATA / "evidencedesk.toml"  # the demo's project file


_LABEL_GRADES = 2  # labels.jsonl grades are 0-2 (SPEC §1); use qrels for other scales


_TREC_EVAL_RELEVANCE = 1  # the relevance threshold of a qrels project that names none


# the pipeline-only stages, skipped (with a reason) in a runs-only project
_PIPELINE_STAGES = ("sizing", "ablations", "citations", "evidence")


@dataclass(frozen=True)
class Project:
    """One validated project file. Paths are absolute; `to_dict` shows them relative to `root`."""

    name: str
    path: Path  # the project file
    root: Path  # the folder of the project file; relative paths start here
    kind: Literal["pipeline", "runs"]
    documents: tuple[Path, ...] = ()  # Markdown folders, or one BEIR corpus.jsonl
    documents_format: Literal["markdown", "beir", "none"] = "none"
    chunking: str = "paragraph"
    dense: str = "toy"  # [searchers] dense: the dense searcher's embedder (toy or minilm)
    labels: Path | None = None
    queries: Path | None = None
    qrels: Path | None = None
    qrels_format: Literal["trec", "beir"] | None = None
    qrels_tabs: bool = False  # TREC qrels by tabs (`files._project_file._qrels_layout`)
    tags: Path | None = None
    relevance: int = DEFAULT_RELEVANCE
    grade_names: tuple[tuple[int, str], ...] = ()  # [questions] grades: what each grade means
    evaluate_unlisted: bool = False  # [questions] evaluate_unlisted: judged ids not in queries
    max_grade: int = 2
    candidates: Path | None = None
    notes: Path | None = None
    policy: Path | None = None
    baseline: Path | None = None
    runs: tuple[tuple[str, Path], ...] = ()
    runs_dir: Path | None = None
    skipped_files: tuple[Path, ...] = ()  # files in `runs_dir` that do not read as runs
    baseline_run: str | None = None
    min_coverage: float = MIN_COVERAGE  # [runs] min_coverage: below it, a run is refused
    max_depth: int | None = None  # [runs] max_depth: results per query evaluated (trec_eval -M)
    averaging: Literal["defined", "trec_eval"] = "defined"  # [report] averaging
    answers: Path | None = None
    tenants: Path | None = None
    tenant_documents: Path | None = None
    dups: Path | None = None
    updates: Path | None = None  # newer document versions for the freshness check
    seed: int = 0
    max_input_mb: int = DEFAULT_MAX_INPUT_MB
    restricted_text: Literal["show", "hide"] = "show"
    report_metrics: tuple[str, ...] | None = None  # [report] metrics; None: the kind's defaults
    primary: str | None = None  # [report] primary; None: the first reported metric
    # qid -> {chunk or document id: grade}, read once by `load_project` (the relevance
    # threshold is checked against them)
    judgments: Mapping[str, Mapping[str, int]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # -- loading -------------------------------------------------------------------------------
    def _line_files(self) -> LineFiles:
        """The project's line files as record streams (`files._records.line_files`)."""
        return line_files(self.documents, self.documents_format, self.labels, self.queries,
                          self.tags)  # fmt: skip

    def load_catalog(self) -> Catalog | None:
        """The documents as a catalog (None without documents). A pipeline indexes every
        document, so an empty one is an error there; a runs-only project only shows them."""
        return _catalog_from(self._line_files(), self.chunking, self.kind == "pipeline")

    def _given(self, path: Path | None, key: str) -> Path:
        """`[questions] key`, which the project rules require when there are no labels."""
        if path is None:
            raise ConfigError(self.path, f"expected [questions] labels or {key}, found neither")
        return path

    def _read_judgments(self) -> dict[str, dict[str, int]]:
        """qid -> {chunk or document id: grade}, as `load_project` reads them."""
        if self.labels is not None:
            found = load_labels(self.labels, None, _LABEL_GRADES)
            return {lab.id: dict(lab.grades) for lab in found}
        if self.qrels_format == "beir":
            return read_beir_qrels(self._given(self.qrels, "qrels"))
        return read_qrels(self._given(self.qrels, "qrels"))

    def _queries(self) -> list[_Query]:
        """The queries file's queries, read once ([] without one: ids come from the qrels)."""
        if "queries" not in self._cache:
            found = read_queries(self.queries) if self.queries is not None else []
            self._cache["queries"] = found
        queries: list[_Query] = self._cache["queries"]
        return queries

    def question_counts(self) -> QuestionCounts:
        """The project's questions counted (`retrieval.labels.QuestionCounts`)."""
        listed = None if self.queries is None else [q.id for q in self._queries()]
        return _question_counts(self.judgments, self.relevance, self.labels is not None, listed,
                                self.evaluate_unlisted)  # fmt: skip

    def load_labels(self, catalog: Catalog | None = None) -> list[Label]:
        """Labelled questions at this project's relevance threshold (`beir._labels_from`): a
        labels file's, or from the qrels the judged queries (with a queries file, only those
        it lists, unless ``[questions] evaluate_unlisted`` adds the others), tags from the
        queries and the tags file. In a pipeline project every judged id must be a chunk of
        `catalog`."""
        check = catalog if self.kind == "pipeline" else None
        labels, _ = _labels_from(
            self._line_files(), self.judgments, self.relevance, max_grade=self.max_grade,
            catalog=check, evaluate_unlisted=self.evaluate_unlisted, qrels=self.qrels,
        )  # fmt: skip
        return labels

    def load_runs(self) -> dict[str, TrecRun]:
        """name -> `TrecRun` read with `evidencedesk.files.trec.read_run`, in project order."""
        return {name: read_run(path) for name, path in self.runs}

    # -- describing ------------------------------------------------------------------------------
    def skipped_stages(self) -> tuple[tuple[str, str], ...]:
        """(stage, reason) for every pipeline stage this project cannot run."""
        if self.kind == "runs":
            why = (
                "runs-only project: no corpus is indexed, so there is no pipeline to "
                "size, ablate or inspect"
            )
            return tuple((stage, why) for stage in _PIPELINE_STAGES)
        skipped = []
        if self.answers is None:
            skipped.append(("citations", "no [extras].answers file in the project: "
                            "no citations page"))  # fmt: skip
        # no dups folder: dedupe still runs, over the catalog alone (evidence.html shows it)
        if self.tenants is None:
            skipped.append(("tenants", "no [extras].tenants file in the project: "
                            "evidence.html has no tenant boundaries section"))  # fmt: skip
        if self.updates is None:
            skipped.append(("freshness", "no [extras].updates folder in the project: "
                            "evidence.html has no freshness section"))  # fmt: skip
        return tuple(skipped)

    def input_files(self) -> list[Path]:
        """Every file the build reads (for the manifest hash), in a fixed order, each once."""
        files: list[Path] = [self.path]
        if self.documents_format == "markdown":
            files += [p for folder in self.documents for p in markdown_files(folder)]
        else:
            files += list(self.documents)
        files += [p for p in (self.labels, self.queries, self.qrels, self.tags) if p is not None]
        if self.candidates is not None:
            files.append(self.candidates)
        if self.notes is not None:
            files += [p for p in list_folder(self.notes, ConfigError, "notes folder")
                      if p.suffix == ".md" and p.is_file()]  # fmt: skip
        files += [p for p in (self.policy, self.baseline) if p is not None]
        files += [path for _, path in self.runs]
        files += [p.with_suffix(".md") for _, p in self.runs if p.with_suffix(".md").is_file()]
        files += [p for p in (self.answers, self.tenants) if p is not None]
        for folder in (self.tenant_documents, self.dups, self.updates):
            if folder is not None:
                files += markdown_files(folder)
        return list(dict.fromkeys(files))

    def relative(self, path: Path) -> str:
        return Path(os.path.relpath(path, self.root)).as_posix()

    def to_dict(self) -> dict[str, Any]:
        def rel(p: Path | None) -> str | None:
            return None if p is None else self.relative(p)

        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name.startswith("_") or f.name in ("root", "judgments"):
                continue
            value = getattr(self, f.name)
            if f.name == "path":
                value = self.path.name
            elif f.name == "documents":
                value = [rel(p) for p in value]
            elif f.name == "runs":
                value = [[name, rel(p)] for name, p in value]
            elif f.name == "grade_names":
                value = {str(g): name for g, name in value}
            elif f.name == "skipped_files":
                value = [rel(p) for p in value]
            elif isinstance(value, Path):
                value = rel(value)
            out[f.name] = value
        return out


def _search_stop(folder: Path) -> Path | None:
    """The folder the upward search ends at when it starts in `folder`: the first one holding
    ``.git`` (a repository's root: a project never reaches out of its repository), else None
    (the search runs to the filesystem root)."""
    return next((f for f in (folder, *folder.parents) if os.path.lexists(f / ".git")), None)


def _find_project_file(start: Path) -> tuple[Path | None, Path]:
    """The ``evidencedesk.toml`` the commands read without ``--project``, as pytest and ruff find
    theirs: in `start`, then in each parent, up to and including the first folder holding
    ``.git`` or the filesystem root. Returns the file found (None: none) and the folder the
    search stopped at. Any entry of that name counts, also one that is not a readable regular
    file (a folder, a FIFO, a dangling or looping link), so that it is refused by name rather
    than passed over for the demo."""
    start = start.absolute()
    stop = _search_stop(start)
    for folder in (start, *start.parents):
        found = folder / PROJECT_FILE
        if os.path.lexists(found):
            return found, folder
        if folder == stop:
            return None, folder
    return None, Path(start.anchor)


def find_project(given: str | Path | None, saving: bool = False) -> tuple[Project, str]:
    """The project a command reads, and the first line of its output naming it: `given`; else
    the nearest ``evidencedesk.toml`` of the current folder and its parents (`_find_project_file`);
    else the demo, and the line says where it looked. `saving`: as `load_project`'s."""
    if given is None:
        cwd = Path.cwd()
        found, stop = _find_project_file(cwd)
        if found is None:
            project = load_project(_require(DEMO_PROJECT, "the demo project"), saving)
            where = f"{cwd}" if stop == cwd else f"{cwd} or its parents up to {stop}"
            return project, f"project: the demo, {project.name} (no {PROJECT_FILE} in {where})"
        check_input(found, ConfigError, "project file")  # a folder, FIFO or dangling link: named
        given = found
    project = load_project(given, saving)
    return project, f"project: {project.name} ({project.path})"


def load_project(path: str | Path, saving: bool = False) -> Project:
    """Read and validate a project file; every problem is one `ConfigError` naming file and key.
    `saving`: the saved baseline is about to be (re)written, so ``[gate].baseline`` may name a
    file that does not exist yet (``--save-baseline``)."""
    path = Path(path).absolute()
    if path.is_dir():
        path = path / "evidencedesk.toml"
    # the limit is per project: a key left out means the default, whatever was built before
    set_max_input_mb(DEFAULT_MAX_INPUT_MB)
    raw, source = read_project_toml(path)
    context = {"root": path.parent, "saving": saving}
    section = raw.get("project")
    if isinstance(section, dict) and "max_input_mb" in section:
        # the limit applies to the files the other keys name, so it is read first
        try:
            limit = ProjectSection.model_validate(
                {"max_input_mb": section["max_input_mb"]}, context=context
            ).max_input_mb
        except ValidationError as exc:
            raise source.invalid(exc, ProjectSection, ("project",)) from None
        set_max_input_mb(limit or DEFAULT_MAX_INPUT_MB)
    try:
        model = ProjectFile.model_validate(raw, context=context)
    except ValidationError as exc:
        raise source.invalid(exc, ProjectFile) from None
    fields = resolve(model, path)
    given = "relevance" in model.questions.model_fields_set
    if not given and model.questions.labels is None:
        fields["relevance"] = _TREC_EVAL_RELEVANCE  # qrels: trec_eval's default level (-l 1)
    result = Project(**fields)
    judged = result._read_judgments()
    grades = sorted({g for docs_ in judged.values() for g in docs_.values()})
    top = max(grades, default=0)
    if top < 1:
        seen_grades = ", ".join(map(str, grades)) or "none"
        raise source.error(
            ("questions",),
            f"expected at least one judgment with a positive grade, found none (grades seen in "
            f"the judgments: {seen_grades})",
        )
    if not 1 <= result.relevance <= top:
        default = "" if given else " (the default)"
        hint = "; set relevance = 1 for binary judgments" if top == 1 else ""
        seen_grades = ", ".join(map(str, grades)) or "none"
        raise source.error(
            ("questions", "relevance") if given else ("questions",),
            f"expected a relevance threshold from 1 to {top} (grades seen in the judgments: "
            f"{seen_grades}), found {result.relevance}{default}{hint}",
        )
    return dataclasses.replace(result, max_grade=top, judgments=judged, _cache=result._cache)


RunPaths = Sequence[tuple[str, Path]]  # ("--run NAME=PATH" options)


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
    alike = next((u for u in used if look_alike(u) == look_alike(name)), None)
    if alike is not None:  # two rows a reader cannot tell apart
        raise ConfigError(
            path,
            f"{source}expected run names that differ in more than invisible characters or "
            f"Unicode normalisation, found '{visible(name)}' and '{visible(alike)}'",
        )


def baseline_run(project: Project, runs: RunPaths = ()) -> str:
    """A runs-only project's baseline run: ``[runs].baseline``, else the first run (the
    project's, then the ``--run`` ones); every other run is a candidate compared with it."""
    return project.baseline_run or [*project.runs, *runs][0][0]


def _check_run_names(project: Project, runs: RunPaths, builtin: Sequence[str] = ()) -> None:
    """The project's runs, then the ``--run`` ones, through the one `_check_run_name`; a
    ``--run`` name is first refused where it holds a control character (the project's own
    names were, where its file was read: `files._project_file._collect_runs`)."""
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
        problem = name_problem(name, "run name")
        if problem is not None:
            raise ConfigError(path, f"--run {name}: {problem}")
        _check_run_name(name, path, builtin, used, f"--run {name}: ")
        used.add(name)


def read_runs(runs: RunPaths) -> dict[str, TrecRun]:
    """name -> `TrecRun` of every run (`ProjectInputs.runs`), read in order."""
    return {name: read_run(path) for name, path in runs}


@dataclass(frozen=True)
class JudgedRun:
    """An external run once read and judged: its tag, its judged lists, the same lists
    condensed (None when not asked for), and its ids' coverage of the judgments."""

    tag: str
    judged: Sequence[Judged]
    condensed: Sequence[Judged] | None
    coverage: Coverage


def _frozen(judged: Sequence[Judged], now: bool = True) -> Sequence[Judged]:
    """`judged` as a tuple; the judge's own lists (`metric_engine.JudgedLists`) with their
    lists' heads copied out of the run `now` (`JudgedLists.detached`), so that the run can be
    let go: they hold the arrays the metrics read and those heads (each question's list is made
    when first read: a build makes only those its pages show). A run's condensed lists keep
    their own small run (its judged lines) until a comparison reads them."""
    if isinstance(judged, JudgedLists):
        return judged.detached() if now else judged
    return judged if isinstance(judged, tuple) else tuple(judged)


def judged_external_runs(
    runs: RunPaths,
    judge: Callable[[TrecRun], tuple[Sequence[Judged], Sequence[Judged] | None]],
    check: Callable[[str, TrecRun, Path], Coverage],
    reading: Callable[[], AbstractContextManager[object]] = nullcontext,
    let_go: Callable[[], None] | None = None,
) -> dict[str, JudgedRun]:
    """name -> `JudgedRun` of `runs` (`ProjectInputs.runs`: the project's and the ``--run``
    ones), each read, checked (`check(name, run, path)`: its coverage, or the error refusing
    it, before it is judged), judged and let go before the next is read: a run of 50 million
    lines takes over a gigabyte as arrays, its judged lists (cut to `judged_depth`) a small
    part of that. Each read runs inside `reading()` (the build's `Hashing.held`: the read uses
    every core); `let_go()` is called once each run is dropped (`_stages.LetsGo`)."""
    out: dict[str, JudgedRun] = {}
    for name, path in runs:
        with reading():
            trec = read_run(path)
        found = check(name, trec, path)
        judged, condensed = judge(trec)
        out[name] = JudgedRun(trec.tag, _frozen(judged),
                              None if condensed is None else _frozen(condensed, now=False),
                              found)  # fmt: skip
        del trec
        if let_go is not None:
            let_go()
    return out


def judged_depth(metrics: Iterable[str], *cutoffs: int) -> int:
    """How much of each external run's list is kept once judged: the largest cut-off of the
    reported metrics and of `cutoffs` (the gate's k), and at least the `_SHOWN` results a question
    page lists. `judge_trec_run(depth=...)` also keeps each list down to its first relevant
    result, so every reported value is the whole list's."""
    ks = [k for _, k, _ in map(split_metric, metrics) if k is not None]
    return max([_SHOWN, *ks, *cutoffs])


_HASH_BLOCK = 4 << 20  # bytes hashed in one turn: a 2 GB run is never held in memory to hash it


def _hashed_files(
    project: Project, files: Sequence[Path], runs: RunPaths
) -> tuple[tuple[str, Path], ...]:
    """Every input file as the manifest names it: the project's `files`
    (`Project.input_files`), project-relative, then each ``--run NAME``."""
    named = [(project.relative(p), p) for p in files]
    shown = shown_runs(project, runs)
    named += [(shown[name], path) for name, path in runs]
    return tuple(named)


def _lowest_priority() -> bool:
    """Lower the calling thread's scheduling priority as far as it goes (nice 19), so that it
    takes only CPU no other thread or process wants; True when it did. Only on Linux, where a
    thread has a priority of its own (``setpriority`` on its native id); elsewhere that call
    would name a process, and nothing is changed."""
    if sys.platform != "linux":
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except OSError:
        return False
    return True


class Hashing:
    """The input files' sha256 (of `_hashed_files`, in their order) and one short hash over all
    of them, hashed block by block (`_HASH_BLOCK`), one block a turn, by whichever thread holds
    the turn.

    `background`: a thread hashes from the start of an evaluation (a runs-only project's:
    hashlib releases the GIL on large blocks, so hashing gigabytes of runs overlaps reading and
    judging them instead of following them). On Linux it runs at the lowest priority, taking
    only CPU the evaluation leaves idle; elsewhere it waits inside `held()` (a run's read uses
    every core). `result()` takes the turn for good and hashes what is left itself, so a
    background thread that got little CPU (a busy machine) is never waited for beyond the
    block it is hashing; it raises what hashing raised. Without `background`, `result()` hashes
    every file."""

    def __init__(self, files: Sequence[tuple[str, Path]], background: bool = True) -> None:
        self._files = tuple(files)
        self._next = 0  # the next file to open
        self._open: tuple[str, io.BufferedReader, Any] | None = None  # (name, file, digest)
        self._found: list[InputHash] = []
        self._buffer = bytearray(_HASH_BLOCK)
        self._turn = threading.Lock()
        self._taken = False  # `result()` holds the turn for good
        self._idle = False  # the background thread runs at the lowest priority
        self._may_run = threading.Event()
        self._may_run.set()
        self._value: tuple[tuple[InputHash, ...], str] | None = None
        self._error: BaseException | None = None
        # a daemon: an interrupted build does not wait for the hashing to finish
        self._thread = threading.Thread(target=self._run, name="input-hashes", daemon=True)
        if background:
            self._thread.start()

    def _block(self) -> bool:
        """Hash the next block (with the turn held); False once every file is hashed."""
        while self._open is None:
            if self._next == len(self._files):
                return False
            name, path = self._files[self._next]
            self._next += 1
            if path.is_file():
                self._open = (name, path.open("rb"), hashlib.sha256())
        name, handle, digest = self._open
        got = handle.readinto(self._buffer)
        if got:
            digest.update(memoryview(self._buffer)[:got])
            return True
        handle.close()
        self._found.append(InputHash(name, digest.hexdigest()))
        self._open = None
        return True

    def _run(self) -> None:
        self._idle = _lowest_priority()
        while True:
            self._may_run.wait()
            with self._turn:
                if self._taken:
                    return
                try:
                    if not self._block():
                        return
                except BaseException as exc:  # handed to result(), in the evaluating thread
                    self._error = exc
                    return

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hashing waits (after its current block) until the block ends, however it ends; not
        at the lowest priority, where it takes only idle CPU anyway."""
        if self._idle:
            yield
            return
        self._may_run.clear()
        try:
            yield
        finally:
            self._may_run.set()

    def result(self) -> tuple[tuple[InputHash, ...], str]:
        self._may_run.set()
        if self._value is None:
            with self._turn:
                self._taken = True
                if self._error is None:
                    while self._block():
                        pass
            if self._thread.ident is not None:
                self._thread.join()
            if self._error is not None:
                raise self._error
            found = tuple(self._found)
            digest = hashlib.sha256(
                "\n".join(f"{i.path} {i.sha256}" for i in found).encode()
            ).hexdigest()
            self._value = found, digest[:16]
        return self._value


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


def _marks_of(chunk: Any) -> tuple[str, ...]:
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
            marks = _marks_of(chunk)
            text = None if hide and "restricted" in marks else chunk.text
            out.append(ChunkFact(chunk.id, chunk.title, text, marks))
    return tuple(out)


def exposure(parts: Parts, first_stage: str, depth: int,
             labels: Sequence[Label]) -> tuple[Exposure, ...]:  # fmt: skip
    """Each (question, chunk) where an unfiltered stage one put a marked chunk in the top
    `depth`: what the pre-filter would have kept out of the candidate list."""
    searcher = parts.first(first_stage)
    out = []
    for label in labels:
        for cand in searcher.search(label.question, depth, None):
            marks = _marks_of(cand.chunk)
            if marks:
                out.append(Exposure(label.id, cand.chunk.id, marks))
    return tuple(out)


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
    ordered = sorted(catalog.by_id)
    names = tuple(f"{d} (nearest: {_nearest(d, ordered)})" for d in missing[:EXAMPLES])
    return [Notice("judged_not_in_corpus", project.relative(project.qrels), None, len(missing),
                   len(judged), names)]  # fmt: skip


def in_scope(
    counts: QuestionCounts, project: Project, catalog: Catalog | None, labels: Sequence[Label]
) -> QuestionCounts:
    """The project's questions `counts` (`Project.question_counts`); in a pipeline project,
    with those whose relevant chunks all lie outside its catalog's scope (`Scope()`: superseded
    or restricted documents) counted, which its metrics score as questions with nothing
    relevant."""
    if project.kind != "pipeline" or catalog is None:
        return counts
    allowed = catalog.allowed(Scope())
    relevance = project.relevance
    out = [lb.id for lb in labels if _relevant_out_of_scope(lb.grades, allowed, relevance)]
    return dataclasses.replace(
        counts, out_of_scope=len(out), out_of_scope_ids=tuple(out[:EXAMPLES])
    )


def notices(
    project: Project, catalog: Catalog | None, labels: Sequence[Label], counts: QuestionCounts
) -> tuple[Notice, ...]:
    """What a reader must know about the inputs before reading a number (`types.Notice`), with
    the project's questions as `in_scope` counts them."""
    found = [Notice("not_a_run", project.relative(p), None, 1, None, ())
             for p in project.skipped_files]  # fmt: skip
    if catalog is not None and catalog.empty:
        ids = tuple(doc for doc, _ in catalog.empty[:EXAMPLES])
        found.append(Notice("empty_document", project.relative(project.documents[0]),
                            catalog.empty[0][1], len(catalog.empty), len(catalog), ids))  # fmt: skip
    if counts.without_text and project.queries is not None and project.evaluate_unlisted:
        found.append(Notice("without_text", project.relative(project.qrels or project.queries), None,
                            counts.without_text, counts.judged, counts.without_text_ids))  # fmt: skip
    elif counts.without_text and project.queries is not None:
        found.append(Notice("unlisted", project.relative(project.queries), None,
                            counts.without_text, None, counts.without_text_ids))  # fmt: skip
    if counts.unjudged and project.queries is not None:
        # of the queries file's own queries: `counts.queries` also holds the judged ids it does
        # not list when they are evaluated
        listed = counts.queries - (counts.without_text if project.evaluate_unlisted else 0)
        found.append(Notice("unjudged", project.relative(project.queries), None, counts.unjudged,
                            listed, counts.unjudged_ids))  # fmt: skip
    if counts.out_of_scope:
        where = project.labels or project.qrels
        found.append(Notice("out_of_scope", project.relative(where) if where else "", None,
                            counts.out_of_scope, counts.relevant, counts.out_of_scope_ids))  # fmt: skip
    found += _not_in_corpus(project, catalog, labels)
    return tuple(found)


def shown_runs(project: Project, runs: RunPaths) -> dict[str, str]:
    """Each run's file as the pages and the manifest name it: project-relative, a ``--run``
    one by its name (machine paths stay out of the site)."""
    shown = {name: project.relative(path) for name, path in project.runs}
    return shown | {name: f"--run {name}" for name, _ in runs}


def order_notices(name: str, trec: TrecRun, shown: str) -> tuple[Notice, ...]:
    """The notices of run `name` (its file `shown`) where its file's order of lines does not
    count (`TrecRun.order`): scores rising down the file (`score_order`), which a run written
    best first with distances (lower is better) or stale first-stage scores is, read upside
    down; queries whose lines all share one score (`score_ties`), ranked by document id."""
    order, total = trec.order, len(trec)
    found = []
    if order.rising:
        found.append(Notice("score_order", shown, None, order.rising, total, order.rising_ids,
                            name))  # fmt: skip
    if order.flat:
        found.append(Notice("score_ties", shown, None, order.flat, total, order.flat_ids, name))
    return tuple(found)


def _is_demo(project: Project) -> bool:
    """The project is the demo (the site says so, and its command names no project)."""
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


@dataclass(frozen=True)
class ProjectInputs:
    """Everything an evaluation reads, read once (`read_inputs`), and the facts of the project
    the Results state: the stages see this value and the `Settings`, never the `Project`."""

    name: str  # the project's
    kind: Literal["pipeline", "runs"]  # a project without documents evaluates its runs
    catalog: Catalog | None
    labels: tuple[Label, ...]
    candidates: tuple[CandidateChange, ...]
    policy: GatePolicy | None
    saved: Baseline | None  # the saved baseline file's, when there is one
    saved_name: str | None  # how the pages name it
    # every run, merged once: the project's (in project order), then the ``--run`` ones
    runs: tuple[tuple[str, Path], ...]
    run_files: Mapping[str, str]  # each run's file as the pages name it (`shown_runs`)
    run_notes: Mapping[str, str]  # the project's runs' ``<run>.md`` first paragraphs
    baseline_run: str | None  # a runs-only project's ([runs].baseline, else the first run)
    dense: str  # [searchers] dense
    chunking: str  # [documents] chunking: the extras' documents are chunked the same way
    relevance: int  # [questions] relevance
    labels_file: bool  # labels.jsonl grades every chunk (a missing grade is 0)
    qrels_file: str | None  # the qrels file, as the project names it (None: labels.jsonl)
    qrels_format: Literal["trec", "beir"] | None
    qrels_tabs: bool  # a TREC qrels file whose columns are tab-separated
    notes: Path | None  # the candidates' notes folder
    answers: Path | None
    dups: Path | None
    # the one newer document version of [extras] updates: its file and its chunks, read and
    # checked once (`results._evidence.read_update`)
    update: Update | None
    tenants: Path | None
    tenant_documents: Path | None
    hashes: Hashing
    skipped: tuple[tuple[str, str], ...]  # `Project.skipped_stages`
    command: tuple[str, ...]  # the same build's arguments
    demo: bool
    counts: QuestionCounts
    notices: tuple[Notice, ...]


@dataclass(frozen=True)
class _Read:
    """Every input file of a project read into records, before any typed value is made from
    them: the line files as streams (read as the values are made), the others whole."""

    files: tuple[Path, ...]  # every file the build reads (`Project.input_files`), hashed
    lines: LineFiles
    candidates: Whole | None
    notes: Mapping[str, str | None]  # each candidate name's note (None: none)
    policy: Whole | None
    baseline: Whole | None  # the saved baseline, when its file is there
    run_notes: Mapping[str, str]  # a pipeline's runs' ``<run>.md`` first paragraphs


def _read(project: Project, kind: str) -> _Read:
    """`project`'s input files, read once into records (`files._records`): the list of them
    first, the whole files, then the line files' streams."""
    files = tuple(project.input_files())
    cands = candidates_file(project.candidates) if project.candidates else None
    notes = candidate_notes(project.notes, cands) if cands is not None else {}
    policy = policy_file(project.policy) if project.policy else None
    saved = project.baseline if project.baseline and project.baseline.is_file() else None
    baseline = baseline_file(saved) if saved is not None else None
    # a runs-only project's runs are its variants: the site does not show their notes
    run_notes = (
        {n: note for n, p in project.runs if (note := run_note(p))} if kind == "pipeline" else {}
    )
    lines = line_files(project.documents, project.documents_format, project.labels,
                       project.queries, project.tags)  # fmt: skip
    return _Read(files, lines, cands, notes, policy, baseline, run_notes)


def read_inputs(
    project: Project, runs: RunPaths, seed: int, builtin: Sequence[str] = ()
) -> ProjectInputs:
    """Read every input of `project` and the ``--run`` `runs`, once: every file into records
    (`_read`), then the values made from them, layer by layer upward: the documents and the
    questions, the saved baseline, the policy and the candidates; then the run names checked
    (against the `builtin` variants of a pipeline, before its slow stages). A runs-only
    project's input hashing starts here, beside the reading and judging of its runs."""
    # a project without documents evaluates its runs
    runs_only = project.kind == "runs" or project.documents_format == "none"
    kind: Literal["pipeline", "runs"] = "runs" if runs_only else "pipeline"
    read = _read(project, kind)
    catalog = _catalog_from(read.lines, project.chunking, kind == "pipeline")
    found, counts = _labels_from(
        read.lines, project.judgments, project.relevance, max_grade=project.max_grade,
        catalog=catalog if kind == "pipeline" else None,
        evaluate_unlisted=project.evaluate_unlisted, qrels=project.qrels,
    )  # fmt: skip
    labels = tuple(found)
    counts = in_scope(counts, project, catalog, labels)
    # the saved baseline of this kind of project and the policy: both are checked against the
    # labels, the baseline first (it stands a layer above the gate)
    saved = _baseline_of(read.baseline, labels, kind) if read.baseline is not None else None
    policy = _policy_of(read.policy, labels) if read.policy is not None else None
    cands = _candidates_of(read.candidates, read.notes, project.notes) if read.candidates else []
    _check_run_names(project, runs, builtin if kind == "pipeline" else ())
    update = None
    if kind == "pipeline" and catalog is not None and project.updates is not None:
        # the freshness check's update, refused here rather than after the slow stages (its
        # module, the evidence checks', imported only by a pipeline project that has one)
        from evidencedesk.results._evidence import read_update

        update = read_update(catalog, project.updates, project.chunking)
    merged = (*project.runs, *runs)
    return ProjectInputs(
        name=project.name,
        kind=kind,
        catalog=catalog,
        labels=labels,
        candidates=tuple(cands),
        policy=policy,
        saved=saved,
        saved_name=None
        if read.baseline is None
        else f"the saved baseline {read.baseline.path.name}",
        runs=merged,
        run_files=shown_runs(project, runs),
        run_notes=read.run_notes,
        baseline_run=baseline_run(project, runs) if kind == "runs" and merged else None,
        dense=project.dense,
        chunking=project.chunking,
        relevance=project.relevance,
        labels_file=project.labels is not None,
        qrels_file=None if project.qrels is None else project.relative(project.qrels),
        qrels_format=project.qrels_format,
        qrels_tabs=project.qrels_tabs,
        notes=project.notes,
        answers=project.answers,
        dups=project.dups,
        update=update,
        tenants=project.tenants,
        tenant_documents=project.tenant_documents,
        # gigabytes of runs: hashed while they are read and judged
        hashes=Hashing(_hashed_files(project, read.files, runs), background=kind == "runs"),
        skipped=project.skipped_stages(),
        command=_command(project, runs, seed),
        demo=_is_demo(project),
        counts=counts,
        notices=notices(project, catalog, labels, counts),
    )


__all__ = ["DEMO_PROJECT", "Project", "find_project", "load_project", "resolve"]
