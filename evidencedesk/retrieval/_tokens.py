"""Unicode-aware word tokens.

A token is a run of letters, digits and combining marks, so a Bangla word keeps its vowel signs
(category Mc/Mn) and stays whole. Hyphens or dots between alphanumerics are kept, so identifiers
such as ``RD2-24`` are one token and match exactly. Text is case-folded.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

from evidencedesk.retrieval._memos import memo


def _mark_ranges() -> str:
    """A character-class body of every combining mark in the Basic Multilingual Plane."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x300, 0x10000):
        if unicodedata.category(chr(code)).startswith("M"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(
        f"{re.escape(chr(a))}-{re.escape(chr(b))}" if a != b else re.escape(chr(a))
        for a, b in ranges
    )


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """A token: a word (a letter or digit, then letters, digits and combining marks), and words
    joined by `-` or `.` stay one ("rd2-24", "v1.2"). Made when first used: listing the marks
    takes 30 ms, which a build that tokenizes nothing (a runs-only project) need not spend."""
    word = rf"[^\W_][\w{_mark_ranges()}]*"
    return re.compile(rf"{word}(?:[-.]{word})*")


NUMBER = re.compile(r"\d+(?:[.,]\d+)?")  # a number, with one decimal point or comma
# a token that is an identifier (a part or batch code): letters and digits mixed
_IDENTIFIER = re.compile(
    r"^(?=.*\d)(?=.*[^\W\d_])[\w]+(?:-[\w]+)+$|^(?=.*\d)(?=.*[a-z])[a-z0-9]{3,}$"
)

# English function words left out of content words
STOPWORDS = frozenset(
    """a an and are as at be by can do does for from has have how i if in is it its my of on or
    our so that the their there this to was what when where which who why will with you your""".split()
)


_KEEP = 1 << 17  # tokenisations a build keeps: every chunk's index text of 20,000 chunks, and more


def _tokens_cached(text: str) -> tuple[str, ...]:
    """The tokens of `text`, kept for the build (`memos.memo`)."""
    kept: dict[str, tuple[str, ...]] = memo("tokens", dict)
    found = kept.get(text)
    if found is None:
        if len(kept) >= _KEEP:
            kept.clear()  # a crude bound on memory; tokens do not depend on it
        words = _token_pattern().findall(unicodedata.normalize("NFC", text).casefold())
        found = kept[text] = tuple(sys.intern(t) for t in words)
    return found


def tokenize(text: str) -> list[str]:
    """Case-folded Unicode tokens (identifiers like ``rd2-24`` kept whole)."""
    return list(_tokens_cached(text))


def content_words(text: str) -> list[str]:
    """Tokens without English stop words (used by overlap features, not by BM25)."""
    return [t for t in _tokens_cached(text) if t not in STOPWORDS]


def is_identifier(token: str) -> bool:
    """A token that mixes letters and digits (``rd2-24``, ``x7``): a code, not a word."""
    return bool(_IDENTIFIER.match(token))
