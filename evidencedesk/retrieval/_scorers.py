"""Pair scorers: (query, passage) in, one raw ranking score per pair out.

The shape is sentence-transformers' ``CrossEncoder.predict``. Raw scores are **ranking scores,
not probabilities**: only their order within one query means anything.

Two scorers ship with the kit:

- `LexicalPairScorer`, a hand-weighted four-feature stand-in for a cross-encoder. It reads
  words, not meaning: it cannot see a paraphrase.
- `HubPairScorer`, the real sentence-transformers ``CrossEncoder`` behind the same interface,
  from the optional extra ``models``; imported lazily, never when evidencedesk is imported.

The built-in scorers (`LexicalPairScorer`, `OverlapScorer`) score all the pairs they are given in
one vectorised call (`Analyser`, below); their `predict_each`, one pair at a time with Python sets,
is the reference the vectorised `predict` equals bit for bit.

The built-in lexical scorers' word counts for a whole stage's pairs in one call (numpy).

`scorers.LexicalPairScorer.features` and `scorers.OverlapScorer.predict_each` count one
(query, passage) pair at a time with Python sets; they are the reference. `Analyser.counts` counts
the same things for every pair of a stage at once:

1. Each distinct text is read once and kept (across calls and configurations): its content words
   (`tokens.tokenize` without the stop words) become integer ids from one vocabulary. A query
   keeps its sorted distinct word ids and its sorted distinct adjacent pairs (``a * 2^32 + b``);
   a passage (``"title || text"``) keeps the ids of the words of ``title\ntext`` in order, and
   of its title. The new texts of a call are mapped to ids together, in one pass.
2. Per stage, only what some query of the stage asks can match: the passages' words (and
   adjacent pairs) that no query of the stage has are dropped with one table lookup, and the
   rest become sorted ``passage * V + id`` keys (CSR style: one sort of what is left). Every
   (pair, query word) becomes the key of its pair's passage and the word; one `np.searchsorted`
   says which are present, one `np.bincount` per feature counts them per pair. Adjacent pairs
   are numbered by their place among the stage's query pairs first (their codes are too large
   to multiply).

The counts are integers, so the shares computed from them (`shares`) are the same float
divisions as the per-pair path, and the scores are bitwise equal (tests/test_rerank_batch.py).
(`np.unique` is not used: numpy 2.4's is many times slower than a sort on these arrays.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from evidencedesk.errors import EvidencedeskError
from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._metric_engine import spans
from evidencedesk.retrieval._tokens import STOPWORDS, content_words, is_identifier, tokenize

SEPARATOR = " || "  # what joins a passage's title to its text in a (query, passage) pair


_SHIFT = np.int64(1 << 32)  # an adjacent pair (a, b) of word ids is the code a * 2^32 + b


_MAX_WORDS = 1 << 31  # the vocabulary starts again before ids reach this (codes stay in int64)


LIMIT = 200_000  # kept texts before everything kept starts again (results do not change)


_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class _QueryText:
    """A query's sorted distinct content-word ids and adjacent-pair codes."""

    words: np.ndarray
    bigrams: np.ndarray


@dataclass(frozen=True)
class _PassageText:
    """A passage's content-word ids in order: of ``title\\ntext``, and of the title."""

    words: np.ndarray
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


def _split_passage(passage: str) -> tuple[str, str]:
    """``"title || text"`` -> (title, text); a passage without the separator has no title."""
    title, sep, text = passage.partition(SEPARATOR)
    return (title, text) if sep else ("", passage)


