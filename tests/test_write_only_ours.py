"""Write only what we own: the one writer, the saved baseline, a rebuild that keeps the user's
files, names whose slugs collide, and the output folder's lock (docs/output-folder.md).

Every refusal is checked for its exact line, its exit status, and that nothing changed: the
project folder, a decoy file of the user's beside the site and the site itself are hashed before
and after (`tests.reliability_fixtures.Scratch.state`).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.errors import EvidencedeskError, OutputError
from evidencedesk.files._writing import write_file
from evidencedesk.report import _site as report_site
from evidencedesk.report._model import BuildOptions, SiteModel
from evidencedesk.report._site import slug
from tests import report_fixtures as rf
from tests.reliability_fixtures import (
    Scratch,
    build_in_process,
    copy_scratch,
    fixture_site,
    make_scratch,
)
from tests.test_output_folder import tree_hash

ROOT = Path(__file__).resolve().parents[1]
WITH_MODEL = str(Path(__file__).resolve().parent / "with_model.py")  # a test model's build
DATA = ROOT / "data"


# -- the one writer ---------------------------------------------------------------------------------
def _refused(path: Path, found: str) -> str:
    return (
        f"{path}: expected no file there (evidencedesk writes only files it owns), found {found}; "
        "it is left as it is — move it away or choose another path for the file"
    )


def test_write_file_writes_a_new_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    write_file(tmp_path / "new.txt", b"all of it\n")
    assert (tmp_path / "new.txt").read_bytes() == b"all of it\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt"]
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (lambda p: p.write_text("mine"), "a file"),
        (lambda p: p.mkdir(), "a folder"),
        (lambda p: p.symlink_to(p.parent / "elsewhere"), "a symbolic link"),
    ],
    ids=["file", "folder", "link"],
)
def test_write_file_refuses_anything_already_there(
    tmp_path: Path, make: Callable[[Path], None], found: str
) -> None:
    target = tmp_path / "taken"
    make(target)
    before = tree_hash(tmp_path)
    with pytest.raises(OutputError) as info:
        write_file(target, b"ours")
    assert str(info.value) == _refused(target, found)
    assert tree_hash(tmp_path) == before  # no temporary file left either


def test_write_file_replaces_only_what_the_caller_says_is_ours(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours.write_text('{"mine": true}')
    theirs.write_text('{"mine": false}')
    is_ours = lambda p: json.loads(p.read_text())["mine"]  # noqa: E731
    write_file(ours, b"new", "baseline", is_ours, "a saved baseline")
    assert ours.read_bytes() == b"new"
    with pytest.raises(OutputError, match="found a file that is not a saved baseline"):
        write_file(theirs, b"new", "baseline", is_ours, "a saved baseline")
    assert theirs.read_text() == '{"mine": false}'


def test_an_os_error_names_the_file_not_its_temporary(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        write_file(tmp_path / "no-such-folder" / "x.txt", b"x")
    assert info.value.filename == str(tmp_path / "no-such-folder" / "x.txt")


# -- the saved baseline -----------------------------------------------------------------------------
def _save(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["benchmark", "--save-baseline", "--baseline", str(path)])
    return code, capsys.readouterr().err


def test_save_baseline_never_writes_over_a_file_that_is_not_a_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes((DATA / "labels.jsonl").read_bytes())
    before = tree_hash(tmp_path)
    code, err = _save(labels, capsys)
    assert (code, err) == (2, (
        f"error: {labels}: expected no file or a saved baseline (evidencedesk writes only files "
        "it owns), found a file that is not a saved baseline; it is left as it is — move it away "
        "or choose another path for the baseline\n"
    ))  # fmt: skip
    assert tree_hash(tmp_path) == before


def test_save_baseline_on_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "baseline").mkdir()
    code, err = _save(tmp_path / "baseline", capsys)
    assert code == 2
    assert err == (
        f"error: {tmp_path / 'baseline'}: expected no file or a saved baseline (evidencedesk "
        "writes only files it owns), found a folder; it is left as it is — move it away or "
        "choose another path for the baseline\n"
    )


def test_save_baseline_replaces_a_saved_baseline_atomically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "baseline.json"
    saved.write_bytes((DATA / "baseline_retrieval.json").read_bytes().replace(b'"k": 3', b'"k": 9'))
    code, err = _save(saved, capsys)
    assert (code, err) == (0, "")
    assert saved.read_bytes() == (DATA / "baseline_retrieval.json").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baseline.json"]


# -- a rebuild keeps what the manifest does not list -------------------------------------------------
@pytest.fixture
def site(tmp_path: Path) -> Path:
    return fixture_site(tmp_path)


def _manifest(site: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((site / "manifest.json").read_text(encoding="utf-8"))


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_the_manifest_lists_every_file_the_build_wrote(site: Path) -> None:
    assert _manifest(site)["files"] == _files(site)


def test_a_rebuild_keeps_every_entry_the_manifest_does_not_list(site: Path) -> None:
    (site / "reviewer-notes.txt").write_text("looks fine\n", encoding="utf-8")
    (site / "notes" / "later").mkdir(parents=True)
    (site / "notes" / "a.md").write_text("# a\n", encoding="utf-8")
    (site / "assets" / "mine.css").write_text("x\n", encoding="utf-8")  # in a folder we write
    (site / "latest").symlink_to("index.html")
    code, out, err = build_in_process("--out", str(site), "--seed", "7", factory=rf.fixture_model)
    assert (code, err) == (0, "")
    assert (
        "kept 5 entries evidencedesk did not write (assets/mine.css, latest, notes/a.md, …)" in out
    )
    assert (site / "reviewer-notes.txt").read_text(encoding="utf-8") == "looks fine\n"
    assert (site / "assets" / "mine.css").read_text(encoding="utf-8") == "x\n"
    assert (site / "notes" / "later").is_dir() and os.readlink(site / "latest") == "index.html"
    assert _manifest(site)["seed"] == 7  # the build's own files were replaced
    assert "reviewer-notes.txt" not in _manifest(site)["files"]  # and stay the user's


def test_a_rebuild_of_one_kept_file_says_so_in_one_line(site: Path) -> None:
    (site / "reviewer-notes.txt").write_text("x", encoding="utf-8")
    _, out, _ = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert [line for line in out.splitlines() if line.startswith("kept")] == [
        "kept 1 file evidencedesk did not write (reviewer-notes.txt)"
    ]


def test_a_users_file_where_the_new_site_writes_is_refused_and_nothing_changes(
    site: Path,
) -> None:
    manifest = _manifest(site)
    manifest["files"].remove("flips.html")  # as if the user had put flips.html there
    (site / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (site / "flips.html").write_text("the user's page", encoding="utf-8")
    decoy = site.parent / "decoy.txt"
    decoy.write_text("mine")
    before = (tree_hash(site.parent), tree_hash(DATA))
    code, _, err = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert code == 2
    assert err == (
        f"error: {site}/flips.html: expected only what the previous build wrote (its "
        "manifest.json lists it) where the new site writes, found a file evidencedesk did not "
        "write; it is left as it is — move it away and build again\n"
    )
    assert (tree_hash(site.parent), tree_hash(DATA)) == before


def test_a_site_of_an_earlier_version_keeps_what_it_did_not_list(site: Path) -> None:
    manifest = _manifest(site)
    del manifest["files"]  # an earlier version's manifest: pages and downloads only
    (site / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for added in ("summary.md", "assets/plotly-license.txt"):  # files no earlier version wrote
        (site / added).unlink()
    (site / "reviewer-notes.txt").write_text("x", encoding="utf-8")
    (site / "old-page.html").write_text("an earlier version's page?", encoding="utf-8")
    code, out, _ = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert code == 0
    assert "kept 2 files evidencedesk did not write (old-page.html, reviewer-notes.txt)" in out
    assert _manifest(site)["files"] == [f for f in _files(site)
                                        if f not in ("old-page.html", "reviewer-notes.txt")]  # fmt: skip


# -- names whose slugs collide ----------------------------------------------------------------------
@functools.cache
def colliding_names() -> tuple[str, str]:
    """Two run names with one slug: "r" plus punctuation (slugged away), so only the 8-hex hash
    tells them apart, found by a birthday search (~80,000 names, a fraction of a second)."""
    seen: dict[str, str] = {}
    for n in itertools.count():
        name = "r" + "".join("!#%&()+,@~"[int(d)] for d in str(n))
        other = seen.setdefault(slug(name), name)
        if other != name:
            return other, name
    raise AssertionError("unreachable")


def test_the_birthday_pair_really_shares_a_slug() -> None:
    a, b = colliding_names()
    assert a != b and slug(a) == slug(b)
    assert hashlib.sha256(a.encode()).hexdigest()[:8] == hashlib.sha256(b.encode()).hexdigest()[:8]


def test_a_name_written_as_another_names_slug_is_a_collision_too() -> None:
    assert slug(slug("Run A")) == slug("Run A")  # "run-a-<hash>" is already a plain slug


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return make_scratch(tmp_path_factory.mktemp("pristine"))


@pytest.mark.parametrize("pair", ["birthday", "written as the slug"])
def test_two_runs_with_one_slug_are_refused_before_anything_is_written(
    pristine: Scratch, tmp_path: Path, pair: str
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    a, b = colliding_names() if pair == "birthday" else ("Better!", slug("Better!"))
    runs = world.project.parent / "runs"
    for name in (a, b):
        (runs / f"{name}.run").write_bytes((runs / "better.run").read_bytes())
    before = world.state()
    code, _, err = build_in_process("--project", str(world.project), "--out", str(world.out))
    first, second = sorted((a, b))
    assert code == 2
    assert err == (
        f"error: expected variants whose file and anchor names differ, found {first!r} and "
        f"{second!r}, which both become {slug(a)!r}; rename one of them\n"
    )
    assert world.state() == before


# -- one build at a time ----------------------------------------------------------------------------
def waiting_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    """A build that holds its lock until the test says go (files named by the environment)."""
    Path(os.environ["EVIDENCEDESK_TEST_STARTED"]).write_text(str(os.getpid()))
    go = Path(os.environ["EVIDENCEDESK_TEST_GO"])
    deadline = time.monotonic() + 120
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return rf.fixture_model(options, progress)


def tripwire_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    Path(os.environ["EVIDENCEDESK_TEST_STARTED"] + ".second").write_text("the model was built")
    return rf.fixture_model(options, progress)


def _command(out: Path, factory: str) -> list[str]:
    return [sys.executable, WITH_MODEL, "build", "--out", str(out),
            "--model-factory", f"tests.test_write_only_ours:{factory}"]  # fmt: skip


def test_a_second_build_into_the_same_folder_fails_at_once_naming_the_holder(
    site: Path, tmp_path: Path
) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=str(ROOT), EVIDENCEDESK_TEST_STARTED=str(started),
               EVIDENCEDESK_TEST_GO=str(go))  # fmt: skip
    first = subprocess.Popen(_command(site, "waiting_model"), cwd=ROOT, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists(), first.communicate()
        before = tree_hash(site)
        second = subprocess.run(_command(site, "tripwire_model"), cwd=ROOT, env=env, text=True,
                                capture_output=True, timeout=120)  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert second.stderr == (
            f"error: {site}: expected no other build writing this folder, found one (pid "
            f"{first.pid}) holding .site-lock-site; wait for it to finish, or choose another "
            "--out\n"
        )
        assert not Path(f"{started}.second").exists()  # refused before any work
        assert tree_hash(site) == before
    finally:
        go.write_text("go")
        out, err = first.communicate(timeout=120)
    assert (first.returncode, err) == (0, "")
    manifest = _manifest(site)
    assert manifest["files"] == _files(site)  # one complete site, not a mix
    assert sorted(p.name for p in site.parent.iterdir()) == ["go", "site", "started"]


def test_a_lock_file_evidencedesk_did_not_write_is_refused_unchanged(site: Path) -> None:
    lock = report_site._lock_path(site)
    lock.write_text("someone else's notes\n", encoding="utf-8")
    before = tree_hash(site.parent)
    code, _, err = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert code == 2
    assert err == (
        f"error: {site}: expected no .site-lock-site beside it but evidencedesk's lock file, "
        "found a file evidencedesk did not write; move it away or choose another --out\n"
    )
    assert tree_hash(site.parent) == before


def test_a_lock_left_by_a_killed_build_is_taken_over(site: Path) -> None:
    report_site._lock_path(site).write_text('{"generator": "evidencedesk", "pid": 999999}\n')
    code, _, err = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert (code, err) == (0, "")
    assert not report_site._lock_path(site).exists()


def test_the_lock_is_held_for_the_whole_build_in_process(site: Path) -> None:
    seen: list[str] = []

    def model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
        code, _, err = build_in_process("--out", str(site), factory=rf.fixture_model)
        seen.append(f"{code} {err}")
        return rf.fixture_model(options, progress)

    code, _, err = build_in_process("--out", str(site), factory=model)
    assert (code, err) == (0, "")
    assert seen == [
        f"2 error: {site}: expected no other build writing this folder, found one (pid "
        f"{os.getpid()}) holding .site-lock-site; wait for it to finish, or choose another --out\n"
    ]


def test_an_os_error_while_writing_a_page_names_the_page(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evidencedesk.files import _writing as writing

    original = writing._temporary

    def full(path: Path, data: bytes) -> Path:
        if path.name == "slices.html":
            raise OSError(28, "No space left on device", str(path.with_name(".x.tmp")))
        return original(path, data)

    monkeypatch.setattr(writing, "_temporary", full)
    before = tree_hash(site)
    code, _, err = build_in_process("--out", str(site), factory=rf.fixture_model)
    assert (code, err) == (2, f"error: {site / 'slices.html'}: No space left on device (ENOSPC); "
                              "the previous site was left as it was\n")  # fmt: skip
    assert tree_hash(site) == before


def test_exports_refuse_two_variants_with_one_slug() -> None:
    from evidencedesk.results._serialize import result_exports
    from tests.test_results_units import tiny_results

    results = tiny_results()
    a, b = colliding_names()
    twin = replace(results, variants=tuple(replace(results.variants[0], name=n) for n in (a, b)))
    with pytest.raises(EvidencedeskError) as info:
        result_exports(twin, slug)
    assert str(info.value) == (
        f"expected variants whose file and anchor names differ, found {a!r} and {b!r}, which "
        f"both become {slug(a)!r}; rename one of them"
    )


# -- the docs say it in the code's words --------------------------------------------------------------
def _words(text: str) -> str:
    return " ".join(text.replace("**", "").replace("`", "").split())


CONTRACT = (
    "replaces only the files its manifest.json lists and keeps anything else",
    "a second build into the same folder fails at once, naming the holder's pid",
)


@pytest.mark.parametrize("phrase", CONTRACT)
def test_the_docs_and_code_state_the_contract_in_the_same_words(phrase: str) -> None:
    for source in (ROOT / "docs" / "output-folder.md", ROOT / "docs" / "guarantees.md",
                   ROOT / "evidencedesk" / "report" / "_site.py"):  # fmt: skip
        assert phrase in _words(source.read_text(encoding="utf-8")).replace("\\n", ""), source


def test_the_docs_quote_the_codes_own_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evidencedesk.cli import _build as cli_build
    from evidencedesk.errors import BuildLockedError, StreamError
    from evidencedesk.files._writing import check_unique
    from evidencedesk.report import _build as report_build

    out = tmp_path / "site"
    messages = [
        cli_build._KEPT,
        cli_build._REPLACED,
        cli_build._WRITTEN,
        cli_build._kept_line(["reviewer-notes.txt"]),
    ]
    with report_site._build_lock(out, "site"), pytest.raises(BuildLockedError) as locked:
        with report_site._build_lock(out, "site"):
            pass
    messages.append(f"error: {locked.value}".replace(f"pid {os.getpid()}", "pid 4242"))
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "candidate-x.html").write_text("")
    with pytest.raises(OutputError) as taken:
        report_site._conflict(tmp_path / "new", "candidate-x.html", "site", "file")
    messages.append(f"error: {taken.value}")
    (tmp_path / "labels.jsonl").write_text("{}")
    with pytest.raises(OutputError) as baseline:
        write_file(tmp_path / "labels.jsonl", b"", "baseline", lambda p: False, "a saved baseline")
    messages.append(f"error: {baseline.value}".replace(f"{tmp_path}/", ""))
    with pytest.raises(EvidencedeskError) as twins:
        check_unique(["a", "b"], lambda name: "x-1234abcd", "variants")
    messages.append(f"error: {twins.value}")
    full = StreamError("stdout", OSError(28, "No space left on device"))
    messages.append(f"error: {full}; {cli_build._REPLACED}")

    def gone() -> str:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", gone)
    with pytest.raises(EvidencedeskError) as deleted:
        report_build._check_current_folder()
    messages.append(f"error: {deleted.value}")
    doc = _words((ROOT / "docs" / "output-folder.md").read_text(encoding="utf-8"))
    assert [m for m in messages if _words(m) not in doc] == []
