"""Index lifecycle: building searchers, freshness (replace), deletion, and tenant boundaries.

An index is a snapshot: a searcher built before a change still holds the old text. `served`
shows what such an index would still hand out, which is why scope filters and rebuilds matter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidencedesk.chunking import Chunk
from evidencedesk.errors import ConfigError, EvidencedeskError, UnknownNameError
from evidencedesk.files._project_file import DENSE_EMBEDDERS
from evidencedesk.files._structured import read_json
from evidencedesk.paths import DATA
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._search_cache import LazySearcher
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.searchers import (
    DenseSearcher,
    HybridSearcher,
    SparseSearcher,
    _Searcher,
)

__all__ = [
    "Change",
    "Tenancy",
    "boundary_leaks",
    "build_searchers",
    "delete_document",
    "replace_document",
    "served",
]

_TENANTS_FILE = DATA / "tenants.json"  # the demo's tenants and the documents each may see


def build_searchers(catalog: Catalog, dense: str = "toy") -> dict[str, _Searcher]:
    """Index every chunk of the catalog (scope is applied at query time).

    `dense` is the dense searcher's embedder (`DENSE_EMBEDDERS`): the toy, or ``"minilm"``
    (the real model of the optional extra; without it this raises `MissingExtraError` before
    anything is indexed). The dense index is built on its first search: it costs ten times
    BM25's build, and several callers (the freshness, deletion and dedupe checks) only use
    ``"sparse"``.
    """
    chunks = catalog.chunks  # the snapshot both indexes are built from, now or on first search
    _check_dense(dense)
    sparse = SparseSearcher(chunks)
    lazy = LazySearcher("dense", lambda: _dense_searcher(chunks, dense))
    return {"sparse": sparse, "dense": lazy, "hybrid": HybridSearcher(sparse, lazy)}


def _check_dense(embedder: str) -> None:
    """An unknown embedder lists the valid ones; ``"minilm"`` without its extra names the
    packages to install."""
    if embedder not in DENSE_EMBEDDERS:
        raise UnknownNameError("dense embedder", embedder, DENSE_EMBEDDERS)
    if embedder == "minilm":
        minilm._require()


def _dense_searcher(
    chunks: tuple[Chunk, ...], embedder: str = "toy", name: str = "dense"
) -> _Searcher:
    """A `DenseSearcher` over `chunks` with the named embedder (`DENSE_EMBEDDERS`)."""
    _check_dense(embedder)
    if embedder == "minilm":
        return DenseSearcher(chunks, minilm._default_embedder(), name)
    return DenseSearcher(chunks, name=name)


@dataclass(frozen=True)
class Change:
    """What a lifecycle operation did to the catalog."""

    kind: str
    doc_id: str
    added: tuple[str, ...] = ()
    superseded: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def replace_document(catalog: Catalog, new_chunks: Sequence[Chunk]) -> tuple[Catalog, Change]:
    """Add a new version; current chunks of the same series become superseded (kept for audit)."""
    if not new_chunks:
        raise EvidencedeskError("replace_document: expected the new version's chunks, found none")
    series = {c.series or c.doc_id for c in new_chunks}
    doc_ids = {c.doc_id for c in new_chunks}
    if len(series) != 1 or len(doc_ids) != 1:
        raise EvidencedeskError(
            f"replace_document: expected chunks of one document, found {sorted(doc_ids)}"
        )
    clash = sorted(c.id for c in new_chunks if c.id in catalog)
    if clash:
        raise EvidencedeskError(
            f"replace_document: expected new chunk ids, found {clash[0]!r} already in the catalog"
        )
    (name,) = series
    superseded: list[str] = []
    kept: list[Chunk] = []
    for chunk in catalog.chunks:
        if (chunk.series or chunk.doc_id) == name and chunk.status == "current":
            chunk = dataclasses.replace(chunk, status="superseded")
            superseded.append(chunk.id)
        kept.append(chunk)
    new_catalog = Catalog(chunks=tuple(kept) + tuple(new_chunks), documents=catalog.documents)
    change = Change(
        "replace", new_chunks[0].doc_id, tuple(c.id for c in new_chunks), tuple(superseded)
    )
    return new_catalog, change


def delete_document(catalog: Catalog, doc_id: str) -> tuple[Catalog, Change]:
    """Remove every chunk of `doc_id` from the catalog (an old index still holds them)."""
    removed = tuple(c.id for c in catalog.chunks if c.doc_id == doc_id)
    if not removed:
        raise EvidencedeskError(f"delete_document: unknown document {doc_id!r}")
    kept = tuple(c for c in catalog.chunks if c.doc_id != doc_id)
    documents = tuple(d for d in catalog.documents if d.id != doc_id)
    return Catalog(chunks=kept, documents=documents), Change("delete", doc_id, removed=removed)


def _question_text(question: Any) -> tuple[str, str]:
    if isinstance(question, str):
        return question, question
    return question.id, question.question


def _served_by_question(
    searcher: _Searcher, questions: Iterable[Any], allowed: frozenset[str] | None, k: int
) -> dict[str, tuple[str, ...]]:
    """Question id -> chunk ids the index hands out (questions: labels or plain strings)."""
    result: dict[str, tuple[str, ...]] = {}
    for question in questions:
        qid, text = _question_text(question)
        result[qid] = tuple(c.chunk.id for c in searcher.search(text, k, allowed))
    return result


def served(
    searcher: _Searcher, questions: Iterable[Any], allowed: frozenset[str] | None, k: int
) -> frozenset[str]:
    """Every chunk id the index hands out for these questions (the course page's shape: a set,
    to intersect with what a change removed). Per question: `_served_by_question`."""
    return frozenset(
        c for ids in _served_by_question(searcher, questions, allowed, k).values() for c in ids
    )


@dataclass(frozen=True)
class Tenancy:
    """Which tenant owns which documents. A document with no owner goes to nobody."""

    owners: Mapping[str, frozenset[str]]

    @property
    def tenants(self) -> tuple[str, ...]:
        return tuple(sorted(self.owners))

    def owner_of(self, doc_id: str) -> str | None:
        for tenant in self.tenants:
            if doc_id in self.owners[tenant]:
                return tenant
        return None

    @classmethod
    def load(
        cls, path: str | Path = _TENANTS_FILE, known_docs: Iterable[str] | None = None
    ) -> Tenancy:
        path = Path(path)
        raw, _ = read_json(path, ConfigError, "tenants file")  # a tenant twice: refused there
        tenants = raw.get("tenants") if isinstance(raw, dict) else None
        if not isinstance(tenants, dict) or set(raw) != {"tenants"}:
            raise ConfigError(path, 'expected {"tenants": {"<tenant>": ["<doc id>", ...]}}')
        known = None if known_docs is None else set(known_docs)
        owner: dict[str, str] = {}
        owners: dict[str, frozenset[str]] = {}
        for tenant, docs in tenants.items():
            if not isinstance(docs, list) or not all(isinstance(d, str) for d in docs):
                raise ConfigError(
                    path, f"expected tenants.{tenant} to be a list of document ids, found {docs!r}"
                )
            for doc in docs:
                if doc in owner:
                    raise ConfigError(
                        path,
                        f"expected each document owned once, found {doc!r} under {owner[doc]!r} and {tenant!r}",
                    )
                if known is not None and doc not in known:
                    raise ConfigError(
                        path,
                        f"unknown document {doc!r} under tenants.{tenant}; expected an id of a loaded document",
                    )
                owner[doc] = tenant
            owners[tenant] = frozenset(docs)
        return cls(owners)

    def unowned(self, catalog: Catalog) -> tuple[str, ...]:
        docs = dict.fromkeys(c.doc_id for c in catalog.chunks)
        return tuple(d for d in docs if self.owner_of(d) is None)

    def allowed(self, catalog: Catalog, tenant: str, scope: Scope | None = None) -> frozenset[str]:
        """The tenant's chunks within scope; an unknown tenant gets an empty set (= nothing)."""
        docs = self.owners.get(tenant)
        if not docs:
            return frozenset()
        return frozenset(cid for cid in catalog.allowed(scope) if catalog.get(cid).doc_id in docs)


