"""Render a `SiteModel` into a folder of static pages (templates lay out; they compute nothing).

jinja2 with ``autoescape=True`` and ``StrictUndefined``; Markdown through markdown-it-py's
CommonMark preset with raw HTML off, images off (no page may load from the network) and the
default link validation, which drops ``javascript:``, ``vbscript:``, ``file:`` and most
``data:`` URLs. plotly.js is plotly's partial "basic" bundle (the scatter and bar traces the
charts draw; `_PLOTLY_BUNDLE`), vendored in templates/ with its licence and copied once into
``assets/``.

The site's machine-readable files: results.json (split above the page limit), the data/
exports, the list of downloads the pages link and ``manifest.json``.

Up to the page limit `_write_results` writes them after the pages; above it
`rows_in_background` hands the per-question CSV and the qrels to the render's `background` as
soon as the benchmark has fixed their rows, and `results_in_background` the rest once the
Results exist (the command line runs them in forked processes while the gate, the site model
and the pages are made: `cli.process.forked`): the same files, the same bytes.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import jinja2
import jinja2.ext
import jinja2.lexer
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from evidencedesk import paths
from evidencedesk._inert import visible
from evidencedesk.errors import EnvironmentValueError, EvidencedeskError
from evidencedesk.files._text import SHOWN_CHARS
from evidencedesk.files._writing import check_unique, write_file
from evidencedesk.report import _charts as charts
from evidencedesk.report._claims import marking, value_paths
from evidencedesk.report._exports import summary_markdown
from evidencedesk.report._model import PAGES, SiteModel, SitePage
from evidencedesk.report._questions import LIST_DATA, links_of, list_script
from evidencedesk.report._site import MANIFEST, SUMMARY, inside, slug, written_files
from evidencedesk.report._values import DELTA_STEPS, FILTERS, FLIP_STEPS
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._plan import large, over_page_limit
from evidencedesk.results._serialize import (
    PER_QUESTION,
    QUESTIONS_FILE,
    RESULTS_JSON,
    RUNS,
    TO_LABEL,
    QuestionRows,
    exported_runs,
    per_question_file,
    qrels_file,
    question_exports,
    result_exports,
    site_exports,
)
from evidencedesk.results.types import Results
from evidencedesk.retrieval._stats import TIE
from evidencedesk.version import __version__


def _large(model: SiteModel) -> bool:
    """Above the page limit (the model's plan): results.json split, the exports compressed, the
    question pages written in two processes."""
    return model.plan is not None and model.plan.large


def _write_bytes(path: Path, data: bytes) -> None:
    """One file of the site: new in the build's work folder (`evidencedesk.files._writing.write_file`
    refuses a second write to one name, say two runs with one slug)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, data, "site file")


def downloads(model: SiteModel) -> list[tuple[str, str]]:
    """(file, what) of the machine-readable outputs; none for a model without Results."""
    if model.results is None:
        return []
    results = model.results
    runs = [
        (
            f"{RUNS}/{slug(name)}.run",
            f"{_isolated(name)}: final lists of the judged questions, TREC run format",
        )
        for name in exported_runs(results)
    ]
    large = _large(model)  # the per-question part split off, the exports compressed
    gz = ", gzip-compressed" if large else ""
    moved = [
        (QUESTIONS_FILE, "the per-question part of results.json (questions, ranked lists, "
         "flipped ids), gzip-compressed; evidencedesk.load_results reads both")
    ] if large else []  # fmt: skip
    return [
        (RESULTS_JSON, "every number of this report (schema: docs/results-schema.md)"
         if not large else "every number of this report, the per-question "
         f"ones in {QUESTIONS_FILE} (schema: docs/results-schema.md)"),
        (per_question_file(results),
         f"one row per question and variant: metrics, first relevant rank, tags{gz}"),
        (qrels_file(results), f"the judgments in scope, TREC qrels format{gz}"),
        (TO_LABEL, "the unjudged pairs of the compared top lists, the most useful first, with "
         "an empty grade column: see what to label next (to-label.html)" if results.to_label
         else "empty: every result in the compared top lists is judged"),
        *moved,
        *runs,
    ]  # fmt: skip


