"""The command line's malloc settings (evidencedesk.cli.process)."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evidencedesk import cli as report_cli
from evidencedesk.cli import process as allocator


class FakeLibc:
    def __init__(self, answers: list[int]) -> None:
        self.answers = answers
        self.calls: list[tuple[int, int]] = []

        def mallopt(param: int, value: int) -> int:
            self.calls.append((param, value))
            return self.answers[len(self.calls) - 1]

        def malloc_trim(pad: int) -> int:
            self.calls.append((0, pad))
            return self.answers[len(self.calls) - 1]

        self.mallopt = mallopt
        self.malloc_trim = malloc_trim


def test_both_thresholds_are_raised_mmap_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(allocator.ENV, raising=False)
    libc = FakeLibc([1, 1])
    assert allocator.reuse_freed_memory(libc) is True  # type: ignore[arg-type]
    assert libc.calls == [(-3, 2**31 - 1), (-1, 2**31 - 1)]


def test_a_refused_mmap_threshold_stops_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(allocator.ENV, raising=False)
    libc = FakeLibc([0, 1])
    assert allocator.reuse_freed_memory(libc) is False  # type: ignore[arg-type]
    assert libc.calls == [(-3, 2**31 - 1)]


@pytest.mark.parametrize("value", ["default", " Default "])
def test_the_environment_can_keep_mallocs_defaults(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(allocator.ENV, value)
    libc = FakeLibc([1, 1])
    assert allocator.reuse_freed_memory(libc) is False  # type: ignore[arg-type]
    assert libc.calls == []


def test_off_linux_nothing_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(allocator.ENV, raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator._glibc() is None
    assert allocator.reuse_freed_memory() is False
    assert allocator.release_freed_memory() is False


@pytest.mark.parametrize(("answer", "released"), [(1, True), (0, False)])
def test_freed_memory_is_trimmed_with_no_pad(answer: int, released: bool) -> None:
    libc = FakeLibc([answer])
    assert allocator.release_freed_memory(libc) is released  # type: ignore[arg-type]
    assert libc.calls == [(0, 0)]


def test_each_stage_starts_by_giving_freed_memory_back(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []

    class Progress:
        def __call__(self, stage: str) -> None:
            events.append(stage)

        def step(self, n: int) -> None:
            events.append(f"step {n}")

    monkeypatch.setattr(allocator, "release_freed_memory", lambda: events.append("release") or True)
    progress = allocator.trimming(Progress())
    progress("load inputs")
    progress.step(3)  # type: ignore[attr-defined]
    progress("evaluate")
    assert events == ["release", "load inputs", "step 3", "release", "evaluate"]


def test_the_library_never_tunes_the_process() -> None:
    """malloc, the collector and fork belong to the command line (`cli.process`) alone."""
    package = Path(allocator.__file__).parents[1]
    tuned = ("malloc_trim", "mallopt", "gc.disable", "gc.freeze", "os.fork", "release_freed_memory",
             "reuse_freed_memory", "paused_collector")  # fmt: skip
    found = sorted(
        f"{path.relative_to(package)}: {word}"
        for path in package.rglob("*.py")
        if path.parent.name != "cli"
        for word in tuned
        if word in path.read_text(encoding="utf-8")
    )
    assert found == []


def _on_glibc() -> bool:
    try:
        return sys.platform.startswith("linux") and hasattr(
            ctypes.CDLL(None), "gnu_get_libc_version"
        )
    except OSError:
        return False


# Faults of allocating (and filling) a 96 MB array the second time, after one was freed: with
# glibc's defaults both come from a fresh mmap; with the settings, from the pages freed.
_FAULTS = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from evidencedesk.cli.process import reuse_freed_memory
    if sys.argv[1] == "set":
        assert reuse_freed_memory()
    np.ones(12_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(12_000_000)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)


@pytest.mark.skipif(not _on_glibc(), reason="glibc only")
def test_on_glibc_a_freed_array_s_pages_are_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(allocator.ENV, raising=False)
    faults = {}
    for mode in ("set", "default"):
        done = subprocess.run(
            [sys.executable, "-c", _FAULTS, mode], capture_output=True, text=True, check=True
        )
        faults[mode] = int(done.stdout)
    assert faults["default"] > 20  # each of its pages (or huge pages) faulted in again
    assert faults["set"] < faults["default"] / 4


@pytest.mark.parametrize("command", ["build", "benchmark"])
def test_the_command_line_applies_the_settings_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(allocator, "reuse_freed_memory", lambda: calls.append("set") or True)
    argv = [command, "--project", "no-such-folder/evidencedesk.toml"]
    assert report_cli.main(argv) == 2  # the bad project is still reported as usual
    assert calls == ["set"]
    assert "error: " in capsys.readouterr().err


class _Exited(Exception):
    pass


def test_python_m_report_ends_the_process_once_the_output_is_flushed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    codes: list[int] = []

    def fake_exit(code: int) -> None:
        codes.append(code)
        raise _Exited

    monkeypatch.setattr(report_cli.os, "_exit", fake_exit)
    with pytest.raises(_Exited):
        report_cli.main(
            ["build", "--project", "no-such-folder/evidencedesk.toml"], exit_process=True
        )
    assert codes == [2]
    assert capsys.readouterr().err.startswith("error: ")  # written before the process ends
    # without exit_process (every other caller) main returns as before
    assert report_cli.main(["build", "--project", "no-such-folder/evidencedesk.toml"]) == 2
    assert codes == [2]
    package = Path(report_cli.__file__).parents[1]
    for script in ("__main__.py", "report/__main__.py", "retrieval/benchmark.py"):
        assert "exit_process=True" in (package / script).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("value", "applied"),
    [
        (None, ("malloc", "trim", "collector", "fork")),
        ("all", ("malloc", "trim", "collector", "fork")),
        ("none", ()),
        (" Malloc, collector ", ("malloc", "collector")),
        ("fork", ("fork",)),
    ],
)
def test_the_environment_chooses_the_process_settings(value: str | None, applied: tuple) -> None:
    env = {} if value is None else {allocator.TUNING_ENV: value}
    assert allocator.Tuning.from_env(env).names() == applied


def test_an_unknown_process_setting_is_one_line_listing_the_valid_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(allocator.TUNING_ENV, "malloc,gc")
    assert report_cli.main(["build", "--project", "no-such-folder/evidencedesk.toml"]) == 2
    assert capsys.readouterr().err == (
        "error: EVIDENCEDESK_TUNING: expected 'all', 'none' or a comma-separated list of malloc, "
        "trim, collector, fork, found 'gc'\n"
    )


@pytest.mark.parametrize("command", ["build", "benchmark"])
def test_with_no_process_settings_the_command_leaves_malloc_alone(
    monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(allocator, "reuse_freed_memory", lambda: calls.append("set") or True)
    monkeypatch.setenv(allocator.TUNING_ENV, "none")
    assert report_cli.main([command, "--project", "no-such-folder/evidencedesk.toml"]) == 2
    assert calls == []
