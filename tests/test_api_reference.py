"""scripts/api_reference.py writes docs/api.md, every public name of the package with the first
sentence of its docstring or comment. A small hand-made package shows the exact page and the exact
"no description" lines; the real tree's page must be current and every public name described."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "api_reference", ROOT / "scripts" / "api_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("api_reference", module)
    spec.loader.exec_module(module)
    return module


script = _script()

SHELF = '''\
"""Shelves of a small library. Each shelf holds books, e.g. novels.

Not the first paragraph.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    HIDDEN = 1

LIMIT = 3  # books per shelf | at most
# the shelf a new book goes to
# when none is named. Not this sentence.
DEFAULT = "front"
UNSAID = 0
_PRIVATE = 1  # not listed
LOW, HIGH = 0, 9  # the grade range
WIDTH: int = 2  # type: ignore[misc]
Pair = tuple[int, int]  # a (row, column) place  # noqa: UP006


def shelve(book: str) -> str:
    """Put `book` on the shelf, i.e. at its end. Returns its place."""
    return book + os.sep


def fetch(place: str) -> str:
    return place


class Shelf:
    """A shelf:
    its books in order."""

    size = 3  # a class attribute: not listed

    def count(self) -> int:
        """A method: not listed."""
        return 0


def _helper() -> None:
    """Private."""
'''

EXPECTED = """\
## evidencedesk

A toy package for the reference.

No public names.

## evidencedesk.cli

| name | kind | signature | what it is |
|---|---|---|---|
| `main` | function | `main() -> int` | Run the command line. |

## evidencedesk.shelf

Shelves of a small library.

| name | kind | signature | what it is |
|---|---|---|---|
| `LIMIT` | constant | `LIMIT = 3` | books per shelf \\| at most |
| `DEFAULT` | constant | `DEFAULT = 'front'` | the shelf a new book goes to when none is named. |
| `UNSAID` | constant | `UNSAID = 0` |  |
| `LOW` | constant | `LOW` | the grade range |
| `HIGH` | constant | `HIGH` | the grade range |
| `WIDTH` | constant | `WIDTH: int = 2` |  |
| `Pair` | constant | `Pair = tuple[int, int]` | a (row, column) place |
| `shelve` | function | `shelve(book: str) -> str` | Put `book` on the shelf, i.e. at its end. |
| `fetch` | function | `fetch(place: str) -> str` |  |
| `Shelf` | class | `Shelf()` | A shelf: its books in order. |

## evidencedesk.stock

What the library holds.

| name | kind | signature | what it is |
|---|---|---|---|
| `Book` | class, from `evidencedesk._stock` | `Book(title: str, copies: int = 1)` | One book of the stock. |
| `count` | function, from `evidencedesk._stock` | `count(books: list[Book], *, shelf: str \\| None = None) -> int` | How many copies, on one shelf or all. |
"""

# a private module and a public one that re-exports two of its names through `__all__`
STOCK = '''\
"""Stock: private."""

from typing import NamedTuple


class Book(NamedTuple):
    """One book of the stock."""

    title: str
    copies: int = 1


def count(books: list[Book], *, shelf: str | None = None) -> int:
    """How many copies, on one shelf or all."""
    return 0


def _unlisted() -> None:
    """Private."""
'''
PUBLIC_STOCK = '''\
"""What the library holds."""

from evidencedesk._stock import Book, count