def _write_files(out: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        _write_bytes(inside(out, name), data)


def _write_results(model: SiteModel, out: Path) -> list[str]:
    """results.json (split above the page limit) and the data/ exports of the model's Results;
    the files written."""
    if model.results is None:
        return []
    files = {**serialize.site_files(model.results), **site_exports(model.results, slug)}
    _write_files(out, files)
    return list(files)


_CLAIMS_JSON = "claims.json"  # every claim of every page, for `evidencedesk audit`


def _write_claims(model: SiteModel, out: Path) -> None:
    """claims.json: each page's claims (report.claims) as rows, pages in order, on one line
    (read by the audit, not by people: indented objects were a twentieth of the demo's weight)."""
    claims = model.claims
    if claims is None or not hasattr(claims, "to_rows"):
        return
    rows = claims.to_rows()
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
    _write_files(out, {_CLAIMS_JSON: text.encode("utf-8")})


def rows_in_background(rows: QuestionRows, out: Path, background: Launch) -> list[Job]:
    """Above the page limit, the per-question CSV and the qrels (`question_exports`) handed to
    `background` as one job (`report.build`: as soon as the benchmark stage has fixed their
    rows, so that a forked child writes them while the gate runs on one core); none up to it."""
    if not over_page_limit(len(rows.questions)):
        return []
    return [background(lambda: _write_files(out, question_exports(rows)))]


def results_in_background(results: Results, out: Path, background: Launch) -> list[Job]:
    """Above the page limit (`results._plan.large`), results.json (with its per-question file)
    and the exports that need the whole Results (`result_exports`) handed to `background` as one
    job (the command line runs it in a forked child, `report.build` as soon as the Results exist:
    it writes while the site model is made and the pages render; the per-question exports are
    `rows_in_background`'s); none up to it (then `_write_results` writes them after the pages)."""
    if not large(results):
        return []
    return [background(lambda: _write_files(out, {**serialize.site_files(results),
                                                  **result_exports(results, slug)}))]  # fmt: skip


def manifest(
    model: SiteModel, pages: list[str], date: str | None, files: list[str] | None = None
) -> str:
    """manifest.json: the marker that lets a later build replace the folder, and in ``files``
    every file the build wrote (itself included): a later build replaces only those and keeps
    any other file in the folder (docs/output-folder.md)."""
    data: dict[str, Any] = {
        "generator": "evidencedesk",  # the marker that lets a later build replace this folder
        "seed": model.meta.seed,
        "version": __version__,
        "input_hash": model.meta.input_hash,
        "inputs": [{"path": i.path, "sha256": i.sha256} for i in model.meta.inputs],
        "pages": pages,
    }
    if model.results is not None:
        data["downloads"] = [file for file, _ in downloads(model)]
    if date:
        data["date"] = date
    if files is not None:
        data["files"] = sorted({*files, MANIFEST})
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# the plotly.js the site copies into assets/ (the pages open offline): the npm package
# plotly.js-basic-dist-min 4.1.1 (trace types bar, pie and scatter: the charts draw scatter and
# bar), vendored in templates/ beside its MIT licence; docs/site.md says how to update it
_PLOTLY_BUNDLE = "plotly-basic.min.js"


# template file -> assets/ name
_ASSETS = {
    "style.css": "style.css",
    "sort.js": "sort.js",
    "questions.js": "questions.js",
    "plotly-basic.LICENSE.txt": "plotly-license.txt",
}


def markdown() -> MarkdownIt:
    """The Markdown parser of notes and recommendations: CommonMark, no raw HTML, no images."""
    md = MarkdownIt("commonmark", {"html": False})
    md.disable("image")
    return md


_MD = markdown()


def _render_markdown(text: str | None) -> Markup:
    """Markdown from data or generated text, as safe HTML (raw HTML shown as text)."""
    return Markup(_MD.render(text or ""))  # noqa: S704 - markdown-it escapes, html disabled


def _shade(signed: float, size: float, steps: tuple[float, float]) -> str:
    return ("up" if signed > 0 else "down") + str(1 + sum(size >= s for s in steps))


def delta_class(value: float | None) -> str:
    """CSS class of a signed change by its size (`DELTA_STEPS`); "d0" for none."""
    if value is None or abs(value) <= TIE:
        return "d0"
    return _shade(value, abs(value), DELTA_STEPS)


def flip_class(better: int, worse: int, tied: int = 0) -> str:
    """CSS class of a flip count by its net share of the questions compared (`FLIP_STEPS`):
    +3/−0 with 18 tied is light (14 %), however small its p; significance is the ★, not the
    shade."""
    net = better - worse
    if net == 0:
        return "d0"
    return _shade(net, abs(net) / (better + worse + tied), FLIP_STEPS)


# what can turn text around: right-to-left letters (Hebrew, Arabic, Syriac, Thaana, NKo, ...,
# their presentation forms and the astral right-to-left blocks) and the explicit bidirectional
# controls (marks, embeddings, overrides, isolates)
_BIDI = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u061c\u200f\u202a-\u202e\u2066-\u2069"
    "\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


_FSI, _PDI = "\u2068", "\u2069"  # first-strong isolate ... pop directional isolate


_INITIATORS = "\u2066\u2067\u2068"  # LRI, RLI, FSI: each opens an isolate that a PDI closes


def _balanced(text: str) -> str:
    """`text` with its own isolates balanced, so that it cannot close the isolate it is put in:
    a PDI (U+2069) that closes nothing of the text's own is dropped, and an isolate the text
    opens is closed at its end. (An embedding or override, U+202A-U+202E, ends with the
    isolate around it.)"""
    if _PDI not in text and not any(c in text for c in _INITIATORS):
        return text
    out, depth = [], 0
    for ch in text:
        if ch in _INITIATORS:
            depth += 1
        elif ch == _PDI:
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    return "".join(out) + _PDI * depth


def _isolated(name: str) -> str:
    """`name` inside the isolate characters when it could turn the words after it around (a
    name within a sentence the page shows as one string); as it is otherwise."""
    return f"{_FSI}{_balanced(name)}{_PDI}" if _BIDI.search(name) else name


# what the audit may read as a claim in a run's or a candidate's name (a decimal, a p-value, a
# flips count, a verdict word: `report.audit`'s patterns, loosely): such a name is data, marked
# as the audit's data text is (`dir="auto"`, in a bidirectional isolate as a name should be)
_READ_AS_CLAIM = re.compile(r"\d\.\d\d|\bp\s*[=<>≤≥]|\+\d+/|not proven|\blean|did not move|"
                            r"useful context|\bgrades? \d", re.IGNORECASE)  # fmt: skip
_DATA = '<bdi dir="auto">{}</bdi>'


def _data(text: Any) -> Any:
    """The ``data`` filter: text from data (a candidate's rationale, what a run's file holds,
    named after the run), marked as data when the audit could read a claim in it
    (`_READ_AS_CLAIM`); as it is otherwise (and `finalize` isolates it as any text)."""
    if isinstance(text, str) and _READ_AS_CLAIM.search(text):
        return Markup(_DATA.format(escape(_isolated(text))))  # noqa: S704 - escaped
    return text


def _attribute(text: Any) -> Markup:
    """The ``attribute`` filter: a name from data as an attribute's value (``data-list``,
    ``data-label``): escaped, and isolated by FSI … PDI when it holds a bidirectional character,
    as `finalize` isolates text; never marked ``<bdi>`` as a claim-like name is in text, which
    inside an attribute would end its quotes."""
    return Markup(escape(_isolated(str(text))))  # noqa: S704 - escaped


def _any_of(names: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern matching any of `names` as escaped HTML holds them, the longest first (a name
    inside a longer one never cuts it); None for no name."""
    escaped = sorted({re.escape(str(escape(n))) for n in names}, key=lambda e: (-len(e), e))
    return re.compile("|".join(escaped)) if escaped else None


def _isolating(
    names: tuple[str, ...],
) -> tuple[Callable[[Any], Any], Callable[[Any], Markup], Callable[[Any], Any]]:
    """The environment's `finalize`, its ``isolate`` filter and its ``in_tag`` filter: text from
    data that holds a right-to-left letter or a bidirectional control is isolated, so that it
    cannot reorder the page's own words (an override in a run name turning the number after it
    around). A plain string is wrapped in the isolate characters FSI ... PDI (valid in an
    attribute too; what ``dir="auto"`` does); in a claim's words (`report.claims.Said`: a sentence
    of ours holding names), and in a sentence a template passes through ``isolate``, each of
    `names` (the run and candidate names) holding such a character is wrapped in ``<bdi>``. Text
    without one is left as it is.

    A name the audit would read as a claim is marked ``<bdi dir="auto">`` as data, in text only:
    ``in_tag`` (which `_InTag` puts on every value printed inside a tag or in an element whose
    content is text alone, such as ``<title>``) prints such a string escaped and isolated as
    the ``attribute`` filter does, never marked (a mark there would end the attribute's quotes:
    a candidate named "lean" has the slug "lean", and its page's file name in an ``href`` is
    the same string); in a claim's words a name is marked where it stands as a word of the
    text, never inside a tag (the claim's own ``data-claim`` attribute names the page, which
    may hold the name) nor inside a longer word or number ("leans", "+3/−1")."""
    bidi = _any_of(n for n in names if _BIDI.search(n))
    # a tag of the HTML, skipped, or one of the names holding a bidirectional character
    inside = None if bidi is None else re.compile(rf"(<[^>]*>)|(?:{bidi.pattern})")
    # names the audit would read as a claim ("hybrid 0.75"): marked as data wherever they stand
    data = {n for n in names if _READ_AS_CLAIM.search(n)}
    data_inside = _any_of(data)
    # a tag of the claim's HTML, skipped, or one of the names standing as a word of its text: not
    # inside a longer word or number ("leans", "+3/−1", "1.234"), a full stop after it allowed
    in_text = (
        None
        if data_inside is None
        else re.compile(rf"(<[^>]*>)|(?<![\w.+\-−/])(?:{data_inside.pattern})(?![\w+\-−/]|\.\w)")
    )

    def names_isolated(html: str) -> Markup:
        if in_text is not None:
            html = in_text.sub(lambda m: m[1] or _DATA.format(m.group()), html)
        if inside is None or not _BIDI.search(html):
            return Markup(html)  # noqa: S704 - escaped by its maker
        return Markup(inside.sub(lambda m: m[1] or f"<bdi>{_balanced(m.group())}</bdi>", html))  # noqa: S704

    def finalize(value: Any) -> Any:
        if type(value) is str:  # (every character `_BIDI` finds is outside ASCII)
            if value in data:
                return _data(value)
            if value.isascii() or not _BIDI.search(value):
                return value
            return Markup(escape(_isolated(value)))
        if isinstance(value, str) and hasattr(value, "__html__") and not isinstance(value, Markup):
            return names_isolated(value.__html__())  # a claim's words
        return value

    def isolate(value: Any) -> Markup:
        """A sentence of ours holding names, for text (never an attribute)."""
        return names_isolated(str(escape(value)))

    def in_tag(value: Any) -> Any:
        """A value printed inside a tag or a text-only element (`_InTag`): a name `finalize`
        would mark as data escaped and isolated instead (`_attribute`); anything else as it
        is, for `finalize`."""
        if type(value) is str and value in data:
            return _attribute(value)
        return value

    return finalize, isolate, in_tag


# elements whose content is text alone (no element in them: a mark would be shown as text, or
# break the script)
_TEXT_ONLY = frozenset({"title", "textarea", "script", "style"})


class _Where:
    """Where a template's text has left the page: in text, inside a tag (and in which quotes),
    in a comment, or in the content of a text-only element (`_TEXT_ONLY`). Read as the template's
    text comes, in pieces between its tags."""

    def __init__(self) -> None:
        self.state = "text"  # "text", "tag", "comment" or "raw"
        self.name = ""  # the tag's name, as far as read (lower case)
        self.naming = False  # the tag's name is being read
        self.closing = False  # an end tag
        self.quote = ""  # the open quote of an attribute's value, inside a tag
        self.raw = ""  # the text-only element open ("raw")
        self.seen = ""  # the last characters read (a "<", "</title" or "--" across pieces)

    @property
    def in_tag(self) -> bool:
        """A value printed here is not in text that may hold markup."""
        return self.state != "text"

    def read(self, text: str) -> None:
        for ch in text:
            self._step(ch)
            self.seen = (self.seen + ch)[-12:]

    def _step(self, ch: str) -> None:
        state = self.state
        if state == "text":
            if self.seen.endswith("<") and (ch.isalpha() or ch in "/!"):
                self.state, self.quote, self.closing = "tag", "", ch == "/"
                self.name, self.naming = (ch.lower(), True) if ch.isalpha() else ("", ch == "/")
        elif state == "tag":
            if self.seen.endswith("<!") and ch == "-":
                self.state = "comment"
                return
            if self.naming:
                if ch.isalnum() or (ch == "-" and self.name):
                    self.name += ch.lower()
                    return
                self.naming = False
            if self.quote:
                self.quote = "" if ch == self.quote else self.quote
            elif ch in "\"'":
                self.quote = ch
            elif ch == ">":
                opens = not self.closing and self.name in _TEXT_ONLY
                self.state, self.raw = ("raw", self.name) if opens else ("text", "")
        elif state == "comment":
            if ch == ">" and self.seen.endswith("--"):
                self.state = "text"
        elif (self.seen + ch).lower().endswith(f"</{self.raw}"):  # "raw": its end tag begins
            self.state, self.name, self.naming, self.closing = "tag", self.raw, False, True


class _InTag(jinja2.ext.Extension):
    """Every ``{{ … }}`` a template prints inside a tag (an attribute's value, as
    ``href="candidate-{{ c.slug }}.html"``), in a comment or in a text-only element
    (``<title>``) is printed through the ``in_tag`` filter (`_isolating`): there a value from
    data is text, never markup, whatever the template forgot to say of it."""

    def filter_stream(self, stream: jinja2.lexer.TokenStream) -> Iterator[jinja2.lexer.Token]:
        where = _Where()
        tokens = iter(stream)
        for token in tokens:
            if token.type == "data":
                where.read(token.value)
            elif token.type == "variable_begin" and where.in_tag:
                yield token
                yield jinja2.lexer.Token(token.lineno, "lparen", "(")
                for inner in tokens:
                    if inner.type == "variable_end":
                        yield jinja2.lexer.Token(inner.lineno, "rparen", ")")
                        yield jinja2.lexer.Token(inner.lineno, "pipe", "|")
                        yield jinja2.lexer.Token(inner.lineno, "name", "in_tag")
                        yield inner
                        break
                    yield inner
                continue
            yield token


def _shown_id(text: str) -> str:
    """An id as a page shows it: its invisible characters visible (``q001⟨U+200B⟩``; an ASCII
    id holds none)."""
    return text if text.isascii() else visible(text)


class _CompiledTemplates(jinja2.BytecodeCache):
    """Each template's compiled code, kept for the process: every build makes its own
    environment (its filters hold that build's names and values), and compiling the templates
    again cost each build about 0.3 s. jinja2 keys a template by its file and checks its source's
    checksum, so an edited template is compiled afresh.

    The code is the same whatever the environment's names and values (its filters are found by
    name, and no template hands a constant to one), so it can be compiled ahead (`compile_ahead`):
    the first template looked up then waits for that job and takes its code."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}  # by jinja2's key of the template
        self.ahead: list[Job] = []  # jobs compiling every template, their code not yet taken

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        while self.ahead:
            try:
                code = self.ahead.pop().wait()
            except Exception:  # noqa: S112 - the render compiles the template itself, and fails
                continue  # there with the template's own error if it has one
            if isinstance(code, dict):  # (run at once, the job filled this cache: no value)
                self.code.update(code)
        code = self.code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


