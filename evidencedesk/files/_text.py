"""Reading a user's files: one place that turns OS, type, size and encoding trouble into one error.

Every reader goes through here, so every input is checked by `evidencedesk.files._text.check_input`
before it is opened: a named pipe, a device or a socket is refused by type (opening a FIFO would
block the build forever; ``/dev/zero`` would never end), and a file over the per-file limit is
refused by size. Line-oriented readers use `iter_lines`, which streams and refuses a line over
`limits.MAX_LINE_BYTES`.

Input limits: every reader opens only regular files, and refuses files or lines beyond a size.

The limits are documented in docs/input-limits.md. The per-file limit can be raised for one
build with the project key ``[project].max_input_mb`` (or `set_max_input_mb`); the per-line limit
protects line-oriented readers from a file that is one enormous line.
"""

from __future__ import annotations

import contextlib
import os
import stat
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeGuard

from evidencedesk.errors import InputError

DEFAULT_MAX_INPUT_MB = 4096  # a 50,000-question x 1,000-document TREC run is about 1.8 GB


SEED_MAX = 2**32 - 1  # seeds are 0..2**32-1: one range for the project file, the CLI and the API


SEED_EXPECTED = f"expected a whole number from 0 to {SEED_MAX}"  # what a bad seed's error says


MAX_LINE_BYTES = 1 << 20  # 1 MiB: no real run, qrels, labels or JSONL line comes near it


# An id array pads every id to the longest one (`_trec_keys.fixed_width`), so one id far longer
# than the rest takes memory out of all proportion to its file (a 400 KB id among a run's 100,000
# lines: 40 GB). The readers of runs, qrels and BEIR corpora hold a file's padded document ids
# within the larger of the two
PADDED_FLOOR = 1 << 30  # bytes: the padded ids of any file may take this much
PADDED_TIMES = 16  # or this many times the file's size


def padded_room(file_size: int) -> int:
    """The bytes a file's document ids may take once padded (`PADDED_FLOOR`, `PADDED_TIMES`)."""
    return max(PADDED_FLOOR, PADDED_TIMES * file_size)


