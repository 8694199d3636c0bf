"""``evidencedesk init [DIR]``: look at a folder of a team's files, write a commented project file.

It recognises the BEIR layout (``corpus.jsonl``, ``queries.jsonl``, ``qrels/*.tsv``), TREC qrels
and run files (by their columns, not their names alone), and folders of Markdown documents with
front matter. Judgments and runs make a runs-only project (a corpus beside them is shown, not
indexed; a comment says how to index it instead); documents without runs make a pipeline
project. What it cannot know it guesses and marks GUESSED: the relevance threshold (trec_eval's
1 unless a labels file says 2), with the share of the judged questions each threshold keeps,
and the baseline run (the first by name). Judgments are read with the build's own loaders, so a
broken file stops `init` with the build's one-line error. Only regular files are opened (a
named pipe called ``x.md`` would block the survey).
"""

from __future__ import annotations

import argparse
import glob
import os
import stat
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _BAD_INPUT
from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.files._project_file import PROJECT_FILE, qrels_format
from evidencedesk.files._text import MAX_LINE_BYTES, check_input, naming
from evidencedesk.files._writing import write_file
from evidencedesk.results._verdicts import LEAN_P

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams

# suffixes of the folder's loose files that `init` never takes for a TREC run
_SKIPPED_SUFFIXES = {".md", ".json", ".toml", ".jsonl", ".tsv", ".py", ".csv", ".html"}
# query file names `init` looks for beside the qrels, in this order
_QUERY_FILES = ("queries.jsonl", "queries.tsv", "topics.tsv", "topics.jsonl")
_QUERY_PREFIXES, _QUERY_SUFFIXES = ("queries.", "topics."), (".jsonl", ".tsv")  # then, by name
# a runs-only project's release gate, to switch on: a policy file's keys, with a start for each
_STARTER_GATE = [
    "# A release gate (GO / REVIEW / BLOCK per run): write gate_policy.json, then uncomment:",
    "# [gate]",
    '# policy = "gate_policy.json"',
    "# A start for gate_policy.json (docs/project-file.md explains each key):",
    '#   {"k": 10, "min_recall": 0.5, "min_pass_rate": 0.5, "max_drop": 0.02,',
    f'#    "review_on_mrr_flips": true, "flips_max_p": {LEAN_P}, "critical": []}}',
    "#   k: the top k the gate reads; min_recall / min_pass_rate: floors for recall@k and the",
    "#   share of questions with a relevant result in the top k; max_drop: the largest drop",
    "#   against the baseline run; review_on_mrr_flips with flips_max_p: review when MRR got",
    f"#   worse for more questions than better with a sign-test p of at most {LEAN_P} (8 worse",
    "#   against 7 better, p = 1.000, is noise); critical: question ids that must keep passing.",
    "",
]


@dataclass(frozen=True)
class Survey:
    """What `survey` found in a folder; paths are absolute."""

    folder: Path
    corpus: Path | None = None
    markdown: tuple[Path, ...] = ()
    labels: Path | None = None
    queries: Path | None = None
    qrels: Path | None = None
    other_qrels: tuple[Path, ...] = ()
    runs_dir: Path | None = None
    runs: tuple[Path, ...] = ()
    not_runs: tuple[Path, ...] = ()  # files in the runs folder that are not runs: `ignore`
    # files whose first line is `qid docid rank` (MS MARCO's run format), when no run is found
    ranked_lists: tuple[Path, ...] = ()
    tags: Path | None = None
    candidates: Path | None = None
    notes: Path | None = None
    policy: Path | None = None
    baseline: Path | None = None


def _first_line(path: Path) -> str:
    """The first non-blank line of a file, read no further than the per-line limit."""
    with naming(path), path.open("rb") as handle:
        head = handle.read(MAX_LINE_BYTES)
    for raw in head.decode("utf-8", "replace").splitlines():
        if raw.strip():
            return raw
    return ""


