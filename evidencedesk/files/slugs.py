"""The one slug rule for file names made from names in the data: lower case, every run of other
characters than ``[a-z0-9]`` becomes one ``-``, no ``-`` at either end.

Two file-name contracts build on it and keep their existing names: a page of the site
(`evidencedesk.report.site.slug`: at most 64 characters and a hash of the original when the rule
changed it, so ``Foo`` and ``foo`` never share a page) and a candidate's note
(`evidencedesk.results.candidates.note_slug`: what the user names the note file, so no hash).

An 8-hex hash can be made to collide (a birthday search takes a second), and a name can be
written to equal another name's slug: `check_unique` refuses two names of one kind (variants,
questions, candidates, citation cases) whose slugs are equal, before anything is written, so
that no two of them ever share a page, an exported file or an anchor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from evidencedesk.errors import EvidencedeskError

__all__ = ["check_unique", "plain_slug"]

_UNSAFE = re.compile(r"[^a-z0-9]+")


def plain_slug(name: str) -> str:
    """`name` by the rule above (may be empty)."""
    return _UNSAFE.sub("-", name.lower()).strip("-")


def check_unique(names: Iterable[str], slug: Callable[[str], str], kind: str) -> None:
    """Refuse two different `names` with one `slug`: they would share a file or an anchor."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(slug(name), name)
        if other != name:
            raise EvidencedeskError(
                f"expected {kind} whose file and anchor names differ, found {other!r} and "
                f"{name!r}, which both become {slug(name)!r}; rename one of them"
            )
