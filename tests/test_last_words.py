"""Honest last words: a failure after the swap says the site was replaced; a closed stdout is not
exit 0 (nothing it says gets out: exit 2, as a full one), a closed stderr does not turn 2 into 1; a full stdout, a deleted current folder and an
ASCII-only terminal are named as what they are; the notebook API checks like the CLI.

The process-level cases run the real command in a subprocess (a closed descriptor, /dev/full,
a deleted folder only exist there); the rest run in-process.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.cli._build import _KEPT, _REPLACED, _WRITTEN
from tests import report_fixtures as rf
from tests.reliability_fixtures import (
    Scratch,
    build_in_process,
    copy_scratch,
    fixture_site,
    make_scratch,
)
from tests.test_output_folder import tree_hash

ROOT = Path(__file__).resolve().parents[1]
WITH_MODEL = str(Path(__file__).resolve().parent / "with_model.py")  # a test model's build
FACTORY = ("--model-factory", "tests.report_fixtures:fixture_model")


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
        **popen: object) -> subprocess.CompletedProcess[str]:  # fmt: skip
    entry = [WITH_MODEL] if "--model-factory" in args else ["-m", "evidencedesk.report"]
    command = [sys.executable, *entry, "build", *args]
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.run(command, cwd=cwd, env=environment, text=True, timeout=300,
                          **streams)  # type: ignore[call-overload]  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return fixture_site(tmp_path)


def _close(fd: int) -> None:
    os.close(fd)


def test_a_closed_stdout_is_exit_2_and_keeps_the_site(site: Path) -> None:
    """``build >&-``: nothing the build says can get out, so it stops at its first line as a
    shell's own commands do (``echo x >&-`` fails), naming stdout; the previous site stays."""
    before = tree_hash(site)
    done = run("--out", str(site), "--seed", "5", *FACTORY, preexec_fn=lambda: _close(1))
    assert (done.returncode, done.stderr) == (
        2, f"error: stdout: cannot write: Bad file descriptor (EBADF); {_KEPT}\n"
    )  # fmt: skip
    assert tree_hash(site) == before


def test_a_closed_stderr_keeps_exit_2(site: Path) -> None:
    before = tree_hash(site)
    done = run("--out", str(site), "--seed", "x", *FACTORY, preexec_fn=lambda: _close(2))
    assert (done.returncode, done.stdout) == (2, "")
    assert tree_hash(site) == before


def test_a_full_stdout_before_the_swap_keeps_the_site(site: Path) -> None:
    before = tree_hash(site)
    with open("/dev/full", "w") as full:
        done = run("--out", str(site), "--seed", "5", *FACTORY, stdout=full)
    assert done.returncode == 2
    assert (
        done.stderr == f"error: stdout: cannot write: No space left on device (ENOSPC); {_KEPT}\n"
    )
    assert tree_hash(site) == before


def test_a_full_stdout_after_the_swap_says_the_site_was_replaced(site: Path) -> None:
    before = tree_hash(site)
    with open("/dev/full", "w") as full:  # --quiet: the one line is printed after the swap
        done = run("--out", str(site), "--seed", "5", "--quiet", *FACTORY, stdout=full)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: stdout: cannot write: No space left on device (ENOSPC); {_REPLACED}\n"
    )
    assert tree_hash(site) != before and (site / "index.html").is_file()