__all__ = ["Book", "count"]
'''

UNDESCRIBED = [
    "3 public names have no description (a docstring, or a comment on or above the assignment):",
    "evidencedesk/shelf.py:20: UNSAID",
    "evidencedesk/shelf.py:23: WIDTH",
    "evidencedesk/shelf.py:32: fetch",
]


@pytest.fixture()
def package(tmp_path: Path) -> Path:
    """A package `evidencedesk` in `tmp_path`: a docstring-only __init__, cli/, shelf.py, and
    stock.py re-exporting two names of the private _stock.py."""
    folder = tmp_path / "evidencedesk"
    (folder / "cli").mkdir(parents=True)
    (folder / "__init__.py").write_text('"""A toy package for the reference."""\n', "utf-8")
    (folder / "cli" / "__init__.py").write_text(
        'def main() -> int:\n    """Run the command line."""\n    return 0\n', "utf-8"
    )
    (folder / "shelf.py").write_text(SHELF, "utf-8")
    (folder / "_stock.py").write_text(STOCK, "utf-8")
    (folder / "stock.py").write_text(PUBLIC_STOCK, "utf-8")
    (folder / "notes.txt").write_text("not a module\n", "utf-8")
    return tmp_path


def test_the_page_of_a_small_package(package: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert script.main(["--root", str(package)]) == 0
    assert capsys.readouterr().out == script.PREAMBLE + "\n" + EXPECTED


def test_check_names_each_public_name_without_a_description(
    package: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "api.md"
    assert script.main(["--root", str(package), "--write", str(page)]) == 0
    assert page.read_text("utf-8") == script.PREAMBLE + "\n" + EXPECTED
    assert script.main(["--root", str(package), "--check", str(page)]) == 1
    assert capsys.readouterr().out.splitlines() == UNDESCRIBED


def test_check_names_the_sections_of_an_out_of_date_page(
    package: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shelf = package / "evidencedesk" / "shelf.py"
    described = (
        SHELF.replace("UNSAID = 0", "UNSAID = 0  # said now")
        .replace("WIDTH: int = 2  # type: ignore[misc]", "# how wide\nWIDTH: int = 2")
        .replace("    return place", '    """Take the book at `place`."""\n    return place')
    )
    shelf.write_text(described, "utf-8")
    page = tmp_path / "api.md"
    page.write_text(script.PREAMBLE + "\n" + EXPECTED, "utf-8")
    assert script.main(["--root", str(package), "--check", str(page)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{page} is out of date (sections that differ: evidencedesk.shelf); "
        f"run python scripts/api_reference.py --write {page}"
    ]
    assert script.main(["--root", str(package), "--write", str(page)]) == 0
    assert "| `fetch` | function | `fetch(place: str) -> str` | Take the book at `place`. |" in (
        page.read_text("utf-8")
    )
    assert script.main(["--root", str(package), "--check", str(page)]) == 0
    assert capsys.readouterr().out == ""


def test_check_says_a_missing_page_is_to_be_written(
    package: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (package / "evidencedesk" / "shelf.py").unlink()
    missing = tmp_path / "docs" / "api.md"
    assert script.main(["--root", str(package), "--check", str(missing)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{missing}: cannot read it (No such file or directory); "
        f"run python scripts/api_reference.py --write {missing}"
    ]


def test_check_names_an_all_entry_its_module_does_not_bind(
    package: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stock = package / "evidencedesk" / "stock.py"
    stock.write_text(PUBLIC_STOCK.replace('"count"]', '"count", "sell"]'), "utf-8")
    page = tmp_path / "api.md"
    assert script.main(["--root", str(package), "--write", str(page)]) == 0
    assert script.main(["--root", str(package), "--check", str(page)]) == 1
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "__all__ lists a name its module neither defines nor imports:",
        "evidencedesk/stock.py:5: sell",
    ]


CLASSES = '''\
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, NamedTuple, Protocol

from pydantic import BaseModel


@dataclass(frozen=True)
class Row:
    """A dataclass: its fields, in order."""

    SIZE: ClassVar[int] = 3
    name: str
    tags: tuple[str, ...] = ()
    seen: list[str] = field(default_factory=list)
    cache: dict[str, int] = field(init=False, default_factory=dict)


class Level(StrEnum):
    """An enum: its members."""

    GO = "GO"
    STOP = "STOP"


class Scorer(Protocol):
    """A protocol: its methods and properties."""

    @property
    def name(self) -> str: ...

    def predict(self, pairs: list[tuple[str, str]], /) -> list[float]: ...


class Policy(BaseModel):
    """A pydantic model: keyword fields."""

    k: int = 3
    _seen: int = 0


class Reader:
    """A class with an ``__init__``."""

    def __init__(self, path: str, *, strict: bool = False, **options: str) -> None:
        self.path = path


class Strict(Reader):
    """Its base's constructor."""


class Failed(Exception):
    """An exception that takes a message."""


class Pair(NamedTuple):
    """A NamedTuple: its fields."""

    first: int
    second: int = 0


def fit(a, b=2, /, c: int = 3, *rest: int, d, e: str = "x", **more) -> None:
    """Every kind of parameter."""
