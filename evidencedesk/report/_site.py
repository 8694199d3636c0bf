"""Safe file names and atomic output for the report site.

`slug()` turns any name from data into ``[a-z0-9-]``, at most 64 characters; when slugging changed
the name, a short hash of the original is appended, so ``Foo`` and ``foo`` (or ``a/b`` and
``a-b``) never share a file. `inside()` refuses any path that would leave the site folder.

`atomic_output(out)` holds the output folder's lock (`_build_lock`), builds into
``site/`` of a hidden sibling work folder ``.site-build-<name>-<pid>`` and, only when the body
finished, links every entry of the previous site that its manifest does not list into the new
one (`_carry_unlisted`: a file a user added survives the rebuild) and swaps it in (old
site renamed to the work folder's ``old/``, new one renamed into place, work folder deleted) with
SIGINT/SIGTERM blocked for the two renames. Any exception, KeyboardInterrupt or SIGTERM (the
command line turns it into an exception: `cli.process.terminate_as_exception`) before the swap
leaves the previous folder untouched; `Outcome` says whether the swap happened. The whole contract
is docs/output-folder.md.

The output folder contract: which folder ``--out`` may replace, and the build's own leftovers.

`--out` is replaced only when it is absent, empty, holds nothing but a ``README.md`` (the
repository's ``site/``; the README is carried into the new site), or is a previous evidencedesk
site: a ``manifest.json`` whose ``generator`` is ``"evidencedesk"`` (or the legacy manifest of
earlier versions, with the keys seed / version / input_hash / pages). Everything else is refused
with an `OutputFolderError` before any work: `/`, a file, a path under a file, the current folder,
the repository or checkout, the project folder and any folder holding the project's inputs, and a
folder with other files.

A symbolic link given as ``--out`` is followed: the folder it points to is replaced (atomically,
see `evidencedesk.report._site.atomic_output`) and the link itself stays a link.

A previous site's ``manifest.json`` lists every file its build wrote (``files``): a rebuild
replaces only the files its manifest.json lists and keeps anything else (`_carry_unlisted`). A
build holds an exclusive lock on its output folder (`_build_lock`): a second build into the same
folder fails at once, naming the holder's pid. The whole contract is docs/output-folder.md.

Each build works in a sibling folder ``.site-build-<name>-<pid>`` holding ``owner.json`` (the
marker: generator, pid, host, out name), the new site in ``site/`` and, during the swap, the
previous site in ``old/``. `clean_strays` removes only such folders whose marker evidencedesk
wrote and whose process is gone, and first puts a previous site back if a kill came between the
two renames of the swap (also the ``.site-old-<name>-<pid>`` site of earlier versions, which it
only ever renames back, never deletes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import shutil
import signal
import socket
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk.errors import (
    BuildLockedError,
    EvidencedeskError,
    OutputFolderError,
)
from evidencedesk.files._structured import parse_json
from evidencedesk.files._text import naming
from evidencedesk.files._writing import plain_slug, write_file

_GENERATOR = "evidencedesk"  # the `generator` a manifest or marker evidencedesk wrote carries


MANIFEST = "manifest.json"  # the file of a site that lists every file its build wrote
SUMMARY = "summary.md"  # the site's decision in Markdown (`report._exports.summary_markdown`)


# what every earlier version wrote beside its pages and downloads (their manifests list neither)
_LEGACY_FILES = frozenset({
    "assets/style.css", "assets/sort.js", "assets/questions.js", "assets/plotly.min.js",
    "data/question-list.js", "results.json", "results-questions.json.gz", "data/per-question.csv",
    "data/per-question.csv.gz", "data/qrels.txt", "data/qrels.txt.gz",
})  # fmt: skip


# the start of the name of a build's lock file, beside the output folder
_LOCK_PREFIX = ".site-lock-"


# the keys of the manifest earlier versions wrote (no `generator`)
_LEGACY_KEYS = frozenset({"seed", "version", "input_hash", "pages"})


_OWNER = "owner.json"  # the marker of a build's work folder (generator, pid, host, out name)


# what the repository's `site/` holds before a first build, which `--out` may replace
_README_ONLY = frozenset({"README.md"})


_MAX_MARKER_BYTES = 64 << 20  # a manifest lists every page; 64 MiB is far beyond 100,000 pages


# the advice that ends every refusal of `--out`
_HOW = "choose a new or empty folder, or a previous site, for --out (e.g. --out site)"


def resolve(out: str | Path) -> Path:
    """The folder a build writes: absolute, every symbolic link followed."""
    if not str(out).strip():
        raise OutputFolderError("--out", f"expected a folder name, found an empty string; {_HOW}")
    return Path(os.path.realpath(os.path.abspath(out)))


def work_prefix(out: Path) -> str:
    """The start of the name of the work folders of builds into `out` (the pid follows)."""
    return f".site-build-{out.name}-"


def _marker(path: Path, limit: int) -> dict[str, Any] | None:
    """The JSON object in `path` (a regular file of at most `limit` bytes), else None."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = parse_json(path.read_bytes().decode("utf-8"), path, OutputFolderError)
    except (OSError, ValueError, OutputFolderError):
        return None
    return data if isinstance(data, dict) else None


