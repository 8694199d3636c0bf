"""A build whose candidate searches with MiniLM embeds the chunks on a thread of their own while
the stages before it run (`Parts.build(warm=True)`): the searcher it hands over is the one the
plain path builds, and an error raised while warming reaches the caller as it was raised. The
MiniLM searcher embeds the chunks of the default scope first (`parts._InScopeFirst`), and its
lists are those of a searcher over every chunk."""

from __future__ import annotations

import pytest

from evidencedesk.chunking import Chunk
from evidencedesk.errors import MissingExtraError
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval import parts as parts_module
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.searchers import DenseSearcher, SparseSearcher
from tests.test_minilm import CHUNKS, QUESTIONS, FakeEncoder, needs_model


@needs_model
def test_the_warmed_searcher_ranks_as_the_one_built_on_first_search() -> None:
    catalog = Catalog(CHUNKS)
    warmed = Parts.build(catalog, warm=True).searchers["minilm"]
    plain = Parts.build(catalog).searchers["minilm"]
    for question, _ in QUESTIONS:
        got = [(h.chunk.id, h.score) for h in warmed.search(question, 5, None)]
        assert got == [(h.chunk.id, h.score) for h in plain.search(question, 5, None)]
        assert len(got) == 5


def test_warming_hands_over_its_searcher_or_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # stand-in searchers, so that the thread's hand-over is seen without the model
    chunks = (Chunk("a:c0", "a", "", "returns within thirty days"),)
    made: list[str] = []

    def built(found: tuple[Chunk, ...], embedder: str, name: str) -> SparseSearcher:
        made.append(f"{embedder} {name} {len(found)}")
        return SparseSearcher(found)

    monkeypatch.setattr(parts_module, "_dense_searcher", built)
    warming = parts_module._Warming.start(Catalog(chunks))
    searcher = warming.result()
    assert made == ["minilm minilm 1"] and searcher.search("returns", 1, None)[0].chunk.id == "a:c0"
    assert warming.result() is searcher  # asked again: the same searcher, built once

    def broken(found: tuple[Chunk, ...], embedder: str, name: str) -> SparseSearcher:
        raise MissingExtraError("the MiniLM searcher", "minilm", ("onnxruntime",))

    monkeypatch.setattr(parts_module, "_dense_searcher", broken)
    with pytest.raises(MissingExtraError, match="onnxruntime"):
        parts_module._Warming.start(Catalog(chunks)).result()


def test_the_minilm_searcher_embeds_the_default_scopes_chunks_first_and_ranks_as_over_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the five passages, a superseded version of two and a restricted one: the default scope
    # admits the five
    old = tuple(Chunk(f"old-{c.id}", f"old-{c.doc_id}", "", c.text + " (before)",
                      status="superseded") for c in CHUNKS[:2])  # fmt: skip
    hidden = (Chunk("desk:c0", "desk", "", "Refunds over thirty days", visibility="restricted"),)
    chunks = CHUNKS[:3] + old + hidden + CHUNKS[3:]
    catalog = Catalog(chunks)
    fake = FakeEncoder()
    embedder = minilm.MiniLMEmbedder(fake)

    def built(found: tuple[Chunk, ...], kind: str, name: str) -> DenseSearcher:
        return DenseSearcher(found, embedder, name)

    monkeypatch.setattr(parts_module, "_dense_searcher", built)
    searcher = parts_module._InScopeFirst(catalog)
    embedded = sorted(t for batch in fake.batches for t in batch)
    assert embedded == sorted(f"\n{c.text}" for c in CHUNKS)  # "title\ntext", titles empty
    every = DenseSearcher(chunks, minilm.MiniLMEmbedder(FakeEncoder()))
    admitted = catalog.allowed(Scope())
    questions = [q for q, _ in QUESTIONS]
    for question in questions:
        got = searcher.search(question, 4, admitted)
        assert [(h.rank, h.chunk.id, h.score) for h in got] == [
            (h.rank, h.chunk.id, h.score) for h in every.search(question, 4, admitted)
        ]
    within = frozenset({"returns:c0", "cafe:c0"})  # a narrower scope: still the first searcher
    assert searcher.search_many(questions, 2, within) == every.search_many(questions, 2, within)
    seen = len(fake.batches)
    # no filter, or a scope beyond the default's: a searcher over every chunk, which embeds only
    # the three chunks not embedded yet
    for allowed in (None, catalog.allowed(Scope.everything())):
        assert searcher.search_many(questions, 8, allowed) == every.search_many(
            questions, 8, allowed
        )
    later = sorted(t for batch in fake.batches[seen:] for t in batch)
    assert later == sorted(f"\n{c.text}" for c in old + hidden)
    assert searcher.chunks == chunks  # anything else: the searcher over every chunk's


def test_warming_embeds_the_questions_after_the_chunks_and_a_search_embeds_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the build hands the warm thread its questions (`Parts.build(questions=...)`): their rows
    # are made there, after the chunks', and the first search finds them kept
    fake = FakeEncoder()
    embedder = minilm.MiniLMEmbedder(fake)

    def built(found: tuple[Chunk, ...], kind: str, name: str) -> DenseSearcher:
        return DenseSearcher(found, embedder, name)

    monkeypatch.setattr(parts_module, "_dense_searcher", built)
    questions = [q for q, _ in QUESTIONS]
    searcher = parts_module._Warming.start(Catalog(CHUNKS), embedder, questions).result()
    texts = [t for batch in fake.batches for t in batch]
    assert sorted(texts[: len(CHUNKS)]) == sorted(f"\n{c.text}" for c in CHUNKS)
    assert sorted(texts[len(CHUNKS) :]) == sorted(questions)
    made = len(fake.batches)
    every = DenseSearcher(CHUNKS, minilm.MiniLMEmbedder(FakeEncoder()))
    assert searcher.search_many(questions, 3, None) == every.search_many(questions, 3, None)
    assert len(fake.batches) == made  # every question's row was kept: no batch after
