"""Typed claims: every statement the site makes about a number, and where it comes from.

A `Claim` names its kind, the place in results.json it reads (`source`: a path such as
``candidates[2].comparisons[0]``), the metric it is about (its name and full label: no claim of
a metric has a default label), and the words it says. The words are made by `report.words` from
the Results alone, so the same function run on a results.json read back (`evidencedesk audit`)
says the same words: a sentence on a page that no claim backs, or a claim whose words the Results
no longer give, is a disagreement.

Pages collect their claims in a `Claims` book (`say` records the claim and returns its words
as `Said`); the site writes them to ``claims.json`` beside results.json, page by page. A `Said`
placed in a template marks itself: ``<span data-claim="index.html 3">…</span>``, claim 3 of the
index page's claims, so the audit reads each claim where the page shows it (a table cell holding another cell's
flips is a disagreement, not a match somewhere on the page). In an attribute a template writes
it through the ``plain`` filter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markupsafe import escape

from evidencedesk.report._words import derive
from evidencedesk.results.types import Results

__all__ = ["Claim", "Claims", "Said"]


class Said(str):
    """A claim's words, with the page that recorded it and its number there; rendered by Jinja
    as a marked span (the same words may be shown on other pages too)."""

    page: str
    claim: int

    def __new__(cls, text: str, page: str, claim: int) -> Said:
        said = super().__new__(cls, text)
        said.page, said.claim = page, claim
        return said

    def __html__(self) -> str:
        return f'<span data-claim="{escape(self.page)} {self.claim}">{escape(str(self))}</span>'

    def __reduce__(self) -> tuple[Any, ...]:
        return Said, (str(self), self.page, self.claim)


@dataclass(frozen=True)
class Claim:
    """One sentence a page says about a number: its kind, the results.json path it reads, words."""

    kind: str  # one of words.KINDS
    source: str  # the results.json path it reads ("" for the whole Results)
    text: str
    args: tuple[tuple[str, Any], ...] = ()  # what else the words need (a metric's name, a k)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "text": self.text,
                "args": {k: v for k, v in self.args}}  # fmt: skip


@dataclass
class Claims:
    """The claims of one build, by page: `say` words a claim and records it."""

    results: Results
    pages: dict[str, list[Claim]] = field(default_factory=dict)

    def say(self, page: str, kind: str, source: str, **args: Any) -> str:
        text = derive(self.results, kind, source, args)
        found = self.pages.setdefault(page, [])
        found.append(Claim(kind, source, text, tuple(sorted(args.items()))))
        return Said(text, page, len(found) - 1) if text else text

    def on(self, page: str) -> Callable[..., str]:
        """`say` for one page: ``say = claims.on("index.html"); say("verdict", "candidates[0]")``."""
        return lambda kind, source, **args: self.say(page, kind, source, **args)

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        return {page: [c.to_dict() for c in found] for page, found in sorted(self.pages.items())}
