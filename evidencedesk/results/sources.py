"""Places in results.json: a claim's `source` path (``candidates[2].comparisons[0]``) and the
object it names in a Results."""

from __future__ import annotations

import re
from typing import Any

from evidencedesk.results.types import Results

__all__ = ["resolve"]

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