@dataclass(frozen=True)
class _LeakRow:
    """One searcher asked every question as one tenant, with and without the tenant filter."""

    searcher: str
    tenant: str
    questions: int
    results: int
    leaks: int
    leaked: tuple[str, ...]
    control_results: int
    control_foreign: int
    control_examples: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _leak_table(
    searchers: Mapping[str, _Searcher],
    catalog: Catalog,
    tenancy: Tenancy,
    questions: Sequence[Any],
    scope: Scope | None = None,
    k: int = 5,
) -> list[_LeakRow]:
    """Ask every question as every tenant: one row per searcher and tenant, with the control.

    Leaks = another tenant's chunks despite the filter. The control asks the same questions with
    the scope but no tenant filter and counts how many results belong to another tenant: it
    proves the test could have failed.
    """
    unfiltered = catalog.allowed(scope)
    rows: list[_LeakRow] = []
    for name, searcher in searchers.items():
        for tenant in tenancy.tenants:
            mine = tenancy.allowed(catalog, tenant, scope)
            hits = _served_by_question(searcher, questions, mine, k)
            control = _served_by_question(searcher, questions, unfiltered, k)
            leaked = sorted(
                {
                    c
                    for ids in hits.values()
                    for c in ids
                    if catalog.get(c).doc_id not in tenancy.owners[tenant]
                }
            )
            foreign = [
                c
                for ids in control.values()
                for c in ids
                if catalog.get(c).doc_id not in tenancy.owners[tenant]
            ]
            rows.append(
                _LeakRow(
                    searcher=name,
                    tenant=tenant,
                    questions=len(questions),
                    results=sum(map(len, hits.values())),
                    leaks=sum(1 for ids in hits.values() for c in ids if c in leaked),
                    leaked=tuple(leaked),
                    control_results=sum(map(len, control.values())),
                    control_foreign=len(foreign),
                    control_examples=tuple(sorted(set(foreign))[:5]),
                )
            )
    return rows


@dataclass(frozen=True)
class _Leak:
    """One result that crossed the boundary: `tenant` asked `question` and got `chunk`."""

    searcher: str
    tenant: str
    question: str
    chunk: str


def boundary_leaks(
    searchers: Mapping[str, _Searcher],
    catalog: Catalog,
    tenancy: Tenancy,
    questions: Sequence[Any],
    scope: Scope | None = None,
    k: int = 5,
) -> tuple[_Leak, ...]:
    """Every result another tenant owns, asking every question as every tenant with its filter.

    ``len(...)`` is the number of leaks: 0 when the filter holds. The per-searcher table with
    the control (the same questions unfiltered do reach other tenants' chunks) is `_leak_table`.
    """
    leaks: list[_Leak] = []
    for name, searcher in searchers.items():
        for tenant in tenancy.tenants:
            mine = tenancy.allowed(catalog, tenant, scope)
            hits = _served_by_question(searcher, questions, mine, k)
            leaks.extend(
                _Leak(name, tenant, qid, c)
                for qid, ids in hits.items()
                for c in ids
                if catalog.get(c).doc_id not in tenancy.owners[tenant]
            )
    return tuple(leaks)
