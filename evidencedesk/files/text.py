"""Reading a user's files: one place that turns OS, type, size and encoding trouble into one error.

Every reader goes through here, so every input is checked by `evidencedesk.files.limits.check_input`
before it is opened: a named pipe, a device or a socket is refused by type (opening a FIFO would
block the build forever; ``/dev/zero`` would never end), and a file over the per-file limit is
refused by size. Line-oriented readers use `iter_lines`, which streams and refuses a line over
`limits.MAX_LINE_BYTES`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from evidencedesk.errors import InputError
from evidencedesk.files.limits import MAX_LINE_BYTES, check_input, line_too_long


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
