"""Rerankers (SPEC §5) on the real demo data, plus HubPairScorer plumbing with a fake model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evidencedesk.errors import EvidencedeskError, RerankerError, UnknownNameError
from evidencedesk.retrieval._scorers import OverlapScorer
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.rerankers import (
    _RERANKERS,
    FeatureReranker,
    HubPairScorer,
    LexicalPairScorer,
    PairReranker,
    _BlendReranker,
    _OverlapReranker,
    make_reranker,
)
from evidencedesk.retrieval.searchers import (
    DenseSearcher,
    Hit,
    HybridSearcher,
    SparseSearcher,
    TwoStage,
    _Reranker,
)
from tests.conftest import make_chunk

RECALL_CHUNK = "kc-recall-rd2-24:c0"


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    labels = {label.id: label for label in load_labels(catalog=catalog)}
    return catalog, labels, SparseSearcher(catalog.chunks), catalog.allowed(Scope())


class ConstantScorer:
    def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [1.5 for _ in pairs]


class FakeModel:
    def __init__(self) -> None:
        self.seen: list[list[tuple[str, str]]] = []

    def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        self.seen.append(list(pairs))
        return [float(len(p)) for _, p in pairs]  # longer passage, higher score


def test_lexical_raw_scores_are_not_probabilities(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, sparse, allowed = demo
    recall = labels["rc01"]
    assert "RD2-24" in recall.question
    found = sparse.search(recall.question, 10, allowed)
    reranked = make_reranker("pair").rerank(recall.question, found)  # type: ignore[union-attr]
    scores = [c.score for c in reranked]
    assert max(scores) > 1 and min(scores) < 0, scores  # outside [0, 1]
    assert reranked[0].chunk.id in recall.relevant
    assert all(-4 <= s <= 6 for s in scores)
    assert [c.rank for c in reranked] == list(range(1, len(found) + 1))


def test_lexical_features_and_weights(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, _, _ = demo
    scorer = LexicalPairScorer()
    assert sum(scorer.WEIGHTS.values()) == pytest.approx(1.0)
    chunk = catalog.get(RECALL_CHUNK)
    f = scorer.features("rear derailleurs RD2-24", chunk.title, chunk.text)
    # (rear, derailleurs) stand adjacent in the chunk, (derailleurs, rd2-24) do not;
    # "rear" and "derailleurs" are in the title, "rd2-24" is not
    assert (f.coverage, f.bigrams, f.identifiers) == (1.0, 0.5, 1.0)
    assert f.title == pytest.approx(2 / 3)
    expected = 10 * (0.45 + 0.20 * 0.5 + 0.25 + 0.10 * 2 / 3) - 4
    assert scorer.score("rear derailleurs RD2-24", chunk.title, chunk.text) == pytest.approx(
        expected
    )
    assert scorer.predict([("RD2-24", "no title text")]) == [pytest.approx(-4.0)]
    # it reads words, not meaning: a paraphrase with no shared word scores the floor
    assert scorer.score("cog changer", chunk.title, chunk.text) == pytest.approx(-4.0)


def test_ties_keep_first_stage_order_and_are_counted(demo) -> None:  # type: ignore[no-untyped-def]
    _, labels, sparse, allowed = demo
    reranker = PairReranker(ConstantScorer(), name="flat")
    questions = [labels["rc01"], labels["dr01"], labels["st02"]]
    for label in questions:
        found = sparse.search(label.question, 5, allowed)
        out = reranker.rerank(label.question, found)
        assert [c.chunk.id for c in out] == [c.chunk.id for c in found]
        flipped = reranker.rerank(label.question, found[::-1])
        assert [c.chunk.id for c in flipped] == [c.chunk.id for c in found[::-1]]
    assert reranker.ties_at_top == 2 * len(questions)
    # a real scorer with a clear winner does not count a tie; one candidate never ties
    lexical = make_reranker("feature")
    assert lexical is not None
    lexical.rerank(labels["rc01"].question, sparse.search(labels["rc01"].question, 5, allowed))
    lexical.rerank("x", sparse.search("RD2-24", 1, allowed))
    assert lexical.ties_at_top == 0
    reranker.reset()
    assert (reranker.pairs_scored, reranker.ties_at_top) == (0, 0)


def test_eight_word_cut_removes_the_identifier(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, _, _ = demo
    cand = Hit(1, 0.0, catalog.get(RECALL_CHUNK))
    full, cut = PairReranker(LexicalPairScorer()), PairReranker(LexicalPairScorer(), max_words=8)
    assert "RD2-24" in full.passage(cand)
    assert "RD2-24" not in cut.passage(cand) and len(cut.passage(cand).split()) == 8
    assert cut.passage(cand).startswith(f"{cand.chunk.title} || ")
    question = labels["rc01"].question
    assert full.score(question, [cand])[0] > cut.score(question, [cand])[0]


def test_pair_counter_is_candidates_times_questions(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, labels, sparse, allowed = demo
    hybrid = HybridSearcher(sparse, DenseSearcher(catalog.chunks))
    depth = 5
    for name in ("overlap", "feature", "pair", "blend"):
        reranker = make_reranker(name)
        assert isinstance(reranker, _Reranker)
        two = TwoStage(hybrid, reranker, depth=depth, final=3)
        expected = 0
        for label in labels.values():
            expected += len(hybrid.search(label.question, depth, allowed))
            two.search(label.question, allowed=allowed)
        assert expected == depth * len(labels)  # the dense half always fills the depth
        assert reranker.pairs_scored == expected, name
        assert two.pairs_scored == expected
    assert make_reranker("none") is None


def test_named_rerankers_and_blend_fuses_both_orders(demo) -> None:  # type: ignore[no-untyped-def]
    _, labels, sparse, allowed = demo
    assert _RERANKERS == ("none", "overlap", "feature", "pair", "blend", "minilm")
    assert isinstance(make_reranker("overlap"), _OverlapReranker)
    assert isinstance(make_reranker("feature", scorer=ConstantScorer()), FeatureReranker)
    blend = make_reranker("blend", max_words=8)
    assert isinstance(blend, _BlendReranker) and blend.max_words == 8
    # "minilm" is the real model of an optional extra: tests/test_minilm.py
    for reranker in (make_reranker(n) for n in _RERANKERS[1:] if n != "minilm"):
        assert reranker is not None and reranker.rerank("q", []) == []
        assert reranker.pairs_scored == 0 and reranker.ties_at_top == 0
    # blend of first stage [a, b] and a reranker that flips them: a tie, first stage wins
    a, b = make_chunk("a:c0", "short"), make_chunk("b:c0", "a much longer passage")
    flip = _BlendReranker(PairReranker(FakeModel()))
    out = flip.rerank("q", [Hit(1, 9.0, a), Hit(2, 1.0, b)])
    assert [c.chunk.id for c in out] == ["a:c0", "b:c0"] and flip.ties_at_top == 1
    assert flip.pairs_scored == 2
    flip.reset()
    assert (flip.pairs_scored, flip.ties_at_top) == (0, 0)


def test_unknown_reranker_name_and_bad_max_words() -> None:
    with pytest.raises(UnknownNameError) as err:
        make_reranker("colbert")
    assert str(err.value) == (
        "unknown reranker 'colbert'; expected one of: none, overlap, feature, pair, blend, minilm"
    )
    assert isinstance(err.value, ValueError)
    with pytest.raises(RerankerError, match="max_words: expected None or an integer >= 1"):
        make_reranker("pair", max_words=0)


def test_scorer_returning_the_wrong_count_is_an_error() -> None:
    class Short:
        def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
            return [0.0]

    chunk = make_chunk("a:c0", "text")
    with pytest.raises(RerankerError, match="expected 2 scores from the scorer, found 1"):
        PairReranker(Short()).rerank("q", [Hit(1, 0, chunk), Hit(2, 0, chunk)])


def test_hub_scorer_plumbing_with_a_fake_model(demo) -> None:  # type: ignore[no-untyped-def]
    _, labels, sparse, allowed = demo
    model = FakeModel()
    scorer = HubPairScorer(model=model)
    assert scorer.name == "cross-encoder/ms-marco-MiniLM-L6-v2"
    reranker = make_reranker("pair", scorer=scorer, max_words=20)
    assert reranker is not None
    question = labels["dr01"].question
    found = sparse.search(question, 4, allowed)
    out = reranker.rerank(question, found)
    assert len(model.seen) == 1 and len(model.seen[0]) == 4
    assert all(q == question and " || " in p for q, p in model.seen[0])
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)
    assert reranker.pairs_scored == 4
    assert scorer.predict([]) == [] and len(model.seen) == 1
    with pytest.raises(EvidencedeskError, match="predict"):
        HubPairScorer(model=object())


def test_hub_scorer_without_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import now fails
    with pytest.raises(EvidencedeskError) as err:
        HubPairScorer()
    message = str(err.value)
    assert "install the optional extra: pip install 'evidencedesk[models]'" in message
    assert "cross-encoder/ms-marco-MiniLM-L6-v2" in message


def test_hub_scorer_weights_that_cannot_load(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    def offline(name: str) -> None:
        raise OSError(f"We couldn't connect to 'https://huggingface.co' to load {name}")

    fake = types.ModuleType("sentence_transformers")
    fake.CrossEncoder = offline  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake)
    with pytest.raises(EvidencedeskError, match="could not load the cross-encoder weights 'x/y'"):
        HubPairScorer("x/y")


def test_importing_evidencedesk_never_imports_sentence_transformers() -> None:
    code = (
        "import sys, evidencedesk, evidencedesk.retrieval.rerankers, "
        "evidencedesk.retrieval.evidence; print('sentence_transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_lexical_scores_do_not_depend_on_what_was_scored_before() -> None:
    """The scorers keep each text's analysis across calls and instances (one build asks the same
    questions of the same passages at every depth); the scores stay those of a fresh analysis."""
    pairs = [
        ("express shipping days", "Shipping || Express shipping takes 2 business days."),
        ("RD2-24 brake", "Recall || Notice RD2-24: stop using the lever."),
        ("express shipping days", "Shipping || Standard shipping takes 4 to 7 days."),
        ("returns", "FAQ || "),
    ]
    first = LexicalPairScorer().predict(pairs)
    again = LexicalPairScorer().predict(list(reversed(pairs)))[::-1]
    assert first == again
    # hand-worked: coverage 3/3, bigrams 1/2 ("shipping takes" breaks "shipping days"), no
    # identifier, title 1/3 -> 10 * (0.45 + 0.10 + 0.0333...) - 4 = 1.8333...
    assert first[0] == pytest.approx(10 * (0.45 + 0.20 / 2 + 0.10 / 3) - 4)
    # "brake" is not in the passage: coverage 1/2, bigrams 0/1, identifiers 1/1, title 0
    # -> 10 * (0.225 + 0.25) - 4 = 0.75
    assert first[1] == pytest.approx(0.75)
    assert OverlapScorer().predict(pairs) == [1.0, 0.5, 2 / 3, 0.0]


def test_kept_list_scores_equal_fresh_ones_and_still_count(demo) -> None:  # type: ignore[no-untyped-def]
    """A built-in scorer's scores of one query's candidate list are kept (the build's "pair
    scores" memo) and reused
    by the next configuration that reranks the same list: the same order and scores as a fresh
    scorer, and the pairs are counted again (they are the configuration's cost)."""
    from evidencedesk.retrieval._memos import build_memos

    catalog, labels, sparse, allowed = demo
    question = labels["rc01"].question
    found = sparse.search(question, 8, allowed)
    for name, max_words in (("feature", None), ("overlap", 8), ("pair", None)):
        with build_memos():
            fresh = make_reranker(name, max_words=max_words).rerank(question, found)  # type: ignore[union-attr]
            again = make_reranker(name, max_words=max_words)
            assert again is not None
            kept = again.rerank(question, found)
            assert [(c.rank, c.score, c.chunk.id) for c in kept] == [
                (c.rank, c.score, c.chunk.id) for c in fresh
            ]
            assert again.pairs_scored == len(found)
            assert again.rerank(question, found) == kept and again.pairs_scored == 2 * len(found)
    # another window is another list: not taken from the 8-word one
    with build_memos() as memos:
        eight = make_reranker("overlap", max_words=8).rerank(question, found)  # type: ignore[union-attr]
        whole = make_reranker("overlap").rerank(question, found)  # type: ignore[union-attr]
        assert len(memos.table("pair scores", dict)[OverlapScorer]) == 2 and eight != whole
    # any other scorer (a real cross-encoder, a test double) is asked every time
    model = FakeModel()
    hub = PairReranker(HubPairScorer(model=model))
    hub.rerank(question, found)
    hub.rerank(question, found)
    assert len(model.seen) == 2


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("Returns", "Refunds within 30 days; RD2-24 recalled."),
        ("A-", ".b c.d e-f"),
        ("", "x || y z"),
        ("Straße", "STRASSE-7 ok."),
        ("বাইক ফেরত", "দেওয়ার নিয়ম"),
    ],
)
def test_passage_words_are_those_of_the_space_joined_passage(title: str, text: str) -> None:
    """The scorers tokenise "title\\ntext" (the indexes' string, cached) for "title text" and
    "title || text": the same words."""
    from evidencedesk.retrieval._tokens import content_words

    want = content_words(f"{title} {text}")
    assert content_words(f"{title}\n{text}") == want
    assert content_words(f"{title} || {text}") == want
    passage = f"{title} || {text}"
    q_words = list(dict.fromkeys(content_words("refunds x straße ফেরত c.d")))
    expected = sum(w in set(want) for w in q_words) / len(q_words)
    assert OverlapScorer().predict([("refunds x straße ফেরত c.d", passage)]) == [expected]
