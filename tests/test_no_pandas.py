"""No build, validation or TREC read imports pandas (issue 41): pyarrow asks whether pandas is
installed on ``pa.array``, ``pa.scalar`` and ``to_numpy``, and where it is, importing it cost
about 0.6 s of a 2 s demo build. A stand-in ``pandas`` on the path records any import of it
(and then refuses, as a missing pandas would), so the check runs where pandas is absent too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.paths import _ROOT

EXAMPLE = _ROOT / "examples" / "millbrook-library"
_STAND_IN = """
import os
with open(os.environ["PANDAS_MARKER"], "a") as marker:
    marker.write("imported\\n")
raise ImportError("pandas is a stand-in here")
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["build", "--out", "{tmp}/demo", "-q"],
        ["build", "--project", str(EXAMPLE / "runs-only"), "--out", "{tmp}/runs", "-q"],
        ["validate", "--project", str(EXAMPLE / "runs-only")],
    ],
    ids=["demo build", "runs-only build", "validate"],
)
def test_the_command_never_imports_pandas(tmp_path: Path, argv: list[str]) -> None:
    fake = tmp_path / "fake" / "pandas"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(_STAND_IN, "utf-8")
    marker = tmp_path / "marker"
    env = dict(os.environ, PANDAS_MARKER=str(marker),
               PYTHONPATH=os.pathsep.join([str(tmp_path / "fake"), str(_ROOT)]))  # fmt: skip
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    done = subprocess.run([sys.executable, "-m", "evidencedesk", *args], env=env, cwd=_ROOT,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "pandas was imported"


def test_the_stand_in_would_see_an_import(tmp_path: Path) -> None:
    fake = tmp_path / "fake" / "pandas"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(_STAND_IN, "utf-8")
    marker = tmp_path / "marker"
    env = dict(os.environ, PANDAS_MARKER=str(marker), PYTHONPATH=str(tmp_path / "fake"))
    code = "import pyarrow as pa; pa.array([1.0])"  # what the readers used to call
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert marker.read_text().startswith("imported\n")  # pyarrow tries more than once
