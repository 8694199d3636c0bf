"""The project file's sections as pydantic models: keys, types, ranges, paths that must exist.

One model per section (strict types, unknown keys forbidden); `evidencedesk.files._project_file` puts
them together and checks how keys combine. Path keys are resolved against the project folder
(the validation context's ``root``) and checked to exist; files are checked by
`evidencedesk.files._text.check_input` (a FIFO or an oversized file is refused by type or size).
Errors are worded by `evidencedesk.files._validation`: ``[section].key: expected …, found …``.

How the project file's keys combine: one form of documents and of questions, the runs, the
kind of project. `ProjectFile` is the whole file as one pydantic model (its sections come from
`evidencedesk.files._project_file`); its model validator checks the combinations, so every error goes
through `evidencedesk.files._validation`. `resolve` turns a valid file into the `Project` fields; the
relevance check needs the judgments and is done in `evidencedesk.results._inputs.load_project`.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evidencedesk._metric_names import DEFAULT_RELEVANCE, METRIC_FORMS, canonical, read_metric
from evidencedesk.chunking import _STRATEGIES
from evidencedesk.errors import ConfigError, CutoffError, UnknownNameError
from evidencedesk.files._text import (
    DEFAULT_MAX_INPUT_MB,
    SEED_MAX,
    check_input,
    list_folder,
    name_problem,
)
from evidencedesk.files._validation import (
    Loc,
    Source,
    Style,
    expected_key,
    found_toml,
    invalid,
    read_toml,
    rule,
)

PROJECT_FILE = "evidencedesk.toml"  # the project file's name, looked for in a project folder


# files in `[runs] dir` with these suffixes are skipped, never read as runs
_RUN_SUFFIXES_SKIPPED = (".md", ".json", ".toml")


# files in `[runs] dir` with these suffixes (or these and a compressed suffix) are runs: one that
# does not parse is an error, never skipped (a candidate whose writer broke must not vanish)
_RUN_LIKE_SUFFIXES = (".run", ".trec", ".txt", ".tsv")


_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


_RESTRICTED_TEXT = ("show", "hide")  # the values of `[report] restricted_text`


# "defined": a judged question with no relevant judgment is left out of every mean (the metrics
# are undefined there); "trec_eval": it is averaged in as trec_eval scores it (0, but nDCG's)
_AVERAGING = ("defined", "trec_eval")


MIN_COVERAGE = 0.9  # retrieval.coverage.MIN_COVERAGE, without importing numpy here


# [report] metrics by default; the first is the primary metric (flips, sign test, verdict)
DEFAULT_METRICS = {
    "pipeline": ("mrr", "recall@3", "ndcg@5"),
    "runs": ("ndcg@10:linear", "recall@10", "precision@10", "mrr"),
}


# [searchers] dense: the dense searcher's embedder -- the toy, or the real MiniLM bi-encoder
# (optional extra `minilm`); the same tuple as `retrieval.lifecycle.DENSE_EMBEDDERS`, which
# this layer may not import (a test holds them equal)
DENSE_EMBEDDERS = ("toy", "minilm")


MAX_RUNS = 100  # every pair of variants gets a flip-matrix cell: the site grows as runs squared


# a project runs its own retrieval over a corpus ("pipeline") or brings only TREC runs ("runs")
ProjectKind = Literal["pipeline", "runs"]


def key(default: Any, kind: str, expected: str, what: str = "file", **limits: Any) -> Any:
    """A project key: its `kind` (str, int, bool, choice, file, dir, dirs, runs), the words after
    "expected", and for a file the noun in ``expected a regular <what>``."""
    return expected_key(default, expected, {"kind": kind, "what": what}, **limits)


# -- path checks (run inside validation; the project folder comes in the context) -------------------
def _path(value: object, root: Path, check: Callable[[Path], bool], what: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise invalid(f"expected a path to {what} (a string), found {found_toml(value)}")
    path = Path(os.path.normpath(root / value))
    if not check(path):
        found = "a folder" if path.is_dir() else "a file" if path.exists() else "nothing"
        raise invalid(f"expected {what} at {value!r}, found {found} at {path}")
    return path


def _exists_not_dir(path: Path) -> bool:
    # a FIFO or device is refused by type in `check_input`, with a message naming the kind
    return path.exists() and not path.is_dir()


def _file(value: object, root: Path, expected: str, what: str) -> Path:
    path = _path(value, root, _exists_not_dir, expected)
    check_input(path, ConfigError, what)
    return path


def _saved(value: object, root: Path, expected: str, what: str, saving: bool) -> Path:
    """A file evidencedesk writes and later reads (the saved baseline): it must exist, except
    while it is being (re)written -- ``--save-baseline`` makes a missing one."""
    if not saving:
        return _file(value, root, expected, what)
    return _path(value, root, lambda p: p.parent.is_dir() and not p.is_dir(), f"{expected} path")


def _folders(value: object, root: Path, expected: str) -> tuple[Path, ...]:
    if not isinstance(value, list) or not value:
        raise invalid(
            f"expected {expected} (a non-empty list of strings), found {found_toml(value)}"
        )
    folders = [_path(v, root, Path.is_dir, "a folder of Markdown documents") for v in value]
    seen: set[Path] = set()
    for folder in folders:
        if folder.resolve() in seen:
            raise invalid(f"expected each folder once, found {folder} listed twice")
        seen.add(folder.resolve())
    return tuple(folders)


# how a `[runs] files` entry that names its run is written
_RUN_TABLE = '{name = "...", path = "..."}'


def _runs(value: object, root: Path, expected: str) -> tuple[tuple[str, Path], ...]:
    if not isinstance(value, list):
        raise invalid(f"expected {expected}, found {found_toml(value)}")
    runs: list[tuple[str, Path]] = []
    for item in value:
        if isinstance(item, dict):
            name = item.get("name")
            if set(item) - {"name", "path"} or not isinstance(name, str) or not name.strip():
                raise invalid(f"expected {_RUN_TABLE}, found keys {', '.join(sorted(item))}")
            path = _file(item.get("path"), root, "a TREC run file", "TREC run file")
            runs.append((name.strip(), path))
        else:
            path = _file(item, root, "a TREC run file", "TREC run file")
            runs.append((path.stem, path))
    return tuple(runs)


# a string with its surrounding spaces stripped, refused when nothing is left
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def _grades(value: object, expected: str) -> tuple[tuple[int, str], ...]:
    """``{0 = "not relevant", 1 = "relevant"}``: each grade (an integer key from -100 to 100)
    with a non-empty name, highest grade first."""
    if not isinstance(value, dict) or not value:
        raise invalid(f"expected {expected}, found {found_toml(value)}")
    out = []
    for grade, name in value.items():
        if not re.fullmatch(r"-?[0-9]{1,3}", grade) or not -100 <= int(grade) <= 100:
            raise invalid(f"expected grades from -100 to 100 as keys, found {grade!r}")
        if not isinstance(name, str) or not name.strip() or len(name) > 80:
            raise invalid(f"expected a name of at most 80 characters for grade {grade}, found "
                          f"{found_toml(name)}")  # fmt: skip
        out.append((int(grade), " ".join(name.split())))
    return tuple(sorted(out, reverse=True))


def _names(value: object, expected: str) -> tuple[str, ...]:
    """A list of file names or glob patterns (``NOTES.txt``, ``*.log``), each a non-empty
    string without a path separator."""
    if not isinstance(value, list) or not all(
        isinstance(v, str) and v.strip() and "/" not in v and "\\" not in v for v in value
    ):
        raise invalid(f"expected {expected}, found {found_toml(value)}")
    return tuple(value)


def _metrics(value: object, expected: str) -> tuple[str, ...]:
    """A list of metric names, each any name `metric_names` declares (evidencedesk's, or
    trec_eval's, ir_measures' or ranx's for the same metric), given once; kept canonical."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise invalid(f"expected {expected}, found {found_toml(value)}")
    names = []
    for text in value:
        try:
            found = read_metric(text)
        except CutoffError as error:
            raise invalid(str(error)) from None
        except UnknownNameError as error:
            hint = f"; {error.hint}" if error.suggestions else ""
            raise invalid(
                f"expected metric names ({', '.join(METRIC_FORMS)}, or trec_eval's, "
                f"ir_measures' or ranx's name for one: docs/metrics.md), found {text!r}{hint}"
            ) from None
        if found.measure.diagnostic:
            raise invalid(
                f"expected metric names ({', '.join(METRIC_FORMS)}), found {text!r} (a "
                "diagnostic the site shows for every run, not a quality metric)"
            )
        names.append(found.canonical)
    if len(set(names)) != len(names):
        raise invalid(f"expected each metric once, found {found_toml(value)}")
    return tuple(names)


# -- the sections -----------------------------------------------------------------------------------
class Section(BaseModel):
    """A table of the project file. Path keys are resolved against the validation context's
    ``root`` (the project folder) and must exist."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _paths(cls, value: object, info: ValidationInfo) -> object:
        extra = cls.model_fields[info.field_name or ""].json_schema_extra
        if not isinstance(extra, dict):  # a section of `ProjectFile`, not a key
            return value
        kind, expected, what = extra["kind"], str(extra["expected"]), str(extra["what"])
        root = Path((info.context or {}).get("root", "."))
        if kind == "file":
            return _file(value, root, expected, what)
        if kind == "saved":
            return _saved(value, root, expected, what, bool((info.context or {}).get("saving")))
        if kind == "dir":
            return _path(value, root, Path.is_dir, expected)
        if kind == "dirs":
            return _folders(value, root, expected)
        if kind == "runs":
            return _runs(value, root, expected)
        if kind == "metrics":
            return _metrics(value, expected)
        if kind == "grades":
            return _grades(value, expected)
        if kind == "names":
            return _names(value, expected)
        return value


class ProjectSection(Section):
    """The `[project]` section: the project's name, its seed and the largest input file read."""

    name: Text | None = key(None, "str", "a non-empty string")
    seed: int = key(0, "int", "an integer (the default --seed)", ge=0, le=SEED_MAX)
    max_input_mb: int | None = key(
        None, "int", "a whole number of MB, the largest input file read", ge=1, le=1 << 20
    )


class DocumentsSection(Section):
    """The `[documents]` section: Markdown folders or a BEIR corpus, chunking, indexing."""

    folders: tuple[Path, ...] | None = key(None, "dirs", "a list of folders of Markdown documents")
    corpus: Path | None = key(None, "file", "a BEIR corpus.jsonl file", "BEIR corpus file")
    chunking: Literal[_STRATEGIES] = key("paragraph", "choice", "a chunking strategy")  # type: ignore[valid-type]
    index: bool = key(True, "bool", "true or false (false: do not run the built-in searchers)")


class SearchersSection(Section):
    """The `[searchers]` section: which embedder the dense searcher uses."""

    dense: Literal[DENSE_EMBEDDERS] = key(  # type: ignore[valid-type]
        "toy", "choice", "the dense searcher's embedder (minilm needs evidencedesk[minilm])"
    )


class QuestionsSection(Section):
    """The `[questions]` section: labels or queries and qrels, tags, relevance, grade names."""

    labels: Path | None = key(None, "file", "a labels.jsonl file", "labels file")
    queries: Path | None = key(
        None, "file", "a queries.jsonl (BEIR) or queries.tsv file", "queries file"
    )
    qrels: Path | None = key(
        None, "file", "a TREC qrels file or a BEIR qrels .tsv file", "qrels file"
    )
    tags: Path | None = key(None, "file", "a tags .jsonl or .tsv file", "tags file")
    relevance: int = key(
        DEFAULT_RELEVANCE, "int", "an integer grade (relevant = grade >= relevance)"
    )
    grades: tuple[tuple[int, str], ...] | None = key(
        None, "grades", 'a table of grade -> name, e.g. {0 = "not relevant", 1 = "relevant"}'
    )
    # the questions are the queries file's judged queries; judged ids it does not list are
    # left out (counted in one notice) unless this key evaluates them too (runs-only projects)
    evaluate_unlisted: bool = key(
        False, "bool", "true or false: also evaluate judged queries the queries file does not list"
    )


class RunsSection(Section):
    """The `[runs]` section: the TREC runs, files ignored, the baseline run, the coverage a run
    needs, depth evaluated."""

    dir: Path | None = key(None, "dir", "a folder of TREC run files")
    files: tuple[tuple[str, Path], ...] = key(
        (), "runs", f"a list of run paths or {_RUN_TABLE} tables"
    )
    ignore: tuple[str, ...] = key(
        (), "names", 'a list of file names or patterns in the runs folder, e.g. ["NOTES.txt"]'
    )
    baseline: Text | None = key(None, "str", "the name of one of the runs")
    min_coverage: float = key(
        MIN_COVERAGE, "float", "a share from 0 to 1 of the judged queries a run must answer "
        "(and of its top documents the corpus must hold)", ge=0, le=1,
    )  # fmt: skip
    max_depth: int | None = key(
        None, "int", "a whole number of results per query to evaluate (trec_eval -M)", ge=1,
        le=1 << 30,
    )  # fmt: skip

    @cached_property
    def in_folder(self) -> tuple[tuple[tuple[str, Path], ...], tuple[Path, ...]]:
        """The runs of ``dir`` and the files skipped there as not runs (`_runs_in_folder`),
        listed once a load: the checks of the file and the project it resolves to read them."""
        return _runs_in_folder(self.dir, self.ignore) if self.dir is not None else ((), ())


class ReportSection(Section):
    """The `[report]` section: candidates, notes, restricted text, metrics, primary, averaging."""

    candidates: Path | None = key(None, "file", "a candidates.toml file", "candidates file")
    notes: Path | None = key(None, "dir", "a folder of candidate notes (<candidate>.md)")
    restricted_text: Literal[_RESTRICTED_TEXT] = key(  # type: ignore[valid-type]
        "show", "choice", "whether restricted text appears in the site"
    )
    metrics: tuple[str, ...] | None = key(
        None, "metrics", "a non-empty list of metric names (mrr, recall@k, map, ndcg@k:linear, …)"
    )
    primary: Text | None = key(None, "str", "one of the reported metrics")
    averaging: Literal[_AVERAGING] = key(  # type: ignore[valid-type]
        "defined", "choice", "how means treat a question with no relevant judgment"
    )


class GateSection(Section):
    """The `[gate]` section: the gate policy file and the saved baseline."""

    policy: Path | None = key(None, "file", "a gate policy JSON file", "policy file")
    baseline: Path | None = key(None, "saved", "a saved baseline JSON file", "baseline")


class ExtrasSection(Section):
    """The `[extras]` section: answers, tenants and the folders the evidence checks read."""

    answers: Path | None = key(None, "file", "an answers.jsonl file", "answers file")
    tenants: Path | None = key(None, "file", "a tenants.json file", "tenants file")
    tenant_documents: Path | None = key(None, "dir", "a folder of the tenants' Markdown documents")
    dups: Path | None = key(None, "dir", "a folder of near-duplicate Markdown documents")
    updates: Path | None = key(
        None, "dir", "a folder of newer versions of documents (freshness check)"
    )


# section name -> its model, in the order the project file documents them
_SECTIONS: dict[str, type[Section]] = {
    "project": ProjectSection,
    "documents": DocumentsSection,
    "searchers": SearchersSection,
    "questions": QuestionsSection,
    "runs": RunsSection,
    "report": ReportSection,
    "gate": GateSection,
    "extras": ExtrasSection,
}


# -- reading and wording ----------------------------------------------------------------------------
def label(loc: Loc) -> str:
    """``[section].key`` (``[section]`` alone, nothing for the whole file)."""
    if not loc:
        return ""
    rest = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:])
    return f"[{loc[0]}]{rest}"


