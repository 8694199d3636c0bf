"""The build command's edges (issues 11 and 16): arguments, seeds, OS errors, Ctrl-C, pipes,
progress and help. Each case through the real CLI (exit code, exactly one stderr line, no
traceback, the previous site unchanged byte for byte): in a subprocess where the process itself
is tested (a resource limit, a signal, a closed pipe, the interpreter's own usage line), else
in-process through `evidencedesk.cli.main`, what ``python -m evidencedesk.report`` runs. OS errors
the test machine cannot produce for real (root ignores permissions) are raised in-process with
their real OSError types.
"""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report import _render as render
from evidencedesk.report import _site as site
from evidencedesk.report._model import BuildOptions, SiteModel
from tests import report_fixtures as rf
from tests.reliability_fixtures import fixture_site
from tests.test_bad_input import snapshot

ROOT = Path(__file__).resolve().parents[1]
WITH_MODEL = str(Path(__file__).resolve().parent / "with_model.py")  # a test model's build
KEPT = "the previous site was left as it was"
SEEDS = "expected a whole number from 0 to 4294967295"


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, **kw):  # type: ignore[no-untyped-def]
    # a test's hand-made model runs through tests/with_model.py (the package has no such option)
    entry = [WITH_MODEL] if "--model-factory" in args else ["-m", "evidencedesk.report"]
    command = [sys.executable, *entry, *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False, **kw)  # fmt: skip


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """The fixture model's site in ``tmp_path/site`` (a copy of this process's one build)."""
    return fixture_site(tmp_path)


ARGUMENT_ERRORS = [
    (("--seed", "-1"), f"argument --seed: {SEEDS}, found '-1'"),
    (("--seed=-1",), f"argument --seed: {SEEDS}, found '-1'"),
    (("--seed", "4294967296"), f"argument --seed: {SEEDS}, found '4294967296'"),
    (("--seed", "9" * 5000), f"argument --seed: {SEEDS}, found '{'9' * 40}'"),
    (("--seed", "1e3"), f"argument --seed: {SEEDS}, found '1e3'"),
    (("--fail-on", "maybe"),
     "argument --fail-on: invalid choice: 'maybe' (choose from 'never', 'review', 'block')"),
    (("--run", "x"), "argument --run: expected NAME=PATH, found 'x'"),
    (("--bogus", "x"), "unrecognized arguments: --bogus x"),
]  # fmt: skip


