"""`evidencedesk init` and the files beside the runs (issue 35, leftovers): since a file in the
runs folder named like a run that does not parse is an error, init lists every file there that
it did not recognise as a run under ``[runs] ignore`` -- quoted as TOML, written as a pattern
that matches only itself -- and the written project validates; its comment says what ``dir``
reads.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from evidencedesk.cli import main
from evidencedesk.cli._init import render, survey

RUN = "q1 Q0 d1 1 2.0 {tag}\nq1 Q0 d2 2 1.0 {tag}\n"


def _folder(tmp_path: Path, others: dict[str, str]) -> Path:
    folder = tmp_path / "p"
    (folder / "runs").mkdir(parents=True)
    (folder / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    for tag in ("bm25", "dense"):
        (folder / "runs" / f"{tag}.run").write_text(RUN.format(tag=tag), encoding="utf-8")
    for name, text in others.items():
        (folder / "runs" / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("others", "ignore"),
    [
        ({}, None),  # nothing beside the runs: no ignore key
        ({"NOTES.txt": "made with bm25s\n"}, ["NOTES.txt"]),
        ({"README": "about\n", "old.run": "broken\n"}, ["README", "old.run"]),
        ({"how.md": "# notes\n", "meta.json": "{}\n"}, None),  # notes: never read as runs
        # a pattern's characters escaped to match only themselves; "?" for a backslash (the key
        # refuses it) and for a byte that is not UTF-8 (TOML cannot hold it)
        ({"a[1]*?.txt": "x\n"}, ["a[[]1][*][?].txt"]),
        ({"b\\c.txt": "x\n", "d\udce9.txt": "x\n"}, ["b?c.txt", "d?.txt"]),
        ({'q"#.tsv': "x\n"}, ['q"#.tsv']),
    ],
)
def test_init_lists_the_files_beside_the_runs_under_ignore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], others: dict[str, str],
    ignore: list[str] | None,
) -> None:  # fmt: skip
    folder = _folder(tmp_path, others)
    text = render(survey(folder))
    runs = tomllib.loads(text)["runs"]
    assert runs.get("ignore") == ignore
    assert runs["dir"] == "runs"
    line = next(x for x in text.splitlines() if x.startswith("dir = "))
    assert line == (
        'dir = "runs"   # every file in it is a TREC run, but notes (.md, .json, .toml)'
        + (" and those under ignore" if ignore else "")
    )
    assert main(["init", str(folder)]) == 0
    capsys.readouterr()
    assert main(["validate", "--project", str(folder)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.splitlines()[-1] == "ok: the project loads; nothing was built"


def test_without_the_ignore_line_the_note_is_refused_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Why init writes it: the same project without it does not validate."""
    folder = _folder(tmp_path, {"NOTES.txt": "made with bm25s\n"})
    assert main(["init", str(folder)]) == 0
    project = folder / "evidencedesk.toml"
    text = project.read_text(encoding="utf-8")
    project.write_text(
        "".join(x for x in text.splitlines(keepends=True) if not x.startswith("ignore")),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["validate", "--project", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"error: {folder / 'runs' / 'NOTES.txt'}:1: expected 6 columns, found 3\n"
    )