def test_a_deleted_current_folder_is_named_as_such(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.Popen(
        ["bash", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "$0" "{WITH_MODEL}" build '
         f'--out site {" ".join(FACTORY)}', sys.executable],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    out, err = proc.communicate(timeout=300)
    assert (proc.returncode, out) == (2, "")
    assert err == (
        "error: the current folder: expected a folder that exists (relative paths are read from "
        "it), found that it was deleted; change to an existing folder and build again\n"
    )


def test_an_ascii_only_stdout_gets_escapes_not_a_traceback(tmp_path: Path) -> None:
    done = run("--out", str(tmp_path / "site"), "--model-factory",
               "tests.test_last_words:bangla_model", env={"PYTHONIOENCODING": "ascii"})  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert "gate GO     \\u09ac\\u09be\\u0982\\u09b2\\u09be" in done.stdout


def bangla_model(options, progress):  # type: ignore[no-untyped-def]
    return rf.make_model(candidate_names=("বাংলা", "depth 20", "no prefilter"))


# -- in-process: the stream fails at a chosen line ----------------------------------------------------
class FailingAt(io.StringIO):
    """A stdout whose write raises `error` once it is asked to write `text`."""

    def __init__(self, text: str, error: BaseException) -> None:
        super().__init__()
        self.text, self.error = text, error

    def write(self, s: str) -> int:
        if self.text in s:
            raise self.error
        return super().write(s)


@pytest.mark.parametrize(
    ("line", "raised", "status", "words"),
    [
        ("  gate ", OSError(errno.EIO, "Input/output error"), 2, _KEPT),  # a progress line
        ("open ", OSError(errno.ENOSPC, "No space left on device"), 2, _REPLACED),  # after the swap
        ("open ", KeyboardInterrupt(), 130, _REPLACED),
        ("open ", BrokenPipeError(errno.EPIPE, "Broken pipe"), 0, None),
    ],
)
def test_the_last_words_say_what_became_of_the_site(
    site: Path, line: str, raised: BaseException, status: int, words: str | None
) -> None:
    before = tree_hash(site)
    stdout = FailingAt(line, raised)
    code, _, err = build_in_process("--out", str(site), "--seed", "3", factory=rf.fixture_model,
                                    stdout=stdout)  # fmt: skip
    assert code == status
    if words is None:
        assert err == ""
    elif isinstance(raised, KeyboardInterrupt):
        assert err == f"error: build interrupted; {words}\n"
    else:
        name = errno.errorcode[raised.errno]  # type: ignore[attr-defined]
        assert err == f"error: stdout: cannot write: {raised.strerror} ({name}); {words}\n"  # type: ignore[attr-defined]
    assert (tree_hash(site) == before) == (words == _KEPT)


def test_a_first_build_that_fails_after_its_swap_says_the_site_was_written(tmp_path: Path) -> None:
    stdout = FailingAt("open ", OSError(errno.ENOSPC, "No space left on device"))
    code, _, err = build_in_process("--out", str(tmp_path / "new"), factory=rf.fixture_model,
                                    stdout=stdout)  # fmt: skip
    assert (code, err) == (2, f"error: stdout: cannot write: No space left on device (ENOSPC); "
                              f"{_WRITTEN}\n")  # fmt: skip


def test_an_os_error_with_no_file_is_never_blamed_on_the_site(site: Path) -> None:
    def model(options, progress):  # type: ignore[no-untyped-def]
        raise OSError(errno.EMFILE, "Too many open files")

    code, _, err = build_in_process("--out", str(site), factory=model)
    assert (code, err) == (2, f"error: Too many open files (EMFILE) (the system named no file); "
                              f"{_KEPT}\n")  # fmt: skip


# -- the notebook API checks like the CLI ---------------------------------------------------------------
@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return make_scratch(tmp_path_factory.mktemp("pristine"))


@pytest.mark.parametrize(
    ("runs", "flag"),
    [({"": "runs/better.run"}, "=runs/better.run"), ({"  ": "x.run"}, "  =x.run"),
     ({"a": ""}, "a=")],
)  # fmt: skip
def test_build_refuses_a_run_the_command_line_refuses_with_its_message(
    pristine: Scratch, tmp_path: Path, runs: dict[str, str], flag: str
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    before = world.state()
    with pytest.raises(evidencedesk.EvidencedeskError) as info:
        evidencedesk.build(project=world.project, out=world.out, runs=runs)
    code, _, err = build_in_process("--project", str(world.project), "--out", str(world.out),
                                    "--run", flag)  # fmt: skip
    assert code == 2
    assert err.startswith(f"error: {info.value} (see ")  # the CLI adds where its help is
    assert str(info.value) == f"argument --run: expected NAME=PATH, found {flag!r}"
    assert world.state() == before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "argument --seed: expected a whole number from 0 to 4294967295, found -1"),
        ({"seed": "3"}, "argument --seed: expected a whole number from 0 to 4294967295, found '3'"),
        ({"runs": [("a", "x.run")]}, "runs: expected a dict of run name -> path, found list"),
        ({"runs": {"a=b": "x.run"}}, "argument --run: expected NAME=PATH, found 'a=b=x.run'"),
        ({"out": 3}, "out: expected a path, found int"),
    ],
)
def test_build_checks_its_arguments(
    pristine: Scratch, tmp_path: Path, kwargs: dict[str, object], message: str
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    before = world.state()
    options = {"project": world.project, "out": world.out, **kwargs}
    with pytest.raises(evidencedesk.EvidencedeskError) as info:
        evidencedesk.build(**options)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert world.state() == before


def test_load_results_refuses_what_is_not_a_path() -> None:
    with pytest.raises(evidencedesk.EvidencedeskError, match="path: expected a path, found int"):
        evidencedesk.load_results(3)  # type: ignore[arg-type]


def test_a_stdout_failing_while_a_bad_input_is_reported_does_not_hide_it(site: Path) -> None:
    before = tree_hash(site)
    stdout = FailingAt("  benchmark", OSError(errno.ENOSPC, "No space left on device"))
    code, _, err = build_in_process("--out", str(site), factory=rf.failing_model, stdout=stdout)
    assert (code, err) == (
        2,
        "error: data/labels.jsonl:3: expected a JSON object, found 'not json'\n",
    )
    assert tree_hash(site) == before
