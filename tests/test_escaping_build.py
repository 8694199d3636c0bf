"""Escaping probes through the REAL pipeline: markup from data never becomes live markup.

A copy of ``data/`` gets markup in a document title, a chunk's text, a question, a tag, a candidate
name and rationale, a note (raw HTML, a Markdown ``javascript:`` link and a raw ``<a href=
"javascript:…">``), an external run's tag (a run file in ``runs/``, tag
``x"><script>alert(18)</script>`` — one token, which the TREC reader accepts), the run file's name
(``"><img src=x onerror=alert(19)>.run`` becomes the variant name) and a ``--run`` NAME. Every probe
carries its own number, so each location is checked to show up escaped. The site is built with the
real CLI, then every page is parsed: the only scripts are the site's own (``assets/plotly.min.js``,
``assets/sort.js`` and plotly's inline chart calls), no element has an ``on…`` attribute, no
``href``/``src`` starts with ``javascript:``. Finally headless Chromium opens the overview, the probe
candidate's page and the probe question's page: no dialog fires and no page error is raised.
"""

from __future__ import annotations

import io
import os
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evidencedesk.cli import main

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
OWN_SCRIPTS = {
    "assets/plotly.min.js",
    "assets/sort.js",
    "assets/questions.js",
    "data/question-list.js",
}
QUESTION = "pp02"  # retrieves kc-warranty's "Parts that wear" paragraph, where the chunk probe is


def probe(n: int) -> str:
    return (
        f'<script>alert({n})</script> "><img src=x onerror=alert({n})> [x](javascript:alert({n}))'
    )


# where each numbered probe goes (checked below to appear escaped somewhere in the site)
PLACES = {
    11: "document title",
    12: "chunk text",
    13: "question",
    14: "tag",
    15: "candidate name",
    16: "candidate rationale",
    17: "note",
    18: "external run tag",
    19: "external run file name",
    20: "--run NAME",
}
# a tag holds no space (the per-question CSV separates a question's tags by spaces): the same
# markup without one
TAG_PROBE = '<script>alert(14)</script>"><img/src=x/onerror=alert(14)>'
RUN_TAG = 'x"><script>alert(18)</script>'
RUN_FILE = '"><img src=x onerror=alert(19)>.run'
RUN_OPTION_NAME = "<script>alert(20)</script>"


def sub(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def plant_probes(root: Path) -> None:
    """Put every probe into the copy of the demo project at `root`."""
    warranty = root / "corpus" / "kc-warranty.md"
    sub(warranty, "title: Warranty", f"title: Warranty {probe(11)}")
    sub(warranty, "brake pads and bar tape.", f"brake pads and bar tape. {probe(12)}")
    labels = root / "labels.jsonl"
    sub(labels, "Will you replace them for free?", "Will you replace them for free? " + probe(13).replace('"', '\\"'))  # fmt: skip
    sub(labels, '"tags": ["paraphrase"]', '"tags": ["paraphrase", "' + TAG_PROBE.replace('"', '\\"') + '"]')  # fmt: skip
    toml_safe = probe(15).replace('"', '\\"')
    candidates = root / "candidates.toml"
    sub(candidates, 'name = "rerank overlap"', f'name = "rerank overlap {toml_safe}"')
    sub(candidates, 'rationale = "Reorder the hybrid top 10 by plain word overlap with the question."', 'rationale = "' + probe(16).replace('"', '\\"') + '"')  # fmt: skip
    note = root / "notes" / "rerank-feature.md"
    note.write_text(
        note.read_text(encoding="utf-8")
        + f'\n{probe(17)}\n\n<a href="javascript:alert(17)">raw link</a>\n\n'
        "[a link](javascript:alert(17)) and <img src=x onerror=alert(17)>\n",
        encoding="utf-8",
    )
    run = (root / "runs" / "bm25-title.run").read_text(encoding="utf-8")
    (root / "runs" / "probe.run").write_text(run.replace(" bm25-title\n", f" {RUN_TAG}\n"))
    (root / "runs" / RUN_FILE).write_text(run.replace(" bm25-title\n", " renamed\n"))
    # the labels changed, so the saved baseline no longer matches: build without one
    sub(root / "evidencedesk.toml", 'baseline = "baseline_retrieval.json"', "")


@dataclass
class Scan(HTMLParser):
    """Collects scripts, event-handler attributes and URL attributes of one page."""

    scripts: list[tuple[str | None, str]] = field(default_factory=list)
    handlers: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    _in_script: str | None = None
    _buffer: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.handlers += [f"<{tag} {name}>" for name, _ in attrs if name.startswith("on")]
        self.urls += [v or "" for k, v in attrs if k in ("href", "src", "action", "formaction")]
        if tag == "script":
            self._in_script, self._buffer = values.get("src") or "", []

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self._buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script or None, "".join(self._buffer)))
            self._in_script = None


