"""Hostile and careless inputs (issue 11) through the real CLI: typed, bounded, in-range reads.

Same contract and helpers as `tests/test_bad_input.py`: each case copies a pristine project,
breaks one thing, runs the build command (``python -m evidencedesk.report build --project <copy>
--out <site>``) and expects exit 2, exactly one ``error: <file>[:<line>]: …`` line, no traceback
and the previous site byte for byte. The command runs in-process (`evidencedesk.cli.main`, what
the module runs), under a time limit so that a FIFO opened by mistake fails the case instead of
hanging the run; the device case runs in a real subprocess (reading /dev/zero would not end,
and no signal stops a read in C: the subprocess's timeout does). Every case fails while
loading, so the previous site is the session's demo site (tests/conftest.py), copied; it also
shows the restricted and superseded marks.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencedesk import cli as report_cli
from evidencedesk.chunking import _parse_document
from evidencedesk.errors import ConfigError, DocumentError, LabelsError
from evidencedesk.files import _text as file_text
from evidencedesk.report._model import HIDDEN_TEXT
from evidencedesk.report._questions import questions
from evidencedesk.results import _compute as compute
from evidencedesk.results._inputs import chunk_facts, load_project
from evidencedesk.results._inputs import questions as question_facts
from evidencedesk.results._settings import _COMPARED, _PIPELINE_COLUMNS, Settings
from evidencedesk.results.types import SCHEMA_VERSION, Inputs, Results, RunCosts
from evidencedesk.retrieval.beir import _labels_from_judgments, read_beir_qrels
from evidencedesk.retrieval.catalog import _load_documents, load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.metrics import Judged
from tests.project_fixtures import make_runs_only_project
from tests.test_bad_input import (
    DATA,
    REPO,
    build,
    replace,
    snapshot,
    validate_refuses,
)

Mutation = Callable[[Path], None]
MILLBROOK = REPO / "examples" / "millbrook-library"
BIG_LINE = 1 << 20  # file_text.MAX_LINE_BYTES


def fifo(rel: str) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / rel
        if path.exists():
            path.unlink()
        os.mkfifo(path)

    return mutate


def symlink(rel: str, target: str) -> Mutation:
    return lambda root: os.symlink(target, root / rel)


def append(rel: str, text: str) -> Mutation:
    def mutate(root: Path) -> None:
        with (root / rel).open("a", encoding="utf-8") as out:
            out.write(text)

    return mutate


def typo_in_the_baseline_run(root: Path) -> None:
    """The runs-only example reading its runs from a folder, its baseline run's first score
    written ``0x1p3``: skipped as not a run, the project's baseline names it."""
    runs = root / "runs-only" / "runs"
    runs.mkdir()
    text = (root / "runs" / "bm25.run").read_text("utf-8")
    (runs / "bm25.run").write_text(text.replace("5.098770", "0x1p3", 1), "utf-8")
    shutil.copy(root / "runs" / "rerank.run", runs / "rerank.run")
    toml = root / "runs-only" / "evidencedesk.toml"
    files = toml.read_text("utf-8").split("files = [")[1].split("]")[0]
    toml.write_text(toml.read_text("utf-8").replace(f"files = [{files}]", 'dir = "runs"'), "utf-8")