def in_process(*args: str, factory=None) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """``python -m evidencedesk.report ARGS`` in this process (`cli.main`, what the module runs):
    (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(args), model_factory=factory, stdout=out, stderr=err,
                      prog="python -m evidencedesk.report")  # fmt: skip
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("args", "message"), ARGUMENT_ERRORS)
def test_an_argument_error_is_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    status, stdout, stderr = in_process("build", "--out", str(tmp_path / "site"), *args)
    assert status == 2
    usage = "python -m evidencedesk.report build --help"
    assert stderr == f"error: {message} (see {usage})\n"
    assert stdout == "" and not (tmp_path / "site").exists()


def test_no_subcommand_prints_the_help() -> None:
    done = run()  # as git and pip do: the help, exit 0, nothing on stderr
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: python -m evidencedesk.report [-h] [-V] COMMAND ...\n")
    assert "build" in done.stdout and "exit status:" in done.stdout


def seeded_project(tmp_path: Path, seed: str) -> Path:
    project = tmp_path / "project" / "evidencedesk.toml"
    project.parent.mkdir()
    (project.parent / "qrels.txt").write_text("q1 0 d1 2\n", encoding="utf-8")
    (project.parent / "queries.jsonl").write_text('{"_id": "q1", "text": "a"}\n', "utf-8")
    (project.parent / "a.run").write_text("q1 Q0 d1 1 1.0 a\n", encoding="utf-8")
    project.write_text(
        f'[project]\nname = "p"\nseed = {seed}\n\n[questions]\nqueries = "queries.jsonl"\n'
        'qrels = "qrels.txt"\n\n[runs]\nfiles = ["a.run"]\nbaseline = "a"\n',
        encoding="utf-8",
    )
    return project


@pytest.mark.parametrize(("given", "expected"), [((), 7), (("--seed", "3"), 3)])
def test_the_project_seed_is_the_default_and_reaches_the_site(
    tmp_path: Path, given: tuple[str, ...], expected: int
) -> None:
    project = seeded_project(tmp_path, "7")
    out = tmp_path / "site"
    status, _, stderr = in_process("build", "--project", str(project), "--out", str(out), *given,
                                   factory=rf.fixture_model)  # fmt: skip
    assert status == 0, stderr
    assert json.loads((out / "manifest.json").read_text("utf-8"))["seed"] == expected
    assert f"seed {expected}" in (out / "index.html").read_text("utf-8")


def test_a_project_seed_out_of_range_is_one_line(tmp_path: Path) -> None:
    project = seeded_project(tmp_path, "-1")
    status, _, stderr = in_process("build", "--project", str(project), "--out",
                                   str(tmp_path / "site"))  # fmt: skip
    assert status == 2 and stderr.count("\n") == 1
    assert stderr.startswith(f"error: {project}") and "seed" in stderr
    assert "-1" in stderr and not (tmp_path / "site").exists()


def test_build_options_refuse_a_seed_out_of_range() -> None:
    with pytest.raises(Exception, match=rf"seed: {SEEDS}, found -1"):
        BuildOptions(seed=-1)
    assert BuildOptions(seed=2**32 - 1).seed == 4294967295


# -- OS errors ------------------------------------------------------------------------------------
def raising(code: int, where: str) -> Callable[..., None]:
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(code, os.strerror(code), where)

    return fail


def build_in_process(out: Path, factory=rf.fixture_model) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    err = io.StringIO()
    rc = cli.main(["build", "--out", str(out)], model_factory=factory, stdout=io.StringIO(),
                  stderr=err)  # fmt: skip
    return rc, err.getvalue()


def test_a_full_disk_is_exit_2_with_the_os_reason(built: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(built)
    original = render._write_page

    def write(path: Path, text: str) -> None:
        if path.name == "flips.html":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        original(path, text)

    monkeypatch.setattr(render, "_write_page", write)
    rc, err = build_in_process(built)
    assert rc == 2
    assert err == f"error: {built / 'flips.html'}: No space left on device (ENOSPC); {KEPT}\n"
    assert snapshot(built) == before
    assert [p.name for p in built.parent.iterdir()] == ["site"]


@pytest.mark.parametrize(
    ("code", "reason"),
    [(errno.EROFS, "Read-only file system"), (errno.EACCES, "Permission denied")],
)
def test_an_unwritable_output_folder_is_exit_2_before_the_model(
    built: Path, monkeypatch, code: int, reason: str
) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(built)
    monkeypatch.setattr(site, "_write_owner", raising(code, str(built.parent)))
    rc, err = build_in_process(built, rf.crashing_model)  # the model is never reached
    name = errno.errorcode[code]
    assert (rc, err) == (2, f"error: {built.parent}: {reason} ({name}); {KEPT}\n")
    assert snapshot(built) == before
    assert [p.name for p in built.parent.iterdir()] == ["site"]


def unreadable_folder_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "project/notes")


def test_an_unreadable_input_folder_is_exit_2(built: Path) -> None:
    before = snapshot(built)
    rc, err = build_in_process(built, unreadable_folder_model)
    assert (rc, err) == (2, f"error: project/notes: Permission denied (EACCES); {KEPT}\n")
    assert snapshot(built) == before


def test_a_file_size_limit_is_exit_2_with_the_os_reason(built: Path) -> None:
    before = snapshot(built)

    def limit() -> None:  # plotly.min.js (4.6 MB) cannot be copied under 1 MB
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    done = run("build", "--out", str(built), "--model-factory",
               "tests.report_fixtures:fixture_model", preexec_fn=limit)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"error: {built / 'assets' / 'plotly.min.js'}: File too large (EFBIG); {KEPT}\n"
    )
    assert snapshot(built) == before
    assert [p.name for p in built.parent.iterdir()] == ["site"]


# -- signals and pipes ----------------------------------------------------------------------------
def wait_for_numpy(proc: subprocess.Popen[str]) -> None:
    """Until the build has loaded numpy (inside `main`, reading the project): start-up, not build."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        maps = Path(f"/proc/{proc.pid}/maps").read_text(errors="replace")
        if "_multiarray_umath" in maps:
            return
        assert proc.poll() is None
        time.sleep(0.01)
    raise AssertionError("numpy never loaded")


