"""``evidencedesk run``: a TREC run of a built-in searcher over a project's documents and questions.

``--searcher {sparse,dense,hybrid,minilm} --out FILE [--depth N] [--tag TAG] [--project PATH]``.
Every question the project evaluates (with its text) is searched over the project's documents,
in the scope the build searches (current, public), to `--depth` results; the run is written with
`files.trec.write_run` (ranks in trec_eval's order: score, then document id, both descending),
and beside it ``<FILE stem>.md``, the run's note (a pipeline site's description of the run) and the mark
of ownership: an existing run file is replaced only when its note is one this command wrote
(`_NOTE_MARK`), as every file evidencedesk writes is ours or refused (docs/output-folder.md).
``dense`` and ``hybrid`` follow the project's ``[searchers] dense`` (the build's variants of the
same names); ``minilm`` is the MiniLM searcher. The same inputs give the same bytes. Progress
goes to stderr; stdout says what was read and what was written.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _BAD_INPUT, _add_project_argument
from evidencedesk.errors import ConfigError

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams
    from evidencedesk.retrieval.searchers import _Searcher

# the searchers a run can be written from, as `--searcher` names them
_SEARCHERS = ("sparse", "dense", "hybrid", "minilm")
_DEPTH = 100  # results per question by default: what BEIR and most TREC tracks judge
_PROGRESS_STEPS = 10  # progress lines per run (one every tenth of the questions)
# the first words of every note this command writes: the mark that the run beside it is ours
_NOTE_MARK = "Written by evidencedesk run:"
_NOTE_WHAT = "a note evidencedesk run wrote"  # what may stand where the note goes
_RUN_WHAT = "a run evidencedesk run wrote"  # what may stand where the run goes

# the one-line summary of `evidencedesk run` in the command list
HELP = "write a TREC run of a built-in searcher (sparse, dense, hybrid, minilm)"
# what `evidencedesk run --help` says the command does
DESCRIPTION = (
    "Search every question of a project over its documents with one built-in searcher and write "
    "a TREC run (qid Q0 docid rank score tag) of the top --depth results, with a note of how "
    "it was made beside it (its name with the suffix .md), so that a built-in searcher such as "
    "MiniLM stands beside the team's own runs in a runs-only project. Deterministic; progress "
    "on stderr. An existing file is replaced only when this command wrote it."
)
# the exit statuses `evidencedesk run --help` lists
EXIT = (
    "0    the run and its note were written",
    _BAD_INPUT,
    "     (also: no documents to search, or a file at --out that evidencedesk run did not write)",
)


def _depth(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, found {text!r}")
    return value


def _tag(text: str) -> str:
    if not text or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"expected a tag without whitespace, found {text!r}")
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk run` to its parser."""
    _add_project_argument(p)
    p.add_argument("--searcher", choices=_SEARCHERS, required=True,
                   help="the built-in searcher: dense and hybrid follow [searchers] dense")  # fmt: skip
    p.add_argument("--depth", type=_depth, default=_DEPTH, metavar="N",
                   help=f"results per question (default: {_DEPTH})")  # fmt: skip
    p.add_argument("--out", type=Path, required=True, metavar="FILE",
                   help="the run file to write (its note: FILE with the suffix .md)")  # fmt: skip
    p.add_argument("--tag", type=_tag, default=None,
                   help="the run's tag, its last column (default: evidencedesk-SEARCHER)")  # fmt: skip


def _is_note(path: Path) -> bool:
    """True if `path` is a note this command wrote (it starts with `_NOTE_MARK`)."""
    try:
        with path.open("rb") as f:
            return f.read(len(_NOTE_MARK.encode())) == _NOTE_MARK.encode()
    except OSError:
        return False


