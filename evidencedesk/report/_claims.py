"""Typed claims: every statement the site makes about a number, and where it comes from.

A `Claim` names its kind, the place in results.json it reads (`source`: a path such as
``candidates[2].comparisons[0]``), the metric it is about (its name and full label: no claim of
a metric has a default label), and the words it says. The words are made by `report.words` from
the Results alone, so the same function run on a results.json read back (`evidencedesk audit`)
says the same words: a sentence on a page that no claim backs, or a claim whose words the Results
no longer give, is a disagreement.

Pages collect their claims in a `Claims` book (`say` records the claim and returns its words
as `Said`); the site writes them to ``claims.json`` beside results.json, page by page. A `Said`
placed in a template marks itself: ``<span data-claim="index.html 3">…</span>``, claim 3 of the
index page's claims, so the audit reads each claim where the page shows it (a table cell holding another cell's
flips is a disagreement, not a match somewhere on the page). In an attribute a template writes
it through the ``plain`` filter.

A number a formatting filter prints (``num``, ``p``, ``interval``, ``flips``: `report.values`)
marks itself the same way when it is one of the Results' own values (`value_paths`): the filter's
text becomes a `Shown`, rendered as ``<span data-v=h>0.634</span>``: h (17) numbers the
results.json path of the value (``variants[0].metrics[2].mean``; or of the row whose interval or
flips it prints) in `value_paths`'s table, so the audit numbers results.json's paths the same
way (`mark_table`), re-reads that value where the page shows it (`value_at`) and holds the text
to it. A
number the filter is handed that the Results do not hold (one a page model computed) stays
unmarked, and the audit reports it when it is a decimal, a p-value or a flips count.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jinja2 import pass_context
from markupsafe import Markup, escape

from evidencedesk.report._words import derive
from evidencedesk.results.types import Results

__all__ = ["Claim", "Claims", "Said", "Shown", "mark_table", "marking", "value_at", "value_paths"]


class Said(str):
    """A claim's words, with the page that recorded it and its number there; rendered by Jinja
    as a marked span (the same words may be shown on other pages too)."""

    page: str
    claim: int

    def __new__(cls, text: str, page: str, claim: int) -> Said:
        said = super().__new__(cls, text)
        said.page, said.claim = page, claim
        return said

    def __html__(self) -> str:
        return f'<span data-claim="{escape(self.page)} {self.claim}">{escape(str(self))}</span>'

    def __reduce__(self) -> tuple[Any, ...]:
        return Said, (str(self), self.page, self.claim)


@dataclass(frozen=True)
class Claim:
    """One sentence a page says about a number: its kind, the results.json path it reads, words."""

    kind: str  # one of words.KINDS
    source: str  # the results.json path it reads ("" for the whole Results)
    text: str
    args: tuple[tuple[str, Any], ...] = ()  # what else the words need (a metric's name, a k)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "text": self.text,
                "args": {k: v for k, v in self.args}}  # fmt: skip


@dataclass
class Claims:
    """The claims of one build, by page: `say` words a claim and records it."""

    results: Results
    pages: dict[str, list[Claim]] = field(default_factory=dict)

    def say(self, page: str, kind: str, source: str, **args: Any) -> str:
        text = derive(self.results, kind, source, args)
        found = self.pages.setdefault(page, [])
        found.append(Claim(kind, source, text, tuple(sorted(args.items()))))
        return Said(text, page, len(found) - 1) if text else text

    def on(self, page: str) -> Callable[..., str]:
        """`say` for one page: ``say = claims.on("index.html"); say("verdict", "candidates[0]")``."""
        return lambda kind, source, **args: self.say(page, kind, source, **args)

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        return {page: [c.to_dict() for c in found] for page, found in sorted(self.pages.items())}

    def to_rows(self) -> dict[str, list[list[Any]]]:
        """`to_dict` as claims.json holds it: each claim a row ``[kind, source]``, and its args
        (an object) third when it has any. Not its words: the audit derives them from
        results.json (`words.derive`, as `say` did) and holds the page to them."""
        return {page: [[c.kind, c.source, *([dict(c.args)] if c.args else [])] for c in found]
                for page, found in sorted(self.pages.items())}  # fmt: skip


class Shown(str):
    """A formatting filter's text of one of the Results' values, with its mark: the number of
    that value's results.json path (`value_paths`'s `table`, in base 36: `mark_number`), or two numbers and how the text
    reads them (``12-30``: the difference of two values; ``12,30``: an interval), or a number
    and the words of a row (``7@verdict``), or ``@legend`` or ``answerable``; rendered by Jinja
    as ``<span data-v=MARK>``, plain through ``str`` (and the ``plain`` filter, in an
    attribute). A number names the path in a few characters: a long path on every value was a
    tenth of a site's weight."""

    at: str

    def __new__(cls, text: str, at: str) -> Shown:
        shown = super().__new__(cls, text)
        shown.at = at
        return shown

    def __html__(self) -> str:
        return f"<span data-v={escape(self.at)}>{escape(str(self))}</span>"

    def __reduce__(self) -> tuple[Any, ...]:
        return Shown, (str(self), self.at)


