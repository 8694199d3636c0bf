"""The rendered site: every page, links and anchors, offline, escaping, determinism, slugs."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from evidencedesk import paths
from evidencedesk.cli import main
from evidencedesk.errors import EvidencedeskError
from evidencedesk.report import _render as render
from evidencedesk.report._model import PAGES, SiteModel, SitePage, ToLabelLine, ToLabelPage
from evidencedesk.report._render import _render_markdown, page_list, render_site
from evidencedesk.report._site import inside, slug
from evidencedesk.results.types import ToLabel
from tests import report_fixtures as rf
from tests.test_bad_input import snapshot

# test models have no policy, no --compare-to and no question list
OPTIONAL = ("gate.html", "since.html", "questions.html")
ALL_SECTIONS = [p.file for p in PAGES if p.nav and p.file not in OPTIONAL]


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, url)
        self.ids: set[str] = set()
        self.handlers: list[str] = []
        self.scripts: list[tuple[str | None, str]] = []
        self._script: list[str] | None = None
        self._src: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name.startswith("on"):
                self.handlers.append(f"{tag} {name}={value}")
            if name in ("href", "src", "action", "formaction", "data") and value is not None:
                self.links.append((tag, name, value))
        if tag == "script":
            self._script, self._src = [], dict(attrs).get("src")

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._src, "".join(self._script)))
            self._script = None


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text("utf-8"))
    return page


def build(out: Path, factory=rf.fixture_model, *args: str) -> int:
    return main(["build", "--out", str(out), *args], model_factory=factory, stdout=io.StringIO())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("render") / "site"
    assert build(out) == 0
    return out


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probe") / "site"
    render_site(rf.make_model(probe=rf.XSS), out)
    return out


def test_every_page_is_written(site: Path) -> None:
    model = rf.make_model()
    expected = set(ALL_SECTIONS)
    expected |= {f"candidate-{c.slug}.html" for c in model.candidates}
    expected |= {f"question-{q.slug}.html" for q in model.questions}
    expected |= {"documents.html"}  # the model lists documents: their own page, not in the nav
    assert {p.name for p in site.glob("*.html")} == expected
    manifest = json.loads((site / "manifest.json").read_text("utf-8"))
    assert set(manifest["pages"]) == expected
    assert manifest["seed"] == 0 and manifest["version"]
    assert manifest["inputs"] == [{"path": "data/labels.jsonl", "sha256": "cd" * 32}]
    assert "date" not in manifest
    for asset in ("style.css", "sort.js", "plotly.min.js"):
        assert (site / "assets" / asset).stat().st_size > 0


def check_links(site: Path) -> int:
    """Every internal href/src and #anchor resolves inside `site`, nothing is external."""
    pages = {p: parse(p) for p in site.rglob("*.html")}
    checked = 0
    for path, page in pages.items():
        for tag, attr, url in page.links:
            parts = urlsplit(url)
            assert not parts.scheme and not parts.netloc, (
                f"{path.name}: external {tag} {attr}={url}"
            )
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            assert target.is_file(), f"{path.name}: broken link {url}"
            assert site.resolve() in target.parents
            if parts.fragment:
                ids = pages[target].ids if target in pages else parse(target).ids
                assert parts.fragment in ids, f"{path.name}: missing anchor {url}"
            checked += 1
    return checked


def test_every_internal_link_and_anchor_resolves(site: Path) -> None:
    assert check_links(site) > 100


