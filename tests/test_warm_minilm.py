"""A build whose candidate searches with MiniLM embeds the chunks on a thread of their own while
the stages before it run (`Parts.build(warm=True)`): the searcher it hands over is the one the
plain path builds, and an error raised while warming reaches the caller as it was raised."""

from __future__ import annotations

import pytest

from evidencedesk.chunking import Chunk
from evidencedesk.errors import MissingExtraError
from evidencedesk.retrieval import parts as parts_module
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.parts import Parts
from evidencedesk.retrieval.searchers import SparseSearcher
from tests.test_minilm import CHUNKS, QUESTIONS, needs_model


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
    warming = parts_module._Warming.start(chunks)
    searcher = warming.result()
    assert made == ["minilm minilm 1"] and searcher.search("returns", 1, None)[0].chunk.id == "a:c0"
    assert warming.result() is searcher  # asked again: the same searcher, built once

    def broken(found: tuple[Chunk, ...], embedder: str, name: str) -> SparseSearcher:
        raise MissingExtraError("the MiniLM searcher", "minilm", ("onnxruntime",))

    monkeypatch.setattr(parts_module, "_dense_searcher", broken)
    with pytest.raises(MissingExtraError, match="onnxruntime"):
        parts_module._Warming.start(chunks).result()
