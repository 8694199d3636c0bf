"""Path safety through the REAL pipeline: names from data never leave ``site/`` or collide.

Names that become file names are candidate names (``candidate-<slug>.html``), question ids
(``question-<slug>.html``) and run names. A copy of ``data/`` gets candidates named ``../evil``,
``a/b``, ``a-b`` (slugs like ``a/b``), ``/abs``, one with a NUL (``"x\\u0000y"``: tomllib accepts the
escape) and one of 300 characters; questions with ids ``../../evil``, ``a/b``, ``..``, ``x\\y``
and ``Q1`` / ``q1`` (the labels loader accepts any id a TREC file reads back -- no white space or
control character, so no NUL -- and ids are case-sensitive, so those pages must be slugged
apart); and external runs named ``../x`` and ``a/b`` through ``--run``. After the build: every file is inside the out folder, the folder's parent holds
nothing else, nothing named ``evil`` appeared anywhere, there is one page per candidate and per
question, and every local link resolves to a file of the site. Candidate names that differ only in
case (``Depth`` / ``depth``) are refused by the candidates loader: a clean exit 2, old site kept.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from evidencedesk.cli import main
from evidencedesk.report._site import slug
from tests.test_bad_input import snapshot

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

# (a name holding a control character, such as a NUL, is refused where it is read:
# tests/test_hostile_inputs.py)
CANDIDATE_NAMES = ["../evil", "a/b", "a-b", "/abs", "x\\y", "L" * 300]
QUESTION_IDS = {  # old id -> new id (none is critical, in answers.jsonl or in the gate notes)
    "sp01": "../../evil",
    "sp02": "a/b",
    "sz01": "..",
    "sv01": "x\\y",
    "bn02": "Q1",
    "pp01": "q1",
}
RUN_NAMES = ["../x", "a/b"]


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string (\u0000 included)


@dataclass(frozen=True)
class Done:
    returncode: int
    stderr: str


def cli(project: Path, out: Path, *args: str) -> Done:
    """``python -m evidencedesk.report build --project … --out OUT ARGS`` from the checkout, in
    this process (`evidencedesk.cli.main`, what the module runs): a name that escaped the site
    would land beside the checkout, where `test_every_file_stays_inside_the_site` looks."""
    argv = ["build", "--project", str(project / "evidencedesk.toml"), "--out", str(out), *args]
    err = io.StringIO()
    here = os.getcwd()
    os.chdir(REPO)
    try:
        status = main(argv, stdout=io.StringIO(), stderr=err, prog="python -m evidencedesk.report")
    finally:
        os.chdir(here)
    return Done(status, err.getvalue())


def copy_demo(root: Path) -> Path:
    shutil.copytree(DATA, root)
    text = (root / "evidencedesk.toml").read_text(encoding="utf-8")  # labels change: no baseline
    (root / "evidencedesk.toml").write_text(
        text.replace('baseline = "baseline_retrieval.json"', "")
    )
    return root


def add_candidates(root: Path, names: list[str]) -> None:
    with (root / "candidates.toml").open("a", encoding="utf-8") as out:
        for name in names:
            out.write(f'\n[[candidate]]\nname = {toml_string(name)}\nrationale = "path probe"\n')
            out.write('changes = { reranker = "overlap" }\n')


def rename_questions(root: Path) -> None:
    lines = []
    for line in (root / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row["id"] = QUESTION_IDS.get(row["id"], row["id"])
        lines.append(json.dumps(row, ensure_ascii=False))
    (root / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # the demo's run answers the same questions by their new ids (it must answer nine in ten)
    run = root / "runs" / "bm25-title.run"
    run.write_text("".join(
        " ".join([QUESTION_IDS.get(qid, qid), *rest]) + "\n"
        for qid, *rest in map(str.split, run.read_text(encoding="utf-8").splitlines())
    ), encoding="utf-8")  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("paths")
    root = copy_demo(base / "project")
    add_candidates(root, CANDIDATE_NAMES)
    rename_questions(root)
    out = base / "out" / "site"
    run = root / "runs" / "bm25-title.run"
    args = [a for name in RUN_NAMES for a in ("--run", f"{name}={run}")]
    done = cli(root, out, *args)
    assert done.returncode == 0, done.stderr
    return base, root, out


def test_every_file_stays_inside_the_site(built: tuple[Path, Path, Path]) -> None:
    base, root, out = built
    site = out.resolve()
    for path in out.rglob("*"):
        assert site in path.resolve().parents, path
        assert re.fullmatch(r"[a-z0-9.-]+", path.name), f"unslugged file name {path.name!r}"
    assert sorted(p.name for p in out.parent.iterdir()) == ["site"]
    assert sorted(p.name for p in base.iterdir()) == ["out", "project"]
    for folder in (base, REPO, REPO.parent):
        assert not [p for p in folder.glob("*evil*")], folder
    assert not [p for p in root.rglob("*") if "evil" in p.name or p.suffix == ".html"]


def test_one_page_per_candidate_and_per_question(built: tuple[Path, Path, Path]) -> None:
    _, root, out = built
    candidates = len(
        re.findall(r"^\[\[candidate\]\]", (root / "candidates.toml").read_text(), re.M)
    )
    questions = len((root / "labels.jsonl").read_text(encoding="utf-8").splitlines())
    assert len(list(out.glob("candidate-*.html"))) == candidates == 10 + len(CANDIDATE_NAMES)
    assert len(list(out.glob("question-*.html"))) == questions == 24


def test_the_names_are_slugged_apart(built: tuple[Path, Path, Path]) -> None:
    _, _, out = built
    names = {p.name for p in out.glob("*.html")}
    for name in CANDIDATE_NAMES:
        assert f"candidate-{slug(name)}.html" in names, name
    for qid in QUESTION_IDS.values():
        assert f"question-{slug(qid)}.html" in names, qid
    assert slug("Q1") != slug("q1") and slug("a/b") != slug("a-b")
    assert max(len(n) for n in names) <= len("candidate-") + 64 + len(".html")


def test_every_local_link_resolves_inside_the_site(built: tuple[Path, Path, Path]) -> None:
    _, _, out = built
    site = out.resolve()
    for page in out.glob("*.html"):
        for href in re.findall(r'(?:href|src)="([^"#?]+)', page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", href):
                continue  # an external URL (the site has none, but they are not files)
            target = (page.parent / href).resolve()
            assert site in target.parents and target.is_file(), f"{page.name}: {href}"


def test_names_differing_only_in_case_are_refused_cleanly(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, _, out = built
    before = snapshot(out)
    root = copy_demo(tmp_path / "project")
    add_candidates(root, ["Depth", "depth"])
    done = cli(root, out)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: {root / 'candidates.toml'}:60: candidate #12: expected unique candidate names, "
        "found 'depth' twice\n"
    )
    assert snapshot(out) == before
    assert slug("Depth") != slug("depth")  # were they allowed, their pages would not collide
