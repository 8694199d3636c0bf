from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.errors import ConfigError
from evidencedesk.report.candidates import load_candidates, note_slug

REQUIRED = {
    "rerank overlap",
    "rerank feature",
    "rerank blend",
    "pair cut to 8 words",
    "no pre-filter",
    "depth 3",
    "depth 20",
    "final 5",
    "dense first stage",
}


def test_demo_candidates_cover_the_required_changes() -> None:
    candidates = load_candidates()
    assert REQUIRED <= {c.name for c in candidates}
    by_name = {c.name: c for c in candidates}
    assert by_name["pair cut to 8 words"].changes == {"reranker": "pair", "max_words": 8}
    assert by_name["no pre-filter"].changes == {"prefilter": False}
    assert (
        by_name["rerank feature"].note is not None
        and "optimistic" in by_name["rerank feature"].note
    )
    assert by_name["rerank overlap"].note is None


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("rerank feature", "rerank-feature"),
        ("Pair cut to 8 words!", "pair-cut-to-8-words"),
        ("../x", "x"),
        ("***", "candidate"),
    ],
)
def test_note_slug(name: str, slug: str) -> None:
    assert note_slug(name) == slug


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[[candidate]\nname = 'x'",
            "c.toml:1: expected valid TOML, found a syntax error (Expected ']]' at the end of an array declaration)",
        ),
        (
            "[[candidate]]\nname = 'x'\ncolour = 'red'",
            "c.toml: candidate #1: unknown key 'colour'; expected: name, rationale, changes",
        ),
        (
            "[[candidate]]\nname = 'x'\nchanges = { speed = 2 }",
            "c.toml: candidate #1 (x): unknown config field 'speed'; expected one of: first_stage, reranker, depth, final, max_words, prefilter",
        ),
        (
            "[[candidate]]\nname = 'x'\n[[candidate]]\nname = 'X'",
            "c.toml: candidate #2: expected unique candidate names, found 'X' twice",
        ),
        (
            "[[candidate]]\nname = ''",
            "c.toml: candidate #1: expected 'name' to be a non-empty string, found ''",
        ),
        (
            "title = 'x'",
            "c.toml: unknown top-level key 'title'; expected only [[candidate]] tables",
        ),
        ("", "c.toml: expected at least one [[candidate]] table, found none"),
    ],
)
def test_bad_candidates_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_candidates(path, notes=None)
    assert str(info.value) == f"{tmp_path}/{message}"


def test_a_note_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text("[[candidate]]\nname = 'a b'", encoding="utf-8")
    (tmp_path / "a-b.md").write_bytes(b"caf\xe9")
    with pytest.raises(
        ConfigError, match=r"a-b\.md:1: expected UTF-8 text, found byte 0xe9 at offset 3$"
    ):
        load_candidates(tmp_path / "c.toml", notes=tmp_path)