def _manifest(folder: Path) -> dict[str, Any] | None:
    """`folder`'s manifest.json if evidencedesk wrote it (this version's or a legacy one)."""
    data = _marker(folder / MANIFEST, _MAX_MARKER_BYTES)
    if data is None or not (data.get("generator") == _GENERATOR or _LEGACY_KEYS <= data.keys()):
        return None
    return data


def _is_site(folder: Path) -> bool:
    """True if `folder` holds a manifest evidencedesk wrote (this version's or a legacy one)."""
    return _manifest(folder) is not None


def _names(value: object) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _listed_files(folder: Path) -> frozenset[str]:
    """The files (paths relative to `folder`, ``/``-separated) that the previous build wrote:
    its manifest's ``files``; for a manifest of an earlier version, which had none, its pages,
    its downloads and the files every earlier version wrote (`_LEGACY_FILES`, ``data/runs/*.run``).
    None of a folder that is not a site (empty, README-only)."""
    data = _manifest(folder)
    if data is None:
        return frozenset()
    if "files" in data:
        return frozenset(_names(data["files"]) | {MANIFEST})
    found = _names(data.get("pages")) | _names(data.get("downloads")) | _LEGACY_FILES | {MANIFEST}
    runs = folder / "data" / "runs"
    if runs.is_dir() and not runs.is_symlink():
        found |= {f"data/runs/{p.name}" for p in runs.iterdir() if p.name.endswith(".run")}
    return frozenset(found)


def _carry_unlisted(out: Path, new: Path, shown: str) -> list[str]:
    """Put every entry of the previous site `out` that its manifest does not list (a file a
    user added, ``reviewer-notes.txt``; an empty folder) into the new site `new` — as a hard
    link, so that `out` itself stays as it is until the swap — and return their paths: a
    rebuild replaces only the files its manifest.json lists and keeps anything else.

    An unlisted file where the new build wrote one (or a folder where it wrote a file, or the
    other way round) is refused with an `OutputFolderError` before the swap: the new site would
    replace a file evidencedesk did not write.
    """
    if not out.is_dir() or out.is_symlink():
        return []
    listed = _listed_files(out)
    kept: list[str] = []
    for folder, dirs, files in os.walk(out):
        dirs.sort()
        here = Path(folder).relative_to(out)
        for name in sorted(files) + [d for d in dirs if Path(folder, d).is_symlink()]:
            rel = (here / name).as_posix()
            if rel in listed:
                continue
            _conflict(new, rel, shown, want="file")
            target = new / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            _link(Path(folder, name), target)
            kept.append(rel)
        dirs[:] = [d for d in dirs if not Path(folder, d).is_symlink()]
        for name in dirs:
            rel = (here / name).as_posix()
            _conflict(new, rel, shown, want="folder")
            with naming(Path(folder, name)), os.scandir(Path(folder, name)) as entries:
                empty = next(entries, None) is None
            if empty and not (new / rel).exists():
                (new / rel).mkdir(parents=True)
                kept.append(f"{rel}/")  # an empty folder of the user's: kept as well
    return sorted(kept)


