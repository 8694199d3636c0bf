"""Write docs/api.md, the reference of every public name of the package, from the source.

The package is read with `ast` and `tokenize` (it is never imported). A public name is one a
user can import from a public module (no leading ``_`` on the module or a package above it):
each top-level function, class and assigned name the module defines without a leading ``_``
(imports and what sits under ``if TYPE_CHECKING:`` left out), and every name its ``__all__``
lists — a re-export from another module is followed, through the imports, to the module that
defines it. For each: its signature (a function's ``name(params) -> return``, a class's
constructor — its ``__init__``, or the fields of a dataclass, NamedTuple or pydantic model, the
members of an enum, the methods of a protocol — a constant's value or annotation) and the first
sentence of its docstring or, for an assigned name, of the comment on its line or the comment
lines directly above it. `tests/test_api_reference.py` fails when docs/api.md differs from the
source or a public name has no description, so run this after adding, renaming or describing a
public name:

    python scripts/api_reference.py --write docs/api.md

``python scripts/api_reference.py`` prints the page; ``--check docs/api.md`` exits 1 when the
page is out of date, a public name has no description or an ``__all__`` lists a name its module
does not bind, naming each one (``file:line: name``).
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "evidencedesk"
SHOWN_SECTIONS = 5  # an out-of-date page names this many of the sections that differ
VALUE_WIDTH = 60  # a constant's value is shown when its source is at most this long

PREAMBLE = """\
# API reference

Every name a user can import from a public module of the package, by layer: one section per
public module, in path order, so that each layer's folder (`files`, `retrieval`, `results`,
`report`, `cli`; see [architecture.md](architecture.md)) reads as one block. A row is a name the
module defines (a top-level function, class or assigned name — a `constant`, type aliases
included) or re-exports through its `__all__` (the row says from where), with its signature — a
function's parameters and return type, a class's constructor (its fields for a dataclass, a
NamedTuple or a pydantic model; its members for an enum; its methods for a protocol), a
constant's value — and the first sentence of its docstring, or of the comment on or directly
above the assignment. A name that starts with `_` is private to its module, and a module whose
name starts with `_` is private to the package (the implementation behind the public modules):
neither is listed. The calls of the course page, with examples that the tests run, are in
[course-api.md](course-api.md).

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
# base classes whose subclasses are built from their fields, in order
_FIELD_BASES = ("NamedTuple", "BaseModel", "TypedDict")
_ENUM_BASES = ("Enum", "StrEnum", "IntEnum", "Flag", "IntFlag")
# a class whose constructor is `Exception`'s: it takes the message
_EXCEPTION_BASES = ("Exception", "BaseException", "ValueError", "TypeError", "KeyError",
                    "LookupError", "OSError", "RuntimeError")  # fmt: skip


class SourceError(Exception):
    """A module of the package that `ast` cannot parse (``file:line: why``)."""


@dataclass(frozen=True)
class Name:
    """One public name of a module: where it is defined, its kind, its signature and its
    description."""

    name: str
    kind: str  # "class", "function" or "constant"
    line: int  # in the file that defines it
    description: str  # "" when it has none
    signature: str = ""  # "name(params) -> return", "Name(fields)", "NAME = value"
    path: str = ""  # the file that defines it, when another module re-exports it
    origin: str = ""  # the module that defines it, when another module re-exports it


@dataclass(frozen=True)
class Module:
    """One module of the package: its dotted path, its file, the first sentence of its
    docstring and its public names — those it defines in source order, then those its
    ``__all__`` re-exports."""

    dotted: str
    path: str  # relative to the root, with forward slashes
    summary: str
    names: tuple[Name, ...]
    unbound: tuple[str, ...] = ()  # ``file:line: name`` of an ``__all__`` entry not bound


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


# --- signatures -----------------------------------------------------------------------------


def _parameter(arg: ast.arg, default: ast.expr | None, star: str = "") -> str:
    text = star + arg.arg
    if arg.annotation is not None:
        text += f": {ast.unparse(arg.annotation)}"
        if default is not None:
            text += f" = {ast.unparse(default)}"
    elif default is not None:
        text += f"={ast.unparse(default)}"
    return text


