"""Freshness, deletion and tenant boundaries on the real demo data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.chunking import _parse_document, chunk_document
from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.paths import CORPUS, DOCS, DUPS, TENANT_DOCS
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import (
    Tenancy,
    _Leak,
    _leak_table,
    _served_by_question,
    boundary_leaks,
    build_searchers,
    delete_document,
    replace_document,
    served,
)

RETURNS_QUESTION = "How many days do I have to return a bike for a full refund?"
V4 = """---
id: kc-returns-v4
title: Returns policy
version: 4
---
# Returns policy

Bikes and parts may be returned within 45 days of purchase for a full refund, provided the
conditions below are met.
"""


def texts(catalog, ids):  # type: ignore[no-untyped-def]
    return " ".join(catalog.get(c).text for c in ids)


def test_freshness_three_states() -> None:
    old = load_catalog()
    old_index = build_searchers(old)["sparse"]
    new_chunks = chunk_document(_parse_document(V4))
    new, change = replace_document(old, new_chunks)
    assert change.added == ("kc-returns-v4:c0",)
    assert "kc-returns-v3:c0" in change.superseded
    assert all(new.get(c).status == "superseded" for c in change.superseded)
    assert all(c in new for c in change.superseded), "old versions are kept for audit"

    # 1. The old index, no filter: still serves the superseded 30-day text.
    stale = _served_by_question(old_index, [RETURNS_QUESTION], None, 3)[RETURNS_QUESTION]
    assert "kc-returns-v3:c0" in stale and "30 days" in texts(old, stale)
    # 2. The old index with the new scope: v3 is hidden and v4 is unknown to it -> the answer is gone.
    filtered = _served_by_question(old_index, [RETURNS_QUESTION], new.allowed(Scope()), 3)[
        RETURNS_QUESTION
    ]
    assert not any(c.startswith(("kc-returns-v3", "kc-returns-v4")) for c in filtered)
    # 3. A rebuilt index serves the new version.
    rebuilt = _served_by_question(
        build_searchers(new)["sparse"], [RETURNS_QUESTION], new.allowed(Scope()), 3
    )[RETURNS_QUESTION]
    assert rebuilt[0] == "kc-returns-v4:c0" and "45 days" in new.get(rebuilt[0]).text


def test_replace_refuses_clashing_ids() -> None:
    old = load_catalog()
    with pytest.raises(EvidencedeskError, match="found 'kc-returns-v3:c0' already in the catalog"):
        replace_document(old, [old.get("kc-returns-v3:c0")])


def test_an_index_not_rebuilt_still_serves_deleted_text() -> None:
    old = load_catalog()
    index = build_searchers(old)["sparse"]
    new, change = delete_document(old, "kc-recall-rd2-24")
    assert change.removed and all(c.startswith("kc-recall-rd2-24:") for c in change.removed)
    assert not any(c.startswith("kc-recall-rd2-24") for c in new.ids())
    still = _served_by_question(index, ["RD2-24"], None, 3)["RD2-24"]
    assert still[0] in change.removed
    assert _served_by_question(build_searchers(new)["sparse"], ["RD2-24"], None, 3)["RD2-24"] == ()
    with pytest.raises(EvidencedeskError, match="unknown document 'nope'"):
        delete_document(old, "nope")


@pytest.fixture(scope="module")
def world():  # type: ignore[no-untyped-def]
    catalog = load_catalog(folders=(CORPUS, DOCS, DUPS, TENANT_DOCS))
    tenancy = Tenancy.load(known_docs={d.id for d in catalog.documents})
    return catalog, tenancy, build_searchers(catalog), load_labels()


def test_no_document_is_unowned(world) -> None:  # type: ignore[no-untyped-def]
    catalog, tenancy, _, _ = world
    assert tenancy.unowned(catalog) == ()
    assert tenancy.tenants == ("harbor", "kestrel")


def test_no_leaks_with_the_filter_and_the_control_crosses(world) -> None:  # type: ignore[no-untyped-def]
    catalog, tenancy, searchers, labels = world
    rows = _leak_table(searchers, catalog, tenancy, labels, Scope(), k=5)
    assert len(rows) == 3 * 2
    assert all(r.questions == len(labels) and r.results > 0 for r in rows)
    assert sum(r.leaks for r in rows) == 0
    # The control proves the test could fail: unfiltered Kestrel questions reach Harbor chunks.
    kestrel = [r for r in rows if r.tenant == "kestrel"]
    assert all(r.control_foreign > 0 for r in kestrel)
    assert any(e.startswith("hb-") for r in kestrel for e in r.control_examples)


class IgnoresTheFilter:
    """A broken searcher: asks its index with no filter, whatever it is given."""

    name = "broken"

    def __init__(self, inner):  # type: ignore[no-untyped-def]
        self.inner = inner

    def search(self, query, k, allowed):  # type: ignore[no-untyped-def]
        return self.inner.search(query, k, None)


def test_boundary_leaks_counts_leaked_results(world) -> None:  # type: ignore[no-untyped-def]
    catalog, tenancy, searchers, labels = world
    assert boundary_leaks(searchers, catalog, tenancy, labels, Scope()) == ()
    broken = {"broken": IgnoresTheFilter(searchers["sparse"])}
    leaks = boundary_leaks(broken, catalog, tenancy, labels, Scope(), k=5)
    table = _leak_table(broken, catalog, tenancy, labels, Scope(), k=5)
    assert len(leaks) == sum(r.leaks for r in table) > 0
    assert all(isinstance(x, _Leak) and x.searcher == "broken" for x in leaks)
    assert all(catalog.get(x.chunk).doc_id not in tenancy.owners[x.tenant] for x in leaks)
    assert {x.question for x in leaks} <= {label.id for label in labels}


def test_served_is_the_set_of_every_question_s_ids() -> None:
    catalog = load_catalog()
    index = build_searchers(catalog)["sparse"]
    asks = ["RD2-24", RETURNS_QUESTION]
    per_question = _served_by_question(index, asks, None, 3)
    assert served(index, asks, None, 3) == frozenset(per_question["RD2-24"]) | frozenset(
        per_question[RETURNS_QUESTION]
    )
    assert served(index, asks, frozenset(), 3) == frozenset()  # an empty scope serves nothing


def test_unknown_tenant_gets_nothing(world) -> None:  # type: ignore[no-untyped-def]
    catalog, tenancy, searchers, _ = world
    allowed = tenancy.allowed(catalog, "nobody", Scope())
    assert allowed == frozenset()
    assert all(s.search("RD2-24 recall", 5, allowed) == [] for s in searchers.values())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{",
            "tenants.json:1: expected JSON, found invalid JSON (Expecting property name enclosed in double quotes)",
        ),
        ('{"tenants": []}', 'tenants.json: expected {"tenants": {"<tenant>": ["<doc id>", ...]}}'),
        (
            '{"tenants": {"a": ["kc-x"], "a": []}}',
            'tenants.json:1: expected each key once per object, found "a" twice in "tenants"',
        ),
        (
            '{"tenants": {"a": ["kc-x"], "b": ["kc-x"]}}',
            "tenants.json: expected each document owned once, found 'kc-x' under 'a' and 'b'",
        ),
        (
            '{"tenants": {"a": ["kc-zzz"]}}',
            "tenants.json: unknown document 'kc-zzz' under tenants.a; expected an id of a loaded document",
        ),
        (
            '{"tenants": {"a": "kc-x"}}',
            "tenants.json: expected tenants.a to be a list of document ids, found 'kc-x'",
        ),
    ],
)
def test_bad_tenants_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "tenants.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        Tenancy.load(path, known_docs={"kc-x"})
    assert str(info.value) == f"{tmp_path}/{message}"


def test_demo_tenants_file_is_the_one_loaded() -> None:
    raw = json.loads((TENANT_DOCS.parent / "tenants.json").read_text(encoding="utf-8"))
    assert set(raw["tenants"]) == {"kestrel", "harbor"}
