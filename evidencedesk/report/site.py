"""Safe file names and atomic output for the report site.

`slug()` turns any name from data into ``[a-z0-9-]``, at most 64 characters; when slugging changed
the name, a short hash of the original is appended, so ``Foo`` and ``foo`` (or ``a/b`` and
``a-b``) never share a file. `inside()` refuses any path that would leave the site folder.

`atomic_output(out)` builds into a hidden sibling ``.site-build-<name>-<pid>`` and, only when
the body finished, swaps it in (old site renamed away, new one renamed into place, old deleted)
with SIGINT/SIGTERM blocked for the two renames. Any exception, KeyboardInterrupt or SIGTERM
(see `terminate_as_exception`) leaves the previous folder untouched. Leftovers of a killed build
(``.site-build-*`` / ``.site-old-*`` of dead processes) are removed by the next build; an old
site left renamed away by a kill between the two renames is put back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from evidencedesk.errors import EvidencedeskError

MAX_SLUG = 64
_UNSAFE = re.compile(r"[^a-z0-9]+")
KEEP = ("README.md",)  # files of the old output folder carried into the new one (kept in git)


def slug(name: str) -> str:
    """A file-name-safe, collision-resistant slug of `name` (deterministic)."""
    base = _UNSAFE.sub("-", name.lower()).strip("-")
    if base == name and base and len(base) <= MAX_SLUG:
        return base
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    base = base[: MAX_SLUG - 9].strip("-") or "x"
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


class BuildTerminated(BaseException):
    """SIGTERM arrived during the build (raised from the signal handler)."""


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


def _prefixes(out: Path) -> tuple[str, str]:
    return f".site-build-{out.name}-", f".site-old-{out.name}-"


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
    """Remove temporary folders of dead builds next to `out`; restore an old site if needed."""
    removed: list[Path] = []
    if not out.parent.is_dir():
        return removed
    build_prefix, old_prefix = _prefixes(out)
    for entry in sorted(out.parent.iterdir()):
        name = entry.name
        prefix = build_prefix if name.startswith(build_prefix) else None
        prefix = old_prefix if name.startswith(old_prefix) else prefix
        if prefix is None or not entry.is_dir():
            continue
        pid_text = name[len(prefix) :]
        if pid_text.isdigit() and _alive(int(pid_text)):
            continue
        if prefix == old_prefix and not out.exists():
            entry.rename(out)  # killed between the two renames: put the old site back
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


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


def _swap(tmp: Path, out: Path) -> None:
    _, old_prefix = _prefixes(out)
    old = out.parent / f"{old_prefix}{os.getpid()}"
    with _signals_blocked():
        if out.exists():
            out.rename(old)
        tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def atomic_output(out: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder; swap it into `out` only if the body completes."""
    out = Path(os.path.abspath(out))
    if out.exists() and not out.is_dir():
        raise EvidencedeskError(f"{out}: expected a folder for the site, found a file")
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_strays(out)
    build_prefix, _ = _prefixes(out)
    tmp = out.parent / f"{build_prefix}{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        for name in KEEP:
            if (out / name).is_file() and not (tmp / name).exists():
                shutil.copy2(out / name, tmp / name)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def tree_size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
