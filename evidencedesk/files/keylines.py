"""Where a key is written in a TOML or JSON file, for error messages that name its line.

`toml_line` follows tables, dotted keys, arrays of tables (``[[candidate]]`` #n) and their
sub-tables, and skips the inside of multi-line arrays; `json_line` follows nested object keys.
Both answer with the line of the deepest part of the key they find (None when there is none):
a key that is missing points at its section.
"""

from __future__ import annotations

import json
import re

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


def toml_line(text: str, loc: Loc) -> int | None:
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