def unknown(loc: Loc, valid: Sequence[str]) -> str:
    """The error line for an unknown section or key of the project file, listing the valid ones."""
    if len(loc) == 1:
        listed = ", ".join(f"[{s}]" for s in valid)
        return f"unknown section [{loc[0]}]; expected one of: {listed}"
    return f"{label(loc)}: unknown key; expected one of: {', '.join(valid)}"


# how project-file errors name a key (`[section].key`) and word an unknown one
_STYLE = Style("toml", label, unknown)


def read_project_toml(path: Path) -> tuple[dict[str, Any], Source]:
    """The project file's TOML and its `Source` (for errors naming a key's line)."""
    raw, text = read_toml(path, "project file")
    return raw, Source(path, text, _STYLE)


def _run_like(name: str) -> bool:
    """Whether a file's name says it is a run: `_RUN_LIKE_SUFFIXES`, compressed or not."""
    lower = name.lower()
    for compressed in _COMPRESSED_SUFFIXES:
        lower = lower.removesuffix(compressed)
    return lower.endswith(_RUN_LIKE_SUFFIXES)


def _runs_in_folder(
    folder: Path, ignore: Sequence[str] = ()
) -> tuple[tuple[tuple[str, Path], ...], tuple[Path, ...]]:
    """Every TREC run file in `folder`, sorted by name, and the files skipped as not runs.

    Hidden files, .md/.json/.toml notes, sub-folders and the names matching a pattern of
    `ignore` (``[runs] ignore``) are passed over. A file with a run's name (`_RUN_LIKE_SUFFIXES`,
    compressed or not) is a run, whatever it holds: one that does not parse is refused where it
    is read, naming its line. Any other file is a run when its first line reads as a run line
    (`trec._looks_like_run`), else skipped and listed (a README). A named pipe, device or socket
    is refused by type (it would hang or never end).
    """
    from evidencedesk.files.trec import _looks_like_run  # numpy: only where runs are read

    files: list[Path] = []
    skipped: list[Path] = []
    for p in list_folder(folder, ConfigError, "folder of TREC runs"):
        if p.name.startswith(".") or p.suffix.lower() in _RUN_SUFFIXES_SKIPPED or p.is_dir():
            continue
        if any(fnmatch.fnmatchcase(p.name, pattern) for pattern in ignore):
            continue
        check_input(p, ConfigError, "TREC run file")
        (files if _run_like(p.name) or _looks_like_run(p) else skipped).append(p)
    return tuple((_run_name(p), p) for p in files), tuple(skipped)


