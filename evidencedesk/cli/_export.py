"""``evidencedesk export SITE --format latex|markdown|csv``: a built site's benchmark and
candidate tables for a paper or a notebook (`report.tables`), printed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _BAD_INPUT

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams

# the one-line summary of `evidencedesk export` in the command list
HELP = "print a built site's benchmark and candidate tables as LaTeX, Markdown or CSV"
# what `evidencedesk export --help` says the command does
DESCRIPTION = (
    "Read a built site's results.json and print its benchmark table (each variant's mean of "
    "each reported metric with its 95 % interval) and its candidate table (verdict, gate, the "
    "primary metric's paired difference with its interval, marked * when the Holm-adjusted "
    "randomization p is below 0.05, flips, that p): as booktabs LaTeX with captions, as "
    "Markdown, or as one CSV with a row per run and metric (what Results.to_dataframe() holds)."
)
# the exit statuses `evidencedesk export --help` lists, one line each
EXIT = (
    "0    printed",
    f"{_BAD_INPUT} (no results.json in SITE)",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk export` (SITE, --format) to its parser."""
    from evidencedesk.report._exports import FORMATS

    p.add_argument("site", type=Path, metavar="SITE", help="a built site's folder")
    p.add_argument("--format", choices=FORMATS, default="markdown",
                   help="latex (booktabs), markdown or csv (default: markdown)")  # fmt: skip


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk export`: print SITE's tables in the chosen format."""
    from evidencedesk.report._build import results_file
    from evidencedesk.report._exports import export_tables
    from evidencedesk.results._serialize import load

    text = export_tables(load(results_file(args.site)), args.format)
    for line in text.splitlines():
        streams.say(line)
    return 0
