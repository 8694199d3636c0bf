"""``evidencedesk audit SITE``: every sentence of a built site held to its results.json.

The site writes each page's typed claims to ``claims.json`` (`report.claims`). The audit reads
results.json back into Results and, independently of the site model that wrote the pages:

1. restates every claim's words from the Results by the oracle's own table of the claim kinds
   (`report.oracle.claim_words`, never the build's words) and compares them with the claim's
   and with the page's text: a changed number, label, interval, zero clause, flips count,
   p-value, verdict or gate line is a disagreement, and so is a build whose words are wrong;
2. holds every value a page marks (``<span data-v=N>``: a formatting filter's text of a
   Results value, a difference of two, a badge's or a gate rule's words; `report.claims`) to
   what results.json holds at that path, and every flips cell's ★ to its Holm p;
3. finds every decimal, p-value, flips count and verdict phrase in the pages' text -- prose,
   table cells, nav, footer, pre, code, SVG text -- that stands outside every mark: a sentence
   made up outside the claims is a disagreement, wherever else the page says the same words;
   and reads each chart's data (`_chart_disagreements`): a drawn value is one of results.json's
   numbers (of the point's own variant or candidate), its hover the point's value, interval
   and flips;
4. re-derives the decisions the claims report (`results.recheck`): each candidate's verdict
   from its comparisons, the Holm adjustment across candidates, each comparison's flips, sign
   test and one-way flips needed from the per-question values the Results hold, each gate
   verdict from its lines, and the counts from the questions.
5. recomputes, independently of the build's code (`report.oracle`), every variant's means from
   the exported runs and qrels, every interval, p-value and Holm adjustment from the
   per-question values, and every verdict by a second, table-driven reading of
   docs/verdicts.md; and every line of summary.md, restated from results.json by the oracle
   (`report.oracle.summary_lines`), not by the build's site model.
6. holds the whole numbers a page prints outside the marks where it states results.json's: a
   question page's ranked lists and side-by-side diffs, the index's counts, the page rule's
   counts above the page limit (`report.oracle.page_rule`); and each sizing and ablations cell
   to its own row (a value mark names the first path that holds its value);
7. reads what changed since an earlier report (since.html, the index's section) by its own
   grammar in the oracle's words: this report's side of each change held to results.json, the
   counts to the changes listed; the earlier report's side, not in the site, as said;
8. finds every file a page links to or loads (``href``, ``src``) in the site: a page, a
   stylesheet or an export lost or never written leads nowhere, though no sentence names it;
   and holds data/to-label.tsv, the pairs a reviewer grades, to results.json's row by row, and
   the question list (questions.html's rows, data/question-list.js) to results.json's
   questions, flips and the baseline's passes by the oracle's rule, and each candidate page's
   config change table to its `diff` in the oracle's words (`config_words`), and the tags and
   critical questions a question page and the gate page name to the questions and the policy,
   and a question page's variants and candidates that moved on it to the lists and the flips;
   manifest.json's seed, version and inputs to results.json, and the files it lists to the site.

The pages are read one job per page (`Pages`): in this process by default, by forked readers
from the command line (`cli.audit.forked_pages`), the lines gathered in page order either way.

`audit(site)` returns the disagreements, one line each (page, sentence, what results.json
says); the command prints them and exits 1, or prints one ``ok:`` line and exits 0.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from itertools import accumulate, zip_longest
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from evidencedesk._inert import visible
from evidencedesk.errors import AuditError
from evidencedesk.files._structured import parse_json
from evidencedesk.files._text import read_text
from evidencedesk.report._claims import mark_table, value_at
from evidencedesk.report._oracle import (
    _ALPHA,
    _TIE,
    COMPONENT_CAVEATS,
    SINCE_COUNTS,
    SINCE_GROUP_OF,
    SINCE_GROUPS,
    SINCE_NONE,
    SINCE_SAME_INPUTS,
    SINCE_SHOWN,
    Finding,
    baseline_passes,
    best_lead,
    caveats_given,
    claim_words,
    config_words,
    defined_words,
    gate_word,
    graded_list,
    labelled_counts,
    number_text,
    oracle_findings,
    p_text,
    page_rule,
    policy_cell,
    rule_cell,
    rules_summary,
    since_depth,
    since_outcomes,
    since_project_note,
    since_relevant,
    since_relevant_note,
    since_seed_note,
    since_summary,
    since_tested,
    since_verdict,
    slice_fewer,
    summary_lines,
    tied_words,
)
from evidencedesk.report._questions import LIST_DATA
from evidencedesk.report._site import MANIFEST, SUMMARY, slug
from evidencedesk.results._recheck import recheck
from evidencedesk.results._serialize import TO_LABEL, load
from evidencedesk.results.types import ConfigChange, QuestionFact, RankedList, Results

__all__ = ["Disagreement", "PageResult", "Pages", "audit", "in_turn"]

_CLAIMS = "claims.json"  # the file beside the pages that holds every page's claims
# elements whose text the audit does not read as claims: code that runs or styles, inert markup,
# and the browser tab's title (text alone, which cannot mark a name as data: held to the page's
# name instead, `_title_disagreements`). Text in nav, footer, pre, code and an SVG's text is read
# as any other (a number there is a claim)
_SKIPPED = {"script", "style", "template", "title"}
# elements that never hold text and have no end tag
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}  # fmt: skip
# elements that end a block of prose (each block is read as one sentence group)
_BLOCKS = {"p", "li", "dd", "dt", "h1", "h2", "h3", "h4", "caption", "figcaption", "summary",
          "blockquote", "td", "th", "div", "section", "aside", "header", "pre", "nav", "footer",
          "text"}  # fmt: skip
# what a sentence may say only inside a claim: a decimal standing as a number (one glued to a
# letter, a dot, a colon, a slash, a hyphen or an equals sign is part of an id, a version, a
# path or a name: "d1.25", "0.10.0", "FT911-3.25", "alpha=0.50"), with or without its sign
_DECIMAL = re.compile(r"(?<![\w.:/=-])[+−-]?\d+\.\d{2,}(?![\w.:/-]*\w)")
# a p-value a sentence may state only inside a claim
_P_VALUE = re.compile(r"\bp\s*(?:=|<|>|≤|≥)\s*\d")
# a flips count ("+3/−1") a sentence or table cell may state only inside a claim
_FLIPS = re.compile(r"\+\d+/[−-]\d+")
# verdict and grade phrases a sentence may state only inside a claim
_PHRASES = re.compile(
    r"not proven|\bleans? (?:better|worse|no way)|did not move|useful context|"
    r"\bgrades? \d+ (?:is|=|means)\b|\bp\s*=\s*0\.000\b",
    re.IGNORECASE,
)

# a count of questions or of flips ("21 questions", "6 one-way flips"): on the pages that state
# no result of their own (`_COUNTED`) it stands only inside a mark, unless it is a documented
# threshold (`_THRESHOLDS`: "fewer than 5 questions", "up to 20 changed questions"); another
# project's counts pasted there are a disagreement
_COUNT = re.compile(r"(?<![\w.,@^/−+-])\d[\d,]*\s+(?:one-way\s+|changed\s+)?"
                    r"(?:questions?\b|question\(s\)|flips?\b)")  # fmt: skip
_THRESHOLDS = ("fewer than ", "up to ", "Above ")  # a rule's size ("Above 3,000 questions")
_COUNTED = ("methods.html",)  # definitions, rules and caveats: true of any project
# any of the four, in one search: a block it finds nothing in holds none of them (most blocks)
_ANY = re.compile("|".join(f"(?:{p.pattern})" for p in (_DECIMAL, _P_VALUE, _FLIPS))
                  + f"|(?i:{_PHRASES.pattern})")  # fmt: skip
# a cheaper search that finds something in every text `_ANY` finds something in (each of its
# matches holds one of these: a digit, a dot and two digits; a p and a comparison; a plus and a
# digit; a phrase's first words), its first character looked for first
_ANY_FIRST = re.compile(r"(?=[\d+pPnNlLdDuUgG])(?:\d\.\d\d|[pP]\s*[=<>≤≥]|\+\d|"
                        r"(?i:not proven|leans? |did not move|useful context|grades? \d))")  # fmt: skip


@dataclass(frozen=True)
class Disagreement:
    """A sentence results.json does not back: its page, its words, what results.json says."""

    page: str
    sentence: str
    expected: str

    def line(self) -> str:
        return f"{self.page}: {self.sentence!r}: results.json says {self.expected}"


@dataclass(frozen=True)
class _PageText:
    """What a page shows: its prose blocks and table cells, each as shown and with its marked
    claims and marked values blanked out; each marked claim (the page that recorded it, its
    number there, its words) and each marked value (its results.json path, its text)."""

    prose: tuple[tuple[str, str], ...]  # (as shown, marks blanked)
    cells: tuple[tuple[str, str], ...]
    marked: tuple[tuple[str, int, str], ...]
    values: tuple[tuple[str, str], ...] = ()
    marked_in: tuple[str, ...] = ()  # the block or table cell each marked claim stands in
    claim_after: tuple[int, ...] = ()  # per marked value: the index in `marked` of the next claim
    in_attributes: int = 0  # claim marks written inside an attribute value (a template's slip)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


class _Text(HTMLParser):
    """A page's visible text, outside scripts and styles; ``<span data-claim="page n">`` marks
    claim n of that page (`report.claims.Said`), ``<span data-v=N>`` the Results value at
    results.json path number N (`report.claims.Shown`; decoded by `_unmarked`). Text from data -- a question, a document's
    title, snippet or text, each rendered in an element with ``dir="auto"``, and a reviewer's
    note (``<div class="note">``) -- is the team's words, not the report's: it is not read as
    prose (an abstract saying "not proven" backs no claim and makes none)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.prose: list[tuple[str, str]] = []
        self.cells: list[tuple[str, str]] = []
        self.marked: list[tuple[str, int, str]] = []
        self.values: list[tuple[str, str]] = []
        self.marked_in: list[str] = []
        self.claim_after: list[int] = []
        self._pending: list[int] = []  # marked claims of the open block
        self._skip = 0
        self._open: list[tuple[str, bool]] = []  # open elements: (tag, holds data text)
        self._count: dict[str, int] = {}  # open elements by tag
        self._data = 0  # open elements holding data text
        self._table = 0
        self._buffer: list[str] = []
        self._blanked: list[str] = []
        self._mark: tuple[str, int] | str | None = None  # the open claim or value mark
        self._mark_text: list[str] = []
        self._spans = 0  # spans open inside the mark

    def _flush(self) -> None:
        text = _squeeze("".join(self._buffer))
        for i in self._pending:
            self.marked_in[i] = text
        self._pending = []
        if text:
            (self.cells if self._table else self.prose).append(
                (text, _squeeze("".join(self._blanked)))
            )
        self._buffer, self._blanked = [], []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        if tag == "span" and self._mark is not None:
            self._spans += 1
        elif tag == "span":
            page, _, number = (given.get("data-claim") or "").rpartition(" ")
            if page and number.isdigit():
                self._mark, self._mark_text, self._spans = (page, int(number)), [], 0
            elif given.get("data-v"):
                self._mark, self._mark_text, self._spans = given["data-v"], [], 0
        if tag in _SKIPPED:
            self._skip += 1
        if tag not in _VOID:
            data = given.get("dir") == "auto" or (
                tag == "div" and "note" in (given.get("class") or "").split()
            )
            self._open.append((tag, data))
            self._count[tag] = self._count.get(tag, 0) + 1
            self._data += data
        if tag == "table":
            self._flush()
            self._table += 1
        if tag in _BLOCKS or tag == "br":
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._mark is not None:
            if self._spans:
                self._spans -= 1
            else:
                text = _squeeze("".join(self._mark_text))
                if isinstance(self._mark, tuple):
                    self._pending.append(len(self.marked))
                    self.marked.append((*self._mark, text))
                    self.marked_in.append(text)
                else:
                    self.values.append((self._mark, text))
                    self.claim_after.append(len(self.marked))
                self._mark = None
        if tag in _BLOCKS:
            self._flush()
        if tag == "table":
            self._flush()
            self._table = max(0, self._table - 1)
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
        if self._count.get(tag):  # close it and what it left open
            while self._open:
                name, data = self._open.pop()
                self._data -= data
                self._count[name] -= 1
                if name == tag:
                    break

    def handle_data(self, data: str) -> None:
        if self._mark is not None:
            self._mark_text.append(data)
        if not self._skip and not self._data:
            self._buffer.append(data)
            self._blanked.append(" " * len(data) if self._mark is not None else data)

    def close(self) -> None:
        super().close()
        self._flush()


# a claim mark written inside an attribute value (a template's slip the audit reports)
_IN_ATTRIBUTE = re.compile(r'="[^"<>]*<span data-claim=')


def _page_text(path: Path) -> _PageText:
    """What the page at `path` shows: its prose, its table cells and the claims it marks."""
    return _read(read_text(path, AuditError, "page"))


# the pages' markup in one pass (html.parser's tokenizer, handing each tag to `_Text`'s
# handlers, was most of the audit's time on a large site: 2.4 million tags): text, then what
# ends it -- a comment, a doctype or processing instruction, a start or end tag with its
# attributes, a "<" that starts none of these, or the end. A script's or a style's body is raw
# text up to its end tag. `_read` does what `_Text` does, tag by tag, with the state in locals
_TOKEN = re.compile(
    r"([^<]*)(?:(<!--.*?-->|<![^>]*>|<\?[^>]*>)"
    r"|<(/?)([a-zA-Z][^\s/>]*)((?:[^>\"']+|\"[^\"]*\"|'[^']*')*)>|(<)|\Z)",
    re.S,
)
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_RAW_TEXT = {"script", "style"}
_FSI, _PDI = "\u2068", "\u2069"  # the isolates a page prints around a name (docs/site.md)
_FLUSHED_AT_START = frozenset(_BLOCKS | {"table", "br"})
_FLUSHED_AT_END = frozenset(_BLOCKS | {"table"})
# end tags that may change more than the open elements and the block: the rest, closing the
# element on top, end a block or not and pop it (the common case of a page the build wrote)
_EVENTFUL_END = frozenset(_SKIPPED | {"span", "table"})

# A leaf, read whole where nothing is open that changes how text is read (no mark, no data,
# nothing skipped): an element whose content is text and elements of text alone, none of them a
# block (a table cell ``<td><code>d028</code></td>``, ``<i>unjudged</i>``), and none naming a
# mark, data (``dir``) or a note (no div), with plain double-quoted attributes. It opens and
# closes what it opens, so it leaves the open elements as they were: read whole, its text is
# the block it makes (one cell) or text of the open block. Table rows of leaf cells alone are
# read whole too (a question page's ranked lists: most of a large site's tags), each cell a
# block. Anything else is read tag by tag.
_NOT_LEAF = "|".join(sorted(_VOID | _SKIPPED | _RAW_TEXT | {"table", "div"}))
_PLAIN = r"""(?:\s++(?i:(?!(?:dir|data-claim|data-v)=))[a-zA-Z_:][-\w:.]*+="[^"<>]*+")*+"""


def _inner(name: str) -> str:
    """A leaf's content: text and elements of text (their tag group named `name`)."""
    blocks = "|".join(sorted(_BLOCKS))
    return (rf"(?:[^<]++|<(?!(?:{_NOT_LEAF}|{blocks})[\s>])(?P<{name}>[a-z][a-z0-9]*+){_PLAIN}>"
            rf"[^<]*+</(?P={name})>)*+")  # fmt: skip


def _cell(name: str) -> str:
    """A leaf cell (a ``td`` or ``th`` whose content is a leaf's), its tag a group named `name`
    and its content the next group."""
    return rf"<(?P<{name}>td|th){_PLAIN}>({_inner(f'{name}_in')})</(?P={name})>"


def _value_cell(name: str) -> str:
    """A table cell holding one marked value and nothing else (``<td><span data-v=g2>1.000</span>
    </td>``: most of a question page's metric tables), its mark a group named `name` and its
    text the next group."""
    return rf"<td{_PLAIN}><span data-v=(?P<{name}>[^\s\"'=<>`]++)>([^<]*+)</span></td>"


def _rows(name: str) -> str:
    """Table rows of leaf cells and value cells, and the white space after each (their groups
    named after `name`)."""
    return (rf"(?:<tr{_PLAIN}>(?:\s*+(?:{_cell(f'{name}_cell')}|{_value_cell(f'{name}_value')}))++"
            rf"</tr>\s*+)++")  # fmt: skip


# start tags that change nothing but the open elements and the block (no mark, no data, nothing
# skipped, no table, no void element, no self-closing slash; a boolean attribute as ``open``
# allowed) and end tags, with the white space between them: each read as `_TOKEN` reads it, in
# one loop (`_RUN_TAGS`) instead of one token each
_NOT_RUN = "|".join(sorted(_VOID | _SKIPPED | _RAW_TEXT | {"table", "span"}))
_BARE = (
    r"""(?:\s++(?i:(?!(?:dir|data-claim|data-v)=))[a-zA-Z_:][-\w:.]*+(?:="[^"<>]*+"|(?=[\s>])))*+"""
)
_RUN = (rf"(?:\s*+<(?:(?!(?:{_NOT_RUN})[\s>])(?!div\b[^>]*?\bnote\b)[a-z][a-z0-9]*+{_BARE}"
        rf"|/[a-z][a-z0-9]*+)>)++")  # fmt: skip
_RUN_TAGS = re.compile(r"(\s*+)<(/?)([a-z][a-z0-9]*+)")

# where nothing is open that changes how text is read: text, then a table of such rows alone
# (a head and a body, each optional), such rows, a leaf, a value cell, or what `_TOKEN` reads.
# The white space in a table between its parts is left out, as the white space between rows:
# it follows a start or end tag that left nothing to read (a table's start ends the block
# before it), and white space alone makes no block
_PLAIN_TOKEN = re.compile(
    rf"([^<]*+)(?:(<table{_PLAIN}>\s*+(?:<thead{_PLAIN}>\s*+{_rows('head')}</thead>\s*+)?+"
    rf"(?:<tbody{_PLAIN}>\s*+{_rows('body')}</tbody>\s*+)?+</table>)"
    rf"|({_rows('rows')})"
    rf"|<(?!(?:{_NOT_LEAF})[\s>])(?P<leaf>[a-z][a-z0-9]*+){_PLAIN}>({_inner('in_leaf')})</(?P=leaf)>"
    rf"|{_value_cell('value')}|({_RUN})|" + _TOKEN.pattern[len("([^<]*)(?:") :],
    re.S,
)
# the cells of a table or rows read whole, in order: a leaf cell (its content: group 2) or a
# value cell (its mark: group 4, its text: group 5). A ``<thead>`` is no cell: a cell's tag
# ends at white space or ">"
_ROW_CELLS = re.compile(rf"{_cell('cell')}|{_value_cell('mark')}")
_TAGS = re.compile(r"<[^>]*>")


def _leaf_text(inner: str) -> str:
    """A leaf's text, its tags left out and each text between two tags unescaped (as
    html.parser hands them)."""
    if "&" in inner:
        return "".join(html.unescape(t) for t in _TAGS.split(inner))
    return _TAGS.sub("", inner) if "<" in inner else inner


# a leaf's content -> its text squeezed (`_said`): a large site's cells repeat the same few
# ("<i>unjudged</i>", a grade, a rank, a move); emptied when it grows past `_SAID_MOST`
_SAID: dict[str, str] = {}
_SAID_MOST = 1 << 17


def _said(inner: str) -> str:
    """A leaf's text (`_leaf_text`), its white space squeezed."""
    said = _SAID.get(inner)
    if said is None:
        if len(_SAID) >= _SAID_MOST:
            _SAID.clear()
        said = _SAID[inner] = " ".join(_leaf_text(inner).split())
    return said