def compile_ahead(background: Launch, templates: Path | None = None) -> Job:
    """Compile every template in `background` for this process's renders (the command line
    forks a child for it while a build reads its inputs, on a core the reading leaves idle at
    first); returns the job, to stop if the build ends before it renders."""

    def compile_all() -> dict[str, bytes]:
        env = environment(templates)
        for name in env.list_templates(extensions=("html",)):
            env.get_template(name)
        return _COMPILED.code  # (a child's own copy, handed back whole)

    job = background(compile_all)
    _COMPILED.ahead.append(job)
    return job


def environment(
    templates: Path | None = None, names: tuple[str, ...] = (), values: Any = None
) -> jinja2.Environment:
    """The site's jinja2 environment: autoescaped, strict on undefined names, with its filters;
    text from data isolated (`_isolating`, `names`: the run and candidate names); a number of
    `values` (the Results) the filters print marks its results.json path (`report.claims`)."""
    folder = paths._require(templates or paths._TEMPLATES, "the report templates")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_COMPILED,
        extensions=[_InTag],
    )
    env.finalize, env.filters["isolate"], env.filters["in_tag"] = _isolating(names)
    env.filters["data"] = _data  # the team's words (a rationale): never read as a claim
    env.filters["attribute"] = _attribute  # a name inside an attribute's quotes
    env.filters.update(FILTERS)  # the one place a number becomes the page's text ...
    # ... and says which of the Results' values it is (report.claims)
    table: dict[str, int] = {}  # each path's number, for the marks (report.claims.value_paths)
    paths_of = {} if values is None else value_paths(values, table)
    env.filters.update(marking(FILTERS, paths_of, values, table))
    finalize, claimed = env.finalize, env.filters["claimed"]  # plain text isolated first
    env.filters["claimed"] = jinja2.pass_context(
        lambda context, text: claimed(context, finalize(text) if type(text) is str else text)
    )
    env.filters["shown_id"] = _shown_id
    env.filters["md"] = _render_markdown
    # a claim's words without its mark (report.claims.Said), for attributes
    env.filters["plain"] = str
    env.filters["delta_class"] = delta_class
    env.globals["flip_class"] = flip_class
    return env


