"""The command line's process tuning (evidencedesk.cli._process): malloc's thresholds and trim,
the paused collector, forked writers, and how a command opts in (``--tune``,
``EVIDENCEDESK_TUNING``; none by default)."""

from __future__ import annotations

import ctypes
import gc
import io
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evidencedesk import cli as report_cli
from evidencedesk.cli import _process as allocator
from evidencedesk.errors import EvidencedeskError
from evidencedesk.results import _plan as plan
from tests.synthetic_runs import write_project


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


def test_both_thresholds_are_raised_mmap_first() -> None:
    libc = FakeLibc([1, 1])
    assert allocator.reuse_freed_memory(libc) is True  # type: ignore[arg-type]
    assert libc.calls == [(-3, 2**31 - 1), (-1, 2**31 - 1)]


def test_a_refused_mmap_threshold_stops_there() -> None:
    libc = FakeLibc([0, 1])
    assert allocator.reuse_freed_memory(libc) is False  # type: ignore[arg-type]
    assert libc.calls == [(-3, 2**31 - 1)]


def test_off_linux_nothing_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator._glibc() is None
    assert allocator.reuse_freed_memory() is False
    assert allocator.release_freed_memory() is False


@pytest.mark.parametrize(("answer", "released"), [(1, True), (0, False)])
def test_freed_memory_is_trimmed_with_no_pad(answer: int, released: bool) -> None:
    libc = FakeLibc([answer])
    assert allocator.release_freed_memory(libc) is released  # type: ignore[arg-type]
    assert libc.calls == [(0, 0)]


@pytest.mark.parametrize(
    ("held", "released"),
    [
        (None, True),  # malloc cannot say what it holds (no mallinfo2): given back every time
        (0, False),
        (allocator.KEEP_BETWEEN_RUNS, False),  # at most that much is kept for the next run
        (allocator.KEEP_BETWEEN_RUNS + 1, True),
        (3 << 30, True),  # what a 50,000-question run frees
    ],
)
def test_each_stage_gives_freed_memory_back_and_a_run_let_go_above_the_bound(
    monkeypatch: pytest.MonkeyPatch, held: int | None, released: bool
) -> None:
    events: list[str] = []

    class Progress:
        def __call__(self, stage: str) -> None:
            events.append(stage)

        def step(self, n: int) -> None:
            events.append(f"step {n}")

    monkeypatch.setattr(allocator, "release_freed_memory", lambda: events.append("release") or True)
    monkeypatch.setattr(allocator, "held_free", lambda: held)
    progress = allocator.trimming(Progress())
    progress("load inputs")
    progress.step(3)  # type: ignore[attr-defined]
    progress("evaluate")
    progress.let_go()  # type: ignore[attr-defined]
    let_go = ["release"] if released else []
    assert events == ["release", "load inputs", "step 3", "release", "evaluate", *let_go]


def test_the_bound_between_runs_is_two_gibibytes() -> None:
    assert allocator.KEEP_BETWEEN_RUNS == 2 * 1024**3


class MallInfoLibc:
    """A C library whose ``mallinfo2`` reports `free` bytes held (and 7 in every other field)."""

    def __init__(self, free: int) -> None:
        def mallinfo2() -> allocator._MallInfo2:
            info = allocator._MallInfo2(*([7] * 10))
            info.fordblks = free
            return info

        self.mallinfo2 = mallinfo2


@pytest.mark.parametrize("free", [0, 123_456_789, 3 << 30])
def test_the_free_memory_held_is_mallinfo2s_fordblks(free: int) -> None:
    assert allocator.held_free(MallInfoLibc(free)) == free  # type: ignore[arg-type]


def test_without_mallinfo2_the_free_memory_held_is_unknown() -> None:
    assert allocator.held_free(FakeLibc([])) is None  # type: ignore[arg-type]


def test_off_linux_the_free_memory_held_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator.held_free() is None


