"""The project file's schema: sections, keys, types, and the checks that need only the file itself.

Every error is one `ConfigError` naming the project file (and the key's line when it can be found),
the key as ``[section].key``, what was expected and what was found.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidencedesk.chunking import STRATEGIES
from evidencedesk.errors import ConfigError
from evidencedesk.limits import check_input
from evidencedesk.textfile import list_folder, read_text

PROJECT_FILE = "evidencedesk.toml"
DEFAULT_RELEVANCE = 2
RUN_SUFFIXES_SKIPPED = (".md", ".json", ".toml")
RESTRICTED_TEXT = ("show", "hide")
MAX_RUNS = 100  # every pair of variants gets a flip-matrix cell: the site grows as runs squared
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")


@dataclass(frozen=True)
class Key:
    kind: str  # "str", "int", "bool", "file", "dir", "dirs", "runs", "choice"
    help: str
    choices: tuple[str, ...] = ()
    what: str = "file"  # a "file" key's kind of file, for "expected a regular <what>"
    low: int | None = None  # an "int" key's range, when it has one
    high: int | None = None


SCHEMA: dict[str, dict[str, Key]] = {
    "project": {
        "name": Key("str", "a non-empty string"),
        "seed": Key("int", "an integer (the default --seed)", low=0, high=2**32 - 1),
        "max_input_mb": Key(
            "int", "a whole number of MB, the largest input file read", low=1, high=1 << 20
        ),
    },
    "documents": {
        "folders": Key("dirs", "a list of folders of Markdown documents"),
        "corpus": Key("file", "a BEIR corpus.jsonl file", what="BEIR corpus file"),
        "chunking": Key("choice", "a chunking strategy", STRATEGIES),
        "index": Key("bool", "true or false (false: do not run the built-in searchers)"),
    },
    "questions": {
        "labels": Key("file", "a labels.jsonl file", what="labels file"),
        "queries": Key("file", "a queries.jsonl (BEIR) or queries.tsv file", what="queries file"),
        "qrels": Key("file", "a TREC qrels file or a BEIR qrels .tsv file", what="qrels file"),
        "tags": Key("file", "a tags .jsonl or .tsv file", what="tags file"),
        "relevance": Key("int", "an integer grade (relevant = grade >= relevance)"),
    },
    "runs": {
        "dir": Key("dir", "a folder of TREC run files"),
        "files": Key("runs", 'a list of run paths or {name = "...", path = "..."} tables'),
        "baseline": Key("str", "the name of one of the runs"),
    },
    "report": {
        "candidates": Key("file", "a candidates.toml file", what="candidates file"),
        "notes": Key("dir", "a folder of candidate notes (<candidate>.md)"),
        "restricted_text": Key(
            "choice", "whether restricted text appears in the site", RESTRICTED_TEXT
        ),
    },
    "gate": {
        "policy": Key("file", "a gate policy JSON file", what="policy file"),
        "baseline": Key("file", "a saved baseline JSON file", what="baseline"),
    },
    "extras": {
        "answers": Key("file", "an answers.jsonl file", what="answers file"),
        "tenants": Key("file", "a tenants.json file", what="tenants file"),
        "tenant_documents": Key("dir", "a folder of the tenants' Markdown documents"),
        "dups": Key("dir", "a folder of near-duplicate Markdown documents"),
        "updates": Key("dir", "a folder of newer versions of documents (freshness check)"),
    },
}


RUN_FILE = Key("file", "a TREC run file", what="TREC run file")


class Fail:
    """Raises `ConfigError`s for one project file, finding the offending key's line if it can."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, section: str, key: str | None) -> int | None:
        current = ""
        for number, raw in enumerate(self.lines, start=1):
            stripped = raw.strip()
            header = re.match(r"^\[\s*([A-Za-z0-9_-]+)\s*\]", stripped)
            if header:
                current = header.group(1)
                if key is None and current == section:
                    return number
                continue
            if (
                key is not None
                and current == section
                and re.match(rf"^{re.escape(key)}\s*=", stripped)
            ):
                return number
        return None

    def __call__(self, section: str, key: str | None, message: str) -> ConfigError:
        where = f"[{section}].{key}" if key else f"[{section}]"
        return ConfigError(self.path, f"{where}: {message}", self.line_of(section, key))


def read_toml(path: Path) -> tuple[dict[str, Any], Fail]:
    text = read_text(path, ConfigError, "project file")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        detail = _TOML_LINE.sub("", str(exc)).strip()
        raise ConfigError(
            path,
            f"expected valid TOML, found a syntax error ({detail})",
            int(match.group(1)) if match else None,
        ) from None
    return raw, Fail(path, text)


def _found(value: object) -> str:
    kind = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }
    return (
        f"{kind.get(type(value), type(value).__name__)} {value!r}"
        if not isinstance(value, dict)
        else "a table"
    )