def _conflict(new: Path, rel: str, shown: str, want: str) -> None:
    target = new / rel
    if not os.path.lexists(target) or (want == "folder" and target.is_dir()):
        return
    raise OutputFolderError(
        f"{shown.rstrip('/')}/{rel}",
        "expected only what the previous build wrote (its manifest.json lists it) where the new "
        f"site writes, found a {want} evidencedesk did not write; it is left as it is — move it "
        "away and build again",
    )


def _link(source: Path, target: Path) -> None:
    """`source` (a file, a link or a special file, never followed) at `target` too."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # no hard links on this file system: a copy (a link stays a link)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            shutil.copy2(source, target, follow_symlinks=False)
        else:  # a named pipe or a device: copying it would read it (and might block forever)
            raise OutputFolderError(
                source, "expected files, folders and links in the previous site, found a special "
                "file that cannot be carried into the new one; move it away and build again"
            ) from None  # fmt: skip


def check_replaceable(out: Path, shown: str) -> None:
    """Refuse an existing `out` that is neither empty, README-only nor a previous site."""
    try:
        info = out.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        raise OutputFolderError(shown, f"expected a folder for the site, found a file; {_HOW}")
    with naming(out), os.scandir(out) as entries:
        names = sorted(entry.name for entry in entries)
    if not names or _is_site(out):
        return
    if set(names) == _README_ONLY and stat.S_ISREG((out / "README.md").lstat().st_mode):
        return  # the README is carried into the new site (a link would not be: refused)
    examples = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    raise OutputFolderError(
        shown,
        "expected an absent or empty folder or a previous evidencedesk site (manifest.json), "
        f"found a folder with other files ({examples}); it is left as it is — {_HOW}",
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
    places.append((paths._ROOT.resolve(), "the evidencedesk checkout"))
    places.append((paths._PACKAGE_DIR.parent.resolve(), "the folder holding the evidencedesk code"))
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
    for entry in dataclasses.fields(project):  # type: ignore[arg-type]
        value = getattr(project, entry.name)
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
            shown, f"expected a folder of its own, found the root folder; {_HOW}"
        )
    for parent in out.parents:
        if os.path.lexists(parent):
            if not parent.is_dir():
                raise OutputFolderError(
                    shown, f"expected a folder path, found that {parent} is a file; {_HOW}"
                )
            break
    for place, what in places:
        if _covers(out, place):
            relation = "" if out == place else "a folder containing "
            raise OutputFolderError(
                shown,
                f"expected a folder of its own for the site, found {relation}{what} ({place}), "
                f"which evidencedesk never replaces; {_HOW}",
            )


def _owner_data(out: Path) -> bytes:
    data = {"generator": _GENERATOR, "host": socket.gethostname(), "out": out.name,
            "pid": os.getpid()}  # fmt: skip
    return (json.dumps(data, sort_keys=True) + "\n").encode("utf-8")


def _write_owner(work: Path, out: Path) -> None:
    """Write the marker (`_OWNER`) that makes `work` this process's work folder for `out`."""
    write_file(work / _OWNER, _owner_data(out), "work folder's marker")


