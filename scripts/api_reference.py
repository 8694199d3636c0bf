"""Write docs/api.md, the reference of every public name of the package, from the source.

The package is read with `ast` and `tokenize` (it is never imported): for each module of
``evidencedesk/**/*.py``, in path order, its top-level functions, classes and assigned names
that do not start with ``_`` (imports and what sits under ``if TYPE_CHECKING:`` left out), each
with the first sentence of its docstring or, for an assigned name, of the comment on its line or
the comment lines directly above it. `tests/test_api_reference.py` fails when docs/api.md
differs from the source or a public name has no description, so run this after adding, renaming
or describing a public name:

    python scripts/api_reference.py --write docs/api.md

``python scripts/api_reference.py`` prints the page; ``--check docs/api.md`` exits 1 when the
page is out of date or a public name has no description, naming each one (``file:line: name``).
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "evidencedesk"
SHOWN_SECTIONS = 5  # an out-of-date page names this many of the sections that differ

PREAMBLE = """\
# API reference

Every public name of the package, by layer: one section per public module, in path order, so
that each layer's folder (`files`, `retrieval`, `results`, `report`, `cli`; see
[architecture.md](architecture.md)) reads as one block. A row is a module's top-level function,
class or assigned name (a `constant`, type aliases included) with the first sentence of its
docstring, or of the comment on or directly above the assignment. A name that starts with `_` is
private to its module, and a module whose name starts with `_` is private to the package (the
implementation behind the public modules): neither is listed. The calls of the course page, with examples that the
tests run, are in [course-api.md](course-api.md).

This page is generated from the source by `scripts/api_reference.py`, never edited by hand; after
adding, renaming or describing a public name, run

```bash
python scripts/api_reference.py --write docs/api.md
```

and `tests/test_api_reference.py` fails until it is current and every public name is described.
"""

# "e.g. a" or "i.e. the" do not end a sentence; a full stop followed by a space does
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_SENTENCE_END = re.compile(r"[.!?](?=\s)")
_CODE = re.compile(r"(`+).+?\1")  # a code span: its full stops end no sentence
# tool directives that sit in comments and say nothing about the name
_PRAGMA = re.compile(r"\s*(?:#\s*)?(?:type:\s*ignore|noqa|fmt:|pragma:|pyright:|mypy:)", re.I)


class SourceError(Exception):
    """A module of the package that `ast` cannot parse (``file:line: why``)."""


@dataclass(frozen=True)
class Name:
    """One public name of a module: where it is defined, its kind and its description."""

    name: str
    kind: str  # "class", "function" or "constant"
    line: int
    description: str  # "" when it has none


@dataclass(frozen=True)
class Module:
    """One module of the package: its dotted path, its file, the first sentence of its
    docstring and its public names in source order."""

    dotted: str
    path: str  # relative to the root, with forward slashes
    summary: str
    names: tuple[Name, ...]


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring or comment: its first paragraph, on one line, cut after
    the first full stop (or ! or ?) outside a code span that a space follows."""
    if not text:
        return ""
    paragraph = " ".join(re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0].split())
    code = [m.span() for m in _CODE.finditer(paragraph)]
    for end in _SENTENCE_END.finditer(paragraph):
        inside = any(start < end.start() < stop for start, stop in code)
        if not inside and not paragraph[: end.end()].endswith(_ABBREVIATIONS):
            return paragraph[: end.end()]
    return paragraph


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """Line number -> (comment text without ``#``, whether the comment is the whole line)."""
    found: dict[int, tuple[str, bool]] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            whole = token.line[: token.start[1]].strip() == ""
            found[token.start[0]] = (token.string.lstrip("#").strip(), whole)
    return found


def _description(text: str) -> str:
    """A comment's words without the tool directive that may follow them (``# noqa: E501``)."""
    return _PRAGMA.split(text, maxsplit=1)[0].strip()


def _comment_of(line: int, comments: dict[int, tuple[str, bool]]) -> str:
    """The comment on an assignment's first line or, failing that, the comment lines directly
    above it, as one sentence."""
    own = comments.get(line)
    if own is not None and not own[1] and _description(own[0]):
        return first_sentence(_description(own[0]))
    above: list[str] = []
    previous = line - 1
    while previous in comments and comments[previous][1]:
        above.insert(0, _description(comments[previous][0]))
        previous -= 1
    return first_sentence(" ".join(part for part in above if part))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module body, with those under its ``if`` and ``try`` blocks (not
    those under ``if TYPE_CHECKING:``, which exist for the type checker only)."""
    for node in body:
        if isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse):
                yield from _top_level(block)
            yield from _top_level(node.finalbody)
        else:
            yield node


def _targets(node: ast.stmt) -> list[str]:
    """The names an assignment statement binds (``A = B = 1``, ``A, B = …``, ``A: int = 1``)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    elif type(node).__name__ == "TypeAlias":  # ``type X = …`` (Python 3.12)
        targets = [node.name]  # type: ignore[attr-defined]
    else:
        return []
    names = []
    for target in targets:
        elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
        names += [e.id for e in elements if isinstance(e, ast.Name)]
    return names


