"""Scope and determinism on the real demo data."""

from __future__ import annotations

import pytest

from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import build_searchers


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    return catalog, build_searchers(catalog)


def test_hidden_chunks_never_come_back_even_for_their_own_text(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, searchers = demo
    allowed = catalog.allowed(Scope())
    hidden = [c for c in catalog.chunks if c.status != "current" or c.visibility != "public"]
    assert {c.status for c in hidden} == {"superseded"} | (
        {"current"} if any(c.visibility == "restricted" for c in hidden) else set()
    )
    assert any(c.visibility == "restricted" for c in hidden)
    for chunk in hidden:
        for searcher in searchers.values():
            ids = [c.chunk.id for c in searcher.search(chunk.text, 10, allowed)]
            assert chunk.id not in ids, (searcher.name, chunk.id)
            # ... while without the filter the copied text finds its own chunk first.
            if searcher.name == "sparse":
                assert searcher.search(chunk.text, 1, None)[0].chunk.id == chunk.id


def test_rd2_24_is_found_exactly_by_bm25(demo) -> None:  # type: ignore[no-untyped-def]
    catalog, searchers = demo
    top = searchers["sparse"].search("RD2-24", 3, catalog.allowed(Scope()))
    assert top and all("RD2-24" in c.chunk.text or "RD2-24" in c.chunk.title for c in top)
    assert top[0].chunk.doc_id == "kc-recall-rd2-24"


def test_loading_twice_gives_the_same_order_and_results() -> None:
    first, second = load_catalog(), load_catalog()
    assert first.ids() == second.ids()
    labels = load_labels(catalog=first)
    a, b = build_searchers(first), build_searchers(second)
    allowed = first.allowed(Scope())
    for name in ("sparse", "dense", "hybrid"):
        for label in labels:
            ra = [
                (c.rank, round(c.score, 12), c.chunk.id)
                for c in a[name].search(label.question, 10, allowed)
            ]
            rb = [
                (c.rank, round(c.score, 12), c.chunk.id)
                for c in b[name].search(label.question, 10, allowed)
            ]
            assert ra == rb
