"""The catalog: every chunk of every document, in a deterministic order, and the reader's scope."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evidencedesk.chunking import Chunk, Document, _parse_document, chunk_document
from evidencedesk.errors import DocumentError
from evidencedesk.files._records import markdown_texts
from evidencedesk.paths import CORPUS, DOCS

__all__ = ["Catalog", "Scope", "load_catalog"]


@dataclass(frozen=True)
class Scope:
    """What a reader may see. By default: current, public documents only."""

    statuses: frozenset[str] = frozenset({"current"})
    visibilities: frozenset[str] = frozenset({"public"})
    languages: frozenset[str] | None = None

    def admits(self, chunk: Chunk) -> bool:
        return (
            chunk.status in self.statuses
            and chunk.visibility in self.visibilities
            and (self.languages is None or chunk.language in self.languages)
        )

    @classmethod
    def everything(cls) -> Scope:
        return cls(frozenset({"current", "superseded"}), frozenset({"public", "restricted"}))

    def to_dict(self) -> dict[str, object]:
        return {
            "statuses": sorted(self.statuses),
            "visibilities": sorted(self.visibilities),
            "languages": None if self.languages is None else sorted(self.languages),
        }


@dataclass(frozen=True)
class Catalog:
    """Chunks in load order (folder order, then file name, then paragraph)."""

    chunks: tuple[Chunk, ...]
    documents: tuple[Document, ...] = ()
    # documents with neither title nor text, as (document id, line of the BEIR corpus): shown
    # by a runs-only project, refused by a pipeline (`Project.load_catalog`)
    empty: tuple[tuple[str, int], ...] = ()
    by_id: dict[str, Chunk] = field(init=False, repr=False, compare=False)
    position: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {c.id: c for c in self.chunks})
        object.__setattr__(self, "position", {c.id: i for i, c in enumerate(self.chunks)})

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self.by_id

    def __len__(self) -> int:
        return len(self.chunks)

    def get(self, chunk_id: str) -> Chunk:
        return self.by_id[chunk_id]

    def allowed(self, scope: Scope | None = None) -> frozenset[str]:
        scope = Scope() if scope is None else scope
        return frozenset(c.id for c in self.chunks if scope.admits(c))

    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.chunks)

    @classmethod
    def from_documents(cls, documents: Sequence[Document], strategy: str = "paragraph") -> Catalog:
        _unique_ids(documents)
        chunks = tuple(c for doc in documents for c in chunk_document(doc, strategy))
        return cls(chunks=chunks, documents=tuple(documents))

    def with_documents(self, documents: Sequence[Document], strategy: str = "paragraph") -> Catalog:
        """This catalog and `documents`, those chunked by `strategy`: its own chunks kept as they
        are, not chunked again (a BEIR passage's chunk id is its own id, and the project's
        chunking need not be `strategy`)."""
        _unique_ids([*self.documents, *documents])
        added = tuple(c for doc in documents for c in chunk_document(doc, strategy))
        return Catalog(self.chunks + added, (*self.documents, *documents), self.empty)


def _unique_ids(documents: Sequence[Document]) -> None:
    """Raises `DocumentError` at the second document with an id already used."""
    seen: dict[str, str] = {}
    for doc in documents:
        if doc.id in seen:
            raise DocumentError(
                doc.path,
                f"expected a unique document id, found {doc.id!r} already used by {seen[doc.id]}",
            )
        seen[doc.id] = doc.path


def _load_documents(folders: Iterable[str | Path]) -> list[Document]:
    """Every Markdown document of `folders`, folder by folder, each folder once."""
    return [_parse_document(text, path) for path, text in markdown_texts(folders)]


def load_catalog(
    strategy: str = "paragraph", folders: Iterable[str | Path] = (CORPUS, DOCS)
) -> Catalog:
    """The catalog of the documents in `folders` (the demo's by default), chunked by `strategy`."""
    return _catalog_of(markdown_texts(folders), strategy)


def _catalog_of(texts: Iterable[tuple[Path, str]], strategy: str) -> Catalog:
    """The catalog of the Markdown texts (`files._records.markdown_texts`), chunked by `strategy`."""
    return Catalog.from_documents([_parse_document(text, path) for path, text in texts], strategy)