def _attributes(text: str) -> dict[str, str | None]:
    """A start tag's attributes by lower-cased name (the last of a repeated name), values with
    their character references resolved, as `HTMLParser` hands them to `dict`."""
    given: dict[str, str | None] = {}
    for m in _ATTR.finditer(text):
        value = m[2] if m[2] is not None else m[3] if m[3] is not None else m[4]
        given[m[1].lower()] = None if value is None else html.unescape(value)
    return given


_RUN_AT = _PLAIN_TOKEN.groupindex["value"] + 2  # a run of tags read in one loop
_ROWS_AT = _PLAIN_TOKEN.groupindex["rows_cell"] - 1  # rows read whole (outside a table read whole)
_LEAF_AT = _PLAIN_TOKEN.groupindex["leaf"]  # the leaf's tag; its content is the next group
# a table cell holding one marked value and nothing else: its mark; its text is the next group
_VALUE_AT = _PLAIN_TOKEN.groupindex["value"]


def _mark_of(given: dict[str, str | None]) -> tuple[str, int] | str | None:
    """The mark a span's attributes open: a claim (page, number) or a value's mark."""
    page, _, number = (given.get("data-claim") or "").rpartition(" ")
    if page and number.isdigit():
        return page, int(number)
    return given.get("data-v") or None


def _holds_data(tag: str, given: dict[str, str | None]) -> bool:
    """An element holding the team's words: ``dir="auto"``, or a note (``<div class="note">``)."""
    return given.get("dir") == "auto" or (
        tag == "div" and "note" in (given.get("class") or "").split()
    )


class _Blocks:
    """What `_read` has read: the blocks (prose and table cells, each as shown and with its
    marks blanked), the open block's text, the marked claims and values and the block each
    marked claim stands in (`_PageText`)."""

    __slots__ = ("blanked", "buffer", "cells", "claim_after", "marked", "marked_in", "pending",
                 "prose", "table", "values")  # fmt: skip

    def __init__(self) -> None:
        self.prose: list[tuple[str, str]] = []
        self.cells: list[tuple[str, str]] = []
        self.marked_in: list[str] = []  # per marked claim: its block
        self.pending: list[int] = []  # marked claims of the open block
        self.buffer: list[str] = []  # the open block's text
        self.blanked: list[str] = []  # the same, marks blanked
        self.table = 0  # open tables: a block in one is a table cell
        self.marked: list[tuple[str, int, str]] = []
        self.values: list[tuple[str, str]] = []
        self.claim_after: list[int] = []

    def read_leaf(self, text: str, inner: str, tag: str) -> None:
        """`text` of the open block, then a leaf (`tag` around `inner`) read whole: a block of
        its own (a block's tag), or text of the open block."""
        if tag not in _BLOCKS:
            if text := text + _leaf_text(inner):
                self.buffer.append(text)
                self.blanked.append(text)
            return
        if text:
            self.buffer.append(text)
            self.blanked.append(text)
        if self.buffer or self.pending:
            self.flush()
        said = _said(inner)
        if said:
            (self.cells if self.table else self.prose).append((said, said))

    def read_rows(self, text: str, rows: str, table: bool = False) -> None:
        """`text` of the open block, then table rows of leaf cells and value cells read whole,
        or a `table` of them: each cell a block (a table's: a table cell), each value cell's
        mark closed around its text (what the table's start and end, each cell's start, its
        mark and its end do in turn, tag by tag)."""
        if text:
            self.buffer.append(text)
            self.blanked.append(text)
        if self.buffer or self.pending:
            self.flush()
        into = self.cells if self.table or table else self.prose
        values, after, marked = self.values, self.claim_after, self.marked
        for _, inner, _, mark, words in _ROW_CELLS.findall(rows):
            if not mark:  # a leaf cell (a mark has at least one character)
                said = _said(inner)
                if said:
                    into.append((said, said))
                continue
            if "&" in mark:
                mark = html.unescape(mark)
            said = " ".join((html.unescape(words) if "&" in words else words).split())
            if said:
                into.append((said, ""))  # its text, its mark blanked
            values.append((mark, said))
            after.append(len(marked))

    def read_value_cell(self, text: str, value: str, inner: str) -> None:
        """`text` of the open block, then a table cell holding only the value mark `value` around
        `inner`: what the cell's start, its mark and its end do in turn."""
        if text:
            self.buffer.append(text)
            self.blanked.append(text)
        if self.buffer or self.pending:
            self.flush()
        self.buffer.append(inner)
        self.blanked.append(" " * len(inner))
        self.closed(value, _squeeze(inner))
        self.flush()

    def closed(self, mark: tuple[str, int] | str, words: str) -> None:
        """The mark `mark` closed around `words`: a claim (page, number) or a value's mark."""
        if isinstance(mark, tuple):
            self.pending.append(len(self.marked))
            self.marked.append((*mark, words))
            self.marked_in.append(words)
        else:
            self.values.append((mark, words))
            self.claim_after.append(len(self.marked))

    def flush(self) -> None:  # `_Text._flush`
        joined = "".join(self.buffer)
        text = " ".join(joined.split())
        for i in self.pending:
            self.marked_in[i] = text
        self.pending.clear()
        if text:
            blank = "".join(self.blanked)  # the same text unless a mark stands in it
            same = text if blank == joined else _squeeze(blank)
            (self.cells if self.table else self.prose).append((text, same))
        self.buffer.clear()
        self.blanked.clear()


def _read_run(blocks: _Blocks, text: str, run: str, open_: list[str],
              end: Callable[[str], None]) -> None:  # fmt: skip
    """`text`, then a run of tags (`_RUN`) read as `_read` reads each of them tag by tag:
    `open_`, the open elements, and `end`, what an end tag does that closes more than the
    element on top."""
    buffer, blanked, pending = blocks.buffer, blocks.blanked, blocks.pending
    if text:
        buffer.append(text)
        blanked.append(text)
    for space, closing, tag in _RUN_TAGS.findall(run):
        if space:
            buffer.append(space)
            blanked.append(space)
        if not closing:
            open_.append(tag)
            if tag in _BLOCKS and (buffer or pending):
                blocks.flush()
        elif open_ and open_[-1] == tag and tag not in _EVENTFUL_END:
            if tag in _BLOCKS and (buffer or pending):
                blocks.flush()
            open_.pop()
        else:
            end(tag)


def _read_whole(blocks: _Blocks, token: re.Match[str], text: str) -> None:
    """`text`, then a `_PLAIN_TOKEN` read whole: a table, rows, a leaf or a value cell."""
    table, rows, leaf, value = token.group(2, _ROWS_AT, _LEAF_AT, _VALUE_AT)
    if table:
        blocks.read_rows(text, table, table=True)
    elif rows:
        blocks.read_rows(text, rows)
    elif leaf is not None:
        blocks.read_leaf(text, token.group(_LEAF_AT + 1), leaf)
    else:  # a cell of one marked value: its text before it, its mark, its text
        unescape, words = html.unescape, token.group(_VALUE_AT + 1)
        blocks.read_value_cell(text, *(unescape(t) if "&" in t else t for t in (value, words)))


def _read(raw: str) -> _PageText:
    """What `_Text` reads of `raw` when `HTMLParser` feeds it (tests/test_audit.py holds the two
    equal on every page of the demo and on markup the pages do not write), in one function:
    the same open elements, marks, blocks and data elements. Only a span's, a div's and an
    element's with a ``dir`` attributes are read (the others mark nothing and hold no data)."""
    squeeze, unescape = _squeeze, html.unescape
    blocks = _Blocks()
    buffer, blanked, pending, marked_in, flush = (
        blocks.buffer,
        blocks.blanked,
        blocks.pending,
        blocks.marked_in,
        blocks.flush,
    )
    open_: list[str] = []  # the open elements' tags
    data_at: list[int] = []  # where in `open_` each open element holding data text stands
    mark: tuple[str, int] | str | None = None  # the open claim or value mark
    mark_text: list[str] = []
    skip = spans = 0

    def end(tag: str) -> None:  # `_Text.handle_endtag`
        nonlocal mark, spans, skip
        if tag == "span" and mark is not None:
            if spans:
                spans -= 1
            else:
                blocks.closed(mark, squeeze("".join(mark_text)))
                mark = None
        if tag in _FLUSHED_AT_END:
            if buffer or pending:
                flush()
            if tag == "table":
                blocks.table = max(0, blocks.table - 1)
        if tag in _SKIPPED:
            skip = max(0, skip - 1)
        if tag in open_:  # close it and what it left open
            del open_[len(open_) - 1 - open_[::-1].index(tag) :]
            while data_at and data_at[-1] >= len(open_):
                data_at.pop()

    at, stop = 0, len(raw)
    # the groups both patterns end with: a comment's, an end tag's slash, the tag, its
    # attributes, a lone "<" (by pattern: `_PLAIN_TOKEN`'s, `_TOKEN`'s)
    last = [tuple(range(p.groups - 4, p.groups + 1)) for p in (_PLAIN_TOKEN, _TOKEN)]
    while at < stop:
        if mark is None and not data_at and not skip:
            token = _PLAIN_TOKEN.match(raw, at)
            assert token is not None  # the last alternatives match anything
            text, table, rows, leaf, value, run = token.group(1, 2, _ROWS_AT, _LEAF_AT,
                                                               _VALUE_AT, _RUN_AT)  # fmt: skip
            if run:  # its text, then each tag as the tag-by-tag reading below reads it
                _read_run(blocks, unescape(text) if "&" in text else text, run, open_, end)
                at = token.end()
                continue
            if table or rows or leaf or value:  # read whole
                _read_whole(blocks, token, unescape(text) if "&" in text else text)
                at = token.end()
                continue
        else:
            token = _TOKEN.match(raw, at)
        assert token is not None  # the last alternatives match anything
        at = token.end()
        text, _, closing, tag, attrs, lone = token.group(1, *last[token.re is _TOKEN])
        if lone:
            text += lone
        if text:
            if "&" in text:
                text = unescape(text)
            if mark is not None:
                mark_text.append(text)
            if not skip and not data_at:
                buffer.append(text)
                blanked.append(" " * len(text) if mark is not None else text)
        if tag is None:
            continue
        tag = tag.lower()
        if closing:
            if open_ and open_[-1] == tag and tag not in _EVENTFUL_END:
                if tag in _BLOCKS and (buffer or pending):
                    flush()
                open_.pop()
                if data_at and data_at[-1] == len(open_):
                    data_at.pop()
            else:
                end(tag)
            continue
        given = _attributes(attrs) if attrs and (tag in ("span", "div") or "dir" in
                                                 attrs.lower()) else None  # fmt: skip
        if tag == "span":
            if mark is not None:
                spans += 1
            elif given and (opened := _mark_of(given)) is not None:
                mark, mark_text, spans = opened, [], 0
        skip += tag in _SKIPPED
        if tag not in _VOID:
            if given is not None and _holds_data(tag, given):
                data_at.append(len(open_))
            open_.append(tag)
        if tag in _FLUSHED_AT_START:
            if buffer or pending:
                flush()
            if tag == "table":
                blocks.table += 1
        if tag not in _VOID and token.group().endswith("/>"):
            end(tag)  # as HTMLParser.handle_startendtag does
        elif tag in _RAW_TEXT:  # its body is not markup
            close = re.compile(rf"</{tag}\s*>", re.I).search(raw, at)
            body, at = raw[at : close.start() if close else stop], close.start() if close else stop
            if body and mark is not None:  # as text
                mark_text.append(body)
            if body and not skip and not data_at:
                buffer.append(body)
                blanked.append(" " * len(body) if mark is not None else body)
    if buffer or pending:
        flush()
    return _PageText(tuple(blocks.prose), tuple(blocks.cells), tuple(blocks.marked),
                     tuple(blocks.values), tuple(marked_in), tuple(blocks.claim_after),
                     len(_IN_ATTRIBUTE.findall(raw)))  # fmt: skip


def _claims(site: Path, results: Results) -> dict[str, list[dict[str, Any]]]:
    """claims.json's claims by page, each an object: kind, source, args and its words. A row
    ``[kind, source, args?]`` (`report.claims.Claims.to_rows`) records no words: they are the
    words `report.oracle.claim_words` gives from results.json (``derived``; ``error`` when it
    gives none), which the page must show."""
    path = site / _CLAIMS
    data = parse_json(read_text(path, AuditError, "claims file"), path, AuditError)
    if not isinstance(data, dict):
        raise AuditError(path, "expected an object of page -> claims, found something else")
    out: dict[str, list[dict[str, Any]]] = {}
    for page, rows in data.items():
        out[page] = claims = []
        for row in rows if isinstance(rows, list) else []:
            if not isinstance(row, list):
                claims.append(row if isinstance(row, dict) else {})
                continue
            claim = dict(zip(("kind", "source", "args"), row, strict=False))
            try:
                claim["text"] = claim_words(results, str(claim.get("kind")),
                                            str(claim.get("source", "")),
                                            dict(claim.get("args") or {}))  # fmt: skip
                claim["derived"] = True
            except (LookupError, TypeError, ValueError, AttributeError) as exc:
                claim["text"], claim["error"] = f"{claim.get('kind')} of {claim.get('source')}", exc
            claims.append(claim)
    return out


def _around(text: str, start: int) -> str:
    a = max(0, text.rfind(". ", 0, start) + 2 if text.rfind(". ", 0, start) >= 0 else 0)
    b = text.find(". ", start)
    return text[a : b + 1 if b >= 0 else len(text)].strip()[:200]


def _in_name(text: str, start: int, end: int, name: str) -> bool:
    """Whether text[start:end] lies inside an occurrence of `name` in `text`."""
    at = text.find(name, max(0, end - len(name)))
    return bool(name) and 0 <= at <= start and end <= at + len(name)


# what parts the blocks in `_holding_any`'s one search: no pattern of `_ANY` matches it or
# reads it as a word's or a number's edge, so none matches across it
_PART = "\x00"


