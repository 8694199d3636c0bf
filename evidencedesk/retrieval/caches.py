"""The retrieval kit's memos, kept for one build: the bootstrap's resample draws (up to 768 MB),
tokenisations, word sets and token counts. `forget_all` drops them all; `results.evaluate`
calls it when an evaluation ends, so nothing a build memoised outlives it."""

from __future__ import annotations

from evidencedesk.retrieval.evidence import forget_words
from evidencedesk.retrieval.parts import forget_token_counts
from evidencedesk.retrieval.stats import forget_draws
from evidencedesk.retrieval.tokens import forget_tokens

__all__ = ["forget_all"]


def forget_all() -> None:
    """Drop every memo the retrieval kit kept in a build (draws, tokens, words, token counts)."""
    forget_draws()
    forget_tokens()
    forget_words()
    forget_token_counts()
