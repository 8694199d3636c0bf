"""Typed claims: every statement the site makes about a number, and where it comes from.

A `Claim` names its kind, the place in results.json it reads (`source`: a path such as
``candidates[2].comparisons[0]``), the metric it is about (its name and full label: no claim of
a metric has a default label), and the words it says. The words are made by `report.words` from
the Results alone, so the same function run on a results.json read back (`evidencedesk audit`)
says the same words: a sentence on a page that no claim backs, or a claim whose words the Results
no longer give, is a disagreement.

Pages collect their claims in a `Claims` book (`say` returns the words and records the claim);
the site writes them to ``claims.json`` beside results.json, page by page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evidencedesk.results.types import Results

__all__ = ["Claim", "Claims", "resolve"]


@dataclass(frozen=True)
class Claim:
    kind: str  # one of words.KINDS
    source: str  # the results.json path it reads ("" for the whole Results)
    text: str
    args: tuple[tuple[str, Any], ...] = ()  # what else the words need (a metric's name, a k)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "text": self.text,
                "args": {k: v for k, v in self.args}}  # fmt: skip


_STEP = re.compile(r"([a-z_]+)((?:\[\d+\])*)")


def resolve(results: Results, source: str) -> Any:
    """The object at `source` (``candidates[2].comparisons[0]``) in `results`; `source` ""
    is the Results themselves. Raises LookupError for a path the Results do not have."""
    node: Any = results
    if not source:
        return node
    for step in source.split("."):
        match = _STEP.fullmatch(step)
        if match is None or not hasattr(node, match[1]):
            raise LookupError(f"no {step!r} in results.json at {source!r}")
        node = getattr(node, match[1])
        for index in re.findall(r"\[(\d+)\]", match[2]):
            if not isinstance(node, tuple | list) or int(index) >= len(node):
                raise LookupError(f"no [{index}] in results.json at {source!r}")
            node = node[int(index)]
    return node


@dataclass
class Claims:
    """The claims of one build, by page: `say` words a claim and records it."""

    results: Results
    pages: dict[str, list[Claim]] = field(default_factory=dict)

    def say(self, page: str, kind: str, source: str, **args: Any) -> str:
        from evidencedesk.report.words import derive

        text = derive(self.results, kind, source, args)
        self.pages.setdefault(page, []).append(Claim(kind, source, text, tuple(sorted(args.items()))))
        return text

    def on(self, page: str) -> Callable[..., str]:
        """`say` for one page: ``say = claims.on("index.html"); say("verdict", "candidates[0]")``."""
        return lambda kind, source, **args: self.say(page, kind, source, **args)

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        return {page: [c.to_dict() for c in found] for page, found in sorted(self.pages.items())}
