"""The built-in lexical scorers' word counts for a whole stage's pairs in one call (numpy).

`scorers.LexicalPairScorer.features` and `scorers.OverlapScorer.predict_each` count one
(query, passage) pair at a time with Python sets; they are the reference. `Analyser.counts` counts
the same things for every pair of a stage at once:

1. Each distinct text is analysed once and kept (across calls and configurations): its content
   words become integer ids from one vocabulary; a query keeps its distinct word ids, which of
   them are identifiers, and its distinct adjacent-pair codes; a passage (``"title || text"``)
   keeps the sorted distinct ids of the words of ``title\\ntext``, of its adjacent pairs and of
   its title.
2. The stage's distinct passages become one sorted array of ``passage * V + word`` keys (CSR
   style: each passage's sorted ids after the previous passage's), and every (pair, query word)
   becomes the key of that pair's passage and the word; one `np.searchsorted` says which are
   present, one `np.bincount` per feature counts them per pair. Adjacent pairs are renumbered
   densely over the stage first (their codes are too large to multiply).

The counts are integers, so the shares computed from them (`shares`) are the same float
divisions as the per-pair path, and the scores are bitwise equal (tests/test_rerank_batch.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evidencedesk.retrieval.tokens import content_words, is_identifier

SEPARATOR = " || "
SHIFT = np.int64(1 << 32)  # an adjacent pair (a, b) of word ids is the code a * 2^32 + b
MAX_WORDS = 1 << 31  # the vocabulary starts again before ids reach this (codes stay in int64)
LIMIT = 200_000  # kept analyses before everything kept starts again (results do not change)

_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class QueryText:
    """A query's distinct content-word ids, which of them are identifiers, its distinct
    adjacent-pair codes."""

    words: np.ndarray
    identifiers: np.ndarray  # bool, one per word
    bigrams: np.ndarray


@dataclass(frozen=True)
class PassageText:
    """A passage's sorted distinct ids: the words of ``title\\ntext``, their adjacent pairs, the
    words of the title."""

    words: np.ndarray
    bigrams: np.ndarray
    title: np.ndarray


@dataclass(frozen=True)
class Counts:
    """Per pair of a stage: the sizes of the query's sets and how many of each the passage has."""

    words: np.ndarray  # the query's distinct content words
    bigrams: np.ndarray  # its distinct adjacent pairs
    identifiers: np.ndarray  # its distinct identifiers
    found_words: np.ndarray  # of `words`, found in the passage (title and text)
    found_bigrams: np.ndarray  # of `bigrams`, adjacent in the passage
    found_identifiers: np.ndarray  # of `identifiers`, found in the passage
    found_title: np.ndarray  # of `words`, found in the title


def shares(found: np.ndarray, size: np.ndarray) -> np.ndarray:
    """``found / size`` per pair, 0.0 where size is 0: Python's ``int / int`` (both are
    correctly rounded divisions of integers below 2^53)."""
    out = np.zeros(len(size), dtype=np.float64)
    np.divide(found, size, out=out, where=size > 0)
    return out


def _bigram_codes(ids: np.ndarray) -> np.ndarray:
    return np.unique(ids[:-1] * SHIFT + ids[1:]) if len(ids) > 1 else _EMPTY


def split_passage(passage: str) -> tuple[str, str]:
    """``"title || text"`` -> (title, text); a passage without the separator has no title."""
    title, sep, text = passage.partition(SEPARATOR)
    return (title, text) if sep else ("", passage)


def _csr(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, start of each array, length of each array) of arrays laid end to end."""
    lengths = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    starts = np.zeros(len(arrays), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    values = np.concatenate(arrays) if arrays else _EMPTY
    return values, starts, lengths


def _expand(starts: np.ndarray, lengths: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """For each pair i (row ``rows[i]`` of a CSR array): the pair of every entry of its row, and
    the entry's position in the values."""
    sizes = lengths[rows]
    pair = np.repeat(np.arange(len(rows), dtype=np.int64), sizes)
    first = np.zeros(len(rows), dtype=np.int64)
    np.cumsum(sizes[:-1], out=first[1:])
    position = np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts[rows] - first, sizes)
    return pair, position


