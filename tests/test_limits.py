"""The input limits: regular files only, a per-file size limit, a per-line limit message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evidencedesk.errors import InputError
from evidencedesk.files import _text as file_text


def test_regular_file_size_is_returned(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"12345")
    assert file_text.check_input(path, InputError) == 5


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (lambda p: os.mkfifo(p), "a named pipe (FIFO)"),
        (lambda p: os.symlink("/dev/zero", p), "a character device"),
        (lambda p: p.mkdir(), "a folder"),
    ],
)
def test_non_regular_files_are_refused_by_type(tmp_path: Path, make, found: str) -> None:
    path = tmp_path / "input"
    make(path)
    with pytest.raises(InputError) as info:
        file_text.check_input(path, InputError, "labels file")
    assert str(info.value) == f"{path}: expected a regular labels file, found {found}"


def test_missing_file_names_the_os_reason(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a readable file, found No such file"):
        file_text.check_input(tmp_path / "nope", InputError)


def test_size_limit_can_be_raised(tmp_path: Path) -> None:
    path = tmp_path / "big"
    with path.open("wb") as f:  # sparse: the limit reads the size, never the bytes
        f.truncate((1 << 20) + 1)
    try:
        file_text.set_max_input_mb(1)
        with pytest.raises(InputError, match=r"at most 1 MB, found 1 MB \(raise"):
            file_text.check_input(path, InputError)
        file_text.set_max_input_mb(2)
        assert file_text.check_input(path, InputError) == (1 << 20) + 1
    finally:
        file_text.set_max_input_mb(file_text.DEFAULT_MAX_INPUT_MB)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_limit_must_be_a_positive_whole_number(bad: object) -> None:
    with pytest.raises(ValueError, match="expected a whole number of MB >= 1"):
        file_text.set_max_input_mb(bad)  # type: ignore[arg-type]


def test_line_message() -> None:
    assert file_text.line_too_long(2_000_000) == (
        "expected a line of at most 1048576 bytes, found one of 2000000 bytes"
    )
