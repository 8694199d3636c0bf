"""``evidencedesk audit SITE``: hold every sentence of a built site to its results.json
(`report.audit`); one line per disagreement."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _BAD_INPUT

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams

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


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk audit`: re-derive every claim of SITE; 0 when all agree."""
    from evidencedesk.cli._process import Tuning
    from evidencedesk.report._audit import audit

    with Tuning.chosen(args).paused():  # results.json's objects, read back
        found, claims, pages = audit(args.site)
    for d in found:
        streams.say(d.line())
    if found:
        streams.say(f"audit: {len(found)} disagreement(s) with results.json")
        return 1
    streams.say(f"ok: {claims} claims on {pages} pages agree with results.json")
    return 0