def _holding_any(blocks: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """The blocks whose blanked text `_ANY` finds something in (most blocks hold nothing it
    reads): those `_ANY_FIRST` finds something in, by one search of the page's blocks joined by
    `_PART`, then each of them searched by `_ANY`."""
    joined = _PART.join(blanked for _, blanked in blocks)
    if joined.count(_PART) != len(blocks) - 1:  # a block holding the part itself: one by one
        return [b for b in blocks if _ANY.search(b[1]) is not None]
    ends = list(accumulate(len(blanked) + 1 for _, blanked in blocks))
    maybe = dict.fromkeys(bisect_right(ends, hit.start()) for hit in _ANY_FIRST.finditer(joined))
    return [blocks[i] for i in maybe if _ANY.search(blocks[i][1]) is not None]


def _unbacked(page: str, shown: _PageText, project: str = "") -> list[Disagreement]:
    """Decimals, p-values, flips and verdict phrases that stand outside every mark: no claim
    and no Results value backs them where they stand (a claim's words elsewhere on the page back
    nothing here). A whole number alone (a count, a rank, the k of "@10", a year) is not read:
    the report prints every measurement with decimals (`report.values.fmt`). On the methods
    page a count of questions or flips is read, except a rule's size ("fewer than 6 flips") and
    a count inside the `project`'s name (data: "… (1250 questions)" in its title and header)."""
    out = []
    patterns = (_DECIMAL, _P_VALUE, _FLIPS, _PHRASES) + ((_COUNT,) if page in _COUNTED else ())
    for blocks, what in ((shown.prose, "sentence"), (shown.cells, "table cell")):
        for block, blanked in blocks if page in _COUNTED else _holding_any(blocks):
            for pattern in patterns:
                hit = next((h for h in pattern.finditer(blanked) if pattern is not _COUNT
                            or not (blanked[: h.start()].endswith(_THRESHOLDS)
                                    or _in_name(blanked, h.start(), h.end(), project))),
                           None)  # fmt: skip
                if hit is not None:
                    said = _around(block, hit.start()) if what == "sentence" else block[:200]
                    out.append(Disagreement(page, said, f"nothing: no claim backs this {what}"))
                    break
    return out


def _as_shown(value: Any, text: str) -> str:
    """`value` (a Results number, a (low, high) pair, or a row with an interval or flips) as
    docs/site.md prints it (`report.oracle.number_text`), at the precision and sign `text` shows
    it with: an interval "[low, high]" ("—" when either end is undefined), flips "+b/−w"."""
    if value is None:
        return "—"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if text == "< 0.001" and value < 0.001:
            return text
        digits = len(text) - text.index(".") - 1 if "." in text else 0
        return number_text(value, digits, text[:1] in "+−")
    if isinstance(value, tuple) or hasattr(value, "low") and not text.startswith("+"):
        inner = text[1:].split(",")[0]
        digits = len(inner) - inner.index(".") - 1 if "." in inner else 3
        low, high = value if isinstance(value, tuple) else (value.low, value.high)
        if low is None or high is None:
            return "—"
        signed = inner[:1] in "+−"
        return f"[{number_text(low, digits, signed)}, {number_text(high, digits, signed)}]"
    if hasattr(value, "better"):
        better, worse = (side if isinstance(side, int) else len(side)
                         for side in (value.better, value.worse))  # fmt: skip
        return f"+{better}/−{worse}"
    return repr(value)


# what a gate rule's cells say, by the mark ``said(row, kind)`` gives: restated from docs/gate.md
# by the oracle (`report.oracle.rule_cell`), not read from the build's formatters
_RULE_WORDS = ("observed", "threshold", "margin")
# the gate page's policy cells said in words, by the mark ``said(policy, key)``: restated by the
# oracle too (`report.oracle.policy_cell`)
_POLICY_WORDS = ("review_on_mrr_flips",)


def _shown(results: Results, at: str, text: str) -> str:
    """What the mark `at` (`report.claims.marking`) says the text must be: a Results value
    (``path``), a difference of two (``a − b``), an interval of two (``[low, high]``) or the words
    of a row (``path @kind``: `report.oracle.claim_words`'s kinds, or a gate rule's cells)."""
    if " @" in at:
        path, kind = at.rsplit(" @", 1)
        if kind in _RULE_WORDS:
            return rule_cell(results, value_at(results, path), kind)
        if kind in _POLICY_WORDS:
            return policy_cell(value_at(results, path), kind)
        return claim_words(results, kind, path, {})
    if at.startswith("[") and at.endswith("]"):
        low, high = at[1:-1].split(", ", 1)
        return _as_shown((value_at(results, low), value_at(results, high)), text)
    if " − " in at:
        a, b = (value_at(results, p) for p in at.split(" − ", 1))
        return _as_shown(None if a is None or b is None else a - b, text)
    return _as_shown(value_at(results, at), text)


def _legend_disagreement(page: str, claims: dict[str, list[dict[str, Any]]], shown: _PageText,
                         text: str, after: int) -> Disagreement | None:  # fmt: skip
    """A legend names what the count claimed right after it counts (a ``tally`` claim)."""
    where, number, words = shown.marked[after] if after < len(shown.marked) else ("", 0, "")
    recorded = claims.get(where, [])
    claim = recorded[number] if number < len(recorded) else {}
    of = (claim.get("args") or {}).get("of") if claim.get("kind") == "tally" else None
    if of == text:
        return None
    said = repr(of) if of else "no count after it"
    return Disagreement(page, text, f"{said} (the legend of {words!r}: claim {number} of {where})"
                        if of else said)  # fmt: skip


_Known = dict[tuple[str, str], tuple[str, "str | Exception"]]  # (mark, text) -> (path, text due)
# a value's mark (`report.claims.Shown`): a path's number, two numbers read as a difference or
# an interval, or a number and the words of its row
_MARK = re.compile(r"([0-9a-z]+)(?:([-,])([0-9a-z]+)|@(\w+))?")


def _unmarked(mark: str, table: list[str]) -> str:
    """The mark `mark` with its paths' numbers read in `table` (`report.claims.mark_table`), as
    `_shown` reads it: ``path``, ``a − b``, ``[low, high]``, ``path @kind``."""
    if mark in ("@legend", "answerable"):
        return mark
    read = _MARK.fullmatch(mark)
    if read is None:
        raise LookupError(f"no mark {mark!r}")
    first, how, second, kind = read.groups()
    path = table[int(first, 36)]  # the number in base 36 (`report.claims.mark_number`)
    if how == "-":
        return f"{path} − {table[int(second, 36)]}"
    if how == ",":
        return f"[{path}, {table[int(second, 36)]}]"
    return f"{path} @{kind}" if kind else path


def _value_disagreements(page: str, results: Results, claims: dict[str, list[dict[str, Any]]],
                         shown: _PageText, known: _Known, table: list[str]) -> list[Disagreement]:  # fmt: skip
    """Each marked value shows what its mark names (its paths numbered in `table`), re-read from
    results.json (once per mark and text for the whole site: `known`; a large site's question
    pages mark the same values)."""
    out = []
    for (mark, text), after in zip(shown.values, shown.claim_after, strict=True):
        if mark == "@legend":
            legend = _legend_disagreement(page, claims, shown, text, after)
            out += [legend] if legend is not None else []
            continue
        if (mark, text) not in known:
            at = mark
            try:
                at = _unmarked(mark, table)
                known[mark, text] = at, _shown(results, at, text)
            except (LookupError, TypeError, ValueError, AttributeError) as exc:
                known[mark, text] = at, exc
        at, expected = known[mark, text]
        if isinstance(expected, Exception):
            out.append(Disagreement(page, text, f"no such value ({expected})"))
            continue
        if text != expected:
            path, _, kind = at.rpartition(" @")
            where = f"{kind} of {path}" if path else at
            out.append(Disagreement(page, text, f"{expected!r} ({where})"))
    return out


def _marked_disagreements(page: str, claims: dict[str, list[dict[str, Any]]],
                          shown: _PageText) -> list[Disagreement]:  # fmt: skip
    """Each claim where a page marks it says that claim's words."""
    out = []
    for where, number, text in shown.marked:
        recorded = claims.get(where, [])
        if number >= len(recorded):
            out.append(Disagreement(page, text, f"no claim {number} of {where}"))
            continue
        claim = recorded[number]
        words = _squeeze(str(claim.get("text", "")))
        if text != words:
            source = claim.get("source") or "the results"
            out.append(Disagreement(page, text, f"{words!r} (claim {number} of {where}: "
                                    f"{claim.get('kind')} of {source})"))  # fmt: skip
    return out


_STAR = "★"  # a flips cell's mark: its sign test significant after Holm (`report.benchmark`)


def _star_disagreements(page: str, results: Results, claims: dict[str, list[dict[str, Any]]],
                        shown: _PageText) -> list[Disagreement]:  # fmt: skip
    """A flips table's cell (a ``flip_cell`` claim of ``flips[i]``) holds a ★ exactly when that
    comparison's Holm-adjusted sign-test p is below 0.05: a removed or added ★ is a
    disagreement (the star is the cell's claim of significance, not decoration)."""
    out = []
    for (where, number, words), cell in zip(shown.marked, shown.marked_in, strict=True):
        recorded = claims.get(where, [])
        claim = recorded[number] if number < len(recorded) else {}
        source = str(claim.get("source", ""))
        if claim.get("kind") != "flip_cell" or not source.startswith("flips["):
            continue
        try:
            holm = float(value_at(results, f"{source}.holm_p"))
        except (LookupError, TypeError, ValueError):
            continue  # named by the claim checks
        if (holm < _ALPHA) != (_STAR in cell):
            said = f"{words} {_STAR}" if holm < _ALPHA else words
            out.append(Disagreement(page, cell, f"{said!r} (Holm-adjusted sign-test p "
                                    f"{p_text(holm)} at {source})"))  # fmt: skip
    return out


def _claim_disagreements(results: Results, page: str, claims: list[dict[str, Any]], text: str,
                         marked: set[int]) -> list[Disagreement]:  # fmt: skip
    """Each claim's words re-derived from the Results; an unmarked claim (`marked`: the numbers
    the page marks) must be on the page as written."""
    out = []
    for number, claim in enumerate(claims):
        said = str(claim.get("text", ""))
        try:
            if "error" in claim:
                raise claim["error"]
            expected = said if claim.get("derived") else claim_words(
                results, str(claim.get("kind")), str(claim.get("source", "")),
                dict(claim.get("args") or {}))  # fmt: skip
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            out.append(Disagreement(page, said, f"no such claim ({exc})"))
            continue
        if expected != said:
            out.append(Disagreement(page, said, repr(expected)))
        elif said and number not in marked and _squeeze(said) not in text:
            out.append(Disagreement(page, said, "so, but the page does not show these words"))
    return out


_Lists = dict[tuple[str, str], tuple[str, RankedList]]  # (run, question) -> (its path, its list)


# a question page's ranked lists (templates/question.html): each table names its run (its class
# ``moves`` when its rows are marked against the baseline's list), each row its document, the
# rank it shows ("—": a baseline document it dropped), its change against the baseline and its
# grade ("unjudged": the judgments grade it not)
_RANKED = re.compile(r'<table class="ranked-list([^"]*)" data-list="([^"]*)">(.*?)</table>', re.S)
_ROW = re.compile(r"<tr\b([^>]*)>(.*?)</tr>", re.S)
_TD = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
_CHUNK = re.compile(r'\bdata-chunk="([^"]*)"')


def _cell_text(cell: str) -> str:
    """A cell's text: its tags left out, unescaped, its white space squeezed (the same few
    cells repeat across a site's lists: read once each, `_CELL_TEXT`)."""
    text = _CELL_TEXT.get(cell)
    if text is None:
        if len(_CELL_TEXT) >= _SAID_MOST:
            _CELL_TEXT.clear()
        text = _CELL_TEXT[cell] = _squeeze(html.unescape(_TAGS.sub("", cell)))
    return text


_CELL_TEXT: dict[str, str] = {}


def _grade_of(ranked: RankedList, k: int, shown: str) -> str:
    """What the grade cell of the k-th document of `ranked` says: its grade, or "unjudged".
    results.json holds a judgment below 0 as grade 0 (it gains nothing): a cell showing a
    negative grade where results.json holds 0 says what results.json can say."""
    if not (ranked.judged is None or ranked.judged[k - 1]):
        return "unjudged"
    grade = ranked.grades[k - 1]
    return shown if grade == 0 and shown.startswith("-") and shown[1:].isdigit() else str(grade)


def _move_of(doc: str, k: int | None, base: RankedList | None, cand: RankedList) -> str:
    """What the "Against base" cell says of `doc` at rank `k` of `cand` (None: a baseline
    document `cand` dropped), restated from docs/site.md: up or down by how many ranks, the same
    rank, new (not in the baseline's top N when results.json keeps only its top N) or dropped
    (not in the candidate's top N, likewise)."""
    before = base.ids.index(doc) + 1 if base is not None and doc in base.ids else None
    if k is None:
        cut = cand.size > len(cand.ids)
        return f"{f'− not in top {len(cand.ids)}' if cut else '− dropped'} from {before}"
    if before is None:
        cut = base is not None and base.size > len(base.ids)
        return f"+ not in top {len(base.ids)}" if base is not None and cut else "+ new"
    if k != before:
        return f"▲ up {before - k}" if k < before else f"▼ down {k - before}"
    return "= same rank"


def _rank_disagreements(page: str, raw: str, question: str, results: Results,
                        lists: _Lists) -> list[Disagreement]:  # fmt: skip
    """Each ranked row of a question page shows, in order, the rank and the document
    results.json's list of that run gives there: the k-th ranked row of a run's list is rank k
    and holds ids[k - 1] (a swapped rank number or two swapped rows are disagreements), with
    its grade (grades[k - 1], or "unjudged") and, in a list marked against the baseline's, its
    move; a dropped baseline document shows its baseline rank and grade. Read from the page and
    results.json alone, not from the page model that wrote it."""
    out = []
    seen: dict[str, int] = {}  # run -> ranked rows read so far (its lists continue in a fold)
    for kind, run, body in _RANKED.findall(raw):
        run = html.unescape(run)
        at, ranked = lists.get((run, question), ("", None))
        base_at, base = lists.get((results.baseline, question), ("", None))
        moves = "moves" in kind.split()
        for attrs, row in _ROW.findall(body):
            chunk = _CHUNK.search(attrs)
            cells = _TD.findall(row) if chunk is not None else []
            if chunk is None or not cells:
                continue  # "nothing returned", or the header
            # the rank, the move and the grade: a row's other cells (its document's title and
            # text) are data, never read
            cells[:2] = [_cell_text(c) for c in cells[:2]]
            cells[-1] = _cell_text(cells[-1])
            doc, rank, grade = html.unescape(chunk.group(1)), cells[0], cells[-1]
            if rank == "—":  # a baseline document the run dropped
                if ranked is None or base is None or doc not in base.ids or doc in ranked.ids:
                    out.append(Disagreement(page, f"dropped: {doc}", f"no such baseline document "
                                            f"in {run}'s list of {question}"))  # fmt: skip
                    continue
                b = base.ids.index(doc) + 1
                shown = f"{doc}: {cells[1] if len(cells) > 2 else ''}, grade {grade}"
                due = (f"{doc}: {_move_of(doc, None, base, ranked)}, grade "
                       f"{_grade_of(base, b, grade)}")  # fmt: skip
                if shown != due:
                    out.append(Disagreement(page, shown, f"{due!r} ({base_at}.ids[{b - 1}])"))
                continue
            shown = f"rank {rank}: {doc}"
            k = seen[run] = seen.get(run, 0) + 1
            if ranked is None or k > len(ranked.ids):
                out.append(Disagreement(page, shown, f"no rank {k} in {run}'s list of {question}"))
                continue
            if shown != f"rank {k}: {ranked.ids[k - 1]}":
                out.append(Disagreement(page, shown, f"'rank {k}: {ranked.ids[k - 1]}' "
                                        f"({at}.ids[{k - 1}])"))  # fmt: skip
                continue
            said = f"{doc}: {cells[1] + ', ' if moves else ''}grade {grade}"
            due = (f"{doc}: {_move_of(doc, k, base, ranked) + ', ' if moves else ''}grade "
                   f"{_grade_of(ranked, k, grade)}")  # fmt: skip
            if said != due:
                out.append(Disagreement(page, said, f"{due!r} ({at}.ids[{k - 1}])"))
    out += _fold_disagreements(page, raw, seen) if "more-ranks" in raw else []
    return out + _more_disagreements(page, raw, question, lists, seen)


# a run's ranked tables (each names its run) and the line after them that counts what they
# leave out, read in page order: two searches, each of a fixed start (faster than one of either)
_LIST_NAMED = re.compile(r'data-list="([^"]*)"')
_MORE = re.compile(r'<p class="muted">(\d+) more results? not listed\.</p>')


def _more(count: int, noun: str) -> str:
    """ "1 more result", "2 more results": a count a page said (or left unsaid), as it says it."""
    return f"{count} more {noun}{'' if count == 1 else 's'}"


def _more_disagreements(page: str, raw: str, question: str, lists: _Lists,
                        shown: dict[str, int]) -> list[Disagreement]:  # fmt: skip
    """The "N more results not listed" line after a run's ranked rows counts what its list in
    results.json holds beyond them (its size less the rows shown: none, no line)."""
    said: dict[str, int] = {}
    found = [(m.start(), m.end(), True, m[1]) for m in _LIST_NAMED.finditer(raw)]
    found += [(m.start(), m.end(), False, m[1]) for m in _MORE.finditer(raw)]
    run, end = None, 0  # the run named last, and where its name ends
    for start, stop, names, text in sorted(found):
        if start < end:
            continue  # inside the name before it: part of that name
        if names:
            run, end = html.unescape(text), stop
        elif run is not None:
            said[run] = int(text)
    out = []
    for name, rows in shown.items():
        at, ranked = lists.get((name, question), ("", None))
        if ranked is None:
            continue  # no such list: said by the ranked rows' check
        due = max(0, ranked.size - rows)
        if said.get(name, 0) != due:
            out.append(Disagreement(page, f"{_more(said.get(name, 0), 'result')} of {name} not listed",
                                    f"{due} ({at}.size {ranked.size}, {rows} ranks shown)"))  # fmt: skip
    return out


# a run's list on a question page shows its top 10 open and folds the rest under "Ranks 11–N"
# (docs/site.md: `LIST_OPEN`), N the ranks it shows
_LIST_OPEN = 10
_RANKS_FOLD = re.compile(r'<details class="more-ranks"><summary>Ranks (\d+)–(\d+)')
_LIST_ATTR = 'data-list="'


def _fold_disagreements(page: str, raw: str, shown: dict[str, int]) -> list[Disagreement]:
    """Each "Ranks 11–N" fold of a run's list (the run named last before it, of those whose
    ranked rows were read) counts from the first folded rank to the last rank they show."""
    out = []
    for m in _RANKS_FOLD.finditer(raw):
        at = raw.rfind(_LIST_ATTR, 0, m.start()) + len(_LIST_ATTR)
        run = html.unescape(raw[at : raw.find('"', at)]) if at >= len(_LIST_ATTR) else ""
        if run not in shown:
            continue  # a list whose rows were not read: said by the ranked rows' check
        ranks = shown[run]
        said, due = f"Ranks {m[1]}–{m[2]}", f"Ranks {_LIST_OPEN + 1}–{ranks}"
        if said != due:
            out.append(Disagreement(page, f"{run}: {said}", f"{due!r} (the top {_LIST_OPEN} "
                                    f"open, then the rest of the {ranks} ranks shown)"))  # fmt: skip
    return out


# a question page's side-by-side diffs (a pipeline candidate with its own lists): each section
# names its candidate; its metrics table's "first relevant at" row and its two-list table's rows,
# each row its document, its rank in the baseline's list and in the candidate's ("—": not there)
_VS = re.compile(
    r'<section class="vs(?: vs-critical)?" id="[^"]*" data-candidate="([^"]*)">'
    r"(.*?)</section>",
    re.S,
)
_FIRST_AT = re.compile(r'<th scope="row">first relevant at</th><td>([^<]*)</td><td>([^<]*)</td>')
_VS_LIST = re.compile(r'<table class="vs-list[^"]*">(.*?)</table>', re.S)


def _rank_text(ranked: RankedList | None, doc: str) -> str:
    return str(ranked.ids.index(doc) + 1) if ranked is not None and doc in ranked.ids else "—"


_VS_SUMMARY = re.compile(r"<summary>The two lists side by side \((\d+) \w+\) and each metric")
_VS_MORE = re.compile(r'<p class="muted">(\d+) more results? of .*? not listed\.</p>', re.S)


def _vs_count_disagreements(page: str, name: str, body: str, base: RankedList | None,
                            ranked: RankedList | None, at: str) -> list[Disagreement]:  # fmt: skip
    """A side-by-side diff's counts: the documents its summary counts (the candidate's listed
    documents and the baseline's it does not list) and "N more results … not listed" (the
    candidate's list size less the documents results.json lists of it)."""
    out = []
    summary = _VS_SUMMARY.search(body)
    if summary is not None:
        ids = ranked.ids if ranked is not None else ()
        kept = set(ids)
        due = len(ids) + sum(1 for d in (base.ids if base is not None else ()) if d not in kept)
        if int(summary[1]) != due:
            out.append(Disagreement(page, f"{name}: side by side ({summary[1]} rows)",
                                    f"{due} rows ({at}: the candidate's listed documents and "
                                    "the baseline's it does not list)"))  # fmt: skip
        more = _VS_MORE.search(body)
        said = int(more[1]) if more else 0
        due = ranked.size - len(ranked.ids) if ranked is not None else 0
        if said != due:
            out.append(Disagreement(page, f"{name}: {_more(said, 'result')} not listed",
                                    f"{due} ({at}: its size less the documents listed)"))  # fmt: skip
    return out


_SCOPE_NOTE = re.compile(r'<span class="muted out-of-scope">labelled (-?\d+), counts (-?\d+): out '
                         r"of scope</span>")  # fmt: skip


def _scope_disagreements(page: str, raw: str, fact: QuestionFact, at: str) -> list[Disagreement]:
    """Each listed row of a chunk whose label grade (`grades`) is above the grade the metrics
    count (`judgments`, 0 when they hold none: out of scope) carries "labelled L, counts G: out
    of scope", and no other row does."""
    out = []
    due = {c: (g, fact.judgments.get(c, 0)) for c, g in fact.grades.items()
           if g > fact.judgments.get(c, 0)}  # fmt: skip
    noted = raw.count('<span class="muted out-of-scope">')
    seen = 0
    for cid, (label, counted) in due.items():
        mark = f'<tr data-chunk="{html.escape(cid)}"'
        start = raw.find(mark)
        while start >= 0:
            row = raw[start : raw.find("</tr>", start)]
            note = _SCOPE_NOTE.search(row)
            seen += note is not None
            said = f"labelled {note[1]}, counts {note[2]}" if note else "no out-of-scope note"
            if said != f"labelled {label}, counts {counted}":
                out.append(Disagreement(page, f"{cid}: {said}", f"'labelled {label}, counts "
                                        f"{counted}' ({at}.grades, judgments)"))  # fmt: skip
            start = raw.find(mark, start + len(mark))
    if noted != seen:
        out.append(Disagreement(page, f"{noted - seen} out-of-scope note(s) on other rows",
                                f"none ({at}: no other chunk is labelled above its count)"))  # fmt: skip
    return out


def _side_by_side_disagreements(page: str, raw: str, question: str, results: Results,
                                lists: _Lists) -> list[Disagreement]:  # fmt: skip
    """Each side-by-side diff of a question page shows each document at its rank in the
    baseline's list and in the candidate's, as results.json's lists hold them, and the first
    relevant rank of each list: read from the page and results.json alone."""
    out = []
    base_at, base = lists.get((results.baseline, question), ("", None))
    for name, body in _VS.findall(raw):
        name = html.unescape(name)
        at, ranked = lists.get((name, question), ("", None))
        first = _FIRST_AT.search(body)
        if first is not None:
            shown = f"first relevant at {_cell_text(first[1])} → {_cell_text(first[2])}"
            firsts = [r.first_relevant if r is not None else None for r in (base, ranked)]
            due = "first relevant at " + " → ".join("—" if f is None else str(f) for f in firsts)
            if shown != due:
                out.append(Disagreement(page, f"{name}: {shown}", f"{due!r} ({base_at}, {at})"))
        table = _VS_LIST.search(body)
        out += _vs_count_disagreements(page, name, body, base, ranked, f"{base_at}, {at}")
        for attrs, row in _ROW.findall(table[1]) if table is not None else ():
            chunk = _CHUNK.search(attrs)
            cells = _TD.findall(row) if chunk is not None else []
            if chunk is None or len(cells) < 2:
                continue  # the header, or "nothing returned by either"
            doc = html.unescape(chunk[1])
            shown = f"{doc}: ranks {_cell_text(cells[0])} → {_cell_text(cells[1])}"
            due = f"{doc}: ranks {_rank_text(base, doc)} → {_rank_text(ranked, doc)}"
            if shown != due:
                out.append(Disagreement(page, f"{name}: {shown}", f"{due!r} ({base_at}, {at})"))
    return out


# the index's whole numbers that stand outside every mark (templates/index.html): what the data
# holds (documents, chunks, questions, judged, deciding, answered by no run), what was compared
# (variants or runs, candidates, those not run), the seed and the question pages; each read where
# the index prints it and held to results.json and to the site's own page files
_INDEX_COUNTS = tuple((re.compile(p), names) for p, names in (
    (r"(\d+) chunks? in (\d+) documents?", ("chunks", "documents")),
    (r"· (\d+) documents? · ", ("documents",)),  # one chunk a document: the lede counts those
    (r"(\d+) (?:variants?|runs?) · (\d+) (?:candidate changes?|compared with the baseline)",
     ("variants", "candidates")),
    (r"\((\d+) more not run\)", ("not run",)),
    (r"· seed (\d+)\.$", ("seed",)),
    (r"^(\d+) questions (\d+) decide$", ("questions", "deciding")),
    (r"\((\d+) no run answers\)", ("answered by no run",)),
    (r"· (\d+) judged$", ("judged",)),
    (r"^(\d+) documents?(?: · (\d+) chunks?)?$", ("documents", "chunks")),
    (r"^The (\d+) documents?(?: \((\d+) chunks?\))?:", ("documents", "chunks")),
    (r"^(\d+) question pages?$", ("question pages",)),
    (r"^(\d+) question (?:pages were|page was) left out", ("questions left out",)),
))  # fmt: skip
_N = re.compile(r"^n=(\d+)$")  # a table row's or the lead's number of questions


def _index_counts(results: Results, pages: int) -> dict[str, tuple[int | None, str]]:
    """Each whole number the index may print outside a mark, by name: its value and where
    results.json (or the site: `pages`, its question page files) holds it."""
    inputs, counts = results.inputs, results.inputs.counts
    answered = {r.question for v in results.variants for r in v.lists if r.size}
    answered |= {r.question for c in results.candidates for r in c.lists if r.size}
    silent = sum(1 for q in inputs.questions if q.answerable and q.id not in answered)
    return {
        "chunks": (inputs.chunks, "inputs.chunks"),
        "documents": (len(inputs.documents), "inputs.documents"),
        "variants": (len(results.variants), "variants"),
        "candidates": (len(results.candidates), "candidates"),
        "not run": (len(results.not_run), "not_run"),
        "seed": (results.settings.seed, "settings.seed"),
        "questions": (counts.queries if counts is not None else len(inputs.questions),
                      "inputs.counts.queries"),
        "deciding": (results.answerable - silent, "answerable, less those no list answers"),
        "answered by no run": (silent, "inputs.questions answerable, answered by no list"),
        "judged": (None if counts is None else counts.judged, "inputs.counts.judged"),
        "question pages": (pages, "the site's question pages"),
        "questions left out": (len(inputs.questions) - pages, "inputs.questions, less the pages"),
    }  # fmt: skip


# the index's "What was evaluated" tables (templates/index.html): questions per tag, pairs per
# grade, each row its key and its count
_DATASET = re.compile(r'<section id="dataset">(.*?)</section>', re.S)
_TAG_ROW = re.compile(r'<tr><td><span class="tag">([^<]*)</span></td><td class="num">(\d+)</td>')
_GRADE_ROW = re.compile(r'<tr><td>(-?\d+)</td><td class="num">(\d+)</td>')


def _dataset_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The index's questions per tag and labelled pairs per grade, every row of each, as the
    oracle counts them from results.json's questions (`report.oracle.labelled_counts`)."""
    section = _DATASET.search(raw)
    body = section[1] if section else ""
    out = []
    due_tags, due_grades = labelled_counts(results)
    for what, rows, due in (("questions with the tag", _TAG_ROW, due_tags),
                            ("pairs of grade", _GRADE_ROW, due_grades)):  # fmt: skip
        said = {html.unescape(key): int(n) for key, n in rows.findall(body)}
        for key in sorted(set(said) | set(due)):
            if said.get(key) != due.get(key):
                shown = "none" if key not in said else said[key]
                out.append(Disagreement(page, f"{key}: {shown} {what}", f"{due.get(key, 'none')} "
                                        "(inputs.questions)"))  # fmt: skip
    return out


def _lead_n(results: Results) -> int | None:
    """The questions of the best lead's comparison (`report.oracle.best_lead`), or None."""
    lead = best_lead(results)
    return None if lead is None else lead.on[lead.decision.primary].n


# the index's best lead tile (templates/index.html): the candidate's link, then whom it ties
_LEAD_TILE = re.compile(r'<p class="tile-name"><a href="[^"]*">([^<]*)</a>([^<]*)</p>')


def _lead_tile_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The candidate the index's best lead tile names, and the candidates it says tie it, as
    the oracle picks and words them (`report.oracle.best_lead`, `tied_words`); no tile when it
    has none."""
    said = [(html.unescape(name), html.unescape(rest)) for name, rest in _LEAD_TILE.findall(raw)]
    lead = best_lead(results)
    due = [] if lead is None else [(lead.name, tied_words(results, lead))]
    if said == due:
        return []
    found = "; ".join(f"{n}{t}" for n, t in said) or "no best lead tile"
    return [
        Disagreement(
            page,
            f"best lead tile: {found}",
            f"{''.join(due[0]) if due else 'no best lead tile'} (candidates: the "
            "largest lower bound on the primary metric, and those equal to it)",
        )
    ]


def _index_disagreements(page: str, shown: _PageText, results: Results,
                         pages: int) -> list[Disagreement]:  # fmt: skip
    """The index's counts outside the marks (`_INDEX_COUNTS`) and each "n=" (the lead's, then
    each candidate row's, in results.json's order) held to results.json."""
    due = _index_counts(results, pages)
    out = []
    for block, blanked in (*shown.prose, *shown.cells):
        for pattern, names in _INDEX_COUNTS:
            hit = pattern.search(blanked)
            for name, said in zip(names, hit.groups() if hit else (), strict=False):
                value, source = due[name]
                if said is not None and int(said) != value:
                    out.append(Disagreement(page, block[:200], f"{value} {name} ({source})"))
    rows = [c.on[c.decision.primary].n for c in results.candidates]
    ns = [(f"{_lead_n(results)} questions (the best lead's comparison)", _lead_n(results), b)
          for b, blank in shown.prose if _N.match(blank.strip())]  # fmt: skip
    ns += [(f"{n} questions (candidates[{i}]'s primary comparison)", n, b)
           for i, (n, (b, _)) in enumerate(zip(rows, [c for c in shown.cells
                                                     if _N.search(c[1].strip().split(" ")[-1])],
                                               strict=False))]  # fmt: skip
    for expected, n, block in ns:
        said = block.rsplit("n=", 1)[-1]
        if said != str(n):
            out.append(Disagreement(page, block[:200], expected))
    return out


# counts the other pages print outside the marks (templates: gate.html, candidate.html,
# benchmark.html and slices.html, questions.html), each read where the page prints it
_RULES_PASS = re.compile(
    r"^\d+ of \d+ rules pass(?: · \d+ (?:BLOCK|REVIEW|not evaluated))*"
)  # a gate rules' count
_FLIPPED = re.compile(r"^(Better|Worse) \((\d+)\)$")  # a candidate page's flipped questions
_DECIDE = re.compile(r"^Read with care: (\d+) questions? decides?\b")
_ALL_QUESTIONS = re.compile(r"^(?:All|The) (\d+) questions?:")
_GATE_LINES = re.compile(r"^(?:· (\d+) lines?|, no lines raised)$")  # a candidate's gate lines
_HOLM_ACROSS = re.compile(r"Holm-adjusted across the (\d+) (candidate|pair)s?\b")  # flips.html
_TIED = re.compile(r'<tr><th scope="row"><a href="[^"]*">([^<]*)</a></th>.*?'
                   r'<td class="num" data-label="Tied">(\d+)</td>')  # fmt: skip


def _count_disagreements(page: str, shown: _PageText, results: Results,
                         held: _Site, raw: str) -> list[Disagreement]:  # fmt: skip
    """The counts a page prints outside the marks, held to results.json: on the gate page each
    candidate's rules counted (in the table and in its section, in results.json's order of the
    candidates; `report.oracle.rules_summary`), on a candidate page its flipped questions on the
    primary metric and its gate lines, on the flips page what each Holm adjustment runs across
    and each candidate's ties (`_flips_count_disagreements`), on the benchmark and slices pages
    the questions that decide (as the index's), on the questions page the questions."""
    out = []
    if page == "gate.html":
        due = [(rules_summary(c.gate.rules), f"candidates[{i}].gate.rules")
               for i, c in enumerate(results.candidates)]  # fmt: skip
        for blocks in (shown.prose, shown.cells):
            said = [(b, m.group()) for b, blank in blocks if (m := _RULES_PASS.match(blank))]
            for i, (block, words) in enumerate(said):
                expected, at = due[i] if i < len(due) else ("no such candidate", "candidates")
                if words != expected:
                    out.append(Disagreement(page, block[:200], f"{expected!r} ({at})"))
    elif page in held.candidates:
        i = held.candidates[page]
        head = results.candidates[i].on[results.candidates[i].decision.primary]
        for block, blank in shown.prose:
            if (m := _FLIPPED.match(blank)) is not None:
                side = "better" if m[1] == "Better" else "worse"
                n = len(head.better if side == "better" else head.worse)
                if int(m[2]) != n:
                    out.append(Disagreement(page, block, f"{n} ({side} of candidates[{i}]'s "
                                            f"comparison on {head.metric})"))  # fmt: skip
            elif (m := _GATE_LINES.match(blank)) is not None:
                n = len(results.candidates[i].gate.checks)
                if int(m[1] or 0) != n:
                    out.append(
                        Disagreement(page, block, f"{n} lines (candidates[{i}].gate.checks)")
                    )
    elif page == "flips.html":
        out += _flips_count_disagreements(page, shown, results, raw)
        out += _grid_disagreements(page, raw, results, held.pages)
    elif page in ("benchmark.html", "slices.html", "questions.html"):
        counts = _index_counts(results, held.pages)
        due_n = {"deciding": counts["deciding"],
                 "questions": (len(results.inputs.questions), "inputs.questions")}  # fmt: skip
        for block, blank in shown.prose:
            for pattern, name in ((_DECIDE, "deciding"), (_ALL_QUESTIONS, "questions")):
                if (m := pattern.match(blank)) is not None and int(m[1]) != due_n[name][0]:
                    value, source = due_n[name]
                    out.append(Disagreement(page, block[:200], f"{value} {name} ({source})"))
    return out


# a question page's graded documents (templates/question.html's last section): counted in the
# jump line ("the documents graded above 0 (7)") and in the fold's summary above five, then one row each
# (its id, its grade), held to `report.oracle.graded_list` of the question in results.json
_GRADED_JUMP = re.compile(r" the (?:document|chunk)s graded above 0 \((\d+)\)$")
_GRADED_FOLD = re.compile(
    r"^The (\d+) (?:document|chunk)s the judgments grade above 0 for this question"
)
_GRADED_AT = '<section id="graded">'
_GRADED_TABLE = re.compile(r'<table class="graded-table[^"]*">(.*?)</table>', re.S)
_CODE = re.compile(r'<code(?: title="([^"]*)")?>(.*?)</code>', re.S)


def _graded_disagreements(page: str, raw: str, shown: _PageText, at: int,
                          question: QuestionFact) -> list[Disagreement]:  # fmt: skip
    """A question page's graded documents, counted and listed, as the question's labels give
    them (`report.oracle.graded_list`): the count in the jump line and in the fold's summary,
    and each row's document and grade in order."""
    due = graded_list(question)
    source = f"inputs.questions[{at}].grades"
    out = []
    for block, blank in shown.prose:
        m = _GRADED_JUMP.search(blank) if blank.startswith("On this page:") else None
        m = m or _GRADED_FOLD.match(blank)
        if m is not None and int(m[1]) != len(due):
            out.append(Disagreement(page, block[:200], f"{len(due)} graded, those above 0 "
                                    f"({source})"))  # fmt: skip
    start = raw.rfind(_GRADED_AT)
    table = _GRADED_TABLE.search(raw, start) if start >= 0 else None
    rows = []
    for _, row in _ROW.findall(table[1]) if table is not None else ():
        cells = _TD.findall(row)
        code = _CODE.search(cells[0]) if cells else None
        if code is None or len(cells) < 2:
            continue  # the header
        doc = visible(html.unescape(code[1] if code[1] is not None else code[2]))
        rows.append(f"{doc}: grade {_cell_text(cells[1])}")
    due_rows = [f"{visible(doc)}: grade {g}" for doc, g in due]
    for k, (said, expected) in enumerate(zip_longest(rows, due_rows), 1):
        if said != expected:
            out.append(Disagreement(page, f"graded row {k}: {said or 'none'}",
                                    f"{expected or 'no such row'!r} ({source})"))  # fmt: skip
    return out


# the slices page's tables (templates/slices.html): one section a metric, its heading the
# metric's label, a line naming the tags the baseline counts fewer questions on than carry them,
# its tags as columns, a variant a row, each cell "n=N" after its mean
_SLICE = re.compile(r'<section id="slice-\d+">\s*<h2>(.*?)</h2>(.*?)</section>', re.S)
_SLICE_FEWER = re.compile(r'<p class="small">Fewer questions here than on the index [^:]*: '
                          r"(.*?)\.</p>", re.S)  # fmt: skip
_SLICE_TAG = re.compile(r'<th scope="col" class="num"><span class="tag">(.*?)</span></th>')
_ROW_NAME = re.compile(r'<th scope="row">(.*?)</th>', re.S)
_CELL_N = re.compile(r'<span class="n">n=(\d+)</span>')


# a row of the question list as the page writes it (without JavaScript): its id, its tags,
# critical or not, the candidates that change it, and whether the baseline passes it
_LIST_ROW = re.compile(r'<tr><th scope="row">(.*?)</th>(.*?)</tr>', re.S)
_LIST_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)
_LIST_HEAD = re.compile(r'<table id="question-list".*?<thead><tr>(.*?)</tr></thead>', re.S)
_LIST_COLUMN = re.compile(r'<th scope="col">(.*?)</th>', re.S)
_TAG = re.compile(r'<span class="tag">(.*?)</span>', re.S)  # a tag (the list's, a question's)
_LIST_CHANGE = re.compile(r'<span class="flip flip-(better|worse)">[▲▼] (.*?)</span>', re.S)
_PASS_WORDS = {True: "pass", False: "fail", None: "—"}
_LIST_PREFIX = "window.EVIDENCEDESK_QUESTIONS = "
# a question list row: id, tags, critical, (better / worse, candidate) in order, pass / fail / —
_ListRow = tuple[str, list[str], bool, list[tuple[str, str]], str]


