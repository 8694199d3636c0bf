"""A project's input files read into plain records, before any typed value is made from them.

Each reader here turns one kind of file into records that keep the file and the line for the
messages: the non-blank lines of a line file (`text_lines`), the JSON objects of a JSON-lines
file (`_json_objects`), the rows of each line file of a project (`rows`, by kind: a queries or
tags file in either of its formats), the Markdown documents of the document folders
(`markdown_texts`), a JSON or TOML file read whole with its text (`Whole`), the candidates' notes
and the notes beside the runs. The typed values (`Catalog`, `Label`, `GatePolicy`, `Baseline`,
`CandidateChange`) are made afterwards from these records, each beside its type: the data goes
down to the files once, and nothing above reads a file again (`results._inputs.read_inputs`,
docs/architecture.md).

Line files are streamed: a record is made when the value built from it asks for the next one, so
a large corpus is never held twice and the errors still come in the order of the file.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk.errors import ConfigError, DocumentError, InputError, LabelsError
from evidencedesk.files._structured import parse_json_lines, read_json
from evidencedesk.files._text import iter_lines, list_folder, read_text
from evidencedesk.files._validation import read_toml
from evidencedesk.files._writing import plain_slug

_JSON_BATCH = 4096  # JSON lines parsed together: their checks run once (a fifth of the time)
_TABLE_SUFFIXES = (".tsv", ".txt")  # a queries or tags file with one of these is TSV, else JSONL


def text_lines(
    path: str | Path, error: type[InputError], what: str = "file"
) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, streamed (`evidencedesk.files._text.iter_lines`)."""
    return ((n, s) for n, s in iter_lines(path, error, what) if s.strip())