def _owner_pid(work: Path, out: Path) -> int | None:
    """The pid recorded in `work`'s marker, or None when the folder is not ours (or not here)."""
    data = _marker(work / _OWNER, 4096)
    if data is None or data.get("generator") != _GENERATOR:
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
    with naming(out.parent):
        entries = sorted(out.parent.iterdir())
    for entry in entries:
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
    if entry.is_dir() and _is_site(entry) and not _alive(int(pid)):
        entry.rename(out)


def _undo(work: Path, out: Path) -> None:
    old = work / "old"
    if old.is_dir() and not old.is_symlink() and not os.path.lexists(out):
        old.rename(out)  # killed between the two renames: the previous site goes back
    shutil.rmtree(work, ignore_errors=True)


def _claim_work(out: Path, shown: str) -> Path:
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
        _write_owner(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work


def _lock_path(out: Path) -> Path:
    """The lock file that one build into `out` holds at a time, beside the folder."""
    return out.parent / f"{_LOCK_PREFIX}{out.name}"


@contextlib.contextmanager
def _build_lock(out: Path, shown: str) -> Iterator[None]:
    """Hold the exclusive lock on `out` for the rest of the build: ``fcntl.flock`` on the lock
    file ``.site-lock-<name>`` beside `out` (created, holding this build's pid and host, and
    removed when the build ends). It does not wait: a second build into the same folder fails
    at once, naming the holder's pid (`BuildLockedError`). Where there is no ``fcntl`` (Windows)
    builds are not locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    lock = _lock_path(out)
    while True:
        fd = _open_lock(lock, shown)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise BuildLockedError(
                shown,
                f"expected no other build writing this folder, found one ({holder}) holding "
                f"{lock.name}; wait for it to finish, or choose another --out",
            ) from None
        if _still_there(fd, lock):
            break
        os.close(fd)  # the previous holder removed the file after we opened it: open it anew
    claimed = False
    try:
        try:
            with naming(lock):
                _claim_lock(fd, lock, out, shown)
        except OSError:
            # the marker could not be written (a full disk): the file is ours, empty or our
            # marker, and would be left behind -- removed, while still held
            with contextlib.suppress(OSError):
                if _still_there(fd, lock):
                    os.unlink(lock)
            raise
        claimed = True
        yield
    finally:
        if claimed:
            with contextlib.suppress(OSError):
                if _still_there(fd, lock):
                    os.unlink(lock)  # while holding it: a later build creates a new one
        os.close(fd)


def _open_lock(lock: Path, shown: str) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):  # a link, a folder, a socket
            raise OutputFolderError(
                shown, f"expected no {lock.name} beside it but evidencedesk's lock file, found "
                "something else; move it away or choose another --out"
            ) from None  # fmt: skip
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputFolderError(
            shown, f"expected no {lock.name} beside it but evidencedesk's lock file, found a "
            "special file; move it away or choose another --out"
        )  # fmt: skip
    return fd


def _still_there(fd: int, lock: Path) -> bool:
    try:
        named = os.stat(lock, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _read_lock(fd: int) -> bytes:
    return os.pread(fd, 4097, 0)


def _holder(fd: int) -> str:
    """The holder's pid and host as its lock file says (while it writes them: unknown)."""
    try:
        data = parse_json(_read_lock(fd).decode("utf-8"), None, OutputFolderError)
    except (OSError, ValueError, OutputFolderError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
        return "pid unknown"
    host = data.get("host")
    here = host == socket.gethostname() or not isinstance(host, str)
    return f"pid {data['pid']}" + ("" if here else f" on {host}")


def _claim_lock(fd: int, lock: Path, out: Path, shown: str) -> None:
    """Write this build's marker into the lock file it holds; a non-empty file evidencedesk did
    not write is refused, unchanged."""
    found = _read_lock(fd)
    if found.strip():
        try:
            data = parse_json(found.decode("utf-8"), None, OutputFolderError)
        except (ValueError, OutputFolderError):
            data = None
        if not isinstance(data, dict) or data.get("generator") != _GENERATOR:
            raise OutputFolderError(
                shown, f"expected no {lock.name} beside it but evidencedesk's lock file, "
                "found a file evidencedesk did not write; move it away or choose another --out"
            )  # fmt: skip
    os.ftruncate(fd, 0)
    os.pwrite(fd, _owner_data(out), 0)


_MAX_SLUG = 64  # the longest slug kept as it is; a longer one is cut and given a hash


def slug(name: str) -> str:
    """A file-name-safe, collision-resistant slug of `name` (deterministic)."""
    base = plain_slug(name)
    if base == name and base and len(base) <= _MAX_SLUG:
        return base
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = base[: _MAX_SLUG - 9].strip("-") or "x"
    return f"{base}-{digest}"


def inside(root: Path, relative: str) -> Path:
    """`root / relative`, refusing anything that resolves outside `root`."""
    if "\x00" in relative or relative.startswith(("/", "\\")):
        raise EvidencedeskError(f"unsafe output file name {relative!r}")
    target = (root / relative).resolve()
    base = root.resolve()
    if target != base and base not in target.parents:
        raise EvidencedeskError(f"output file {relative!r} would leave the site folder")
    return target


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    blocked = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass
class Outcome:
    """What a build did to its output folder so far, for the command's last words: `replaced`
    once the new site is in place (a failure after that must not say the previous site was
    kept), `kept` the entries of the previous site carried over because its manifest does not
    list them, `previous` whether there was a previous folder at all."""

    replaced: bool = False
    previous: bool = False
    kept: list[str] = field(default_factory=list)


def _swap(work: Path, out: Path, shown: str, outcome: Outcome) -> None:
    new, old = work / "site", work / "old"
    check_replaceable(out, shown)  # again: another process may have put files there meanwhile
    outcome.kept = _carry_unlisted(out, new, shown)  # linked: `out` is untouched until the rename
    with _signals_blocked():
        outcome.previous = os.path.lexists(out)
        if outcome.previous:
            out.rename(old)
        try:
            new.rename(out)
        except OSError:  # e.g. a concurrent build swapped in first: keep a site in place
            if old.is_dir() and not os.path.lexists(out):
                old.rename(out)
            raise
        outcome.replaced = True
    shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def atomic_output(
    out: Path, shown: str | None = None, outcome: Outcome | None = None
) -> Iterator[Path]:
    """Yield a fresh temporary folder; swap it into `out` only if the body completes.

    `out` is followed through symbolic links (the link stays a link). Refuses, before yielding,
    an `out` that is not absent, empty, README-only or a previous site, or that is or holds the
    current folder, the repository or the checkout (`OutputFolderError`; the CLI also protects
    the project's inputs, see `outfolder.protected_places`), and an `out` another build is
    writing (`BuildLockedError`: the lock is held from here to the end of the swap).
    Entries of the previous site its manifest does not list are carried into the new one
    (`outfolder.carry_unlisted`). `shown` is how error messages name the folder (default: `out`
    as given); `outcome` records what happened (see `Outcome`).
    """
    shown = str(out) if shown is None else shown
    outcome = Outcome() if outcome is None else outcome
    out = resolve(out)
    check_target(out, shown, protected_places(None))
    out.parent.mkdir(parents=True, exist_ok=True)
    with _build_lock(out, shown):
        clean_strays(out)
        check_replaceable(out, shown)
        work = _claim_work(out, shown)
        try:
            (work / "site").mkdir()
            yield work / "site"
            _swap(work, out, shown, outcome)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise


def written_files(root: Path) -> list[str]:
    """Every file below `root` (relative, ``/``-separated, sorted): what a build wrote into its
    work folder, for the manifest's ``files``."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        here = Path(folder).relative_to(root)
        found += [(here / name).as_posix() for name in files]
    return sorted(found)


def tree_size(root: Path) -> int:
    """The bytes of every file under `root` (the size a build reports)."""
    with naming(root):
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