def grow_to(rel: str, size: int) -> Mutation:
    """Append words to `rel` until it is exactly `size` bytes (the limit checks the size)."""

    def mutate(root: Path) -> None:
        path = root / rel
        missing = size - path.stat().st_size
        assert missing > 1, f"{rel} is already {path.stat().st_size} bytes"
        with path.open("a", encoding="utf-8") as out:
            out.write(("\n" + "Frames. " * (missing // 8 + 1))[:missing])
        assert path.stat().st_size == size

    return mutate


def rename_all(folder: str, suffix: str) -> Mutation:
    def mutate(root: Path) -> None:
        for path in (root / folder).glob("*.md"):
            path.rename(path.with_suffix(suffix))

    return mutate


def both(*mutations: Mutation) -> Mutation:
    def mutate(root: Path) -> None:
        for m in mutations:
            m(root)

    return mutate


RS02 = '"kc-internal-goodwill:c0": 1,'
WARRANTY = "corpus/kc-warranty.md"
TOML = "evidencedesk.toml"
QRELS = "qrels/test.tsv"
FIRST_JUDGMENT = "q01\tmpl-hours-weekday\t3\n"


@dataclass(frozen=True)
class Case:
    id: str
    mutate: Mutation
    file: str
    line: int | None
    phrase: str
    project: str = "demo"  # "demo" (a copy of data/) or "millbrook" (the BEIR example)
    args: tuple[str, ...] = ()
    process: bool = False  # True: a real subprocess (a hang is killed by its timeout)


CASES: tuple[Case, ...] = (
    # not a regular file: refused by type, never opened (a FIFO would hang the build)
    Case(
        "corpus-fifo",
        fifo("corpus/zz-pipe.md"),
        "corpus/zz-pipe.md",
        None,
        "expected a regular Markdown document, found a named pipe (FIFO)",
    ),
    Case(
        "corpus-symlink-to-dev-zero",
        symlink("corpus/zz-zero.md", "/dev/zero"),
        "corpus/zz-zero.md",
        None,
        "expected a regular Markdown document, found a character device",
        process=True,
    ),
    Case(
        "labels-fifo",
        fifo("labels.jsonl"),
        "labels.jsonl",
        None,
        "expected a regular labels file, found a named pipe (FIFO)",
    ),
    Case(
        "runs-folder-fifo",
        fifo("runs/zz-pipe.run"),
        "runs/zz-pipe.run",
        None,
        "expected a regular TREC run file, found a named pipe (FIFO)",
    ),
    Case(
        "answers-fifo",
        fifo("answers.jsonl"),
        "answers.jsonl",
        None,
        "expected a regular answers file, found a named pipe (FIFO)",
    ),
    # sizes: per file (raisable per project) and per line
    Case(
        "document-over-max-input-mb",
        both(
            replace(TOML, "seed = 0", "seed = 0\nmax_input_mb = 1"),
            grow_to(WARRANTY, (1 << 20) + 1),  # one byte over the 1 MiB limit
        ),
        WARRANTY,
        None,
        "expected a Markdown document of at most 1 MB, found 1 MB (raise [project].max_input_mb",
    ),
    Case(
        "max-input-mb-zero",
        replace(TOML, "seed = 0", "seed = 0\nmax_input_mb = 0"),
        TOML,
        8,
        "[project].max_input_mb: expected a whole number of MB, the largest input file read "
        "from 1 to 1048576, found 0",
    ),
    Case(
        "project-seed-negative",
        replace(TOML, "seed = 0", "seed = -1"),
        TOML,
        7,
        "[project].seed: expected an integer (the default --seed) from 0 to 4294967295, found -1",
    ),
    Case(
        "labels-line-over-1-mib",
        append("labels.jsonl", '{"id": "zz", "question": "' + "x" * BIG_LINE + '"}\n'),
        "labels.jsonl",
        25,
        "expected a line of at most 1048576 bytes, found one of 1048604 bytes",
    ),
    Case(
        "answers-line-over-1-mib",
        append("answers.jsonl", "y" * (BIG_LINE + 1) + "\n"),
        "answers.jsonl",
        7,
        "expected a line of at most 1048576 bytes, found one of 1048577 bytes",
    ),
    Case(
        "beir-qrels-line-over-1-mib",
        append(QRELS, "q01\t" + "d" * BIG_LINE + "\t1\n"),
        QRELS,
        None,  # the last line; its number is checked by the phrase below
        "expected a line of at most 1048576 bytes",
        project="millbrook",
    ),
    # grades: integers in range, ASCII digits only
    Case(
        "labels-grade-2-to-the-70",
        replace("labels.jsonl", RS02, '"kc-internal-goodwill:c0": 1180591620717411303424,'),
        "labels.jsonl",
        11,
        "expected grade 0-2 for 'kc-internal-goodwill:c0', found 1180591620717411303424",
    ),
    Case(
        "labels-grade-1e9",
        replace("labels.jsonl", RS02, '"kc-internal-goodwill:c0": 1e9,'),
        "labels.jsonl",
        11,
        "expected grade 0-2 for 'kc-internal-goodwill:c0', found 1000000000.0",
    ),
    Case(
        "beir-qrels-grade-2-to-the-70",
        replace(QRELS, FIRST_JUDGMENT, "q01\tmpl-hours-weekday\t1180591620717411303424\n"),
        QRELS,
        2,
        "expected a grade from -100 to 100, found 11805916207174113034…",
        project="millbrook",
    ),
    Case(
        "beir-qrels-grade-1024",
        replace(QRELS, FIRST_JUDGMENT, "q01\tmpl-hours-weekday\t1024\n"),
        QRELS,
        2,
        "expected a grade from -100 to 100, found 1024",
        project="millbrook",
    ),
    Case(
        "beir-qrels-grade-1e9",
        replace(QRELS, FIRST_JUDGMENT, "q01\tmpl-hours-weekday\t1e9\n"),
        QRELS,
        2,
        "expected an integer score, found '1e9'",
        project="millbrook",
    ),
    Case(
        "beir-qrels-full-width-digit",
        replace(QRELS, FIRST_JUDGMENT, "q01\tmpl-hours-weekday\t\uff13\n"),
        QRELS,
        2,
        "expected an integer score, found '\uff13'",
        project="millbrook",
    ),
    Case(
        "beir-qrels-grade-minus-101",
        replace(QRELS, FIRST_JUDGMENT, "q01\tmpl-hours-weekday\t-101\n"),
        QRELS,
        2,
        "expected a grade from -100 to 100, found -101",
        project="millbrook",
    ),
    # NaN / inf in the saved baseline (a NaN compares false: it would skip max_drop)
    Case(
        "baseline-nan-summary",
        replace("baseline_retrieval.json", '"recall@3": 0.7857142857142857', '"recall@3": NaN'),
        "baseline_retrieval.json",
        14,
        "key 'recall@3': expected finite numbers, found NaN",
    ),
    Case(
        "baseline-infinite-question-value",
        replace("baseline_retrieval.json", '"rr": 0.5', '"rr": 1e400'),
        "baseline_retrieval.json",
        29,
        "key 'rr': expected finite numbers, found 1e400",
    ),
    # a run named like a built-in variant: the runs folder and --run share one check
    Case(
        "run-file-named-hybrid",
        lambda root: shutil.copyfile(root / "runs/bm25-title.run", root / "runs/hybrid.run"),
        "runs/hybrid.run",
        None,
        "expected a run name other than the built-in variants (sparse, dense, hybrid, "
        "hybrid + overlap, hybrid + feature, hybrid + blend, hybrid + pair (8 words)), "
        "found 'hybrid'",
    ),
    Case(
        "run-option-named-hybrid",
        lambda root: None,
        "runs/bm25-title.run",
        None,
        "--run hybrid: expected a run name other than the built-in variants",
        args=("--run", "hybrid={root}/runs/bm25-title.run"),
    ),
    # a name the pages would show as another one: a newline or a tab draws as a space
    Case(
        "run-option-named-with-a-tab",
        lambda root: None,
        "runs/bm25-title.run",
        None,
        "expected a run name without control characters (a page shows it on one line), found "
        "'new\\tline'",
        args=("--run", "new\tline={root}/runs/bm25-title.run"),
    ),
    Case(
        "labels-tag-of-two-words",
        replace(
            "labels.jsonl",
            '"tags": ["exact_term", "structured"]',
            '"tags": ["exact term", "structured"]',
        ),
        "labels.jsonl",
        3,
        "expected tags without spaces or control characters (e.g. 'long_tail'), found 'exact term'",
    ),  # fmt: skip
    Case(
        "candidate-named-with-a-newline",
        replace("candidates.toml", 'name = "rerank overlap"', 'name = "rerank\\noverlap"'),
        "candidates.toml",
        6,
        "expected a candidate name without control characters (a page shows it on one line), "
        "found 'rerank\\noverlap'",
    ),
    Case(
        "too-many-runs",
        replace(
            TOML,
            'dir = "runs"',
            "files = ["
            + ", ".join(f'{{ name = "r{i}", path = "runs/bm25-title.run" }}' for i in range(101))
            + "]",  # fmt: skip
        ),
        TOML,
        19,
        "[runs].files: expected at most 100 runs ('dir' and 'files' together; every pair of "
        "variants is compared), found 101",
    ),
    # two candidates whose names map to one note file
    Case(
        "candidates-share-a-note",
        append(
            "candidates.toml",
            '\n[[candidate]]\nname = "Rerank-Feature"\nchanges = { reranker = "pair" }\n',
        ),
        "candidates.toml",
        55,
        "candidate #11: expected each note to belong to one candidate, found 'Rerank-Feature' "
        "and 'rerank feature' both using",
    ),
    # an update under the id of the version it replaces would clash with it, mid-build
    Case(
        "an-update-under-an-old-id",
        replace("updates/kc-returns-v4.md", "id: kc-returns-v4", "id: kc-returns-v3"),
        "updates/kc-returns-v4.md",
        None,
        "expected a newer version under an id of its own (such as 'kc-returns-v4': the id "
        "without '-v<N>' names the document it replaces), found 'kc-returns-v3', a document the "
        "project already holds",
    ),
    # a second newer version would be read by nothing: the freshness check replaces one
    Case(
        "two-updates",
        lambda root: shutil.copyfile(
            root / "updates/kc-returns-v4.md", root / "updates/kc-returns-v5.md"
        ),
        "updates",
        None,
        "expected one newer document version (the freshness check replaces one document), "
        "found 2: kc-returns-v4.md, kc-returns-v5.md",
    ),
    # a note no candidate has (a typo, or a candidate since removed) would never show
    Case(
        "a-note-of-no-candidate",
        lambda root: (root / "notes" / "rerank-overlp.md").write_text("A note.\n", "utf-8"),
        "notes/rerank-overlp.md",
        None,
        "expected a note named after a candidate (its name as a slug: dense-first-stage.md, "
        "dense-minilm.md, depth-20.md, depth-3.md, final-5.md, no-pre-filter.md, "
        "pair-cut-to-8-words.md, rerank-blend.md, rerank-feature.md, rerank-overlap.md), found "
        "rerank-overlp.md, the note of no candidate; did you mean rerank-overlap.md?",
    ),
    # front matter that lost its closing line must not run on to a later '---' rule
    Case(
        "front-matter-runs-on-to-a-rule",
        replace(
            WARRANTY,
            "language: en\n---\n# Warranty\n\nKestrel",
            "language: en\n# Warranty\n\n---\n\nKestrel",
        ),
        WARRANTY,
        9,
        "expected a closing '---' after the front matter (line 9), found a blank line",
    ),
    # corpus folders: listed twice, or with no *.md
    Case(
        "folder-listed-twice",
        replace(TOML, 'folders = ["corpus", "docs"]', 'folders = ["corpus", "docs", "./corpus"]'),
        TOML,
        10,
        "[documents].folders: expected each folder once, found",
    ),
    Case(
        "corpus-folder-with-upper-case-suffixes",
        rename_all("docs", ".MD"),
        "docs",
        None,
        "expected Markdown documents (*.md) in",
    ),
    Case(
        "restricted-text-unknown-value",
        replace(TOML, 'notes = "notes"', 'notes = "notes"\nrestricted_text = "redact"'),
        TOML,
        24,
        "[report].restricted_text: expected one of: show, hide, found a string 'redact'",
    ),
    # numbers beyond any list: bounded where they are read (an OverflowError and exit 3 before)
    Case(
        "metric-cut-off-of-23-digits",
        replace(
            TOML, 'notes = "notes"', 'notes = "notes"\nmetrics = ["mrr", "recall@' + "9" * 23 + '"]'
        ),
        TOML,
        24,
        "[report].metrics: expected a metric cut-off from 1 to 1000000, found " + "9" * 23,
    ),
    Case(
        "runs-only-metric-cut-off-of-23-digits",
        append(
            "runs-only/evidencedesk.toml", '\n[report]\nmetrics = ["recall@' + "9" * 23 + '"]\n'
        ),
        "runs-only/evidencedesk.toml",
        29,
        "[report].metrics: expected a metric cut-off from 1 to 1000000, found " + "9" * 23,
        project="millbrook",
        args=("--project", "{root}/runs-only"),
    ),
    Case(
        "gate-policy-k-of-10-to-the-23",
        replace("gate_policy_retrieval.json", '"k": 3,', '"k": 1' + "0" * 23 + ","),
        "gate_policy_retrieval.json",
        2,
        "key 'k': expected a value from 1 to 1000000, found 1" + "0" * 23,
    ),
    Case(
        "candidate-depth-of-10-to-the-23",
        replace("candidates.toml", "depth = 20 }", "depth = 1" + "0" * 23 + " }"),
        "candidates.toml",
        38,
        "config depth: expected an integer from 1 to 1000000, found 1" + "0" * 23,
    ),
    # a run skipped as "not a run" for its first line, named as the baseline: its own line
    Case(
        "baseline-run-with-a-typo-on-line-1",
        typo_in_the_baseline_run,
        "runs-only/runs/bm25.run",
        1,
        "expected a numeric score in column 5, found '0x1p3'",
        project="millbrook",
        args=("--project", "{root}/runs-only"),
    ),
    Case(
        "gate-policy-nan-names-its-key",
        replace("gate_policy_retrieval.json", '"max_drop": 0.02,', '"max_drop": NaN,'),
        "gate_policy_retrieval.json",
        5,
        "key 'max_drop': expected finite numbers, found NaN",
    ),
)


@dataclass(frozen=True)
class Built:
    projects: dict[str, Path]
    cases: Path
    out: Path
    snapshot: dict[str, bytes]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, demo_site: Path) -> Built:
    base = tmp_path_factory.mktemp("hostile")
    demo = base / "pristine" / "demo"
    shutil.copytree(DATA, demo)
    millbrook = base / "pristine" / "millbrook"
    shutil.copytree(MILLBROOK, millbrook)
    out = base / "out" / "site"
    shutil.copytree(demo_site, out)  # the previous site: the session's demo build, copied
    return Built({"demo": demo, "millbrook": millbrook}, base / "cases", out, snapshot(out))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_is_one_clean_line_and_keeps_the_site(built: Built, case: Case) -> None:
    root = built.cases / case.id
    shutil.copytree(built.projects[case.project], root, symlinks=True)
    case.mutate(root)
    args = [a.replace("{root}", str(root)) for a in case.args]

    status, stdout, stderr = build(root, built.out, *args, process=case.process)

    assert "Traceback" not in stdout + stderr
    assert status == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    where = f"error: {root / case.file}" + (f":{case.line}" if case.line is not None else "")
    assert lines[0].startswith(where + ":"), lines[0]
    assert case.phrase in lines[0], lines[0]
    assert snapshot(built.out) == built.snapshot
    assert sorted(p.name for p in built.out.parent.iterdir()) == ["site"]


@pytest.mark.parametrize(
    ("folder", "what"),
    [("corpus", "folder of Markdown documents"), ("runs", "folder of TREC runs")],
)
def test_an_unreadable_folder_is_one_line_with_the_os_reason(
    built: Built, monkeypatch: pytest.MonkeyPatch, folder: str, what: str
) -> None:
    """Tests run as root, so chmod 000 would not stop us: the OS call is made to fail instead."""
    root = built.cases / f"unreadable-{folder}"
    shutil.copytree(built.projects["demo"], root)
    real_scandir = os.scandir

    def scandir(path: os.PathLike[str] | str | int) -> object:
        # shutil.rmtree scans by file descriptor (an int): only the folder's path fails
        if not isinstance(path, int) and Path(path) == root / folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr("evidencedesk.files._text.os.scandir", scandir)
    err = io.StringIO()
    argv = ["build", "--project", str(root / TOML), "--out", str(built.out)]
    status = report_cli.main(argv, stdout=io.StringIO(), stderr=err)

    assert status == 2
    assert err.getvalue() == (
        f"error: {root / folder}: expected a readable {what}, found Permission denied\n"
    )
    assert snapshot(built.out) == built.snapshot


def test_the_demo_marks_restricted_and_superseded_chunks(built: Built) -> None:
    rs01 = (built.out / "question-rs01.html").read_text(encoding="utf-8")
    mark = ' <span class="mark mark-restricted">restricted</span>'
    goodwill = '<code title="kc-internal-goodwill:c1">kc-internal-goodwill:c1</code>'
    assert f"<td>{goodwill}{mark}<span" in rs01  # graded-chunks table
    scope = '<span class="muted out-of-scope">labelled 1, counts 0: out of scope</span>'
    desk = '<code title="kc-internal-returns-desk:c1">kc-internal-returns-desk:c1</code>'
    assert f'<td><span class="pid">{desk}{mark} ' in rs01  # a ranked list
    assert f"</span></span>{scope}" in rs01
    assert "staff may exchange an opened helmet" in rs01.lower()  # shown, with the mark
    st01 = (built.out / "question-st01.html").read_text(encoding="utf-8")
    assert (
        '<code>kc-returns-v2:c1</code> <span class="mark mark-superseded">superseded</span>' in st01
    )
    unmarked = (built.out / "question-rc01.html").read_text(encoding="utf-8")
    assert 'class="mark' not in unmarked


# -- in-process checks of the same rules ----------------------------------------------------------
def _question_pages(restricted_text: str) -> dict[str, tuple]:
    catalog = load_catalog()
    labels = [lab for lab in load_labels(catalog=catalog) if lab.id in ("rs01", "st01")]
    judged = tuple(
        Judged(
            lab.id,
            lab.tags,
            lab.answerable,
            (1, 0),
            (2, 1),
            ("kc-internal-goodwill:c1", "kc-returns-v2:c0"),
        )  # fmt: skip
        for lab in labels
    )
    settings = Settings(
        0, 2, "pipeline", _PIPELINE_COLUMNS, _COMPARED, "mrr", None, restricted_text
    )
    variant = compute.variant_result("k", "hybrid", "builtin", "", None, judged,
                                     RunCosts(None, None, None), settings, compute.Book(0))  # fmt: skip
    ids = {c for lab in labels for c in lab.grades} | {c for j in judged for c in j.ids}
    facts = chunk_facts(catalog, ids, restricted_text == "hide")
    inputs = Inputs("t", (), "", (), (), 0, question_facts(labels, None), facts)
    results = Results(SCHEMA_VERSION, "0", settings, inputs, "hybrid", (variant,), (), None, 0, (), None, None,
                      None, None)  # fmt: skip
    return {q.id: q for q in questions(results)}


def test_hide_replaces_restricted_text_and_keeps_the_marks() -> None:
    shown, hidden = _question_pages("show")["rs01"], _question_pages("hide")["rs01"]
    note = next(g for g in shown.graded if g.chunk_id == "kc-internal-goodwill:c1")
    assert note.marks == ("restricted",) and not note.hidden
    assert note.text.startswith("## Opened helmets\nCan a customer return a helmet")
    gone = next(g for g in hidden.graded if g.chunk_id == "kc-internal-goodwill:c1")
    assert (gone.text, gone.marks, gone.hidden) == (HIDDEN_TEXT, ("restricted",), True)
    assert gone.title == "Staff guidance: goodwill and exceptions"
    public = [g for g in hidden.graded if not g.marks]
    assert public and all(g.text != HIDDEN_TEXT and not g.hidden for g in public)
    assert [it.marks for it in hidden.lists[0].items] == [("restricted",), ("superseded",)]


def test_hide_is_a_project_setting_and_runs_only_projects_may_set_it(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DATA, demo)
    toml = demo / TOML
    text = toml.read_text().replace('notes = "notes"', 'notes = "notes"\nrestricted_text = "hide"')
    toml.write_text(text)
    assert load_project(toml).restricted_text == "hide"
    assert load_project(DATA / TOML).restricted_text == "show"
    runs_only = make_runs_only_project(tmp_path, questions=5, runs=2)
    runs_only.write_text(runs_only.read_text() + '\n[report]\nrestricted_text = "hide"\n')
    assert load_project(runs_only).restricted_text == "hide"
    runs_only.write_text(runs_only.read_text() + 'candidates = "queries.jsonl"\n')
    with pytest.raises(ConfigError, match=r"\[report\]\.candidates: expected no pipeline settings"):
        load_project(runs_only)


def test_max_input_mb_applies_per_project_and_resets(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DATA, demo)
    toml = demo / TOML
    toml.write_text(toml.read_text().replace("seed = 0", "seed = 0\nmax_input_mb = 7"))
    try:
        assert load_project(toml).max_input_mb == 7
        assert file_text._max_input_bytes() == 7 << 20
        load_project(DATA / TOML)  # no key: back to the default, not the last project's value
        assert file_text._max_input_bytes() == file_text.DEFAULT_MAX_INPUT_MB << 20
    finally:
        file_text.set_max_input_mb(file_text.DEFAULT_MAX_INPUT_MB)


@pytest.mark.parametrize(
    ("score", "grade"), [("-1", -1), ("-2", -2), ("0", 0), ("+2", 2), ("100", 100)]
)  # fmt: skip
def test_qrels_grades_in_range_and_junk_reads_as_not_relevant(
    tmp_path: Path, score: str, grade: int
) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text(f"query-id\tcorpus-id\tscore\nq1\td1\t{score}\nq1\td2\t2\n", encoding="utf-8")
    qrels = read_beir_qrels(path)
    assert qrels == {"q1": {"d1": int(score), "d2": 2}}
    (label,) = _labels_from_judgments([("q1", "text", ())], qrels, relevance=2)
    assert dict(label.grades) == {"d1": grade, "d2": 2}  # a negative grade keeps its value
    assert label.relevant == (frozenset({"d1", "d2"}) if grade >= 2 else frozenset({"d2"}))


def test_labels_stream_and_name_the_long_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    good = '{"id": "a", "question": "q?", "grades": {"x:c0": 2}}\n'
    path.write_text(good + "\n" + "z" * (BIG_LINE + 5) + "\r\n" + good, encoding="utf-8")
    with pytest.raises(LabelsError) as info:
        load_labels(path)
    assert str(info.value) == (
        f"{path}:3: expected a line of at most 1048576 bytes, found one of 1048581 bytes"
    )


def test_labels_bad_utf8_names_line_and_file_offset(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    good = b'{"id": "a", "question": "q?", "grades": {"x:c0": 2}}\n'
    path.write_bytes(b"\xef\xbb\xbf" + good + b'{"id": "b\xff"}\n')
    with pytest.raises(LabelsError) as info:
        load_labels(path)
    offset = 3 + len(good) + len(b'{"id": "b')
    assert str(info.value) == f"{path}:2: expected UTF-8 text, found byte 0xff at offset {offset}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "---\nid: a\ntitle: A\n# Heading\n\n---\n\nBody text.\n",
            "doc.md:5: expected a closing '---' after the front matter (line 5), found a blank line",
        ),
        (
            "---\nid: a\ntitle: A\nBody text here.\n\n---\n\nMore.\n",
            "doc.md:4: expected a closing '---' after the front matter (line 4), found 'Body text here.'",
        ),
        (
            "---\nid: a\ntitle: A\n",
            "doc.md: expected a closing '---' after the front matter, found none",
        ),
    ],
)
def test_front_matter_ends_at_the_first_line_that_is_not_a_key(text: str, message: str) -> None:
    with pytest.raises(DocumentError) as info:
        _parse_document(text, "doc.md")
    assert str(info.value) == message


