"""One way to check a structured input file and to word what is wrong with it.

The project file, ``candidates.toml``, the gate policy and the saved baseline are each validated by
a pydantic model (strict types, unknown keys forbidden). `Source.invalid` turns the first
validation error into one `ConfigError`: ``file:line: <key>: expected …, found …``, the line found
from the key's path in the file's text (`evidencedesk.files._validation`), the key
worded by the file's `Style` (``[questions].relevance``, ``candidate #2 (name).changes.depth``,
``key 'k'``). Checks made after the model (against the judgments, the labels) use `Source.error`,
so every message of these files has the same shape.

Where a key is written in a TOML or JSON file, for error messages that name its line.

`_toml_line` follows tables, dotted keys, arrays of tables (``[[candidate]]`` #n) and their
sub-tables, and skips the inside of multi-line arrays; `json_line` follows nested object keys.
Both answer with the line of the deepest part of the key they find (None when there is none):
a key that is missing points at its section.
"""

from __future__ import annotations

import datetime
import json
import re
import sys
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel, Field, ValidationError
from pydantic_core import PydanticCustomError

from evidencedesk.errors import ConfigError
from evidencedesk.files._structured import parse_toml
from evidencedesk.files._text import read_text

Loc = tuple[str | int, ...]  # a key's path: section, key, list index, nested key …


_KEY_PART = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)')


_ARRAY_HEADER = re.compile(r"^\[\[\s*([^\]]+?)\s*\]\]")


_HEADER = re.compile(r"^\[\s*([^\]]+?)\s*\]")


_ASSIGN = re.compile(r"""^((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=""")


def _keys(dotted: str) -> tuple[str, ...]:
    return tuple(a or b or c for a, b, c in _KEY_PART.findall(dotted))


def _depth_change(text: str) -> int:
    """Open minus closed brackets outside strings and comments (multi-line arrays, tables)."""
    depth, quote, i = 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        i += 1
    return depth


def _within(
    name: tuple[str, ...], arrays: dict[tuple[str | int, ...], int]
) -> tuple[str | int, ...]:
    """``[candidate.changes]`` under ``[[candidate]]`` is in the array's last table."""
    path: tuple[str | int, ...] = ()
    for depth, part in enumerate(name, start=1):
        path = (*path, part)
        if path in arrays and depth < len(name):
            path = (*path, arrays[path])
    return path


def _toml_line(text: str, loc: Loc) -> int | None:
    """The line of the longest start of `loc` that the file writes (a table header or a key)."""
    header: tuple[str | int, ...] = ()
    arrays: dict[tuple[str | int, ...], int] = {}
    best: tuple[int, int] | None = None  # (prefix length, line)
    depth = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        path: tuple[str | int, ...] | None = None
        if depth == 0:
            if match := _ARRAY_HEADER.match(line):
                name = _within(_keys(match.group(1)), arrays)
                arrays[name] = arrays.get(name, -1) + 1
                header = path = (*name, arrays[name])
            elif match := _HEADER.match(line):
                header = path = _within(_keys(match.group(1)), arrays)
            elif match := _ASSIGN.match(line):
                path = (*header, *_keys(match.group(1)))
                depth += _depth_change(line[match.end() :])
        else:
            depth = max(0, depth + _depth_change(line))
        if path and tuple(loc[: len(path)]) == path and (best is None or len(path) > best[0]):
            best = (len(path), number)
    return None if best is None else best[1]


def json_line(text: str, loc: Loc) -> int | None:
    """The line of the deepest key of `loc` found, each key searched after the one before."""
    position, line = 0, None
    for part in loc:
        if isinstance(part, int):
            continue
        found = re.compile(re.escape(json.dumps(part, ensure_ascii=False)) + r"\s*:").search(
            text, position
        )
        if found is None:
            break
        position, line = found.end(), text.count("\n", 0, found.start()) + 1
    return line


def value_line(text: str, value: object) -> int | None:
    """The first line holding `value` spelled as JSON (a question id in a list, say)."""
    needle = json.dumps(value, ensure_ascii=False)
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return None


# pydantic error types of our own: a field's "expected …" message, a rule across fields
_FIELD, _RULE = "evidencedesk_field", "evidencedesk_rule"


