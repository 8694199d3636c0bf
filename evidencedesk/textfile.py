"""Reading a user's text file: one place that turns OS and encoding trouble into one clear error."""

from __future__ import annotations

from pathlib import Path

from evidencedesk.errors import InputError


def read_text(path: str | Path, error: type[InputError], what: str = "file") -> str:
    """The UTF-8 text of `path`, a leading byte-order mark dropped.

    Unreadable: ``expected a readable <what>, found <reason>``. Bad bytes: ``<path>:<line>:
    expected UTF-8 text, found byte 0x.. at offset N``.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(path, f"expected a readable {what}, found {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            path,
            f"expected UTF-8 text, found byte 0x{raw[exc.start]:02x} at offset {exc.start}",
            raw.count(b"\n", 0, exc.start) + 1,
        ) from None
    return text.removeprefix("\ufeff")