def _question_rows(results: Results, shown: Callable[[str], str],
                   moves: dict[str, list[tuple[str, str]]]) -> list[_ListRow]:  # fmt: skip
    """Each question's row of the question list, from results.json: its id (as `shown` writes
    it: a page's ids are `visible`), its tags, whether the gate calls it critical, the
    candidates whose flips metric it is better / worse on (in the candidates' order, the better
    first: `moves`, `_candidate_moves`) and whether the baseline passes it (the oracle's rule,
    `baseline_passes`)."""
    critical = set(results.policy.critical) if results.policy is not None else set()
    passes = baseline_passes(results)
    rows = []
    for q in results.inputs.questions:
        # the better first, each side in the candidates' order (a stable sort of the moves)
        changes = sorted(moves.get(q.id, []), key=lambda move: move[0] == "worse")
        rows.append((shown(q.id), list(q.tags), q.id in critical, changes,
                     _PASS_WORDS[passes.get(q.id)]))  # fmt: skip
    return rows


def _row_words(row: _ListRow) -> str:
    """A question list row as words: its id, then its tags, critical, its changes, its pass."""
    qid, tags, critical, changes, passed = row
    moved = [f"{'▲' if side == 'better' else '▼'} {name}" for side, name in changes]
    return f"{qid}: " + " ".join([*tags, *["critical"] * critical, *moved, passed])


def _list_source(results: Results) -> str:
    label = results.settings.metric(results.settings.flips_metric).label
    return f"inputs.questions, the candidates' flips on {label}, the baseline's lists"


def _list_columns(results: Results) -> list[str]:
    """The question list's columns: a Tags column only when a question has a tag, a Critical
    column only when the gate policy names a critical question (empty columns say nothing)."""
    tagged = any(q.tags for q in results.inputs.questions)
    critical = results.policy is not None and bool(results.policy.critical)
    return ["Question", "Text", *["Tags"] * tagged, *["Critical"] * critical, "Changed by", "Pass"]


def _column_disagreements(where: str, columns: list[str], results: Results) -> list[Disagreement]:
    """The question list's columns (its page's header, its script's) held to `_list_columns`;
    rows are read by them, so a wrong header is the one disagreement named."""
    due = _list_columns(results)
    if columns == due:
        return []
    why = "inputs.questions' tags, the policy's critical questions"
    return [Disagreement(where, f"columns {', '.join(columns) or '(none)'}",
                         f"{', '.join(due)} ({why})")]  # fmt: skip


def _question_list_disagreements(page: str, raw: str, results: Results,
                                 moves: dict[str, list[tuple[str, str]]]) -> list[Disagreement]:  # fmt: skip
    """The question list's columns and the rows the page writes, in order, held to
    results.json's questions: each id, its tags, "critical", the candidates that change it
    (▲ better, ▼ worse on the flips metric) and pass / fail / — for the baseline."""
    head = _LIST_HEAD.search(raw)
    columns = [_cell_text(c) for c in _LIST_COLUMN.findall(head[1])] if head is not None else []
    if wrong := _column_disagreements(page, columns, results):
        return wrong
    out = []
    for due, m in zip(
        _question_rows(results, visible, moves), _LIST_ROW.finditer(raw), strict=False
    ):
        cells = dict(zip(columns[1:], _LIST_CELL.findall(m[2]), strict=False))
        said = (_cell_text(m[1]), [_cell_text(t) for t in _TAG.findall(cells.get("Tags", ""))],
                _cell_text(cells.get("Critical", "")) == "critical",
                [(side, _cell_text(name))
                 for side, name in _LIST_CHANGE.findall(cells.get("Changed by", ""))],
                _cell_text(cells.get("Pass", "")))  # fmt: skip
        if said != due:
            out.append(Disagreement(page, _row_words(said),
                                    f"{_row_words(due)} ({_list_source(results)})"))  # fmt: skip
    return out


def _question_script_disagreements(site: Path, results: Results,
                                   moves: dict[str, list[tuple[str, str]]]) -> list[Disagreement]:  # fmt: skip
    """data/question-list.js, the rows the list's script shows (every question, also those
    after the page's static rows), held to results.json as the page's rows are; the first row
    that differs is named (a row lost moves every later one), and the number of rows."""
    path = site / LIST_DATA
    if not path.is_file():
        return []
    text = read_text(path, AuditError, "question list").strip()
    try:
        data = json.loads(text.removeprefix(_LIST_PREFIX).removesuffix(";"))
        names = [str(entry[0]) for entry in data["candidates"]]
        columns = [str(c) for c in data["columns"]]
        rows: list[_ListRow] = [
            (str(r[0]), [str(t) for t in r[2]], bool(r[3]),
             [("better", names[i]) for i in r[4]] + [("worse", names[i]) for i in r[5]],
             _PASS_WORDS[None if r[6] is None else bool(r[6])])
            for r in data["rows"]
        ]  # fmt: skip
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return [Disagreement(LIST_DATA, "(the script's data)",
                             f"the question list as JSON ({type(exc).__name__})")]  # fmt: skip
    due = _question_rows(results, str, moves)  # (the script's data holds them as they are)
    if wrong := _column_disagreements(LIST_DATA, columns, results):
        return wrong
    out = [Disagreement(LIST_DATA, _row_words(said),
                        f"{_row_words(row)} ({_list_source(results)})")
           for said, row in zip(rows, due, strict=False) if said != row][:1]  # fmt: skip
    if len(rows) != len(due):
        out.append(Disagreement(LIST_DATA, f"({len(rows)} rows)",
                                f"{len(due)} questions (inputs.questions)"))  # fmt: skip
    return out


