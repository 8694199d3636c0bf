"""The notebook API: ``evidencedesk.build(...)`` writes the site and returns its Results;
``evidencedesk.load_results(...)`` reads a results.json back into the same Results."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.errors import EvidencedeskError


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_build_returns_the_results_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "site"
    results = evidencedesk.build(out=out, seed=7)
    assert type(results).__name__ == "Results"
    assert results.settings.seed == 7
    assert results.baseline == "hybrid"
    assert [v.name for v in results.variants][:3] == ["sparse", "dense", "hybrid"]
    assert (out / "index.html").is_file()
    # the file it wrote reads back to equal Results, from the file or from the site folder
    assert evidencedesk.load_results(out / "results.json") == results
    assert evidencedesk.load_results(out) == results


def test_build_refuses_a_folder_it_did_not_make(tmp_path: Path) -> None:
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep me\n", encoding="utf-8")
    before = _tree(tmp_path)
    with pytest.raises(EvidencedeskError, match="todo.txt"):
        evidencedesk.build(out=mine)
    assert _tree(tmp_path) == before


def test_build_reports_bad_input_as_an_error(tmp_path: Path) -> None:
    with pytest.raises(EvidencedeskError, match="expected"):
        evidencedesk.build(project=tmp_path / "missing", out=tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_load_results_of_a_broken_file_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"schema_version": 1}\n', encoding="utf-8")
    with pytest.raises(EvidencedeskError) as info:
        evidencedesk.load_results(bad)
    assert str(info.value).startswith(f"{bad}")
    with pytest.raises(EvidencedeskError, match="expected a readable"):
        evidencedesk.load_results(tmp_path / "absent.json")