def test_front_matter_may_hold_comments() -> None:
    doc = _parse_document("---\n# who wrote it\nid: a\ntitle: A\n---\nText: with a colon.\n")
    assert (doc.id, doc.title, doc.body) == ("a", "A", "Text: with a colon.")


def test_load_documents_refuses_a_folder_twice_and_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(DocumentError) as info:
        _load_documents([tmp_path / "empty"])
    assert str(info.value) == (
        f"{tmp_path / 'empty'}: expected Markdown documents (*.md) in {tmp_path / 'empty'}, "
        "found none"
    )
    with pytest.raises(DocumentError, match="expected each document folder once, found it twice"):
        _load_documents([DATA / "docs", DATA / "docs"])


def test_a_run_file_whose_name_holds_a_newline_is_refused_by_its_name(tmp_path: Path) -> None:
    toml = make_runs_only_project(tmp_path, questions=5, runs=2)
    runs = toml.parent / "runs"
    (runs / "better.run").rename(runs / "bet\nter.run")
    status, _, stderr = build(toml.parent, tmp_path / "site")
    assert status == 2 and "Traceback" not in stderr
    # named where the project file gives the folder (validate says the same)
    assert stderr == (
        f"error: {toml}:11: [runs].dir: expected a run name without control characters (a page "
        "shows it on one line), found 'bet\\nter'\n"
    )
    assert not (tmp_path / "site").exists()


# the cases `validate` cannot see: bad arguments of the build itself (not a project's input)
_BUILD_ONLY = {c.id for c in CASES if c.args and "--project" not in c.args}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in _BUILD_ONLY],
                         ids=[c.id for c in CASES if c.id not in _BUILD_ONLY])  # fmt: skip
def test_validate_refuses_each_hostile_input_with_the_builds_line(built: Built, case: Case) -> None:
    """`validate` never says ok of a project its build refuses: it exits 2 with the build's
    own line (the project's inputs read by the same loaders and checks)."""
    root = built.cases / f"validate-{case.id}"
    shutil.copytree(built.projects[case.project], root, symlinks=True)
    validate_refuses(root, case)
