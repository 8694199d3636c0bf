"""The one slug rule for file names made from names in the data: lower case, every run of other
characters than ``[a-z0-9]`` becomes one ``-``, no ``-`` at either end.

Two file-name contracts build on it and keep their existing names: a page of the site
(`evidencedesk.report.site.slug`: at most 64 characters and a hash of the original when the rule
changed it, so ``Foo`` and ``foo`` never share a page) and a candidate's note
(`evidencedesk.candidates.note_slug`: what the user names the note file, so no hash).
"""

from __future__ import annotations

import re

__all__ = ["plain_slug"]

_UNSAFE = re.compile(r"[^a-z0-9]+")


def plain_slug(name: str) -> str:
    """`name` by the rule above (may be empty)."""
    return _UNSAFE.sub("-", name.lower()).strip("-")
