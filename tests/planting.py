"""Planting a lie in a copy of a built site, for the audit's tests: a page's text replaced once,
and a value mark written by its readable path turned into the mark the site writes."""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from evidencedesk.report._audit import PageResult, Pages
from evidencedesk.report._claims import mark_number, mark_table
from evidencedesk.results._serialize import load

# what audit says of a sentence no claim backs
NOBODY = "results.json says nothing: no claim backs this sentence"


def planted(site: Path, tmp_path: Path, page: str, old: str, new: str) -> Path:
    """A copy of `site` whose `page` says `new` where it said `old` (once)."""
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    text = (copy / page).read_text("utf-8")
    assert old in text, f"{old!r} is not on {page}"
    (copy / page).write_text(text.replace(old, new, 1), "utf-8")
    return copy


def on_the_page(page: str) -> Pages:
    """`audit`'s `pages` that reads `page` alone (a plant's page): the site-wide checks run as
    ever, and the other pages of a large site, most of a plant test's time, are held to their
    results by its clean audit elsewhere."""

    def pages(
        job: Callable[[str], PageResult], listed: list[str]
    ) -> Callable[[], list[PageResult]]:
        assert page in listed, f"{page} is not one of the site's pages"
        done = [job(page)]
        return lambda: done

    return pages


_PATH_MARK = re.compile(r'<span data-at="([^"]*)">')  # a plant's value mark, by its path


def _mark_numbers(results: Path) -> dict[str, str]:
    """Each value path of `results` -> its mark number, read once per version of the file (a
    session's sites are built once; a plant reads them again and again)."""
    stat = results.stat()
    return _numbers_of(results, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _numbers_of(results: Path, size: int, modified: int) -> dict[str, str]:
    return {path: mark_number(n) for n, path in enumerate(mark_table(load(results)))}


def as_written(site: Path, html: str) -> str:
    """`html` with each value mark written by its path (``<span data-at="PATH">``, readable in
    a plant) as the site writes it: ``<span data-v=N>``, N the path's number in the site's
    results.json (`mark_table`), in base 36."""
    numbers = _mark_numbers(site / "results.json")

    def written(mark: re.Match[str]) -> str:
        path, _, kind = mark[1].partition(" @")
        code = path if path in ("@legend", "answerable") else numbers[path]
        return f"<span data-v={code}{'@' + kind if kind else ''}>"

    return _PATH_MARK.sub(written, html)
