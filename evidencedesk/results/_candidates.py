"""``candidates.toml``: the retrieval changes the report reviews, and their optional notes.

The file is validated by pydantic models (`_CandidatesFile`, `_Entry`, `_ChangesTable`: strict types,
unknown keys refused, each candidate's changes must make a valid `Config`); errors are worded by
`evidencedesk.files._validation` as ``candidate #2 (name).changes.depth: expected …, found …``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from evidencedesk.errors import ConfigError
from evidencedesk.files._text import read_text
from evidencedesk.files._validation import Loc, Source, Style, found_toml, invalid, read_toml, rule
from evidencedesk.files._writing import plain_slug
from evidencedesk.retrieval.evalreport import Config


@dataclass(frozen=True)
class CandidateChange:
    """A named change to the baseline config, with why it is proposed."""

    name: str
    rationale: str
    changes: dict[str, Any] = field(default_factory=dict, compare=False)  # as the file gave them
    note: str | None = None
    config: Config = field(default_factory=Config, compare=False)  # the baseline with `changes`

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
    return plain_slug(name)[:80] or "candidate"


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


class _Changes(BaseModel):
    """The config fields a candidate changes (`_ChangesTable` declares them from `Config` itself);
    `load_candidates` makes them into the candidate's `Config`, once."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def given(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Config.field_names()
                if name in self.model_fields_set}  # fmt: skip


if TYPE_CHECKING:
    _ChangesTable = _Changes
else:  # one field per Config field, with its type and default: never a second list of them
    _hints = get_type_hints(Config)
    # a candidate's `changes` table of candidates.toml: one optional field per Config field
    _ChangesTable = create_model(
        "Changes",
        __base__=_Changes,
        **{f.name: (_hints[f.name], f.default) for f in fields(Config)},
    )


class _Entry(BaseModel):
    """One ``[[candidate]]`` table."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str
    rationale: str = ""
    changes: _ChangesTable = _ChangesTable()

    @field_validator("name")
    @classmethod
    def _not_blank(cls, name: str) -> str:
        if not name.strip():
            raise invalid(f"expected a non-empty string, found {found_toml(name)}")
        return name


class _CandidatesFile(BaseModel):
    """The whole ``candidates.toml``: one or more ``[[candidate]]`` tables and nothing else."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    candidate: list[_Entry] = []

    @model_validator(mode="after")
    def _at_least_one(self) -> _CandidatesFile:
        if not self.candidate:
            raise rule((), "expected at least one [[candidate]] table, found none")
        return self


def _style(raw: dict[str, Any]) -> Style:
    entries = raw.get("candidate")

    def label(loc: Loc) -> str:
        if not loc:
            return ""
        if len(loc) == 1 or not isinstance(loc[1], int):
            return "[[candidate]]" if loc[0] == "candidate" else str(loc[0])
        where = f"candidate #{loc[1] + 1}"
        if len(loc) == 2:
            return where
        entry = entries[loc[1]] if isinstance(entries, list) and loc[1] < len(entries) else {}
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip():
            where += f" ({name})"
        return where + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[2:])

    def unknown(loc: Loc, valid: Sequence[str]) -> str:
        if len(loc) == 1:
            return f"unknown top-level key {loc[0]!r}; expected only [[candidate]] tables"
        return f"{label(loc)}: unknown key; expected one of: {', '.join(valid)}"

    return Style("toml", label, unknown)


def load_candidates(path: str | Path, notes: str | Path | None) -> list[CandidateChange]:
    """Read and check the candidates: keys, types, and that each one's changes make a `Config`."""
    path = Path(path)
    raw, text = read_toml(path, "candidates file")
    source = Source(path, text, _style(raw))
    try:
        entries = _CandidatesFile.model_validate(raw).candidate
    except ValidationError as exc:
        raise source.invalid(exc, _CandidatesFile) from None
    candidates: list[CandidateChange] = []
    seen: set[str] = set()
    slugs: dict[str, str] = {}  # note slug -> the first candidate name that has it
    for index, entry in enumerate(entries):
        name, at = entry.name, ("candidate", index)
        if name.casefold() in seen:
            raise source.error(at, f"expected unique candidate names, found {name!r} twice")
        seen.add(name.casefold())
        note = read_note(None if notes is None else Path(notes), name)
        other = slugs.get(note_slug(name))
        if other is not None and note is not None:  # both pages would show this one note
            raise source.error(
                at,
                f"expected each note to belong to one candidate, found {name!r} and "
                f"{other!r} both using {Path(notes or '') / (note_slug(name) + '.md')} "
                "(rename one of them)",
            )
        slugs.setdefault(note_slug(name), name)
        changes = entry.changes.given()
        try:
            config = Config.from_changes(changes)
        except ValueError as exc:
            raise source.error((*at, "changes"), str(exc)) from None
        order = raw["candidate"][index].get("changes", {})  # the file's order, for display
        candidates.append(
            CandidateChange(
                name=name,
                rationale=entry.rationale,
                changes={k: changes[k] for k in order},
                note=note,
                config=config,
            )
        )
    return candidates
