"""A stage's pairs scored in one call: the vectorised built-in scorers (`pairfeatures`) equal the
per-pair reference bit for bit, and priming (`PairReranker.prime`, `TwoStage.prime`) changes no
answer, counts nothing twice and hands a real scorer the whole stage in one `predict` call."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evidencedesk.errors import RerankerError
from evidencedesk.retrieval import _scorers as scorers
from evidencedesk.retrieval._memos import build_memos
from evidencedesk.retrieval._scorers import Analyser, OverlapScorer
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.evalreport import Config, run_config
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import build_searchers
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.rerankers import (
    HubPairScorer,
    LexicalPairScorer,
    PairReranker,
    _BlendReranker,
    make_reranker,
)
from evidencedesk.retrieval.searchers import Hit, SparseSearcher, TwoStage
from tests.conftest import make_chunk

FIELDS = (
    "words",
    "found_words",
    "bigrams",
    "found_bigrams",
    "identifiers",
    "found_identifiers",
    "found_title",
)

# (query, passage, the hand-worked counts in FIELDS order)
CASES = [
    pytest.param("", "Shipping || Express shipping takes 2 days.", (0, 0, 0, 0, 0, 0, 0),
                 id="empty query"),
    pytest.param("what is the", "Returns || What is the policy?", (0, 0, 0, 0, 0, 0, 0),
                 id="stop words only"),
    pytest.param("shipping", "Shipping || Express shipping takes 2 days.", (1, 1, 0, 0, 0, 0, 1),
                 id="one word, no pair"),
    # rd2-24, recall, notice all in "recall notice derailleur batch rd2-24 must replaced";
    # of (rd2-24, recall) and (recall, notice) only the second stands adjacent
    pytest.param("RD2-24 recall notice",
                 "Recall || Notice: the derailleur batch RD2-24 must be replaced.",
                 (3, 3, 2, 1, 1, 1, 1), id="identifier found"),
    # x700 is an identifier the passage lacks; "brakes" in the title is not "brake"
    pytest.param("x700 brake pads", "Brakes || Replace the brake pads every year.",
                 (3, 2, 2, 1, 1, 0, 0), id="identifier missing"),
    # distinct {returns, policy}; pairs {(r, r), (r, p), (p, r)}; the passage has (r, r), (r, p)
    pytest.param("returns returns policy returns", "Returns || returns policy",
                 (2, 2, 3, 2, 0, 0, 1), id="repeated words"),
    pytest.param("helmet returns", "Helmets and helmet care || Opened ones cannot be sent back.",
                 (2, 1, 1, 0, 0, 0, 1), id="title-only match"),
    # "Straße" folds to "strasse"; the title's "strasse-7" is another token
    pytest.param("Straße ফেরত", "STRASSE-7 || বাইক ফেরত দেওয়ার নিয়ম",
                 (2, 1, 1, 0, 0, 0, 0), id="unicode"),
    pytest.param("returns policy", "Returns policy: 30 days", (2, 2, 1, 1, 0, 0, 0),
                 id="no separator, no title"),
    # split at the first separator; "||" is no word; the title "A" is a stop word
    pytest.param("b c", "A || b || c", (2, 2, 1, 1, 0, 0, 0), id="two separators"),
    pytest.param("returns", "", (1, 0, 0, 0, 0, 0, 0), id="empty passage"),
    pytest.param("C.D e-f", "X || .b c.d e-f", (2, 2, 1, 1, 0, 0, 0), id="dotted words"),
]  # fmt: skip


def hand_score(counts: tuple[int, ...]) -> float:
    """The feature scorer's raw score from the hand-worked counts, added left to right."""
    words, found, pairs, found_pairs, ids, found_ids, title = counts
    coverage = found / words if words else 0.0
    bigrams = found_pairs / pairs if pairs else 0.0
    identifiers = found_ids / ids if ids else 0.0
    in_title = title / words if words else 0.0
    total = 0.45 * coverage
    total += 0.20 * bigrams
    total += 0.25 * identifiers
    total += 0.10 * in_title
    return 10.0 * total - 4.0


@pytest.mark.parametrize(("query", "passage", "expected"), CASES)
def test_hand_made_pairs_count_and_score_as_the_reference(
    query: str, passage: str, expected: tuple[int, ...]
) -> None:
    counts = Analyser().counts([(query, passage)])
    assert tuple(int(getattr(counts, name)[0]) for name in FIELDS) == expected
    pair = [(query, passage)]
    assert LexicalPairScorer().vectorised(pair).tolist() == [hand_score(expected)]
    assert LexicalPairScorer().predict_each(pair) == [hand_score(expected)]
    share = expected[1] / expected[0] if expected[0] else 0.0
    assert OverlapScorer().vectorised(pair).tolist() == [share]
    assert OverlapScorer().predict_each(pair) == [share]