def _path(
    value: object,
    root: Path,
    check: Callable[[Path], bool],
    what: str,
    fail: Callable[[str], ConfigError],
) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise fail(f"expected a path to {what} (a string), found {_found(value)}")
    path = Path(os.path.normpath(root / value))
    if not check(path):
        found = "a folder" if path.is_dir() else "a file" if path.exists() else "nothing"
        raise fail(f"expected {what} at {value!r}, found {found} at {path}")
    return path


def _exists_not_dir(path: Path) -> bool:
    # a FIFO or device is refused by type in `_file`, with a message naming the kind
    return path.exists() and not path.is_dir()


def _file(value: object, root: Path, spec: Key, fail: Callable[[str], ConfigError]) -> Path:
    path = _path(value, root, _exists_not_dir, spec.help, fail)
    check_input(path, ConfigError, spec.what)
    return path


def check_value(section: str, key: str, value: object, root: Path, fail: Fail) -> Any:
    """The typed value of one key (paths resolved against `root` and checked to exist)."""
    spec = SCHEMA[section][key]

    def bad(message: str) -> ConfigError:
        return fail(section, key, message)

    if spec.kind == "str":
        if not isinstance(value, str) or not value.strip():
            raise bad(f"expected {spec.help}, found {_found(value)}")
        return value.strip()
    if spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(f"expected {spec.help}, found {_found(value)}")
        if (spec.low is not None and value < spec.low) or (
            spec.high is not None and value > spec.high
        ):
            raise bad(f"expected {spec.help} from {spec.low} to {spec.high}, found {value}")
        return value
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise bad(f"expected {spec.help}, found {_found(value)}")
        return value
    if spec.kind == "choice":
        if value not in spec.choices:
            raise bad(f"expected one of: {', '.join(spec.choices)}, found {_found(value)}")
        return value
    if spec.kind == "file":
        return _file(value, root, spec, bad)
    if spec.kind == "dir":
        return _path(value, root, Path.is_dir, spec.help, bad)
    if spec.kind == "dirs":
        if not isinstance(value, list) or not value:
            raise bad(f"expected {spec.help} (a non-empty list of strings), found {_found(value)}")
        folders = [
            _path(v, root, Path.is_dir, "a folder of Markdown documents", bad) for v in value
        ]
        twice = next((f for i, f in enumerate(folders) if f.resolve() in
                      {g.resolve() for g in folders[:i]}), None)  # fmt: skip
        if twice is not None:
            raise bad(f"expected each folder once, found {twice} listed twice")
        return tuple(folders)
    if not isinstance(value, list):  # "runs"
        raise bad(f"expected {spec.help}, found {_found(value)}")
    runs: list[tuple[str, Path]] = []
    for item in value:
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"name", "path"})
            if unknown or not isinstance(item.get("name"), str) or not item["name"].strip():
                raise bad(
                    f'expected {{name = "...", path = "..."}}, found keys {", ".join(sorted(item))}'
                )
            runs.append((item["name"].strip(), _file(item.get("path"), root, RUN_FILE, bad)))
        else:
            path = _file(item, root, RUN_FILE, bad)
            runs.append((path.stem, path))
    return tuple(runs)


def parse_sections(raw: dict[str, Any], root: Path, fail: Fail) -> dict[str, dict[str, Any]]:
    """Validate shape and types: {section: {key: typed value}} for the keys present."""
    out: dict[str, dict[str, Any]] = {}
    for section, table in raw.items():
        if section not in SCHEMA:
            raise ConfigError(
                fail.path,
                f"unknown section [{section}]; expected one of: "
                + ", ".join(f"[{s}]" for s in SCHEMA),
                fail.line_of(section, None),
            )
        if not isinstance(table, dict):
            raise ConfigError(
                fail.path,
                f"[{section}]: expected a table of keys, found {_found(table)}",
                fail.line_of(section, None),
            )
        for key in table:
            if key not in SCHEMA[section]:
                raise fail(
                    section, key, f"unknown key; expected one of: {', '.join(SCHEMA[section])}"
                )
        out[section] = {
            key: check_value(section, key, value, root, fail) for key, value in table.items()
        }
    return out


def runs_in_folder(folder: Path) -> tuple[tuple[str, Path], ...]:
    """Every TREC run file in `folder`, sorted by name; hidden, .md/.json/.toml and sub-folders
    skipped; a named pipe, device or socket refused by type (it would hang or never end)."""
    files = []
    for p in list_folder(folder, ConfigError, "folder of TREC runs"):
        if p.name.startswith(".") or p.suffix.lower() in RUN_SUFFIXES_SKIPPED or p.is_dir():
            continue
        check_input(p, ConfigError, "TREC run file")
        files.append(p)
    return tuple((p.stem, p) for p in files)
