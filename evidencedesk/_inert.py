"""Inert text outside HTML: the shell commands evidencedesk prints, and data on a terminal or a log.

`shell_command(words)` is the one way a command is printed (the site's "reproduce with …", the
hints of ``evidencedesk init``): `shlex.join`, so a folder or run name holding a space, ``;`` or
``$(…)`` stays one quoted word when the command is pasted into a shell. A word holding a control
character is written in ANSI-C quotes (``$'a\\nb'``, read by bash and zsh), so that the command
itself holds none.

`inert_json(text)` does the same for JSON printed on a terminal (``\\u009b``: still JSON).

`printable(line)` is the one way a line holding data reaches a terminal or a CI log: every
control character (C0, DEL, C1), line or paragraph separator, bidirectional control and lone
surrogate becomes a visible escape (``ESC`` -> ``\\x1b``, a newline -> ``\\n``), so that a name can
neither move the cursor, recolour the terminal, retitle it (OSC) nor start a new line; and a line
that would start with ``::`` (after blanks), which a GitHub Actions runner reads as a workflow
command, has its first colon written ``\\x3a``. Backslashes are left as they are (Windows paths
stay readable).

`visible(text)` is the one way an invisible character is shown, on a page (ids) and on a
terminal (`printable` applies it): a zero-width space, word joiner, byte-order mark, soft hyphen
or invisible operator becomes ``⟨U+200B⟩``, so that ``q001`` and ``q001`` + U+200B never look
alike; a zero-width joiner or non-joiner too, unless it follows a character outside ASCII, where
it shapes a word (Bengali, Persian, an emoji sequence) and is left as it is.

`look_alike(text)` is the form in which two ids are compared for looking alike: NFKC, without any
of those invisible characters (the shaping joiners included). Two ids with the same form but
different characters (``q001`` and ``q001`` + U+200B, ``é`` composed and decomposed, ``ｑ001``
and ``q001``) are refused where they are read (`files.trec_keys.alike_problem`).
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Iterable

__all__ = ["inert_json", "look_alike", "printable", "shell_command", "visible"]

_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_JSON_RAW = re.compile(  # what json.dumps leaves raw (it escapes C0 inside strings itself)
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
# characters that draw nothing: zero-width space, word joiner, the invisible operators, the
# byte-order mark (zero-width no-break space), soft hyphen, Mongolian vowel separator; and the
# zero-width non-joiner and joiner, which draw nothing but may shape the letters around them
_DRAW_NOTHING = "\u00ad\u180e\u200b\u2060-\u2064\ufeff"
_JOINERS = "\u200c\u200d"
_INVISIBLE = re.compile(f"[{_DRAW_NOTHING}]|(?:(?<=[\x00-\x7f])|^)[{_JOINERS}]")
_ALIKE_DROPS = re.compile(f"[{_DRAW_NOTHING}{_JOINERS}]")  # what `look_alike` leaves out
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with each invisible character shown as ``⟨U+XXXX⟩`` (see the module)."""
    if _INVISIBLE.search(text) is None:
        return text
    return _INVISIBLE.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


def look_alike(text: str) -> str:
    """The form in which `text` is compared with other ids: NFKC without invisible characters."""
    if text.isascii():
        return text
    return _ALIKE_DROPS.sub("", unicodedata.normalize("NFKC", _ALIKE_DROPS.sub("", text)))


def printable(line: str) -> str:
    """`line` with every control character escaped, every invisible one shown (`visible`) and no
    leading ``::`` (see the module)."""
    line = visible(line)
    if _CONTROL.search(line) is not None:
        line = _CONTROL.sub(_escape, line)
    body = line.lstrip()
    if body.startswith("::"):
        start = len(line) - len(body)
        line = f"{line[:start]}\\x3a{line[start + 1 :]}"
    return line


def inert_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the control characters that
    JSON leaves raw (DEL, C1, separators, bidirectional controls) written as ``\\uXXXX``: the
    same JSON, inert on a terminal. (They can only stand inside strings, where the escape is
    valid; JSON escapes C0 itself.)"""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _word(word: str) -> str:
    if _CONTROL.search(word) is None:
        return shlex.quote(word)
    inner = re.sub(r"[\\']", lambda m: "\\" + m.group(), word)
    return "$'" + _CONTROL.sub(_escape, inner) + "'"


def shell_command(words: Iterable[str]) -> str:
    """`words` as one line a POSIX shell reads back as exactly those words (see the module)."""
    return " ".join(_word(str(word)) for word in words)