_LEAVES: frozenset[type] = frozenset({str, int, bool, type(None)})  # no float, no row
# what a value is to `value_paths`'s walk, by its type (0 is none of them: not yet looked at)
_LEAF, _FLOAT, _ROW, _SEQUENCE, _MAPPING, _OTHER = range(1, 7)


def _path_keys(keys: tuple[Any, ...]) -> list[str]:
    """The keys of a mapping a path can name (``['key']``: no quote, blank or bracket in it), in
    order: results.json sorts its keys, a build need not."""
    return sorted(k for k in keys if isinstance(k, str) and not any(c in k for c in "' ]"))


def value_paths(results: Results, table: dict[str, int] | None = None) -> dict[int, str]:
    """The results.json path of every float and every row (a dataclass) the Results hold, by the
    object's identity: what a filter was handed is found here only when it is one of the
    Results' own objects (a number a page model computed is not). Above the page limit the
    ranked lists of the questions without a page are passed over (`_unshown_lists`): no page
    shows them, and most of a large build's values are theirs.

    Each path is the first place in results.json (in the order of its fields) that holds an
    equal number, or an equal row: the Results a build computes share objects between places (a
    variant's mean in each comparison with it, one 1.0 in many Holm p), the Results read back
    from results.json hold a copy in each place, and both must write the same page. The audit
    holds the text to the value at that path, which equals the value printed.

    `table`, when given, is filled with each path's number: the order in which the walk first
    reaches it, place by place (not object by object), so the Results a build computes and the
    same Results read back from results.json number the same paths alike: a page marks a value
    with its path's number (`Shown`), and the audit numbers results.json's paths again to read
    it (`mark_table`)."""
    found: dict[int, str] = {}
    numbered = table if table is not None else {}
    # the first path of each number: by its value, a zero by its sign (0.0 == -0.0)
    numbers: dict[float, str] = {}
    zeros: dict[float, str] = {}
    rows: dict[tuple[Any, ...], str] = {}

    fields_of: dict[type, tuple[str, ...]] = {}  # a row type's field names
    # a mapping's keys a path names (`_path_keys`), by its keys: found once for the metrics every
    # question's list holds
    path_keys: dict[tuple[Any, ...], list[str]] = {}
    kinds: dict[type, int] = {**dict.fromkeys(_LEAVES, _LEAF), float: _FLOAT}
    copysign = math.copysign  # (called for every number of every question)
    unshown = _unshown_lists(results)

    def kind_of(kind: type) -> int:
        """What a value of this type is to the walk (found once per type)."""
        if dataclasses.is_dataclass(kind):
            fields_of[kind] = tuple(f.name for f in dataclasses.fields(kind))
            kinds[kind] = _ROW
        elif issubclass(kind, tuple | list):
            kinds[kind] = _SEQUENCE
        elif issubclass(kind, Mapping):
            kinds[kind] = _MAPPING
        else:
            kinds[kind] = _OTHER
        return kinds[kind]

    def number(value: float, path: str) -> None:
        if value:  # (NaN is true: no number equals it, not even itself, so it is never found)
            if value == value:
                path = numbers.setdefault(value, path)
        else:
            path = zeros.setdefault(copysign(1.0, value), path)
        found.setdefault(id(value), path)
        numbered.setdefault(path, len(numbered))

    # the walk's cost is its calls: a leaf (str, int, bool, None: no path) is skipped where it is
    # met, a float numbered there, and a tuple of leaves alone (ids, grades, flags) passed over
    # with one look at its items' types -- a 10,000-question build's Results hold ~700,000
    # values, most of them in the per-question lists
    def visit(value: Any, path: str) -> None:
        kind = kinds.get(type(value)) or kind_of(type(value))
        if kind == _FLOAT:
            number(value, path)
        elif kind == _ROW:
            row(value, path)
        elif kind == _SEQUENCE:
            if not _LEAVES.issuperset(map(type, value)):
                for i, item in enumerate(value):
                    if type(item) not in _LEAVES and id(item) not in unshown:
                        visit(item, f"{path}[{i}]")
        elif kind == _MAPPING and not _LEAVES.issuperset(map(type, value.values())):
            # (a question's grades by document id, no path in them, passed over in one look)
            keys = path_keys.get(held := tuple(value))
            if keys is None:
                keys = path_keys[held] = _path_keys(held)
            for key in keys:
                item = value[key]
                if type(item) is float:
                    # a number met before (most of a question's values: 0.0, 1.0, 0.5) has
                    # its path, numbered already: no path of its own to write
                    known = numbers.get(item) if item else zeros.get(copysign(1.0, item))
                    if known is not None:
                        found.setdefault(id(item), known)
                    else:
                        number(item, f"{path}['{key}']")
                elif type(item) not in _LEAVES:
                    visit(item, f"{path}['{key}']")

    def row(node: Any, path: str) -> None:
        kind = type(node)
        try:
            path = rows.setdefault((kind, node), path)
        except TypeError:  # a row holding a dict: its own path
            pass
        found.setdefault(id(node), path)
        numbered.setdefault(path, len(numbered))
        for name in fields_of[kind]:
            value = getattr(node, name)
            step = type(value)
            if step in _LEAVES or (step is tuple and _LEAVES.issuperset(map(type, value))):
                continue
            if step is float:
                number(value, f"{path}.{name}" if path else name)
            else:
                visit(value, f"{path}.{name}" if path else name)

    if type(results) not in _LEAVES:
        visit(results, "")
    return found