def _slice_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """Each slices table's counts as results.json holds them: each cell's n (the variant's
    slice of that metric and tag; none: 0), the tags it shows (every variant's slices' tags,
    sorted), and the line of the tags with fewer questions (`report.oracle.slice_fewer`)."""
    metrics = {m.label: m.name for m in results.settings.metrics}
    out = []
    for heading, body in _SLICE.findall(raw):
        label = html.unescape(heading)
        metric = metrics.get(label)
        if metric is None:
            out.append(Disagreement(page, label, "no such metric (settings.metrics)"))
            continue
        fewer = _SLICE_FEWER.search(body)
        said = "none" if fewer is None else html.unescape(fewer[1])
        due = slice_fewer(results, metric) or "none"
        if said != due:
            out.append(
                Disagreement(
                    page,
                    f"{label}: fewer questions here: {said}",
                    f"{due!r} (the baseline's slices, inputs.questions' tags)",
                )
            )
        tags = [html.unescape(t) for t in _SLICE_TAG.findall(body)]
        due_tags = sorted({t.tag for v in results.variants for t in v.slices if t.metric == metric})
        if tags != due_tags:
            out.append(Disagreement(page, f"{label}: tags {', '.join(tags)}",
                                    f"{', '.join(due_tags)!r} (variants' slices)"))  # fmt: skip
        for _, row in _ROW.findall(body):
            name = _ROW_NAME.search(row)
            variant = results.by_name.get(html.unescape(name[1])) if name is not None else None
            if variant is None:
                continue  # the header (a row of no such variant: the page's claims say so)
            i = results.variants.index(variant)
            ns = {t.tag: (j, t.n) for j, t in enumerate(variant.slices) if t.metric == metric}
            for tag, cell in zip(tags, _TD.findall(row), strict=False):
                n = _CELL_N.search(cell)
                j, due_n = ns.get(tag, (None, 0))
                if n is None or int(n[1]) != due_n:
                    at = f"variants[{i}].slices[{j}]" if j is not None else f"variants[{i}].slices"
                    out.append(Disagreement(page, f"{label}: {variant.name}, {tag}: "
                                            f"n={n[1] if n else 'none'}",
                                            f"n={due_n} ({at})"))  # fmt: skip
    return out


# the questions each table row rests on, by the page's layout (templates/benchmark.html: a
# section per metric, a row per variant with its n and left out; templates/candidate.html: a row
# per metric with the comparison's n, the Judged@k row's n, a row per tag with the baseline's
# slice n), each read by its row's heading and held to results.json's row of that name
_METRIC_BLOCK = re.compile(r'<section class="metric-block" id="metric-\d+">(.*?)</table>', re.S)
_COLUMN = re.compile(r'<th scope="col" class="num">(.*?)</th>')
_CANDIDATE_TABLES = re.compile(r'<section id="(metrics|judgments|slices)">(.*?)</table>', re.S)
_SLICES_OF = re.compile(r"<h2>Slices: (.*?) by tag</h2>")
_NUM_CELL = re.compile(r'<td class="num">(\d+)(?:<br>|</td>)')


def _row_count_disagreements(page: str, raw: str, results: Results,
                             candidate: int | None) -> list[Disagreement]:  # fmt: skip
    """The whole numbers of the benchmark page's per-metric tables (each variant's n and left
    out on that metric) and of a candidate page's tables (each metric's comparison n, the
    Judged@k comparison's n, each tag's n: the baseline's slice on the primary metric), each
    row found by its heading (a variant's name, a metric's label, a tag)."""
    names = {m.label: m.name for m in results.settings.metrics}
    tables: list[tuple[str, str]] = []  # (what the rows are, the table)
    if candidate is None:
        tables = [("variants", body) for body in _METRIC_BLOCK.findall(raw)]
    else:
        tables = _CANDIDATE_TABLES.findall(raw)
    out = []
    for kind, body in tables:
        column = _COLUMN.search(body)
        metric = names.get(html.unescape(column[1])) if kind == "variants" and column else None
        sliced = _SLICES_OF.search(body) if kind == "slices" else None
        for _, row in _ROW.findall(body):
            heading, said = _ROW_NAME.search(row), _NUM_CELL.findall(row)
            if heading is None or not said:
                continue  # the header
            name = _cell_text(heading[1])
            due, at = _row_counts(results, kind, name, metric, candidate, sliced)
            if [int(n) for n in said] != due:
                out.append(Disagreement(page, f"{name}: {' · '.join(said)}",
                                        f"{' · '.join(map(str, due))} ({at})"))  # fmt: skip
    return out


def _row_counts(results: Results, kind: str, name: str, metric: str | None,
                candidate: int | None, sliced: re.Match[str] | None,
                ) -> tuple[list[int], str]:  # fmt: skip
    """What `_row_count_disagreements`' row named `name` counts, and where results.json says it."""
    names = {m.label: m.name for m in results.settings.metrics}
    if kind == "variants":
        v = results.by_name.get(name)
        j = next((j for j, s in enumerate(v.metrics) if s.metric == metric), None) if v else None
        if v is None or j is None:
            return [], f"no variant {name!r} with {metric}"
        i, stat = results.variants.index(v), v.metrics[j]
        return [stat.n, stat.left_out], f"variants[{i}].metrics[{j}].n and .left_out"
    c = results.candidates[candidate or 0]
    if kind == "judgments":
        return ([c.judged.n] if c.judged else []), f"candidates[{candidate}].judged.n"
    if kind == "metrics":
        k = next((k for k, x in enumerate(c.comparisons) if x.metric == names.get(name)), None)
        if k is None:
            return [], f"no comparison on {name} of candidates[{candidate}]"
        return [c.comparisons[k].n], f"candidates[{candidate}].comparisons[{k}].n"
    base = results.baseline_variant
    label = html.unescape(sliced[1]) if sliced else ""
    j = next((j for j, t in enumerate(base.slices)
              if t.metric == names.get(label) and t.tag == name), None)  # fmt: skip
    b = results.variants.index(base)
    return ([0], f"variants[{b}].slices: none") if j is None else \
        ([base.slices[j].n], f"variants[{b}].slices[{j}].n")  # fmt: skip


# every page's footer (templates/base.html): the seed, the relevance threshold and the inputs'
# hash (its first 16 digits) the numbers rest on
_FOOTER_AT = '<footer class="footer">'
_FOOTER = re.compile(r"· seed (\d+) · relevant = grade ≥ (-?\d+)(?: · built [^<]*)?</p>\s*"
                     r"<p>inputs sha256 <code>([0-9a-f]*)</code>")  # fmt: skip


# a file a page links to or loads (``href``, ``src``); a value with a scheme (``https:``,
# ``mailto:``) or of a fragment alone (``#graded``, the question list's ``#q=…`` filter) leaves
# the site's files alone
_LINK = re.compile(r' (?:href|src)="([^"#?]+)')  # (the build writes a space before each)
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_NO_FILE = "no such file in the site"  # what audit says of a link to a file the site lacks


def _link_disagreements(page: str, raw: str, files: frozenset[str]) -> list[Disagreement]:
    """Each file `page` links to or loads that the site does not hold (`files`: its files'
    paths), once: a page, stylesheet or export lost or never written is a link that leads
    nowhere, though no sentence names its numbers."""
    missing: dict[str, None] = {}
    for target in dict.fromkeys(_LINK.findall(raw)):  # (a page links to the same few files)
        if target in files or _SCHEME.match(target):
            continue
        path = posixpath.normpath(unquote(html.unescape(target)))
        if path not in files:
            missing[path] = None
    return [Disagreement(page, f"(a link to {path})", _NO_FILE) for path in missing]


def _footer_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The footer's seed (`settings.seed`), relevance threshold (`settings.relevance`) and
    inputs' hash (the start of `inputs.input_hash`); a footer without them is a disagreement."""
    start = raw.rfind(_FOOTER_AT)
    m = _FOOTER.search(raw, start) if start >= 0 else None
    settings, hashed = results.settings, results.inputs.input_hash
    due = f"seed {settings.seed} · relevant = grade ≥ {settings.relevance} · inputs sha256 "
    said = f"seed {m[1]} · relevant = grade ≥ {m[2]} · inputs sha256 " if m else "(no footer)"
    if m is None or said != due or not (m[3] and hashed.startswith(m[3])):
        return [Disagreement(page, f"footer: {said}{m[3] if m else ''}", f"{due + hashed[:16]!r} "
                             "(settings.seed, settings.relevance, inputs.input_hash)")]  # fmt: skip
    return []


_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def _title_disagreements(page: str, raw: str, results: Results,
                         named: str | None) -> list[Disagreement]:  # fmt: skip
    """The browser tab's title: the page's name, then the report's (``evidencedesk report —``
    the project). A page of one question or one candidate is named by its id or name as the
    page shows ids (`_inert.visible`), `named`; any other page by words of ours, which hold no
    number (a number there would be a claim no mark records)."""
    m = _TITLE.search(raw)
    said = html.unescape(m[1]) if m else "(no title)"
    report = f" · evidencedesk report — {results.inputs.project}"
    name = said[: -len(report)] if said.endswith(report) else None
    if named is not None and name == named:
        return []
    if named is None and name is not None and not any(ch.isdigit() for ch in name):
        return []
    due = (f"{named + report!r} (the page's own, inputs.project)" if named is not None else
           f"a page name without a number, then {report!r} (inputs.project)")  # fmt: skip
    return [Disagreement(page, f"title: {said}", due)]


# the to-label page (templates/to-label.html): the unjudged pairs counted, the file's rows, the
# first rows (question, document, best rank, runs, comparisons split) and the rows after them
_TO_LABEL_LEDE = re.compile(r"^(\d+) \(question, document\) pairs? in the top (\d+) of the "
                            r"baseline or a candidate (?:has|have) no judgment;.* lists (?:the "
                            r"first (\d+) of them|them all|it),")  # fmt: skip
_TO_LABEL_MORE = re.compile(r'<p class="muted">… and (\d+) more rows? in the file\.</p>')
_TO_LABEL_ROWS = '<h2 id="first-rows">'
_LINK_TEXT = re.compile(r"<a [^>]*>(.*?)</a>", re.S)


def _to_label_disagreements(page: str, raw: str, shown: _PageText,
                            results: Results) -> list[Disagreement]:  # fmt: skip
    """The to-label page's counts and rows as results.json holds them: the unjudged pairs
    (`to_label_total`) in the top k (`settings.judged_k`), the file's rows (`to_label`: "them
    all" when it holds every pair), each first row in order, and the rows after them."""
    pairs = results.to_label
    out = []
    for block, blank in shown.prose:
        m = _TO_LABEL_LEDE.match(blank)
        if m is None:
            continue
        said = (int(m[1]), int(m[2]), int(m[3]) if m[3] else int(m[1]))
        due = (results.to_label_total, results.settings.judged_k, len(pairs))
        if said != due:
            pairs_due = f"{due[0]} pair{'' if due[0] == 1 else 's'}"
            out.append(Disagreement(page, block[:200], f"{pairs_due}, top {due[1]}, {due[2]} in "
                                    "the file (to_label_total, settings.judged_k, to_label)"))  # fmt: skip
    start = raw.find(_TO_LABEL_ROWS)
    end = raw.find("</table>", start)
    rows = 0
    for _, row in _ROW.findall(raw[start:end]) if start >= 0 else ():
        head, cells = _ROW_NAME.search(row), _TD.findall(row)
        link = _LINK_TEXT.search(head[1]) if head else None
        if link is None or len(cells) < 4:
            continue  # the header
        code = _CODE.search(cells[0])
        doc = _cell_text(code[2] if code else cells[0])
        said_row = (f"{_cell_text(link[1])} {doc}: rank "
                    f"{_cell_text(cells[1])}, by {_cell_text(cells[2])}, splits "
                    f"{_cell_text(cells[3])}")  # fmt: skip
        r = pairs[rows] if rows < len(pairs) else None
        due_row = "no such row" if r is None else (
            f"{visible(r.question)} {visible(r.document)}: rank {r.rank}, by "
            f"{', '.join(r.runs)}, splits {r.splits}")  # fmt: skip
        if said_row != due_row:
            out.append(Disagreement(page, said_row, f"{due_row!r} (to_label[{rows}])"))
        rows += 1
    more = _TO_LABEL_MORE.search(raw)
    said_more, due_more = int(more[1]) if more else 0, len(pairs) - rows
    if said_more != due_more:
        out.append(
            Disagreement(
                page,
                f"… and {_more(said_more, 'row')} in the file",
                f"{due_more} (to_label, less the {rows} rows shown)",
            )
        )
    return out


# the documents page (templates/documents.html): the documents and chunks counted, each row
# (id and chunks) in the corpus's order, and the documents after the rows shown
_DOCUMENTS_LEDE = re.compile(r'<p class="lede">(?:The first (\d+) of the (\d+) documents, in '
                             r"the corpus's order \(the project's corpus holds them "
                             r"all\)|The (\d+) documents? of the corpus, in its order)(?:, cut "
                             r"into (\d+) chunks?)?\.")  # fmt: skip
_DOCUMENT_ROW = re.compile(r'<tr><th scope="row"><code class="id" title="([^"]*)">.*?</code></th>'
                           r'<td dir="auto">.*?</td><td class="num">([^<]*)</td>')  # fmt: skip
_DOCUMENTS_MORE = re.compile(r'<p class="muted">… and (\d+) more documents?, not listed here\.</p>')


def _documents_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The documents page's counts as results.json holds them (the rows shown, of the
    `inputs.documents` counted, cut into `inputs.chunks`), each row in order as
    `inputs.documents[i]` (id and chunks: the title is data, not read), and the documents after the rows shown."""
    docs, chunks = results.inputs.documents, results.inputs.chunks
    body = raw.find("<tbody>")
    rows = _DOCUMENT_ROW.findall(raw, body, raw.find("</tbody>", body)) if body >= 0 else []
    out = []
    lede = _DOCUMENTS_LEDE.search(raw)
    if lede is None:
        said = "(no count)"
    else:
        shown_, total = (lede[1], lede[2]) if lede[1] else (lede[3], lede[3])
        said = f"{shown_} of {total} documents, {lede[4] or 0} chunks"
    due = f"{len(rows)} of {len(docs)} documents, {chunks} chunks"
    if said != due:
        out.append(Disagreement(page, said, f"{due} (the rows shown, inputs.documents, "
                                "inputs.chunks)"))  # fmt: skip
    for i, (row, doc) in enumerate(zip(rows, docs, strict=False)):
        said_row = f"{html.unescape(row[0])}: {row[1]} chunks"  # its title is data, unread
        due_row = f"{doc.id}: {doc.chunks} chunks"
        if said_row != due_row:
            out.append(Disagreement(page, said_row, f"{due_row!r} (inputs.documents[{i}])"))
    more = _DOCUMENTS_MORE.search(raw)
    said_more, due_more = int(more[1]) if more else 0, len(docs) - len(rows)
    if said_more != due_more:
        out.append(Disagreement(page, f"… and {_more(said_more, 'document')}",
                                f"{due_more} (inputs.documents, less the {len(rows)} rows shown)"))  # fmt: skip
    return out


# the pipeline's evidence page (templates/evidence.html): the duplicates counted, and each
# compression and tenant row; the sizing page (templates/sizing.html): each row's depth and final
_DEDUPE = re.compile(r"<p>(\d+) chunks? kept; (\d+) merged into (\d+) kept chunks?; (\d+) "
                     r"near-duplicate pairs? held back")  # fmt: skip


def _section_rows(raw: str, at: str) -> list[list[str]]:
    """The cells' text of each body row of the first table after `at` (none: no such place)."""
    start = raw.find(at)
    body = raw.find("<tbody>", start) if start >= 0 else -1
    if body < 0:
        return []
    rows = _ROW.findall(raw, body, raw.find("</tbody>", body))
    return [[_cell_text(c) for c in _CELL.findall(row)] for _, row in rows]


_CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.S)


def _held_rows(page: str, said: list[str], due: list[str], at: str) -> list[Disagreement]:
    """Each row the page shows against results.json's, in order (`at`: the rows' path)."""
    return [Disagreement(page, a or "no such row", f"{b or 'no such row'!r} ({at}[{i}])")
            for i, (a, b) in enumerate(zip_longest(said, due)) if a != b]  # fmt: skip


# the citations page's count of the answers file's answers (templates/citations.html)
_ANSWERS_COUNTED = re.compile(r"<p class=\"lede\">(\d+) answers? with inline chunk citations")