def _json_objects(
    path: str | Path, error: type[InputError], what: str = "file"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON object of every non-blank line, with its line number, streamed; a line that is
    not one JSON object is refused at its line."""
    path = Path(path)
    lines = text_lines(path, error, what)
    while True:
        # `_JSON_BATCH` lines read ahead and checked together (`parse_json_lines`); a line
        # the reader refuses is refused after the lines before it are handed out
        batch: list[tuple[int, str]] = []
        refused: InputError | None = None
        try:
            for line in lines:
                batch.append(line)
                if len(batch) == _JSON_BATCH:
                    break
        except InputError as exc:
            refused = exc
        numbers = [number for number, _ in batch]
        values = parse_json_lines([raw for _, raw in batch], path, error, numbers,
                                  "a JSON object")  # fmt: skip
        for number, obj in zip(numbers, values, strict=True):
            if not isinstance(obj, dict):
                raise error(path, f"expected a JSON object, found {type(obj).__name__}", number)
            yield number, obj
        if refused is not None:
            raise refused
        if len(batch) < _JSON_BATCH:
            return


def markdown_files(folder: str | Path) -> list[Path]:
    """The ``*.md`` entries of `folder`, sorted by name; an unreadable folder is one error.

    Non-regular entries are kept: `read_text` refuses them by type (a FIFO named ``x.md`` must
    be an error, not a hang and not a silent gap). A folder with no ``*.md`` at all is an error
    too: an empty or mis-named corpus would otherwise be read as zero documents.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DocumentError(folder, "expected a folder of Markdown documents, found none")
    entries = list_folder(folder, DocumentError, "folder of Markdown documents")
    found = [p for p in entries if p.name.endswith(".md") and not p.name.startswith(".")]
    if not found:
        other = next((p.name for p in entries if p.suffix.lower() == ".md"), None)
        hint = f" ({other!r}: the suffix must be lower-case .md)" if other else ""
        raise DocumentError(
            folder, f"expected Markdown documents (*.md) in {folder}, found none{hint}"
        )
    return found


def markdown_texts(folders: Iterable[str | Path]) -> Iterator[tuple[Path, str]]:
    """Every Markdown document of `folders` with its text, folder by folder, each folder once,
    streamed."""
    seen: set[Path] = set()
    for given in folders:
        folder = Path(given)
        key = folder.resolve()
        if key in seen:
            raise DocumentError(folder, "expected each document folder once, found it twice")
        seen.add(key)
        for path in markdown_files(folder):
            yield path, read_text(path, DocumentError, "Markdown document")


@dataclass(frozen=True)
class Whole:
    """A JSON or TOML file read whole: its path, its value, and its text (where the messages
    find the line of a key)."""

    path: Path
    value: Any
    text: str


def json_file(path: str | Path, error: type[InputError], what: str, hint: str = "") -> Whole:
    """A JSON file read and parsed (`evidencedesk.files._structured.read_json`: a key twice,
    NaN, … refused here); `hint` ends each of its errors (the baseline's says how to rebuild it)."""
    path = Path(path)
    try:
        value, text = read_json(path, error, what)
    except InputError as exc:
        if not hint:
            raise
        raise error(exc.path, exc.detail + hint, exc.line) from None
    return Whole(path, value, text)


def toml_file(path: str | Path, what: str) -> Whole:
    """A TOML file read and parsed (`evidencedesk.files._validation.read_toml`)."""
    path = Path(path)
    value, text = read_toml(path, what)
    return Whole(path, value, text)


def candidates_file(path: Path) -> Whole:
    """A ``candidates.toml`` read whole."""
    return toml_file(path, "candidates file")


def policy_file(path: Path) -> Whole:
    """A gate policy file read whole (a key twice, NaN, …: refused as it is read)."""
    return json_file(path, ConfigError, "policy file")


REBUILD_BASELINE = "rebuild it with --save-baseline"  # how a saved baseline's errors end


def baseline_file(path: Path) -> Whole:
    """A saved baseline read whole (NaN compares false with everything: it would pass every
    max_drop check, so it is refused as the file is read)."""
    return json_file(path, ConfigError, "baseline", f"; {REBUILD_BASELINE}")


def note_slug(name: str) -> str:
    """File stem of a candidate's note: lower case, runs of other characters become one '-'."""
    return plain_slug(name)[:80] or "candidate"


def read_note(folder: Path | None, name: str) -> str | None:
    """The Markdown note ``<folder>/<note_slug(name)>.md``, or None when there is none.

    An unreadable notes folder is an error with the OS reason (not "no note"); a note that is
    not a regular file (a FIFO, a device) is refused by type.
    """
    if folder is None:
        return None
    path = Path(folder) / f"{note_slug(name)}.md"
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(
            path, f"expected a readable Markdown note, found {exc.strerror or exc}"
        ) from None
    return read_text(path, ConfigError, "Markdown note")


def candidate_notes(folder: Path | None, candidates: Whole) -> dict[str, str | None]:
    """The note of every candidate ``candidates.toml`` names (name -> note, None: none), read
    with the file, before its candidates are checked (a name that is not a string has none)."""
    entries = candidates.value.get("candidate")
    names = (
        [e.get("name") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    )
    named = [name for name in names if isinstance(name, str)]
    if folder is not None:
        _check_stray_notes(folder, {note_slug(name) for name in named})
    return {name: read_note(folder, name) for name in named}


def _check_stray_notes(folder: Path, slugs: set[str]) -> None:
    """Every ``.md`` of the notes folder is a candidate's note (a README aside): a note whose
    name matches no candidate would never show, so it is refused, with the nearest name."""
    if not Path(folder).is_dir():
        return  # (the project file's schema names a missing folder)
    for path in list_folder(folder, ConfigError, "notes folder"):
        stem = path.name[:-3] if path.name.lower().endswith(".md") else None
        if stem is None or stem in slugs or stem.lower() == "readme":
            continue
        near = difflib.get_close_matches(stem, sorted(slugs), n=1)
        hint = f"; did you mean {near[0]}.md?" if near else ""
        names = [f"{slug}.md" for slug in sorted(slugs)]
        shown = ", ".join(names[:10]) + (", …" if len(names) > 10 else "") or "none"
        raise ConfigError(
            path,
            f"expected a note named after a candidate (its name as a slug: {shown}), found "
            f"{path.name}, the note of no candidate{hint}",
        )


def run_note(path: Path) -> str | None:
    """The first paragraph of ``<run>.md`` beside a run file: how the run was made."""
    note = path.with_suffix(".md")
    if not note.is_file():
        return None
    text = read_text(note, ConfigError, "Markdown note about the run")
    return " ".join(text.strip().split("\n\n", 1)[0].split()) or None


@dataclass(frozen=True)
class LineFiles:
    """A project's line files as record streams, each None when the project has no such file:
    the documents (a BEIR corpus's rows, or the Markdown folders' texts), the labels file's
    rows, the queries and the tags files' rows, each with its path for the messages."""

    corpus: Iterator[tuple[int, dict[str, Any]]] | None = None
    markdown: Iterator[tuple[Path, str]] | None = None
    labels: Iterator[tuple[int, dict[str, Any]]] | None = None
    queries: Iterator[tuple[int, str | dict[str, Any]]] | None = None
    tags: Iterator[tuple[int, str | dict[str, Any]]] | None = None
    paths: Mapping[str, Path] = field(default_factory=dict)  # the keys above -> its file


# a project's line files by kind: the error their problems raise, how the messages name them,
# and whether a name ending in .tsv or .txt makes one TSV (each line a row of text)
_LINE_FILES: dict[str, tuple[type[InputError], str, bool]] = {
    "corpus": (DocumentError, "BEIR corpus file", False),
    "labels": (LabelsError, "labels file", False),
    "queries": (LabelsError, "queries file", True),
    "tags": (LabelsError, "tags file", True),
}


def rows(kind: str, path: str | Path) -> Iterator[tuple[int, Any]]:
    """The rows of a project's line file of `kind` (`_LINE_FILES`), streamed with their line
    numbers: each line's JSON object, or each line's text when the file is TSV."""
    error, what, tables = _LINE_FILES[kind]
    if tables and Path(path).suffix.lower() in _TABLE_SUFFIXES:
        return text_lines(path, error, what)
    return _json_objects(path, error, what)


def line_files(
    documents: Sequence[Path], documents_format: str, labels: Path | None = None,
    queries: Path | None = None, tags: Path | None = None,
) -> LineFiles:  # fmt: skip
    """The streams of a project's line files (nothing is read before a stream is asked for its
    first record)."""
    markdown = markdown_texts(documents) if documents_format == "markdown" else None
    corpus = documents[0] if documents_format == "beir" else None
    given = {"corpus": corpus, "labels": labels, "queries": queries, "tags": tags}
    paths = {kind: Path(p) for kind, p in given.items() if p is not None}
    streams = {kind: rows(kind, path) for kind, path in paths.items()}
    return LineFiles(
        corpus=streams.get("corpus"),
        markdown=markdown,
        labels=streams.get("labels"),
        queries=streams.get("queries"),
        tags=streams.get("tags"),
        paths=paths,
    )