def test_this_glibc_reports_a_freed_block_as_held() -> None:
    """The struct's layout against the real C library: with the thresholds raised (in a process
    of its own: they are process-wide), a 64 MiB block is not counted free while it is held
    (the heap's size, ``arena``, would count it), and is once it is freed and stays in malloc's
    heap (the memory in use, ``uordblks``, would not count it)."""
    if allocator._glibc() is None or not hasattr(allocator._glibc(), "mallinfo2"):
        pytest.skip("not glibc 2.33 or later")
    code = textwrap.dedent("""
        import ctypes
        from evidencedesk.cli import _process as p
        assert p.reuse_freed_memory()
        block = ctypes.create_string_buffer(64 << 20)
        held = p.held_free()
        del block
        print(held, p.held_free())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    held, freed = map(int, done.stdout.split())
    assert held < 16 << 20 <= 64 << 20 <= freed


def test_the_library_never_tunes_the_process() -> None:
    """malloc, the collector and fork belong to the command line (`cli.process`) alone."""
    package = Path(allocator.__file__).parents[1]
    tuned = ("malloc_trim", "mallopt", "gc.disable", "gc.freeze", "os.fork", "release_freed_memory",
             "reuse_freed_memory", "paused_collector", "_set_madvise_hugepage", "plain_pages",
             "MADVISE_HUGEPAGE")  # fmt: skip
    found = sorted(
        f"{path.relative_to(package)}: {word}"
        for path in package.rglob("*.py")
        if path.parent.name != "cli"
        for word in tuned
        if word in path.read_text(encoding="utf-8")
    )
    assert found == []


def _hugepage_switch() -> Callable[[bool], bool]:
    import numpy as np

    switch: Callable[[bool], bool] = np._core.multiarray._set_madvise_hugepage
    return switch


def test_plain_pages_turns_numpy_s_huge_page_request_off() -> None:
    switch = _hugepage_switch()
    before = switch(True)  # on, whatever numpy chose for this kernel
    try:
        assert allocator.plain_pages({}) is True
        assert switch(False) is False  # it was off
        assert allocator.plain_pages({}) is False  # already off: nothing turned off
    finally:
        switch(before)


@pytest.mark.parametrize("value", ["0", "1", ""])
def test_plain_pages_leaves_numpy_s_own_variable_to_rule(value: str) -> None:
    switch = _hugepage_switch()
    before = switch(True)
    try:
        assert allocator.plain_pages({"NUMPY_MADVISE_HUGEPAGE": value}) is False
        assert switch(True) is True  # still on
    finally:
        switch(before)


def test_the_malloc_setting_starts_with_both(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(allocator, "reuse_freed_memory", lambda: calls.append("thresholds"))
    monkeypatch.setattr(allocator, "plain_pages", lambda: calls.append("pages"))
    allocator.Tuning(trim=True, collector=True, fork=True).start()
    assert calls == []
    allocator.Tuning(malloc=True).start()
    assert calls == ["thresholds", "pages"]


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
    from evidencedesk.cli._process import reuse_freed_memory
    if sys.argv[1] == "set":
        assert reuse_freed_memory()
    np.ones(12_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(12_000_000)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """
)


@pytest.mark.skipif(not _on_glibc(), reason="glibc only")
def test_on_glibc_a_freed_array_s_pages_are_reused() -> None:
    faults = {}
    for mode in ("set", "default"):
        done = subprocess.run(
            [sys.executable, "-c", _FAULTS, mode], capture_output=True, text=True, check=True
        )
        faults[mode] = int(done.stdout)
    assert faults["default"] > 20  # each of its pages (or huge pages) faulted in again
    assert faults["set"] < faults["default"] / 4


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


EVERY = ("malloc", "trim", "collector", "fork")


@pytest.mark.parametrize(
    ("text", "applied"),
    [
        ("all", EVERY),
        (" ALL ", EVERY),
        ("none", ()),
        (" Malloc, collector ", ("malloc", "collector")),
        ("fork,malloc", ("malloc", "fork")),  # in Tuning's order, whatever the list's
        ("trim", ("trim",)),
    ],
)
def test_one_parser_reads_the_settings(text: str, applied: tuple[str, ...]) -> None:
    assert allocator.Tuning.parse(text).names() == applied


def test_the_names_are_tunings_fields_and_the_default_is_none() -> None:
    assert allocator.TUNINGS == EVERY
    assert allocator.Tuning().names() == ()