def _run_name(path: Path) -> str:
    """A run's name: its file name without the run suffix (and the compressed one)."""
    name = path.name
    for compressed in _COMPRESSED_SUFFIXES:
        if name.lower().endswith(compressed):
            name = name[: -len(compressed)]
            break
    return Path(name).stem


def qrels_format(path: Path) -> Literal["trec", "beir"]:
    """How a qrels file reads, from its first line that is neither blank nor a comment: BEIR
    when it is BEIR's header (``query-id<TAB>…``) or three tab-separated columns, TREC when it
    is four columns (``qid 0 docid grade``, by spaces or tabs: MS MARCO's ``qrels.dev.tsv``);
    anything else by the name (``.tsv``: BEIR), for that reader to name what it found."""
    return _qrels_layout(path)[0]


def _qrels_layout(path: Path) -> tuple[Literal["trec", "beir"], bool]:
    """A qrels file's format (`qrels_format`) and whether its first line separates four TREC
    columns by tabs (MS MARCO's ``qrels.dev.tsv``: the graded rows a round trip appends are
    written the same way), from one read of its first lines."""
    line = _first_line(path)
    tabs = line is not None and len(line.split("\t")) == 4
    if line is not None and (line.startswith("query-id\t") or len(line.split("\t")) == 3):
        return "beir", tabs
    if line is not None and len(line.split()) == 4:
        return "trec", tabs
    return ("beir" if path.suffix.lower() == ".tsv" else "trec"), tabs


