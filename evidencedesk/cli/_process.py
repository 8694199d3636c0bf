"""What the command line can do to its own process to build large projects faster, when asked;
the library (files, retrieval, results, report) does none of it, and a notebook's
`evidencedesk.build()` runs without it.

By default a command runs in the process as Python starts it. ``--tune`` (`add_tune_argument`,
shared by ``build``, ``benchmark`` and ``audit``) applies every setting, ``--tune
malloc,collector`` only those; ``EVIDENCEDESK_TUNING`` (`TUNING_ENV`, the same values) opts in
from the environment, as a CI job may, and the option wins over it. One parser reads both
(`Tuning.parse`); the names are `Tuning`'s fields. The settings are off by default because each
changes how the process behaves (malloc keeps freed memory, cycles wait for the end, children
are forked) and their gain is a large project's: `benchmarks/process_tuning.py` times one build
with all of them, with none, and without each.

- **malloc** (`reuse_freed_memory` and `plain_pages`, once at start): large arrays come from
  malloc's heap in plain pages, and freed memory stays there for the next array;
- **trim** (`release_freed_memory` at each stage's start, through `trimming`, and once each
  run is read, judged and dropped): the memory kept is given back once the build is done with
  it;
- **collector** (`paused_collector`): the cyclic garbage collector off for the work: the
  statistics, the site model and the render build millions of small objects on top of a large
  heap, and each collection walked all of them (reference counting still frees everything;
  cycles made meanwhile are collected at the end);
- **fork** (`forked`): above the page limit results.json, the data/ exports and half of the
  question pages are written by forked children while the parent renders the rest
  (`report.render.render_site`'s `background`); each file is written by exactly one process,
  so the bytes are those of a sequential build. ``build`` also compiles its templates in a
  child forked as it starts (`report.render.compile_ahead`), on the core its start-up leaves
  idle. ``audit`` hands a large site's pages to two forked readers
  (`cli._audit.forked_pages`) and prints their lines in page order.

malloc:

numpy takes every array from malloc. glibc serves a block larger than its mmap threshold (128 KiB,
rising to at most 32 MiB as such blocks are freed) with a fresh ``mmap`` and returns it to the
kernel on ``free``: the next array of that size makes the kernel fault in and zero every page
again. Reading and judging a 10-million-line run allocates and frees dozens of arrays of 10 to
80 MB; on the 2-core VM of docs/scale.md the page faults cost about 1 s of system time of a 3.5 s
evaluation. With both thresholds raised, a freed block stays in malloc's heap and the next array
reuses its pages; the process's peak memory is still what its largest moment holds (plus what
the heap's holes keep), and the memory goes back to the system when the process ends.

numpy also asks the kernel for transparent huge pages (``madvise``) for every array of 4 MiB or
more, and with the kernel's default THP defrag setting (``madvise``) a fault in such an array
compacts memory to find a free 2 MiB page. On the VM of docs/scale.md (a host that takes back
the guest's free high-order blocks: free page reporting) those faults cost one to two seconds of
system time in the read of a 360 MB run, by turns, and a third of a second in judging it:
`plain_pages` turns numpy's request off (as ``NUMPY_MADVISE_HUGEPAGE=0`` does at numpy's import),
and the same read took 0.4 s of system time every time. A ``NUMPY_MADVISE_HUGEPAGE`` the
environment sets is left to rule.

`reuse_freed_memory` does nothing (and returns False) off glibc -- macOS, Windows, musl. Kept
memory is memory the process still holds, so with ``trim`` it is given back at each stage's
start (glibc's ``malloc_trim``), when the last stage's arrays are gone. Between two runs of a
stage it is kept while malloc holds at most `KEEP_BETWEEN_RUNS` free (``mallinfo2``, every
arena), so that the next run's arrays reuse the last one's pages instead of faulting in new
ones (on the 10,000 x 3 build of docs/scale.md, when each run freed 0.7-1.1 GB, about 200,000
page faults and 0.3-1.2 s fewer, for 0.1-0.15 GB more at its peak). A 10,000-question run frees
about 0.4 GiB, a 50,000-question run about 1.3 GiB: both are kept. Above the limit the memory is
given back, so that the heap's holes do not add up from run to run (runs freeing 3 GB each kept
a third run 0.3-1 GiB above the first) and a build of larger runs peaks at what one run takes.
Where malloc cannot say what it holds (no ``mallinfo2``: glibc before 2.33) it is given back
every time.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import gc
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import FrameType

from evidencedesk.errors import BuildTerminated, EvidencedeskError, UsageError
from evidencedesk.files._text import shown

__all__ = [
    "KEEP_BETWEEN_RUNS",
    "TUNINGS",
    "TUNING_ENV",
    "TUNE_OPTION",
    "Background",
    "Tuning",
    "add_tune_argument",
    "forked",
    "held_free",
    "paused_collector",
    "plain_pages",
    "release_freed_memory",
    "reuse_freed_memory",
    "trimming",
]

KEEP_BETWEEN_RUNS = 2 << 30  # bytes of freed memory malloc may keep from one run to the next
_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_THRESHOLD = 2**31 - 1  # bytes, both thresholds; mallopt takes a C int: its largest value


def _glibc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the C library this process already runs on
    except OSError:
        return None
    # gnu_get_libc_version exists in glibc only (musl has a mallopt that does nothing)
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return None
    return libc


def reuse_freed_memory(libc: ctypes.CDLL | None = None) -> bool:
    """Raise glibc's mmap and trim thresholds to `_THRESHOLD`; True when both were set.

    `libc` is for tests (a stand-in with a ``mallopt``); by default the process's own C library.
    """
    libc = libc if libc is not None else _glibc()
    if libc is None:
        return False
    mallopt = libc.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # the mmap threshold first: setting either one stops glibc's own adjustment of the other
    return bool(mallopt(_M_MMAP_THRESHOLD, _THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _THRESHOLD)
    )


_HUGEPAGE_ENV = "NUMPY_MADVISE_HUGEPAGE"  # numpy's own switch, read when numpy is imported


def plain_pages(env: Mapping[str, str] = os.environ) -> bool:
    """Turn off numpy's transparent-huge-page request for large arrays (see the module's notes);
    True when it was on and is now off. False, changing nothing, where the environment sets
    ``NUMPY_MADVISE_HUGEPAGE`` (numpy has read it) or numpy has no such switch."""
    if _HUGEPAGE_ENV in env:
        return False
    try:  # here: the command line imports numpy only once its work needs it
        from numpy._core import multiarray  # numpy 1.26 has the name too
    except ImportError:
        return False
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is None:
        return False
    return bool(switch(False))


def release_freed_memory(libc: ctypes.CDLL | None = None) -> bool:
    """Give the memory malloc holds free back to the system (glibc's ``malloc_trim(0)``, every
    arena); True when some was. Off glibc it does nothing and returns False."""
    libc = libc if libc is not None else _glibc()
    if libc is None:
        return False
    trim = libc.malloc_trim
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return bool(trim(0))


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (malloc.h, glibc 2.33 on): byte counts summed over every
    arena; ``fordblks`` is the free memory malloc holds."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def held_free(libc: ctypes.CDLL | None = None) -> int | None:
    """Bytes of freed memory malloc holds (glibc's ``mallinfo2().fordblks``); None off glibc or
    where the C library has no ``mallinfo2``."""
    libc = libc if libc is not None else _glibc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    info = libc.mallinfo2
    info.argtypes = []
    info.restype = _MallInfo2
    return int(info().fordblks)


def trimming(progress: Callable[[str], None]) -> Callable[[str], None]:
    """`progress` (told each stage's name as it starts) that first gives malloc's free memory
    back to the system: the last stage's arrays are gone by then; and again when the build lets
    a run go (``let_go``) while malloc holds more than `KEEP_BETWEEN_RUNS` free (the module's
    notes). Keeps `progress`'s other methods (``step``, ``page``) by returning a wrapper
    object."""
    return _Trimming(progress)


class _Trimming:
    def __init__(self, progress: Callable[[str], None]) -> None:
        self._progress = progress

    def __call__(self, stage: str) -> None:
        release_freed_memory()
        self._progress(stage)

    def let_go(self) -> None:
        """A run was dropped (`results._stages.LetsGo`): its freed memory is kept for the next
        run's arrays, unless it is more than `KEEP_BETWEEN_RUNS` or malloc cannot say."""
        held = held_free()
        if held is None or held > KEEP_BETWEEN_RUNS:
            release_freed_memory()

    def __getattr__(self, name: str) -> object:
        return getattr(self._progress, name)


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic garbage collector off for the block (as it was before, after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_WRITING = "writing the site's data files"  # what the build's forked writers do


class Background:
    """`job()` in a child made with ``os.fork`` (or at once where there is no fork): the child
    shares the parent's objects copy-on-write, runs the job and leaves through ``os._exit``
    whatever happens (the caller's clean-up runs only in the parent); `wait()` returns, in the
    parent, what the job returned, or raises what it raised there (an OSError keeps its errno
    and file name); `stop()` ends a child still running when the parent fails first. `doing`
    names the job in the line said when the child stops without a word."""

    def __init__(self, job: Callable[[], object], doing: str = _WRITING) -> None:
        self.pid: int | None = None
        self._read = -1
        self._doing = doing
        self._value: object = None
        if not hasattr(os, "fork"):
            self._value = job()
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run the job, hand over its value or exception, never return
            os.close(read)
            status = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # the parent reports interrupts
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                data = pickle.dumps((True, job()))
            except BaseException as exc:  # handed to the parent, raised there
                status = 1
                try:
                    data = pickle.dumps((False, exc))
                except Exception:  # an exception that does not pickle: say what it was
                    data = pickle.dumps((False, EvidencedeskError(f"{type(exc).__name__}: {exc}")))
            try:
                while data:
                    data = data[os.write(write, data) :]
            finally:
                os._exit(status)
        os.close(write)
        self.pid, self._read = pid, read

    def wait(self) -> object:
        """Wait for the child; return what its job returned, or raise what it raised."""
        if self.pid is None:
            return self._value
        chunks = []
        while chunk := os.read(self._read, 1 << 20):
            chunks.append(chunk)
        os.close(self._read)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if chunks:
            try:
                done, value = pickle.loads(b"".join(chunks))  # noqa: S301 - our own child's
            except Exception:  # an exception class whose arguments do not unpickle
                raise EvidencedeskError(f"{self._doing} failed") from None
            if not done:
                raise value
            self._value = value
            return value
        raise EvidencedeskError(
            f"{self._doing} stopped (status {os.waitstatus_to_exitcode(status)})"
        )

    def stop(self) -> None:
        """End the child if it still runs (the parent failed first)."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self._read)
        self.pid = None


def forked(job: Callable[[], object]) -> Background:
    """`report.render.render_site`'s `background` for the command line: `job` in a forked child."""
    return Background(job)


TUNING_ENV = "EVIDENCEDESK_TUNING"  # the environment's opt-in: the values of --tune
TUNE_OPTION = "--tune"  # the option that opts a command in (`add_tune_argument`)


@dataclass(frozen=True)
class Tuning:
    """Which of the process settings a command applies: none unless asked (`chosen`)."""

    malloc: bool = False  # `reuse_freed_memory` and `plain_pages` at start
    trim: bool = False  # `release_freed_memory` at each stage's start
    collector: bool = False  # `paused_collector` around the work
    fork: bool = False  # large sites: part of the files written by forked children

    @classmethod
    def parse(cls, text: str) -> Tuning:
        """``all``, ``none`` or a comma-separated list of `TUNINGS` (any case, spaces around
        the names); ValueError saying what was expected and what was found."""
        words = text.strip().lower()
        if words in ("all", "none"):
            return cls(**dict.fromkeys(TUNINGS, words == "all"))
        names = [name.strip() for name in words.split(",")]
        unknown = [name for name in names if name not in TUNINGS]
        if unknown:
            raise ValueError(
                f"expected 'all', 'none' or a comma-separated list of {', '.join(TUNINGS)}, "
                f"found {shown(unknown[0])}"
            )
        return cls(**{name: name in names for name in TUNINGS})

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Tuning:
        """`TUNING_ENV`'s settings; unset or empty: none."""
        text = env.get(TUNING_ENV, "")
        if not text.strip():
            return cls()
        try:
            return cls.parse(text)
        except ValueError as exc:
            raise UsageError(f"{TUNING_ENV}: {exc}") from None

    @classmethod
    def chosen(cls, args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> Tuning:
        """A command's settings: its ``--tune`` when given (it wins), else `from_env`."""
        tune: Tuning | None = getattr(args, "tune", None)
        return tune if tune is not None else cls.from_env(env)

    def start(self) -> None:
        if self.malloc:
            reuse_freed_memory()
            plain_pages()

    def progress(self, progress: Callable[[str], None]) -> Callable[[str], None]:
        return trimming(progress) if self.trim else progress

    def paused(self) -> AbstractContextManager[None]:
        return paused_collector() if self.collector else contextlib.nullcontext()

    def names(self) -> tuple[str, ...]:
        return tuple(name for name in TUNINGS if getattr(self, name))


TUNINGS = tuple(f.name for f in dataclasses.fields(Tuning))  # their names, in order


def _tune_value(text: str) -> Tuning:
    try:
        return Tuning.parse(text)
    except ValueError as exc:  # argparse prints this one's words: "argument --tune: expected …"
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_tune_argument(parser: argparse.ArgumentParser) -> None:
    """``--tune [SETTINGS]``: alone every setting, else those listed (``args.tune``, a `Tuning`;
    None when absent: `Tuning.chosen` then reads `TUNING_ENV`)."""
    parser.add_argument(
        TUNE_OPTION, nargs="?", const="all", default=None, type=_tune_value, metavar="SETTINGS",
        help=f"tune this process for a large project: every setting, or a comma-separated list "
        f"of {', '.join(TUNINGS)} (default: none, unless {TUNING_ENV} names some)",
    )  # fmt: skip


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise BuildTerminated(f"terminated by signal {signum}")


@contextlib.contextmanager
def terminate_as_exception() -> Iterator[None]:
    """Turn SIGTERM into `BuildTerminated` so clean-up code runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
