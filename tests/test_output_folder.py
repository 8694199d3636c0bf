"""The output folder contract (issue 11): what ``--out`` may replace, through the real CLI.

Every refused target is refused before any work: exit 2, exactly one stderr line saying why and
how to proceed, no traceback, and the whole scratch tree unchanged byte for byte (the model
factory used here would leave a file behind if it ever ran). Accepted targets are built with the
small fixture model. The build command runs in-process (`evidencedesk.cli.main`, what ``python
-m evidencedesk.report`` runs) from the case's current folder; nothing here is about the process.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencedesk.cli import main
from evidencedesk.paths import DATA
from evidencedesk.report._build import ModelFactory
from evidencedesk.report._model import BuildOptions, SiteModel
from tests import report_fixtures as rf

ROOT = Path(__file__).resolve().parents[1]
HOW = "choose a new or empty folder, or a previous site, for --out (e.g. --out site)"
TRIPWIRE = "model-was-built"
PROJECT = "team/demo-copy"


def tripwire_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    """A factory that leaves a file in the current folder: a refused build must never call it."""
    Path(TRIPWIRE).write_text("the build started", encoding="utf-8")
    return rf.fixture_model(options, progress)


# caches the test tools themselves write while the suite runs (hypothesis's example database
# lives in the checkout's .hypothesis/, and other xdist workers write it meanwhile)
TOOL_CACHES = {"__pycache__", ".pytest_cache", ".hypothesis"}


def tree_hash(root: Path) -> str:
    """sha256 over every path, link target and file content below `root` (tool caches aside)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in TOOL_CACHES)
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.readlink(path).encode())
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def tree_state(root: Path) -> list[tuple[str, int, int, int, str]]:
    """Every path below `root` with its mode, size, modification time (ns) and link target (tool
    caches aside; a folder by its entries, not its times, which a cache beside them changes): any
    write, creation, removal or rename changes it. For the checkout and its 1 GB .venv, where
    reading every byte (`tree_hash`) took seconds."""
    state = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in TOOL_CACHES)
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            info = path.lstat()
            target = os.readlink(path) if path.is_symlink() else ""
            if stat.S_ISDIR(info.st_mode):  # its entries are listed below it; its times are not
                state.append((str(path.relative_to(root)), info.st_mode, 0, 0, ""))
                continue
            state.append((str(path.relative_to(root)), info.st_mode, info.st_size,
                          info.st_mtime_ns, target))  # fmt: skip
    return state


