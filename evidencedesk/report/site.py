"""Safe file names and atomic output for the report site.

`slug()` turns any name from data into ``[a-z0-9-]``, at most 64 characters; when slugging changed
the name, a short hash of the original is appended, so ``Foo`` and ``foo`` (or ``a/b`` and
``a-b``) never share a file. `inside()` refuses any path that would leave the site folder.

`atomic_output(out)` holds the output folder's lock (`outfolder.build_lock`), builds into
``site/`` of a hidden sibling work folder ``.site-build-<name>-<pid>`` and, only when the body
finished, links every entry of the previous site that its manifest does not list into the new
one (`outfolder.carry_unlisted`: a file a user added survives the rebuild) and swaps it in (old
site renamed to the work folder's ``old/``, new one renamed into place, work folder deleted) with
SIGINT/SIGTERM blocked for the two renames. Any exception, KeyboardInterrupt or SIGTERM (see
`terminate_as_exception`) before the swap leaves the previous folder untouched; `Outcome` says
whether the swap happened. Which folders may be replaced, and how leftovers of a killed build are
recognised and cleaned, is `evidencedesk.report.outfolder`; the whole contract is
docs/output-folder.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from evidencedesk.errors import BuildTerminated, EvidencedeskError
from evidencedesk.files.limits import naming
from evidencedesk.files.slugs import plain_slug
from evidencedesk.report.outfolder import (
    build_lock,
    carry_unlisted,
    check_replaceable,
    check_target,
    claim_work,
    clean_strays,
    protected_places,
    resolve,
)

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
    outcome.kept = carry_unlisted(out, new, shown)  # linked: `out` is untouched until the rename
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
    with build_lock(out, shown):
        clean_strays(out)
        check_replaceable(out, shown)
        work = claim_work(out, shown)
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
