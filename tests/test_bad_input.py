"""Bad input through the real CLI: exit 2, one ``error:`` line naming file (and line), old site kept.

A module fixture copies ``data/`` to a temporary folder and puts the session's demo site
(tests/conftest.py) into ``out/site``; every case copies that pristine project, breaks one input
file, runs the build command (``python -m evidencedesk.report build --project <copy> --out
out/site``) and checks the contract of SPEC §11: exit status 2, exactly one line on stderr of the
form ``error: <file>[:<line>]: <expected …>``, no traceback anywhere, the site byte for byte as
it was and nothing left next to it. The command runs in-process (`evidencedesk.cli.main`, the
function ``python -m evidencedesk.report`` calls; a subprocess spends a second importing); one
case (``process=True``) runs it in a real subprocess, so the exit status and the one line are
also those of the interpreter. The qrels cases use a small generated runs-only project
(`tests.project_fixtures.make_runs_only_project`) and the same site folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evidencedesk import cli as report_cli
from evidencedesk.files import _text as file_text
from tests.project_fixtures import make_runs_only_project

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

Mutation = Callable[[Path], None]


# -- mutations ------------------------------------------------------------------------------------
def replace(rel: str, old: str, new: str) -> Mutation:
    """Replace the first `old` in `rel` by `new` (the case fails loudly if `old` is not there)."""

    def mutate(root: Path) -> None:
        path = root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, f"mutation target {old!r} not found in {rel}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return mutate


def replace_bytes(rel: str, old: bytes, new: bytes) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / rel
        raw = path.read_bytes()
        assert old in raw, f"mutation target {old!r} not found in {rel}"
        path.write_bytes(raw.replace(old, new, 1))

    return mutate


def write(rel: str, content: str | bytes) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / rel
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")

    return mutate


def copy(rel: str, to: str) -> Mutation:
    return lambda root: shutil.copyfile(root / rel, root / to)


def edit_json(rel: str, change: Callable[[dict], None]) -> Mutation:
    """Load, change and rewrite a JSON file pretty-printed like the demo's (indent 2)."""

    def mutate(root: Path) -> None:
        path = root / rel
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    return mutate


def nothing(root: Path) -> None:
    """The project is fine; the bad input is on the command line."""


# -- the table --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    id: str
    mutate: Mutation
    file: str  # the file the error must name, relative to the case's project folder
    line: int | None  # the line it must name (None: the message has no line)
    phrase: str  # what the message must say (the expectation, or the part that is found)
    project: str = "demo"  # "demo" (a copy of data/) or "qrels" (a generated runs-only project)
    args: tuple[str, ...] = ()  # extra CLI arguments; "{root}" is the case's project folder
    process: bool = False  # True: in a real subprocess (the interpreter's status and stderr)


LABEL_RC02 = '{"id": "rc02", "question": "My derailleur is stamped RD2-24. What should I do?"'
WARRANTY = "corpus/kc-warranty.md"

