"""The one validation helper: finding a key's line in TOML and JSON, and wording an error."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk.files._validation import (
    Source,
    Style,
    _toml_line,
    expected_key,
    found_json,
    found_toml,
    json_line,
    value_line,
)

TOML = """# a comment [not] a table
[project]
name = "x"   # = not a key
seed = 3

[questions]
labels = "labels.jsonl"
files = [
  "a.run",
  { name = "b", path = "b.run" },
]
relevance = 2

[[candidate]]
name = "a"

[[candidate]]
name = "b"
changes = { depth = 3 }

[[candidate]]
name = "c"
[candidate.changes]
final = 5
"""


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        (("project",), 2),
        (("project", "seed"), 4),
        (("questions", "relevance"), 12),  # the run table inside the array is not a key line
        (("questions", "files", 1, "name"), 8),  # deepest written: the array's key
        (("questions", "qrels"), 6),  # absent key: its section
        (("candidate", 0), 14),
        (("candidate", 1, "changes", "depth"), 19),  # inside an inline table: the table's line
        (("candidate", 2, "changes", "final"), 24),  # a sub-table of the third [[candidate]]
        (("candidate", 3), None),
        (("output",), None),
        ((), None),
    ],
)
def test_toml_line(loc: tuple, line: int | None) -> None:
    assert _toml_line(TOML, loc) == line


JSON = '{\n  "k": 3,\n  "notes": {\n    "k": "a note"\n  },\n  "critical": ["rc01", "zz"]\n}\n'


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        (("k",), 2),
        (("notes", "k"), 4),  # searched after "notes", not the first "k"
        (("critical", 1), 6),
        (("missing",), None),
        (("notes", "missing"), 3),
    ],
)
def test_json_line(loc: tuple, line: int | None) -> None:
    assert json_line(JSON, loc) == line


def test_value_line() -> None:
    assert (value_line(JSON, "zz"), value_line(JSON, "nope")) == (6, None)


@pytest.mark.parametrize(
    ("value", "toml", "json"),
    [
        ("2", "a string '2'", '"2"'),
        (3, "an integer 3", "3"),
        (True, "a boolean True", "true"),
        (1.5, "a number 1.5", "1.5"),
        ({"a": 1}, "a table", '{"a": 1}'),
        (datetime.date(1979, 5, 27), "a date 1979-05-27", '"1979-05-27"'),
    ],
)
def test_found_values(value: object, toml: str, json: str) -> None:
    assert (found_toml(value), found_json(value)) == (toml, json)


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    depth: int = 1


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    seed: int = expected_key(0, "an integer seed", ge=0, le=9)
    rate: float = Field(0.0, le=1.0)
    mode: str = "a"
    inner: Inner = Inner()


def _label(loc: tuple) -> str:
    return ".".join(map(str, loc))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seed": "3"}, "f.toml:4: project.seed: expected an integer seed, found a string '3'"),
        ({"seed": 10}, "f.toml:4: project.seed: expected an integer seed from 0 to 9, found 10"),
        ({"rate": 2.0}, "f.toml:2: project.rate: expected a value <= 1.0, found a number 2.0"),
        ({"mode": 1}, "f.toml:2: project.mode: expected a string, found an integer 1"),
        (
            {"inner": {"depth": "x"}},
            "f.toml:2: project.inner.depth: expected an integer, found a string 'x'",
        ),
        (
            {"inner": {"deep": 1}},
            "f.toml:2: project.inner.deep: unknown key; expected one of: depth",
        ),
        (
            {"other": 1},
            "f.toml:2: project.other: unknown key; expected one of: seed, rate, mode, inner",
        ),
        ({"inner": 3}, "f.toml:2: project.inner: expected a table of keys, found an integer 3"),
    ],
)
def test_invalid_words_the_first_error(data: dict, message: str) -> None:
    source = Source(Path("f.toml"), TOML, Style("toml", _label))
    with pytest.raises(ValidationError) as caught:
        Outer.model_validate(data)
    # the model is validated as the file's [project] table: the line is looked up there
    assert str(source.invalid(caught.value, Outer, ("project",))) == message


def test_error_and_suffix() -> None:
    source = Source(
        Path("b.json"), JSON, Style("json", lambda loc: f"key {loc[0]!r}", suffix="; hint")
    )
    assert str(source.error(("notes",), "expected x, found y")) == (
        "b.json:3: key 'notes': expected x, found y; hint"
    )


toml_ish = st.lists(
    st.sampled_from(
        ["[a]", "[[a]]", "[a.b]", "x = 1", 'y = "#["', "z = [", "]", "{ x = 1 }", "'q' = 2", "# c",
         '"x.y" = 3', "", "a.b = {", "}"]
    ),
    max_size=12,
).map("\n".join)  # fmt: skip
locs = st.lists(st.sampled_from(["a", "b", "x", "y", "z", "q", 0, 1]), max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(toml_ish, locs)
def test_key_lines_are_lines_of_the_text_or_none(text: str, loc: tuple) -> None:
    lines = len(text.splitlines())
    for found in (_toml_line(text, loc), json_line(text, loc)):
        assert found is None or 1 <= found <= lines