def _citations_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The citations page's count of answers, against results.json's `citations` rows."""
    if results.citations is None:
        return []
    m = _ANSWERS_COUNTED.search(raw)
    said = "(no count)" if m is None else f"{m[1]} answers"
    due = f"{len(results.citations)} answers"
    return [] if said == due else [Disagreement(page, said, f"{due} (citations)")]


def _not_kept(cut_off: Sequence[str], lost: int) -> str:
    """A compression row's questions not kept, as its last cell reads: those cut off by name,
    then how many of the rest had no relevant chunk to keep (results.json's `kept`, `total`)."""
    parts = [f"{', '.join(cut_off)} cut off"] if cut_off else []
    if lost - len(cut_off):
        parts.append(f"{lost - len(cut_off)} had no relevant chunk among these chunks")
    return "; ".join(parts) or "none"


def _evidence_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The evidence page's duplicates (`evidence.kept`, the chunks merged, the kept chunks they
    merged into, `evidence.held_back`), each compression row (its setting, tokens before and
    after, evidence kept of total) and each tenant row (tenant, filter, questions, leaks)."""
    e = results.evidence
    if e is None:
        return []
    out = []
    m = _DEDUPE.search(raw)
    said = (
        "(no count)" if m is None else f"{m[1]} kept, {m[2]} merged into {m[3]}, {m[4]} held back"
    )
    due = (f"{e.kept} kept, {sum(len(x.merged) for x in e.merges)} merged into {len(e.merges)}, "
           f"{len(e.held_back)} held back")  # fmt: skip
    if said != due:
        out.append(Disagreement(page, said, f"{due} (evidence.kept, merges, held_back)"))
    shown = [f"{c[0]}: {c[1].replace(',', '')} → {c[2].replace(',', '')} tokens, kept {c[3]}"
             + (f"; not kept: {c[4]}" if len(c) > 4 else "")
             for c in _section_rows(raw, '<section id="compression">') if len(c) > 3]  # fmt: skip
    rows = [f"{r.setting}: {r.tokens_before} → {r.tokens_after} tokens, kept "
            f"{r.kept} / {r.total}; not kept: {_not_kept(r.cut_off, r.total - r.kept)}"
            for r in e.compression]  # fmt: skip
    out += _held_rows(page, shown, rows, "evidence.compression")
    shown = [f"{c[0]} ({c[1]}): {c[2]} questions, {c[3]} leaks"
             for c in _section_rows(raw, '<section id="tenants">') if len(c) > 3]  # fmt: skip
    rows = [f"{t.tenant} ({'tenant filter' if t.filtered else 'none (control)'}): "
            f"{t.questions} questions, {t.leaks} leaks" for t in e.tenants]  # fmt: skip
    return out + _held_rows(page, shown, rows, "evidence.tenants")


# a sizing row's note, by its flags in results.json (templates/sizing.html): the chosen setting
# first, then the best MRR, then the settings within its noise
_SIZING_NOTES = (("smallest_in_noise", "chosen: cheapest inside the noise of the best"),
                 ("best", "best MRR"), ("within_noise", "within noise"))  # fmt: skip


def _row_cells(page: str, row: str, said: list[str],
               due: list[tuple[str, str, str]]) -> list[Disagreement]:  # fmt: skip
    """Each of a table row's cells (`said`, by position) against its own place in results.json
    (`due`: the column's name, the path and the text that place gives): a value of another row
    (a mark names the first path that holds an equal value, maybe another row's) is held here to
    its own row."""
    out = []
    for text, place in zip_longest(said, due):
        name, at, expected = place or ("a cell", "no such column", "no cell")
        if text != expected:
            out.append(Disagreement(page, f"{row}: {name} {text or 'no cell'}",
                                    f"{expected!r} ({at})"))  # fmt: skip
    return out


def _sizing_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The sizing table row by row in order (`sizing[i]`): its depth and final, then each cell
    held to its own row: recall, MRR and its interval, pairs, tokens and latency per question,
    and the note its flags give."""
    said = [c for c in _section_rows(raw, "<h1>Sizing") if len(c) > 1]
    rows = results.sizing or ()
    out = _held_rows(page, [f"depth {c[0]}, final {c[1]}" for c in said],
                     [f"depth {r.depth}, final {r.final}" for r in rows], "sizing")  # fmt: skip
    for i, (cells, r) in enumerate(zip(said, rows, strict=False)):
        at, costs = f"sizing[{i}]", r.costs
        note = next((words for flag, words in _SIZING_NOTES if getattr(r, flag)), "")
        due = [("recall", f"{at}.recall", number_text(r.recall)),
               ("MRR", f"{at}.mrr.mean", number_text(r.mrr.mean)),
               ("interval", f"{at}.mrr", _as_shown((r.mrr.low, r.mrr.high), "[0.000, 0.000]")),
               ("pairs / question", f"{at}.costs", number_text(costs.pairs_per_question, 1)),
               ("tokens / question", f"{at}.costs", number_text(costs.tokens_per_question, 0)),
               ("latency", f"{at}.costs", number_text(costs.latency_ms, 1)),
               ("note", f"{at}'s flags", note)]  # fmt: skip
        out += _row_cells(page, f"depth {cells[0]}, final {cells[1]}", cells[2:], due)
    return out


def _qids(ids: tuple[str, ...]) -> str:
    """A cell's question ids as a page lists them (`visible`), or "none"."""
    return ", ".join(visible(q) for q in ids) if ids else "none"


def _ablation_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The ablations table row by row in order (`ablations.rows[i]`; the first is the base,
    "base"): each cell held to its own row -- the benchmark's metric columns
    (`settings.columns`), the MRR change, its paired interval ("—" on the base row), the
    questions better and worse, the sign-test p and the pairs per question. A change's words
    (its config fields) are not read: the row is its place."""
    a = results.ablations
    if a is None:
        return []
    said = [c for c in _section_rows(raw, "<h1>Ablations") if c]
    columns = results.settings.columns
    out = _held_rows(page, [c[0] if i == 0 else "a change" for i, c in enumerate(said)],
                     ["base" if i == 0 else "a change" for i in range(len(a.rows))],
                     "ablations.rows")  # fmt: skip
    for i, (cells, r) in enumerate(zip(said, a.rows, strict=False)):
        at = f"ablations.rows[{i}]"
        due = [(m.label, f"{at}.metrics['{m.name}']", number_text(r.metrics.get(m.name)))
               for m in columns]  # fmt: skip
        span = "—" if i == 0 else _as_shown((r.mrr_low, r.mrr_high), "[+0.000, +0.000]")
        due += [("Δ MRR", f"{at}.mrr_delta", number_text(r.mrr_delta, 3, True)),
                ("interval", f"{at}.mrr_low, mrr_high", span),
                ("better", f"{at}.better", _qids(r.better)),
                ("worse", f"{at}.worse", _qids(r.worse)),
                ("sign-test p", f"{at}.p", p_text(r.p)),
                ("pairs / question", f"{at}.costs", number_text(r.costs.pairs_per_question, 1))]  # fmt: skip
        out += _row_cells(page, f"row {i + 1} ({cells[0]})", cells[1:], due)
    return out


# the methods page (templates/methods.html): the seed (`--seed N` in the bootstrap's entry and
# the reproduce command) and the inputs' table (each file's path and sha256, in order)
_SEED = re.compile(r"--seed ([^\s<]+)")
_HASHES_AT = '<thead><tr><th scope="col">Input</th><th scope="col">sha256</th></tr></thead>'
_HASH_ROW = re.compile(r'<tr><td><code>(.*?)</code></td><td><code class="hash">([^<]*)</code>')


def _methods_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The methods page's seed (`settings.seed`, every ``--seed N`` it shows) and its inputs'
    table, row by row (`inputs.files`: path and sha256, in order)."""
    out = []
    seed = str(results.settings.seed)
    for said in _SEED.findall(raw):
        if said != seed:
            out.append(Disagreement(page, f"--seed {said}", f"--seed {seed} (settings.seed)"))
    start = raw.find(_HASHES_AT)
    rows = _HASH_ROW.findall(raw, start, raw.find("</table>", start)) if start >= 0 else []
    files = results.inputs.files
    for i, (row, file) in enumerate(zip_longest(rows, files)):
        said_row = "no such row" if row is None else f"{_cell_text(row[0])} {row[1]}"
        due_row = "no such row" if file is None else f"{file.path} {file.sha256}"
        if said_row != due_row:
            out.append(Disagreement(page, f"input {said_row}",
                                    f"{due_row!r} (inputs.files[{i}])"))  # fmt: skip
    return out


# a candidate page's flipped questions (templates/candidate.html): under "Better (N)" and
# "Worse (N)" the first of them in order, then "… and M more" (the rest, in the question list)
_TIED_COUNT = re.compile(r"<dt>Tied</dt><dd>(\d+)</dd>")  # a candidate page's tied questions
_FLIP_LIST = re.compile(r"<dt>(Better|Worse) \((\d+)\)</dt><dd>(.*?)</dd>", re.S)
_FLIP_MORE = re.compile(r" … and (\d+) more: ")
_QID = re.compile(
    r'<(?:a|span) class="qid"[^>]*>(.*?)</(?:a|span)>', re.S
)  # a question, linked or not


def _flip_list_disagreements(page: str, raw: str, results: Results,
                             i: int) -> list[Disagreement]:  # fmt: skip
    """The flipped questions a candidate page lists, in order, as the first of its comparison
    on the flips metric's `better` / `worse`, and "… and M more" as the rest of them."""
    f = results.candidates[i].on[results.settings.flips_metric]
    out = []
    for m in _FLIP_LIST.finditer(raw, raw.find('<section id="flips">')):
        side = m[1].lower()
        ids = f.better if side == "better" else f.worse
        listed = [_cell_text(q) for q in _QID.findall(m[3])]
        at = f"{side} of candidates[{i}]'s comparison on {f.metric}"
        for k, (said, due) in enumerate(zip(listed, ids, strict=False)):
            if said != visible(due):
                out.append(Disagreement(page, f"{m[1]}: {said} (listed {k + 1})",
                                        f"{visible(due)} ({at}, [{k}])"))  # fmt: skip
                break
        more = _FLIP_MORE.search(m[3])
        said_more, due_more = int(more[1]) if more else 0, len(ids) - len(listed)
        if said_more != due_more:
            out.append(Disagreement(page, f"{m[1]}: … and {said_more} more",
                                    f"{due_more} ({at}, less the {len(listed)} listed)"))  # fmt: skip
    tied = _TIED_COUNT.search(raw, raw.find('<section id="flips">'))
    if tied is None or int(tied[1]) != f.tied:
        out.append(Disagreement(page, f"Tied: {tied[1] if tied else '(no count)'}",
                                f"{f.tied} (tied of candidates[{i}]'s comparison on {f.metric})"))  # fmt: skip
    return out


# a question page's lines of what moved on it: each variant against the baseline ("Flips
# against …"), each candidate ("Candidates against …"), as arrows, names and directions
_VARIANT_MOVES = re.compile(r"<p>Flips against .*?</p>", re.S)
_CANDIDATE_MOVES = re.compile(r"<p>Candidates against .*?</p>", re.S)
_MOVE = re.compile(r'class="flip flip-(better|worse)"[^>]*>[▲▼] (.*?) (?:better|worse)</', re.S)


def _candidate_moves(results: Results) -> dict[str, list[tuple[str, str]]]:
    """Each question -> the candidates better or worse on it (their flips), in the candidates'
    order: what its page's "Candidates against" line says."""
    flips = results.settings.flips_metric
    moves: dict[str, list[tuple[str, str]]] = {}
    for c in results.candidates:
        for side in ("better", "worse"):
            for q in getattr(c.on[flips], side):
                moves.setdefault(q, []).append((side, c.name))
    return moves


def _moves_disagreements(page: str, raw: str, qid: str, results: Results, lists: _Lists,
                         candidates: list[tuple[str, str]]) -> list[Disagreement]:  # fmt: skip
    """The variants a question page says beat or trail the baseline on the question (its flips
    metric beyond a tie, from the lists' values), and the candidates it says are better or worse
    on it (their comparison's `better` and `worse`), each in results.json's order."""
    flips, baseline = results.settings.flips_metric, results.baseline
    base = lists.get((baseline, qid))
    before = base[1].values.get(flips) if base else None
    variants = []
    for v in results.variants:
        at = lists.get((v.name, qid))
        after = at[1].values.get(flips) if at else None
        if v.name != baseline and before is not None and after is not None \
                and abs(after - before) > _TIE:  # fmt: skip
            variants.append(("better" if after > before else "worse", v.name))
    out = []
    for line, due, what, source in (
        (_VARIANT_MOVES, variants, "Flips against the baseline",
         f"each variant's {flips} on the question against the baseline's"),
        (_CANDIDATE_MOVES, candidates, "Candidates against the baseline",
         f"each candidate's better and worse on {flips}"),
    ):  # fmt: skip
        m = line.search(raw)
        said = [(side, _cell_text(name)) for side, name in _MOVE.findall(m[0])] if m else []
        if said != due:
            words = ", ".join(f"{name} {side}" for side, name in said) or "none"
            expected = ", ".join(f"{name} {side}" for side, name in due) or "none"
            out.append(Disagreement(page, f"{what}: {words}", f"{expected} ({source})"))
    return out


# a question page's tags and its "critical" mark, beside its id
_EYEBROW = re.compile(r'<p class="eyebrow">Question <code>.*?</code>(.*?)</p>', re.S)


def _eyebrow_disagreements(page: str, raw: str, fact: QuestionFact, critical: bool,
                           at: str) -> list[Disagreement]:  # fmt: skip
    """A question page's tags, in order, as results.json's question has them, and its
    "critical" mark where the policy names the question critical (and nowhere else)."""
    m = _EYEBROW.search(raw)
    tags = [_cell_text(t) for t in _TAG.findall(m[1])] if m else []
    marked = m is not None and "tag-critical" in m[1]
    if (tags, marked) == (list(fact.tags), critical):
        return []
    shown = " ".join([*tags, *["critical"] * marked]) or "no tags"
    due = " ".join([*fact.tags, *["critical"] * critical]) or "no tags"
    return [Disagreement(page, f"Question {visible(fact.id)}: {shown}",
                         f"{due} ({at}.tags, policy.critical)")]  # fmt: skip


# the gate page's critical questions: the policy table's threshold cell, and their list
_CRITICAL_CELL = re.compile(r'<th scope="row">critical</th><td data-label="Threshold">(.*?)</td>',
                            re.S)  # fmt: skip
_CRITICAL_SECTION = re.compile(r'<section id="critical">(.*?)</section>', re.S)
_CRITICAL_ITEM = re.compile(r'<li><(?:a|span) class="qid"[^>]*>(.*?)</(?:a|span)>: ', re.S)


def _critical_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The gate page's critical questions, as the policy names them and in its order: the
    policy table's critical threshold (the ids) and the list of critical questions."""
    if results.policy is None:
        return []
    due = ", ".join(visible(q) for q in results.policy.critical)
    out = []
    cell = _CRITICAL_CELL.search(raw)
    said = _cell_text(cell[1]) if cell else "(no critical row)"
    if said != (due or "none"):  # (the table's word for a policy that names none)
        out.append(Disagreement(page, f"critical: {said}", f"{due or 'none'} (policy.critical)"))
    section = _CRITICAL_SECTION.search(raw)
    listed = ", ".join(_cell_text(q) for q in _CRITICAL_ITEM.findall(section[1])) if section \
        else "(no section)"  # fmt: skip
    if listed != due:
        out.append(Disagreement(page, f"Critical questions: {listed or 'none'}",
                                f"{due or 'none'} (policy.critical)"))  # fmt: skip
    return out


_CONFIG_CHANGE = re.compile(r"<h2>Config change</h2>(.*?)</table>", re.S)
_CONFIG_ROW = re.compile(r'<tr><th scope="row">(.*?)</th><td>(.*?)</td><td>(.*?)</td></tr>', re.S)


def _config_change_disagreements(page: str, raw: str, diff: Sequence[ConfigChange],
                                 where: str) -> list[Disagreement]:  # fmt: skip
    """A candidate page's config change table, row by row, as results.json's `diff` of the
    candidate (at `where`): each field it changes with the baseline's value and its own in the
    oracle's words (`config_words`), and no other row ("no field differs" when it changes
    none)."""
    table = _CONFIG_CHANGE.search(raw)
    said = [tuple(_cell_text(cell) for cell in row) for row in _CONFIG_ROW.findall(table[1])] \
        if table else []  # fmt: skip
    due = [(d.field, config_words(d.field, d.baseline), config_words(d.field, d.candidate))
           for d in diff]  # fmt: skip
    if said == due:
        return []
    shown = "; ".join(" ".join(row) for row in said) or "no field differs"
    expected = "; ".join(" ".join(row) for row in due) or "no field differs"
    return [Disagreement(page, f"Config change: {shown}", f"{expected} ({where})")]


_COVERAGE = "Partial coverage: the run "  # a run's coverage warning (`report.oracle` "coverage")


def _coverage_disagreements(page: str, shown: _PageText, results: Results) -> list[Disagreement]:
    """A run's coverage warning outside its claim (the benchmark table's, beside the run) says
    the oracle's words of that run's coverage; on the benchmark page every run that answers
    part of the judged queries carries it."""
    out = []
    warned: set[str] = set()
    for _, blank in (*shown.prose, *shown.cells):
        start = blank.find(_COVERAGE)
        if start < 0:
            continue
        said = blank[start:]
        named = [(i, v) for i, v in enumerate(results.variants)
                 if said.startswith(f"{_COVERAGE}{v.name} answers ")]  # fmt: skip
        i, v = max(named, key=lambda iv: len(iv[1].name), default=(None, None))
        due = claim_words(results, "coverage", f"variants[{i}]", {}) if i is not None else ""
        if v is not None and due:
            warned.add(v.name)
        if not due or not said.startswith(due):
            out.append(Disagreement(page, said[:200], repr(due) + (f" (variants[{i}].coverage)"
                                    if i is not None else " nothing: no such run")))  # fmt: skip
    if page == "benchmark.html":
        for i, v in enumerate(results.variants):
            due = claim_words(results, "coverage", f"variants[{i}]", {})
            partial = v.coverage is not None and v.coverage.answered < v.coverage.judged_queries
            if partial and v.name not in warned:
                out.append(
                    Disagreement(
                        page, f"{v.name}: no coverage warning", f"{due!r} (variants[{i}].coverage)"
                    )
                )
    return out


def _flips_count_disagreements(page: str, shown: _PageText, results: Results,
                               raw: str) -> list[Disagreement]:  # fmt: skip
    """The flips page's counts: the candidates and the pairs of variants each Holm adjustment
    runs across (results.json's flips of each family; a pair of variants once), and each
    candidate's tied questions."""
    families = {"candidate": [f for f in results.flips if f.family == "candidates"],
                "pair": [f for f in results.flips if f.family == "variants"]}  # fmt: skip
    due = {"candidate": len(families["candidate"]),
           "pair": len({frozenset((f.a, f.b)) for f in families["pair"]})}  # fmt: skip
    out = []
    for _, blank in (*shown.prose, *shown.cells):
        for m in _HOLM_ACROSS.finditer(blank) if "Holm-adjusted across" in blank else ():
            if int(m[1]) != due[m[2]]:
                out.append(Disagreement(page, _around(blank, m.start()), f"{due[m[2]]} {m[2]}s (flips of the "
                                        f"family {'candidates' if m[2] == 'candidate' else 'variants'})"))  # fmt: skip
    ties = {f.b: (i, f.tied) for i, f in enumerate(results.flips) if f.family == "candidates"}
    for name, said in _TIED.findall(raw):
        i, tied = ties.get(html.unescape(name), (None, None))
        if i is not None and int(said) != tied:
            out.append(Disagreement(page, f"{html.unescape(name)}: tied {said}",
                                    f"{tied} (flips[{i}].tied)"))  # fmt: skip
    return out


_GRID_MORE = re.compile(r'<p class="muted">The grid lists the (\d+) questions? that (?:have|has) a page '
                        r"\(.*?\); … (\d+) more: ", re.S)  # fmt: skip


def _grid_disagreements(page: str, raw: str, results: Results, pages: int) -> list[Disagreement]:
    """Above the page limit the flips grid lists the questions that have a page (the site's
    question pages) and counts the rest of the baseline's (its lists, one a question)."""
    m = _GRID_MORE.search(raw)
    if m is None:
        return []
    lists = len(results.variant(results.baseline).lists)
    if (int(m[1]), int(m[2])) == (pages, lists - pages):
        return []
    return [Disagreement(page, f"the grid lists {m[1]} questions, … {m[2]} more",
                         f"{pages} questions, {lists - pages} more (the site's question pages, "
                         f"the baseline's lists less them)")]  # fmt: skip


# the question pages' rule where a page states it above the page limit (templates/flips.html:
# the grid's note; templates/index.html: the pages left out), counts and words
_PAGE_RULES = (re.compile(r"that (?:have|has) a page \((.*?)\); … \d+ more: ", re.S),
               re.compile(r"question (?:pages were|page was) left out: (.*?)\. Every question is in ",
                          re.S))  # fmt: skip


def _page_rule_disagreements(page: str, raw: str, results: Results) -> list[Disagreement]:
    """The rule a page says chose the question pages, with its counts of the questions without
    one, as the oracle restates it from results.json (`report.oracle.page_rule`)."""
    out = []
    due = page_rule(results)
    for pattern in _PAGE_RULES:
        for m in pattern.finditer(raw):
            said = _squeeze(html.unescape(m[1]))
            if said != due:
                out.append(Disagreement(page, f"the page rule: {said}", f"{due!r} "
                                        "(inputs.questions, the baseline's and the candidates' "
                                        "lists, settings.compared, policy.critical)"))  # fmt: skip
    return out


def _caveat_disagreements(page: str, shown: _PageText, given: tuple[set[str], set[str]],
                          blocks: str) -> list[Disagreement]:  # fmt: skip
    """A component's caveat (the toy embedder, MiniLM, the lexical rerankers, the demo's tuning
    on its labels), in full or in its few words, stands only on a site whose results.json gives
    it (`given`: the texts and words of this project's caveats): the demo's "weights were
    chosen while looking at these labels" pasted onto another project is a disagreement."""
    texts, words = given
    out = []
    for text, brief in COMPONENT_CAVEATS.values():
        full = _squeeze(text)
        for said, backed in ((full, texts), (brief, words)):
            if said not in blocks or any(said in b for b in backed):
                continue  # `blocks`: the page's blocks joined (none holds it: not in them)
            for block, _ in (*shown.prose, *shown.cells):
                if said in block:
                    out.append(Disagreement(page, _around(block, block.index(said)),
                                            "nothing: none of this project's caveats says this"))  # fmt: skip
                    break
    return out


# what changed since an earlier report (`--compare-to`): the index's section and since.html's
# main, read by their own grammar (templates/index.html, templates/since.html) in the oracle's
# words (`report.oracle.SINCE_GROUPS` …). The earlier report is not in the site: its version,
# input hash, project, seed, means and intervals, verdicts and gate levels, grades and passes
# are read as said; what this report holds is held to results.json
_SINCE_AT = {"index.html": ('<section id="since">', "</section>"),
             "since.html": ('<main id="main">', "</main>")}  # fmt: skip
_SINCE_BLOCK = re.compile(r"<(h1|h2|h3|p|li)\b[^>]*>(.*?)</\1>", re.S)
_SINCE_LEDE = re.compile(r"^(?:This report compared with the previous one|Compared with the "
                         r"previous report) \(evidencedesk (\S+), inputs sha256 ([0-9a-f]*)…, "
                         r"project (.*)\): (.*)$", re.S)  # fmt: skip
_SINCE_SUBJECT = re.compile(r"^\s*<(strong|a|span)\b[^>]*>(.*?)</\1>: (.*)$", re.S)
_SINCE_ALL = re.compile(r"^All (\d+) →$")
_SINCE_FULL = "What changed since the last report, in full →"
_SINCE_GRADE = re.compile(r"^(.*): (grade -?\d+|unlabelled) → (grade -?\d+|unlabelled)$", re.S)
_GATE_WORD = r"(\w+|not checked)"  # a level, or no policy (`oracle.gate_word`)
# another config change under a candidate's name: what it tests now, and before (as said)
_SINCE_REDEFINED = re.compile(r"^its change is now (.*?) \(was (.*?)\); (.*)$")
_SINCE_VERDICT = re.compile(rf"^(?:new candidate: (\S.*?) \(gate {_GATE_WORD}\)|removed \(was "
                            rf"(.*?), gate {_GATE_WORD}\)|(?:still (.*?)|(.*?) → (.*?)) \(gate "
                            rf"{_GATE_WORD}(?: → {_GATE_WORD})?\))$")  # fmt: skip
_SINCE_METRIC = re.compile(r"^(.*) (−?\d+\.\d+|—) → (−?\d+\.\d+|—) \(previous interval "
                           r"\[(−?\d+\.\d+), (−?\d+\.\d+)\]\)$")  # fmt: skip
_SINCE_RUNS = re.compile(r"^(?:now (fails|passes) in (.*?)"
                         r"( \(no relevant (?:judgment|chunk in scope) before\))?|"
                         r"no relevant (?:judgment|chunk in scope) now \(it passed before in (.*)\))$")  # fmt: skip
_SINCE_RELEVANT = "Questions with a {} (only they can pass): "  # what can pass, by kind


def _since_cut(page: str, raw: str) -> tuple[str, str]:
    """`raw` without its since section (read by `_since_disagreements`, not as prose), and the
    section ("" without one)."""
    start, end = _SINCE_AT.get(page, ("", ""))
    at = raw.find(start) if start else -1
    if at < 0:
        return raw, ""
    at += len(start)
    stop = raw.find(end, at)
    stop = len(raw) if stop < 0 else stop
    return raw[:at] + raw[stop:], raw[at:stop]


def _since_blocks(page: str, section: str) -> tuple[list[tuple[str, str, str]], list[Disagreement]]:
    """The section's blocks (tag, text, inner HTML); any text outside them is a disagreement."""
    blocks = [(m[1], _cell_text(m[2]), m[2]) for m in _SINCE_BLOCK.finditer(section)]
    rest = _squeeze(html.unescape(_TAGS.sub(" ", _SINCE_BLOCK.sub(" ", section))))
    out = [Disagreement(page, f"since: {rest[:200]}", "nothing: the since section says no such "
                        "text")] if rest else []  # fmt: skip
    return blocks, out


def _since_item(results: Results, group: str, inner: str,
                facts: dict[str, Any]) -> tuple[str, str, str, str]:  # fmt: skip
    """One listed change: its count's key, what the page says, what results.json gives in its
    place (this report's side; the earlier report's as said) and where."""
    m = _SINCE_SUBJECT.match(inner)
    if m is None:
        return "", _cell_text(inner), "a change of the since page's form", "the since page"
    subject, text = (_cell_text(part) for part in (m[2], m[3]))
    said = f"{subject}: {text}"
    if group == "inputs":
        return _since_input(results, subject, text, facts)
    if group == "verdicts":
        c = facts["candidates"].get(subject)
        redefined = _SINCE_REDEFINED.match(text)
        v = _SINCE_VERDICT.match(redefined[3] if redefined is not None else text)
        after = (c.decision.verdict, gate_word(c.gate)) if c is not None else (None, None)
        if v is None:
            return "verdicts", said, "a verdict change of the since page's form", "the since page"
        before = (v[3], v[4]) if v[3] else (None, None) if v[1] else (v[5] or v[6], v[8])
        due = since_verdict(before[0], after[0], before[1], after[1])
        if redefined is not None and c is not None and v[1] is None and v[3] is None:
            # the change it tests now is this report's; the one it tested before, as said
            due = f"its change is now {since_tested(c)} (was {redefined[2]}); {due}"
            if redefined[2] == since_tested(c):
                due = "nothing: the same config change under the same name is not redefined"
        elif c is not None and before == after:
            due = "nothing: an unchanged verdict and gate level are not a change"
        # the count it falls under, by its form (the form itself is held by `due`)
        kind = ("candidates added" if v[1] else "candidates removed" if v[3] else
                "redefined" if redefined is not None else "gates" if v[5] else "verdicts")  # fmt: skip
        return kind, said, f"{subject}: {due}", f"the candidate {subject}'s decision and gate"
    if group == "metrics":
        return _since_metric(results, subject, text, facts)
    r = _SINCE_RUNS.match(text)
    question = facts["ids"].get(subject, subject)
    where = f"the variants' lists of {subject}, each run's pass depth"
    judged = question in facts["relevant"]
    defined = defined_words(results.settings.kind)
    if r is not None and r[4] is not None:  # no relevant judgment now: it passed before (as said)
        runs = _named_runs(r[4], facts["variants"])
        held = [run for run in facts["variants"] if run in runs]
        due = (f"{subject}: no {defined} now (it passed before in {', '.join(held)})"
               if held and not judged and group == "fail" else
               f"nothing: {subject} has a {defined} now" if judged else
               f"nothing: {subject} is in no run of this report's named")  # fmt: skip
        return group, said, due, f"the judgments of {subject}, the variants"
    runs = _named_runs(r[2] or "" if r else "", facts["variants"])
    now = facts["outcomes"]
    held = [run for run in facts["variants"] if run in runs and now.get((run, question)) is
            (group == "pass")]  # fmt: skip
    verb = "fails" if group == "fail" else "passes"
    why = f" (no {defined} before)" if r is not None and r[3] and group == "pass" else ""
    due = f"{subject}: now {verb} in {', '.join(held)}{why}" if held else (
        f"nothing: {subject} {verb} in none of {', '.join(runs) or 'no run'} now")  # fmt: skip
    return group, said, due, where


def _named_runs(text: str, names: list[str]) -> list[str]:
    """The runs a ", "-joined list names, each read as the longest run name it starts with (a
    name may hold ", "); what no name starts is one name of its own up to the next ", "."""
    runs = []
    while text:
        known = [n for n in names if text == n or text.startswith(f"{n}, ")]
        name = max(known, key=len) if known else text.split(", ", 1)[0]
        runs.append(name)
        text = text[len(name) + 2 :]
    return runs


def _since_input(results: Results, subject: str, text: str,
                 facts: dict[str, Any]) -> tuple[str, str, str, str]:  # fmt: skip
    """A changed input: a file (changed and added: results.json's inputs hold it; removed: they
    do not), a question added (held) or removed (not held), a label grade (this report's)."""
    said = f"{subject}: {text}"
    files = {f.path for f in results.inputs.files}
    questions = facts["questions"]
    if text.startswith("file ") and text[5:] in ("changed", "added", "removed"):
        held = subject in files
        due = "file removed" if not held else text if text != "file removed" else "file changed"
        return "files", said, f"{subject}: {due}", "inputs.files"
    if text in ("new question", "question removed"):
        due = "new question" if subject in questions else "question removed"
        return ("added" if text == "new question" else "removed"), said, f"{subject}: {due}", (
            "inputs.questions")  # fmt: skip
    g = _SINCE_GRADE.match(text)
    fact = questions.get(subject)
    if g is None or fact is None:
        return "grades", said, "a label grade of a question of this report", "inputs.questions"
    now = fact.grades.get(g[1])
    due = f"{subject}: {g[1]}: {g[2]} → {'unlabelled' if now is None else f'grade {now}'}"
    return "grades", said, due, f"inputs.questions[{facts['at'][subject]}].grades"


def _since_metric(results: Results, subject: str, text: str,
                  facts: dict[str, Any]) -> tuple[str, str, str, str]:  # fmt: skip
    """A mean beyond its earlier interval: this report's mean of that run and metric, strictly
    outside the interval the page states (as printed) -- the earlier mean and interval as said."""
    said = f"{subject}: {text}"
    m = _SINCE_METRIC.match(text)
    stats = facts["means"].get(subject, {})
    if m is None:
        return "metrics", said, "a mean of the since page's form", "the since page"
    label, before, _, low, high = m.groups()
    if label not in stats:
        return "metrics", said, f"nothing: {subject} has no {label} in results.json", "its means"
    at, mean = stats[label]
    after = number_text(mean)
    due = f"{subject}: {label} {before} → {after} (previous interval [{low}, {high}])"
    if mean is not None and after != "—":
        if _page_number(low) < _page_number(after) < _page_number(high):
            due = f"nothing: {after} lies inside [{low}, {high}]"
    return "metrics", said, due, at


def _since_facts(results: Results) -> dict[str, Any]:
    """What this report holds that the since section names: its questions, candidates, runs'
    means by metric label (variants, then candidates that are no variant), passes."""
    labels = {m.name: m.label for m in results.settings.metrics}
    means: dict[str, dict[str, tuple[str, float | None]]] = {}
    runs = [(f"variants[{i}]", v.name, v.metrics) for i, v in enumerate(results.variants)]
    runs += [(f"candidates[{i}]", c.name, c.metrics) for i, c in enumerate(results.candidates)]
    for at, name, stats in runs:
        if name not in means:
            means[name] = {labels.get(m.metric, m.metric): (f"{at}.metrics[{j}].mean", m.mean)
                           for j, m in enumerate(stats)}  # fmt: skip
    questions = results.inputs.questions
    return {"questions": {visible(q.id): q for q in questions},
            "ids": {visible(q.id): q.id for q in questions},
            "at": {visible(q.id): i for i, q in enumerate(questions)},
            "candidates": {c.name: c for c in results.candidates}, "means": means,
            "variants": [v.name for v in results.variants],
            "outcomes": since_outcomes(results), "relevant": since_relevant(results)}  # fmt: skip


def _since_lede(
    page: str, text: str, results: Results
) -> tuple[dict[str, str], list[Disagreement]]:
    """The lede's earlier report (version, input hash, project: as said) and its summary."""
    m = _SINCE_LEDE.match(text)
    if m is None:
        return {}, [Disagreement(page, f"since: {text[:200]}", "the since lede: 'compared with "
                                 "the previous report (evidencedesk V, inputs sha256 H…, project "
                                 "P): the changes'")]  # fmt: skip
    return {"hash": m[2], "project": m[3], "summary": m[4]}, []


def _since_notes(page: str, notes: list[str], lede: dict[str, str],
                 results: Results) -> list[Disagreement]:  # fmt: skip
    """The notes: the same inputs exactly when the earlier hash said is this report's, another
    project exactly when the earlier project said is not this one's, another seed (this one
    results.json's), another count of questions with a relevant judgment (this one counted)."""
    inputs, out = results.inputs, []
    due = []
    if lede and lede["hash"] == inputs.input_hash[:12]:
        due.append(SINCE_SAME_INPUTS)
    if lede and lede["project"] != inputs.project:
        due.append(since_project_note(lede["project"], inputs.project))
    seed = [n for n in notes if n.startswith("The previous report used seed ")]
    if seed:
        before = seed[0].removeprefix("The previous report used seed ").split(",", 1)[0]
        if before != str(results.settings.seed):
            due.append(since_seed_note(before, results.settings.seed))
    kind = results.settings.kind
    relevant = _SINCE_RELEVANT.format(defined_words(kind))
    judged = [n for n in notes if n.startswith(relevant)]
    if judged:  # the earlier count as said, this report's counted
        before = judged[0].removeprefix(relevant).split(" → ", 1)[0]
        counted = len(since_relevant(results))
        if before != str(counted):
            due.append(since_relevant_note(before, counted, kind))
    for i, (said, expected) in enumerate(zip_longest(notes, due)):
        if said != expected:
            out.append(Disagreement(page, f"since note {i + 1}: {said or 'none'}",
                                    f"{expected or 'no such note'!r} (inputs.input_hash, "
                                    "inputs.project, settings.seed)"))  # fmt: skip
    return out


def _since_disagreements(page: str, section: str, results: Results) -> list[Disagreement]:
    """What changed since the earlier report, as the index's section or since.html says it:
    the lede's summary counts the changes listed (the index lists the first `SINCE_SHOWN` of a
    group and counts them all), the notes, each group's title and rule in the oracle's words and
    order, and each change's side in this report held to results.json (`_since_item`)."""
    blocks, out = _since_blocks(page, section)
    index = page == "index.html"
    head = "h3" if index else "h2"
    texts = [t for _, t, _ in blocks]
    if texts[:1] != ["Since last report"]:
        out.append(Disagreement(page, f"since: {(texts or ['none'])[0]}", "'Since last report'"))
    lede, found = _since_lede(page, texts[1] if len(texts) > 1 else "", results)
    out += found
    at = 2
    notes = []
    while at < len(blocks) and blocks[at][0] == "p" and blocks[at][1] != _SINCE_FULL:
        notes.append(blocks[at][1])
        at += 1
    out += _since_notes(page, notes, lede, results)
    facts, counts = _since_facts(results), dict.fromkeys(SINCE_GROUP_OF, 0)
    titles = {title: (key, rule) for key, title, rule in SINCE_GROUPS}
    order, listed, alls = [], {}, {}
    while at < len(blocks) and blocks[at][0] == head:
        key, rule = titles.get(blocks[at][1], ("", ""))
        order.append(key or blocks[at][1])
        at += 1
        if not index and at < len(blocks):
            defined = defined_words(results.settings.kind)
            said = blocks[at][1]
            due = f"Counted: {rule.format(depth=since_depth(results), defined=defined)}."
            if key and said != due:
                out.append(Disagreement(page, f"since: {said}", f"{due!r} (the oracle's words, "
                                        "each run's pass depth)"))  # fmt: skip
            at += 1
        listed[key] = 0
        while at < len(blocks) and blocks[at][0] == "li":
            kind, said, due, where = _since_item(results, key, blocks[at][2], facts)
            if key:  # under a title of the oracle's (another is named by the groups' order)
                counts[kind] = counts.get(kind, 0) + 1
                listed[key] += 1
            if key and said != due:
                out.append(Disagreement(page, f"since: {said}", f"{due!r} ({where})"))
            at += 1
        m = _SINCE_ALL.match(blocks[at][1]) if index and at < len(blocks) else None
        if m is not None:
            alls[key] = int(m[1])
            at += 1
    out += _since_counts(page, lede, counts, order, listed, alls, index)
    tail = [t for _, t, _ in blocks[at:]]
    if tail != ([_SINCE_FULL] if index else []):
        out.append(Disagreement(page, f"since: {' '.join(tail) or 'no link'}",
                                repr(_SINCE_FULL if index else "nothing after the groups")))  # fmt: skip
    return out


def _since_counts(page: str, lede: dict[str, str], counts: dict[str, int], order: list[str],
                  listed: dict[str, int], alls: dict[str, int], index: bool) -> list[Disagreement]:  # fmt: skip
    """The groups in the oracle's order, one for each kind of change the summary counts; on
    since.html the summary counts the changes listed; on the index each group lists the first
    `SINCE_SHOWN` of the changes the summary counts and "All N" counts them when more."""
    out = []
    summary = lede.get("summary", "")
    said_counts = dict.fromkeys(SINCE_GROUP_OF, 0)
    for part in summary.split(" · ") if summary != SINCE_NONE else []:
        n, _, words = part.partition(" ")
        key = next((k for k, one, many in SINCE_COUNTS if words in (one, many)), None)
        if key is not None and n.isdigit():
            said_counts[key] = int(n)
    if not index:
        due = since_summary(counts)
        if summary != due:
            out.append(Disagreement(page, f"since: {summary}", f"{due!r} (the changes listed)"))
    elif since_summary(said_counts) != summary:
        out.append(Disagreement(page, f"since: {summary}", f"{since_summary(said_counts)!r} (the "
                                "oracle's words)"))  # fmt: skip
    groups = {SINCE_GROUP_OF.get(k) for k, n in (said_counts if index else counts).items() if n}
    due_order = [key for key, _, _ in SINCE_GROUPS if key in groups or listed.get(key)]
    if order != due_order:
        out.append(Disagreement(page, f"since: groups {', '.join(order) or 'none'}",
                                f"groups {', '.join(due_order) or 'none'} (the oracle's order)"))  # fmt: skip
    for key in order if index else ():
        total = sum(n for k, n in said_counts.items() if SINCE_GROUP_OF[k] == key)
        said = f"{listed.get(key, 0)} listed" + (f", All {alls[key]}" if key in alls else "")
        due = f"{min(total, SINCE_SHOWN)} listed" + (
            f", All {total}" if total > SINCE_SHOWN else ""
        )
        if said != due:
            out.append(Disagreement(page, f"since: {key}: {said}", f"{due} (the summary's count)"))
    return out


# a chart's data: the figure plotly draws, its JSON written after the chart's id
_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"([^"]*)",\s*')
_NUMBER = re.compile(r"[+−-]?\d+(?:\.(\d+))?")
_RANGE = re.compile(rf"\[({_NUMBER.pattern}), ({_NUMBER.pattern})\]")
_WINS_LOSSES = re.compile(r"\+(\d+)/[−-](\d+)")