def default_sigint() -> None:
    """A suite started in the background (`pytest &`) ignores SIGINT, and so would the build."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_ctrl_c_during_start_up_is_one_line(built: Path) -> None:
    before = snapshot(built)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidencedesk.report", "build", "--out", str(built)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint,
    )  # fmt: skip
    wait_for_numpy(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err == f"error: build interrupted; {KEPT}\n" and out == ""
    assert snapshot(built) == before


def slow_stages_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    """Stage lines half a second apart, so the reader is gone before the second is written."""
    for stage in ("benchmark", "sizing", "gate"):
        progress(stage)
        time.sleep(0.5)
    return rf.fixture_model(options, lambda stage: None)


def test_a_pipe_closed_early_ends_quietly_with_the_site_written(tmp_path: Path) -> None:
    out = tmp_path / "site"
    (tmp_path / ".git").mkdir()  # a repository's root: the project search stops here
    proc = subprocess.Popen(
        [sys.executable, WITH_MODEL, "build", "--out", str(out),
         "--model-factory", "tests.test_cli_errors:slow_stages_model"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # like `| head -1`: read one line, then go away
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert first == (
        f"project: the demo, Kestrel Cycles (demo) (no evidencedesk.toml in {tmp_path})\n".encode()
    )
    assert err == b""
    pages = json.loads((out / "manifest.json").read_text("utf-8"))["pages"]
    assert len(pages) == 19 and all((out / page).is_file() for page in pages)


# -- progress and help ----------------------------------------------------------------------------
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_one_updating_line(tmp_path: Path) -> None:
    stdout = Terminal()
    assert cli.main(["build", "--out", str(tmp_path / "s")], model_factory=rf.fixture_model,
                    stdout=stdout) == 0  # fmt: skip
    named, text = stdout.getvalue().split("\n", 1)  # the first line names the project read
    assert named.startswith("project: the demo, ")
    assert "\r\x1b[K  render  pages written 19 / 19" in text
    progress, summary = text.rsplit("\r\x1b[K", 1)
    assert "\n" not in progress  # every stage drew over the same line
    assert summary.startswith("wrote 19 pages (") and summary.endswith(
        f"open {tmp_path / 's' / 'index.html'}\n"
    )


def test_quiet_prints_only_the_final_line(tmp_path: Path) -> None:
    stdout = Terminal()
    assert cli.main(["build", "--out", str(tmp_path / "s"), "--quiet"],
                    model_factory=rf.fixture_model, stdout=stdout) == 0  # fmt: skip
    assert stdout.getvalue() == f"open {tmp_path / 's' / 'index.html'}\n"


def test_help_has_a_description_the_options_and_the_exit_codes() -> None:
    done = run("build", "--help")
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    assert text.startswith(
        "usage: python -m evidencedesk.report build [-h] [--out FOLDER] [--seed N]"
    )
    assert "Run the benchmark, the sizing sweep" in text and "--quiet" in text
    for status in ("0 ", "1 ", "2 ", "3 ", "130", "143"):
        assert f"\n  {status}" in text, status
    assert "``" not in text and "--model-factory" not in text


def test_the_one_parser_names_every_command_under_its_program() -> None:
    usage = cli._parser("evidencedesk").format_usage()
    assert usage == "usage: evidencedesk [-h] [-V] COMMAND ...\n"
    listed = cli._parser("evidencedesk").format_help()
    assert [c for c in cli._COMMANDS if f"\n    {c}" not in listed] == []
    assert cli._COMMANDS == (
        "build",
        "benchmark",
        "run",
        "init",
        "validate",
        "audit",
        "summary",
        "export",
    )
    err = io.StringIO()
    assert cli.main(["build", "--seed", "x"], prog="evidencedesk", stderr=err) == 2
    assert err.getvalue() == (
        f"error: argument --seed: {SEEDS}, found 'x' (see evidencedesk build --help)\n"
    )


def test_a_full_disk_at_the_lock_names_it_and_leaves_no_lock_file(built: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The lock's marker cannot be written (ENOSPC from a write names no file): the one line
    names the lock file, and the empty lock file the build made is removed."""
    before = snapshot(built)

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(site.os, "pwrite", full)
    rc, err = build_in_process(built, rf.crashing_model)  # the model is never reached
    lock = built.parent / ".site-lock-site"
    assert (rc, err) == (2, f"error: {lock}: No space left on device (ENOSPC); {KEPT}\n")
    assert snapshot(built) == before
    assert [p.name for p in built.parent.iterdir()] == ["site"]