def _unshown_lists(results: Results) -> set[int]:
    """The identities of the ranked lists no page shows: above the page limit, those of the
    questions without a page (`Plan.chosen`; the flips grid lists only questions with a page).
    Up to it (or for another value than Results), none."""
    if not isinstance(results, Results):
        return set()
    chosen = results.plan.chosen
    if chosen is None:
        return set()
    shown = set(chosen)
    return {id(r) for v in results.variants for r in v.lists if r.question not in shown}


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def mark_number(n: int) -> str:
    """`n` as a mark writes it: in base 36 (a large site numbers tens of thousands of paths)."""
    out = _DIGITS[n % 36]
    while n >= 36:
        n //= 36
        out = _DIGITS[n % 36] + out
    return out


def mark_table(results: Results) -> list[str]:
    """The results.json paths by their number in the pages' marks (`value_paths`'s `table`)."""
    table: dict[str, int] = {}
    value_paths(results, table)
    return list(table)


_STEP = re.compile(r"([A-Za-z_]\w*)((?:\[\d+\]|\['[^'\]]*'\])*)")
_STEPS = re.compile(r"\.(?![^\[]*\])")  # the dots between a path's steps (not in a key)
_INDEX = re.compile(r"\[(\d+|'[^'\]]*')\]")


def value_at(results: Results, path: str) -> Any:
    """The value at `path` (as `value_paths` writes it) in `results`; LookupError if none."""
    node: Any = results
    for step in _STEPS.split(path):
        match = _STEP.fullmatch(step)
        if match is None or not dataclasses.is_dataclass(node) or not hasattr(node, match[1]):
            raise LookupError(f"no {step!r} in results.json at {path!r}")
        node = getattr(node, match[1])
        for index in _INDEX.findall(match[2]):
            if index.startswith("'"):
                if not isinstance(node, Mapping) or index[1:-1] not in node:
                    raise LookupError(f"no [{index}] in results.json at {path!r}")
                node = node[index[1:-1]]
            else:
                if not isinstance(node, tuple | list) or int(index) >= len(node):
                    raise LookupError(f"no [{index}] in results.json at {path!r}")
                node = node[int(index)]
    return node