def _floats(value: Any, found: set[float]) -> set[float]:
    """Every float `value` holds (a JSON value), into `found`."""
    if isinstance(value, float):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _floats(item, found)
    elif isinstance(value, list):
        for item in value:
            _floats(item, found)
    return found


@dataclass(frozen=True)
class _ChartValues:
    """The floats of results.json a chart may draw: all of them, and a variant's or a
    candidate's own by its name (a point labelled with a name draws one of that name's)."""

    every: set[float]
    named: dict[str, set[float]]

    @classmethod
    def of(cls, saved: dict[str, Any]) -> _ChartValues:
        named: dict[str, set[float]] = {}
        for row in (*saved.get("variants", []), *saved.get("candidates", [])):
            if isinstance(row, dict) and isinstance(row.get("name"), str):
                _floats(row, named.setdefault(row["name"], set()))
        return cls(_floats(saved, set()), named)


def _near(text: str, value: float) -> bool:
    """`text` (a number as a chart's hover prints it) is `value` at its printed precision."""
    digits = _NUMBER.fullmatch(text)
    if digits is None:
        return False
    places = len(digits.group(1) or "")
    return abs(_page_number(text) - value) <= 0.5 * 10.0**-places + 1e-9


def _page_number(text: str) -> float:
    """A number as a page prints it (a true minus sign, `oracle.number_text`) as a float."""
    return float(text.replace("−", "-"))


