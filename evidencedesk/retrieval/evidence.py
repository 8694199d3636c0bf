"""Evidence hygiene (SPEC §6): what reaches the prompt, and whether the answer survives.

- `dedupe`: near-duplicates merge; chunks with the same words but different numbers are
  different claims and are *held back* as a pair (both stay).
- `edges_first`: strongest chunks at the edges of the context (models read edges best).
- `context_tokens` / `fit_tokens`: a documented token estimate and a budget cut.
- `pick_spans` / `keeps_evidence` / `_compress`: keep the best sentence per chunk and check
  that the answer survived.
- Citation checks live in `citations` and are re-exported here."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval._citations import (
    check_sentences,
    citation_scores,
    numbers,
)
from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._tokens import NUMBER, content_words, is_identifier
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.searchers import Hit

__all__ = [
    "context_tokens",
    "dedupe",
    "edges_first",
    "fit_tokens",
    "keeps_evidence",
    "pick_spans",
    "check_sentences",
    "citation_scores",
]

# the content-word overlap (Jaccard) from which two chunk texts are near-duplicates
_DEDUPE_THRESHOLD = 0.8
_TOKENS_PER_WORD = 1.3  # estimated prompt tokens per whitespace-separated word
_CHARS_PER_TOKEN = 4  # estimated characters per prompt token


def _chunk(item: Any) -> Chunk:
    return item.chunk if isinstance(item, Hit) else item


def _facts(text: str) -> frozenset[str]:
    """Numbers and identifiers (``rd2-24``): the tokens a claim hangs on."""
    return numbers(text) | frozenset(w for w in content_words(text) if is_identifier(w))


_KEEP_WORDS = (
    1 << 16
)  # word sets a build keeps (dedupe asks about the same chunks for every question)


def _words_without_numbers(text: str) -> frozenset[str]:
    """The content words of `text` without its numbers, kept for the build (`memos.memo`)."""
    kept: dict[str, frozenset[str]] = memo("word sets", dict)
    found = kept.get(text)
    if found is None:
        if len(kept) >= _KEEP_WORDS:
            kept.clear()  # a crude bound on memory; the sets do not depend on it
        found = kept[text] = frozenset(content_words(NUMBER.sub(" ", text)))
    return found


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    both = len(a & b)
    either = len(a) + len(b) - both  # len(a | b), without building the union
    return both / either if either else 1.0


@dataclass(frozen=True)
class _Dedupe:
    """`kept` in original order; `merged` {kept id: merged ids}; `held_back` (id, id) pairs."""

    kept: tuple[Any, ...]
    merged: dict[str, tuple[str, ...]]
    held_back: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kept": [_chunk(k).id for k in self.kept],
            "merged": {k: list(v) for k, v in self.merged.items()},
            "held_back": [list(p) for p in self.held_back],
        }


def dedupe(found: Sequence[Hit | Chunk], threshold: float = _DEDUPE_THRESHOLD) -> _Dedupe:
    """Merge near-duplicates; hold back same-words-different-numbers pairs.

    Two chunk texts are *similar* when the Jaccard overlap of their content words, numbers
    removed, is at least `threshold` (0.8). Similar with identical numbers: a near-duplicate,
    merged into the earlier (better-ranked) one. Similar with different numbers: the same sentence
    making a different claim (30 days vs 14 days) — both are kept and the pair is *held back* for
    a human, since silently dropping either would pick a winner. Titles are not compared.
    """
    kept: list[Any] = []
    merged: dict[str, list[str]] = {}
    held: list[tuple[str, str]] = []
    seen: list[tuple[str, frozenset[str], frozenset[str]]] = []
    for item in found:
        chunk = _chunk(item)
        words, nums = _words_without_numbers(chunk.text), numbers(chunk.text)
        similar = [(cid, n) for cid, w, n in seen if _jaccard(words, w) >= threshold]
        same = next((cid for cid, n in similar if n == nums), None)
        if same is not None:
            merged.setdefault(same, []).append(chunk.id)
            continue
        held.extend((cid, chunk.id) for cid, _ in similar)
        kept.append(item)
        seen.append((chunk.id, words, nums))
    return _Dedupe(tuple(kept), {k: tuple(v) for k, v in merged.items()}, tuple(held))


def edges_first(chunks: Sequence[Any]) -> list[Any]:
    """Strongest at the edges: odd ranks fill from the front, even ranks from the back.

    Ranks 1,2,3,4 -> reading order 1,3,4,2; ranks 1..5 -> 1,3,5,4,2.
    """
    items = list(chunks)
    return items[0::2] + items[1::2][::-1]


def _text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Hit):
        return item.chunk.text
    text: str = item.text
    return text


def context_tokens(chunks: Sequence[Any]) -> int:
    """Estimated prompt tokens of the texts (chunks, candidates, spans or strings).

    Per piece: the larger of ``ceil(1.3 x whitespace words)`` (the usual rule of thumb for
    English prose, ~0.75 words per BPE token) and ``ceil(characters / 4)`` (catches dense text:
    tables, codes, long words). Bangla text counts like any other (its words are whitespace
    separated), but real tokenizers spend more tokens per Bangla word than this, so for Bangla
    it is an underestimate. Relative comparisons (before/after compression) are what it is for.
    """
    total = 0
    for item in chunks:
        text = _text(item)
        by_words = math.ceil(_TOKENS_PER_WORD * len(text.split()))
        by_chars = math.ceil(len(text) / _CHARS_PER_TOKEN)
        total += max(by_words, by_chars)
    return total


class _Fit(NamedTuple):
    """What a token budget keeps (a prefix) and what it drops (the rest, in order)."""

    kept: tuple[Any, ...]
    dropped: tuple[Any, ...]


def fit_tokens(chunks: Sequence[Any], budget: int) -> _Fit:
    """The longest prefix of `chunks` whose `context_tokens` fits in `budget`, and the rest.

    A pair, so ``fit_tokens(chunks, budget)[0]`` (or ``.kept``) is the prefix. It stops at the
    first piece that does not fit, even if a later, shorter one would: the order is the ranking.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget: expected an integer >= 0, found {budget!r}")
    items = tuple(chunks)
    used = 0
    for n, item in enumerate(items):
        used += context_tokens([item])
        if used > budget:
            return _Fit(items[:n], items[n:])
    return _Fit(items, ())


