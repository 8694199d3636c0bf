"""A third-party package that does not load (issue 38, item 5): pyarrow, missing or broken, is
one ``error:`` line naming the package and what to reinstall, exit 2, the previous site kept (the
ONNX model's and tokenizer's own load failures: tests/test_minilm.py); the plotly package, which
a build does not import (the charts are written as its JSON engine writes them), changes nothing.

Each case runs the command in a fresh interpreter, where the package is made to fail before
evidencedesk imports it: ``sys.modules[name] = None`` (as if it were not installed), or a
package of that name first on the path whose import raises (a broken install).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.project_fixtures import make_runs_only_project
from tests.test_bad_input import build, snapshot

REPO = Path(__file__).resolve().parent.parent
# run `evidencedesk ARGS` with `package` made to fail first (argv[1]: the package; argv[2]: how)
SCRIPT = """
import sys
package, how, *args = sys.argv[1:]
if how == "missing":
    sys.modules[package] = None
from evidencedesk.cli import main
sys.exit(main(args, prog="evidencedesk"))
"""
BROKEN = 'raise OSError("libarrow.so.1900: cannot open shared object file: No such file")\n'


def _run(package: str, how: str, args: list[str], fake: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    paths = [str(REPO), env.get("PYTHONPATH", "")]
    if how == "broken":  # a package of that name whose import raises, ahead of the real one
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text(BROKEN, encoding="utf-8")
        paths.insert(0, str(fake))
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    command = [sys.executable, "-c", SCRIPT, package, how, *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


FOUND = {
    "missing": "ModuleNotFoundError: import of {p} halted; None in sys.modules",
    "broken": "OSError: libarrow.so.1900: cannot open shared object file: No such file",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes]]:
    """A small runs-only project, built once: (its folder, its site, the site's files)."""
    base = tmp_path_factory.mktemp("package-load")
    root = make_runs_only_project(base, questions=12, runs=2).parent
    out = base / "out" / "site"
    status, _, stderr = build(root, out)
    assert status == 0, stderr
    return root, out, snapshot(out)


@pytest.mark.parametrize(
    ("package", "how", "command"),
    [
        ("pyarrow", "missing", "build"),
        ("pyarrow", "broken", "build"),
        ("pyarrow", "missing", "validate"),
    ],
)
def test_a_package_that_does_not_load_is_one_line_and_keeps_the_site(
    tmp_path: Path, project: tuple[Path, Path, dict[str, bytes]], package: str, how: str,
    command: str,
) -> None:  # fmt: skip
    root, out, before = project
    args = [command, "--project", str(root)] + (["--out", str(out)] if command == "build" else [])
    done = _run(package, how, args, tmp_path / "fake")
    found = FOUND[how].format(p=package)
    assert "Traceback" not in done.stdout + done.stderr
    assert (done.returncode, done.stderr) == (
        2,
        f"error: {package}: expected an installed package that imports, found one that does not "
        f"({found}); reinstall it: pip install --force-reinstall {package}\n",
    )
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["site"]


@pytest.mark.parametrize("how", ["missing", "broken"])
def test_a_build_does_not_need_the_plotly_package(
    tmp_path: Path, project: tuple[Path, Path, dict[str, bytes]], how: str
) -> None:
    root = project[0]
    out = tmp_path / "site"
    args = ["build", "--project", str(root), "--out", str(out)]
    with_it = _run("plotly", "installed", args, tmp_path / "unused")
    assert with_it.returncode == 0, with_it.stderr
    site = snapshot(out)
    without = _run("plotly", how, args, tmp_path / "fake")
    assert (without.returncode, without.stderr) == (0, with_it.stderr)
    assert snapshot(out) == site