def public_names(source: str) -> tuple[str, tuple[Name, ...]]:
    """The first sentence of a module's docstring and its public names, in source order (a
    name bound twice is listed once, where it is first bound)."""
    tree = ast.parse(source)
    comments = _comments(source)
    names: dict[str, Name] = {}
    for node in _top_level(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            found = [Name(node.name, kind, node.lineno, first_sentence(ast.get_docstring(node)))]
        else:
            found = [
                Name(target, "constant", node.lineno, _comment_of(node.lineno, comments))
                for target in _targets(node)
            ]
        for name in found:
            if not name.name.startswith("_"):
                names.setdefault(name.name, name)
    return first_sentence(ast.get_docstring(tree)), tuple(names.values())


def is_private(dotted: str) -> bool:
    """A module whose name, or a package above it, starts with one underscore (``_engine``):
    the implementation behind the public modules, not listed."""
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def modules(root: Path, package: str = PACKAGE, private: bool = False) -> list[Module]:
    """Every public module of the package under `root` (and the private ones too with
    `private`), in path order."""
    found = []
    for path in sorted(root.joinpath(package).rglob("*.py"), key=lambda p: p.parts):
        relative = path.relative_to(root)
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if is_private(".".join(parts)) and not private:
            continue
        try:
            summary, names = public_names(path.read_text(encoding="utf-8"))
        except SyntaxError as error:
            raise SourceError(f"{relative.as_posix()}:{error.lineno}: {error.msg}") from None
        found.append(Module(".".join(parts), relative.as_posix(), summary, names))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section(module: Module) -> str:
    """One module's part of the page: its heading, its summary and the table of its names."""
    lines = [f"## {module.dotted}", ""]
    if module.summary:
        lines += [_cell(module.summary), ""]
    if module.names:
        lines += ["| name | kind | what it is |", "|---|---|---|"]
        lines += [f"| `{n.name}` | {n.kind} | {_cell(n.description)} |" for n in module.names]
    else:
        lines.append("No public names.")
    return "\n".join(lines) + "\n"


def page(found: list[Module]) -> str:
    """The whole page: the preamble, then one section per module."""
    return "\n".join([PREAMBLE, *(section(m) for m in found)])


def undescribed(found: list[Module]) -> list[str]:
    """``file:line: name`` for every public name without a description, in path order."""
    return [f"{m.path}:{n.line}: {n.name}" for m in found for n in m.names if not n.description]


def _sections(text: str) -> dict[str, str]:
    """Heading -> the text of its section, for the ``## `` sections of a page."""
    parts = re.split(r"^## (.+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def check(path: Path, found: list[Module]) -> list[str]:
    """What `--check` reports: the page out of date (and its sections that differ), then every
    public name without a description. Empty when all is well."""
    expected = page(found)
    problems = []
    run = f"run python scripts/api_reference.py --write {path}"
    try:
        current = path.read_text(encoding="utf-8")
    except OSError as error:
        problems.append(f"{path}: cannot read it ({error.strerror}); {run}")
    else:
        if current != expected:
            old, new = _sections(current), _sections(expected)
            differ = [h for h in dict.fromkeys([*new, *old]) if old.get(h) != new.get(h)]
            shown = ", ".join(differ[:SHOWN_SECTIONS])
            if len(differ) > SHOWN_SECTIONS:
                shown += f" and {len(differ) - SHOWN_SECTIONS} more"
            where = f" (sections that differ: {shown})" if differ else ""
            problems.append(f"{path} is out of date{where}; {run}")
    missing = undescribed(found)
    if missing:
        names = "1 public name has" if len(missing) == 1 else f"{len(missing)} public names have"
        problems.append(
            f"{names} no description (a docstring, or a comment on or above the assignment):"
        )
        problems += missing
    return problems


def main(argv: Sequence[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", metavar="PAGE", help="write the page to PAGE")
    action.add_argument(
        "--check", metavar="PAGE", help="exit 1 when PAGE is out of date or a name is undescribed"
    )
    parser.add_argument("--root", default=str(root), help="the folder that holds the package")
    args = parser.parse_args(argv)
    try:
        found = modules(Path(args.root))
    except SourceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        problems = check(Path(args.check), found)
        for line in problems:
            print(line)
        return 1 if problems else 0
    if args.write:
        try:
            Path(args.write).write_text(page(found), encoding="utf-8")
        except OSError as error:
            print(f"error: {args.write}: cannot write it ({error.strerror})", file=sys.stderr)
            return 2
        return 0
    sys.stdout.write(page(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
