"""The question list and the side-by-side diff in a real browser (the demo site, from disk).

Uses the headless-Chromium harness of tests/test_browser.py (skipped with its reason when the
browser is missing). These pages have no chart, so they are opened here without `_open` (which waits for one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._site import slug
from evidencedesk.results.types import Results
from tests.synthetic_runs import write_project
from tests.test_browser import _require_browser, browser

__all__ = ["browser"]  # the harness's module-scoped Chromium fixture, used below


@pytest.fixture(scope="module")
def demo(demo_results: Results, demo_site: Path) -> tuple[Results, Path]:
    """The session's demo build (tests/conftest.py): its Results and its site."""
    _require_browser()
    return demo_results, demo_site


def _open_plain(browser, url: str, width: int = 1400, script: bool = True):  # type: ignore[no-untyped-def]
    """A page with no chart: opened, its errors and network requests collected."""
    problems: list[str] = []
    context = browser.new_context(
        viewport={"width": width, "height": 900}, java_script_enabled=script
    )
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: None if r.url.startswith("file:") else problems.append(r.url))
    page.goto(url, wait_until="load")
    return page, problems


def _ids(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator("#question-list tbody th").all_inner_texts()


def test_typing_filters_the_question_list(browser, demo: tuple[Results, Path]) -> None:  # type: ignore[no-untyped-def]
    _, out = demo
    page, problems = _open_plain(browser, (out / "questions.html").as_uri())
    assert len(_ids(page)) == 24
    page.locator("#question-filter").fill("rc0")
    assert _ids(page) == ["rc01", "rc02"]
    page.locator("#question-filter").fill("critical worse")
    assert _ids(page) == ["rc02"]
    assert page.locator("#question-status").inner_text() == "1 of 24 questions"
    page.locator("#question-filter").fill("fail")
    assert _ids(page) == ["st02", "st03", "rs02", "pp02"]  # failing in the baseline
    page.locator("#question-filter").fill("")
    page.locator("#question-list thead th").first.click()  # sort by id, ascending
    assert _ids(page)[:3] == ["bn01", "bn02", "bn03"]
    page.locator("#question-list thead th").first.click()
    assert _ids(page)[0] == "un03"
    assert page.locator("#question-list thead th").first.get_attribute("aria-sort") == "descending"
    row = page.locator("#question-list tbody tr", has_text="rc02")
    link = row.locator("a", has_text="depth 3")
    assert link.get_attribute("href") == f"question-rc02.html#vs-{slug('depth 3')}"
    assert problems == []
    page.close()


def test_a_link_to_the_list_opens_it_filtered(browser, demo: tuple[Results, Path]) -> None:  # type: ignore[no-untyped-def]
    _, out = demo
    page, problems = _open_plain(browser, (out / "questions.html").as_uri() + "#q=st02")
    assert _ids(page) == ["st02"]
    assert page.locator("#question-filter").input_value() == "st02"
    assert problems == []
    page.close()


def test_without_javascript_the_list_still_reads(browser, demo: tuple[Results, Path]) -> None:  # type: ignore[no-untyped-def]
    _, out = demo
    page, _ = _open_plain(browser, (out / "questions.html").as_uri(), script=False)
    assert len(_ids(page)) == 24
    assert not page.locator("#question-search").is_visible()  # no box that cannot work
    page.close()


@pytest.mark.parametrize("width", [1400, 390])
def test_the_side_by_side_diff_shows_the_candidate(
    browser, demo: tuple[Results, Path], width: int
) -> None:  # type: ignore[no-untyped-def]
    results, out = demo
    name = "dense first stage"
    anchor = f"vs-{slug(name)}"
    page, problems = _open_plain(
        browser, (out / "question-rc02.html").as_uri() + f"#{anchor}", width
    )
    section = page.locator(f"#{anchor}")
    assert section.is_visible()
    assert section.locator("h3").inner_text().startswith(f"{name} ▼ worse on MRR")
    # the same run as the variant dense: its rows are dense's list, once, which the section links
    assert section.locator("a", has_text="above").get_attribute("href") == "#list-dense"
    assert section.locator(".vs-list").count() == 0
    section.locator("a", has_text="above").click()
    listed = page.locator("table.moves[data-list='dense']").first
    # the browser opens the closed <details> holding the fragment's target when it scrolls to it,
    # after the click returns: wait for it (a timeout fails the test), then check it
    listed.wait_for(state="visible", timeout=5000)
    assert listed.is_visible()  # the link opened dense's list
    want = list(next(r for r in results.variant("dense").lists if r.question == "rc02").ids)
    shown = page.locator("table[data-list='dense'] tbody tr:not(.move-dropped)")
    assert [shown.nth(i).get_attribute("data-chunk") for i in range(shown.count())] == want
    dropped = page.locator("table[data-list='dense'] tr.move-dropped")
    assert dropped.get_attribute("data-chunk") == "kc-recall-rd2-24:c2"
    assert [c.strip() for c in listed.locator("tbody td:nth-child(2)").all_inner_texts()] == [
        "= same rank", "▲ up 1", "+ new"
    ]  # fmt: skip
    # chunk ids stay whole: one line each, however narrow the page
    heights = listed.locator("td code").evaluate_all(
        "els => els.map(e => e.getClientRects().length)"
    )
    assert heights and set(heights) == {1}
    assert problems == []
    page.close()


def test_the_script_draws_the_columns_the_page_shows(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A project without tags or critical questions: the script's rows have the page's four
    columns (no empty Tags or Critical cell), and a header sorts by its own column."""
    _require_browser()
    qrels = {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 1}}
    lists = {"q1": ["d1"], "q2": ["x", "d2"], "q3": ["d3"]}
    project = write_project(tmp_path / "p", qrels, {"base": lists, "cand": lists})
    evidencedesk.build(project=project, out=tmp_path / "site")
    page, problems = _open_plain(browser, (tmp_path / "site" / "questions.html").as_uri())
    page.locator("#question-filter").fill("q")  # the script redraws every row
    cells = page.locator("#question-list tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.textContent.trim()))"
    )
    assert cells == [["q1", "question q1", "", "pass"], ["q2", "question q2", "", "pass"],
                     ["q3", "question q3", "", "—"]]  # fmt: skip
    page.locator("#question-list thead th", has_text="Pass").click()  # q3 (—) sorts first
    assert _ids(page) == ["q3", "q1", "q2"]
    assert problems == []
    page.close()
