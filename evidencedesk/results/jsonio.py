"""results.json: the whole `Results` as JSON, and back.

Written with sorted keys, two-space indent (compact, with no spaces, above `PAGE_LIMIT`
questions, where the indent alone is half the file), UTF-8 and Python's shortest round-trip float
text (``repr``), so the same Results give the same bytes and loading gives the same numbers exactly.
Reading decodes field by field from the dataclasses' type hints; a file that does not match
raises `ResultsFileError` naming the field.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from pathlib import Path
from typing import Any

from evidencedesk.errors import InputError
from evidencedesk.results.pages import PAGE_LIMIT
from evidencedesk.results.types import SCHEMA_VERSION, CandidateResult, Results
from evidencedesk.textfile import read_text


class ResultsFileError(InputError):
    """A results.json that cannot be read back as Results."""


# Fields added to schema 1 after it was first written: a file from an earlier build may lack
# them and reads as the field's default (so a previous report still loads); every other field
# must be present.
ADDED: dict[type, frozenset[str]] = {CandidateResult: frozenset({"lists", "lists_of"})}


def plain(value: Any) -> Any:
    """JSON-ready data of a Results (or any part of one)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected a finite number in the results, found {value!r}")
    return value


def dumps(results: Results) -> str:
    data = plain(results)
    if len(results.inputs.questions) > PAGE_LIMIT:
        text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False,
                          allow_nan=False)  # fmt: skip
        return text + "\n"
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def write(results: Results, path: Path) -> None:
    path.write_bytes(dumps(results).encode("utf-8"))


def _fail(where: str, expected: str, found: Any) -> ResultsFileError:
    shown = json.dumps(found, ensure_ascii=False)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return ResultsFileError(
        None, f"key {where.lstrip('.') or '(top)'}: expected {expected}, found {shown}"
    )


_HINTS: dict[type, dict[str, Any]] = {}


def _decode(tp: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return data
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, data, where)
            except ResultsFileError as exc:
                errors.append(exc)
        raise errors[0]
    if origin is typing.Literal:
        if data not in typing.get_args(tp):
            raise _fail(where, f"one of {typing.get_args(tp)}", data)
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise _fail(where, "a list", data)
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise _fail(where, f"a list of {len(args)}", data)
        return tuple(
            _decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        if not isinstance(data, dict):
            raise _fail(where, "an object", data)
        _, value_type = typing.get_args(tp)
        return {k: _decode(value_type, v, f"{where}.{k}") for k, v in data.items()}
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise _fail(where, "an object", data)
        assert isinstance(tp, type)  # noqa: S101 - a dataclass type, not an instance
        hints = _HINTS.setdefault(tp, typing.get_type_hints(tp))
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name not in data:
                if f.name in ADDED.get(tp, ()):
                    continue
                raise _fail(f"{where}.{f.name}", "a value", None)
            kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
        extra = sorted(set(data) - set(kwargs))
        if extra:
            raise _fail(f"{where}.{extra[0]}", "no such key", data[extra[0]])
        return tp(**kwargs)
    if tp is float:
        # ints stay ints: written back, they give the same bytes
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise _fail(where, "a number", data)
        return data
    if tp in (int, str, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise _fail(where, f"a {tp.__name__}", data)
        return data
    raise _fail(where, f"a value of type {tp}", data)


def loads(text: str) -> Results:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(None, f"expected JSON, found {exc.msg}", exc.lineno) from None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        found = data.get("schema_version") if isinstance(data, dict) else data
        raise _fail("schema_version", str(SCHEMA_VERSION), found)
    return _decode(Results, data, "")


def load(path: Path) -> Results:
    try:
        return loads(read_text(path, ResultsFileError, "results.json"))
    except ResultsFileError as exc:
        if exc.path is not None:
            raise
        raise ResultsFileError(path, exc.detail, exc.line) from None
