"""``evidencedesk summary SITE``: print a built site's Markdown summary (`report.summary`), the
text a CI job appends to its step summary or posts on a pull request (docs/ci.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _BAD_INPUT

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams

# the one-line summary of `evidencedesk summary` in the command list
HELP = "print a built site's Markdown summary (for a CI job summary or a pull-request comment)"
# what `evidencedesk summary --help` says the command does
DESCRIPTION = (
    "Print SITE/summary.md, the Markdown summary every build writes beside its pages: the "
    "bottom line, one row per candidate (verdict, gate, the primary metric's difference with "
    "its interval, flips), the gate's failing rules, the coverage and judgment warnings, and "
    "where the full site is. Text from data in it is escaped, so that it cannot make a link, "
    "an image, HTML or a table cell in the Markdown."
)
# the exit statuses `evidencedesk summary --help` lists, one line each
EXIT = (
    "0    printed",
    f"{_BAD_INPUT} (no summary.md in SITE: build it again)",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the argument of `evidencedesk summary` (SITE) to its parser."""
    p.add_argument("site", type=Path, metavar="SITE", help="a built site's folder")


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk summary`: print SITE/summary.md line by line (inert)."""
    from evidencedesk.errors import SiteFileError
    from evidencedesk.files._text import read_text
    from evidencedesk.report._site import SUMMARY

    text = read_text(args.site / SUMMARY, SiteFileError, "summary written by evidencedesk build")
    for line in text.splitlines():
        streams.say(line)
    return 0