def _path(mark: Callable[[int], str | None], value: Any) -> str | None:
    """The mark of `value` (`mark`: of an object's identity), or of the Results row a page
    model's wrapper holds (`values.Stat`); None for anything else (a number a page model
    computed)."""
    if value is None:
        return None
    return mark(id(value)) or mark(id(getattr(value, "row", None)))


def marking(filters: Mapping[str, Callable[..., str]], paths: Mapping[int, str],
            results: Results | None = None,
            table: Mapping[str, int] | None = None) -> dict[str, Callable[..., Any]]:  # fmt: skip
    """The site's marking filters. `filters` (the formatting filters) whose text marks itself
    (`Shown`) when the value handed to them is one of the Results' own (`paths`:
    `value_paths`), and the marks a template adds where a filter cannot know what it prints:

    - ``at(text, a, b)``: `text` is the difference a − b of two Results values (a question's
      change of a metric); ``at(text, a)``: `text` is the Results value `a`;
    - ``said(text, row, kind)``: `text` is the words `kind` says of the Results row `row`
      (`words.derive`'s kinds; the audit's own for a gate rule's cells);
    - ``legend(text)``: `text` names a verdict or gate level, as a count's legend;
    - ``list_value(variant, question)``: the Results value of the flips metric in that
      variant's list for that question (None without one), to hand to ``at``;
    - ``claimed(text)``: `text`, a sentence the page model composed of the page's claims (or
      the HTML of its Markdown), with each claim marked where it stands (`_remark`);
    - ``candidate(name)``: the Results row of the candidate of that name, to hand to ``said``;
    - ``counted(text)``: `text` with the count of questions with a relevant judgment
      (results.json's ``answerable``) marked where it first stands before "questions".

    A mark names a path by its number in `table` (`value_paths`'s); without a table, by its
    number in the order of `paths`.
    """
    if table is None:
        table = {}
        for path in paths.values():
            table.setdefault(path, len(table))

    def mark(at: int) -> str | None:
        """The mark of the object of identity `at`: its path's number, written when a page asks
        (a page shows a few of the Results' values: writing the mark of each of them first took
        a 50,000-question build 0.4 s)."""
        path = paths.get(at)
        return None if path is None else mark_number(table[path])

    def marked(fmt: Callable[..., str]) -> Callable[..., str]:
        def filtered(value: Any, *args: Any, **kwargs: Any) -> str:
            text = fmt(value, *args, **kwargs)
            at = _path(mark, value)
            if at is None and isinstance(value, tuple) and len(value) == 2:  # (low, high)
                low, high = _path(mark, value[0]), _path(mark, value[1])
                at = f"{low},{high}" if low and high else None
            return Shown(text, at) if at is not None else text

        return filtered

    def difference(text: str, a: Any, b: Any = None) -> str:
        first, second = _path(mark, a), _path(mark, b)
        if b is None:  # one value, printed by the page model's own `fmt` (a policy's floor)
            return Shown(str(text), first) if first else text
        return Shown(str(text), f"{first}-{second}") if first and second else text

    def said(text: str, row: Any, kind: str) -> str:
        at = _path(mark, row)
        return Shown(str(text), f"{at}@{kind}") if at is not None and text else text

    def legend(text: str) -> str:
        return Shown(str(text), "@legend") if text else text

    @pass_context
    def claimed(context: Any, text: str) -> Markup:
        """`text` (a sentence the page model composed of its claims, or its Markdown's HTML)
        with each claim of the page marked where its words stand (`_remark`)."""
        book = getattr(context.get("model"), "claims", None)
        page = str(context.get("page", ""))
        mine = book.pages.get(page, []) if isinstance(book, Claims) else []
        return _remark(text, page, [c.text for c in mine])

    def counted(text: str) -> str:
        if results is None:
            return text
        hit = re.search(rf"(?<![\w.,]){results.answerable}(?= questions?\b)", str(text))
        if hit is None:
            return text
        mark = Shown(str(results.answerable), "answerable").__html__()
        return Markup(escape(text[: hit.start()]) + Markup(mark) + escape(text[hit.end() :]))  # noqa: S704 - escaped

    lists: dict[tuple[str, str], Any] = {}
    by_name = {} if results is None else {c.name: c for c in results.candidates}
    if results is not None:
        metric = results.settings.flips_metric
        lists = {(v.name, r.question): r.values.get(metric) for v in results.variants
                 for r in v.lists}  # fmt: skip

    def list_value(variant: str, question: str) -> Any:
        return lists.get((variant, question))

    marks: dict[str, Callable[..., Any]] = {
        "claimed": claimed, "at": difference, "said": said, "legend": legend,
        "list_value": list_value, "candidate": by_name.get, "counted": counted,
    }  # fmt: skip
    return {**{name: marked(fmt) for name, fmt in filters.items()}, **marks}


