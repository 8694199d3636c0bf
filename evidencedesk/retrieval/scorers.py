"""Pair scorers: (query, passage) in, one raw ranking score per pair out.

The shape is sentence-transformers' ``CrossEncoder.predict``. Raw scores are **ranking scores,
not probabilities**: only their order within one query means anything.

Two scorers ship with the kit:

- `LexicalPairScorer`, a hand-weighted four-feature stand-in for a cross-encoder. It reads
  words, not meaning: it cannot see a paraphrase.
- `HubPairScorer`, the real sentence-transformers ``CrossEncoder`` behind the same interface,
  from the optional extra ``models``; imported lazily, never when evidencedesk is imported.

The built-in scorers (`LexicalPairScorer`, `OverlapScorer`) score all the pairs they are given in
one vectorised call (`pairfeatures`); their `predict_each`, one pair at a time with Python sets,
is the reference the vectorised `predict` equals bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Protocol, runtime_checkable

import numpy as np

from evidencedesk.errors import EvidencedeskError
from evidencedesk.retrieval.pairfeatures import ANALYSER, SEPARATOR, shares, split_passage
from evidencedesk.retrieval.tokens import content_words, is_identifier

# the sentence-transformers cross-encoder the optional `models` extra loads by default
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L6-v2"
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


class _Memo:
    """A bounded dict: the pipeline asks about the same queries and passages at every depth and
    for every candidate; the analysis of a text is reused instead of re-tokenised per pair."""

    def __init__(self, limit: int = 200_000):
        self.limit = limit
        self.data: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        return self.data.get(key)

    def put(self, key: Any, value: Any) -> Any:
        if len(self.data) >= self.limit:
            self.data.clear()  # a crude bound on memory; results do not depend on it
        self.data[key] = value
        return value


_KNOWN: dict[type, _Memo] = {}  # per scorer class: (query, passage) -> the score `predict` gave


def _known(scorer: Any, pairs: Sequence[tuple[str, str]], compute: Any) -> list[float]:
    """`scorer`'s scores of `pairs`: the pairs scored before looked up, all the others scored
    in ONE `compute(pairs)` call, and kept. Every configuration of a build asks about mostly
    the same pairs (the same questions and chunks at another depth or cut)."""
    memo = _KNOWN.setdefault(type(scorer), _Memo(400_000))
    kept = memo.data
    found = np.fromiter(map(kept.get, pairs, repeat(np.nan)), dtype=np.float64, count=len(pairs))
    missing = np.flatnonzero(np.isnan(found))
    if len(missing):
        todo = list(map(pairs.__getitem__, missing.tolist()))
        scores = compute(todo)
        found[missing] = scores
        if len(kept) + len(todo) > memo.limit:
            kept.clear()  # a crude bound on memory; results do not depend on it
        kept.update(zip(todo, scores.tolist(), strict=True))
    return found.tolist()


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
    _queries = _Memo()  # query -> its distinct words, adjacent pairs and identifiers
    _passages = _Memo()  # (title, text) -> body words, body pairs, title words

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
            # the BM25 index and the toy embedder tokenised (`searchers.index_text`), so the
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
        """The scores of all `pairs` from one numpy pass (`pairfeatures.Analyser.counts`):
        `predict_each`'s floats, bit for bit -- the same divisions, and the weighted sum added
        in the same order (0.0, then coverage, bigrams, identifiers, title)."""
        counts = ANALYSER.counts(pairs)
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
        return [self.score(query, *split_passage(passage)) for query, passage in pairs]


class OverlapScorer:
    """Share of the query's distinct content words found in the passage (0..1).

    The plainest word-overlap baseline; a ranking score like any other.
    """

    _words = _Memo()  # text -> its content words (distinct list for queries, a set for passages)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One call for a whole stage's pairs: the pairs not scored before (`_known`) scored
        together by `vectorised`."""
        return _known(self, pairs, self.vectorised) if pairs else []

    def vectorised(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The scores of all `pairs` from one numpy pass: `predict_each`'s, bit for bit."""
        counts = ANALYSER.counts(pairs)
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
                title, text = split_passage(passage)
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

    def __init__(self, name: str = DEFAULT_CROSS_ENCODER, model: Any | None = None):
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
