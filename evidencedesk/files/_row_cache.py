"""Rows a model computed, kept between builds: the MiniLM extra's embeddings (`retrieval.minilm`).

A model's row for a text depends only on the model, its runtime and the text (the embedder
holds batched rows equal to one-by-one rows), so a row computed by one build is the row the
next build would compute. The rows live in one SQLite file in the cache folder
(`cache_folder`), keyed by the model's identity (`namespace`: its files' sha256, the runtime's
version, ...) and the text's sha256. The cache is an optimisation and never a reason to fail:
a folder that cannot be made, a file that is not a database, a lock held too long -- each is a
miss (or a write left undone), and the model computes the rows as without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

# the cache folder: a path, or "off" (or empty) for none; unset: the user's cache folder
_CACHE_ENV = "EVIDENCEDESK_CACHE"
_OFF = ("", "off")
_FILE = "evidencedesk-rows.sqlite3"  # the one file this module writes in the cache folder
_WAIT = 5.0  # seconds a connection waits for another process's write before it gives up
_PER_QUERY = 500  # keys per SELECT (SQLite's default limit of bound values is 999 or more)


def cache_folder() -> Path | None:
    """Where rows are kept: ``$EVIDENCEDESK_CACHE`` (``off`` or empty: nowhere), else
    ``$XDG_CACHE_HOME/evidencedesk``, else ``~/.cache/evidencedesk``; None when no home folder is
    known either."""
    given = os.environ.get(_CACHE_ENV)
    if given is not None:
        return None if given.strip().lower() in _OFF else Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base) / "evidencedesk"
    try:
        return Path.home() / ".cache" / "evidencedesk"
    except RuntimeError:  # no home folder to resolve
        return None


def _text_key(text: str) -> bytes:
    """A text's key in the store: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class RowStore:
    """Rows of `width` float64 numbers by text, for one model, in `folder`. `namespace` names
    the model (its identity: whatever its rows depend on); asked on the first look-up, on the
    thread that makes it (naming the model may mean hashing its files)."""

    def __init__(self, folder: Path, namespace: Callable[[], str], width: int) -> None:
        self.path = folder / _FILE
        self.width = width
        self._name_of = namespace
        self._name: str | None = None

    @property
    def namespace(self) -> str:
        if self._name is None:
            self._name = self._name_of()
        return self._name

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.is_file():
            return None
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=_WAIT)
        try:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS rows (model TEXT NOT NULL, text BLOB NOT NULL, "
                "row BLOB NOT NULL, PRIMARY KEY (model, text)) WITHOUT ROWID"
            )
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def get(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The kept rows of those of `texts` that have one (a row of the wrong size is no row)."""
        keys = {_text_key(t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        try:
            namespace = self.namespace
            connection = self._connect(create=False)
            if connection is None:
                return found
            with contextlib.closing(connection), connection:
                wanted = list(keys)
                for start in range(0, len(wanted), _PER_QUERY):
                    some = wanted[start : start + _PER_QUERY]
                    marks = ",".join("?" * len(some))
                    for key, blob in connection.execute(
                        f"SELECT text, row FROM rows WHERE model = ? AND text IN ({marks})",
                        [namespace, *some],
                    ):
                        if len(blob) == 8 * self.width:
                            found[keys[key]] = np.frombuffer(blob, dtype="<f8").copy()
        except (sqlite3.Error, OSError):
            return {}
        return found

    def put(self, rows: Mapping[str, np.ndarray]) -> None:
        """Keep `rows` (text -> row); a row already kept stays as it is."""
        if not rows:
            return
        values = [
            (self.namespace, _text_key(t), np.asarray(r, dtype="<f8").tobytes())
            for t, r in rows.items()
            if np.shape(r) == (self.width,)
        ]
        try:
            connection = self._connect(create=True)
            if connection is None:
                return
            with contextlib.closing(connection), connection:
                connection.executemany("INSERT OR IGNORE INTO rows VALUES (?, ?, ?)", values)
        except (sqlite3.Error, OSError):
            return