CASES: tuple[Case, ...] = (
    # documents
    Case(
        "document-no-front-matter",
        write(WARRANTY, "# Warranty\n\nFrames carry a lifetime warranty.\n"),
        WARRANTY,
        1,
        "expected a front-matter header starting with '---' on line 1, found '# Warranty'",
        process=True,
    ),
    Case(
        "document-unclosed-front-matter",
        replace(WARRANTY, "language: en\n---\n", "language: en\n"),
        WARRANTY,
        9,
        "expected a closing '---' after the front matter (line 9), found a blank line",
    ),
    Case(
        "document-duplicate-id",
        copy(WARRANTY, "corpus/kc-warranty-copy.md"),
        WARRANTY,
        None,
        "expected a unique document id, found 'kc-warranty' already used by",
    ),
    Case(
        "document-unknown-status",
        replace(WARRANTY, "status: current", "status: archived"),
        WARRANTY,
        5,
        "unknown status 'archived'; expected one of: current, superseded",
    ),
    Case(
        "document-not-utf8",
        replace_bytes(WARRANTY, b"lifetime warranty", b"lifetime warr\xffanty"),
        WARRANTY,
        11,
        "expected UTF-8 text, found byte 0xff at offset 147",
    ),
    Case(
        "document-empty",
        write(WARRANTY, ""),
        WARRANTY,
        None,
        "expected a front-matter header starting with '---', found an empty file",
    ),
    Case(
        "document-no-text",
        write(WARRANTY, "---\nid: kc-warranty\ntitle: Warranty\n---\n\n"),
        WARRANTY,
        None,
        "expected some text after the front matter, found none",
    ),
    # labels.jsonl
    Case(
        "labels-not-json",
        replace("labels.jsonl", LABEL_RC02, '{"id": "rc02", question: oops'),
        "labels.jsonl",
        2,
        "expected a JSON object, found invalid JSON",
    ),
    Case(
        "labels-missing-field",
        replace("labels.jsonl", LABEL_RC02, '{"id": "rc02"'),
        "labels.jsonl",
        2,
        "expected field 'question', found none",
    ),
    Case(
        "labels-unknown-chunk",
        replace("labels.jsonl", '"kc-spec-sheet:c2": 1}}', '"kc-nope:c9": 1}}'),
        "labels.jsonl",
        1,
        "unknown chunk id 'kc-nope:c9'; expected an id from the catalog",
    ),
    Case(
        "labels-grade-negative",
        replace("labels.jsonl", '"kc-recall-rd2-24:c1": 1,', '"kc-recall-rd2-24:c1": -1,'),
        "labels.jsonl",
        1,
        "found -1",
    ),
    Case(
        "labels-grade-above-2",
        replace("labels.jsonl", '"kc-recall-rd2-24:c1": 1,', '"kc-recall-rd2-24:c1": 3,'),
        "labels.jsonl",
        1,
        "expected grade 0-2 for 'kc-recall-rd2-24:c1', found 3; another grade scale: give it as "
        "qrels ([questions] qrels)",
    ),
    Case(
        "labels-grade-not-integer",
        replace("labels.jsonl", '"kc-recall-rd2-24:c1": 1,', '"kc-recall-rd2-24:c1": 1.5,'),
        "labels.jsonl",
        1,
        "for 'kc-recall-rd2-24:c1', found 1.5",
    ),
    Case(
        "labels-duplicate-id",
        replace("labels.jsonl", '{"id": "rc02"', '{"id": "rc01"'),
        "labels.jsonl",
        2,
        "expected unique question ids, found 'rc01' again (first on line 1)",
    ),
    Case(
        "labels-empty",
        write("labels.jsonl", ""),
        "labels.jsonl",
        None,
        "expected at least one labelled question, found none",
    ),
    Case(
        "labels-not-utf8",
        replace_bytes("labels.jsonl", b"stamped RD2-24", b"stamped RD2\xfe24"),
        "labels.jsonl",
        2,
        "expected UTF-8 text, found byte 0xfe at offset",
    ),
    # answers.jsonl
    Case(
        "answers-not-json",
        replace("answers.jsonl", '{"id": "a2"', '{"id": "a2" oops'),
        "answers.jsonl",
        2,
        "expected a JSON object, found invalid JSON",
    ),
    Case(
        "answers-malformed-citation",
        replace("answers.jsonl", "[kc-shipping:c1]", "[kc shipping c1!]"),
        "answers.jsonl",
        2,
        "expected citations like '[kc-assembly:c0]' (chunk ids from the catalog), "
        "found '[kc shipping c1!]'",
    ),
    # tenants.json
    Case(
        "tenants-unknown-document",
        edit_json("tenants.json", lambda t: t["tenants"]["harbor"].append("hb-nope")),
        "tenants.json",
        None,
        "unknown document 'hb-nope' under tenants.harbor; expected an id of a loaded document",
    ),
    Case(
        "tenants-document-twice",
        edit_json("tenants.json", lambda t: t["tenants"]["harbor"].append("kc-warranty")),
        "tenants.json",
        None,
        "expected each document owned once, found 'kc-warranty' under 'kestrel' and 'harbor'",
    ),
    # gate policy
    Case(
        "policy-wrong-type",
        replace("gate_policy_retrieval.json", '"k": 3,', '"k": "three",'),
        "gate_policy_retrieval.json",
        2,
        "key 'k': expected an integer, found \"three\"",
    ),
    Case(
        "policy-unknown-key",
        replace("gate_policy_retrieval.json", '"k": 3,', '"k": 3,\n  "max_dorp": 0.1,'),
        "gate_policy_retrieval.json",
        3,
        "unknown key 'max_dorp'; expected one of: k, min_recall",
    ),
    Case(
        "policy-unknown-critical-id",
        replace("gate_policy_retrieval.json", '"rc02"]', '"rc02", "zz99"]'),
        "gate_policy_retrieval.json",
        6,
        "key 'critical': zz99 is not a labelled question; expected ids from the labels: rc01",
    ),
    Case(
        "policy-not-json",
        replace("gate_policy_retrieval.json", '"k": 3,', '"k": 3,,'),
        "gate_policy_retrieval.json",
        2,
        "JSON",
    ),
    # saved baseline
    Case(
        "baseline-other-labels",
        replace("labels.jsonl", "What should I do?", "What now?"),
        "baseline_retrieval.json",
        None,
        "baseline was made on other labels",
    ),
    Case(
        "baseline-wrong-schema",
        edit_json("baseline_retrieval.json", lambda b: b.update(schema="other/9")),
        "baseline_retrieval.json",
        2,
        "expected schema 'evidencedesk.baseline_retrieval/1' or 'evidencedesk.baseline_retrieval/2', found \"other/9\"",
    ),
    Case(
        "baseline-not-json",
        replace("baseline_retrieval.json", '"k": 3,', '"k": 3'),
        "baseline_retrieval.json",
        12,
        "expected JSON",
    ),
    # candidates.toml
    Case(
        "candidates-toml-syntax",
        replace("candidates.toml", 'name = "rerank feature"', 'name = "rerank feature'),
        "candidates.toml",
        11,
        "expected valid TOML, found a syntax error",
    ),
    Case(
        "candidates-unknown-field",
        replace(
            "candidates.toml",
            'changes = { reranker = "feature" }',
            'changes = { reranker = "feature" }\ncolour = "red"',
        ),
        "candidates.toml",
        14,
        "candidate #2 (rerank feature).colour: unknown key; expected one of: name, rationale, "
        "changes",
    ),
    Case(
        "candidates-unknown-reranker",
        replace("candidates.toml", '{ reranker = "overlap" }', '{ reranker = "cross-encoder" }'),
        "candidates.toml",
        8,
        "candidate #1 (rerank overlap).changes: unknown reranker 'cross-encoder'; expected one "
        "of: none, overlap, feature, pair, blend, minilm",
    ),
    Case(
        "candidates-duplicate-name",
        replace("candidates.toml", 'name = "rerank blend"', 'name = "Rerank Overlap"'),
        "candidates.toml",
        15,
        "candidate #3: expected unique candidate names, found 'Rerank Overlap' twice",
    ),
    # notes
    Case(
        "note-not-utf8",
        write("notes/rerank-feature.md", b"A fine note\n\xc3\x28 with a broken byte\n"),
        "notes/rerank-feature.md",
        2,
        "expected UTF-8 text, found byte 0xc3 at offset 12",
    ),
    # TREC runs in runs/
    Case(
        "run-wrong-column-count",
        replace("runs/bm25-title.run", "kc-faq-bn:c1 2 14.2781 bm25-title", "kc-faq-bn:c1 2 14.2"),
        "runs/bm25-title.run",
        2,
        "expected 6 columns, found 5",
    ),
    Case(
        "run-non-numeric-score",
        replace("runs/bm25-title.run", "kc-faq-bn:c1 2 14.2781", "kc-faq-bn:c1 2 high"),
        "runs/bm25-title.run",
        2,
        "expected a numeric score in column 5, found 'high'",
    ),
    Case(
        "run-duplicate-document",
        replace("runs/bm25-title.run", "bn01 Q0 kc-faq-bn:c1 2", "bn01 Q0 kc-faq-bn:c0 2"),
        "runs/bm25-title.run",
        2,
        "expected each document once per query, found 'kc-faq-bn:c0' again",
    ),
    # --run NAME=PATH
    Case(
        "run-option-missing-file",
        nothing,
        "missing.run",
        None,
        "expected a readable file, found No such file or directory",
        args=("--run", "mine={root}/missing.run"),
    ),
    Case(
        "run-option-name-taken",
        nothing,
        "runs/bm25-title.run",
        None,
        "found 'bm25-title' already used",
        args=("--run", "bm25-title={root}/runs/bm25-title.run"),
    ),
    # qrels (a generated runs-only project: queries.jsonl + qrels.txt + runs/)
    Case(
        "qrels-wrong-column-count",
        replace("qrels.txt", "q001 0 D0107 2\n", "q001 0 D0107\n"),
        "qrels.txt",
        2,
        "expected 4 columns, found 3",
        project="qrels",
    ),
    Case(
        "qrels-non-numeric-grade",
        replace("qrels.txt", "q001 0 D0107 2\n", "q001 0 D0107 high\n"),
        "qrels.txt",
        2,
        "expected an integer grade in column 4, found 'high'",
        project="qrels",
    ),
    Case(
        "qrels-duplicate-document",
        replace("qrels.txt", "q001 0 D0010 0\n", "q001 0 D0107 0\n"),
        "qrels.txt",
        3,
        "expected each document once per query, found 'D0107' again",
        project="qrels",
    ),
)


