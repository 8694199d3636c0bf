"""``candidates.toml``: the retrieval changes the report reviews, and their optional notes.

The file is validated by pydantic models (`_CandidatesFile`, `_Entry`, `_ChangesTable`: strict types,
unknown keys refused, each candidate's changes must make a valid `Config`); errors are worded by
`evidencedesk.files._validation` as ``candidate #2 (name).changes.depth: expected …, found …``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

from evidencedesk.files._records import (
    Whole,
    candidate_notes,
    candidates_file,
    note_slug,
    read_note,
)
from evidencedesk.files._text import name_problem
from evidencedesk.files._validation import Loc, Source, Style, found_toml, invalid, rule
from evidencedesk.retrieval.evalreport import Config

# `read_note` and `note_slug` live with the files they name; the stages read a note through here
__all__ = ["CandidateChange", "load_candidates", "note_slug", "read_note"]


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
        problem = name_problem(name, "candidate name")
        if problem is not None:
            raise invalid(problem)
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
    """Read and check the candidates: keys, types, and that each one's changes make a `Config`;
    each with its note from the `notes` folder."""
    folder = None if notes is None else Path(notes)
    read = candidates_file(Path(path))
    return _candidates_of(read, candidate_notes(folder, read), folder)


def _candidates_of(
    read: Whole, notes: Mapping[str, str | None], folder: Path | None
) -> list[CandidateChange]:
    """The candidates of ``candidates.toml`` read whole (`files._records.toml_file`), checked as
    `load_candidates` says; `notes`: each name's note (`files._records.candidate_notes`) from the
    notes `folder`."""
    raw = read.value
    source = Source(read.path, read.text, _style(raw))
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
        note = notes.get(name)
        other = slugs.get(note_slug(name))
        if other is not None and note is not None:  # both pages would show this one note
            raise source.error(
                at,
                f"expected each note to belong to one candidate, found {name!r} and "
                f"{other!r} both using {(folder or Path()) / (note_slug(name) + '.md')} "
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
