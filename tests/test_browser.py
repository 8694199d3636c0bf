"""A real browser opens the site from disk: charts render, no script errors, no dialogs.

Needs Debian's ``chromium`` and the ``playwright`` Python package (no browser download: the
system chromium is used). Skipped with a reason when either is missing, unless ``CI`` is set, in
which case a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from evidencedesk.report._render import render_site
from tests import report_fixtures as rf

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _require_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package is not installed (pip install playwright)")
    if missing:
        if IN_CI:
            pytest.fail("CI is set but the browser test cannot run: " + "; ".join(missing))
        pytest.skip("; ".join(missing))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "site"
    render_site(rf.make_model(probe=rf.XSS), out)
    return out


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _open(browser, path: Path) -> tuple[object, list[str]]:  # type: ignore[no-untyped-def]
    problems: list[str] = []
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on(
        "request",
        lambda r: problems.append(f"network: {r.url}") if not r.url.startswith("file:") else None,
    )
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_selector(".main-svg", timeout=20_000)
    page.wait_for_timeout(300)
    return page, problems


@pytest.mark.parametrize("which", ["index.html", "candidate", "flips.html", "benchmark.html"])
def test_pages_render_charts_without_errors(browser, site: Path, which: str) -> None:  # type: ignore[no-untyped-def]
    path = next(site.glob("candidate-*.html")) if which == "candidate" else site / which
    page, problems = _open(browser, path)
    charts = page.locator(".plotly-graph-div").count()
    assert charts >= 1
    assert page.locator(".main-svg").count() >= charts
    assert problems == []
    assert page.locator("script:not([src])").evaluate_all(
        "els => els.every(e => e.textContent.trim().startsWith('window.PLOTLYENV'))"
    )
    page.close()


def test_tables_sort_locally(browser, site: Path) -> None:  # type: ignore[no-untyped-def]
    page, problems = _open(browser, site / "benchmark.html")
    first = page.locator("#benchmark-table tbody th").first.inner_text()
    page.locator("#benchmark-table thead th").nth(4).click()
    page.locator("#benchmark-table thead th").nth(4).click()
    assert (
        page.locator("#benchmark-table thead th").nth(4).get_attribute("aria-sort") == "descending"
    )
    assert page.locator("#benchmark-table tbody tr").count() == 4 and first
    assert problems == []
    page.close()
