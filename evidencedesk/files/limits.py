"""Input limits: every reader opens only regular files, and refuses files or lines beyond a size.

The limits are documented in docs/input-limits.md. The per-file limit can be raised for one
build with the project key ``[project].max_input_mb`` (or `set_max_input_mb`); the per-line limit
protects line-oriented readers from a file that is one enormous line.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TypeGuard

from evidencedesk.errors import InputError

DEFAULT_MAX_INPUT_MB = 4096  # a 50,000-question x 1,000-document TREC run is about 1.8 GB
SEED_MAX = 2**32 - 1  # seeds are 0..2**32-1: one range for the project file, the CLI and the API
SEED_EXPECTED = f"expected a whole number from 0 to {SEED_MAX}"  # what a bad seed's error says
MAX_LINE_BYTES = 1 << 20  # 1 MiB: no real run, qrels, labels or JSONL line comes near it
_state = {"max_bytes": DEFAULT_MAX_INPUT_MB << 20}


def is_seed(value: object) -> TypeGuard[int]:
    """Whether `value` is a seed: a whole number (not a bool) from 0 to `SEED_MAX`."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SEED_MAX


def _max_input_bytes() -> int:
    """The per-file limit in force, in bytes."""
    return _state["max_bytes"]


def set_max_input_mb(megabytes: int) -> None:
    """Set the per-file limit (whole MiB, at least 1)."""
    if isinstance(megabytes, bool) or not isinstance(megabytes, int) or megabytes < 1:
        raise ValueError(f"expected a whole number of MB >= 1, found {megabytes!r}")
    _state["max_bytes"] = megabytes << 20


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_input(path: str | Path, error: type[InputError], what: str = "file") -> int:
    """The size of `path` in bytes, after checking it is a regular file within the limit.

    Symbolic links are followed (a link to ``/dev/zero`` is a character device and is refused).
    Raises `error` naming the file: ``expected a regular <what>, found a named pipe (FIFO)``,
    ``expected a <what> of at most N MB, found M MB``, or the OS reason it cannot be read.
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error(path, f"expected a readable {what}, found {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte or a lone surrogate in the name: no file can have it
        raise error(path, f"expected a file name the file system can hold, found {exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(path, f"expected a regular {what}, found {_kind(info.st_mode)}")
    limit = _max_input_bytes()
    if info.st_size > limit:
        raise error(
            path,
            f"expected a {what} of at most {limit >> 20} MB, found {info.st_size / (1 << 20):.0f} MB"
            " (raise [project].max_input_mb to read it)",
        )
    return info.st_size


@contextlib.contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """Inside it, an OS error that names no file (a ``read`` or ``write`` failing: EIO, ENOSPC)
    is raised again naming `path`, so that its one line says where."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.filename2 is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def line_too_long(length: int) -> str:
    """The message for a line longer than `MAX_LINE_BYTES`."""
    return f"expected a line of at most {MAX_LINE_BYTES} bytes, found one of {length} bytes"


SHOWN_CHARS = 40  # how much of a bad value an error line quotes


def shown(value: str) -> str:
    """A value quoted in an error line: its repr, cut to `SHOWN_CHARS` characters (a
    5,000-digit number or a 1 MiB id is named, not echoed)."""
    if len(value) <= SHOWN_CHARS:
        return repr(value)
    return f"{value[:SHOWN_CHARS]!r}… ({len(value)} characters)"


# Structured inputs (JSON, TOML: `evidencedesk.files.structured`). No input of evidencedesk nests
# deeper than 8 levels or writes a number of more than 20 digits; the limits refuse, with a line,
# what would otherwise be a RecursionError or Python's own 4,300-digit ValueError.
MAX_DEPTH = 64  # arrays and objects (tables) inside one another
MAX_DIGITS = 100  # digits of one number
# A .gz input may expand to at most this many times its size (never under MIN_GZIP_EXPANSION,
# never beyond the per-file limit). Deflate cannot pass ~1,032 to 1, which is what a gzip bomb
# reaches; the per-question file of a synthetic project whose lists are all alike reaches ~74.
MAX_GZIP_RATIO = 250
_MIN_GZIP_EXPANSION = 64 << 20  # bytes a .gz input may always expand to, however small it is


def max_expanded_bytes(compressed: int) -> int:
    """How many bytes a .gz input of `compressed` bytes may expand to."""
    return min(_max_input_bytes(), max(_MIN_GZIP_EXPANSION, MAX_GZIP_RATIO * compressed))