def _first_line(path: Path) -> str | None:
    """A qrels file's first line that is neither blank nor a comment (None: none in its first
    lines, each read up to 4 KiB: a file may be one line)."""
    with path.open("rb") as handle:  # a regular file: the schema (or init's survey) checked it
        for _ in range(64):
            line = handle.readline(4096).decode("utf-8", "replace").strip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue  # (an empty read at the end is blank too: the name decides)
            return line
    return None


def _collect_runs(runs: RunsSection) -> tuple[tuple[str, Path], ...]:
    """The runs of ``dir`` then ``files``; a name given twice for the same file counts once."""
    seen: dict[str, Path] = {}
    found = [("dir", run) for run in runs.in_folder[0]] + [("files", run) for run in runs.files]
    for at, (name, path) in found:
        problem = name_problem(name, "run name")
        if problem is not None:  # (a file's name in the folder, or a name the table gives)
            raise rule(("runs", at), problem)
        if name in seen and seen[name] != path:
            raise rule(
                ("runs", "files"),
                f"expected unique run names, found {name!r} for {seen[name]} and {path}",
            )
        seen[name] = path
    return tuple(seen.items())


def _one_of(section: Section, name: str, keys: tuple[str, str], what: str) -> None:
    if all(k in section.model_fields_set for k in keys):
        raise rule((name, keys[1]), f"expected {what}, found both {keys[0]!r} and {keys[1]!r}")