def _search(
    searcher: _Searcher, questions: list[tuple[str, str]], depth: int, allowed: frozenset[str],
    streams: _Streams,
) -> dict[str, dict[str, float]]:  # fmt: skip
    """qid -> {document id: score} of the top `depth`, with a progress line every tenth."""
    step = max(1, len(questions) // _PROGRESS_STEPS)
    found: dict[str, dict[str, float]] = {}
    for i, (qid, text) in enumerate(questions, start=1):
        hits = searcher.search(text, depth, allowed)
        found[qid] = {hit.chunk.id: float(hit.score) for hit in hits}
        if i % step == 0 or i == len(questions):
            streams.error(f"  questions searched {i} / {len(questions)}")
    return found


def _refuse_what_is_not_ours(out: Path, note: Path, owned: bool) -> None:
    """Before any search: a run or note there that this command did not write is refused, in
    `files.writing.write_file`'s words (it refuses and writes nothing)."""
    from evidencedesk.files._writing import write_file

    if os.path.lexists(note) and not owned:
        write_file(note, b"", "run's note", _is_note, _NOTE_WHAT)
    if os.path.lexists(out) and not owned:
        write_file(out, b"", "run file", None, _RUN_WHAT)


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk run`: search, write the run and its note, say what was written."""
    from evidencedesk.files._writing import write_file
    from evidencedesk.files.trec import write_run
    from evidencedesk.report._words import how_many
    from evidencedesk.results._inputs import find_project
    from evidencedesk.retrieval import minilm
    from evidencedesk.retrieval.catalog import Scope
    from evidencedesk.retrieval.lifecycle import _dense_searcher, build_searchers
    from evidencedesk.version import __version__

    out, name = args.out, args.searcher
    note = out.with_suffix(".md")
    if note == out:
        raise ConfigError(out, "expected a run file name, found a .md name (the run's note is "
                          "<name>.md beside the run)")  # fmt: skip
    project, first_line = find_project(args.project)
    streams.say(first_line)
    streams.out.flush()
    catalog = project.load_catalog()
    if catalog is None:
        raise ConfigError(project.path, "expected [documents] to search (a corpus.jsonl or "
                          "Markdown folders), found none")  # fmt: skip
    questions = [(lab.id, lab.question) for lab in project.load_labels(catalog) if lab.question]
    if not questions:
        raise ConfigError(project.path, "expected questions with a text to search, found none")
    owned = _is_note(note)  # decided before anything is written (or searched)
    _refuse_what_is_not_ours(out, note, owned)
    embedder = "minilm" if name == "minilm" else project.dense
    if embedder == "minilm" and name != "sparse":  # the model on texts it was not trained for
        warning = minilm._language_warning((f"{c.title}\n{c.text}" for c in catalog.chunks),
                                          (text for _, text in questions))  # fmt: skip
        if warning is not None:
            streams.error(f"warning: {warning}")
    searcher = (_dense_searcher(catalog.chunks, "minilm", "minilm") if name == "minilm"
                else build_searchers(catalog, project.dense)[name])  # fmt: skip
    allowed = catalog.allowed(Scope())
    streams.error(f"  searching {how_many(len(questions), 'question')} over "
                  f"{how_many(len(allowed), 'passage')} with the "
                  f"{name} searcher (the index is built on the first)")  # fmt: skip
    found = _search(searcher, questions, args.depth, allowed, streams)
    tag = args.tag or f"evidencedesk-{name}"
    write_run(out, found, tag, lambda _: owned, _RUN_WHAT)
    what = {
        "sparse": "BM25 over Unicode-aware tokens",
        "dense": f"the dense searcher, {project.dense} embedder",
        "hybrid": f"reciprocal-rank fusion of sparse and dense ({project.dense} embedder)",
        "minilm": minilm._DESCRIPTION,
    }[name]
    sources = ", ".join(project.relative(d) for d in project.documents)
    text = (
        f"{_NOTE_MARK} the {name} searcher ({what}), the top {args.depth} of "
        f"{how_many(len(allowed), 'passage')} ({sources}) for each of "
        f"{how_many(len(questions), 'question')}, tag {tag}; evidencedesk "
        f"{__version__}.\n\nevidencedesk run replaces this note and its run only while the note "
        "starts with the words above.\n"
    )
    write_file(note, text.encode("utf-8"), "run's note", _is_note, _NOTE_WHAT)
    lines = sum(len(docs) for docs in found.values())
    streams.say(f"wrote {out}: {how_many(lines, 'line')}, up to "
                f"{how_many(args.depth, 'document')} for each of "
                f"{how_many(len(questions), 'question')} (the {name} searcher, tag {tag})")  # fmt: skip
    streams.say(f"wrote {note}: how the run was made")
    return 0