def test_nothing_loads_from_the_network(site: Path) -> None:
    for path in site.rglob("*.html"):
        text = path.read_text("utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I), path.name
        assert "@import" not in text and "cdn." not in text.lower()
    css = (site / "assets" / "style.css").read_text("utf-8")
    assert "url(" not in css and "@import" not in css


def test_every_chart_has_a_fixed_id_and_its_table(site: Path) -> None:
    text = (site / "benchmark.html").read_text("utf-8")
    ids = re.findall(r'id="(chart-[^"]+)" class="plotly-graph-div"', text)
    assert ids and all(re.fullmatch(r"chart-[a-z0-9-]+", i) for i in ids)
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-", text)  # no random uuid
    assert text.count("<figure") <= text.count("<table")


def test_text_from_data_is_escaped(probed: Path) -> None:
    pages = list(probed.rglob("*.html"))
    seen_probe = 0
    for path in pages:
        text = path.read_text("utf-8")
        assert "<script>alert" not in text and "<img" not in text.lower()
        assert "<b>raw" not in text
        assert not re.search(r"href\s*=\s*[\"']?\s*javascript:", text, re.I), path.name
        page = parse(path)
        assert page.handlers == [], (path.name, page.handlers)
        for src, body in page.scripts:
            assert src in ("assets/plotly.min.js", "assets/sort.js") or body.lstrip().startswith(
                "window.PLOTLYENV"
            ), (path.name, src, body[:80])
            assert "</" not in body and "alert(1)</" not in body
        seen_probe += text.count("&lt;script&gt;alert(1)&lt;/script&gt;")
    assert seen_probe > 20  # the probe is visible as text, everywhere it was placed
    candidate = next(p for p in pages if p.name.startswith("candidate-"))
    assert "&lt;b&gt;raw&lt;/b&gt;" in candidate.read_text("utf-8")


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        '<a href="javascript:alert(1)">x</a>',
        "<script>alert(1)</script>",
        "![x](http://example.com/pixel.png)",
    ],
)
def test_markdown_drops_unsafe_links_raw_html_and_images(source: str) -> None:
    html = str(_render_markdown(source)).lower()
    assert 'href="javascript' not in html and 'href="vbscript' not in html
    assert 'href="data:' not in html and "<script" not in html and '<a href="javascript' not in html
    assert "<img" not in html


def test_markdown_keeps_ordinary_links() -> None:
    assert '<a href="methods.html">methods</a>' in str(_render_markdown("[methods](methods.html)"))


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    assert build(tmp_path / "a") == 0
    assert build(tmp_path / "b") == 0
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_source_date_epoch_is_the_only_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert build(tmp_path / "s") == 0
    assert json.loads((tmp_path / "s" / "manifest.json").read_text("utf-8"))["date"] == "2023-11-14"
    assert "built 2023-11-14" in (tmp_path / "s" / "index.html").read_text("utf-8")


HOSTILE = ["../x", "a/b", "x\x00y", "F" * 300, "Foo", "foo"]