'''


def test_each_name_has_its_signature() -> None:
    _, names = script.public_names(CLASSES)
    assert {n.name: n.signature for n in names} == {
        "Row": "Row(name: str, tags: tuple[str, ...] = (), seen: list[str] = list())",
        "Level": "Level('GO' | 'STOP')",
        "Scorer": "Scorer.name: str; Scorer.predict(pairs: list[tuple[str, str]], /) -> list[float]",
        "Policy": "Policy(*, k: int = 3)",
        "Reader": "Reader(path: str, *, strict: bool = False, **options: str)",
        "Strict": "Strict(path: str, *, strict: bool = False, **options: str)",
        "Failed": "Failed(*args)",
        "Pair": "Pair(first: int, second: int = 0)",
        "fit": "fit(a, b=2, /, c: int = 3, *rest: int, d, e: str = 'x', **more) -> None",
    }


def test_a_module_that_does_not_parse_is_one_line_and_status_2(
    package: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (package / "evidencedesk" / "broken.py").write_text("X = 1\ndef f(:\n", "utf-8")
    assert script.main(["--root", str(package)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: evidencedesk/broken.py:2: ")
    assert len(captured.err.splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (None, ""),
        ("One line.", "One line."),
        ("No full stop", "No full stop"),
        ("Wrapped over\n  two lines. Then more.", "Wrapped over two lines."),
        ("A file, e.g. runs.txt, is read. Then more.", "A file, e.g. runs.txt, is read."),
        ("Version 1.2 of `a.b` holds. Then more.", "Version 1.2 of `a.b` holds."),
        ("Is it? Yes.", "Is it?"),
        ("Ends at ``. ! ?`` and a space. More.", "Ends at ``. ! ?`` and a space."),
        ("Head, no stop\n\nSecond paragraph. More.", "Head, no stop"),
        ("Head, no stop\n   \nSecond paragraph.", "Head, no stop"),
    ],
)
def test_the_first_sentence(text: str | None, first: str) -> None:
    assert script.first_sentence(text) == first


def test_docs_api_is_current_and_every_public_name_is_described(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # run `python scripts/api_reference.py --write docs/api.md` after adding, renaming or
    # describing a public name; a name without a docstring or comment is listed as file:line: name
    monkeypatch.chdir(ROOT)
    problems = script.check(Path("docs/api.md"), script.modules(ROOT))
    assert problems == [], "\n".join(problems)


def _exported(source: str) -> set[str]:
    """The names a module's ``__all__`` declares (its API, whoever uses it)."""
    import ast

    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return {e.value for e in node.value.elts if isinstance(e, ast.Constant)}  # type: ignore[attr-defined]
    return set()


def _public_helpers(root: Path) -> list[str]:
    """``file:line: name`` of each public function or constant of the package under `root` that
    only its own module uses: not another module of the package, a template, a benchmark, script
    or example, not named in the README or a docs page written by hand, and not declared in its
    module's ``__all__``. A public class that only tests build is a type of the API."""
    import re

    def read(folder: str, suffixes: tuple[str, ...]) -> list[str]:
        return [p.read_text(encoding="utf-8") for p in sorted((root / folder).rglob("*"))
                if p.is_file() and p.suffix in suffixes and p.name != "api.md"]  # fmt: skip

    readme = root / "README.md"
    docs = read("docs", (".md",)) + (
        [readme.read_text(encoding="utf-8")] if readme.is_file() else []
    )
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(docs)))
    users = "\n".join(
        text for folder in ("benchmarks", "scripts", "examples", "templates")
        for text in read(folder, (".py", ".html", ".css", ".js", ".md"))
    )  # fmt: skip
    found = script.modules(root, private=True)
    sources = {m.path: (root / m.path).read_text(encoding="utf-8") for m in found}
    # a name is used where it stands as a whole word: a maximal run of word characters, as `\b`
    # bounds it (the words of each file counted once, not searched for once per name)
    words = {path: set(re.findall(r"\w+", text)) for path, text in sources.items()}
    used_outside = set(re.findall(r"\w+", users))
    helpers = []
    for module in found:
        exported = _exported(sources[module.path])
        for name in module.names:
            if name.name in named or name.name in exported or name.kind == "class":
                continue
            used = name.name in used_outside or any(
                name.name in found_words for path, found_words in words.items()
                if path != module.path
            )  # fmt: skip
            if not used:
                helpers.append(f"{module.path}:{name.line}: {name.name}")
    return helpers


def test_a_name_only_its_own_module_uses_is_private() -> None:
    # a helper starts with `_` (rename it, and run scripts/api_reference.py --write docs/api.md)
    assert _public_helpers(ROOT) == []


def test_the_private_names_check_on_a_small_package(tmp_path: Path) -> None:
    package = tmp_path / "evidencedesk"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    (package / "a.py").write_text(
        '"""A."""\n\n__all__ = ["declared"]\nLIMIT = 3  # a helper constant\n\n\n'
        'def helper():\n    """Only this module calls it."""\n    return LIMIT\n\n\n'
        'def shared():\n    """b calls it."""\n\n\ndef declared():\n    """Declared."""\n\n\n'
        'def documented():\n    """Named in docs/."""\n\n\ndef _private():\n    """Private."""\n\n\n'
        'class Row:\n    """A type."""\n'
    )
    (package / "b.py").write_text('"""B."""\nfrom evidencedesk.a import shared\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("Call `documented()`.\n")
    (tmp_path / "docs" / "api.md").write_text("`helper` (the generated page does not count)\n")
    assert _public_helpers(tmp_path) == [
        "evidencedesk/a.py:4: LIMIT",
        "evidencedesk/a.py:7: helper",
    ]
