from __future__ import annotations

import numpy as np
import pytest

from evidencedesk.chunking import Chunk
from evidencedesk.retrieval import _dense as dense_module
from evidencedesk.retrieval._dense import ToyEmbedder
from evidencedesk.retrieval._tokens import is_identifier, tokenize
from evidencedesk.retrieval.evalreport import Config
from evidencedesk.retrieval.parts import _ConfigSearcher
from evidencedesk.retrieval.searchers import (
    DenseSearcher,
    Hit,
    HybridSearcher,
    SparseSearcher,
    TwoStage,
    _rrf,
)


def test_bangla_word_with_vowel_signs_is_one_token() -> None:
    # দেওয়ার carries the vowel signs ে and া and a nukta: one word, one token.
    assert tokenize("বাইক ফেরত দেওয়ার নিয়ম") == ["বাইক", "ফেরত", "দেওয়ার", "নিয়ম"]


def test_identifiers_stay_whole_and_text_is_case_folded() -> None:
    assert tokenize("Batch RD2-24, STRASSE and Straße.") == [
        "batch",
        "rd2-24",
        "strasse",
        "and",
        "strasse",
    ]
    assert is_identifier("rd2-24") and not is_identifier("returns")


def searchers(chunks: list[Chunk]) -> dict[str, object]:
    sparse, dense = SparseSearcher(chunks), DenseSearcher(chunks)
    return {"sparse": sparse, "dense": dense, "hybrid": HybridSearcher(sparse, dense)}


def test_bm25_matches_the_identifier_exactly(tiny_chunks: list[Chunk]) -> None:
    found = SparseSearcher(tiny_chunks).search("RD2-24", 3, None)
    assert [c.chunk.id for c in found] == ["b:c0"]
    assert found[0].rank == 1 and found[0].score > 0


@pytest.mark.parametrize("name", ["sparse", "dense", "hybrid"])
def test_empty_allowed_set_means_nothing_and_none_means_no_filter(
    tiny_chunks: list[Chunk], name: str
) -> None:
    searcher = searchers(tiny_chunks)[name]
    assert searcher.search("refund 30 days", 5, frozenset()) == []
    assert len(searcher.search("refund 30 days", 5, None)) >= 2


@pytest.mark.parametrize("name", ["sparse", "dense", "hybrid"])
def test_filter_applies_before_ranking(tiny_chunks: list[Chunk], name: str) -> None:
    searcher = searchers(tiny_chunks)[name]
    allowed = frozenset({"a:c0", "c:c0"})
    found = searcher.search("Internal note: staff may refund after 30 days.", 1, allowed)
    # Filtering after a top-1 cut would return nothing: the restricted note wins unfiltered.
    assert [
        c.chunk.id
        for c in searcher.search("Internal note: staff may refund after 30 days.", 1, None)
    ] == ["e:c0"]
    assert [c.chunk.id for c in found] == ["a:c0"]


def test_toy_embedder_is_deterministic_and_normalised() -> None:
    a, b = (
        ToyEmbedder().embed("Returns within 30 days"),
        ToyEmbedder().embed("Returns within 30 days"),
    )
    assert (a == b).all()
    assert abs(float((a * a).sum()) - 1.0) < 1e-12