def padded_fits(count: int, longest: int, file_size: int) -> bool:
    """Whether `count` ids whose longest has `longest` bytes fit, padded to whole 8-byte words,
    in the `padded_room` of their file."""
    return count * 8 * -(-max(1, longest) // 8) <= padded_room(file_size)


class LongestId:
    """The longest document id a line-by-line reader met (in UTF-8 bytes) and its first line;
    `check` refuses it there where the file's ids would not fit padded (`padded_fits`)."""

    def __init__(self) -> None:
        self.length = 0
        self.line = 0

    def see(self, value: str | bytes, line: int) -> None:
        length = len(value.encode("utf-8") if isinstance(value, str) else value)
        if length > self.length:
            self.length, self.line = length, line

    def check(
        self, path: str | Path, count: int, what: str, error: type[InputError],
        size: int | None = None,
    ) -> None:  # fmt: skip
        """Raise `error` at the longest id's line unless `count` ids of its length fit padded
        (`what`: the file's kind of row, "lines", "judgments"; `size`: the file's, else its
        size on disk)."""
        size = Path(path).stat().st_size if size is None else size
        if padded_fits(count, self.length, size):
            return
        limit = padded_room(size) // max(count, 1) // 8 * 8
        raise error(
            path,
            f"expected a document id of at most {limit:,} bytes, found one of {self.length:,} "
            f"bytes (the {count:,} {what} hold their ids padded to the longest, in at most "
            f"{PADDED_FLOOR >> 30} GiB or {PADDED_TIMES} times the file's size); shorten the "
            "longest ids, in the runs and the qrels alike",
            self.line,
        )


# the first characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection;
# its tab and CR are white space, which no id holds and every text cell collapses): an id may
# not start with one, a text cell that does gets a leading apostrophe
FORMULA_STARTS = ("=", "+", "-", "@")


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


def has_space(value: str) -> bool:
    """Whether `value` holds white space (`str.isspace`). Printable text holds none but the
    ASCII space, so only the rest is scanned a character at a time (50,000 query ids scanned
    that way took a tenth of a second)."""
    if value.isprintable():
        return " " in value
    return any(c.isspace() for c in value)


def has_control(value: str) -> bool:
    """Whether `value` holds a control character (Unicode category Cc); printable text holds
    none, so only the rest is scanned a character at a time."""
    return not value.isprintable() and any(unicodedata.category(c) == "Cc" for c in value)


def tags_problem(tags: Iterable[str]) -> str | None:
    """What is wrong with the first of a question's tags that holds white space or a control
    character, None when none does: the per-question CSV lists a question's tags separated by
    spaces (``two words`` would read back as two tags), and a page shows a tag on one line."""
    bad = next((tag for tag in tags if has_space(tag) or has_control(tag)), None)
    if bad is None:
        return None
    return (
        f"expected tags without spaces or control characters (e.g. 'long_tail'), found {shown(bad)}"
    )


def name_problem(name: str, what: str) -> str | None:
    """What is wrong with a name the site shows (a run's, a candidate's: `what`) that holds a
    control character, None when it holds none: a page draws a newline or a tab as a space, so
    the name would read as another one ("new\\nline" as "new line")."""
    if not has_control(name):
        return None
    return (
        f"expected a {what} without control characters (a page shows it on one line), found "
        f"{shown(name)}"
    )


# Structured inputs (JSON, TOML: `evidencedesk.files._structured`). No input of evidencedesk nests
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


def _unreadable(path: str | Path, error: type[InputError], what: str, exc: OSError) -> InputError:
    return error(path, f"expected a readable {what}, found {exc.strerror or exc}")


def _bad_utf8(
    path: str | Path, error: type[InputError], raw: bytes, exc: UnicodeDecodeError, line: int
) -> InputError:
    return error(
        path, f"expected UTF-8 text, found byte 0x{raw[exc.start]:02x} at offset {exc.start}", line
    )


def read_bytes(path: str | Path, error: type[InputError], what: str = "file") -> bytes:
    """The bytes of `path`, checked like `read_text` (a regular file within the limit)."""
    size = check_input(path, error, what)
    try:
        with open(path, "rb") as handle:
            return handle.read(size + 1)  # bounded even if the file grows while we read it
    except OSError as exc:
        raise _unreadable(path, error, what, exc) from None


def read_text(
    path: str | Path, error: type[InputError], what: str = "file", *, max_line: bool = False
) -> str:
    """The UTF-8 text of `path`, a leading byte-order mark dropped.

    Not a regular file or too big: see `check_input`. Unreadable: ``expected a readable <what>,
    found <reason>``. Bad bytes: ``<path>:<line>: expected UTF-8 text, found byte 0x.. at offset
    N``. With `max_line`, a line longer than `MAX_LINE_BYTES` is refused at its line.
    """
    path = Path(path)
    raw = read_bytes(path, error, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad_utf8(path, error, raw, exc, raw.count(b"\n", 0, exc.start) + 1) from None
    if max_line:
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if len(line.rstrip(b"\r")) > MAX_LINE_BYTES:
                raise error(path, line_too_long(len(line.rstrip(b"\r"))), number)
    return text.removeprefix("\ufeff")


def iter_lines(
    path: str | Path, error: type[InputError], what: str = "file"
) -> Iterator[tuple[int, str]]:
    """Stream ``(line number, text)`` for every line of `path`, without its line ending (LF,
    CRLF or a CR alone).

    Checks `path` like `read_text`; a line over `MAX_LINE_BYTES` (line ending not counted) is
    refused at its line, its length measured without keeping it in memory; bad UTF-8 is refused
    at its line with the byte's offset in the file.
    """
    path = Path(path)
    check_input(path, error, what)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise _unreadable(path, error, what, exc) from None
    with handle:
        offset = 0
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 2)
            except OSError as exc:
                raise _unreadable(path, error, what, exc) from None
            if not raw:
                return
            number += 1
            body = raw.rstrip(b"\n").rstrip(b"\r")
            if len(body) > MAX_LINE_BYTES:
                length = len(raw)
                while not raw.endswith(b"\n"):  # measure the rest without keeping it
                    raw = handle.readline(1 << 20)
                    length += len(raw)
                    if not raw:
                        break
                ending = 2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0
                raise error(path, line_too_long(length - ending), number)
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = exc.start
                raise error(
                    path,
                    f"expected UTF-8 text, found byte 0x{body[bad]:02x} at offset {offset + bad}",
                    number,
                ) from None
            if number == 1:
                text = text.removeprefix("\ufeff")
            offset += len(raw)
            # a CR alone ends a line too (a file saved with old Mac line ends is one "line" to
            # readline): each piece is a line of its own, numbered as an editor numbers it
            first, *more = text.split("\r")
            yield number, first
            for piece in more:
                number += 1
                yield number, piece


def list_folder(folder: str | Path, error: type[InputError], what: str = "folder") -> list[Path]:
    """The entries of `folder`, sorted by name; an unreadable folder is one error with the reason."""
    folder = Path(folder)
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries)
    except OSError as exc:
        raise _unreadable(folder, error, what, exc) from None
    return [folder / name for name in names]