def test_one_call_for_every_case_equals_one_call_per_case() -> None:
    pairs = [tuple(case.values[:2]) for case in CASES]
    expected = [case.values[2] for case in CASES]
    for order in (pairs, pairs[::-1]):
        counts = Analyser().counts(order)  # type: ignore[arg-type]
        got = [tuple(int(getattr(counts, n)[i]) for n in FIELDS) for i in range(len(order))]
        assert got == (expected if order is pairs else expected[::-1])
    assert LexicalPairScorer().vectorised(pairs).tolist() == [hand_score(c) for c in expected]  # type: ignore[arg-type]


def random_pairs(seed: int, n: int = 1500) -> list[tuple[str, str]]:
    """Queries over a small vocabulary (stop words, identifiers, Bangla, ß, dotted and hyphened
    words, punctuation), paired with passages drawn from a pool so that passages repeat."""
    rng = random.Random(seed)
    vocab = ("shipping express days returns policy the of a is rd2-24 RD2-24 x700 ab1 "
             "Straße STRASSE ফেরত বাইক c.d e-f 30 || ; ! brake brakes").split()  # fmt: skip

    def text(most: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(0, most)))

    pool = [f"{text(4)} || {text(25)}" if rng.random() < 0.8 else text(25) for _ in range(80)]
    return [(text(7), rng.choice(pool)) for _ in range(n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_equals_the_per_pair_reference_on_random_pairs(seed: int) -> None:
    pairs = random_pairs(seed)
    for cls in (LexicalPairScorer, OverlapScorer):
        reference = cls().predict_each(pairs)
        assert cls().vectorised(pairs).tolist() == reference, cls.__name__
        assert cls().predict(pairs) == reference  # the kept pairs (`_known`) too
        assert cls().predict(pairs[::-1]) == reference[::-1]
    # an analyser that forgets everything between calls (limit 5) counts the same
    whole, small = Analyser().counts(pairs), Analyser(limit=5)
    for start in range(0, len(pairs), 400):
        part = small.counts(pairs[start : start + 400])
        for name in FIELDS:
            assert np.array_equal(getattr(part, name), getattr(whole, name)[start : start + 400])
    assert len(small.passages) <= 80 + 5


def test_predict_counts_each_new_pair_once_in_one_vectorised_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    counts = scorers.Analyser.counts

    def spy(self: Analyser, pairs: list[tuple[str, str]]) -> scorers.Counts:
        calls.append(len(pairs))
        return counts(self, pairs)

    monkeypatch.setattr(scorers.Analyser, "counts", spy)
    pairs = random_pairs(7, 300)
    distinct = len(set(pairs))
    with build_memos() as memos:  # the scores are kept for the build
        first = LexicalPairScorer().predict(pairs)
        assert calls == [len(pairs)]  # one call for the stage (a repeated pair is not looked up)
        assert LexicalPairScorer().predict(pairs[:50]) == first[:50] and calls == [len(pairs)]
        OverlapScorer().predict(pairs)  # another scorer: its own kept scores
        assert calls == [len(pairs), len(pairs)]
        assert len(memos.table("pair scores by pair", dict)[LexicalPairScorer].data) == distinct
    LexicalPairScorer().predict(pairs[:50])  # outside a build nothing is kept
    assert calls == [len(pairs), len(pairs), 50]


# -- priming a stage --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    return catalog, labels, SparseSearcher(catalog.chunks), catalog.allowed(Scope())


class FakeModel:
    def __init__(self) -> None:
        self.seen: list[list[tuple[str, str]]] = []

    def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        self.seen.append(list(pairs))
        return [float(len(p) % 7) for _, p in pairs]  # ties now and then


def trace(out: list[Hit]) -> list[tuple[int, float, str]]:
    return [(c.rank, c.score, c.chunk.id) for c in out]


@pytest.mark.parametrize(
    ("name", "max_words"),
    [("overlap", None), ("feature", None), ("pair", 8), ("blend", None), ("blend", 8)],
)
def test_primed_rerank_equals_unprimed_and_counts_once(
    demo, name: str, max_words: int | None
) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, sparse, allowed = demo
    questions = [label.question for label in labels] + [labels[0].question]  # one asked twice
    lists = [sparse.search(q, 6, allowed) for q in questions]
    with build_memos():  # each half with the scores of its own build
        plain = make_reranker(name, max_words=max_words)
        assert plain is not None
        expected = [
            trace(plain.rerank(q, found)) for q, found in zip(questions, lists, strict=True)
        ]
    with build_memos():
        primed = make_reranker(name, max_words=max_words)
        assert primed is not None and hasattr(primed, "prime")
        primed.prime(questions, lists)
        assert primed.pairs_scored == 0  # priming counts nothing: reranking does
        got = [trace(primed.rerank(q, found)) for q, found in zip(questions, lists, strict=True)]
    assert got == expected
    assert (primed.pairs_scored, primed.ties_at_top) == (plain.pairs_scored, plain.ties_at_top)
    assert primed.pairs_scored == sum(map(len, lists))


def test_a_real_scorer_gets_the_whole_stage_in_one_predict_call(demo) -> None:  # type: ignore[no-untyped-def]
    _, labels, sparse, allowed = demo
    questions = [label.question for label in labels[:5]]
    questions.append(questions[0])  # the same list twice: primed for two reranks
    lists = [sparse.search(q, 4, allowed) for q in questions]

    def blend(model: FakeModel) -> _BlendReranker:
        return _BlendReranker(PairReranker(HubPairScorer(model=model), max_words=20))

    plain = blend(FakeModel())
    expected = [trace(plain.rerank(q, found)) for q, found in zip(questions, lists, strict=True)]
    model = FakeModel()
    primed = blend(model)
    primed.prime(questions, lists)
    pairs = sum(len(found) for found in lists[:5])  # the repeated list is scored once
    assert [len(call) for call in model.seen] == [pairs]
    assert all(" || " in p for _, p in model.seen[0])
    got = [trace(primed.rerank(q, found)) for q, found in zip(questions, lists, strict=True)]
    assert got == expected and len(model.seen) == 1
    assert (primed.pairs_scored, primed.ties_at_top) == (plain.pairs_scored, plain.ties_at_top)
    # used up: the same list again asks the model again; reset drops what was primed
    primed.rerank(questions[1], lists[1])
    assert len(model.seen) == 2
    primed.prime(questions[2:3], lists[2:3])
    primed.prime(questions[2:3], lists[2:3])  # primed already: one more use, no new call
    assert len(model.seen) == 3
    primed.reset()
    primed.rerank(questions[2], lists[2])
    assert len(model.seen) == 4 and primed.pairs_scored == len(lists[2])


def test_two_stage_prime_gives_the_same_searches_with_one_stage_one_pass(
    tiny_chunks: list,  # type: ignore[type-arg]
) -> None:
    class Counting:
        name = "counting"

        def __init__(self) -> None:
            self.inner, self.asked = SparseSearcher(tiny_chunks), 0

        def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
            self.asked += 1
            return self.inner.search(query, k, allowed)

    queries = ["refund 30 days", "RD2-24 recall", "express shipping", "ফেরত", "refund 30 days"]
    allowed = frozenset(c.id for c in tiny_chunks if c.visibility == "public")
    for prefilter in (True, False):
        model = FakeModel()
        plain = TwoStage(
            Counting(), PairReranker(HubPairScorer(model=FakeModel())), 4, 2, prefilter
        )
        expected = [trace(plain.search(q, allowed=allowed)) for q in queries]
        first = Counting()
        primed = TwoStage(first, PairReranker(HubPairScorer(model=model)), 4, 2, prefilter)
        primed.prime(queries, allowed)
        assert first.asked == len(queries) and len(model.seen) == 1
        assert [trace(primed.search(q, allowed=allowed)) for q in queries] == expected
        assert first.asked == len(queries) and len(model.seen) == 1  # nothing asked again
        assert primed.pairs_scored == plain.pairs_scored
        # another allowed set is not the primed one: stage one is asked again
        primed.search(queries[0], allowed=frozenset(set(allowed)))  # equal, not the same
        assert first.asked == len(queries) + 1


def test_a_run_hands_the_scorer_its_pairs_in_one_call(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, _, _ = demo
    model = FakeModel()
    parts = Parts.of(build_searchers(catalog))
    parts = Parts(searchers=parts.searchers, scorer=HubPairScorer(model=model))
    run = run_config(Config(reranker="pair", depth=5), parts, catalog, labels)
    assert len(model.seen) == 1
    assert run.pairs_per_question * len(labels) == len(model.seen[0]) == 5 * len(labels)
    # and the built-in scorers' run is the one an unprimed reranker gives
    feature = run_config(Config(reranker="feature", depth=5), parts, catalog, labels)
    reranker = make_reranker("feature")
    assert reranker is not None
    plain = TwoStage(parts.first("hybrid"), reranker, 5, 3)
    allowed = catalog.allowed(Scope())
    for label in labels:
        assert feature.final_ids[label.id] == tuple(
            c.chunk.id for c in plain.search(label.question, allowed=allowed)
        )


def test_priming_an_empty_stage_or_empty_lists_scores_nothing() -> None:
    model = FakeModel()
    reranker = PairReranker(HubPairScorer(model=model))
    reranker.prime([], [])
    reranker.prime(["q"], [[]])
    assert model.seen == [] and reranker.pairs_scored == 0
    chunk = make_chunk("a:c0", "text")
    with pytest.raises(ValueError, match="zip"):
        reranker.prime(["q", "r"], [[Hit(1, 0.0, chunk)]])

    # a scorer failing while priming leaves nothing primed: the next rerank asks it again
    class Short:
        def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
            return [0.0]

    two = [Hit(1, 0.0, chunk), Hit(2, 0.0, make_chunk("b:c0", "other"))]
    short = PairReranker(Short())
    for call in (lambda: short.prime(["q"], [two]), lambda: short.rerank("q", two)):
        with pytest.raises(RerankerError, match="expected 2 scores from the scorer, found 1"):
            call()
