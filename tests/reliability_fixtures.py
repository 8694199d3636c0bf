"""A scratch world for the reliability tests: a small generated runs-only project, a site built
from it, and a decoy file of the user's beside the site.

`Scratch.state()` hashes everything a build must leave alone — the whole project folder, the
decoy, and the site — so a test compares the world before and after in one assertion.
`build_in_process` runs the real build command (no subprocess) and returns its status and output.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import io
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evidencedesk import cli
from tests.project_fixtures import make_runs_only_project
from tests.test_output_folder import tree_hash

DECOY = "decoy.txt"


@dataclass(frozen=True)
class Scratch:
    root: Path
    project: Path  # the project file
    out: Path  # the built site

    @property
    def decoy(self) -> Path:
        return self.root / DECOY

    def state(self) -> dict[str, str]:
        """What a failed build must not change: the project folder, the decoy and the site."""
        return {
            "project": tree_hash(self.project.parent),
            "decoy": hashlib.sha256(self.decoy.read_bytes()).hexdigest(),
            "site": tree_hash(self.out),
            "beside the site": " ".join(sorted(p.name for p in self.out.parent.iterdir())),
        }


def build_in_process(
    *args: str, factory: object | None = None, stdout: io.TextIOBase | None = None
) -> tuple[int, str, str]:
    """``evidencedesk build ARGS`` in this process: (status, stdout, stderr)."""
    out = stdout if stdout is not None else io.StringIO()
    err = io.StringIO()
    code = cli.main(["build", *args], model_factory=factory, stdout=out, stderr=err)  # type: ignore[arg-type]
    return code, out.getvalue() if isinstance(out, io.StringIO) else "", err.getvalue()


@functools.cache
def _fixture_site_built() -> Path:
    """The fixture model's site, built once per test process (`fixture_site` copies it)."""
    from tests import report_fixtures as rf

    root = Path(tempfile.mkdtemp(prefix="ed-fixture-site-"))
    atexit.register(shutil.rmtree, root, True)
    code, _, err = build_in_process("--out", str(root / "site"), factory=rf.fixture_model)
    assert code == 0, err
    return root / "site"


def fixture_site(tmp_path: Path) -> Path:
    """A site built from the small fixture model (`tests.report_fixtures`) in ``tmp_path/site``:
    a copy, byte for byte, of the one build this process made of it (a previous site is known
    by its manifest.json, not by where it was built)."""
    out = tmp_path / "site"
    shutil.copytree(_fixture_site_built(), out, symlinks=True)
    return out


def make_scratch(base: Path, questions: int = 8, runs: Sequence[str] = ()) -> Scratch:
    """A project of `questions` questions and two runs (more runs: `runs`, copied from the
    second), built into ``site`` beside the decoy."""
    project = make_runs_only_project(base, questions=questions, runs=2)
    for name in runs:
        shutil.copyfile(project.parent / "runs" / "better.run", project.parent / "runs" / name)
    (base / DECOY).write_text("the user's own file\n", encoding="utf-8")
    scratch = Scratch(base, project, base / "site")
    code, _, err = build_in_process("--project", str(project), "--out", str(scratch.out))
    assert code == 0, err
    return scratch


def copy_scratch(pristine: Scratch, to: Path) -> Scratch:
    """A copy of a built scratch world (each test breaks its own)."""
    shutil.copytree(pristine.root, to, symlinks=True)
    project = to / pristine.project.relative_to(pristine.root)
    return Scratch(to, project, to / pristine.out.relative_to(pristine.root))
