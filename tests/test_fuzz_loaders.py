"""Fuzzed loaders: random bytes and random JSON/TOML structures.

The only exception any loader may let escape is an `EvidencedeskError` subclass: anything else
would reach the user as a traceback.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidencedesk.chunking import load_document
from evidencedesk.errors import EvidencedeskError
from evidencedesk.results._candidates import load_candidates
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import Tenancy

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
label_like = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values | st.text(max_size=6),
        "question": json_values | st.text(max_size=12),
        "tags": json_values | st.lists(st.text(max_size=6), max_size=3),
        "answerable": json_values,
        "grades": json_values
        | st.dictionaries(st.sampled_from(["a:c0", "b:c1", "zz"]), st.integers(-1, 4), max_size=3),
    },
)
toml_scalars = st.integers(-3, 30) | st.booleans() | st.text(max_size=10)
candidate_like = st.dictionaries(
    st.sampled_from(["name", "rationale", "changes", "extra"]),
    toml_scalars
    | st.dictionaries(
        st.sampled_from(["reranker", "depth", "final", "speed"]), toml_scalars, max_size=3
    ),
    max_size=4,
)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def only_our_errors(load: Callable[[Path], object], data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            load(path)
        except EvidencedeskError:
            pass


@FUZZ
@given(st.binary(max_size=300))
def test_documents_from_random_bytes(data: bytes) -> None:
    only_our_errors(load_document, data, "doc.md")


@FUZZ
@given(
    st.lists(
        st.sampled_from(["---", "id: a", "title: T", "status: x", "version: 1", ": :", "", "text"]),
        max_size=8,
    )
)
def test_documents_from_random_headers(lines: list[str]) -> None:
    only_our_errors(load_document, "\n".join(lines).encode(), "doc.md")


@FUZZ
@given(st.binary(max_size=300))
def test_labels_from_random_bytes(data: bytes) -> None:
    only_our_errors(lambda p: load_labels(p, catalog={"a:c0"}), data, "labels.jsonl")


@FUZZ
@given(st.lists(label_like | json_values, min_size=1, max_size=4))
def test_labels_from_random_json(rows: list[Any]) -> None:
    data = "\n".join(json.dumps(r) for r in rows).encode()
    only_our_errors(lambda p: load_labels(p, catalog={"a:c0", "b:c1"}), data, "labels.jsonl")


@FUZZ
@given(json_values | st.fixed_dictionaries({"tenants": json_values}))
def test_tenants_from_random_json(value: Any) -> None:
    only_our_errors(
        lambda p: Tenancy.load(p, known_docs={"a"}), json.dumps(value).encode(), "tenants.json"
    )


@FUZZ
@given(st.binary(max_size=200))
def test_tenants_from_random_bytes(data: bytes) -> None:
    only_our_errors(Tenancy.load, data, "tenants.json")


@FUZZ
@given(st.lists(candidate_like, max_size=3))
def test_candidates_from_random_toml(entries: list[dict[str, Any]]) -> None:
    text = "\n".join(
        "[[candidate]]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in entry.items())
        for entry in entries
    )
    only_our_errors(lambda p: load_candidates(p, notes=None), text.encode(), "candidates.toml")


@FUZZ
@given(st.binary(max_size=200))
def test_candidates_from_random_bytes(data: bytes) -> None:
    only_our_errors(lambda p: load_candidates(p, notes=None), data, "candidates.toml")