def _worded(words: str) -> bool:
    """A claim `_remark` looks for: words, not a bare number (a claim "0" or "1" would match any
    digit of the sentence: the blind spot this rule closes)."""
    return len(words) >= 8 and any(ch.isalpha() for ch in words)


def _remark(text: str, page: str, said: list[str]) -> Markup:
    """`text` (plain, or HTML when it is `Markup`) with the first occurrence of each of `said`
    (the page's claims' words, claim n at index n) marked as that claim (`Said`), longest first,
    outside tags and marks already made. Only in a sentence a template hands to ``claimed``:
    text a page model composed of its claims (the words of a claim, concatenated, lose their
    mark), never a whole page."""
    html = str(text if isinstance(text, Markup) else escape(text))
    marks: list[tuple[int, int]] = []  # (start, end) of the marks made
    order = sorted((n for n, w in enumerate(said) if _worded(w)), key=lambda n: -len(said[n]))
    for n in order:
        words = said[n]
        for form in dict.fromkeys((str(escape(words)), _md_escaped(words))):
            at = _free(html, form, marks)
            if at >= 0:
                # the mark around the text as it was written (markdown-it escapes no apostrophe)
                mark = f'<span data-claim="{escape(page)} {n}">{form}</span>'
                html = html[:at] + mark + html[at + len(form) :]
                shift = len(mark) - len(form)
                marks = [(a + shift, b + shift) if a > at else (a, b) for a, b in marks]
                marks.append((at, at + len(mark)))
                break
    return Markup(html)  # noqa: S704 - escaped above, or HTML already


def _md_escaped(words: str) -> str:
    """`words` as markdown-it escapes text (&, <, >, " only)."""
    return (words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))  # fmt: skip


def _free(html: str, form: str, marks: list[tuple[int, int]]) -> int:
    """The first index of `form` in `html` outside a tag and outside `marks`; -1 for none."""
    start = 0
    while (at := html.find(form, start)) >= 0:
        in_tag = html.rfind("<", 0, at) > html.rfind(">", 0, at)
        if not in_tag and not any(a <= at < b or a < at + len(form) <= b for a, b in marks):
            return at
        start = at + 1
    return -1
