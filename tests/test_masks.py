"""`_top_k` (partition, then stable sort) equals a full stable sort, ties included."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.retrieval.searchers import _top_k
from tests.conftest import make_chunk

CHUNKS = tuple(make_chunk(f"d{i}:c0", "text") for i in range(60))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=60, max_size=60),
    st.lists(st.booleans(), min_size=60, max_size=60),
    st.integers(1, 20),
)
def test_top_k_equals_a_full_stable_sort(values: list[int], usable: list[bool], k: int) -> None:
    scores = np.array(values, dtype=float)
    mask = np.array(usable)
    idx = np.flatnonzero(mask)
    expected = idx[np.argsort(-scores[idx], kind="stable")][:k]
    found = _top_k(scores, mask, k, CHUNKS)
    assert [c.chunk.id for c in found] == [CHUNKS[i].id for i in expected]
    assert [c.rank for c in found] == list(range(1, len(expected) + 1))