# -- fixtures -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    projects: dict[str, Path]  # pristine project folders by kind
    cases: Path  # where each case gets its copy
    out: Path  # the shared site, built once
    snapshot: dict[str, bytes]  # every file of the site, by relative path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def cli(project: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "evidencedesk.report", "build"]
    command += ["--project", str(project / "evidencedesk.toml"), "--out", str(out), *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


class Hung(Exception):
    """An in-process build that did not return in time (a FIFO opened, a device read)."""


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise `Hung` in this thread after `seconds` (SIGALRM): an in-process case that blocks
    fails instead of hanging the run, as the subprocess's timeout did. Off the main thread (where
    no signal handler can be set) it only runs the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def build(project: Path, out: Path, *args: str, process: bool = False) -> tuple[int, str, str]:
    """``python -m evidencedesk.report build --project <project>/evidencedesk.toml --out <out>
    ARGS``: (status, stdout, stderr). In-process by default (`evidencedesk.cli.main`, what the
    module runs); with `process`, in a real subprocess."""
    if process:
        done = cli(project, out, *args)
        return done.returncode, done.stdout, done.stderr
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["build", "--project", str(project / "evidencedesk.toml"), "--out", str(out), *args]
    try:
        with time_limit(120):
            status = report_cli.main(argv, stdout=stdout, stderr=stderr,
                                     prog="python -m evidencedesk.report")  # fmt: skip
    finally:  # a project's [project].max_input_mb must not shrink the limit for later tests
        file_text.set_max_input_mb(file_text.DEFAULT_MAX_INPUT_MB)
    return status, stdout.getvalue(), stderr.getvalue()


