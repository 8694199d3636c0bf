"""A built page's text as a reader sees it, for tests that look for sentences."""

from __future__ import annotations

import html
import re

CLAIM = re.compile(r'<span data-claim="[^"]*">([^<]*)</span>')  # report.claims.Said's mark


def unmarked(page: str) -> str:
    """The page's HTML with each claim's mark removed (its words kept in place)."""
    return CLAIM.sub(r"\1", page)


def visible(page: str, unescape: bool = False) -> str:
    """The page's words, one space between them; tags count as a space, claim marks as none."""
    text = re.sub(r"<[^>]+>", " ", unmarked(page))
    return " ".join((html.unescape(text) if unescape else text).split())
