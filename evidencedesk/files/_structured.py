"""JSON and TOML inputs: the one entry point that parses them, bounded and strict.

Every loader of a JSON, JSON-lines or TOML input parses through `parse_json` or `parse_toml`
(`read_json`: a file's text through `evidencedesk.files._text.read_text`, then `parse_json`), which
refuse with one error naming the file and the line (a JSON-lines reader passes the line):

- nesting deeper than `limits.MAX_DEPTH` arrays and objects (tables) — Python's parsers would
  end in a RecursionError;
- a number of more than `limits.MAX_DIGITS` digits — Python refuses an integer of more than
  4,300 digits with a ValueError, and no input needs more than 20;
- a key written twice in one JSON object (the TOML parser refuses it already) — Python keeps the
  last value silently;
- ``NaN``, ``Infinity`` and numbers too large to be finite (``1e400``; TOML's ``nan`` and
  ``inf``), which compare false with everything and would pass every threshold;
- a lone surrogate (``"\\ud800"``), which no UTF-8 file can hold and which fails later, when the
  text is written.

`gunzip` bounds what a ``.gz`` input may expand to (`limits.max_expanded_bytes`) and turns a
corrupt or cut-short stream into the same kind of one-line error.

The checks cost two `bytes.translate` passes over the text and a numpy count of its brackets
outside strings; finding the line of a problem re-reads the text token by token, which only a
refused file (or one that looks like it) pays.
"""

from __future__ import annotations

import json
import re
import tomllib
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evidencedesk.errors import InputError
from evidencedesk.files._text import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_GZIP_RATIO,
    SHOWN_CHARS,
    max_expanded_bytes,
    read_text,
    shown,
)

__all__ = ["gunzip", "parse_json", "parse_json_lines", "parse_toml", "read_json"]

_JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRING = re.compile(_JSON_STRING)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")
_TOML_SKIP = (
    r'"""(?:[^\\]|\\[\s\S])*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*'
)
_TOML_NUMBER = (
    f"(?<![\\w.])(?:[0-9](?:_?[0-9]){{{MAX_DIGITS},}}"
    f"|0[xob]_?[0-9a-fA-F](?:_?[0-9a-fA-F]){{{MAX_DIGITS},}})"
)
_TOML_AT = re.compile(r"\(at line (\d+), column \d+\)|\(at end of document\)")


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}…"


class _Duplicate(Exception):
    pass


class _NotFinite(Exception):
    def __init__(self, token: str):
        super().__init__(token)
        self.token = token


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Duplicate
    return found


def _constant(token: str) -> float:
    raise _NotFinite(token)


def _finite(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise _NotFinite(token)
    return value


# one decoder each, made once: `json.loads` with a hook makes a new decoder every call, a fifth
# of the time a JSON-lines file of short lines takes to parse
_DECODE = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant).decode
_DECODE_FINITE = json.JSONDecoder(
    object_pairs_hook=_object, parse_constant=_constant, parse_float=_finite
).decode


def _decoded(text: str, large: bool) -> Any:
    """`json.loads(text)` with the module's hooks; `large`: a number may be too large to be
    finite (1e400 and up), so each float is checked as it is parsed."""
    if text.startswith("\ufeff"):  # json.loads refuses a byte-order mark in its own words
        return json.loads(text)
    return (_DECODE_FINITE if large else _DECODE)(text)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _tokens(text: str, skip: str, pattern: str) -> Iterator[re.Match[str]]:
    """Matches of `pattern` (group ``hit``) outside what `skip` matches (strings, comments)."""
    for match in re.finditer(f"{skip}|(?P<hit>{pattern})", text):
        if match.group("hit") is not None:
            yield match


def _too_deep(text: str, skip: str) -> int | None:
    """The offset of the first bracket nested deeper than `MAX_DEPTH`, or None."""
    depth = 0
    for match in _tokens(text, skip, r"[\[\]{}]"):
        if match.group("hit") in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        else:
            depth -= 1
    return None


