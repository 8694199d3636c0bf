"""The reviewer's site in a real browser (headless Chromium from disk, no network): every flip
cell's text keeps a contrast of at least 4.5:1 against its shade, nothing is wider than a
390 px phone (a wide table scrolls inside its own box), the navigation is one line there, the
flips chart's labels are never clipped, and a question with 30 long passages fits in three
screens at 1400 px.

The harness and its skip rules are tests/test_browser.py's; the demo build is shared with
tests/test_site_polish.py, the runs-only example and the long-passage project with
tests/test_site_pages.py (tests/long_passages.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.long_passages import built_site
from tests.test_browser import _require_browser, browser

__all__ = ["browser"]  # the harness's module-scoped Chromium fixture, used below

SCREEN = 900  # the viewport height the page-height rule counts screens in


@pytest.fixture(scope="module")
def site_of(demo_site: Path, example_site: Callable[[str], Path]) -> Callable[[str], Path]:
    """The built site by name: "demo" and "runs-only" (the session's, tests/conftest.py) or
    "long" (tests/long_passages.py)."""
    _require_browser()
    sites = {"demo": lambda: demo_site, "runs-only": lambda: example_site("runs-only"),
             "long": lambda: built_site("long")}  # fmt: skip
    return lambda which: sites[which]()


def _open(browser, path: Path, width: int, height: int = SCREEN):  # type: ignore[no-untyped-def]
    """The page at `width`, its charts drawn; console errors and any network request recorded."""
    problems: list[str] = []
    page = browser.new_page(viewport={"width": width, "height": height})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: None if r.url.startswith("file:") else problems.append(r.url))
    page.goto(path.as_uri(), wait_until="load")
    if page.locator(".plotly-graph-div").count():
        page.wait_for_selector(".main-svg", timeout=20_000)
        page.wait_for_timeout(300)  # plotly's responsive resize
    return page, problems


# -- contrast ------------------------------------------------------------------------------------
def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: tuple[float, float, float], bg: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio of two opaque colours, 1 to 21."""
    light, dark = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize(
    ("fg", "bg", "ratio"),
    [
        ((0, 0, 0), (255, 255, 255), 21.0),
        ((255, 255, 255), (255, 255, 255), 1.0),
        ((0x77, 0x77, 0x77), (255, 255, 255), 4.48),  # the classic just-below-AA grey
        ((0x0B, 0x53, 0x94), (0x21, 0x66, 0xAC), 1.33),  # the old link blue on the dark blue
        ((255, 255, 255), (0x21, 0x66, 0xAC), 5.9),
    ],
)
def test_the_contrast_ratio_is_wcags(
    fg: tuple[int, int, int], bg: tuple[int, int, int], ratio: float
) -> None:
    assert round(contrast(fg, bg), 2) == ratio


# every element with its own text under `root`: its text, colour, the opacity it is drawn with
# and the background behind it (the nearest backgrounds up the tree, laid over white)
# a text's cell or styled span (a span without a class is the audit's mark, not a style)
COLOURS = """(root) => {
  const rgba = s => { const p = s.match(/[\\d.]+/g).map(Number); return p.length > 3 ? p : [...p, 1]; };
  const behind = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let out = [255, 255, 255];
    for (const c of layers.reverse()) out = out.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
    return out;
  };
  const out = [];
  for (const el of document.querySelectorAll(root + ", " + root + " *")) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
    const r = el.getBoundingClientRect();
    if (!own || !r.width || getComputedStyle(el).visibility === "hidden") continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    out.push({text: own, cls: (el.closest("td, th, li, span[class]") || el).className,
              fg: rgba(getComputedStyle(el).color), opacity, bg: behind(el)});
  }
  return out;
}"""


def _ratio(seen: dict[str, object]) -> float:
    fg, bg = seen["fg"], seen["bg"]
    alpha = fg[3] * seen["opacity"]  # type: ignore[index, operator]
    drawn = tuple(fg[i] * alpha + bg[i] * (1 - alpha) for i in range(3))  # type: ignore[index]
    return contrast(drawn, tuple(bg))  # type: ignore[arg-type]


@pytest.mark.parametrize("which", ["demo", "runs-only", "long"])
def test_every_flip_cell_reads_at_4_5_to_1(browser, site_of, which: str) -> None:  # type: ignore[no-untyped-def]
    page, problems = _open(browser, site_of(which) / "flips.html", 1400)
    try:
        seen = page.evaluate(COLOURS, "main")
    finally:
        page.close()
    shaded = [s for s in seen if re.search(r"\b(up|down)[123]\b", str(s["cls"]))]
    assert shaded, "no shaded cell found"
    low = [(s["text"], s["cls"], round(_ratio(s), 2)) for s in seen if _ratio(s) < 4.5]
    assert low == []
    assert problems == []


def test_the_darkest_cells_carry_their_numbers_in_white(browser, site_of) -> None:  # type: ignore[no-untyped-def]
    page, _ = _open(browser, site_of("demo") / "flips.html", 1400)
    try:
        seen = page.evaluate(COLOURS, "table.grid")
    finally:
        page.close()
    dark = {s["text"]: (tuple(s["fg"][:3]), round(_ratio(s), 2)) for s in seen
            if "up3" in str(s["cls"]) or "down3" in str(s["cls"])}  # fmt: skip
    # sp01's +0.667 under overlap and feature, st02's +1.000 under dense: the cells the old
    # page drew blue on blue (1.33:1)
    assert dark["+0.667"] == ((255, 255, 255), 5.9) and dark["+1.000"] == ((255, 255, 255), 5.9)
    assert dark["−0.500"] == ((255, 255, 255), 4.87)


# -- a 390 px phone ------------------------------------------------------------------------------
# every drawn element that reaches past the window's right edge, unless it sits in a box that
# scrolls on its own (a wide table's .table-wrap) which itself stays inside the window
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const box = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (/auto|scroll|hidden|clip/.test(getComputedStyle(a).overflowX)) return a;
    }
    return null;
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || r.right <= width + 1) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;  // e.g. in a closed details
    const own = box(el);
    if (own && own.getBoundingClientRect().right <= width + 1) continue;
    out.push(`${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""}: ${Math.round(r.right - width)} px`);
  }
  const charts = [...document.querySelectorAll(".plotly-graph-div")].map(
    d => [d.id, Math.round(d.getBoundingClientRect().width), Math.round(d.parentElement.clientWidth)]);
  // a chart's words (axis titles, ticks, bar labels) inside its drawing, none cut at its edge
  const cut = [...document.querySelectorAll(".main-svg text")].filter(t => {
    const r = t.getBoundingClientRect(), svg = t.closest("svg.main-svg").getBoundingClientRect();
    return t.textContent.trim() && r.width && (r.left < svg.left - 1 || r.right > svg.right + 1
                                               || r.top < svg.top - 1 || r.bottom > svg.bottom + 1);
  }).map(t => t.textContent);
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 8), charts, cut,
          nav: Math.round(document.querySelector(".topbar").getBoundingClientRect().height)};
}"""

PHONE_PAGES = {
    "demo": ["index.html", "candidate-rerank-overlap-b089019e.html", "question-rc02.html",
             "flips.html", "gate.html"],
    "runs-only": ["index.html", "candidate-rerank.html", "question-q14.html", "flips.html",
                  "gate.html"],
    "long": ["index.html", "question-q01.html"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("which", "name"), [(w, n) for w, names in PHONE_PAGES.items() for n in names]
)
def test_nothing_is_wider_than_a_phone(browser, site_of, which: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page, problems = _open(browser, site_of(which) / name, 390, 844)
    try:
        got = page.evaluate(OVERFLOW)
    finally:
        page.close()
    assert got["width"] == 390 and got["scroll"] <= 390, got
    assert got["out"] == [], got
    # every chart drawn at the width of its box (plotly's responsive mode), none wider
    assert all(0 < w <= box for _, w, box in got["charts"]), got["charts"]
    assert got["cut"] == [], got["cut"]
    assert got["nav"] <= 48, got  # one line: the project's name and the menu
    assert problems == []


def test_the_phone_menu_opens_every_page_without_a_script(browser, site_of) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto((site_of("demo") / "flips.html").as_uri(), wait_until="load")
        menu = page.locator(".nav-menu")
        assert menu.locator("summary").inner_text().startswith("Flips")  # the page you are on
        assert not page.locator(".nav-links a").first.is_visible()
        menu.locator("summary").click()
        links, pages = menu.locator("ul a"), page.locator(".nav-links a").count()
        assert links.count() == pages == 11  # the demo's sections: no "since last report"
        assert all(links.nth(i).is_visible() for i in range(pages))
        right = page.evaluate(
            "() => document.querySelector('.nav-menu ul').getBoundingClientRect().right"
        )
        assert right <= 390
        assert menu.locator('a[aria-current="page"]').inner_text() == "Flips"
    finally:
        context.close()


# -- the flips chart's labels --------------------------------------------------------------------
@pytest.mark.parametrize("width", [1400, 390])
def test_the_flips_bar_labels_are_never_clipped(browser, site_of, width: int) -> None:  # type: ignore[no-untyped-def]
    page, problems = _open(browser, site_of("long") / "flips.html", width)
    try:
        labels = page.evaluate(
            """() => [...document.querySelectorAll('#chart-flip-matrix text.bartext')].map(t => {
                 const r = t.getBoundingClientRect(), svg = t.closest('svg').getBoundingClientRect();
                 let clip = false;
                 for (let e = t; e && e.tagName !== 'svg'; e = e.parentElement) clip ||= e.hasAttribute('clip-path');
                 return [t.textContent, clip, r.left >= svg.left && r.right <= svg.right];
               })"""
        )
    finally:
        page.close()
    # the candidate wins 33 questions and loses 1: "+33" whole, not cut to "+3" by the axis
    assert sorted(labels) == [["+33", False, True], ["−1", False, True]]
    assert problems == []


# -- a question with 30 long passages ------------------------------------------------------------
def test_a_question_with_30_long_passages_fits_in_three_screens(browser, site_of) -> None:  # type: ignore[no-untyped-def]
    page, problems = _open(browser, site_of("long") / "question-q01.html", 1400, SCREEN)
    try:
        height = page.evaluate("() => document.documentElement.scrollHeight")
        lists = page.evaluate("() => document.querySelector('#lists').getBoundingClientRect().top")
        # a passage's whole text opens in place, with no script
        first = page.locator('table.ranked-list[data-list="base"] .ptext').first
        first.locator("summary").click()
        opened = first.locator(".full").inner_text()
        ids = page.evaluate(
            "() => [...document.querySelectorAll('#list-base code.id')].slice(0, 3)"
            ".map(c => [c.scrollWidth > c.clientWidth, c.getClientRects().length, c.title])"
        )
    finally:
        page.close()
    assert height < 3 * SCREEN, height
    assert lists < SCREEN / 2  # the ranked lists start on the first screen
    assert len(opened) > 1000 and "\n" in opened  # the whole abstract, its paragraphs kept
    # long ids are cut to one line and keep the whole id in their tooltip
    assert all(cut and lines == 1 and title.startswith("doi:10.5555/") for cut, lines, title in ids)
    assert problems == []
