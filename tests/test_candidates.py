from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.errors import ConfigError
from evidencedesk.files._writing import plain_slug
from evidencedesk.paths import DATA
from evidencedesk.report._site import slug as page_slug
from evidencedesk.results._candidates import load_candidates, note_slug

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
    candidates = load_candidates(DATA / "candidates.toml", DATA / "notes")
    assert REQUIRED <= {c.name for c in candidates}
    by_name = {c.name: c for c in candidates}
    assert by_name["pair cut to 8 words"].changes == {"reranker": "pair", "max_words": 8}
    assert by_name["no pre-filter"].changes == {"prefilter": False}
    assert (
        by_name["rerank feature"].note is not None
        and "optimistic" in by_name["rerank feature"].note
    )
    assert by_name["rerank overlap"].note is None


def test_a_depth_below_final_is_a_candidate_like_any_other(tmp_path: Path) -> None:
    # its final list is capped by the depth (the candidate page says so); it is not an error
    path = tmp_path / "c.toml"
    path.write_text(
        "[[candidate]]\nname = 'few pairs'\nchanges = { reranker = 'pair', depth = 3, final = 5 }",
        encoding="utf-8",
    )
    [candidate] = load_candidates(path, notes=None)
    assert candidate.changes == {"reranker": "pair", "depth": 3, "final": 5}


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
    ("name", "plain"),
    [
        ("final-5", "final-5"),
        ("Final 5", "final-5"),
        ("  Dense / first stage!! ", "dense-first-stage"),
        ("ফেরত", ""),
    ],
)
def test_notes_and_pages_share_one_slug_rule(name: str, plain: str) -> None:
    assert plain_slug(name) == plain
    assert note_slug(name) == (plain or "candidate")
    if plain == name:  # the rule left the name alone: the page is named by it
        assert page_slug(name) == plain
    else:  # else a hash of the original keeps "Final 5" and "final-5" apart
        assert (
            page_slug(name).startswith(f"{plain or 'x'}-")
            and len(page_slug(name)) == len(plain or "x") + 9
        )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[[candidate]\nname = 'x'",
            "c.toml:1: expected valid TOML, found a syntax error (Expected ']]' at the end of an array declaration)",
        ),
        (
            "[[candidate]]\nname = 'x'\ncolour = 'red'",
            "c.toml:3: candidate #1 (x).colour: unknown key; expected one of: name, rationale, "
            "changes",
        ),
        (
            "[[candidate]]\nname = 'x'\nchanges = { speed = 2 }",
            "c.toml:3: candidate #1 (x).changes.speed: unknown key; expected one of: first_stage, "
            "reranker, depth, final, max_words, prefilter",
        ),
        (
            "[[candidate]]\nname = 'x'\n[[candidate]]\nname = 'X'",
            "c.toml:3: candidate #2: expected unique candidate names, found 'X' twice",
        ),
        (
            "[[candidate]]\nname = ''",
            "c.toml:2: candidate #1.name: expected a non-empty string, found a string ''",
        ),
        (
            "[[candidate]]\nrationale = 'why'",
            "c.toml:1: candidate #1.name: expected a string, found none",
        ),
        (
            "[[candidate]]\nname = 'a'\n\n[[candidate]]\nname = 'b'\nrationale = 3",
            "c.toml:6: candidate #2 (b).rationale: expected a string, found an integer 3",
        ),
        (
            "[[candidate]]\nname = 'a'\n[[candidate]]\nname = 'b'\n"
            "changes = { reranker = 'feature', depth = '20' }",
            "c.toml:5: candidate #2 (b).changes.depth: expected an integer, found a string '20'",
        ),
        (
            "[[candidate]]\nname = 'a'\n[candidate.changes]\nprefilter = 'no'",
            "c.toml:4: candidate #1 (a).changes.prefilter: expected true or false, found a "
            "string 'no'",
        ),
        (
            "[[candidate]]\nname = 'a'\nchanges = { reranker = 'cross-encoder' }",
            "c.toml:3: candidate #1 (a).changes: unknown reranker 'cross-encoder'; expected one "
            "of: none, overlap, feature, pair, blend, minilm",
        ),
        (
            "[[candidate]]\nname = 'a'\nchanges = { reranker = 'feature', depth = nan }",
            "c.toml:3: key 'depth': expected finite numbers, found nan",
        ),
        (
            "[[candidate]]\nname = 'a'\nchanges = { final = 0 }",
            "c.toml:3: candidate #1 (a).changes: config final: expected an integer from 1 to 1000000, "
            "found 0",
        ),
        (
            "[[candidate]]\nname = 'a'\nchanges = 5",
            "c.toml:3: candidate #1 (a).changes: expected a table of keys, found an integer 5",
        ),
        ("candidate = 5", "c.toml:1: [[candidate]]: expected a list, found an integer 5"),
        (
            "title = 'x'",
            "c.toml:1: unknown top-level key 'title'; expected only [[candidate]] tables",
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


def test_a_notes_folder_holds_only_candidates_notes_and_a_readme(tmp_path: Path) -> None:
    """Every .md of the notes folder must be some candidate's note (a README and other kinds of
    file aside); one named after no candidate is refused, naming the nearest."""
    (tmp_path / "c.toml").write_text(
        '[[candidate]]\nname = "Rerank: feature"\nchanges = { reranker = "feature" }\n', "utf-8"
    )
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "rerank-feature.md").write_text("Why we try it.\n", "utf-8")
    (notes / "README.md").write_text("What this folder is.\n", "utf-8")
    (notes / "draft.txt").write_text("not a note\n", "utf-8")
    [candidate] = load_candidates(tmp_path / "c.toml", notes)
    assert candidate.note == "Why we try it.\n"
    (notes / "rerank-featur.md").write_text("A typo.\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_candidates(tmp_path / "c.toml", notes)
    assert str(err.value) == (
        f"{notes / 'rerank-featur.md'}: expected a note named after a candidate (its name as a "
        "slug: rerank-feature.md), found rerank-featur.md, the note of no candidate; did you "
        "mean rerank-feature.md?"
    )