def _table(keep: dict[bytes, bytes]) -> bytes:
    """A `bytes.translate` table: each byte of a key to its value, every other byte to a blank."""
    table = bytearray(b" " * 256)
    for chars, into in keep.items():
        for char in chars:
            table[char] = into[0]
    return bytes(table)


_NUMBERS = _table({b"0123456789": b"0", b"eE": b"e", b"+": b"+"})
_STRUCTURE = bytes(c for c in range(256) if c not in b'"[]{}')  # deleted: all but these


def _nesting(data: bytes) -> int:
    """How deep the JSON `data` nests, strings left out (with numpy: a large file has millions
    of brackets and strings)."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return 0
    import numpy as np

    # an escaped quote is not the end of a string (escapes pair from the left: a pair of
    # backslashes is one escape, so those go first)
    if b"\\\\" in data:
        data = data.replace(b"\\\\", b"")
    if b'\\"' in data:
        data = data.replace(b'\\"', b"")
    codes = np.frombuffer(data.translate(None, _STRUCTURE), dtype=np.uint8)
    quote = codes == ord('"')
    inside = np.bitwise_xor.accumulate(quote.view(np.uint8)).view(bool)  # after an odd count
    outside = ~inside & ~quote
    steps = ((codes == ord("[")) | (codes == ord("{"))).astype(np.int32)
    steps -= ((codes == ord("]")) | (codes == ord("}"))).astype(np.int32)
    return int(np.cumsum(steps[outside]).max(initial=0))


def _structure_problem(text: str, numbers: bytes, data: bytes) -> tuple[int, str] | None:
    """(offset, message) of too deep a nesting or too long a number, or None; `numbers` is
    the text's bytes with digits as 0 (strings included: a hit is checked token by token)."""
    if _nesting(data) > MAX_DEPTH:
        at = _too_deep(text, _JSON_STRING)
        return (at or 0), f"expected JSON nested at most {MAX_DEPTH} levels deep, found deeper"
    if b"0" * (MAX_DIGITS + 1) in numbers:
        for match in _tokens(text, _JSON_STRING, "[0-9]+"):
            digits = match.group()
            if len(digits) > MAX_DIGITS:
                return match.start(), (
                    f"expected numbers of at most {MAX_DIGITS} digits, found one of "
                    f"{len(digits)} digits ({_cut(digits)})"
                )
    return None


def _duplicate(text: str) -> tuple[int, str, int]:
    """(offset, the key as shown, line of its first use) of the first key written twice:
    ``"a" twice in "grades"`` (the key of the object holding it, when it has one)."""
    stack: list[tuple[dict[str, int], str | None] | None] = []
    last_key: str | None = None
    pattern = f"(?P<string>{_JSON_STRING})(?P<colon>\\s*:)?|(?P<bracket>[\\[\\]{{}}])"
    for match in re.finditer(pattern, text):
        bracket = match.group("bracket")
        if bracket == "{":
            stack.append(({}, last_key))
        elif bracket == "[":
            stack.append(None)
        elif bracket:
            if stack:
                stack.pop()
        elif match.group("colon") and stack and stack[-1] is not None:
            keys, parent = stack[-1]
            key = json.loads(match.group("string"))
            if key in keys:
                shown = f"{_cut(json.dumps(key, ensure_ascii=False))} twice"
                if parent is not None:
                    shown += f" in {_cut(json.dumps(parent, ensure_ascii=False))}"
                return match.start(), shown, _line(text, keys[key])
            keys[key] = match.start()
            last_key = key
    return 0, "a key twice", 1


def _surrogate(text: str, data: bytes) -> tuple[int, str] | None:
    """(offset, escape) of the first string holding a lone surrogate, or None; `data` is the
    text's bytes (a surrogate, passed through, starts with 0xED)."""
    raw = _RAW_SURROGATE.search(text) if b"\xed" in data else None
    if raw is not None:
        return raw.start(), f"\\u{ord(raw.group()):04x}"
    if "\\u" not in text or _SURROGATE_ESCAPE.search(text) is None:
        return None
    for match in _STRING.finditer(text):
        token = match.group()
        if "\\u" not in token:
            continue
        try:
            json.loads(token).encode("utf-8")
        except UnicodeEncodeError:
            escape = _SURROGATE_ESCAPE.search(token)
            return match.start(), escape.group() if escape else token[:8]
        except ValueError:
            continue
    return None


