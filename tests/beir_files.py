"""BEIR files written by the tests (the package reads BEIR; it never writes it): new files only,
through the package's one writer (`files.writing.write_file`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evidencedesk.chunking import Chunk
from evidencedesk.files._writing import write_file
from evidencedesk.retrieval.beir import _QRELS_HEADER


def _write_lines(path: str | Path, lines: Iterable[str]) -> None:
    """A new file of `lines` (never over an existing one: `evidencedesk.files._writing.write_file`)."""
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    write_file(path, data, "BEIR file")


def write_beir_corpus(path: str | Path, chunks: Iterable[Chunk]) -> None:
    rows = ({"_id": c.id, "title": c.title, "text": c.text} for c in chunks)
    _write_lines(path, (json.dumps(row, ensure_ascii=False) for row in rows))


def write_beir_queries(path: str | Path, queries: Iterable[Sequence[Any]]) -> None:
    rows = ({"_id": q, "text": t, **({"tags": list(g)} if g else {})} for q, t, g in queries)
    _write_lines(path, (json.dumps(row, ensure_ascii=False) for row in rows))


def write_beir_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    rows = (f"{q}\t{d}\t{g}" for q, docs in qrels.items() for d, g in docs.items())
    _write_lines(path, ["\t".join(_QRELS_HEADER), *rows])
