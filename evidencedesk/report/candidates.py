"""``candidates.toml``: the retrieval changes the report reviews, and their optional notes."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk.errors import ConfigError
from evidencedesk.paths import DATA
from evidencedesk.textfile import read_text

CANDIDATES_FILE = DATA / "candidates.toml"
NOTES = DATA / "notes"
CANDIDATE_KEYS = ("name", "rationale", "changes")
CONFIG_FIELDS = ("first_stage", "reranker", "depth", "final", "max_words", "prefilter")
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True)
class Candidate:
    """A named change to the baseline config, with why it is proposed."""

    name: str
    rationale: str
    changes: dict[str, Any] = field(default_factory=dict, compare=False)
    note: str | None = None

    @property
    def note_slug(self) -> str:
        return note_slug(self.name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rationale": self.rationale,
            "changes": dict(self.changes),
            "note": self.note,
        }


def note_slug(name: str) -> str:
    """File stem of a candidate's note: lower case, runs of other characters become one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80] or "candidate"


def read_note(folder: Path | None, name: str) -> str | None:
    """The Markdown note ``<folder>/<note_slug(name)>.md``, or None when there is none.

    An unreadable notes folder is an error with the OS reason (not "no note"); a note that is
    not a regular file (a FIFO, a device) is refused by type.
    """
    if folder is None:
        return None
    path = Path(folder) / f"{note_slug(name)}.md"
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(
            path, f"expected a readable Markdown note, found {exc.strerror or exc}"
        ) from None
    return read_text(path, ConfigError, "Markdown note")


def load_candidates(
    path: str | Path = CANDIDATES_FILE, notes: str | Path | None = NOTES
) -> list[Candidate]:
    """Read and check the candidates; values are checked again when each becomes a Config."""
    path = Path(path)
    try:
        raw = tomllib.loads(read_text(path, ConfigError, "candidates file"))
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        line = int(match.group(1)) if match else None
        raise ConfigError(
            path,
            f"expected valid TOML, found a syntax error ({_TOML_LINE.sub('', str(exc)).strip()})",
            line,
        ) from None
    extra = sorted(set(raw) - {"candidate"})
    if extra:
        raise ConfigError(
            path, f"unknown top-level key {extra[0]!r}; expected only [[candidate]] tables"
        )
    entries = raw.get("candidate", [])
    if not isinstance(entries, list) or not entries:
        raise ConfigError(path, "expected at least one [[candidate]] table, found none")
    candidates: list[Candidate] = []
    seen: set[str] = set()
    slugs: dict[str, str] = {}  # note slug -> the first candidate name that has it
    for number, entry in enumerate(entries, start=1):
        where = f"candidate #{number}"
        unknown = sorted(set(entry) - set(CANDIDATE_KEYS))
        if unknown:
            raise ConfigError(
                path, f"{where}: unknown key {unknown[0]!r}; expected: {', '.join(CANDIDATE_KEYS)}"
            )
        name, rationale, changes = (
            entry.get("name"),
            entry.get("rationale", ""),
            entry.get("changes", {}),
        )
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(
                path, f"{where}: expected 'name' to be a non-empty string, found {name!r}"
            )
        if not isinstance(rationale, str):
            raise ConfigError(
                path, f"{where} ({name}): expected 'rationale' to be a string, found {rationale!r}"
            )
        if not isinstance(changes, dict):
            raise ConfigError(
                path, f"{where} ({name}): expected 'changes' to be a table, found {changes!r}"
            )
        bad = sorted(set(changes) - set(CONFIG_FIELDS))
        if bad:
            raise ConfigError(
                path,
                f"{where} ({name}): unknown config field {bad[0]!r}; expected one of: {', '.join(CONFIG_FIELDS)}",
            )
        if name.casefold() in seen:
            raise ConfigError(
                path, f"{where}: expected unique candidate names, found {name!r} twice"
            )
        seen.add(name.casefold())
        note = read_note(None if notes is None else Path(notes), name)
        other = slugs.get(note_slug(name))
        if other is not None and note is not None:  # both pages would show this one note
            raise ConfigError(
                path,
                f"{where}: expected each note to belong to one candidate, found {name!r} and "
                f"{other!r} both using {Path(notes or '') / (note_slug(name) + '.md')} "
                "(rename one of them)",
            )
        slugs.setdefault(note_slug(name), name)
        candidates.append(
            Candidate(name=name, rationale=rationale, changes=dict(changes), note=note)
        )
    return candidates