def test_rrf_fuses_by_reciprocal_rank(tiny_chunks: list[Chunk]) -> None:
    from evidencedesk.retrieval.searchers import Hit

    one = [Hit(1, 9.0, tiny_chunks[0]), Hit(2, 5.0, tiny_chunks[1])]
    two = [Hit(1, 0.9, tiny_chunks[1]), Hit(2, 0.5, tiny_chunks[2])]
    fused = _rrf([one, two], 3, rrf_k=60)
    assert [c.chunk.id for c in fused] == ["b:c0", "a:c0", "c:c0"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_two_stage_without_reranker_keeps_final(tiny_chunks: list[Chunk]) -> None:
    stage = TwoStage(SparseSearcher(tiny_chunks), None, depth=4, final=1)
    found = stage.search("refund 30 days", 10, None)
    assert len(found) == 1 and found[0].rank == 1 and stage.pairs_scored == 0


@pytest.mark.parametrize(
    ("prefilter", "expected"),
    [
        (True, ["a:c0"]),  # the scope inside stage one: the best allowed chunk
        (False, []),  # stage one's top 1 is the restricted note; the scope then drops it
    ],
)
def test_two_stage_prefilter_or_postfilter(
    tiny_chunks: list[Chunk], prefilter: bool, expected: list[str]
) -> None:
    stage = TwoStage(SparseSearcher(tiny_chunks), None, depth=1, final=1, prefilter=prefilter)
    found = stage.search("Internal note: staff may refund after 30 days.", 1, ALLOWED)
    assert [c.chunk.id for c in found] == expected


def test_config_searcher_is_the_two_stage_searcher(tiny_chunks: list[Chunk]) -> None:
    cfg = Config(first_stage="sparse", reranker="none", depth=1, final=1, prefilter=False)
    searcher = _ConfigSearcher(cfg, SparseSearcher(tiny_chunks), None)
    found = searcher.search("Internal note: staff may refund after 30 days.", 1, ALLOWED)
    assert isinstance(searcher, TwoStage) and found == [] and searcher.shown == [[]]
    assert searcher.name == cfg.label()


ALLOWED = frozenset({"a:c0", "c:c0"})

# -- batching (issue 17): the same numbers as the per-text, per-pair way ------------------------

TEXTS = [
    "Returns within 30 days; returns need the receipt.",  # a repeated word
    "Recall notice RD2-24 for the brake lever",
    "বাইক ফেরত দেওয়ার নিয়ম",
    "",
    "the of and",  # stop words only: a zero vector
    "Express shipping takes 2 business days",
]


def reference_embedding(text: str, dim: int = 512) -> np.ndarray:
    """The toy embedding as specified: one feature at a time, then L2-normalised."""
    vec = np.zeros(dim)
    for feature, weight in ToyEmbedder(dim).features(text):
        slot, sign = dense_module._bucket(feature, dim)
        vec[slot] += sign * weight
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


def test_embed_many_equals_the_per_feature_loop_bit_for_bit() -> None:
    embedder = ToyEmbedder()
    matrix = embedder.embed_many(TEXTS)
    assert matrix.shape == (6, 512)
    for row, text in zip(matrix, TEXTS, strict=True):
        assert np.array_equal(row, reference_embedding(text))
        assert np.array_equal(embedder.embed(text), row)
    assert not matrix[3].any() and not matrix[4].any()
    assert embedder.embed_many([]).shape == (0, 512)
    # a word twice doubles its features: the same direction, so the same unit vector
    assert np.array_equal(embedder.embed("returns returns"), embedder.embed("returns"))
    assert not np.array_equal(
        embedder.embed("returns returns days"), embedder.embed("returns days")
    )


def test_dense_scores_over_nonzero_slots_equal_the_full_product(tiny_chunks: list[Chunk]) -> None:
    searcher = DenseSearcher(tiny_chunks)
    for query in ["RD2-24 recall", "returns", "বাইক", "zzz unknown words"]:
        full = searcher.matrix @ searcher.embedder.embed(query)
        assert np.allclose(searcher.scores(query), full, rtol=0, atol=1e-15)
        order = [c.chunk.id for c in searcher.search(query, len(tiny_chunks), None)]
        stable = sorted(range(len(full)), key=lambda i: -round(float(full[i]), 12))
        assert order == [tiny_chunks[i].id for i in stable]


def reference_rrf(rankings: list[list[Hit]], k: int, rrf_k: int = 60) -> list[Hit]:
    """Reciprocal-rank fusion as first written: a default of 0.0 per chunk, a negated key."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for cand in ranking:
            scores[cand.chunk.id] = scores.get(cand.chunk.id, 0.0) + 1.0 / (rrf_k + cand.rank)
            chunks.setdefault(cand.chunk.id, cand.chunk)
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [Hit(r, scores[cid], chunks[cid]) for r, cid in enumerate(order[:k], start=1)]


@pytest.mark.parametrize("seed", range(6))
def test_rrf_equals_the_reference_with_ties(seed: int) -> None:
    import random

    rng = random.Random(seed)
    pool = [Chunk(f"d{i}:c0", f"d{i}", "t", f"text {i}") for i in range(30)]
    rankings = []
    for _ in range(rng.randint(1, 3)):
        picked = rng.sample(pool, rng.randint(0, 20))
        rankings.append([Hit(r, 0.0, c) for r, c in enumerate(picked, start=1)])
    # mirrored lists tie every chunk that is in both at the same total
    rankings.append(list(reversed([Hit(r, 0.0, c) for r, c in enumerate(pool[:8], 1)])))
    for k in (1, 5, 50):
        got, want = _rrf(rankings, k), reference_rrf(rankings, k)
        assert [(c.rank, c.score, c.chunk.id) for c in got] == [
            (c.rank, c.score, c.chunk.id) for c in want
        ]