def cli(cwd: Path, *args: str, factory: ModelFactory = tripwire_model) -> Done:
    """``python -m evidencedesk.report build ARGS`` run from `cwd`, its site model made by
    `factory`: in-process, the current folder changed for the call and changed back."""
    stdout, stderr = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        status = main(["build", *args], model_factory=factory, stdout=stdout, stderr=stderr,
                      prog="python -m evidencedesk.report")  # fmt: skip
    finally:
        os.chdir(here)
    return Done(status, stdout.getvalue(), stderr.getvalue())


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """cwd/ (empty: the current folder), team/demo-copy/ (a project with an empty notes/),
    other/ (a user's file), file.txt, repo/ (a git checkout with sub/), link -> other/,
    runs2/x.run, readme-link/ (its README.md a link)."""
    root = tmp_path / "scratch"
    (root / "cwd").mkdir(parents=True)
    project = root / PROJECT
    shutil.copytree(DATA, project, ignore=shutil.ignore_patterns("notes"))
    (project / "notes").mkdir()  # an empty input folder: only the input rule protects it
    (root / "other").mkdir()
    (root / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    (root / "file.txt").write_text("a file", encoding="utf-8")
    (root / "repo" / ".git").mkdir(parents=True)
    (root / "repo" / "sub").mkdir()
    (root / "repo" / "code.py").write_text("print()", encoding="utf-8")
    (root / "link").symlink_to(root / "other")
    (root / "readme-link").mkdir()  # a README that is a link would not be carried over
    (root / "readme-link" / "README.md").symlink_to(root / "file.txt")
    (root / "runs2").mkdir()
    (root / "runs2" / "x.run").write_text("q1 Q0 d1 1 1.0 x\n", encoding="utf-8")
    return root


REFUSED = [
    # (case, cwd below scratch, --out, extra args, what the line must say)
    ("other-files", "cwd", "../other", (), "found a folder with other files (notes.txt)"),
    ("project-folder", "cwd", f"../{PROJECT}", ("--project", f"../{PROJECT}/evidencedesk.toml"),
     "found the project folder"),
    ("project-input", "cwd", f"../{PROJECT}/notes", ("--project", f"../{PROJECT}"),
     "found a project input"),
    ("contains-project", "cwd", "../team", ("--project", f"../{PROJECT}"),
     "found a folder containing the project folder"),
    ("run-input", "cwd", "../runs2", ("--run", "x=../runs2/x.run"),
     "found a folder containing a --run input"),
    ("current-folder", "cwd", ".", (), "found the current folder"),
    ("contains-cwd", "cwd", "..", (), "found a folder containing the current folder"),
    ("repository-root", "repo/sub", "..", (), "found the repository root"),
    ("checkout", "cwd", str(ROOT), (), "found the evidencedesk checkout"),
    ("root", "cwd", "/", (), "expected a folder of its own, found the root folder"),
    ("file", "cwd", "../file.txt", (), "expected a folder for the site, found a file"),
    ("under-a-file", "cwd", "../file.txt/site", (), "is a file"),
    ("empty-name", "cwd", "", (), "expected a folder name, found an empty string"),
    ("readme-is-a-link", "cwd", "../readme-link", (), "found a folder with other files (README.md)"),
    ("link-to-other-files", "cwd", "../link", (), "found a folder with other files (notes.txt)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "cwd", "out", "extra", "says"), REFUSED, ids=[r[0] for r in REFUSED]
)
def test_refused_target_changes_nothing(scratch: Path, case: str, cwd: str, out: str,
                                        extra: tuple[str, ...], says: str) -> None:  # fmt: skip
    # the checkout by every entry's metadata (its .venv is 1 GB), the scratch tree byte for byte
    state = (lambda: tree_state(ROOT)) if case == "checkout" else (lambda: tree_hash(scratch))
    before = state()
    done = cli(scratch / cwd, "--out", out, *extra)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert says in done.stderr and done.stderr.rstrip().endswith(HOW)
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert state() == before
    assert not (scratch / cwd / TRIPWIRE).exists()


def test_the_message_names_the_folder_as_given(scratch: Path) -> None:
    done = cli(scratch / "cwd", "--out", "../other")
    assert done.stderr == (
        "error: ../other: expected an absent or empty folder or a previous evidencedesk site "
        "(manifest.json), found a folder with other files (notes.txt); it is left as it is — "
        f"{HOW}\n"
    )


def manifest(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / "manifest.json").read_text("utf-8"))


def test_readme_only_folder_is_replaced_and_look_alikes_are_left_alone(scratch: Path) -> None:
    site = scratch / "cwd" / "site"
    site.mkdir()
    (site / "README.md").write_text("# site/\nkept in git\n", encoding="utf-8")
    look_alikes = [
        scratch / "cwd" / ".site-old-site-backup",
        scratch / "cwd" / ".site-build-site-mine",
    ]
    for folder in look_alikes:
        folder.mkdir()
        (folder / "mine.txt").write_text("a user's folder", encoding="utf-8")
    hashes = [tree_hash(f) for f in look_alikes]
    done = cli(scratch / "cwd", "--out", "site", factory=rf.fixture_model)
    assert done.returncode == 0, done.stderr
    assert (site / "README.md").read_text("utf-8") == "# site/\nkept in git\n"
    assert manifest(site)["generator"] == "evidencedesk"
    assert [tree_hash(f) for f in look_alikes] == hashes
    assert sorted(p.name for p in (scratch / "cwd").iterdir()) == [
        ".site-build-site-mine", ".site-old-site-backup", "site"]  # fmt: skip


def test_a_legacy_site_is_replaced_and_a_symlinked_out_stays_a_link(scratch: Path) -> None:
    real = scratch / "cwd" / "real"
    real.mkdir()
    legacy = {"input_hash": "ab", "pages": ["index.html"], "seed": 0, "version": "0.0.1"}
    (real / "manifest.json").write_text(json.dumps(legacy), encoding="utf-8")
    (real / "index.html").write_text("old", encoding="utf-8")
    (scratch / "cwd" / "site").symlink_to("real")
    for _ in range(2):  # the second build replaces a site of this version through the link
        done = cli(scratch / "cwd", "--out", "site", factory=rf.fixture_model)
        assert done.returncode == 0, done.stderr
        assert (scratch / "cwd" / "site").is_symlink()
        assert os.readlink(scratch / "cwd" / "site") == "real"
        assert manifest(real)["generator"] == "evidencedesk" and (real / "benchmark.html").is_file()
        assert sorted(p.name for p in (scratch / "cwd").iterdir()) == ["real", "site"]
    assert f"open {real / 'index.html'}" in done.stdout


def test_a_site_inside_the_project_folder_is_allowed(scratch: Path) -> None:
    done = cli(scratch / "cwd", "--project", f"../{PROJECT}", "--out", f"../{PROJECT}/site",
               factory=rf.fixture_model)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (scratch / PROJECT / "site" / "index.html").is_file()