# the key a value follows directly (``"max_drop": NaN``, ``max_drop = nan``), at the end of the
# text before the value: a value inside an array has none
_JSON_KEY = re.compile(r'("(?:[^"\\\n]|\\.){1,200}")\s*:\s*\Z')
# the key a value follows: at a line's start, or inside an inline table (``{ depth = nan }``)
_TOML_KEY = re.compile(
    r'(?m)(?:^|[{,])[ \t]*([A-Za-z0-9_.-]{1,200}|"[^"\n]{1,200}")[ \t]*=[ \t]*\Z'
)


def _key_before(text: str, offset: int, pattern: re.Pattern[str]) -> str:
    """``key 'name': `` for the key the value at `offset` follows directly, else nothing."""
    hit = pattern.search(text[max(0, offset - 400) : offset])
    if hit is None:
        return ""
    name = hit.group(1)
    if name.startswith('"'):
        try:
            name = json.loads(name)
        except ValueError:
            name = name.strip('"')
    return f"key {shown(name)}: "


def parse_json(
    text: str,
    path: str | Path | None,
    error: type[InputError],
    line: int | None = None,
    expected: str = "JSON",
) -> Any:
    """The value of the JSON `text`, checked as the module says; `line` is the line of a JSON
    lines file that `text` is (every error names it), `expected` words a syntax error
    (``expected <expected>, found invalid JSON (…)``)."""

    def fail(message: str, offset: int | None = None, at: int | None = None) -> InputError:
        if line is not None:
            at = line
        elif at is None and offset is not None:
            at = _line(text, offset)
        return error(path, message, at)

    data = text.encode("utf-8", "surrogatepass")
    numbers = data.translate(_NUMBERS)  # one pass of C over the bytes finds what may be wrong
    problem = _structure_problem(text, numbers, data)
    if problem is not None:
        raise fail(problem[1], problem[0])
    try:
        value = _decoded(text, b"e000" in numbers or b"e+000" in numbers)
    except json.JSONDecodeError as exc:
        raise fail(f"expected {expected}, found invalid JSON ({exc.msg})", at=exc.lineno) from None
    except _Duplicate:
        offset, key, first = _duplicate(text)
        again = (
            "" if line is not None or first == _line(text, offset) else f" (first on line {first})"
        )
        raise fail(f"expected each key once per object, found {key}{again}", offset) from None
    except _NotFinite as exc:
        found = next(_tokens(text, _JSON_STRING, rf"(?<![\w.+-]){re.escape(exc.token)}(?![\w.])"),
                     None)  # fmt: skip
        key = _key_before(text, found.start(), _JSON_KEY) if found else ""
        raise fail(f"{key}expected finite numbers, found {_cut(exc.token)}",
                   found.start() if found else None) from None  # fmt: skip
    except (RecursionError, ValueError) as exc:  # guards: the checks above come first
        raise fail(f"expected {expected}, found {_cut(str(exc))}") from None
    lone = _surrogate(text, data)
    if lone is not None:
        raise fail(f"expected UTF-8 text, found a lone surrogate {lone[1]}", lone[0])
    return value


def parse_json_lines(
    texts: Sequence[str],
    path: str | Path | None,
    error: type[InputError],
    lines: Sequence[int],
    expected: str = "JSON",
) -> Iterator[Any]:
    """The value of each of `texts` (the lines `lines` of a JSON-lines file), one at a time, as
    `parse_json` gives it: the same values, and at the first line it refuses the same error,
    raised when that line's value is asked for (the lines before it are handed out first).

    The checks run once over the lines joined, not once a line: where they find nothing, no
    line can hold a problem unless a line before it is not JSON, and that line is refused
    first. Where they find something (or a line holds a surrogate's escape), each line is
    checked on its own."""
    joined = "\n".join(texts)
    data = joined.encode("utf-8", "surrogatepass")
    numbers = data.translate(_NUMBERS)
    clean = (
        _structure_problem(joined, numbers, data) is None
        and not (b"\xed" in data and _RAW_SURROGATE.search(joined))  # a raw surrogate
        and not ("\\u" in joined and _SURROGATE_ESCAPE.search(joined))
    )
    large = b"e000" in numbers or b"e+000" in numbers
    for text, line in zip(texts, lines, strict=True):
        if clean:
            try:
                yield _decoded(text, large)
                continue
            except (_Duplicate, _NotFinite, RecursionError, ValueError):
                pass  # refused below, in parse_json's words
        yield parse_json(text, path, error, line, expected)