def expected_key(
    default: Any, expected: str, extra: dict[str, str] | None = None, **limits: Any
) -> Any:
    """A model field whose errors read ``expected <expected>, found …`` (else the type's words);
    `extra` is more metadata for the model's own validators, `limits` are `Field` limits."""
    return Field(default, json_schema_extra={**(extra or {}), "expected": expected}, **limits)


def invalid(message: str) -> PydanticCustomError:
    """A field validator's complaint, worded in full (``expected …, found …``)."""
    return PydanticCustomError(_FIELD, "{message}", {"message": message})


def rule(at: Loc, message: str) -> PydanticCustomError:
    """A model validator's complaint about how keys combine, pinned to the key at `at`."""
    return PydanticCustomError(_RULE, "{message}", {"message": message, "at": at})


def read_toml(path: Path, what: str) -> tuple[dict[str, Any], str]:
    """A TOML file's tables and its text, parsed by `evidencedesk.files._structured.parse_toml` (a
    syntax error, too deep a nesting, too long a number, NaN: one `ConfigError` with its line)."""
    text = read_text(path, ConfigError, what)
    return parse_toml(text, path, ConfigError), text


# -- how a found value is shown --------------------------------------------------------------------
_KINDS = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}


def found_toml(value: object) -> str:
    """``a string '2'``, ``an integer 3``, ``a table``: the TOML value with its kind."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):  # TOML has dates and times
        return f"a {type(value).__name__} {value.isoformat()}"
    return f"{_KINDS.get(type(value), type(value).__name__)} {value!r}"


def found_json(value: object) -> str:
    """The value as JSON would spell it: ``"high"``, ``3.5``, ``null``."""
    return json.dumps(value, ensure_ascii=False, default=str)


# -- how an error is worded ------------------------------------------------------------------------
_TYPE_WORDS = {
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
}


_ANNOTATION_WORDS = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    dict: "an object",
    list: "a list",
    tuple: "a list",
}


_BOUNDS = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}


@dataclass(frozen=True)
class Style:
    """How one kind of file names its keys.

    `label` words a key's path (``[questions].qrels``); `unknown` words an unknown key with the
    valid ones (None: ``<label>: unknown key; expected one of: …``); `root` says what the whole
    file must be; `suffix` ends every message (the baseline's "rebuild it" hint).
    """

    syntax: Literal["toml", "json"]
    label: Callable[[Loc], str]
    unknown: Callable[[Loc, Sequence[str]], str] | None = None
    root: str = "an object"
    suffix: str = ""

    def found(self, value: object) -> str:
        return found_toml(value) if self.syntax == "toml" else found_json(value)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) is not None:  # X | None, list[X], dict[str, X]
        for arg in typing.get_args(annotation):
            if (found := _model_of(arg)) is not None:
                return found
    return None


def _walk(model: type[BaseModel], loc: Loc) -> tuple[type[BaseModel] | None, Any]:
    """The model that holds the last key of `loc` (None past a plain value) and that key's field."""
    current: type[BaseModel] | None = model
    field = None
    for part in loc:
        if current is None or isinstance(part, int):
            continue
        by_alias = {(f.alias or name): f for name, f in current.model_fields.items()}
        field = by_alias.get(str(part))
        if field is None:
            return None, None
        current = _model_of(field.annotation)
    return current, field


def _parent_fields(model: type[BaseModel], loc: Loc) -> tuple[str, ...]:
    parent, _ = _walk(model, loc[:-1])
    if parent is None:
        return ()
    return tuple((f.alias or name) for name, f in parent.model_fields.items())


def _expected(field: Any, kind: str, message: str) -> str:
    extra = getattr(field, "json_schema_extra", None)
    if isinstance(extra, dict) and "expected" in extra:
        return str(extra["expected"])
    if kind == "missing" and field is not None:
        origin = typing.get_origin(field.annotation) or field.annotation
        return _ANNOTATION_WORDS.get(origin, "a value")
    return _TYPE_WORDS.get(kind) or message.removeprefix("Input should be ")


def _bounds(field: Any) -> tuple[Any, Any]:
    low = high = None
    for item in getattr(field, "metadata", ()):
        if isinstance(item, annotated_types.Ge):
            low = item.ge
        elif isinstance(item, annotated_types.Le):
            high = item.le
    return low, high


@dataclass(frozen=True)
class Source:
    """One input file being validated: its path, its text and how it names its keys."""

    path: Path
    text: str
    style: Style

    def line(self, loc: Loc) -> int | None:
        if self.style.syntax == "toml":
            return _toml_line(self.text, loc)
        return json_line(self.text, loc)

    def error(self, loc: Loc, message: str, line: int | None = None) -> ConfigError:
        """``file:line: <label of loc>: message`` (the line of `loc` unless given)."""
        label = self.style.label(loc)
        text = f"{label}: {message}" if label else message
        return ConfigError(
            self.path, text + self.style.suffix, self.line(loc) if line is None else line
        )

    def invalid(
        self, exc: ValidationError, model: type[BaseModel], prefix: Loc = ()
    ) -> ConfigError:
        """The first error of `exc` in the file (a bad key before a broken combination rule), worded.

        `model` is the model that raised it; `prefix` is where that model sits in the file.
        """
        errors = exc.errors(include_url=False)
        keys = [e for e in errors if e["type"] != _RULE] or errors

        def position(error: Any) -> int:  # the reader meets the earliest line first
            line = self.line((*prefix, *error["loc"]))
            return sys.maxsize if line is None else line

        first = min(keys, key=position)  # min keeps pydantic's order among equals
        inner: Loc = tuple(first["loc"])
        loc: Loc = (*prefix, *inner)
        kind, message, ctx = first["type"], first["msg"], first.get("ctx") or {}
        value = first.get("input")
        _, field = _walk(model, inner)
        if kind == _RULE:
            return self.error((*loc, *ctx["at"]), ctx["message"])
        if kind == _FIELD:
            return self.error(loc, ctx["message"])
        if kind == "json_invalid":
            match = re.search(r"at line (\d+)", message)
            detail = message.removeprefix("Invalid JSON: ")
            return ConfigError(
                self.path,
                f"expected valid JSON, found {detail}{self.style.suffix}",
                int(match.group(1)) if match else None,
            )
        if kind == "extra_forbidden":
            valid = _parent_fields(model, inner)
            if self.style.unknown is not None:
                return ConfigError(
                    self.path, self.style.unknown(loc, valid) + self.style.suffix, self.line(loc)
                )
            return self.error(loc, f"unknown key; expected one of: {', '.join(valid)}")
        if not loc and kind in ("model_type", "dict_type"):
            found = type(value).__name__
            return ConfigError(self.path, f"expected {self.style.root}, found {found}", None)
        if kind == "missing":
            return self.error(loc, f"expected {_expected(field, kind, message)}, found none")
        if kind in ("model_type", "dict_type") and self.style.syntax == "toml":
            return self.error(loc, f"expected a table of keys, found {self.style.found(value)}")
        if kind == "literal_error":
            choices = re.findall(r"'([^']*)'", ctx.get("expected", ""))
            return self.error(
                loc, f"expected one of: {', '.join(choices)}, found {self.style.found(value)}"
            )
        if kind in _BOUNDS:
            low, high = _bounds(field)
            extra = getattr(field, "json_schema_extra", None)
            if isinstance(extra, dict) and "expected" in extra and None not in (low, high):
                return self.error(
                    loc, f"expected {extra['expected']} from {low} to {high}, found {value}"
                )
            if None not in (low, high):  # both ends: the whole range, whichever was crossed
                return self.error(
                    loc, f"expected a value from {low} to {high}, found {self.style.found(value)}"
                )
            key, sign = _BOUNDS[kind]
            return self.error(
                loc, f"expected a value {sign} {ctx.get(key)}, found {self.style.found(value)}"
            )
        return self.error(
            loc, f"expected {_expected(field, kind, message)}, found {self.style.found(value)}"
        )


__all__ = [
    "Source",
    "Style",
    "expected_key",
    "found_json",
    "found_toml",
    "invalid",
    "read_toml",
    "rule",
]
