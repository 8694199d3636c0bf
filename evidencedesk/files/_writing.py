"""Writing files: the one helper every file evidencedesk writes goes through.

`write_file(path, data)` writes atomically — the bytes go to a temporary file in the same folder
(``.<name>.<random>.tmp``, created with the usual permissions), which is then linked into place —
and writes only what evidencedesk owns: an existing file at `path` is replaced only when the
caller's `replaces` test says it is one of ours (a saved baseline may replace only a saved
baseline); any other file, a folder or a link there is refused with an `OutputError` naming the
path, and nothing is written. Without `replaces`, `path` must not exist: the link that puts the
new file in place fails if anything appeared there meanwhile, so even a race cannot overwrite a
file (where the file system has no hard links, a rename after the check).

Inside a build's own work folder (`evidencedesk.report._site.atomic_output`) every file is new, so
the same rule also catches a build that would write one file twice (two names with one slug).

The one slug rule for file names made from names in the data: lower case, every run of other
characters than ``[a-z0-9]`` becomes one ``-``, no ``-`` at either end.

Two file-name contracts build on it and keep their existing names: a page of the site
(`evidencedesk.report._site.slug`: at most 64 characters and a hash of the original when the rule
changed it, so ``Foo`` and ``foo`` never share a page) and a candidate's note
(`evidencedesk.results._candidates.note_slug`: what the user names the note file, so no hash).

An 8-hex hash can be made to collide (a birthday search takes a second), and a name can be
written to equal another name's slug: `check_unique` refuses two names of one kind (variants,
questions, candidates, citation cases) whose slugs are equal, before anything is written, so
that no two of them ever share a page, an exported file or an anchor.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from evidencedesk.errors import EvidencedeskError, OutputError
from evidencedesk.files._text import FORMULA_STARTS

_UNSAFE = re.compile(r"[^a-z0-9]+")


def plain_slug(name: str) -> str:
    """`name` by the rule above (may be empty)."""
    return _UNSAFE.sub("-", name.lower()).strip("-")


def check_unique(names: Iterable[str], slug: Callable[[str], str], kind: str) -> None:
    """Refuse two different `names` with one `slug`: they would share a file or an anchor."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(slug(name), name)
        if other != name:
            raise EvidencedeskError(
                f"expected {kind} whose file and anchor names differ, found {other!r} and "
                f"{name!r}, which both become {slug(name)!r}; rename one of them"
            )


_LONE = re.compile("[\ud800-\udfff]")  # a lone surrogate: text no UTF-8 file can hold


def text_cell(text: str, limit: int | None = None) -> str:
    """A text cell of a TSV or CSV export that no spreadsheet runs and that adds no column or line.

    Every run of white space in `text` (tabs, newlines, line separators) becomes one space; a
    lone surrogate (a file name's byte that is not UTF-8) becomes U+FFFD, so that the file can be
    written as UTF-8; the cell is cut to `limit` characters; and a cell that would start a
    formula gets a leading ``'``, as OWASP's CSV-injection guidance says. Ids and numbers are
    written as they are, not through here."""
    cell = " ".join(_LONE.sub("\ufffd", text).split())[:limit]
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


# what os.link raises where the file system has no hard links
_NO_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK,
                       errno.ENOSYS})  # fmt: skip


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a file" if stat.S_ISREG(mode) else "a special file"


def _temporary(path: Path, data: bytes) -> Path:
    """`data` in a new file beside `path` (permissions as the umask gives a new file)."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name[:100]}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


def _refusal(path: Path, what: str, found: str, replaceable: str | None) -> OutputError:
    allowed = f"no file or {replaceable}" if replaceable else "no file there"
    return OutputError(
        path,
        f"expected {allowed} (evidencedesk writes only files it owns), found {found}; "
        f"it is left as it is — move it away or choose another path for the {what}",
    )


def write_file(
    path: str | Path,
    data: bytes,
    what: str = "file",
    replaces: Callable[[Path], bool] | None = None,
    replaceable: str | None = None,
) -> None:
    """Write `data` to `path` atomically, refusing to replace anything evidencedesk does not own.

    `replaces(path)` says whether an existing regular file may be replaced (it is one of ours);
    `replaceable` words what may be there in the refusal (``a saved baseline``). Raises
    `OutputError` naming `path` (nothing written), or the `OSError` of the write itself with
    `path` as its file name (a full disk: ``ENOSPC``), the temporary file removed.
    """
    path = Path(path)
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    if info is not None:
        ours = stat.S_ISREG(info.st_mode) and replaces is not None and replaces(path)
        if not ours:
            found = _kind(info.st_mode)
            if stat.S_ISREG(info.st_mode) and replaceable:
                found = f"a file that is not {replaceable}"
            raise _refusal(path, what, found, replaceable)
    try:
        tmp = _temporary(path, data)
    except OSError as exc:  # named by the file being written, not by its temporary name
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        if info is not None:
            os.replace(tmp, path)
            return
        try:
            os.link(tmp, path, follow_symlinks=False)
        except FileExistsError:
            raise _refusal(path, what, "a file that appeared while writing", replaceable) from None
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            if os.path.lexists(path):  # no hard links here: check, then rename
                raise _refusal(
                    path, what, "a file that appeared while writing", replaceable
                ) from None
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


__all__ = ["check_unique", "plain_slug", "text_cell", "write_file"]