def _present(keys: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """Which of `asked` are in the sorted `keys`."""
    if not len(keys):
        return np.zeros(len(asked), dtype=bool)
    at = np.minimum(np.searchsorted(keys, asked), len(keys) - 1)
    return keys[at] == asked


def _numbered(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """(the distinct texts in first-seen order, each text's number among them)."""
    distinct = list(dict.fromkeys(texts))
    number = {text: i for i, text in enumerate(distinct)}
    return distinct, np.fromiter(map(number.__getitem__, texts), dtype=np.int64, count=len(texts))


class Analyser:
    """Keeps each text's analysis and counts a stage's pairs (`counts`)."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.queries: dict[str, QueryText] = {}
        self.passages: dict[str, PassageText] = {}

    def _ids(self, words: Sequence[str]) -> np.ndarray:
        vocabulary = self.vocabulary
        for word in words:
            if word not in vocabulary:
                vocabulary[word] = len(vocabulary)
        return np.fromiter(map(vocabulary.__getitem__, words), dtype=np.int64, count=len(words))

    def query(self, query: str) -> QueryText:
        found = self.queries.get(query)
        if found is None:
            words = content_words(query)
            distinct = list(dict.fromkeys(words))
            found = self.queries[query] = QueryText(
                words=self._ids(distinct),
                identifiers=np.fromiter(map(is_identifier, distinct), dtype=bool),
                bigrams=_bigram_codes(self._ids(words)),
            )
        return found

    def passage(self, passage: str) -> PassageText:
        found = self.passages.get(passage)
        if found is None:
            title, text = split_passage(passage)
            # the words of "title text": the string the indexes tokenised (`tokens`' cache)
            body = self._ids(content_words(f"{title}\n{text}"))
            found = self.passages[passage] = PassageText(
                words=np.unique(body),
                bigrams=_bigram_codes(body),
                title=np.unique(self._ids(content_words(title))),
            )
        return found

    def counts(self, pairs: Sequence[tuple[str, str]]) -> Counts:
        """The counts of every pair, one numpy pass over the stage."""
        if len(self.queries) + len(self.passages) >= self.limit or (
            len(self.vocabulary) >= MAX_WORDS
        ):
            self.clear()  # only between calls: the ids of one call come from one vocabulary
        queries, passages = zip(*pairs, strict=True) if pairs else ((), ())
        q_texts, q_of = _numbered(queries)
        p_texts, p_of = _numbered(passages)
        q = [self.query(t) for t in q_texts]
        p = [self.passage(t) for t in p_texts]
        v = np.int64(len(self.vocabulary) + 1)

        q_words, q_starts, q_lengths = _csr([x.words for x in q])
        q_ids = np.concatenate([x.identifiers for x in q]) if q else np.zeros(0, dtype=bool)
        pair, at = _expand(q_starts, q_lengths, q_of)
        asked, is_id = p_of[pair] * v + q_words[at], q_ids[at]
        body, title = self._keys([x.words for x in p], v), self._keys([x.title for x in p], v)
        in_body, in_title = _present(body, asked), _present(title, asked)

        # adjacent pairs: codes numbered densely over the stage's passages, then as the words
        p_codes = [x.bigrams for x in p]
        known = np.unique(np.concatenate(p_codes)) if p else _EMPTY
        u = np.int64(len(known) + 1)  # number len(known): a pair no passage of the stage has
        dense = [np.searchsorted(known, c) for c in p_codes]
        q_codes, b_starts, b_lengths = _csr([x.bigrams for x in q])
        b_pair, b_at = _expand(b_starts, b_lengths, q_of)
        codes = q_codes[b_at]
        number = np.searchsorted(known, codes)
        number[~_present(known, codes)] = len(known)
        in_pairs = _present(self._keys(dense, u), p_of[b_pair] * u + number)

        n = len(pairs)
        return Counts(
            words=q_lengths[q_of],
            bigrams=b_lengths[q_of],
            identifiers=np.bincount(pair[is_id], minlength=n),
            found_words=np.bincount(pair[in_body], minlength=n),
            found_bigrams=np.bincount(b_pair[in_pairs], minlength=n),
            found_identifiers=np.bincount(pair[in_body & is_id], minlength=n),
            found_title=np.bincount(pair[in_title], minlength=n),
        )

    @staticmethod
    def _keys(arrays: Sequence[np.ndarray], v: np.int64) -> np.ndarray:
        """``passage * v + id`` of every passage's sorted ids: sorted, passage after passage."""
        values, _, lengths = _csr(arrays)
        owner = np.repeat(np.arange(len(arrays), dtype=np.int64), lengths)
        return owner * v + values


ANALYSER = Analyser()  # shared by both scorers: the analysis of a text depends on nothing else
