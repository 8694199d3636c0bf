"""How a command finds its project (issue 35, item 4): the current folder and each parent up to a
repository root, an ``evidencedesk.toml`` that is not a regular file refused by name (never the
demo instead), a bare command's help, ``-V`` without the heavy imports, and the footer's reproduce
command as typed."""

from __future__ import annotations

import html
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk import cli
from tests.project_fixtures import make_runs_only_project
from tests.test_bad_input import snapshot

ROOT = Path(__file__).resolve().parents[1]


def main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (its root holds .git) with a runs-only project at its top."""
    (tmp_path / ".git").mkdir()
    return make_runs_only_project(tmp_path, questions=6, runs=2).parent


def test_a_project_in_a_parent_folder_is_found(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "runs")  # `cd runs && evidencedesk validate`
    code, out, err = main("validate")
    assert code == 0, err
    assert out.splitlines()[0] == (
        f"project: generated runs-only project (seed 0) ({repo / 'evidencedesk.toml'})"
    )
    code, out, err = main("build", "--out", str(repo / "site"), "-q")
    assert code == 0, err
    assert "project: the demo" not in out
    assert (repo / "site" / "data" / "runs").is_dir()  # the project's runs, not the demo


@pytest.mark.parametrize("command", ["validate", "benchmark", "build"])
def test_the_project_line_comes_before_an_input_is_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(repo / "runs")
    base = repo / "runs" / "base.run"
    base.write_text("q1 Q0 d1 1 2.0\n", encoding="utf-8")  # five columns: not a run
    extra = ["--out", str(repo / "site")] if command == "build" else []
    code, out, err = main(command, *extra)
    assert code == 2
    assert out.splitlines()[0] == (
        f"project: generated runs-only project (seed 0) ({repo / 'evidencedesk.toml'})"
    )
    assert err == f"error: {base}:1: expected 6 columns, found 5\n"


def test_the_benchmark_s_json_has_no_project_line(repo: Path) -> None:
    (repo / "runs" / "base.run").write_text("q1 Q0 d1 1 2.0\n", encoding="utf-8")
    code, out, _ = main("benchmark", "--project", str(repo), "--json")
    assert (code, out) == (2, "")


def test_the_search_stops_at_a_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_runs_only_project(tmp_path, questions=6, runs=2)  # above the repository: not found
    inner = tmp_path / "checkout" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "checkout" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    monkeypatch.chdir(inner)
    code, out, _ = main("validate")
    assert code == 0
    assert out.splitlines()[0] == (
        f"project: the demo, Kestrel Cycles (demo) (no evidencedesk.toml in {inner} or its "
        f"parents up to {tmp_path / 'checkout'})"
    )


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "expected a regular project file, found a named pipe (FIFO)"


def _dangling(path: Path) -> str:
    path.symlink_to(path.parent / "gone.toml")
    return "expected a readable project file, found No such file or directory"


def _looping(path: Path) -> str:
    path.symlink_to(path)
    return "expected a readable project file, found Too many levels of symbolic links"


def _folder(path: Path) -> str:
    path.mkdir()
    return "expected a regular project file, found a folder"


@pytest.mark.parametrize("make", [_fifo, _dangling, _looping, _folder])
@pytest.mark.parametrize("command", ["validate", "build", "benchmark"])
def test_a_project_file_that_is_not_a_file_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make, command: str
) -> None:
    (tmp_path / ".git").mkdir()
    site = tmp_path / "site"
    (site / "keep").mkdir(parents=True)  # a previous site ...
    (site / "manifest.json").write_text('{"generator": "evidencedesk"}\n')
    before = snapshot(site)
    project = tmp_path / "evidencedesk.toml"
    reason = make(project)
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)  # found in the parent folder, never passed over for the demo
    args = ["--out", str(site)] if command == "build" else []
    code, out, err = main(command, *args)
    assert (code, out) == (2, "")
    assert err == f"error: {project}: {reason}\n"
    assert snapshot(site) == before  # ... kept as it was


def test_a_bare_command_prints_the_help() -> None:
    code, out, err = main()
    assert (code, err) == (0, "")
    assert out.startswith("usage: evidencedesk [-h] [-V] COMMAND ...\n")
    assert "-V, --version" in out


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_imports_no_heavy_module(flag: str) -> None:
    from evidencedesk import __version__

    probe = (
        "import sys, io\nfrom evidencedesk.cli import main\nout = io.StringIO()\n"
        f"code = main([{flag!r}], stdout=out)\n"
        "heavy = ('numpy', 'pydantic', 'jinja2', 'plotly', 'pyarrow', 'onnxruntime',"
        " 'evidencedesk.results', 'evidencedesk.retrieval', 'evidencedesk.report',"
        " 'evidencedesk.cli._build', 'evidencedesk.cli._benchmark')\n"
        "print(code, out.getvalue().strip(), sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)  # fmt: skip
    assert done.stdout == f"0 evidencedesk {__version__} []\n", done.stderr


def _reproduce(site: Path) -> str:
    found = re.search(r"reproduce with <code>(.*?)</code>", (site / "index.html").read_text())
    assert found is not None
    return html.unescape(found.group(1))


def test_the_reproduce_command_is_the_one_typed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    (repo / "extra runs").mkdir()
    (repo / "runs" / "better.run").rename(repo / "extra runs" / "new one.run")
    code, _, err = main("build", "--project", ".", "--run", "new=extra runs/new one.run",
                        "--out", "out/site", "--fail-on", "never", "-q")  # fmt: skip
    assert code == 0, err
    assert _reproduce(repo / "out" / "site") == (
        "python -m evidencedesk.report build --project . --seed 0 --run 'new=extra runs/new one.run'"
    )
    # the same arguments into another folder: the same bytes (--out is not part of the command)
    code, _, err = main("build", "--project", ".", "--run", "new=extra runs/new one.run",
                        "--out", "again", "-q")  # fmt: skip
    assert code == 0, err
    assert snapshot(repo / "again") == snapshot(repo / "out" / "site")
