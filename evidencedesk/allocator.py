"""glibc malloc settings for the command line: large arrays come from malloc's heap and freed
memory stays there for the next array.

numpy takes every array from malloc. glibc serves a block larger than its mmap threshold (128 KiB,
rising to at most 32 MiB as such blocks are freed) with a fresh ``mmap`` and returns it to the
kernel on ``free``: the next array of that size makes the kernel fault in and zero every page
again. Reading and judging a 10-million-line run allocates and frees dozens of arrays of 10 to
80 MB; on the 2-core VM of docs/scale.md the page faults cost about 1 s of system time of a 3.5 s
evaluation. With both thresholds raised, a freed block stays in malloc's heap and the next array
reuses its pages; the process's peak memory is still what its largest moment holds (plus what
the heap's holes keep), and the memory goes back to the system when the process ends.

The command line (``python -m evidencedesk.report build``, ``evidencedesk build`` and
``evidencedesk benchmark``) calls :func:`reuse_freed_memory` once as it starts. A library caller
may call it too: it changes malloc for the whole process. It does nothing (and returns False)
off glibc -- macOS, Windows, musl -- or when ``EVIDENCEDESK_MALLOC=default`` is set.

Kept memory is memory the process still holds, so it is given back where a large amount of it
is known to be free (:func:`release_freed_memory`, glibc's ``malloc_trim``): in ``read_run``
once a run's parsed parts are joined (the reading threads' own malloc arenas would otherwise
keep them while the run is sorted and judged, and through the next run: the 50,000-question
build peaked at 4.26 GiB), and in the runs-only build once every run is judged. Between two
runs nothing is given back: the next run's arrays reuse the pages of the last one's (giving them
back after each run made the next one fault every page in again: 3 s more in that build).
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = [
    "ENV",
    "M_MMAP_THRESHOLD",
    "M_TRIM_THRESHOLD",
    "THRESHOLD",
    "release_freed_memory",
    "reuse_freed_memory",
]

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
THRESHOLD = 2**31 - 1  # bytes, both thresholds; mallopt takes a C int: its largest value
ENV = "EVIDENCEDESK_MALLOC"  # "default": leave malloc as it is


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
    """Raise glibc's mmap and trim thresholds to `THRESHOLD`; True when both were set.

    `libc` is for tests (a stand-in with a ``mallopt``); by default the process's own C library.
    """
    if os.environ.get(ENV, "").strip().lower() == "default":
        return False
    libc = libc if libc is not None else _glibc()
    if libc is None:
        return False
    mallopt = libc.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # the mmap threshold first: setting either one stops glibc's own adjustment of the other
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, THRESHOLD))


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