class ProjectFile(Section):
    """The whole project file: its sections, and how their keys combine."""

    project: ProjectSection = ProjectSection()
    documents: DocumentsSection = DocumentsSection()
    searchers: SearchersSection = SearchersSection()
    questions: QuestionsSection = QuestionsSection()
    runs: RunsSection = RunsSection()
    report: ReportSection = ReportSection()
    gate: GateSection = GateSection()
    extras: ExtrasSection = ExtrasSection()

    def kind(self) -> Literal["pipeline", "runs"]:
        has_documents = self.documents.folders is not None or self.documents.corpus is not None
        return "pipeline" if has_documents and self.documents.index else "runs"

    @model_validator(mode="after")
    def _combine(self) -> ProjectFile:
        docs, questions, report = self.documents, self.questions, self.report
        given = docs.model_fields_set
        _one_of(
            docs,
            "documents",
            ("folders", "corpus"),
            "documents in one form: 'folders' (Markdown) or 'corpus' (BEIR corpus.jsonl)",
        )
        if "chunking" in given and "folders" not in given:
            raise rule(
                ("documents", "chunking"),
                "expected 'chunking' only with 'folders' (a BEIR corpus is one chunk per document)",
            )
        if "index" in given and not given & {"folders", "corpus"}:
            raise rule(("documents", "index"), "expected 'index' only with 'folders' or 'corpus'")
        _one_of(
            questions,
            "questions",
            ("labels", "queries"),
            "questions in one form: 'labels' (labels.jsonl) or 'queries' + 'qrels'",
        )
        _one_of(
            questions,
            "questions",
            ("labels", "qrels"),
            "judgments in one form: grades inside 'labels' or a 'qrels' file",
        )
        if questions.labels is None and questions.queries is None:
            if questions.qrels is None:
                raise rule(
                    ("questions",),
                    "expected 'labels' (labels.jsonl), 'qrels' (with 'queries' for their text), "
                    "found neither",
                )
            if self.kind() == "pipeline":
                raise rule(
                    ("questions", "queries"),
                    "expected a queries file to go with 'qrels' (a pipeline searches by the "
                    "question text; a runs-only project may leave it out), found none",
                )
        if questions.evaluate_unlisted and questions.queries is None:
            raise rule(
                ("questions", "evaluate_unlisted"),
                "expected 'evaluate_unlisted' only with a 'queries' file (without one, the "
                "judged queries are the questions)",
            )
        if questions.evaluate_unlisted and self.kind() == "pipeline":
            raise rule(
                ("questions", "evaluate_unlisted"),
                "expected 'evaluate_unlisted' only in a runs-only project (a pipeline searches "
                "by the question text, which unlisted queries lack)",
            )
        if questions.queries is not None and questions.qrels is None:
            raise rule(
                ("questions", "qrels"), "expected a qrels file to go with 'queries', found none"
            )
        self._check_runs()
        if report.primary is not None:
            reported = report.metrics or DEFAULT_METRICS[self.kind()]
            primary = _canonical(report.primary)
            if primary not in reported:
                read = f" ({primary})" if primary not in (None, report.primary) else ""
                raise rule(
                    ("report", "primary"),
                    f"expected one of the reported metrics ({', '.join(reported)}), "
                    f"found {report.primary!r}{read}",
                )
        if report.notes is not None and report.candidates is None:
            raise rule(("report", "notes"), "expected 'notes' only together with 'candidates'")
        if self.gate.baseline is not None and self.gate.policy is None:
            raise rule(
                ("gate", "baseline"),
                "expected a 'policy' to go with the gate 'baseline', found none",
            )
        if self.extras.tenant_documents is not None and self.extras.tenants is None:
            raise rule(
                ("extras", "tenant_documents"),
                "expected a 'tenants' file to go with 'tenant_documents', found none",
            )
        return self

    def _check_runs(self) -> None:
        runs_cfg = self.runs
        if runs_cfg.ignore and runs_cfg.dir is None:
            raise rule(("runs", "ignore"), "expected 'ignore' only with a runs folder ('dir')")
        runs = _collect_runs(runs_cfg)
        names = [name for name, _ in runs]
        if len(runs) > MAX_RUNS:
            raise rule(
                ("runs", "files" if "files" in runs_cfg.model_fields_set else "dir"),
                f"expected at most {MAX_RUNS} runs ('dir' and 'files' together; every pair of "
                f"variants is compared), found {len(runs)}",
            )
        baseline = runs_cfg.baseline
        if baseline is not None and baseline not in names:
            _read_skipped_run(runs_cfg.dir, baseline)
            valid = ", ".join(names) or "none (no runs given)"
            raise rule(
                ("runs", "baseline"),
                f"expected the name of one of the runs ({valid}), found {baseline!r}",
            )
        if self.kind() != "runs":
            return
        if not runs:
            raise rule(
                ("runs",),
                "expected at least one TREC run ('dir' or 'files') in a runs-only project, "
                "found none",
            )
        if baseline is None:
            raise rule(
                ("runs", "baseline"),
                "expected the name of the run the others are compared with "
                f"(one of: {', '.join(names)}), found none",
            )
        shown_only = {
            "restricted_text",
            "metrics",
            "primary",
            "averaging",
        }  # decides what the site shows, so it applies here too
        sections = (("searchers", self.searchers), ("report", self.report), ("extras", self.extras))
        for name, section in sections:
            pipeline_keys = [k for k in _given(section) if k not in shown_only]
            if pipeline_keys:
                raise rule(
                    (name, pipeline_keys[0]),
                    "expected no pipeline settings in a runs-only project (no corpus is "
                    "indexed), found one",
                )