def validate(project: str | Path) -> tuple[int, str, str]:
    """``evidencedesk validate --project <project>`` in-process: (status, stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        with time_limit(120):
            status = report_cli.main(["validate", "--project", str(project)], stdout=stdout,
                                     stderr=stderr)  # fmt: skip
    finally:  # as `build`: the project's size limit must not stay for later tests
        file_text.set_max_input_mb(file_text.DEFAULT_MAX_INPUT_MB)
    return status, stdout.getvalue(), stderr.getvalue()


def project_of(case_args: Sequence[str], root: Path) -> str:
    """The project a case builds: its ``--project`` argument, else its folder."""
    if "--project" in case_args:
        return case_args[list(case_args).index("--project") + 1].replace("{root}", str(root))
    return str(root)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, demo_site: Path) -> Built:
    """The pristine projects, and a copy of the session's demo site as the previous site."""
    base = tmp_path_factory.mktemp("bad-input")
    demo = base / "pristine" / "demo"
    shutil.copytree(DATA, demo)
    qrels = make_runs_only_project(base / "pristine", questions=20, runs=2).parent
    out = base / "out" / "site"
    shutil.copytree(demo_site, out)
    return Built({"demo": demo, "qrels": qrels}, base / "cases", out, snapshot(out))


def test_the_table_covers_enough_cases() -> None:
    assert len(CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_clean_line_and_keeps_the_site(built: Built, case: Case) -> None:
    root = built.cases / case.id
    shutil.copytree(built.projects[case.project], root)
    case.mutate(root)
    args = [a.replace("{root}", str(root)) for a in case.args]

    status, stdout, stderr = build(root, built.out, *args, process=case.process)

    assert "Traceback" not in stdout + stderr
    assert status == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    where = f"error: {root / case.file}" + (f":{case.line}" if case.line is not None else "")
    assert lines[0].startswith(where + ": "), lines[0]
    assert case.phrase in lines[0]
    assert snapshot(built.out) == built.snapshot
    assert sorted(p.name for p in built.out.parent.iterdir()) == ["site"]


# the cases `validate` cannot see: bad arguments of the build itself (not a project's input)
_BUILD_ONLY = {c.id for c in CASES if c.args and "--project" not in c.args}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in _BUILD_ONLY],
                         ids=[c.id for c in CASES if c.id not in _BUILD_ONLY])  # fmt: skip
def test_validate_refuses_each_bad_input_with_the_builds_line(built: Built, case: Case) -> None:
    """`validate` never says ok of a project its build refuses: exit 2 and the build's line."""
    root = built.cases / f"validate-{case.id}"
    shutil.copytree(built.projects[case.project], root)
    validate_refuses(root, case)


def validate_refuses(root: Path, case: Any) -> None:
    """`case` (this table's or test_hostile_inputs'), made in the project copy `root`: validate
    exits 2 naming the case's file, line and phrase, as its build does."""
    case.mutate(root)
    status, stdout, stderr = validate(project_of(case.args, root))
    assert "Traceback" not in stdout + stderr
    assert status == 2, stdout[-300:]
    where = f"error: {root / case.file}" + (f":{case.line}" if case.line is not None else "")
    assert stderr.splitlines()[-1].startswith(where + ":"), stderr
    assert case.phrase in stderr.splitlines()[-1]