def parameters(args: ast.arguments, skip_first: bool = False) -> str:
    """A parameter list as written in a ``def`` (PEP 8 spacing; ``self`` left out on request)."""
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    pairs = list(zip(positional, [*defaults, *args.defaults], strict=True))
    only = len(args.posonlyargs)
    if skip_first and pairs:
        pairs, only = pairs[1:], max(only - 1, 0)
    parts = [_parameter(a, d) for a, d in pairs]
    if only:
        parts.insert(only, "/")
    if args.vararg is not None:
        parts.append(_parameter(args.vararg, None, "*"))
    elif args.kwonlyargs:
        parts.append("*")
    parts += [_parameter(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        parts.append(_parameter(args.kwarg, None, "**"))
    return ", ".join(parts)


def function_signature(
    node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, method: bool = False
) -> str:
    """``name(params) -> return``, as the ``def`` line declares it (a method without ``self``;
    a property as ``name: type``)."""
    if method and any(_base_name(d) == "property" for d in node.decorator_list):
        return name + (f": {ast.unparse(node.returns)}" if node.returns is not None else "")
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
    return f"{prefix}{name}({parameters(node.args, skip_first=method)}){returns}"


def _base_name(base: ast.expr) -> str:
    """``Protocol`` of ``Protocol``, ``typing.Protocol`` and ``Generic[T]``'s ``Generic``."""
    if isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if _base_name(target) == "dataclass":
            return True
    return False


def _fields(node: ast.ClassDef, pydantic: bool) -> list[str]:
    """A class body's fields as constructor parameters (``ClassVar`` and ``init=False`` left
    out; a pydantic model's ``_private`` attributes too)."""
    found = []
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        name, annotation = stmt.target.id, stmt.annotation
        if _base_name(annotation) == "ClassVar" or (pydantic and name.startswith("_")):
            continue
        default = stmt.value
        if isinstance(default, ast.Call) and _base_name(default.func) in ("field", "Field"):
            keywords = {k.arg: k.value for k in default.keywords}
            init = keywords.get("init")
            if isinstance(init, ast.Constant) and init.value is False:
                continue
            if "default" in keywords:
                default = keywords["default"]
            elif "default_factory" in keywords:
                default = ast.Call(keywords["default_factory"], [], [])
            elif default.args and _base_name(default.func) == "Field":
                default = default.args[0]
            else:
                default = None
        text = f"{name}: {ast.unparse(annotation)}"
        found.append(text if default is None else f"{text} = {ast.unparse(default)}")
    return found


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
            return stmt
    return None


@dataclass
class _Source:
    """One parsed module of the package and what it binds at its top level."""

    dotted: str
    path: str
    source: str
    tree: ast.Module
    package: bool  # an __init__.py
    comments: dict[int, tuple[str, bool]] = field(default_factory=dict)
    nodes: dict[str, ast.stmt] = field(default_factory=dict)  # name -> the statement binding it
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (module, name)
    exported: list[tuple[str, int]] | None = None  # ``__all__``'s names and lines


def _absolute(source: _Source, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = source.dotted.split(".")
    if not source.package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def _parse(dotted: str, path: str, text: str) -> _Source:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise SourceError(f"{path}:{error.lineno}: {error.msg}") from None
    source = _Source(dotted, path, text, tree, path.endswith("__init__.py"), _comments(text))
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(source, node)
            for alias in node.names:
                source.imports.setdefault(alias.asname or alias.name, (module, alias.name))
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound = [node.name]
        else:
            bound = _targets(node)
        value = getattr(node, "value", None)
        if "__all__" in bound and isinstance(value, ast.List | ast.Tuple):
            source.exported = [(e.value, e.lineno) for e in value.elts
                               if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # fmt: skip
        for name in bound:
            source.nodes.setdefault(name, node)
    return source


class _Package:
    """Every module of the package, parsed, to follow a name to the module that defines it."""

    def __init__(self, sources: dict[str, _Source]):
        self.sources = sources

    def find(self, dotted: str, name: str, depth: int = 0) -> tuple[_Source, ast.stmt] | None:
        """The module that defines `name` as `dotted` binds it, and the defining statement."""
        source = self.sources.get(dotted)
        if source is None or depth > 20:
            return None
        if name in source.nodes:
            return source, source.nodes[name]
        if name in source.imports:
            module, original = source.imports[name]
            return self.find(module, original, depth + 1)
        return None

    def find_class(self, source: _Source, base: ast.expr) -> tuple[_Source, ast.ClassDef] | None:
        """The class a base-class expression of `source` names, when the package defines it."""
        name = _base_name(base)
        found = self.find(source.dotted, name)
        if found is not None and isinstance(found[1], ast.ClassDef):
            return found[0], found[1]
        return None

    def constructor(self, source: _Source, node: ast.ClassDef, name: str) -> str:
        """``Name(params)``: what building the class takes."""
        bases = [_base_name(b) for b in node.bases]
        init = _method(node, "__init__") or _method(node, "__new__")
        if init is not None:
            return f"{name}({parameters(init.args, skip_first=True)})"
        if "Protocol" in bases:
            methods = [function_signature(m, f"{name}.{m.name}", method=True)
                       for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                       and not m.name.startswith("_")]  # fmt: skip
            return "; ".join(methods) or name
        if any(b in _ENUM_BASES for b in bases):
            members = [ast.unparse(s.value) for s in node.body if isinstance(s, ast.Assign)]
            return f"{name}({' | '.join(members)})" if members else f"{name}(value)"
        pydantic = "BaseModel" in bases
        if _is_dataclass(node) or any(b in _FIELD_BASES for b in bases):
            inherited: list[str] = []
            for base in node.bases:
                found = self.find_class(source, base)
                if found is not None and (_is_dataclass(found[1]) or pydantic):
                    inherited += _fields(found[1], pydantic)
            fields = inherited + _fields(node, pydantic)
            if pydantic:
                return f"{name}(*, {', '.join(fields)})" if fields else f"{name}()"
            return f"{name}({', '.join(fields)})"
        for base in node.bases:
            found = self.find_class(source, base)
            if found is not None:
                return self.constructor(found[0], found[1], name)
            if _base_name(base) in _EXCEPTION_BASES:
                return f"{name}(*args)"
        return f"{name}()"

    def describe(self, source: _Source, node: ast.stmt, name: str) -> Name:
        """The row of `name`, bound by `node` in `source`."""
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            text = first_sentence(ast.get_docstring(node))
            return Name(name, "function", node.lineno, text, function_signature(node, name))
        if isinstance(node, ast.ClassDef):
            text = first_sentence(ast.get_docstring(node))
            return Name(name, "class", node.lineno, text, self.constructor(source, node, name))
        text = _comment_of(node.lineno, source.comments)
        return Name(name, "constant", node.lineno, text, _constant(node, name))


def _constant(node: ast.stmt, name: str) -> str:
    """``NAME: annotation`` and ``= value`` when the value's source is short."""
    annotation = ""
    if isinstance(node, ast.AnnAssign):
        annotation = f": {ast.unparse(node.annotation)}"
    value = getattr(node, "value", None)
    single = isinstance(node, ast.Assign | ast.AnnAssign) and len(_targets(node)) == 1
    if value is not None and single:
        text = " ".join(ast.unparse(value).split())
        if len(text) <= VALUE_WIDTH:
            return f"{name}{annotation} = {text}"
    return f"{name}{annotation}"


def public_names(source: str) -> tuple[str, tuple[Name, ...]]:
    """The first sentence of a module's docstring and the public names it defines, in source
    order (a name bound twice is listed once, where it is first bound), each with its signature;
    a class's bases are followed within the module only."""
    parsed = _parse("module", "module.py", source)
    package = _Package({"module": parsed})
    names = [package.describe(parsed, node, name) for name, node in parsed.nodes.items()
             if not name.startswith("_")]  # fmt: skip
    return first_sentence(ast.get_docstring(parsed.tree)), tuple(names)


def exported(path: Path) -> list[str] | None:
    """The names a module's ``__all__`` lists, in order; None when it has none."""
    found = _parse("module", path.name, path.read_text(encoding="utf-8")).exported
    return None if found is None else [name for name, _ in found]


def is_private(dotted: str) -> bool:
    """A module whose name, or a package above it, starts with one underscore (``_engine``):
    the implementation behind the public modules, not listed."""
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def _module_names(package: _Package, source: _Source) -> tuple[tuple[Name, ...], tuple[str, ...]]:
    """A module's public names: those it defines, then those its ``__all__`` re-exports; and
    the ``__all__`` entries it does not bind."""
    names: dict[str, Name] = {}
    for name, node in source.nodes.items():
        if not name.startswith("_"):
            names[name] = package.describe(source, node, name)
    unbound = []
    for name, line in source.exported or []:
        if name in names:
            continue
        if name in source.nodes:  # a dunder the module defines: ``__version__``
            names[name] = package.describe(source, source.nodes[name], name)
            continue
        found = package.find(source.dotted, name)
        if found is None:
            unbound.append(f"{source.path}:{line}: {name}")
            continue
        home, node = found
        row = package.describe(home, node, name)
        names[name] = Name(row.name, row.kind, row.line, row.description, row.signature,
                           home.path, home.dotted)  # fmt: skip
    return tuple(names.values()), tuple(unbound)


def modules(root: Path, package: str = PACKAGE, private: bool = False) -> list[Module]:
    """Every public module of the package under `root` (and the private ones too with
    `private`), in path order, with the names a user can import from each."""
    sources: dict[str, _Source] = {}
    for path in sorted(root.joinpath(package).rglob("*.py"), key=lambda p: p.parts):
        relative = path.relative_to(root)
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        dotted = ".".join(parts)
        sources[dotted] = _parse(dotted, relative.as_posix(), path.read_text(encoding="utf-8"))
    parsed = _Package(sources)
    found = []
    for dotted, source in sources.items():
        if is_private(dotted) and not private:
            continue
        names, unbound = _module_names(parsed, source)
        summary = first_sentence(ast.get_docstring(source.tree))
        found.append(Module(dotted, source.path, summary, names, unbound))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _kind(module: Module, name: Name) -> str:
    if not name.origin:
        return name.kind
    return f"{name.kind}, from `{name.origin}`"


def section(module: Module) -> str:
    """One module's part of the page: its heading, its summary and the table of its names."""
    lines = [f"## {module.dotted}", ""]
    if module.summary:
        lines += [_cell(module.summary), ""]
    if module.names:
        lines += ["| name | kind | signature | what it is |", "|---|---|---|---|"]
        lines += [f"| `{n.name}` | {_cell(_kind(module, n))} | `{_cell(n.signature)}` "
                  f"| {_cell(n.description)} |" for n in module.names]  # fmt: skip
    else:
        lines.append("No public names.")
    return "\n".join(lines) + "\n"


def page(found: list[Module]) -> str:
    """The whole page: the preamble, then one section per module."""
    return "\n".join([PREAMBLE, *(section(m) for m in found)])


def undescribed(found: list[Module]) -> list[str]:
    """``file:line: name`` for every public name without a description, in path order (a
    re-exported name once, at the file that defines it)."""
    lines = [f"{n.path or m.path}:{n.line}: {n.name}"
             for m in found for n in m.names if not n.description]  # fmt: skip
    return list(dict.fromkeys(lines))


def _sections(text: str) -> dict[str, str]:
    """Heading -> the text of its section, for the ``## `` sections of a page."""
    parts = re.split(r"^## (.+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def check(path: Path, found: list[Module]) -> list[str]:
    """What `--check` reports: the page out of date (and its sections that differ), then every
    public name without a description, then every ``__all__`` entry its module does not bind.
    Empty when all is well."""
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
    unbound = [line for m in found for line in m.unbound]
    if unbound:
        problems.append("__all__ lists a name its module neither defines nor imports:")
        problems += unbound
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
