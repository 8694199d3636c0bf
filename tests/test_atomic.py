"""Atomic builds: a failed, crashed or killed build leaves the previous site byte for byte."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evidencedesk.cli import main
from evidencedesk.errors import OutputFolderError
from evidencedesk.report._site import atomic_output, clean_strays
from tests import report_fixtures as rf
from tests.test_bad_input import snapshot

ROOT = Path(__file__).resolve().parents[1]
WITH_MODEL = str(Path(__file__).resolve().parent / "with_model.py")  # a test model's build


def strays(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".site-"))


@pytest.fixture
def built(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    out.mkdir()
    (out / "README.md").write_text("# site/\nkept in git\n", encoding="utf-8")
    assert (
        main(["build", "--out", str(out)], model_factory=rf.fixture_model, stdout=io.StringIO())
        == 0
    )
    assert (out / "index.html").is_file() and (out / "README.md").is_file()
    return out


@pytest.mark.parametrize(("factory", "status"), [(rf.failing_model, 2), (rf.crashing_model, 3)])
def test_failed_model_leaves_the_previous_site(built: Path, factory, status: int) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(built)
    rc = main(["build", "--out", str(built)], model_factory=factory, stdout=io.StringIO(),
              stderr=io.StringIO())  # fmt: skip
    assert rc == status
    assert snapshot(built) == before
    assert strays(built) == []


def test_failure_while_rendering_leaves_the_previous_site(built: Path) -> None:
    before = snapshot(built)
    with pytest.raises(KeyboardInterrupt), atomic_output(built) as tmp:
        (tmp / "index.html").write_text("half", encoding="utf-8")
        raise KeyboardInterrupt
    assert snapshot(built) == before and strays(built) == []


def _start(out: Path, delay: str = "0.3") -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), EVIDENCEDESK_TEST_PAGE_DELAY=delay)
    return subprocess.Popen(
        [sys.executable, WITH_MODEL, "build", "--out", str(out),
         "--model-factory", "tests.report_fixtures:slow_render_model"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _wait_until_rendering(out: Path, proc: subprocess.Popen[bytes]) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        temps = [p for p in out.parent.glob(".site-build-*/site") if p.is_dir()]
        if temps and len(list(temps[0].iterdir())) >= 2:
            return temps[0].parent
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the build never started rendering")


def test_sigterm_during_rendering_leaves_the_previous_site(built: Path) -> None:
    before = snapshot(built)
    proc = _start(built)
    _wait_until_rendering(built, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert b"Traceback" not in err
    assert snapshot(built) == before
    assert strays(built) == []  # the interrupted build cleaned up after itself


def test_killed_build_leaves_the_site_and_the_next_build_removes_its_debris(built: Path) -> None:
    before = snapshot(built)
    proc = _start(built)
    temp = _wait_until_rendering(built, proc)
    proc.kill()  # SIGKILL: no clean-up possible
    proc.wait(timeout=60)
    assert snapshot(built) == before
    assert temp.is_dir()  # debris of the killed build
    assert (
        main(["build", "--out", str(built)], model_factory=rf.fixture_model, stdout=io.StringIO())
        == 0
    )
    assert strays(built) == []
    assert snapshot(built) == before  # same model, same seed: the same bytes


MANIFEST = '{"generator": "evidencedesk", "pages": ["index.html"]}\n'


def finished_pid() -> int:
    """The pid of a process that has ended (so no build of ours can be running under it)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def killed_swap(parent: Path, pid: int, old_text: str = "previous") -> Path:
    """The work folder a build killed between its two renames leaves (its marker included)."""
    work = parent / f".site-build-site-{pid}"
    (work / "old").mkdir(parents=True)
    (work / "old" / "index.html").write_text(old_text, encoding="utf-8")
    (work / "old" / "manifest.json").write_text(MANIFEST, encoding="utf-8")
    (work / "site").mkdir()
    (work / "site" / "index.html").write_text("new, never swapped in", encoding="utf-8")
    owner = {"generator": "evidencedesk", "host": socket.gethostname(), "out": "site", "pid": pid}
    (work / "owner.json").write_text(json.dumps(owner), encoding="utf-8")
    return work


def test_old_site_renamed_away_by_a_kill_is_put_back(tmp_path: Path) -> None:
    out = tmp_path / "site"
    work = killed_swap(tmp_path, finished_pid())
    assert clean_strays(out) == [work]
    assert (out / "index.html").read_text("utf-8") == "previous" and not work.exists()


def test_a_live_builds_work_folder_is_left_alone(tmp_path: Path) -> None:
    work = killed_swap(tmp_path, os.getppid())  # pytest's parent: alive for sure
    assert clean_strays(tmp_path / "site") == []
    assert (work / "old" / "index.html").is_file() and not (tmp_path / "site").exists()


def test_a_killed_swap_is_undone_even_when_the_next_build_fails(tmp_path: Path) -> None:
    out = tmp_path / "site"
    killed_swap(tmp_path, finished_pid())
    err = io.StringIO()
    rc = main(["build", "--out", str(out)], model_factory=rf.failing_model, stdout=io.StringIO(),
              stderr=err)  # fmt: skip
    assert rc == 2 and err.getvalue().startswith("error: data/labels.jsonl:3:")
    assert snapshot(out) == {"index.html": b"previous", "manifest.json": MANIFEST.encode()}
    assert strays(out) == []


def test_out_that_is_a_file_is_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.write_text("not a folder", encoding="utf-8")
    err = io.StringIO()
    rc = main(["build", "--out", str(out)], model_factory=rf.fixture_model, stdout=io.StringIO(),
              stderr=err)  # fmt: skip
    assert (
        rc == 2
        and err.getvalue().startswith("error: ")
        and out.read_text("utf-8") == "not a folder"
    )


def test_a_foreign_folder_with_this_builds_work_name_is_refused_not_removed(tmp_path: Path) -> None:
    foreign = tmp_path / f".site-build-site-{os.getpid()}"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("a user's", encoding="utf-8")
    with pytest.raises(OutputFolderError, match="evidencedesk did not make that folder"):
        with atomic_output(tmp_path / "site"):
            raise AssertionError("never reached")
    assert snapshot(tmp_path) == {foreign.name + "/mine.txt": b"a user's"}


def test_a_killed_swap_under_this_builds_pid_is_undone_too(tmp_path: Path) -> None:
    killed_swap(tmp_path, os.getpid())  # an earlier process that had our pid
    with atomic_output(tmp_path / "site") as tmp:
        (tmp / "index.html").write_text("new", encoding="utf-8")
        (tmp / "manifest.json").write_text(MANIFEST, encoding="utf-8")
    assert (tmp_path / "site" / "index.html").read_text("utf-8") == "new"
    assert strays(tmp_path / "site") == []


@pytest.mark.parametrize(("name", "is_site", "restored"), [
    ("{pid}", True, True),  # an earlier version's swap, killed between its renames
    ("{pid}", False, False),  # not a site: not ours to move
    ("backup", True, False),  # a user's name
])  # fmt: skip
def test_an_earlier_versions_old_site_is_put_back_never_deleted(
    tmp_path: Path, name: str, is_site: bool, restored: bool
) -> None:
    old = tmp_path / f".site-old-site-{name.format(pid=finished_pid())}"
    old.mkdir()
    (old / "index.html").write_text("previous", encoding="utf-8")
    if is_site:
        (old / "manifest.json").write_text(MANIFEST, encoding="utf-8")
    before = snapshot(old)
    assert clean_strays(tmp_path / "site") == []
    kept = tmp_path / "site" if restored else old
    assert snapshot(kept) == before and (tmp_path / "site").exists() == restored
