"""What the scope filter protects: for a candidate that filters after ranking (``prefilter =
false``), the restricted and superseded chunks that reached its candidate lists before the filter.

A risk read from the config, not from the metrics: it is stated whatever the metrics say.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidencedesk.results.inputs import marks_of
from evidencedesk.results.types import Exposure
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.parts import Parts


def exposure(parts: Parts, first_stage: str, depth: int,
             labels: Sequence[Label]) -> tuple[Exposure, ...]:  # fmt: skip
    """Each (question, chunk) where an unfiltered stage one put a marked chunk in the top
    `depth`: what the pre-filter would have kept out of the candidate list."""
    searcher = parts.first(first_stage)
    out = []
    for label in labels:
        for cand in searcher.search(label.question, depth, None):
            marks = marks_of(cand.chunk)
            if marks:
                out.append(Exposure(label.id, cand.chunk.id, marks))
    return tuple(out)
