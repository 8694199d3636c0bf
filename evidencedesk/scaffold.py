"""``evidencedesk init [DIR]``: look at a folder of a team's files, write a commented project file.

It recognises the BEIR layout (``corpus.jsonl``, ``queries.jsonl``, ``qrels/*.tsv``), TREC qrels
and run files (by their columns, not their names alone), and folders of Markdown documents with
front matter; what it cannot know it guesses and says so in a comment (the relevance threshold
from the grades present, the baseline run = the first by name). Judgments are read with the
build's own loaders, so a broken file stops `init` with the build's one-line error.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from evidencedesk.errors import ConfigError
from evidencedesk.limits import MAX_LINE_BYTES, check_input

PROJECT_FILE = "evidencedesk.toml"
SKIPPED_SUFFIXES = {".md", ".json", ".toml", ".jsonl", ".tsv", ".py", ".csv", ".html"}
QUERY_FILES = ("queries.jsonl", "queries.tsv", "topics.tsv", "topics.jsonl")


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
    tags: Path | None = None
    candidates: Path | None = None
    notes: Path | None = None
    policy: Path | None = None
    baseline: Path | None = None


def _first_line(path: Path) -> str:
    """The first non-blank line of a file, read no further than the per-line limit."""
    with path.open("rb") as handle:
        head = handle.read(MAX_LINE_BYTES)
    for raw in head.decode("utf-8", "replace").splitlines():
        if raw.strip():
            return raw
    return ""


def _is_run(path: Path) -> bool:
    cols = _first_line(path).split()
    return len(cols) == 6


def _is_trec_qrels(path: Path) -> bool:
    cols = _first_line(path).split()
    return len(cols) == 4 and cols[3].lstrip("-").isdigit()


def _has_front_matter(path: Path) -> bool:
    return _first_line(path).strip() == "---"


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def _markdown_folders(folder: Path) -> tuple[Path, ...]:
    """The folder and its sub-folders whose every ``*.md`` starts with front matter."""
    found = []
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    for candidate in [folder, *(p for p in subs if p.name not in ("notes", "site"))]:
        docs = sorted(candidate.glob("*.md"))
        if docs and all(_has_front_matter(p) for p in docs):
            found.append(candidate)
    return tuple(found)


def _qrels(folder: Path) -> tuple[Path, ...]:
    """BEIR ``qrels/*.tsv`` (test first), then TREC qrels files named like qrels."""
    beir = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
    beir.sort(key=lambda p: (p.stem != "test", p.name))
    trec = [
        p
        for place in (folder, folder / "qrels")
        if place.is_dir()
        for p in _files(place)
        if "qrel" in p.name.lower() and p.suffix.lower() != ".tsv" and _is_trec_qrels(p)
    ]
    return tuple(beir + trec)


def survey(folder: Path) -> Survey:
    """Look at `folder` (and one level below it); read nothing but first lines."""
    if not folder.is_dir():
        found = "nothing" if not folder.exists() else "a file"
        raise ConfigError(folder, f"expected a folder to look at, found {found}")
    top = {p.name: p for p in _files(folder)}
    queries = next((top[n] for n in QUERY_FILES if n in top), None)
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
        if p.suffix.lower() not in SKIPPED_SUFFIXES and p not in qrels and _is_run(p)
    ]
    run_files = [p for p in in_dir if _is_run(p)]
    # `dir` takes every file in the folder, so it is used only when all of them are runs;
    # otherwise the runs in it are listed one by one.
    use_dir = bool(in_dir) and len(run_files) == len(in_dir)
    runs = tuple(sorted(run_files + loose, key=lambda p: (p.stem, str(p))))
    policy = next(
        (p for n, p in top.items() if n.startswith("gate_policy") and n.endswith(".json")), None
    )
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
        tags=top.get("tags.tsv"),
        candidates=top.get("candidates.toml"),
        notes=folder / "notes" if (folder / "notes").is_dir() else None,
        policy=policy,
        baseline=baseline,
    )


def grades_in(s: Survey) -> list[int]:
    """Every grade in the judgments, read with the build's loaders."""
    from evidencedesk.retrieval.beir import read_beir_qrels
    from evidencedesk.retrieval.labels import load_labels
    from evidencedesk.retrieval.trec import read_qrels

    if s.labels is not None:
        judged = [dict(label.grades) for label in load_labels(s.labels, None, 2)]
    elif s.qrels is not None:
        reader = read_beir_qrels if s.qrels.suffix.lower() == ".tsv" else read_qrels
        judged = list(reader(s.qrels).values())
    else:
        judged = []
    return sorted({g for docs in judged for g in docs.values()})


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def render(s: Survey) -> str:
    """The commented ``evidencedesk.toml`` text for what `survey` found."""

    def rel(path: Path) -> str:
        return Path(os.path.relpath(path, s.folder)).as_posix()

    pipeline = s.corpus is not None or bool(s.markdown)
    if s.labels is None and (s.queries is None or s.qrels is None):
        raise ConfigError(
            s.folder,
            "expected questions (labels.jsonl, or queries.jsonl/queries.tsv with qrels), "
            "found " + ("a qrels file but no queries file" if s.qrels else "none"),
        )
    if not pipeline and not s.runs:
        raise ConfigError(
            s.folder,
            "expected documents (corpus.jsonl or Markdown with front matter) or TREC runs, "
            "found neither",
        )
    grades = grades_in(s)
    top = max(grades, default=0)
    if top < 1:
        raise ConfigError(
            s.labels or s.qrels, "expected at least one judgment with a grade above 0, found none"
        )
    relevance = 1 if top == 1 else 2
    lines = [
        f"# Written by `evidencedesk init` from what it found in {s.folder.resolve().name}/.",
        "# Check every line marked GUESSED, then: evidencedesk validate --project <this folder>.",
        '# Paths are relative to this file; README "Your own data" lists every key.',
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
        if s.markdown:
            lines.append(
                "# also found Markdown folders (not used; a project has one form): "
                + ", ".join(rel(p) for p in s.markdown)
            )
        lines.append("")
    elif s.markdown:
        folders = ", ".join(_q(rel(p)) for p in s.markdown)
        lines += [
            "[documents]",
            f"folders = [{folders}]   # Markdown with front matter",
            'chunking = "paragraph"        # one chunk per paragraph; or "document"',
            "",
        ]
    lines.append("[questions]")
    if s.labels is not None:
        lines.append(f"labels = {_q(rel(s.labels))}   # graded chunk labels")
    else:
        lines.append(f"queries = {_q(rel(s.queries))}")  # type: ignore[arg-type]
        fmt = "BEIR" if s.qrels.suffix.lower() == ".tsv" else "TREC"  # type: ignore[union-attr]
        lines.append(f"qrels = {_q(rel(s.qrels))}   # {fmt} qrels")  # type: ignore[arg-type]
        if s.other_qrels:
            lines.append(
                "# other qrels found (pick one): " + ", ".join(rel(p) for p in s.other_qrels)
            )
    if s.tags is not None:
        lines.append(f"tags = {_q(rel(s.tags))}")
    seen = ", ".join(map(str, grades))
    why = "binary judgments" if top == 1 else "the usual cut on a graded scale"
    lines += [
        f"relevance = {relevance}                  # GUESSED from the grades present ({seen}): "
        f"relevant = grade >= {relevance}, {why}",
        "",
    ]
    if s.runs:
        lines.append("[runs]")
        if s.runs_dir is not None:
            lines.append(f"dir = {_q(rel(s.runs_dir))}   # every file in it is a TREC run")
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
    # Write beside the target and rename: an interrupted init leaves the old file or none.
    handle, tmp = tempfile.mkstemp(prefix=".evidencedesk-", suffix=".toml", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


__all__ = ["Survey", "init", "render", "survey"]