class Analyser:
    """Keeps each text's word ids and counts a stage's pairs (`counts`)."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.identifier = np.zeros(0, dtype=bool)  # per token id: is it an identifier
        self.stop = np.zeros(0, dtype=bool)  # per token id: is it a stop word
        self.queries: dict[str, _QueryText] = {}
        self.passages: dict[str, _PassageText] = {}

    def ids(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(every text's content-word ids end to end, the number of the text of each): the
        words `tokens.content_words` gives, in one pass for all the texts; new tokens are
        numbered in first-seen order."""
        vocabulary = self.vocabulary
        tokens = [tokenize(text) for text in texts]
        flat = list(chain.from_iterable(tokens))
        new = [w for w in dict.fromkeys(flat) if w not in vocabulary]
        if new:
            first = len(vocabulary)
            vocabulary.update(zip(new, range(first, first + len(new)), strict=True))
            flags = np.fromiter(map(is_identifier, new), dtype=bool, count=len(new))
            self.identifier = np.concatenate([self.identifier, flags])
            stop = np.fromiter(map(STOPWORDS.__contains__, new), dtype=bool, count=len(new))
            self.stop = np.concatenate([self.stop, stop])
        ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
        owner = _owners(np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens)))
        content = ~self.stop[ids]
        return ids[content], owner[content]

    def query_texts(self, queries: Sequence[str]) -> list[_QueryText]:
        kept = self.queries
        new = [q for q in dict.fromkeys(queries) if q not in kept]
        if new:
            ids, owner = self.ids(new)
            joined = owner[:-1] == owner[1:]  # adjacent within one query
            codes = ids[:-1][joined] * _SHIFT + ids[1:][joined]
            words = _each_distinct(owner, ids, len(new))
            bigrams = _each_distinct(owner[:-1][joined], codes, len(new))
            for query, w, b in zip(new, words, bigrams, strict=True):
                kept[query] = _QueryText(w, b)
        return [kept[q] for q in queries]

    def passage_texts(self, passages: Sequence[str]) -> list[_PassageText]:
        kept = self.passages
        new = [p for p in dict.fromkeys(passages) if p not in kept]
        if new:
            split = [_split_passage(p) for p in new]
            # the words of "title text": the string the indexes tokenised (`tokens`' cache)
            bodies = _pieces(*self.ids([f"{title}\n{text}" for title, text in split]), len(new))
            titles = _pieces(*self.ids([title for title, _ in split]), len(new))
            for passage, body, title in zip(new, bodies, titles, strict=True):
                kept[passage] = _PassageText(body, title)
        return [kept[p] for p in passages]

    def counts(self, pairs: Sequence[tuple[str, str]]) -> Counts:
        """The counts of every pair, one numpy pass over the stage."""
        if len(self.queries) + len(self.passages) >= self.limit or (
            len(self.vocabulary) >= _MAX_WORDS
        ):
            self.clear()  # only between calls: the ids of one call come from one vocabulary
        queries, passages = zip(*pairs, strict=True) if pairs else ((), ())
        q_texts, q_of = _numbered(queries)
        p_texts, p_of = _numbered(passages)
        q, p = self.query_texts(q_texts), self.passage_texts(p_texts)
        v = np.int64(len(self.vocabulary) + 1)

        q_words, q_starts, q_lengths = _csr([x.words for x in q])
        pair, at = _expand(q_starts, q_lengths, q_of)
        words = q_words[at]
        asked, is_id = p_of[pair] * v + words, self.identifier[words]
        wanted = np.zeros(int(v), dtype=bool)  # the words some query of the stage has
        wanted[q_words] = True
        body, owner = _flat([x.words for x in p])
        title, title_owner = _flat([x.title for x in p])
        in_body = _present(_keys(owner, body, wanted[body], v), asked)
        in_title = _present(_keys(title_owner, title, wanted[title], v), asked)

        # adjacent pairs: numbered by their place among the stage's distinct query pairs
        q_codes, b_starts, b_lengths = _csr([x.bigrams for x in q])
        b_pair, b_at = _expand(b_starts, b_lengths, q_of)
        known = _distinct_values(q_codes)
        u = np.int64(len(known) + 1)
        starts = np.zeros(int(v), dtype=bool)  # the words that start some query's pair
        starts[q_codes // _SHIFT] = True
        ends = np.zeros(int(v), dtype=bool)  # the words that end one
        ends[q_codes % _SHIFT] = True
        maybe = (owner[:-1] == owner[1:]) & starts[body[:-1]] & ends[body[1:]]
        first = np.flatnonzero(maybe)  # could be a query's pair, within one passage
        codes = body[first] * _SHIFT + body[first + 1]
        number, hit = _find(known, codes)
        keys = _keys(owner[first], number, hit, u)
        in_pairs = _present(keys, p_of[b_pair] * u + np.searchsorted(known, q_codes[b_at]))

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


def _owners(lengths: np.ndarray) -> np.ndarray:
    """0 `lengths[0]` times, then 1 `lengths[1]` times, ..."""
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


def _pieces(values: np.ndarray, owner: np.ndarray, n: int) -> list[np.ndarray]:
    """`values` cut by `owner` (ascending, 0 .. n-1) into n arrays."""
    bounds = np.searchsorted(owner, np.arange(n + 1)).tolist()
    return [values[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _distinct_values(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (`np.unique`'s answer, by a plain sort)."""
    values = np.sort(values)
    keep = np.ones(len(values), dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]


def _each_distinct(owner: np.ndarray, values: np.ndarray, n: int) -> list[np.ndarray]:
    """Each owner's (ascending, 0 .. n-1) sorted distinct values: one sort for all."""
    order = np.lexsort((values, owner))
    owner, values = owner[order], values[order]
    keep = np.ones(len(values), dtype=bool)
    keep[1:] = (owner[1:] != owner[:-1]) | (values[1:] != values[:-1])
    return _pieces(values[keep], owner[keep], n)


def _csr(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, start of each array, length of each array) of arrays laid end to end."""
    lengths = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
    starts = np.zeros(len(arrays), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    values = np.concatenate(arrays) if arrays else _EMPTY
    return values, starts, lengths


def _flat(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the arrays laid end to end, the number of the array each value comes from)."""
    values, _, lengths = _csr(arrays)
    return values, _owners(lengths)


def _expand(starts: np.ndarray, lengths: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """For each pair i (row ``rows[i]`` of a CSR array): the pair of every entry of its row, and
    the entry's position in the values."""
    sizes = lengths[rows]
    return _owners(sizes), spans(starts[rows], sizes)


def _keys(owner: np.ndarray, ids: np.ndarray, keep: np.ndarray, v: np.int64) -> np.ndarray:
    """The sorted ``owner * v + id`` of the kept entries (repeats do no harm)."""
    return np.sort(owner[keep] * v + ids[keep])


def _find(table: np.ndarray, asked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(where each of `asked` is or would go in the sorted `table`, whether it is there).

    The asked values are searched in sorted order (a binary search that walks forward touches
    memory in order: ten times faster on a table of a few hundred thousand keys than searching
    them as they come)."""
    order = np.argsort(asked)
    at = np.empty(len(asked), dtype=np.int64)
    at[order] = np.searchsorted(table, asked[order])
    if not len(table):
        return at, np.zeros(len(asked), dtype=bool)
    return at, table[np.minimum(at, len(table) - 1)] == asked


def _present(table: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """Which of `asked` are in the sorted `table`."""
    return _find(table, asked)[1]


def _numbered(texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """(the distinct texts in first-seen order, each text's number among them)."""
    distinct = list(dict.fromkeys(texts))
    number = {text: i for i, text in enumerate(distinct)}
    return distinct, np.fromiter(map(number.__getitem__, texts), dtype=np.int64, count=len(texts))


_ANALYSER = Analyser()  # shared by both scorers: the analysis of a text depends on nothing else


# the sentence-transformers cross-encoder the optional `models` extra loads by default
_DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L6-v2"


# what an error says to install when sentence-transformers is missing
_INSTALL_HINT = "install the optional extra: pip install 'evidencedesk[models]'"


@runtime_checkable
class PairScorer(Protocol):
    """Anything with ``predict(pairs) -> one raw score per (query, passage) pair``."""

    def predict(self, pairs: list[tuple[str, str]]) -> list[float]: ...


def format_passage(title: str, text: str, max_words: int | None = None) -> str:
    """``"title || text"``, cut to its first `max_words` whitespace words when set."""
    passage = f"{title}{SEPARATOR}{text}"
    if max_words is None:
        return passage
    return " ".join(passage.split()[:max_words])


def _distinct(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


def _bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:], strict=False))


_K = TypeVar("_K")
_V = TypeVar("_V")


class _Memo(Generic[_K, _V]):
    """A bounded dict: the pipeline asks about the same queries and passages at every depth and
    for every candidate; the analysis of a text is reused instead of re-tokenised per pair."""

    def __init__(self, limit: int = 200_000):
        self.limit = limit
        self.data: dict[_K, _V] = {}

    def get(self, key: _K) -> _V | None:
        return self.data.get(key)

    def put(self, key: _K, value: _V) -> _V:
        if len(self.data) >= self.limit:
            self.data.clear()  # a crude bound on memory; results do not depend on it
        self.data[key] = value
        return value


def _known(scorer: Any, pairs: Sequence[tuple[str, str]], compute: Any) -> list[float]:
    """`scorer`'s scores of `pairs`: the pairs scored before looked up, all the others scored
    in ONE `compute(pairs)` call, and kept. Every configuration of a build asks about mostly
    the same pairs (the same questions and chunks at another depth or cut): kept for the
    build (`memos.memo`), per scorer class, (query, passage) -> the score `predict` gave."""
    by_class: dict[type, _Memo[tuple[str, str], float]] = memo("pair scores by pair", dict)
    table = by_class.setdefault(type(scorer), _Memo(400_000))
    kept = table.data
    found = np.fromiter(map(kept.get, pairs, repeat(np.nan)), dtype=np.float64, count=len(pairs))
    missing = np.flatnonzero(np.isnan(found))
    if len(missing):
        todo = list(map(pairs.__getitem__, missing.tolist()))
        scores = compute(todo)
        found[missing] = scores
        if len(kept) + len(todo) > table.limit:
            kept.clear()  # a crude bound on memory; results do not depend on it
        kept.update(zip(todo, scores.tolist(), strict=True))
    values: list[float] = found.tolist()
    return values


@dataclass(frozen=True)
class LexicalFeatures:
    """The four features of one (query, passage) pair, each in [0, 1]."""

    coverage: float
    bigrams: float
    identifiers: float
    title: float

    def to_dict(self) -> dict[str, float]:
        return {
            "coverage": self.coverage,
            "bigrams": self.bigrams,
            "identifiers": self.identifiers,
            "title": self.title,
        }


class LexicalPairScorer:
    """A hand-weighted four-feature stand-in for a cross-encoder (not a trained model).

    Features, each in [0, 1], over case-folded Unicode tokens without English stop words:

    - ``coverage`` (weight 0.45): share of the query's distinct content words found anywhere in
      the passage. The main evidence, as in every lexical ranker.
    - ``bigrams`` (weight 0.20): share of the query's adjacent content-word pairs that also stand
      adjacent in the passage; rewards the phrase ("express shipping") over scattered words.
      A one-word query has no pairs and scores 0 here.
    - ``identifiers`` (weight 0.25): share of the query's identifiers (tokens mixing letters and
      digits, e.g. ``rd2-24``) found exactly in the passage; 0 when the query has none. A code is
      rare and nearly decisive, so it weighs more than a phrase.
    - ``title`` (weight 0.10): share of the query's content words found in the title (the part
      before ``" || "``). Weak: every chunk of a document shares its title.

    The raw score is ``10 * weighted_sum - 4``, in [-4, 6]. The affine map makes the output look
    like a cross-encoder logit (negative for a poor match, positive for a good one; 0 is a
    weighted sum of 0.4) and makes plain that these are ranking scores, **not probabilities**.
    It reads words, not meaning: it cannot see a paraphrase, a negation or a synonym.
    """

    WEIGHTS = {"coverage": 0.45, "bigrams": 0.20, "identifiers": 0.25, "title": 0.10}
    SCALE = 10.0
    OFFSET = -4.0

    # shared by every instance: the pipeline builds one scorer per configuration, and the
    # analysis of a text depends on nothing but the text
    # query -> its distinct words, adjacent pairs and identifiers
    _queries: _Memo[str, tuple[list[str], set[tuple[str, str]], list[str]]] = _Memo()
    # (title, text) -> body words, body pairs, title words
    _passages: _Memo[tuple[str, str], tuple[set[str], set[tuple[str, str]], set[str]]] = _Memo()

    def _query(self, query: str) -> tuple[list[str], set[tuple[str, str]], list[str]]:
        found = self._queries.get(query)
        if found is None:
            q_words = content_words(query)
            q_distinct = _distinct(q_words)
            q_ids = [w for w in q_distinct if is_identifier(w)]
            found = self._queries.put(query, (q_distinct, _bigrams(q_words), q_ids))
        return found

    def _passage(self, title: str, text: str) -> tuple[set[str], set[tuple[str, str]], set[str]]:
        key = (title, text)
        found = self._passages.get(key)
        if found is None:
            # "\n" and " " both end a token: the words of "title text", and the very string
            # the BM25 index and the toy embedder tokenised (`searchers._index_text`), so the
            # tokens come from `tokens`' cache instead of a second pass of the tokenizer
            body = content_words(f"{title}\n{text}")
            found = self._passages.put(key, (set(body), _bigrams(body), set(content_words(title))))
        return found

    def features(self, query: str, title: str, text: str) -> LexicalFeatures:
        q_distinct, q_pairs, q_ids = self._query(query)
        body_set, body_pairs, title_set = self._passage(title, text)
        n = len(q_distinct)
        return LexicalFeatures(
            coverage=sum(w in body_set for w in q_distinct) / n if n else 0.0,
            bigrams=len(q_pairs & body_pairs) / len(q_pairs) if q_pairs else 0.0,
            identifiers=sum(w in body_set for w in q_ids) / len(q_ids) if q_ids else 0.0,
            title=sum(w in title_set for w in q_distinct) / n if n else 0.0,
        )

    def score_features(self, features: LexicalFeatures) -> float:
        # added left to right, as `predict` adds its columns (Python 3.12's `sum` of floats
        # compensates the rounding, and would differ from it in the last bit now and then)
        total = 0.0
        for name, value in features.to_dict().items():
            total += self.WEIGHTS[name] * value
        return self.SCALE * total + self.OFFSET

    def score(self, query: str, title: str, text: str) -> float:
        return self.score_features(self.features(query, title, text))

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One call for a whole stage's pairs: the pairs not scored before (`_known`) scored
        together by `vectorised`."""
        return _known(self, pairs, self.vectorised) if pairs else []

    def vectorised(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The scores of all `pairs` from one numpy pass (`Analyser.counts`):
        `predict_each`'s floats, bit for bit -- the same divisions, and the weighted sum added
        in the same order (0.0, then coverage, bigrams, identifiers, title)."""
        counts = _ANALYSER.counts(pairs)
        features = (
            ("coverage", shares(counts.found_words, counts.words)),
            ("bigrams", shares(counts.found_bigrams, counts.bigrams)),
            ("identifiers", shares(counts.found_identifiers, counts.identifiers)),
            ("title", shares(counts.found_title, counts.words)),
        )
        total = np.zeros(len(pairs), dtype=np.float64)  # as `score_features`: 0.0, then each
        for name, value in features:
            total = total + self.WEIGHTS[name] * value
        return self.SCALE * total + self.OFFSET

    def predict_each(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One pair at a time with Python sets (`score`): the reference `predict` is tested
        against. Each query and passage is analysed once (kept across calls)."""
        return [self.score(query, *_split_passage(passage)) for query, passage in pairs]


class OverlapScorer:
    """Share of the query's distinct content words found in the passage (0..1).

    The plainest word-overlap baseline; a ranking score like any other.
    """

    # text -> its content words (distinct list for queries, a set for passages)
    _words: _Memo[tuple[str, str], Any] = _Memo()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One call for a whole stage's pairs: the pairs not scored before (`_known`) scored
        together by `vectorised`."""
        return _known(self, pairs, self.vectorised) if pairs else []

    def vectorised(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The scores of all `pairs` from one numpy pass: `predict_each`'s, bit for bit."""
        counts = _ANALYSER.counts(pairs)
        return shares(counts.found_words, counts.words)

    def predict_each(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One pair at a time with Python sets: the reference `predict` is tested against."""
        out: list[float] = []
        for query, passage in pairs:
            q_words = self._words.get(("q", query))
            if q_words is None:
                q_words = self._words.put(("q", query), _distinct(content_words(query)))
            body = self._words.get(("p", passage))
            if body is None:
                # the words of "title || text" are those of "title\ntext" ("||" is no word),
                # the string the indexes tokenised: the tokens come from `tokens`' cache
                title, text = _split_passage(passage)
                body = self._words.put(("p", passage), set(content_words(f"{title}\n{text}")))
            out.append(sum(w in body for w in q_words) / len(q_words) if q_words else 0.0)
        return out


class HubPairScorer:
    """A real sentence-transformers ``CrossEncoder`` behind the `PairScorer` interface.

    ``sentence_transformers`` is imported here, inside the constructor, and only when no `model`
    is injected; importing evidencedesk never imports it. Without the package the constructor
    raises `EvidencedeskError` telling you to ``pip install 'evidencedesk[models]'``; when the
    weights cannot be loaded (e.g. offline with an empty Hugging Face cache) it raises an
    `EvidencedeskError` naming the model. Pass ``model=`` (any object with ``predict(pairs)``)
    to inject a preloaded model or a test double.
    """

    def __init__(self, name: str = _DEFAULT_CROSS_ENCODER, model: Any | None = None):
        self.name = name
        if model is None:
            model = self._load(name)
        if not callable(getattr(model, "predict", None)):
            raise EvidencedeskError(
                f"HubPairScorer {name!r}: expected a model with a predict(pairs) method, "
                f"found {type(model).__name__}"
            )
        self.model = model

    @staticmethod
    def _load(name: str) -> Any:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise EvidencedeskError(
                f"HubPairScorer {name!r} needs the sentence-transformers package, which is not "
                f"installed; {_INSTALL_HINT}"
            ) from None
        try:
            return CrossEncoder(name)
        except Exception as exc:  # noqa: BLE001 - any loader failure becomes one clear message
            raise EvidencedeskError(
                f"could not load the cross-encoder weights {name!r} ({type(exc).__name__}: "
                f"{exc}); they download from the Hugging Face Hub on first use, so run once "
                "online or point HF_HOME at a cache that holds them"
            ) from exc

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        pairs = [(str(q), str(p)) for q, p in pairs]
        if not pairs:
            return []
        raw = self.model.predict(pairs)
        scores = [float(s) for s in raw]
        if len(scores) != len(pairs):
            raise EvidencedeskError(
                f"cross-encoder {self.name!r}: expected {len(pairs)} scores, found {len(scores)}"
            )
        return scores
