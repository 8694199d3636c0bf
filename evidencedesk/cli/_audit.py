"""``evidencedesk audit SITE``: hold every sentence of a built site to its results.json
(`report.audit`); one line per disagreement."""

from __future__ import annotations

import argparse
import gc
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from evidencedesk.cli import _BAD_INPUT

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams
    from evidencedesk.report._audit import PageResult

# the one-line summary of `evidencedesk audit` in the command list
HELP = "hold every sentence of a built site to its results.json"
# what `evidencedesk audit --help` says the command does
DESCRIPTION = (
    "Read a built site's results.json and every page, re-derive each claim a page makes "
    "(numbers, intervals and whether they include zero, flips, p-values, verdicts and "
    "badges, gate lines, counts), find every number or verdict phrase no claim backs, and "
    "re-derive the verdicts, Holm adjustments, flips and sign tests from the per-question "
    "values, and recompute every mean from the exported runs and qrels and every interval, "
    "p-value, Holm adjustment and verdict from the per-question values, independently of the "
    "build. Prints one line per disagreement."
)
# the exit statuses `evidencedesk audit --help` lists, one line each
EXIT = (
    "0    every claim of every page agrees with results.json",
    "1    disagreements: one line each (page or file, what the site says, what the audit finds)",
    f"{_BAD_INPUT} (no results.json or claims.json in SITE)",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk audit` (SITE, --tune) to its parser."""
    from evidencedesk.cli._process import add_tune_argument

    p.add_argument("site", type=Path, metavar="SITE", help="a built site's folder")
    add_tune_argument(p)


# below this many pages the pages are read in this process: a fork costs more than it saves
_FORK_FROM = 64
_WORKERS = 2  # forked page readers: the 2 cores of docs/scale.md's machine
_READING = "reading the site's pages"  # what they do, in the line said if one stops


def forked_pages(
    job: Callable[[str], PageResult], pages: list[str]
) -> Callable[[], list[PageResult]]:
    """`report.audit.Pages` for the command line: a large site's pages read by `_WORKERS`
    forked readers (page i by reader i mod `_WORKERS`, so each gets a share of every kind of
    page) while this process goes on; the results gathered back in the pages' order, so the
    output is the sequential audit's."""
    from evidencedesk.cli._process import Background
    from evidencedesk.report._audit import in_turn

    if len(pages) < _FORK_FROM or not hasattr(os, "fork"):
        return in_turn(job, pages)

    def read(share: list[str]) -> Callable[[], list[PageResult]]:
        return lambda: [job(page) for page in share]

    # the objects made so far (results.json read back, the claims) left out of the readers'
    # collections: a collection touches every object it scans, and each page it touches is
    # copied into the reader (copy-on-write)
    gc.freeze()
    try:
        readers = [Background(read(pages[i::_WORKERS]), _READING) for i in range(_WORKERS)]
    finally:
        gc.unfreeze()  # this process collects them as before

    def wait() -> list[PageResult]:
        try:
            shares = [cast("list[PageResult]", reader.wait()) for reader in readers]
        except BaseException:
            for reader in readers:  # a reader that failed: the other is not left running
                reader.stop()
            raise
        return [shares[i % _WORKERS][i // _WORKERS] for i in range(len(pages))]

    return wait


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk audit`: re-derive every claim of SITE; 0 when all agree."""
    from evidencedesk.cli._process import Tuning
    from evidencedesk.report._audit import audit

    tuning = Tuning.chosen(args)
    # the forked readers are the `fork` setting, as the build's forked writers are: off unless
    # asked (`--tune`), like every setting that changes how the process runs
    with tuning.paused():  # results.json's objects, read back
        found, claims, pages = (audit(args.site, forked_pages) if tuning.fork
                                else audit(args.site))  # fmt: skip
    for d in found:
        streams.say(d.line())
    if found:
        streams.say(f"audit: {len(found)} disagreement(s) with results.json")
        return 1
    streams.say(f"ok: {claims} claims on {pages} pages agree with results.json")
    return 0