def scan(html: str) -> Scan:
    parser = Scan()
    parser.feed(html)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("escaping")
    root = base / "project"
    shutil.copytree(DATA, root)
    plant_probes(root)
    out = base / "site"
    run_option = f"{RUN_OPTION_NAME}={root / 'runs' / 'bm25-title.run'}"
    argv = ["build", "--project", str(root / "evidencedesk.toml"), "--out", str(out),
            "--run", run_option]  # fmt: skip
    err = io.StringIO()  # the build command in-process: what `python -m evidencedesk.report` runs
    status = main(argv, stdout=io.StringIO(), stderr=err, prog="python -m evidencedesk.report")
    assert status == 0, err.getvalue()
    return out


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(site.glob("*.html"))}


def test_only_the_sites_own_scripts_run(pages: dict[str, str]) -> None:
    for name, html in pages.items():
        for src, body in scan(html).scripts:
            if src is not None:
                assert src in OWN_SCRIPTS, f"{name}: foreign script {src!r}"
            else:
                assert body.strip().startswith("window.PLOTLYENV"), f"{name}: {body[:80]!r}"
                assert "<script" not in body.lower() and "</script" not in body.lower(), name


def test_no_event_handlers_and_no_javascript_urls(pages: dict[str, str]) -> None:
    for name, html in pages.items():
        found = scan(html)
        assert found.handlers == [], f"{name}: {found.handlers}"
        bad = [
            u for u in found.urls if u.strip().lower().replace("\t", "").startswith("javascript:")
        ]
        assert bad == [], f"{name}: {bad}"
        for raw in ("<script>alert", "<img src=x", '<a href="javascript:'):
            assert raw not in html, f"{name}: live {raw!r}"


def test_the_scanner_sees_live_markup() -> None:
    """The checks above are not vacuous: a probe that broke out would be caught."""
    found = scan(
        '<script>window.PLOTLYENV={"a": "</script><script>alert(1)</script>'
        '<img src=x onerror=alert(1)><a href=" JavaScript:alert(1)">x</a>'
    )
    assert [body for _, body in found.scripts][-1] == "alert(1)"
    assert found.handlers == ["<img onerror>"]
    assert found.urls[-1].strip().lower().startswith("javascript:")


@pytest.mark.parametrize("number", sorted(PLACES), ids=[PLACES[n] for n in sorted(PLACES)])
def test_every_probe_is_shown_as_text(pages: dict[str, str], number: int) -> None:
    escaped = {
        f"&lt;script&gt;alert({number})&lt;/script&gt;",
        f"&lt;img src=x onerror=alert({number})&gt;",
    }
    where = [name for name, html in pages.items() if any(e in html for e in escaped)]
    assert where, f"probe {number} ({PLACES[number]}) is not shown escaped on any page"


def test_probe_pages_exist(site: Path) -> None:
    assert (site / f"question-{QUESTION}.html").is_file()
    assert len(list(site.glob("candidate-rerank-overlap-script-*.html"))) == 1


# -- in a real browser -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    missing = [] if Path(CHROMIUM).exists() else [f"chromium not found at {CHROMIUM}"]
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright Python package is not installed")
    if missing:
        if IN_CI:
            pytest.fail("CI is set but the browser test cannot run: " + "; ".join(missing))
        pytest.skip("; ".join(missing))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.mark.parametrize("which", ["index", "candidate", "question"])
def test_no_dialog_and_no_page_error_in_the_browser(browser, site: Path, which: str) -> None:  # type: ignore[no-untyped-def]
    path = {
        "index": site / "index.html",
        "candidate": next(site.glob("candidate-rerank-overlap-script-*.html")),
        "question": site / f"question-{QUESTION}.html",
    }[which]
    problems: list[str] = []
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_timeout(500)  # let plotly draw (a probe breaking out would run by now)
    for link in page.locator("a[href]").all():
        href = (link.get_attribute("href") or "").strip().lower()
        assert not href.startswith("javascript:"), href
    page.close()
    assert problems == []