EXPECTED = "expected 'all', 'none' or a comma-separated list of malloc, trim, collector, fork"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("malloc,gc", "'gc'"),
        ("malloc,,trim", "''"),
        ("all,fork", "'all'"),
        ("", "''"),
        ("x" * 50, f"{'x' * 40!r}… (50 characters)"),
    ],
)
def test_an_unknown_setting_names_the_valid_ones(text: str, found: str) -> None:
    with pytest.raises(ValueError) as caught:
        allocator.Tuning.parse(text)
    assert str(caught.value) == f"{EXPECTED}, found {found}"


@pytest.mark.parametrize(
    ("env", "applied"),
    [
        ({}, ()),  # unset: none, the default
        ({allocator.TUNING_ENV: ""}, ()),
        ({allocator.TUNING_ENV: "  "}, ()),
        ({allocator.TUNING_ENV: "all"}, EVERY),
        ({allocator.TUNING_ENV: "collector"}, ("collector",)),
    ],
)
def test_the_environment_opts_in(env: dict[str, str], applied: tuple[str, ...]) -> None:
    assert allocator.Tuning.from_env(env).names() == applied


# What each command applied, seen from inside its work: malloc's thresholds set at start, freed
# memory given back when a stage starts, the collector off, the writers forked.
@dataclass
class Seen:
    calls: list[str] = field(default_factory=list)
    collector_on: list[bool] = field(default_factory=list)

    def applied(self) -> tuple[str, ...]:
        on = {*self.calls, *(["collector"] if self.collector_on == [False] else [])}
        return tuple(name for name in EVERY if name in on)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Seen:
    """Each command's work replaced by a spy (the build stops where the site would be built)."""
    from evidencedesk.cli import _benchmark as benchmark
    from evidencedesk.report import _audit as audit
    from evidencedesk.report import _build as report_build

    record = Seen()
    monkeypatch.delenv(allocator.TUNING_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./evidencedesk.toml: the demo project
    monkeypatch.setattr(allocator, "reuse_freed_memory", lambda: record.calls.append("malloc"))
    monkeypatch.setattr(allocator, "plain_pages", lambda: None)  # numpy's switch left as it is
    monkeypatch.setattr(allocator, "release_freed_memory", lambda: record.calls.append("trim"))

    def build_site(options: object, factory: object, progress: Callable[[str], None],
                   outcome: object, background: object) -> None:  # fmt: skip
        record.collector_on.append(gc.isenabled())
        progress("evaluate")  # a stage starts
        if background is allocator.forked:
            record.calls.append("fork")
        raise EvidencedeskError("stopped where the site would be built")

    def work(args: object, announce: object) -> tuple[dict[str, object], str, int]:
        record.collector_on.append(gc.isenabled())
        return {}, "the table", 0

    def audit_site(site: Path, pages: object = None) -> tuple[list[object], int, int]:
        record.collector_on.append(gc.isenabled())
        return [], 3, 1

    monkeypatch.setattr(report_build, "build_site", build_site)
    monkeypatch.setattr(benchmark, "work", work)
    monkeypatch.setattr(audit, "audit", audit_site)
    assert gc.isenabled()  # the collector is on as Python starts it; each case starts from there
    return record


def run_command(command: str, options: list[str]) -> None:
    argv = {"build": ["build", "--out", "site", *options], "benchmark": ["benchmark", *options],
            "audit": ["audit", "site", *options]}[command]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    status = report_cli.main(argv, stdout=out, stderr=err)
    if command == "build":
        assert (status, err.getvalue()) == (2, "error: stopped where the site would be built\n")
    else:
        assert (status, err.getvalue()) == (0, "")


# what each command can apply: the build all four; the benchmark malloc and the collector (it has
# no stages to trim between, no site to fork for); the audit the collector
APPLIES = {"build": EVERY, "benchmark": ("malloc", "collector"), "audit": ("collector",)}


@pytest.mark.parametrize("command", list(APPLIES))
@pytest.mark.parametrize(
    ("options", "env", "asked"),
    [
        ([], None, ()),  # the default: the process as Python starts it
        (["--tune"], None, EVERY),
        (["--tune", "collector"], None, ("collector",)),
        (["--tune=malloc,trim"], None, ("malloc", "trim")),
        ([], "all", EVERY),  # the environment's opt-in
        ([], "fork, collector", ("collector", "fork")),
        (["--tune", "fork"], "all", ("fork",)),  # the command line wins
        (["--tune", "none"], "all", ()),
        (["--tune"], "gc", EVERY),  # ... and the environment is then not read at all
    ],
)
def test_a_command_applies_what_it_was_asked_for_and_nothing_by_default(
    seen: Seen, monkeypatch: pytest.MonkeyPatch, command: str, options: list[str],
    env: str | None, asked: tuple[str, ...],
) -> None:  # fmt: skip
    if env is not None:
        monkeypatch.setenv(allocator.TUNING_ENV, env)
    run_command(command, options)
    assert seen.collector_on == [("collector" not in asked)]
    assert seen.applied() == tuple(name for name in asked if name in APPLIES[command])
    assert gc.isenabled()  # and the collector is on again afterwards


@pytest.mark.parametrize("command", list(APPLIES))
def test_an_unknown_setting_of_the_option_is_one_usage_line(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = {"build": ["build"], "benchmark": ["benchmark"], "audit": ["audit", "site"]}[command]
    assert report_cli.main([*argv, "--tune", "malloc,gc"]) == 2
    assert capsys.readouterr() == ("", f"error: argument --tune: {EXPECTED}, found 'gc' "
                                       f"(see evidencedesk {command} --help)\n")  # fmt: skip


def test_audit_reads_a_value_right_after_the_option_as_settings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``audit --tune SITE`` would take SITE for the settings: it is refused, naming it."""
    assert report_cli.main(["audit", "--tune", "site"]) == 2
    assert capsys.readouterr().err == (
        f"error: argument --tune: {EXPECTED}, found 'site' (see evidencedesk audit --help)\n"
    )


@pytest.mark.parametrize("command", list(APPLIES))
def test_an_unknown_setting_in_the_environment_is_one_line(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(allocator.TUNING_ENV, "malloc,gc")
    argv = {"build": ["build", "--project", "no-such-folder/evidencedesk.toml"],
            "benchmark": ["benchmark", "--project", "no-such-folder/evidencedesk.toml"],
            "audit": ["audit", "no-such-site"]}[command]  # fmt: skip
    assert report_cli.main(argv) == 2
    assert capsys.readouterr().err == f"error: EVIDENCEDESK_TUNING: {EXPECTED}, found 'gc'\n"


@pytest.mark.parametrize("command", list(APPLIES))
def test_help_shows_the_option_and_its_default(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        report_cli._parser().parse_args([command, "--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help to the terminal
    assert "[--tune [SETTINGS]]" in text
    assert ("--tune [SETTINGS] tune this process for a large project: every setting, or a "
            "comma-separated list of malloc, trim, collector, fork (default: none, unless "
            "EVIDENCEDESK_TUNING names some)") in text  # fmt: skip


def test_a_large_site_is_the_same_bytes_with_forked_writers(tmp_path: Path) -> None:
    """Above the page limit ``--tune`` forks writers: the same files, byte for byte, as the
    default build writes in one process."""
    qids = [f"q{i:03d}" for i in range(plan.PAGE_LIMIT + 4)]
    base = {q: [f"rel-{q}", "x", "y"] for q in qids}
    better = {q: ["x", f"rel-{q}"] if i % 3 else [f"rel-{q}"] for i, q in enumerate(qids)}
    project = write_project(tmp_path / "p", {q: {f"rel-{q}": 2} for q in qids},
                            {"base": base, "better": better})  # fmt: skip
    trees = {}
    for name, options in (("default", []), ("tuned", ["--tune"])):
        out = tmp_path / name / "site"
        argv = ["build", "--project", str(project), "--out", str(out), "--quiet", *options]
        assert report_cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
        trees[name] = {str(f.relative_to(out)): f.read_bytes()
                       for f in sorted(out.rglob("*")) if f.is_file()}  # fmt: skip
    assert len(trees["default"]) > 20
    assert trees["tuned"] == trees["default"]


def test_a_large_sites_question_pages_are_shared_and_each_said_once(tmp_path: Path) -> None:
    """Above the page limit the parent and a forked child take the question pages one at a
    time from one queue: every page is written once and said once to the progress, whichever
    process wrote it."""
    from evidencedesk.report._build import build_site, prepare

    qids = [f"q{i:03d}" for i in range(plan.PAGE_LIMIT + 4)]
    project = write_project(tmp_path / "p", {q: {f"rel-{q}": 2} for q in qids},
                            {"base": {q: [f"rel-{q}", "x"] for q in qids},
                             "better": {q: ["x", f"rel-{q}"] for q in qids}})  # fmt: skip
    said: list[str] = []

    class Progress:
        def __call__(self, stage: str) -> None:
            pass

        def page(self, file: str) -> None:
            said.append(file)

    out = tmp_path / "site"
    _, pages = build_site(prepare(str(out), project, None), progress=Progress(),
                          background=allocator.forked)  # fmt: skip
    questions = sorted(p for p in pages if p.startswith("question-"))
    assert len(questions) > plan.PAGE_LIMIT // 2
    assert sorted(said) == sorted(pages)  # each page once
    assert sorted(f.name for f in out.glob("question-*.html")) == questions


def test_numbers_shared_after_a_fork_are_each_taken_once(tmp_path: Path) -> None:
    import os
    import time

    from evidencedesk.report._render import _Numbers

    numbers = _Numbers(300)
    child = os.fork()
    if child == 0:  # the child: its numbers to a file, then out
        took = numbers.take(lambda _: time.sleep(0.001))
        (tmp_path / "child").write_text(" ".join(map(str, took)))
        os._exit(0)
    mine = numbers.take(lambda _: time.sleep(0.001))
    os.waitpid(child, 0)
    numbers.close()
    theirs = [int(n) for n in (tmp_path / "child").read_text().split()]
    assert sorted(mine + theirs) == list(range(300))
    assert mine == sorted(mine) and theirs == sorted(theirs)  # each in the order it took them
    with pytest.raises(ValueError, match="expected at most 4096 numbers, found 4097"):
        _Numbers(4097)


def test_a_large_sites_results_are_written_from_the_moment_they_exist(tmp_path: Path) -> None:
    """Above the page limit the per-question CSV and the qrels are launched as soon as the
    benchmark has fixed their rows, before the gate runs; results.json and the other exports as
    soon as the Results exist, before the site model is made (the core the gate and the site
    model leave idle writes them); the question pages the render hands over after it, and every
    job is waited for."""
    from evidencedesk.report._build import build_site, prepare

    qids = [f"q{i:03d}" for i in range(plan.PAGE_LIMIT + 4)]
    project = write_project(tmp_path / "p", {q: {f"rel-{q}": 2} for q in qids},
                            {"base": {q: [f"rel-{q}", "x"] for q in qids},
                             "better": {q: ["x", f"rel-{q}"] for q in qids}})  # fmt: skip
    events: list[str] = []

    @dataclass
    class Recorded:
        job: Callable[[], object]
        done: bool = False

        def wait(self) -> None:
            self.job()
            self.done = True
            events.append("waited")

        def stop(self) -> None:
            events.append("stopped")

    jobs: list[Recorded] = []

    def launch(job: Callable[[], object]) -> Recorded:
        events.append("launched")
        jobs.append(Recorded(job))
        return jobs[-1]

    out = tmp_path / "site"
    options = prepare(str(out), project, None)
    build_site(options, progress=events.append, background=launch)
    stages = [e for e in events if e in ("benchmark", "gate", "site model", "render")]
    assert stages == ["benchmark", "gate", "site model", "render"]
    assert events[: events.index("gate")].count("launched") == 1  # the per-question exports
    # results.json (with its questions file) and to-label.tsv
    assert events[events.index("gate") : events.index("site model")].count("launched") == 1
    assert events[events.index("render") :].count("launched") == 1  # a share of the questions
    assert all(job.done for job in jobs) and "stopped" not in events
    assert (out / "results.json").is_file() and (out / "data").is_dir()