def read_json(
    path: str | Path, error: type[InputError], what: str = "file", expected: str = "JSON"
) -> tuple[Any, str]:
    """The value of the JSON file `path` and its text (`read_text`, then `parse_json`)."""
    text = read_text(path, error, what)
    return parse_json(text, path, error, expected=expected), text


def _toml_float(token: str) -> float:
    value = float(token)
    if value != value or value in (float("inf"), float("-inf")):
        raise _NotFinite(token)
    return value


def parse_toml(text: str, path: str | Path, error: type[InputError]) -> dict[str, Any]:
    """The tables of the TOML `text`, checked as the module says (TOML refuses a key written
    twice itself); a syntax error is ``expected valid TOML, found a syntax error (…)``."""
    deep = _too_deep(text, _TOML_SKIP) if text.count("[") + text.count("{") > MAX_DEPTH else None
    if deep is not None:
        raise error(path, f"expected TOML nested at most {MAX_DEPTH} levels deep, found deeper",
                    _line(text, deep))  # fmt: skip
    long = next(_tokens(text, _TOML_SKIP, _TOML_NUMBER), None)
    if long is not None:
        digits = long.group("hit")
        raise error(path, f"expected numbers of at most {MAX_DIGITS} digits, found one of "
                    f"{len(re.sub('^0[xob]|_', '', digits))} digits ({_cut(digits)})",
                    _line(text, long.start()))  # fmt: skip
    try:
        return tomllib.loads(text, parse_float=_toml_float)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_AT.search(str(exc))
        reason, line = _TOML_AT.sub("", str(exc)).strip(), None
        if match and match.group(1):
            line = int(match.group(1))
        elif match:  # a file cut short: what is missing is missed at its last line
            reason, line = f"{reason}, at the end of the file", max(len(text.splitlines()), 1)
        raise error(path, f"expected valid TOML, found a syntax error ({reason})", line) from None
    except _NotFinite as exc:
        token = rf"(?<![\w.+-]){re.escape(exc.token)}(?![\w.])(?!\s*=)"
        found = next(_tokens(text, _TOML_SKIP, token), None)
        key = _key_before(text, found.start(), _TOML_KEY) if found else ""
        raise error(path, f"{key}expected finite numbers, found {_cut(exc.token)}",
                    _line(text, found.start()) if found else None) from None  # fmt: skip
    except (RecursionError, ValueError) as exc:  # guards: the checks above come first
        raise error(path, f"expected valid TOML, found {_cut(str(exc))}") from None


def gunzip(data: bytes, path: str | Path | None, error: type[InputError], what: str) -> bytes:
    """The bytes of the gzip stream `data`, expanded at most to `limits.max_expanded_bytes`."""
    limit = max_expanded_bytes(len(data))
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise error(
            path, f"expected a gzip-compressed {what}, found corrupt data ({exc})"
        ) from None
    if len(out) > limit:
        raise error(
            path,
            f"expected a gzip-compressed {what} that expands to at most {limit >> 20} MB "
            f"({MAX_GZIP_RATIO} times its size, within the per-file limit), found more",
        )
    if not inflater.eof:
        raise error(path, f"expected a complete gzip-compressed {what}, found one cut short")
    if inflater.unused_data:
        raise error(
            path,
            f"expected one gzip stream in the {what}, found {len(inflater.unused_data)} more "
            "bytes after it",
        )
    return out
