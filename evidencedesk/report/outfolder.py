"""The output folder contract: which folder ``--out`` may replace, and the build's own leftovers.

`--out` is replaced only when it is absent, empty, holds nothing but a ``README.md`` (the
repository's ``site/``; the README is carried into the new site), or is a previous evidencedesk
site: a ``manifest.json`` whose ``generator`` is ``"evidencedesk"`` (or the legacy manifest of
earlier versions, with the keys seed / version / input_hash / pages). Everything else is refused
with an `OutputFolderError` before any work: `/`, a file, a path under a file, the current folder,
the repository or checkout, the project folder and any folder holding the project's inputs, and a
folder with other files.

A symbolic link given as ``--out`` is followed: the folder it points to is replaced (atomically,
see `evidencedesk.report.site.atomic_output`) and the link itself stays a link.

Each build works in a sibling folder ``.site-build-<name>-<pid>`` holding ``owner.json`` (the
marker: generator, pid, host, out name), the new site in ``site/`` and, during the swap, the
previous site in ``old/``. `clean_strays` removes only such folders whose marker evidencedesk
wrote and whose process is gone, and first puts a previous site back if a kill came between the
two renames of the swap (also the ``.site-old-<name>-<pid>`` site of earlier versions, which it
only ever renames back, never deletes).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import stat
from collections.abc import Iterable
from pathlib import Path

from evidencedesk.errors import InputError

GENERATOR = "evidencedesk"
LEGACY_KEYS = frozenset({"seed", "version", "input_hash", "pages"})
OWNER = "owner.json"
README_ONLY = frozenset({"README.md"})
MAX_MARKER_BYTES = 64 << 20  # a manifest lists every page; 64 MiB is far beyond 100,000 pages
HOW = "choose a new or empty folder, or a previous site, for --out (e.g. --out site)"


class OutputFolderError(InputError):
    """``--out`` names a folder evidencedesk must not replace."""


def resolve(out: str | Path) -> Path:
    """The folder a build writes: absolute, every symbolic link followed."""
    if not str(out).strip():
        raise OutputFolderError("--out", f"expected a folder name, found an empty string; {HOW}")
    return Path(os.path.realpath(os.path.abspath(out)))


def work_prefix(out: Path) -> str:
    return f".site-build-{out.name}-"


def is_site(folder: Path) -> bool:
    """True if `folder` holds a manifest evidencedesk wrote (this version's or a legacy one)."""
    manifest = folder / "manifest.json"
    try:
        info = manifest.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MARKER_BYTES:
            return False
        data = json.loads(manifest.read_bytes())
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    return data.get("generator") == GENERATOR or LEGACY_KEYS <= data.keys()


def check_replaceable(out: Path, shown: str) -> None:
    """Refuse an existing `out` that is neither empty, README-only nor a previous site."""
    try:
        info = out.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        raise OutputFolderError(shown, f"expected a folder for the site, found a file; {HOW}")
    names = sorted(entry.name for entry in os.scandir(out))
    if not names or is_site(out):
        return
    if set(names) == README_ONLY and stat.S_ISREG((out / "README.md").lstat().st_mode):
        return  # the README is carried into the new site (a link would not be: refused)
    examples = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    raise OutputFolderError(
        shown,
        "expected an absent or empty folder or a previous evidencedesk site (manifest.json), "
        f"found a folder with other files ({examples}); it is left as it is — {HOW}",
    )


def _repository(start: Path) -> Path | None:
    """The nearest folder at or above `start` with a ``.git`` entry."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _covers(out: Path, protected: Path) -> bool:
    return out == protected or out in protected.parents


def protected_places(project: object | None, extra: Iterable[Path] = ()) -> list[tuple[Path, str]]:
    """(folder or file, what it is) that `--out` may neither equal nor contain."""
    from evidencedesk import paths  # late: paths reads EVIDENCEDESK_ROOT

    cwd = Path.cwd().resolve()
    repo = _repository(cwd)
    places = [] if repo is None else [(repo.resolve(), "the repository root")]
    places.append((paths.ROOT.resolve(), "the evidencedesk checkout"))
    places.append((paths.PACKAGE_DIR.parent.resolve(), "the folder holding the evidencedesk code"))
    places.append((cwd, "the current folder"))
    if project is not None:
        places.append((Path(project.root).resolve(), "the project folder"))  # type: ignore[attr-defined]
        for value in _paths_of(project):
            places.append((value.resolve(), "a project input"))
    places += [(Path(p).resolve(), "a --run input") for p in extra]
    return places


def _paths_of(project: object) -> list[Path]:
    """Every path a project names (files and folders), whatever fields it has."""
    found: list[Path] = []
    for field in dataclasses.fields(project):  # type: ignore[arg-type]
        value = getattr(project, field.name)
        items = value if isinstance(value, tuple) else (value,)
        for item in items:
            if isinstance(item, tuple):  # (name, path) pairs of runs
                item = item[-1] if item else None
            if isinstance(item, Path):
                found.append(item)
    return found


def check_target(out: Path, shown: str, places: list[tuple[Path, str]]) -> None:
    """Refuse `/`, a file, a path under a file, and any protected place `out` equals or holds."""
    if out == Path(out.anchor):
        raise OutputFolderError(
            shown, f"expected a folder of its own, found the root folder; {HOW}"
        )
    for parent in out.parents:
        if os.path.lexists(parent):
            if not parent.is_dir():
                raise OutputFolderError(
                    shown, f"expected a folder path, found that {parent} is a file; {HOW}"
                )
            break
    for place, what in places:
        if _covers(out, place):
            relation = "" if out == place else "a folder containing "
            raise OutputFolderError(
                shown,
                f"expected a folder of its own for the site, found {relation}{what} ({place}), "
                f"which evidencedesk never replaces; {HOW}",
            )


def write_owner(work: Path, out: Path) -> None:
    data = {"generator": GENERATOR, "host": socket.gethostname(), "out": out.name,
            "pid": os.getpid()}  # fmt: skip
    (work / OWNER).write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")


def _owner_pid(work: Path, out: Path) -> int | None:
    """The pid recorded in `work`'s marker, or None when the folder is not ours (or not here)."""
    marker = work / OWNER
    try:
        if not stat.S_ISREG(marker.lstat().st_mode) or marker.lstat().st_size > 4096:
            return None
        data = json.loads(marker.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("generator") != GENERATOR:
        return None
    pid = data.get("pid")
    if data.get("out") != out.name or data.get("host") != socket.gethostname():
        return None
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return None
    return pid


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_strays(out: Path) -> list[Path]:
    """Remove work folders of dead builds next to `out`, first putting back an old site."""
    removed: list[Path] = []
    if not out.parent.is_dir():
        return removed
    prefix = work_prefix(out)
    for entry in sorted(out.parent.iterdir()):
        _restore_legacy(entry, out)
        if not entry.name.startswith(prefix) or entry.is_symlink() or not entry.is_dir():
            continue
        pid = _owner_pid(entry, out)
        if pid is None or _alive(pid):
            continue
        _undo(entry, out)
        removed.append(entry)
    return removed


def _restore_legacy(entry: Path, out: Path) -> None:
    """Earlier versions renamed the old site to ``.site-old-<name>-<pid>`` during the swap.

    With `out` missing, such a folder that is an evidencedesk site of a dead process is put back;
    it is never deleted (it carries no owner marker).
    """
    pid = entry.name.removeprefix(f".site-old-{out.name}-")
    if pid == entry.name or not pid.isdigit() or os.path.lexists(out) or entry.is_symlink():
        return
    if entry.is_dir() and is_site(entry) and not _alive(int(pid)):
        entry.rename(out)


def _undo(work: Path, out: Path) -> None:
    old = work / "old"
    if old.is_dir() and not old.is_symlink() and not os.path.lexists(out):
        old.rename(out)  # killed between the two renames: the previous site goes back
    shutil.rmtree(work, ignore_errors=True)


def claim_work(out: Path, shown: str) -> Path:
    """Create this process's work folder next to `out` (with its marker) and return it.

    A folder of that name left by an earlier process that had our pid is undone like any
    stray; one evidencedesk did not make is refused, never removed.
    """
    work = out.parent / f"{work_prefix(out)}{os.getpid()}"
    if os.path.lexists(work):
        if work.is_symlink() or _owner_pid(work, out) is None:
            raise OutputFolderError(
                shown, f"expected no {work.name} beside it (evidencedesk did not make that "
                "folder), found one; move it away or choose another --out"
            )  # fmt: skip
        _undo(work, out)
    work.mkdir()
    try:
        write_owner(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work
