"""The wheel is complete: built, installed into a fresh venv and run from an unrelated folder.

The venv gets no copy of the dependencies: a ``.pth`` file points it at this environment's
site-packages (plain path lines, so the checkout's own editable hook is not loaded there), and the
wheel is installed with ``--no-deps --no-index``. No network, a few seconds. The sites built from
the wheel must be byte-identical to the ones built from the checkout.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "millbrook-library"


def run(cmd: list[str | Path], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EVIDENCEDESK_ROOT")}
    return {**env, **extra}


def differences(a: Path, b: Path) -> list[str]:
    """Relative paths that differ between two trees (missing on one side, or other bytes)."""
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    diff = sorted(str(p) for p in files_a ^ files_b)
    diff += sorted(
        str(p) for p in files_a & files_b if not filecmp.cmp(a / p, b / p, shallow=False)
    )
    return diff


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    done = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            dist,
            ROOT,
        ],
        cwd=dist,
        env=clean_env(),
    )
    assert done.returncode == 0, done.stderr
    (found,) = dist.glob("evidencedesk-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv") / "v"
    assert (
        run(
            [sys.executable, "-m", "venv", "--without-pip", home], home.parent, clean_env()
        ).returncode
        == 0
    )
    python = home / "bin" / "python"
    inner = run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        home,
        clean_env(),
    ).stdout.strip()
    outer = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(inner) / "_outer_environment.pth").write_text("\n".join(outer) + "\n")
    done = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            wheel,
        ],
        home,
        clean_env(),
    )
    assert done.returncode == 0, done.stderr
    return home


def test_the_wheel_carries_templates_assets_and_the_demo(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "templates/base.html",
        "templates/style.css",
        "templates/sort.js",
        "data/evidencedesk.toml",
        "data/labels.jsonl",
        "data/corpus",
        "data/runs/bm25-title.run",
    ):
        assert any(n.startswith(f"evidencedesk/{needed}") for n in names), needed
    assert not any(n.startswith("evidencedesk/examples") or "__pycache__" in n for n in names)
    assert "evidencedesk/cli/__init__.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "evidencedesk = evidencedesk.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_installed_wheel_builds_the_same_sites_from_any_folder(
    venv: Path, tmp_path: Path
) -> None:
    away = tmp_path / "elsewhere"
    away.mkdir()
    wheel_env = clean_env()
    checkout_env = clean_env(PYTHONPATH=str(ROOT))
    where = run(
        [venv / "bin" / "python", "-c", "import evidencedesk.paths as p; print(p._ROOT)"],
        away,
        wheel_env,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stderr
    jobs = {  # both sides at once: two cores, four builds
        "demo-wheel": ([venv / "bin" / "evidencedesk", "build", "--out", "demo-wheel"], wheel_env),
        "example-wheel": (
            [
                venv / "bin" / "python",
                "-m",
                "evidencedesk.report",
                "build",
                "--project",
                EXAMPLE,
                "--out",
                "example-wheel",
            ],
            wheel_env,
        ),
        "demo-checkout": (
            [sys.executable, "-m", "evidencedesk.report", "build", "--out", "demo-checkout"],
            checkout_env,
        ),
        "example-checkout": (
            [
                sys.executable,
                "-m",
                "evidencedesk.report",
                "build",
                "--project",
                EXAMPLE,
                "--out",
                "example-checkout",
            ],
            checkout_env,
        ),
    }
    procs = {
        name: subprocess.Popen(
            [str(c) for c in cmd],
            cwd=away,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name, (cmd, env) in jobs.items()
    }
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, (name, err)
        assert out.splitlines()[-1] == f"open {away / name / 'index.html'}"
    assert differences(away / "demo-wheel", away / "demo-checkout") == []
    assert differences(away / "example-wheel", away / "example-checkout") == []
    assert len(list((away / "demo-wheel").glob("candidate-*.html"))) == 10  # the demo's ten


def test_the_installed_command_reports_its_version(venv: Path, tmp_path: Path) -> None:
    from evidencedesk import __version__

    done = run([venv / "bin" / "evidencedesk", "--version"], tmp_path, clean_env())
    assert (done.returncode, done.stdout, done.stderr) == (0, f"evidencedesk {__version__}\n", "")