def _regular(path: Path) -> bool:
    """A regular file (a FIFO, device or folder named like a document is never opened)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _is_run(path: Path) -> bool:
    from evidencedesk.files.trec import _looks_like_run  # numpy: only once a folder is read

    with naming(path):
        return _regular(path) and _looks_like_run(path)


def _is_trec_qrels(path: Path) -> bool:
    cols = _first_line(path).split()
    return len(cols) == 4 and cols[3].lstrip("-").isdigit()


def _is_ranked_list(path: Path) -> bool:
    """A first line of `qid docid rank` (MS MARCO's run format), in a file not named like
    qrels (BEIR qrels without a header read the same)."""
    from evidencedesk.files._trec_arrays import ranked_list

    return "qrel" not in path.name.lower() and ranked_list(_first_line(path).encode().split())


def _has_front_matter(path: Path) -> bool:
    return _first_line(path).strip() == "---"


def _files(folder: Path) -> list[Path]:
    with naming(folder):
        return sorted(p for p in folder.iterdir() if _regular(p) and not p.name.startswith("."))


def _markdown_folders(folder: Path) -> tuple[Path, ...]:
    """The folder and its sub-folders whose every ``*.md`` starts with front matter."""
    found = []
    with naming(folder):
        subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    for candidate in [folder, *(p for p in subs if p.name not in ("notes", "site"))]:
        with naming(candidate):
            docs = sorted(p for p in candidate.glob("*.md") if _regular(p))
        if docs and all(_has_front_matter(p) for p in docs):
            found.append(candidate)
    return tuple(found)


def _qrels(folder: Path) -> tuple[Path, ...]:
    """BEIR ``qrels/*.tsv`` (test first), then the other qrels files named like qrels, TREC
    (``qid 0 docid grade``, by spaces or tabs: MS MARCO's ``qrels.dev.tsv``) or BEIR by their
    first line (`qrels_format`)."""
    beir = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
    beir.sort(key=lambda p: (p.stem != "test", p.name))
    named = [
        p
        for place in (folder, folder / "qrels")
        if place.is_dir()
        for p in _files(place)
        if "qrel" in p.name.lower()
        and p not in beir
        and (_is_trec_qrels(p) if qrels_format(p) == "trec" else p.suffix.lower() == ".tsv")
    ]
    return tuple(beir + named)


def _policy_file(files: Iterable[Path]) -> Path | None:
    """The release gate's policy: a ``gate_policy*.json`` whatever it holds (validate names what
    is wrong with it), else the first other ``.json`` named like one (``*policy*``, ``gate*``;
    never a ``baseline*``) that the gate's own loader reads as a policy."""
    named = [p for p in files if p.suffix.lower() == ".json"]
    ours = next((p for p in named if p.name.startswith("gate_policy")), None)
    if ours is not None:
        return ours
    from evidencedesk.gate import load_policy

    for path in named:
        name = path.name.lower()
        if ("policy" in name or name.startswith("gate")) and not name.startswith("baseline"):
            try:
                load_policy(path)
            except EvidencedeskError:  # another file named so: not adopted
                continue
            return path
    return None


def survey(folder: Path) -> Survey:
    """Look at `folder` (and one level below it); read nothing but first lines (and a JSON file
    named like a gate policy, `_policy_file`)."""
    if not folder.is_dir():
        found = "nothing" if not folder.exists() else "a file"
        raise ConfigError(folder, f"expected a folder to look at, found {found}")
    top = {p.name: p for p in _files(folder)}
    queries = next((top[n] for n in _QUERY_FILES if n in top), None) or next(
        (
            p
            for n, p in top.items()
            if n.startswith(_QUERY_PREFIXES) and n.endswith(_QUERY_SUFFIXES)
        ),
        None,
    )  # the names above first, then `queries.dev.tsv` and the like
    qrels = _qrels(folder)
    runs_dir = folder / "runs"
    in_dir = (
        [p for p in _files(runs_dir) if p.suffix.lower() not in {".md", ".json", ".toml"}]
        if runs_dir.is_dir()
        else []
    )
    loose = [
        p
        for p in top.values()
        if p.suffix.lower() not in _SKIPPED_SUFFIXES and p not in qrels and _is_run(p)
    ]
    run_files = [p for p in in_dir if _is_run(p)]
    # `dir` reads every file in the folder but notes (.md, .json, .toml) and hidden ones, and a
    # file named like a run (a README.txt) that does not parse is an error: the others go under
    # `ignore`
    use_dir = bool(run_files)
    runs = tuple(sorted(run_files + loose, key=lambda p: (p.stem, str(p))))
    policy = _policy_file(top.values())
    baseline = next(
        (p for n, p in top.items() if n.startswith("baseline") and n.endswith(".json")), None
    )
    return Survey(
        folder=folder,
        corpus=top.get("corpus.jsonl"),
        markdown=_markdown_folders(folder),
        labels=top.get("labels.jsonl"),
        queries=queries,
        qrels=qrels[0] if qrels else None,
        other_qrels=qrels[1:],
        runs_dir=runs_dir if use_dir else None,
        runs=runs,
        ranked_lists=()
        if runs
        else tuple(
            p
            for p in [*in_dir, *top.values()]
            if p not in qrels and p != queries and _is_ranked_list(p)
        ),
        not_runs=tuple(p for p in in_dir if p not in run_files) if use_dir else (),
        tags=top.get("tags.tsv"),
        candidates=top.get("candidates.toml"),
        notes=folder / "notes" if (folder / "notes").is_dir() else None,
        policy=policy,
        baseline=baseline,
    )


def _judgments_in(s: Survey) -> dict[str, dict[str, int]]:
    """The judgments, read with the build's loaders."""
    from evidencedesk.files.trec import read_qrels
    from evidencedesk.retrieval.beir import read_beir_qrels
    from evidencedesk.retrieval.labels import load_labels

    if s.labels is not None:
        return {label.id: dict(label.grades) for label in load_labels(s.labels, None, 2)}
    if s.qrels is not None:
        reader = read_beir_qrels if qrels_format(s.qrels) == "beir" else read_qrels
        return reader(s.qrels)
    return {}


def _unlisted(s: Survey, judgments: dict[str, dict[str, int]]) -> list[str]:
    """The judged query ids a queries file does not list, in the judgments' order (none without
    a queries file, or with a labels file: its questions are the labelled ones)."""
    from evidencedesk.retrieval.beir import read_queries

    if s.labels is not None or s.queries is None:
        return []
    listed = {q.id for q in read_queries(s.queries)}
    return [q for q, docs in judgments.items() if docs and q not in listed]


def _unlisted_comment(unlisted: Sequence[str], queries: str, pipeline: bool) -> list[str]:
    """The comment on the judged queries the queries file (`queries`, quoted) does not list,
    and in a runs-only project the key that evaluates them."""
    shown = ", ".join(map(_q, unlisted[:3])) + (", …" if len(unlisted) > 3 else "")
    noun = "query is" if len(unlisted) == 1 else "queries are"
    said = [f"# {len(unlisted)} judged {noun} not in {queries} ({shown}): left out of every number"]
    if not pipeline:  # a pipeline searches by a question's text, which they lack
        said.append("# evaluate_unlisted = true      # evaluates them too, shown by their ids")
    return said


def _chunking_lines(labelled: dict[str, dict[str, int]]) -> list[str]:
    """The chunking of Markdown folders: by paragraph, unless a labels file grades only each
    document's first chunk (``doc:c0``), which reads as labels of whole documents (cut by
    paragraph, such a grade would fall on the first paragraph alone) -- said as a guess."""
    graded = {c for docs in labelled.values() for c in docs}
    if graded and all(c.endswith(":c0") for c in graded):
        return [f"# GUESSED (every one of the {len(graded)} labelled chunks is a document's "
                "first, :c0): a whole document a chunk",
                'chunking = "document"         # or "paragraph": one chunk per paragraph']  # fmt: skip
    return ['chunking = "paragraph"        # one chunk per paragraph; or "document"']


def _kept_at(judgments: dict[str, dict[str, int]], threshold: int) -> int:
    """The judged questions that keep a relevant judgment at `threshold`."""
    return sum(any(g >= threshold for g in docs.values()) for docs in judgments.values() if docs)


def _relevance_comment(judgments: dict[str, dict[str, int]], chosen: int, labels: bool) -> str:
    judged = sum(1 for docs in judgments.values() if docs)
    top = max((g for docs in judgments.values() for g in docs.values()), default=0)

    def keeps(t: int) -> str:
        n = _kept_at(judgments, t)
        return f"{n} ({round(100 * n / judged) if judged else 0} %)"

    why = ("a labels file: grade 2 answers the question" if labels
           else "trec_eval's default level, -l 1")  # fmt: skip
    others = "; ".join(f">= {t} keeps {keeps(t)}" for t in range(1, top + 1) if t != chosen)
    return (f"# GUESSED ({why}): relevant = grade >= {chosen} keeps {keeps(chosen)} of the "
            f"{judged} judged questions" + (f"; {others}" if others else ""))  # fmt: skip


# the characters a written name shows as an escape: controls, format characters (bidi overrides,
# zero-width characters) and line and paragraph separators -- none of them can end a line of the
# file, close its string or reorder what an editor shows
_ESCAPED = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _pattern(name: str) -> str:
    """A file name as an ``ignore`` pattern that matches it: ``[``, ``*`` and ``?`` escaped
    (`glob.escape`), and ``?`` for a character the key refuses (a backslash) or TOML cannot
    hold (a byte that is not UTF-8)."""
    escaped = glob.escape(name)
    return "".join("?" if c == "\\" or "\ud800" <= c <= "\udfff" else c for c in escaped)


def _q(text: str) -> str:
    """`text` as a TOML basic string, on one line: ``"`` and ``\\`` escaped, every control,
    format or separator character written as ``\\uXXXX``, and a byte that is not UTF-8 (a lone
    surrogate from the file system) as U+FFFD, which TOML can hold. Names from the folder are
    written only so, in comments too."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif "\ud800" <= ch <= "\udfff":
            out.append("\ufffd")
        elif unicodedata.category(ch) in _ESCAPED:
            out.append(f"\\u{ord(ch):04X}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08X}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def _ranked_list_hint(s: Survey, rel: Callable[[Path], str]) -> str:
    """For a folder without runs whose file holds `qid docid rank` lines: that file (by `rel`,
    its path in the folder) and the rewrite that makes it a TREC run, run in the folder; else
    nothing."""
    if not s.ranked_lists:
        return ""
    from evidencedesk.files._trec_arrays import as_trec

    first = s.ranked_lists[0]
    return f" ({rel(first)}{as_trec(rel(first), _first_line(first).encode().split(), False)})"


def render(s: Survey) -> str:
    """The commented ``evidencedesk.toml`` text for what `survey` found."""

    def rel(path: Path) -> str:
        return Path(os.path.relpath(path, s.folder)).as_posix()

    has_documents = s.corpus is not None or bool(s.markdown)
    # judgments and runs: the team's own runs are the variants (a corpus beside them is shown)
    pipeline = has_documents and not (s.runs and s.labels is None)
    if s.labels is None and s.qrels is None:
        raise ConfigError(
            s.folder,
            "expected questions (labels.jsonl, or qrels with queries.jsonl/queries.tsv for "
            "their text), found none",
        )
    if s.labels is None and s.queries is None and pipeline:
        raise ConfigError(
            s.folder,
            "expected a queries file (queries.jsonl or queries.tsv) to go with the qrels: a "
            "pipeline searches by the question text; add TREC runs for a runs-only project",
        )
    if not has_documents and not s.runs:
        raise ConfigError(
            s.folder,
            "expected documents (corpus.jsonl or Markdown with front matter) or TREC runs, "
            f"found neither{_ranked_list_hint(s, rel)}",
        )
    judgments = _judgments_in(s)
    unlisted = _unlisted(s, judgments)
    grades = sorted({g for docs in judgments.values() for g in docs.values()})
    top = max(grades, default=0)
    if top < 1:
        raise ConfigError(
            s.labels or s.qrels, "expected at least one judgment with a grade above 0, found none"
        )
    relevance = 2 if s.labels is not None and top >= 2 else 1
    lines = [
        f"# Written by `evidencedesk init` from what it found in {_q(s.folder.resolve().name)}.",
        "# Check every line marked GUESSED, then: evidencedesk validate --project <this folder>.",
        "# Paths are relative to this file; docs/project-file.md lists every key.",
        "",
        "[project]",
        f"name = {_q(s.folder.resolve().name)}",
        "seed = 0",
        "",
    ]
    if s.corpus is not None:
        lines += [
            "[documents]",
            f"corpus = {_q(rel(s.corpus))}          # BEIR corpus: one chunk per document",
        ]
        if not pipeline:
            lines += [
                "index = false                 # shown on question pages; the runs are compared",
                "# index = true: evidencedesk indexes the corpus and compares its built-in "
                "searchers instead (a pipeline project; your runs join as extra variants, cut "
                "to the top 3)",
            ]
        if s.markdown:
            lines.append(
                "# also found Markdown folders (not used; a project has one form): "
                + ", ".join(_q(rel(p)) for p in s.markdown)
            )
        lines.append("")
    elif s.markdown:
        folders = ", ".join(_q(rel(p)) for p in s.markdown)
        lines += [
            "[documents]",
            f"folders = [{folders}]   # Markdown with front matter",
            *_chunking_lines(judgments if s.labels is not None else {}),
        ]
        if not pipeline:
            lines += ["index = false                 # shown only; the runs are compared"]
        lines.append("")
    lines.append("[questions]")
    if s.labels is not None:
        lines.append(f"labels = {_q(rel(s.labels))}   # graded chunk labels")
    else:
        if s.queries is not None:
            lines.append(f"queries = {_q(rel(s.queries))}   # the questions' text")
        fmt = "BEIR" if qrels_format(s.qrels) == "beir" else "TREC"  # type: ignore[arg-type]
        lines.append(f"qrels = {_q(rel(s.qrels))}   # {fmt} qrels")  # type: ignore[arg-type]
        if s.other_qrels:
            lines.append(
                "# other qrels found (pick one): " + ", ".join(_q(rel(p)) for p in s.other_qrels)
            )
    if s.tags is not None:
        lines.append(f"tags = {_q(rel(s.tags))}")
    seen = ", ".join(map(str, grades))
    # the questions are the ones a queries file lists (the build leaves the others out)
    left_out = set(unlisted)
    asked = {q: d for q, d in judgments.items() if q not in left_out}
    lines.append(_relevance_comment(asked, relevance, s.labels is not None))
    lines.append(f"relevance = {relevance}                  # grades present: {seen}")
    if unlisted and s.queries is not None:
        lines += _unlisted_comment(unlisted, _q(rel(s.queries)), pipeline)
    lines.append("")
    if s.runs:
        lines.append("[runs]")
        if s.runs_dir is not None:
            lines.append(
                f"dir = {_q(rel(s.runs_dir))}   # every file in it is a TREC run, but notes "
                "(.md, .json, .toml)" + (" and those under ignore" if s.not_runs else "")
            )
            if s.not_runs:
                names = ", ".join(_q(_pattern(p.name)) for p in s.not_runs)
                lines.append(f"ignore = [{names}]   # files in it that are not TREC runs")
        loose = [p for p in s.runs if s.runs_dir is None or p.parent != s.runs_dir]
        if loose:
            lines.append("files = [" + ", ".join(_q(rel(p)) for p in loose) + "]")
        if not pipeline:
            lines.append(
                f"baseline = {_q(s.runs[0].stem)}   # GUESSED: the first run by name; the others are compared with it"
            )
        lines.append("")
    if pipeline and s.candidates is not None:
        lines += ["[report]", f"candidates = {_q(rel(s.candidates))}"]
        if s.notes is not None:
            lines.append(f"notes = {_q(rel(s.notes))}")
        lines.append("")
    if s.policy is not None:
        lines += ["[gate]", f"policy = {_q(rel(s.policy))}"]
        if s.baseline is not None:
            lines.append(f"baseline = {_q(rel(s.baseline))}")
        lines.append("")
    elif not pipeline:
        lines += _STARTER_GATE
    if not pipeline:
        lines += ["# A runs-only project: no documents are indexed; each run is a variant.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def init(folder: Path, force: bool = False) -> Path:
    """Write ``<folder>/evidencedesk.toml``; refuse to replace one unless `force`."""
    target = folder / PROJECT_FILE
    if (target.exists() or target.is_symlink()) and not force:
        raise ConfigError(
            target, "expected no project file yet, found one (use --force to replace it)"
        )
    if target.exists():
        check_input(target, ConfigError, "project file")  # never write through a folder or FIFO
    text = render(survey(folder))
    # written atomically; an existing project file is replaced only with --force, as asked
    write_file(target, text.encode("utf-8"), "project file", replaces=lambda _: force,
               replaceable="an evidencedesk.toml to replace (--force)")  # fmt: skip
    return target


__all__ = ["Survey", "init", "render", "survey"]


# the one-line summary of `evidencedesk init` in the command list
HELP = "write a commented evidencedesk.toml for a folder of your files"
# what `evidencedesk init --help` says the command does
DESCRIPTION = (
    "Look at a folder (BEIR corpus.jsonl, queries.jsonl and qrels/*.tsv; TREC qrels and run "
    "files; folders of Markdown documents with front matter) and write a commented "
    "evidencedesk.toml saying what was found and what was guessed (the relevance threshold "
    "from the grades present, the baseline run), then print the commands that check and "
    "build it. An existing evidencedesk.toml is never replaced without --force."
)
# the exit statuses `evidencedesk init --help` lists
EXIT = (
    "0    evidencedesk.toml was written",
    f"{_BAD_INPUT} (also: the file exists and --force was not given; nothing is written)",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk init` (DIR, --force) to its parser."""
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the folder to look at and write evidencedesk.toml into (default: .)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing evidencedesk.toml")


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk init`: write evidencedesk.toml, print how to check and build it."""
    from evidencedesk._inert import shell_command

    written = init(args.dir, force=args.force)
    folder = str(args.dir)
    streams.say(f"wrote {written}")
    # the program is words of its own ("python -m evidencedesk.report" is three), each a word
    # of the command: quoted as one, a shell would look for a program of that whole name
    prog = streams.prog.split(" ")
    streams.say("check it:  " + shell_command([*prog, "validate", "--project", folder]))
    streams.say("build it:  " + shell_command([*prog, "build", "--project", folder, "--out",
                                              "site"]))  # fmt: skip
    return 0