_SENTENCE_END = re.compile(r"(?<=[.!?।])\s+|\n+")


@dataclass(frozen=True)
class _Span:
    """The sentence picked from one chunk: index, text, question-word overlap, chunk's `_facts`."""

    chunk_id: str
    text: str
    sentence: int
    overlap: int
    chunk_facts: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "text": self.text,
            "sentence": self.sentence,
            "overlap": self.overlap,
            "chunk_facts": sorted(self.chunk_facts),
        }


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    parts = [p for p in parts if p and not p.lstrip().startswith("#")]  # headings are not spans
    return parts or [text.strip()]


def pick_spans(question: str, chunks: Sequence[Any]) -> list[_Span]:
    """The best sentence of each chunk: most distinct question content words; ties -> earliest.

    Sentences end at ``. ! ? ।`` (Bangla dari) followed by space, or at a line break (so each
    table row is a sentence). Markdown heading lines are never picked.
    """
    q_words = set(content_words(question))
    spans: list[_Span] = []
    for item in chunks:
        chunk = _chunk(item)
        sentences = _sentences(chunk.text)
        best = (-1, 0, "")
        for i, sentence in enumerate(sentences):
            hit = len(q_words & set(content_words(sentence)))
            if hit > best[0]:
                best = (hit, i, sentence)
        spans.append(
            _Span(chunk.id, best[2], best[1], max(best[0], 0), _facts(" ".join(sentences)))
        )
    return spans


def keeps_evidence(label: Label, spans: Sequence[_Span]) -> bool:
    """True when some grade-2 chunk of `label` kept its facts in its span.

    Rule (simple and conservative): the answer survives when at least one grade-2 chunk has a
    span, and that span contains **every number and identifier** (`_facts`) of the chunk's
    sentences (headings excluded). A chunk without any number or identifier survives if it has a
    span at all. Limits: a table or a chunk listing several numbers usually counts as cut even
    when the sentence with the answer survived (over-reports cuts); a number-free answer sentence
    can be lost without being noticed (under-reports). An unanswerable label has nothing to
    lose: True.
    """
    if not label.relevant:
        return True
    return any(
        span.chunk_id in label.relevant and span.chunk_facts <= _facts(span.text) for span in spans
    )


@dataclass(frozen=True)
class _CompressionReport:
    """Tokens before/after span picking over answerable questions, and where the answer was lost.

    `cut_off`: questions whose shown chunks held a grade-2 chunk but whose spans fail
    `keeps_evidence`. `missing`: questions with no grade-2 chunk shown (nothing to cut).
    """

    questions: int
    tokens_before: int
    tokens_after: int
    cut_off: tuple[str, ...]
    missing: tuple[str, ...]
    per_question: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    @property
    def ratio(self) -> float:
        return self.tokens_after / self.tokens_before if self.tokens_before else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "ratio": round(self.ratio, 4),
            "cut_off": list(self.cut_off),
            "missing": list(self.missing),
            "per_question": [dict(r) for r in self.per_question],
        }


def _compress(
    labels: Sequence[Label], found_by_question: Mapping[str, Sequence[Hit | Chunk]]
) -> _CompressionReport:
    """Pick spans for every answerable labelled question with an entry in `found_by_question`."""
    before = after = 0
    cut: list[str] = []
    missing: list[str] = []
    rows: list[dict[str, Any]] = []
    for label in labels:
        if not label.answerable or label.id not in found_by_question:
            continue
        chunks = [_chunk(c) for c in found_by_question[label.id]]
        spans = pick_spans(label.question, chunks)
        b, a = context_tokens(chunks), context_tokens(spans)
        before, after = before + b, after + a
        present = any(c.id in label.relevant for c in chunks)
        kept = keeps_evidence(label, spans)
        if not present:
            missing.append(label.id)
        elif not kept:
            cut.append(label.id)
        rows.append(
            {"id": label.id, "before": b, "after": a, "answer_shown": present, "kept": kept}
        )
    return _CompressionReport(len(rows), before, after, tuple(cut), tuple(missing), tuple(rows))
