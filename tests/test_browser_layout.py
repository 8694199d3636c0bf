"""The layout holds on a laptop (1400 px), a phone (390 px) and paper, in a real browser.

No page scrolls sideways: the document is no wider than the window, and no table or chart box
reaches past the body (a wide table scrolls inside its own box). A candidate page printed to PDF
keeps every table column: each header's text is in the PDF. The headless-Chromium harness, its
skip rules and the demo build are shared (tests/test_browser.py, tests/test_site_polish.py).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from tests.test_browser import _open, _require_browser, browser  # noqa: F401 - the fixture

PAGES = ["index.html", "candidate-rerank-feature-50853d0e.html", "flips.html", "question-rc02.html"]

# every table, table box and chart box: how far it reaches past the body's right edge (px)
OVERFLOW = """() => {
  const body = document.body.getBoundingClientRect();
  const out = [];
  for (const el of document.querySelectorAll("table, .table-wrap, figure.chart, .chart-body")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || el.closest(".table-wrap") && el.tagName === "TABLE") continue;
    if (r.right > body.right + 1) out.push(`${el.tagName}.${el.className}: ${Math.round(r.right - body.right)} px`);
  }
  return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, out};
}"""


@pytest.fixture(scope="module")
def site(demo_site: Path) -> Path:
    _require_browser()
    return demo_site


def _page(browser, path: Path, width: int):  # type: ignore[no-untyped-def]  # noqa: F811
    """The page at `width`: through the shared harness where it has charts (it waits for them
    and records console errors and network requests), plainly where it has none."""
    if "question-" in path.name:
        page, problems = browser.new_page(viewport={"width": width, "height": 900}), []
        page.goto(path.as_uri(), wait_until="load")
    else:
        page, problems = _open(browser, path)
        page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(400)  # plotly's responsive resize
    return page, problems


DISPLAY = """() => [getComputedStyle(document.querySelector('.flip-list')).display,
  getComputedStyle(document.querySelector('table.matrix').closest('.table-wrap')).display]"""


@pytest.fixture(scope="module")
def seen(browser, site: Path) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]  # noqa: F811
    """Each page opened once (the browser is the slow part), measured at 1400 px and at 390 px."""
    out: dict[str, dict[str, object]] = {}
    for name in PAGES:
        page, problems = _page(browser, site / name, 1400)
        try:
            got: dict[str, object] = {"problems": problems, 1400: page.evaluate(OVERFLOW)}
            if name == "flips.html":
                got["display", 1400] = page.evaluate(DISPLAY)
            page.set_viewport_size({"width": 390, "height": 900})
            page.wait_for_timeout(400)
            got[390] = page.evaluate(OVERFLOW)
            if name == "flips.html":
                got["display", 390] = page.evaluate(DISPLAY)
            if name.startswith("candidate-"):
                got["print"] = _print(page, site.parent / "candidate.pdf")
        finally:
            page.close()
        out[name] = got
    return out


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize("name", PAGES)
def test_no_horizontal_overflow(seen, name: str, width: int) -> None:  # type: ignore[no-untyped-def]
    got = seen[name][width]
    assert seen[name]["problems"] == []
    assert got["inner"] == width
    assert got["scroll"] <= width, got
    assert got["out"] == [], got


def test_flip_matrix_is_a_list_on_a_phone_and_a_triangle_on_a_laptop(seen) -> None:  # type: ignore[no-untyped-def]
    assert seen["flips.html"]["display", 390] == ["block", "none"]
    assert seen["flips.html"]["display", 1400] == ["none", "block"]


def _squash(text: str) -> str:
    """Text without spaces or line breaks, ligatures ("ﬀ") spelled out as letters."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _print(page, pdf: Path) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Header texts on screen, tables wider than their box in print media, and the PDF's text."""
    page.set_viewport_size({"width": 1400, "height": 900})
    headers = page.evaluate(
        "() => [...document.querySelectorAll('main table th[scope=col]')]"
        ".map(th => th.textContent.trim())"
    )
    page.emulate_media(media="print")
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('main table')].filter(t => {
             const box = t.parentElement.getBoundingClientRect();
             return t.getBoundingClientRect().right > box.right + 1;
           }).map(t => t.querySelector('th').textContent)"""
    )
    margin = {"top": "12mm", "bottom": "12mm", "left": "12mm", "right": "12mm"}
    page.pdf(path=str(pdf), format="A4", margin=margin)
    return {"headers": headers, "clipped": clipped, "pdf": pdf}


def test_a_printed_candidate_page_keeps_every_column(seen) -> None:  # type: ignore[no-untyped-def]
    pypdf = pytest.importorskip("pypdf", reason="pypdf reads the printed PDF's text")
    got = seen[PAGES[1]]["print"]
    headers = got["headers"]
    assert got["clipped"] == []
    assert len(headers) >= 20 and "Paired 95 % interval" in headers
    reader = pypdf.PdfReader(str(got["pdf"]))
    text = _squash(" ".join(p.extract_text() for p in reader.pages))
    missing = [h for h in headers if _squash(h) not in text]
    assert missing == []


def test_with_javascript_off_a_chart_box_gives_way_to_its_sentence(browser, site: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1400, "height": 900}
    )
    try:
        page = context.new_page()
        page.goto((site / "sizing.html").as_uri(), wait_until="load")
        got = page.evaluate(
            """() => [getComputedStyle(document.querySelector('.chart-body')).display,
                      document.querySelector('.chart-fallback').getBoundingClientRect().height > 0,
                      document.querySelector('.chart-fallback').textContent]"""
        )
    finally:
        context.close()
    assert got == [
        "none",
        True,
        "This chart needs JavaScript, which is off; the same numbers are in the table below.",
    ]
