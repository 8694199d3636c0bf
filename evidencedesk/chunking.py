"""Documents (Markdown with a small front-matter header) and their paragraph chunks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk.errors import DocumentError, UnknownNameError
from evidencedesk.files._text import SHOWN_CHARS, read_text

_STATUSES = ("current", "superseded")  # the values of a document's `status` front-matter key
_VISIBILITIES = ("public", "restricted")  # the values of a document's `visibility` front-matter key
# how documents are cut into chunks: one per paragraph, or the whole document as one
_STRATEGIES = ("paragraph", "document")
_REQUIRED_KEYS = ("id", "title")  # front-matter keys every document must have
# every front-matter key a document may have; any other is refused
_KNOWN_KEYS = ("id", "title", "version", "status", "visibility", "language", "series")
# a document id: an ASCII letter or digit, then letters, digits, `.`, `_` or `-`
_DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_VERSION_SUFFIX = re.compile(r"-v\d+$")


@dataclass(frozen=True)
class Document:
    """A Markdown document as read: its front-matter fields, its body, and the file it came from."""

    id: str
    title: str
    version: int
    status: str
    visibility: str
    language: str
    series: str
    body: str
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "version": self.version,
            "status": self.status,
            "visibility": self.visibility,
            "language": self.language,
            "series": self.series,
            "path": self.path,
        }


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage. ``id`` is ``<doc_id>:c<n>`` with n counted from 0."""

    id: str
    doc_id: str
    title: str
    text: str
    version: int = 1
    status: str = "current"
    visibility: str = "public"
    language: str = "en"
    series: str = ""
    position: int = 0
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "title": self.title,
            "text": self.text,
            "version": self.version,
            "status": self.status,
            "visibility": self.visibility,
            "language": self.language,
            "series": self.series,
        }


_KEY_VALUE = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_-]*\s*:")


def _front_matter_end(lines: list[str], path: str | Path) -> int:
    """Index of the closing ``---``: the header is ``key: value`` and ``# comment`` lines.

    The header ends at the first other line, and that line must be ``---``. Scanning on to any
    later ``---`` let a document that lost its closing line swallow its body up to a Markdown
    rule; a blank line ends the header too, because a ``# Heading`` line looks like a comment and
    a heading, a blank line and a rule would otherwise vanish into the header.
    """
    for i in range(1, len(lines)):
        raw = lines[i]
        if raw.strip() == "---":
            return i
        if not raw.strip() or not (raw.lstrip().startswith("#") or _KEY_VALUE.match(raw)):
            found = repr(raw[:60]) if raw.strip() else "a blank line"
            raise DocumentError(
                path,
                f"expected a closing '---' after the front matter (line {i + 1}), found {found}",
                i + 1,
            )
    raise DocumentError(path, "expected a closing '---' after the front matter, found none")


def _parse_document(text: str, path: str | Path = "<string>") -> Document:
    """Parse a document's text; `path` is only used in error messages."""
    lines = text.splitlines()
    if not lines or not text.strip():
        raise DocumentError(
            path, "expected a front-matter header starting with '---', found an empty file"
        )
    if lines[0].strip() != "---":
        raise DocumentError(
            path,
            "expected a front-matter header starting with '---' on line 1, found "
            f"{lines[0][:SHOWN_CHARS]!r}",
            1,
        )
    end = _front_matter_end(lines, path)
    meta: dict[str, str] = {}
    line_of: dict[str, int] = {}
    for number in range(1, end):
        raw = lines[number]
        if raw.lstrip().startswith("#"):
            continue
        key, sep, value = raw.partition(":")
        key = key.strip()
        if not sep or not key:
            raise DocumentError(
                path, f"expected 'key: value' in the front matter, found {raw[:60]!r}", number + 1
            )
        if key not in _KNOWN_KEYS:
            raise DocumentError(
                path,
                f"unknown front-matter key {key!r}; expected one of: {', '.join(_KNOWN_KEYS)}",
                number + 1,
            )
        if key in line_of:  # the last value would win silently: "restricted" then "public"
            raise DocumentError(
                path,
                f"expected each front-matter key once, found {key!r} again (first on line "
                f"{line_of[key]})",
                number + 1,
            )
        meta[key] = value.strip().strip('"')
        line_of[key] = number + 1
    for key in _REQUIRED_KEYS:
        if not meta.get(key):
            raise DocumentError(path, f"expected front-matter key {key!r}, found none")
    if not _DOC_ID.match(meta["id"]):
        raise DocumentError(
            path,
            f"expected a document id of letters, digits, '.', '_' or '-', found {meta['id']!r}",
            line_of["id"],
        )
    status = meta.get("status", "current")
    if status not in _STATUSES:
        raise DocumentError(
            path,
            f"unknown status {status!r}; expected one of: {', '.join(_STATUSES)}",
            line_of["status"],
        )
    visibility = meta.get("visibility", "public")
    if visibility not in _VISIBILITIES:
        raise DocumentError(
            path,
            f"unknown visibility {visibility!r}; expected one of: {', '.join(_VISIBILITIES)}",
            line_of["visibility"],
        )
    try:
        version = int(meta.get("version", "1"))
    except ValueError:
        raise DocumentError(
            path, f"expected an integer version, found {meta['version']!r}", line_of["version"]
        ) from None
    body = "\n".join(lines[end + 1 :]).strip()
    if not body:
        raise DocumentError(path, "expected some text after the front matter, found none")
    return Document(
        id=meta["id"],
        title=meta["title"],
        version=version,
        status=status,
        visibility=visibility,
        language=meta.get("language", "en") or "en",
        series=meta.get("series") or _VERSION_SUFFIX.sub("", meta["id"]),
        body=body,
        path=str(path),
    )


def load_document(path: str | Path) -> Document:
    """Read one Markdown document with front matter; errors name the file."""
    return _parse_document(read_text(path, DocumentError, "Markdown document"), Path(path))


def _is_heading_only(block: str) -> bool:
    return all(line.lstrip().startswith("#") for line in block.splitlines())


def _paragraphs(body: str) -> list[str]:
    """Blank-line separated blocks; a heading-only block travels with the block after it."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", body) if b.strip()]
    merged: list[str] = []
    pending = ""
    for block in blocks:
        if _is_heading_only(block):
            pending = f"{pending}\n{block}" if pending else block
            continue
        merged.append(f"{pending}\n{block}" if pending else block)
        pending = ""
    if pending:
        if merged:
            merged[-1] = f"{merged[-1]}\n{pending}"
        else:
            merged.append(pending)
    return merged


def chunk_document(doc: Document, strategy: str = "paragraph") -> list[Chunk]:
    """One chunk per paragraph (a table is one block, so it stays one chunk)."""
    if strategy not in _STRATEGIES:
        raise UnknownNameError("chunking strategy", strategy, _STRATEGIES)
    pieces = _paragraphs(doc.body) if strategy == "paragraph" else [doc.body]
    return [
        Chunk(
            id=f"{doc.id}:c{n}",
            doc_id=doc.id,
            title=doc.title,
            text=piece,
            version=doc.version,
            status=doc.status,
            visibility=doc.visibility,
            language=doc.language,
            series=doc.series,
            position=n,
            metadata=doc.to_dict(),
        )
        for n, piece in enumerate(pieces)
    ]