def test_slugs_stay_inside_the_site_and_never_collide(tmp_path: Path) -> None:
    model = rf.make_model(candidate_names=HOSTILE, question_ids=HOSTILE)
    out = tmp_path / "site"
    pages = render_site(model, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    files = [p for p in out.rglob("*") if p.is_file()]
    assert all(out.resolve() in p.resolve().parents for p in files)
    assert len([p for p in pages if p.startswith("candidate-")]) == len(HOSTILE)
    assert len([p for p in pages if p.startswith("question-")]) == len(HOSTILE)
    for name in pages:
        assert re.fullmatch(r"[a-z0-9-]+\.html", name) and len(name) <= 80, name


def test_slug_rules() -> None:
    assert slug("rc01") == "rc01"
    assert slug("Foo") != slug("foo") and slug("a/b") != slug("a-b")
    assert re.fullmatch(r"[a-z0-9-]+", slug("../../etc/passwd"))
    assert slug("") and slug("\x00") and len(slug("x" * 1000)) <= 64
    assert slug("Rerank feature") == slug("Rerank feature")  # deterministic


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", "a/../../b", "x\x00"])
def test_inside_refuses_escapes(tmp_path: Path, name: str) -> None:
    with pytest.raises(EvidencedeskError):
        inside(tmp_path, name)


def test_duplicate_names_are_refused_not_overwritten(tmp_path: Path) -> None:
    model = rf.make_model(candidate_names=["same", "same"])
    with pytest.raises(EvidencedeskError, match="share the file"):
        render_site(model, tmp_path / "site")


def test_skipped_stages_are_said_not_linked(tmp_path: Path) -> None:
    model = dataclasses.replace(rf.make_model(), sizing=None, ablations=None, citations=None,
                                evidence=None)  # fmt: skip
    pages = render_site(model, tmp_path)
    assert not {"sizing.html", "ablations.html", "citations.html", "evidence.html"} & set(pages)
    index = (tmp_path / "index.html").read_text("utf-8")
    assert "sizing.html" not in index and "Skipped stages" in index


def _omitted(n: int) -> Callable[[SiteModel], SiteModel]:
    return lambda model: dataclasses.replace(model, omitted_questions=n)


def _one_page(model: SiteModel) -> SiteModel:
    return dataclasses.replace(model, questions=model.questions[:1])


def _not_shown(n: int) -> Callable[[SiteModel], SiteModel]:
    """The first question's first list with `n` results beyond those listed."""

    def edit(model: SiteModel) -> SiteModel:
        first = model.questions[0]
        lists = (dataclasses.replace(first.lists[0], not_shown=n), *first.lists[1:])
        return dataclasses.replace(
            model, questions=(dataclasses.replace(first, lists=lists), *model.questions[1:])
        )

    return edit


def _to_label(in_file: int) -> Callable[[SiteModel], SiteModel]:
    """A to-label page that shows one row of the `in_file` its file holds."""
    first = ToLabelLine(ToLabel("rc01", "kc-x", 1, ("sparse",), 1), "How long?", "Returns")
    page = ToLabelPage("data/to-label.tsv", 10, (first,), in_file, in_file)
    return lambda model: dataclasses.replace(model, to_label=page)


# each count a page says, in its number: (the model's change, the page, the words it says)
COUNTS_IN_THEIR_NUMBER = {
    "pages left out": (_omitted(4321), "index.html", "4321 question pages were left out: "),
    "one page left out": (_omitted(1), "index.html", "1 question page was left out: "),
    "one question page": (_one_page, "index.html", "<summary>1 question page</summary>"),
    "one more result": (_not_shown(1), "question-rc01.html", '<p class="muted">1 more result not listed.</p>'),
    "more results": (_not_shown(2), "question-rc01.html", '<p class="muted">2 more results not listed.</p>'),
    "one more row": (_to_label(2), "to-label.html", "… and 1 more row in the file."),
    "more rows": (_to_label(3), "to-label.html", "… and 2 more rows in the file."),
    "one unjudged pair": (_to_label(1), "to-label.html", "1 (question, document) pair in the top 10 of the baseline or a candidate has no judgment; it counts as not relevant in every metric"),
    "unjudged pairs": (_to_label(2), "to-label.html", "2 (question, document) pairs in the top 10 of the baseline or a candidate have no judgment; they count as not relevant in every metric"),
    "the file holds it": (_to_label(1), "to-label.html", "</code></a> lists it, depth by depth"),
    "the file holds them all": (_to_label(2), "to-label.html", "</code></a> lists them all, depth by depth"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(COUNTS_IN_THEIR_NUMBER))
def test_a_count_on_a_page_is_said_in_its_number(tmp_path: Path, case: str) -> None:
    edit, page, words = COUNTS_IN_THEIR_NUMBER[case]
    render_site(edit(rf.make_model()), tmp_path)
    assert words in (tmp_path / page).read_text("utf-8")


def test_caveats_in_full_once_and_a_line_elsewhere(site: Path) -> None:
    index = (site / "index.html").read_text("utf-8")
    assert index.count("The dense searcher is a toy embedder.") == 1  # the box, in full
    assert "The rerankers are stand-ins." in index and "caveat-line" not in index
    line = ('<p class="caveat-line"><strong>Read with care:</strong> 2 caveats bear on these '
            'numbers (<a href="methods.html#caveats">each in full</a>).</p>')  # fmt: skip
    candidate = next(site.glob("candidate-*.html")).name
    for name in ["benchmark.html", "flips.html", "question-rc01.html", candidate]:
        page = (site / name).read_text("utf-8")
        assert line in page and "The dense searcher is a toy embedder." not in page, name


def test_candidate_page_leads_with_verdict_and_headline(site: Path) -> None:
    model = rf.make_model()
    for c in model.candidates:
        text = (site / f"candidate-{c.slug}.html").read_text("utf-8")
        head = text[text.index("<main") :][:1500]
        badge = c.decision.lower().replace(" ", "-")
        assert f'<h1><span class="badge badge-{badge}">' in head and c.decision in head
        # the gate's word: its line, not the badge ("GO, no lines raised", "REVIEW · 1 line")
        assert f"<dt>Gate</dt><dd>{c.gate_level}" in head
        assert c.recommendation.headline.split(":")[0] in head


def test_model_is_plain_data() -> None:
    data = rf.make_model().to_dict()
    json.dumps(data)
    assert data["candidates"][0]["gate_level"] == "GO"


def test_exit_statuses(tmp_path: Path) -> None:
    err = io.StringIO()
    assert build(tmp_path / "n") == 0
    assert build(tmp_path / "b", rf.fixture_model, "--fail-on", "block") == 1
    assert build(tmp_path / "r", rf.fixture_model, "--fail-on", "review") == 1
    rc = main(["build", "--out", str(tmp_path / "e")], model_factory=rf.failing_model,
              stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert rc == 2
    assert err.getvalue().count("\n") == 1 and err.getvalue().startswith(
        "error: data/labels.jsonl:3:"
    )
    assert not (tmp_path / "e").exists()
    err = io.StringIO()
    rc = main(["build", "--out", str(tmp_path / "c")], model_factory=rf.crashing_model,
              stdout=io.StringIO(), stderr=err)  # fmt: skip
    assert rc == 3 and "RuntimeError: boom" in err.getvalue()


def test_progress_and_summary(tmp_path: Path) -> None:
    stdout = io.StringIO()
    assert main(["build", "--out", str(tmp_path / "s")], model_factory=rf.fixture_model,
                stdout=stdout) == 0  # fmt: skip
    text = stdout.getvalue()
    for stage in ("benchmark", "sizing", "ablations", "citations", "evidence", "gate", "render"):
        assert re.search(rf"^\s+{stage}\s+\d+\.\d\d s$", text, re.M), stage
    assert re.search(r"wrote 19 pages \(\d", text)
    assert "gate BLOCK  no prefilter" in text and str(tmp_path / "s" / "index.html") in text


def test_a_page_is_one_line_of_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a page: its template and one `SitePage` line; the navigation and the renderer
    read `PAGES`, so the new page is written and listed on every page."""
    templates = tmp_path / "templates"
    shutil.copytree(paths._TEMPLATES, templates)
    (templates / "glossary.html").write_text(
        '{% extends "base.html" %}{% block main %}<h1>Glossary</h1>'
        "<p>{{ model.meta.baseline }}</p>{% endblock %}\n",
        "utf-8",
    )
    line = SitePage("glossary.html", "glossary.html", "Glossary")
    monkeypatch.setattr(render, "PAGES", (*PAGES[:-5], line, *PAGES[-5:]))
    model = rf.make_model()
    files = [f for f, _, _, _ in page_list(model)]
    assert files.index("glossary.html") == files.index("methods.html") + 1
    render_site(model, tmp_path / "site", templates)
    page = (tmp_path / "site" / "glossary.html").read_text("utf-8")
    assert "<h1>Glossary</h1><p>sparse</p>" in page
    index = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert 'href="glossary.html"' in index


def test_a_template_edited_between_builds_is_compiled_again(tmp_path: Path) -> None:
    # each build's environment reuses the templates' compiled code; an edited source must not
    (tmp_path / "page.html").write_text("first {{ 1 + 1 }}", "utf-8")
    assert render.environment(tmp_path).get_template("page.html").render() == "first 2"
    assert render.environment(tmp_path).get_template("page.html").render() == "first 2"
    (tmp_path / "page.html").write_text("second {{ 2 + 2 }}", "utf-8")
    assert render.environment(tmp_path).get_template("page.html").render() == "second 4"
    # the other folder's template of the same name is its own
    other = tmp_path / "other"
    other.mkdir()
    (other / "page.html").write_text("other", "utf-8")
    assert render.environment(other).get_template("page.html").render() == "other"