def _read_skipped_run(folder: Path | None, name: str) -> None:
    """A file of the runs folder named like the baseline run but skipped as not a run (its first
    line does not read as a run line: a typo such as ``0x1p3`` as a score) is read with the
    strict reader, whose error names the file, the line and what is wrong there, rather than
    the baseline key."""
    if folder is None:
        return
    from evidencedesk.files.trec import read_run  # numpy: only where runs are read

    for path in _runs_in_folder(folder)[1]:
        if path.stem == name:
            read_run(path)


def _given(section: Section) -> list[str]:
    """The keys the file gave, in the model's order (the order the README lists them)."""
    return [k for k in type(section).model_fields if k in section.model_fields_set]


def resolve(model: ProjectFile, path: Path) -> dict[str, Any]:
    """The `Project` fields (all but ``max_grade``) of a valid project file."""
    root = path.parent
    docs, questions, runs_cfg = model.documents, model.questions, model.runs
    report, gate, extras = model.report, model.gate, model.extras
    fmt = "markdown" if docs.folders is not None else "beir" if docs.corpus is not None else "none"
    documents = docs.folders or ((docs.corpus,) if docs.corpus is not None else ())
    qrels = questions.qrels
    layout = (None, False) if qrels is None else _qrels_layout(qrels)
    return dict(
        name=model.project.name or root.name,
        path=path,
        root=root,
        kind=model.kind(),
        documents=documents,
        documents_format=fmt,
        chunking=docs.chunking,
        dense=model.searchers.dense,
        labels=questions.labels,
        queries=questions.queries,
        qrels=qrels,
        qrels_format=layout[0],
        qrels_tabs=layout[1],
        tags=questions.tags,
        relevance=questions.relevance,
        grade_names=questions.grades or (),
        evaluate_unlisted=questions.evaluate_unlisted,
        candidates=report.candidates,
        notes=report.notes,
        policy=gate.policy,
        baseline=gate.baseline,
        runs=_collect_runs(runs_cfg),
        runs_dir=runs_cfg.dir,
        skipped_files=runs_cfg.in_folder[1],
        baseline_run=runs_cfg.baseline,
        min_coverage=runs_cfg.min_coverage,
        max_depth=runs_cfg.max_depth,
        averaging=report.averaging,
        answers=extras.answers,
        tenants=extras.tenants,
        tenant_documents=extras.tenant_documents,
        dups=extras.dups,
        updates=extras.updates,
        seed=model.project.seed,
        max_input_mb=model.project.max_input_mb or DEFAULT_MAX_INPUT_MB,
        restricted_text=report.restricted_text,
        report_metrics=report.metrics,
        primary=_canonical(report.primary) if report.primary else None,
    )


def _canonical(name: str) -> str | None:
    """A metric name's canonical form; None for a name no metric answers to."""
    try:
        return canonical(name)
    except UnknownNameError:
        return None