def _trace_disagreements(page: str, chart: str, trace: dict[str, Any],
                         values: _ChartValues) -> list[Disagreement]:  # fmt: skip
    """A trace's points against results.json (each drawn value is one of its floats, of the
    point's own variant or candidate when the point is labelled with one) and its hover against
    the point (the number, the interval by the error bars, the wins and losses by the bar)."""
    x, y = trace.get("x") or [], trace.get("y") or []
    drawn = any(isinstance(v, float) for v in x) or not any(isinstance(v, float) for v in y)
    numbers, labels, axis = (x, y, "x") if drawn else (y, x, "y")
    bars = trace.get(f"error_{axis}") or {}
    plus, minus = bars.get("array") or [], bars.get("arrayminus") or []
    rows = trace.get("customdata") or []
    found = []
    for i, value in enumerate(numbers):
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        label = labels[i] if i < len(labels) and isinstance(labels[i], str) else ""
        label = html.unescape(label).removesuffix(" ★")
        where = f"{chart}: {label}" if label else chart
        texts = [c for c in rows[i] if isinstance(c, str)] if i < len(rows) else []
        if isinstance(value, float) and not value.is_integer():
            scope = values.named.get(label, values.every)
            if value not in scope:
                found.append(
                    Disagreement(
                        page,
                        where,
                        f"no value {value!r}" + (f" for {label}" if label in values.named else ""),
                    )
                )
        if isinstance(value, float):
            shown = next((t for t in texts if _NUMBER.fullmatch(t)), None)
            if shown is not None and not _near(shown, value):
                found.append(Disagreement(page, f"{where}: {shown}", f"{value!r} (the point)"))
            span = next((m for t in texts if (m := _RANGE.fullmatch(t))), None)
            if span is not None and i < len(plus) and i < len(minus) \
                    and plus[i] is not None and minus[i] is not None:  # fmt: skip
                low, high = value - minus[i], value + plus[i]
                if not (_near(span.group(1), low) and _near(span.group(3), high)):
                    found.append(Disagreement(page, f"{where}: {span.group()}",
                                              f"[{low!r}, {high!r}] (the error bars)"))  # fmt: skip
        else:
            flips = next((m for t in texts if (m := _WINS_LOSSES.fullmatch(t))), None)
            if flips is not None and value not in (int(flips.group(1)), -int(flips.group(2))):
                found.append(Disagreement(page, f"{where}: {flips.group()}",
                                          f"{value} (the bar)"))  # fmt: skip
    return found


def _chart_disagreements(page: str, raw: str, values: _ChartValues) -> list[Disagreement]:
    """Every chart's data on the page (`_trace_disagreements`): what the hover and the bars
    show a reader who points at them, never read as the page's text."""
    decoder = json.JSONDecoder()
    found: list[Disagreement] = []
    for start in _NEW_PLOT.finditer(raw):
        chart = start.group(1)
        try:
            traces, _ = decoder.raw_decode(raw, start.end())
        except ValueError:
            traces = None
        if not isinstance(traces, list):
            found.append(Disagreement(page, chart, "a chart's data as a JSON list of traces"))
            continue
        for trace in traces:
            if isinstance(trace, dict):
                found += _trace_disagreements(page, chart, trace, values)
    return found


def _summary_disagreements(site: Path, results: Results) -> list[Disagreement]:
    """``summary.md`` held line by line to the lines the oracle restates from results.json
    (`report.oracle.summary_lines`); none for a site without one (built before summaries)."""
    path = site / SUMMARY
    if not path.exists():
        return []
    shown = read_text(path, AuditError, "summary").splitlines()
    expected = summary_lines(results)
    found = [Disagreement(SUMMARY, a, b) for a, b in zip(shown, expected, strict=False) if a != b]
    if len(shown) != len(expected):
        found.append(Disagreement(SUMMARY, f"({len(shown)} lines)", f"{len(expected)} lines"))
    return found


def _manifest_disagreements(site: Path, results: Results,
                            files: frozenset[str]) -> list[Disagreement]:  # fmt: skip
    """manifest.json's seed, version, inputs' hash and each input's sha256 as results.json's
    (the methods page says it lists them), and every file it says the build wrote is in the
    site (a file the team put there beside them is theirs, kept by a rebuild: not counted)."""
    path = site / MANIFEST
    if not path.is_file():
        return []
    data = parse_json(read_text(path, AuditError, "manifest"), path, AuditError)
    if not isinstance(data, dict):
        return [Disagreement(MANIFEST, "(not an object)", "a JSON object")]
    due = {
        "seed": (results.settings.seed, "settings.seed"),
        "version": (results.version, "version"),
        "input_hash": (results.inputs.input_hash, "inputs.input_hash"),
    }  # fmt: skip
    out = [Disagreement(MANIFEST, f"{key}: {json.dumps(data.get(key), ensure_ascii=False)}",
                        f"{json.dumps(value, ensure_ascii=False)} ({at})")
           for key, (value, at) in due.items() if data.get(key) != value]  # fmt: skip
    listed_inputs = data.get("inputs")
    said: list[Any] = listed_inputs if isinstance(listed_inputs, list) else []
    inputs = [{"path": i.path, "sha256": i.sha256} for i in results.inputs.files]
    for k, (one, due_one) in enumerate(zip_longest(said, inputs)):
        if one != due_one:  # the first input that differs (a lost one moves every later one)
            shown = " ".join(map(str, one.values())) if isinstance(one, dict) else str(one)
            expected = " ".join(due_one.values()) if due_one else "no such input"
            out.append(Disagreement(MANIFEST, f"inputs[{k}]: {shown}",
                                    f"{expected} (inputs.files[{k}])"))  # fmt: skip
            break
    listed = data.get("files")
    missing = [f for f in listed if isinstance(f, str) and f not in files] \
        if isinstance(listed, list) else []  # fmt: skip
    if missing:
        out.append(Disagreement(MANIFEST, f"files: {', '.join(missing[:3])}"
                                + (f", … {len(missing) - 3} more" if len(missing) > 3 else ""),
                                "files the site holds: the build wrote them"))  # fmt: skip
    return out


# the columns of to-label.tsv audit holds to results.json (the runs, question, title and
# snippet after them are the data's own words)
_CHECKED_COLUMNS = ("query", "iteration", "document", "grade", "best_rank", "splits")


def _to_label_file_disagreements(site: Path, results: Results) -> list[Disagreement]:
    """data/to-label.tsv held to results.json's `to_label`, row by row: its question, ``0``, its
    document, an empty grade, its best rank and how many comparisons it splits (the columns a
    reviewer grades and appends to the judgments; the runs and the texts are the data's own),
    and as many rows. The first row that differs is named, then how many more do (a row lost
    moves every later one). A site without the file says nothing here: its page names it."""
    path = site / TO_LABEL
    if not path.is_file():
        return []
    lines = read_text(path, AuditError, "to-label file").splitlines()
    rows = [(number, line.split("\t")) for number, line in enumerate(lines, start=1)
            if line and not line.startswith("#")]  # fmt: skip
    expected = [(pair.question, "0", pair.document, "", str(pair.rank), str(pair.splits))
                for pair in results.to_label]  # fmt: skip
    differ = [(at, number, fields) for at, ((number, fields), row)
              in enumerate(zip(rows, expected, strict=False))
              if (*fields[:5], *fields[6:7]) != row]  # fmt: skip
    found = []
    if differ:
        at, number, fields = differ[0]
        due = " ".join(f"{c}={v}" for c, v in zip(_CHECKED_COLUMNS, expected[at], strict=True))
        found.append(Disagreement(TO_LABEL, f"line {number}: {' '.join(fields[:7])}",
                                  f"{due} (to_label[{at}])"))  # fmt: skip
    if len(differ) > 1:
        found.append(Disagreement(TO_LABEL, f"({len(differ) - 1} more rows differ)",
                                  "each pair in its own row (to_label)"))  # fmt: skip
    if len(rows) != len(results.to_label):
        found.append(Disagreement(TO_LABEL, f"({len(rows)} rows)",
                                  f"{len(results.to_label)} pairs to label (to_label)"))  # fmt: skip
    return found


# a way to run the page job over the pages, started now and waited for later: ``start(job,
# pages)`` returns the call that gives each page's result, in the pages' order. `in_turn` runs
# the job at once, page by page; the command line's ``--tune`` hands the pages to forked workers
# (`cli.audit`) while this process recomputes from the exports (`report.oracle`). Without one,
# `audit` reads the pages itself beside a thread that recomputes
PageResult = tuple[list[Disagreement], int]  # a page's disagreements, and the claims checked
Pages = Callable[[Callable[[str], PageResult], list[str]], Callable[[], list[PageResult]]]


def in_turn(job: Callable[[str], PageResult], pages: list[str]) -> Callable[[], list[PageResult]]:
    """`Pages` in this process: every page's result now, in order."""
    done = [job(page) for page in pages]
    return lambda: done


def _all_lists(results: Results) -> _Lists:
    """Every ranked list of results.json by (run, question): each variant's, and each
    candidate's own (a pipeline candidate's) or its run's (a runs-only candidate's)."""
    lists = {(v.name, r.question): (f"variants[{i}].lists[{j}]", r)
             for i, v in enumerate(results.variants) for j, r in enumerate(v.lists)}  # fmt: skip
    by_run: dict[str, list[tuple[str, tuple[str, RankedList]]]] = {}
    for (run, question), at in lists.items():
        by_run.setdefault(run, []).append((question, at))
    for i, c in enumerate(results.candidates):
        own = [(r.question, (f"candidates[{i}].lists[{j}]", r)) for j, r in enumerate(c.lists)]
        for question, at in own if not c.lists_of else by_run.get(c.lists_of, []):
            lists.setdefault((c.name, question), at)
    return lists


def _titles(results: Results, questions: dict[str, str]) -> dict[str, str]:
    """Each page of one question (`questions`: page -> id) or one candidate (run or not) -> the
    name its title gives, as a page shows an id: invisible characters made visible
    (`_inert.visible`)."""

    def shown(name: str) -> str:
        return name if name.isascii() else visible(name)

    names = [c.name for c in results.candidates] + [c.name for c in results.not_run]
    named = [*questions.items(), *((f"candidate-{slug(name)}.html", name) for name in names)]
    return {page: shown(name) for page, name in named}


@dataclass(frozen=True)
class _Site:
    """What every page of a site is held to: its results.json (read as Results and as JSON for
    the charts), its claims, and the tables built from them once for the whole site."""

    root: Path
    results: Results
    claims: dict[str, list[dict[str, Any]]]
    table: list[str]  # the value marks' paths by number (`report.claims.mark_table`)
    questions: dict[str, str]  # a question page -> its question's id
    given: tuple[set[str], set[str]]  # this project's caveats, restated by the oracle
    lists: _Lists  # (run or candidate, question) -> (its path, its list)
    charted: _ChartValues
    known: _Known  # the marked values already re-read (filled as the pages are read)
    candidates: dict[str, int]  # a candidate's page -> its index in results.json
    facts: dict[str, tuple[int, QuestionFact]]  # a question's id -> its index and its record
    titles: dict[str, str]  # a question's or a candidate's page -> its title's name (shown)
    files: frozenset[str]  # every file of the site, by its path from the site's folder
    page_names: list[str]  # its pages, by name (`_pages`)
    not_run: dict[str, int]  # a candidate not run's page -> its index in results.json
    moves: dict[str, list[tuple[str, str]]]  # a question -> the candidates better / worse on it

    @property
    def pages(self) -> int:
        """The site's question pages."""
        return sum(1 for name in self.page_names if name.startswith("question-"))

    @classmethod
    def of(cls, site: Path) -> _Site:
        results = load(site / "results.json")
        lists = _all_lists(results)
        saved = parse_json(read_text(site / "results.json", AuditError, "results"),
                           site / "results.json", AuditError)  # fmt: skip
        questions = {f"question-{slug(q.id)}.html": q.id for q in results.inputs.questions}
        files = frozenset(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
        return cls(site, results, _claims(site, results), mark_table(results), questions,
                   caveats_given(results), lists, _ChartValues.of(saved), {},
                   {f"candidate-{slug(c.name)}.html": i
                    for i, c in enumerate(results.candidates)},
                   {q.id: (i, q) for i, q in enumerate(results.inputs.questions)},
                   _titles(results, questions), files, _pages(files),
                   {f"candidate-{slug(c.name)}.html": j
                    for j, c in enumerate(results.not_run)},
                   _candidate_moves(results))  # fmt: skip

    def page(self, page: str) -> PageResult:
        """The disagreements of one page with results.json, and how many claims it records."""
        results, claims = self.results, self.claims
        # a name holding a right-to-left letter or a direction control is printed inside the
        # isolates FSI … PDI (docs/site.md): the page is read without them, names as they are
        raw = read_text(self.root / page, AuditError, "page")
        if _FSI in raw or _PDI in raw:  # (`str.translate` took 1.5 s over a large site's pages)
            raw = raw.replace(_FSI, "").replace(_PDI, "")
        raw, since = _since_cut(page, raw)
        shown = _read(raw)
        mine = claims.get(page, [])
        blocks = " ".join([block for block, _ in shown.prose] + [b for b, _ in shown.cells])
        text = f"{blocks} {' '.join([words for _, _, words in shown.marked])}"
        here = {number for where, number, _ in shown.marked if where == page}
        found = _claim_disagreements(results, page, mine, text, here)
        found += _marked_disagreements(page, claims, shown)
        found += _star_disagreements(page, results, claims, shown)
        if shown.in_attributes:
            found.append(Disagreement(page, "(an attribute)", f"{shown.in_attributes} claim(s) "
                                      "marked inside an attribute value: the template must write "
                                      "them through the plain filter"))  # fmt: skip
        found += _value_disagreements(page, results, claims, shown, self.known, self.table)
        found += _unbacked(page, shown, results.inputs.project)
        found += _caveat_disagreements(page, shown, self.given, blocks)
        if page in self.questions:
            found += _rank_disagreements(page, raw, self.questions[page], results, self.lists)
            if '<section class="vs" ' in raw or '<section class="vs vs-critical"' in raw:
                found += _side_by_side_disagreements(page, raw, self.questions[page], results,
                                                     self.lists)  # fmt: skip
            found += _graded_disagreements(page, raw, shown, *self.facts[self.questions[page]])
            i, fact = self.facts[self.questions[page]]
            found += _scope_disagreements(page, raw, fact, f"inputs.questions[{i}]")
            critical = results.policy is not None and fact.id in results.policy.critical
            found += _eyebrow_disagreements(page, raw, fact, critical, f"inputs.questions[{i}]")
            found += _moves_disagreements(page, raw, fact.id, results, self.lists,
                                          self.moves.get(fact.id, []))  # fmt: skip
        elif page == "slices.html":
            found += _slice_disagreements(page, raw, results)
        elif page == "to-label.html":
            found += _to_label_disagreements(page, raw, shown, results)
        elif page == "questions.html":
            found += _question_list_disagreements(page, raw, results, self.moves)
        elif page == "gate.html":
            found += _critical_disagreements(page, raw, results)
        elif page == "methods.html":
            found += _methods_disagreements(page, raw, results)
        elif page == "documents.html":
            found += _documents_disagreements(page, raw, results)
        elif page == "evidence.html":
            found += _evidence_disagreements(page, raw, results)
        elif page == "citations.html":
            found += _citations_disagreements(page, raw, results)
        elif page == "sizing.html":
            found += _sizing_disagreements(page, raw, results)
        elif page == "ablations.html":
            found += _ablation_disagreements(page, raw, results)
        elif page == "benchmark.html" or page in self.candidates:
            found += _row_count_disagreements(page, raw, results, self.candidates.get(page))
            if page in self.candidates:
                found += _flip_list_disagreements(page, raw, results, self.candidates[page])
                i = self.candidates[page]
                found += _config_change_disagreements(page, raw, results.candidates[i].diff,
                                                      f"candidates[{i}].diff")  # fmt: skip
        elif page in self.not_run:
            j = self.not_run[page]
            found += _config_change_disagreements(page, raw, results.not_run[j].diff,
                                                  f"not_run[{j}].diff")  # fmt: skip
        if page == "benchmark.html" or _COVERAGE in blocks:
            found += _coverage_disagreements(page, shown, results)
        found += _chart_disagreements(page, raw, self.charted)
        found += _link_disagreements(page, raw, self.files)
        found += _footer_disagreements(page, raw, results)
        found += _title_disagreements(page, raw, results, self.titles.get(page))
        if page in ("index.html", "flips.html"):
            found += _page_rule_disagreements(page, raw, results)
        if since or page == "since.html":
            found += _since_disagreements(page, since, results)
        elif page == "index.html" and (self.root / "since.html").is_file():
            found.append(Disagreement(page, "(no 'Since last report' section)", "the section "
                                      "since.html details: the site compares with an earlier "
                                      "report"))  # fmt: skip
        if page == "index.html":
            found += _index_disagreements(page, shown, results, self.pages)
            found += _dataset_disagreements(page, raw, results)
            found += _lead_tile_disagreements(page, raw, results)
        else:
            found += _count_disagreements(page, shown, results, self, raw)
        return found, len(mine)


def _pages(files: frozenset[str]) -> list[str]:
    """The site's pages among its `files`: the ``.html`` files of its folder, by name."""
    return sorted(f for f in files if "/" not in f and f.endswith(".html"))


def audit(site: Path, pages: Pages | None = None) -> tuple[list[Disagreement | Finding], int, int]:
    """The disagreements of the site at `site` with its results.json and with the oracle's
    recomputation from its exports (`report.oracle`), and how many claims on how many pages
    were checked. `pages` runs the page checks (`Pages`); by default this thread reads the pages
    while the site-wide checks run on a thread of their own (the oracle's array work leaves the
    interpreter free). Raises an EvidencedeskError for a site it cannot read: a page's error
    before the site-wide checks' own, as when they ran one after the other."""
    held = _Site.of(site)
    results, claims = held.results, held.claims
    names = held.page_names

    def site_wide() -> list[Disagreement | Finding]:
        later: list[Disagreement | Finding] = [
            Disagreement(page, "(the page)", "claims for a page the site does not have")
            for page in sorted(set(claims) - set(names))
        ]
        later += _summary_disagreements(site, results)
        later += _to_label_file_disagreements(site, results)
        later += _manifest_disagreements(site, results, held.files)
        later += _question_script_disagreements(site, results, held.moves)
        later += [Disagreement(*d) for d in recheck(results)]
        return later + oracle_findings(site, results)

    if pages is None:
        beside = _Beside(site_wide)  # started before any page is read; no fork follows it
        done = [held.page(page) for page in names]
        later = beside.result()
    else:  # the pages handed out first (a fork must come before any thread), then the rest
        wait = pages(held.page, names)
        later = site_wide()
        done = wait()
    found: list[Disagreement | Finding] = []
    checked = 0
    for page_found, page_claims in done:
        found += page_found
        checked += page_claims
    return found + later, checked, len(claims)


class _Beside:
    """`work()` on a daemon thread, started at once; `result` waits for it and returns what it
    returned, or raises what it raised."""

    def __init__(self, work: Callable[[], list[Disagreement | Finding]]) -> None:
        self._work = work
        self._value: list[Disagreement | Finding] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="audit-site-wide", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:  # raised in the thread that asks for the result
            self._error = exc

    def result(self) -> list[Disagreement | Finding]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