_MAX_EPOCH = 253402300799  # 9999-12-31 23:59:59 UTC: the last date "%Y-%m-%d" writes in 4 digits


def build_date() -> str | None:
    """The build date only when SOURCE_DATE_EPOCH is set (reproducible builds); else none.

    A value that is not whole seconds from 0 to `_MAX_EPOCH` is one `EnvironmentValueError`
    (the CLI checks it before any work)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return None
    digits = epoch  # ASCII digits alone, as the reproducible-builds specification asks
    if not (digits.isascii() and digits.isdigit() and len(digits) <= len(str(_MAX_EPOCH))
            and int(digits) <= _MAX_EPOCH):  # fmt: skip
        shown = epoch if len(epoch) <= SHOWN_CHARS else f"{epoch[:SHOWN_CHARS]}…"
        raise EnvironmentValueError(
            "SOURCE_DATE_EPOCH",
            f"expected whole seconds since 1970 from 0 to {_MAX_EPOCH} (the year 9999), "
            f"found {shown!r}",
        )
    return time.strftime("%Y-%m-%d", time.gmtime(int(digits)))


def _write_page(path: Path, text: str) -> None:
    _write_bytes(path, text.encode("utf-8"))


Page = tuple[str, str, str, dict[str, Any]]  # file, template, title, extra context


DOCUMENTS_SHOWN = 1000  # rows of the documents page (a 5,000-document corpus lists its first)
# pairs of the evidence page's held-back table (a corpus of near-identical texts holds thousands:
# the page lists its first, results.json every one)
_HELD_BACK_SHOWN = 100


def _pages_of(model: SiteModel, page: SitePage) -> list[Page]:
    """The files `page` (a line of `PAGES`) writes for `model`: none when what it shows is None
    or empty, one per item for a page per item."""
    shown: Any = getattr(model, page.shows) if page.shows else model
    if shown is None or (isinstance(shown, tuple) and not shown):
        return []
    if not page.each:
        return [(page.file, page.template, page.title, {})]
    return [(page.file.format(x.slug), page.template, x.name, {page.each: x}) for x in shown]


def page_list(model: SiteModel) -> list[Page]:
    """Every page, in the order of `PAGES`, checked for file-name collisions."""
    _check_anchors(model)
    pages = [p for page in PAGES for p in _pages_of(model, page)]
    seen: set[str] = set()
    for file, _, title, _ in pages:
        if file in seen:
            raise EvidencedeskError(
                f"two pages would share the file {file!r} (duplicate {title!r})"
            )
        seen.add(file)
    return pages


def _check_anchors(model: SiteModel) -> None:
    """Names that become anchors and file names (``#v-…``, ``#q-…``, ``#case-…``, data/runs/…)
    are unique by their slug within their kind, also where no page is made for them."""
    check_unique([v.name for v in model.variants], slug, "variants")
    check_unique([c.name for c in model.candidates], slug, "candidates")
    grid = model.flip_matrix.grid
    questions = dict.fromkeys([*(q.id for q in model.questions), *(r.question for r in grid)])
    check_unique(questions, slug, "question ids")
    if model.citations is not None:
        check_unique(dict.fromkeys(c.id for c in model.citations.cases), slug, "citation cases")


def _charts(model: SiteModel) -> dict[str, Any]:
    names = [s.name for s in model.variants[0].metrics] if model.variants else []
    # the index charts the primary metric (the one flips and verdicts are decided on)
    primary = model.meta.primary
    headline = names.index(primary) if primary in names else 0
    cand_names = [m.label for m in model.candidates[0].metrics] if model.candidates else []
    out: dict[str, Any] = {
        "headline": charts.interval_chart(model.variants, headline, "index-intervals"),
        "headline_label": names[headline] if names else "",
        "intervals": [
            charts.interval_chart(model.variants, i, f"intervals-{i}") for i in range(len(names))
        ],
        "forest": [
            charts.forest_chart(model.candidates, i, f"forest-{i}") for i in range(len(cand_names))
        ],
        "flips": charts.flip_bars(model.flip_matrix, "flip-matrix"),
        "candidate": {
            c.slug: charts.metric_forest(c, f"candidate-{c.slug}") for c in model.candidates
        },
    }
    if model.sizing is not None:
        out["sizing"] = charts.sizing_chart(model.sizing, "sizing")
    if model.ablations is not None:
        out["ablations"] = charts.ablation_chart(model.ablations, "ablations")
    return out


class Job(Protocol):
    """A job started by a `Launch`: `wait()` for it (raising what it raised), `stop()` it."""

    def wait(self) -> object: ...

    def stop(self) -> None: ...


# runs a job (writing the pages, a chart) and returns it to wait for: now, or in the background
Launch = Callable[[Callable[[], object]], Job]


class _Numbers:
    """The numbers 0 to n - 1 in a pipe, for processes that share it after a fork: each `take`
    reads the next number until none is left, and each number is read once (a pipe's read of a
    few bytes takes them whole, under the pipe's lock)."""

    _SIZE = 4  # bytes a number
    _MOST = 4096  # numbers written before anyone reads (16 KB: a Linux or macOS pipe holds it)

    def __init__(self, n: int) -> None:
        if n > self._MOST:
            raise ValueError(f"expected at most {self._MOST} numbers, found {n}")
        self._read, write = os.pipe()
        try:
            data = b"".join(k.to_bytes(self._SIZE, "little") for k in range(n))
            while data:
                data = data[os.write(write, data) :]
        finally:
            os.close(write)

    def take(self, job: Callable[[int], object]) -> list[int]:
        """Run `job` on each next number until none is left; the numbers this process took."""
        taken = []
        while data := os.read(self._read, self._SIZE):
            if len(data) != self._SIZE:  # (never: the pipe holds whole numbers only)
                raise EvidencedeskError(f"expected {self._SIZE} bytes of a page's number, "
                                        f"found {len(data)}")  # fmt: skip
            number = int.from_bytes(data, "little")
            job(number)
            taken.append(number)
        return taken

    def close(self) -> None:
        os.close(self._read)


class _Done:
    def wait(self) -> None:
        return None

    def stop(self) -> None:
        return None


def at_once(job: Callable[[], object]) -> Job:
    """The library's `Launch`: the job runs now, in this process (the command line passes
    `cli.process.forked` instead)."""
    job()
    return _Done()


def render_site(
    model: SiteModel,
    out: Path,
    templates: Path | None = None,
    on_page: Callable[[str], None] | None = None,
    background: Launch = at_once,
    started: Sequence[Job] | None = None,
) -> list[str]:
    """Write every page, the assets, results.json with its data/ exports (when the model has
    Results) and ``manifest.json`` into `out`; return the page files. Above the page limit
    results.json and the data/ exports are handed to `background`, and the question pages are
    shared with it, while the rest is written (the same files, the same bytes, whichever
    `Launch` runs them);
    `started`: the jobs of `rows_in_background` and `results_in_background` the caller started
    already for the model's Results (it waits for them, and stops them if the pages fail)."""
    names = (*(v.name for v in model.variants), *(c.name for c in model.candidates),
             *(c.name for c in model.not_run), model.meta.baseline)  # fmt: skip
    env = environment(templates, names, model.results)
    pages = page_list(model)
    results = model.results
    if started is None:
        started = [] if results is None else [
            *rows_in_background(QuestionRows.of(results), out, background),
            *results_in_background(results, out, background),
        ]  # fmt: skip
    try:
        files = _write_pages(model, out, templates, on_page, env, pages, background)
        if not started:
            _write_results(model, out)
        _write_claims(model, out)
        _write_page(inside(out, SUMMARY), summary_markdown(model))
        for job in started:
            job.wait()
    except BaseException:
        for job in started:
            job.stop()
        raise
    written = written_files(out)  # everything but the manifest, which lists them
    _write_page(inside(out, MANIFEST), manifest(model, files, build_date(), written))
    return files


def _write_pages(
    model: SiteModel,
    out: Path,
    templates: Path | None,
    on_page: Callable[[str], None] | None,
    env: jinja2.Environment,
    pages: list[Page],
    background: Launch,
) -> list[str]:
    links = links_of(model.questions, model.question_list is not None)
    listed = {p.file for p in PAGES if p.nav}
    nav = [(f, t) for f, _, t, _ in pages if f in listed]
    date = build_date()
    common = {
        "model": model,
        "meta": model.meta,
        "documents_shown": model.documents[:DOCUMENTS_SHOWN],
        "held_back_shown": model.evidence.held_back[:_HELD_BACK_SHOWN] if model.evidence else (),
        "nav": nav,
        "charts": _charts(model),
        "qhref": links.href,  # qhref(qid, variant=..., candidate=...): see report.questions
        "qhref_to": links.to,
        "vslug": slug,
        "build_date": date,
        "version": __version__,
        "downloads": downloads(model),
        "per_question_file": PER_QUESTION
        if model.results is None
        else per_question_file(model.results),
    }

    def write(some: list[Page], report: bool) -> None:
        for file, template, title, extra in some:
            context = dict(common, page=file, title=title, **extra)
            _write_page(inside(out, file), env.get_template(template).render(context))
            if report and on_page is not None:
                on_page(file)

    # above the page limit the question pages are shared with `background`: each process
    # takes the next one until none is left, so both end together (handed every other page,
    # the child of a 10,000-question build ended 0.4 s after the parent, which writes the
    # other pages too)
    large = model.results is not None and _large(model)
    questions = [i for i, p in enumerate(pages) if p[1] == "question.html"]
    shared = questions if large and background is not at_once else []
    if shared:  # one of them rendered here and dropped: the templates a question page reads
        # are compiled once, before the fork, instead of in the child again (50 ms)
        file, template, title, extra = pages[shared[0]]
        env.get_template(template).render(dict(common, page=file, title=title, **extra))
    queue = _Numbers(len(shared)) if shared else None
    handed = set(shared)
    own = [p for i, p in enumerate(pages) if i not in handed]
    mine: list[int] = []
    try:
        child = (
            background(lambda: queue.take(lambda k: write([pages[shared[k]]], False)))
            if queue
            else None
        )
        try:
            write(own, True)
            if queue is not None:
                mine = queue.take(lambda k: write([pages[shared[k]]], True))
            if child is not None:
                child.wait()
        except BaseException:
            if child is not None:
                child.stop()
            raise
    finally:
        if queue is not None:
            queue.close()
    taken = set(mine)
    for k in range(len(shared)):  # the child's pages, said once it is done
        if k not in taken and on_page is not None:
            on_page(pages[shared[k]][0])
    folder = paths._require(templates or paths._TEMPLATES, "the report templates")
    for source, name in _ASSETS.items():
        _write_page(inside(out, f"assets/{name}"), (folder / source).read_text("utf-8"))
    plotly_js = paths._require(folder / _PLOTLY_BUNDLE, "the plotly.js bundle").read_bytes()
    _write_bytes(inside(out, "assets/plotly.min.js"), plotly_js)
    files = [f for f, _, _, _ in pages]
    if model.question_list is not None:
        names = [c.name for c in model.candidates]
        _write_page(inside(out, LIST_DATA), list_script(model.question_list, names))
    return files
