"""``evidencedesk``: one command for the report, the benchmark, new projects and checks.

``evidencedesk build`` is ``python -m evidencedesk.report build`` (same options, same exit
statuses), ``evidencedesk benchmark`` is ``python -m evidencedesk.retrieval.benchmark``; ``init``
and ``validate`` live here. ``python -m evidencedesk`` is the same command.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evidencedesk.errors import EvidencedeskError
from evidencedesk.version import __version__

PROG = "evidencedesk"
BAD_INPUT = '  2    bad input: one line "error: <file>[:<line>]: expected ..., found ..." on stderr'
EXIT = {
    "main": [
        "  0    success",
        "  1    a gate verdict failed (build --fail-on, benchmark --gate)",
        BAD_INPUT,
        "  (each command's --help lists all of its statuses, e.g. 141 for a closed pipe)",
    ],
    "init": [
        "  0    evidencedesk.toml was written",
        BAD_INPUT + " (also: the file exists and --force was not given; nothing is written)",
    ],
    "validate": ["  0    the project loads", BAD_INPUT],
    "audit": [
        "  0    every claim of every page agrees with results.json",
        "  1    disagreements: one line each (page, sentence, what results.json says)",
        BAD_INPUT + " (no results.json or claims.json in SITE)",
    ],
}
DESCRIPTION = {
    "main": (
        "Honest retrieval evaluation: run retrieval variants or your own TREC runs over labelled "
        "questions, compare them with intervals, flips and exact tests, apply a release gate, and "
        "write a static HTML report that opens from disk. Start with 'evidencedesk init DIR' in a "
        "folder of your files, then 'evidencedesk build --project DIR'."
    ),
    "init": (
        "Look at a folder (BEIR corpus.jsonl, queries.jsonl and qrels/*.tsv; TREC qrels and run "
        "files; folders of Markdown documents with front matter) and write a commented "
        "evidencedesk.toml saying what was found and what was guessed (the relevance threshold "
        "from the grades present, the baseline run), then print the commands that check and "
        "build it. An existing evidencedesk.toml is never replaced without --force."
    ),
    "audit": (
        "Read a built site's results.json and every page, re-derive each claim a page makes "
        "(numbers, intervals and whether they include zero, flips, p-values, verdicts and "
        "badges, gate lines, counts), find every number or verdict phrase no claim backs, and "
        "re-derive the verdicts, Holm adjustments, flips and sign tests from the per-question "
        "values. Prints one line per disagreement."
    ),
    "validate": (
        "Load and check a project the way a build would (documents, questions and judgments, "
        "runs, candidates, gate policy, saved baseline) and print what was found: kind, "
        "documents and chunks, questions, tags, runs, candidates, policy. Builds nothing."
    ),
}


def _epilog(name: str) -> str:
    return "exit status:\n" + "\n".join(EXIT[name])


def _about(name: str) -> str:
    """The description, wrapped here because the raw formatter (kept for the epilog) won't."""
    return textwrap.fill(DESCRIPTION[name], width=88)


class _Parser(argparse.ArgumentParser):
    """argparse, its messages printed inert (an argument holding an escape sequence)."""

    def _print_message(self, message: str, file: Any = None) -> None:
        from evidencedesk.inert import printable

        lines = message.split("\n")
        super()._print_message("\n".join(printable(line) for line in lines), file)


def _sub(sub: argparse._SubParsersAction, name: str, help_: str) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=help_,
        description=_about(name),
        epilog=_epilog(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description=_about("main"),
        epilog=_epilog("main"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    # build and benchmark are dispatched before parsing (their own parsers own the options);
    # these entries only list them in `evidencedesk --help`.
    sub.add_parser("build", help="run the experiments and write the static site", add_help=False)
    sub.add_parser("benchmark", help="print the benchmark table (and the gate)", add_help=False)
    i = _sub(sub, "init", "write a commented evidencedesk.toml for a folder of your files")
    i.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the folder to look at and write evidencedesk.toml into (default: .)",
    )
    i.add_argument("--force", action="store_true", help="replace an existing evidencedesk.toml")
    v = _sub(sub, "validate", "load and check a project, print what it holds, build nothing")
    v.add_argument(
        "--project",
        type=Path,
        default=None,
        help="an evidencedesk.toml project file or its folder (default: the demo)",
    )
    a = _sub(sub, "audit", "hold every sentence of a built site to its results.json")
    a.add_argument("site", type=Path, metavar="SITE", help="a built site's folder")
    return p


def build(args: Sequence[str]) -> int:
    from evidencedesk.report import cli as report_cli

    return report_cli.main(["build", *args], prog=PROG)


def benchmark(args: Sequence[str]) -> int:
    from evidencedesk.retrieval import benchmark_cli as bench

    return bench.main(list(args), prog=f"{PROG} benchmark")


def _print(lines: Sequence[str]) -> None:
    """Lines holding data on stdout: inert (`evidencedesk.inert.printable`), a closed pipe
    dropped, a failing stdout (a full disk) one `StreamError`."""
    from evidencedesk.inert import printable
    from evidencedesk.report.console import PipeSafe

    out = PipeSafe(sys.stdout, "stdout")
    for line in lines:
        out.write(printable(line) + "\n")
    out.flush()


def init(args: argparse.Namespace) -> int:
    from evidencedesk.inert import shell_command
    from evidencedesk.scaffold import init as write_project

    written = write_project(args.dir, force=args.force)
    folder = str(args.dir)
    _print([
        f"wrote {written}",
        "check it:  " + shell_command([PROG, "validate", "--project", folder]),
        "build it:  " + shell_command([PROG, "build", "--project", folder, "--out", "site"]),
    ])  # fmt: skip
    return 0


def validate(args: argparse.Namespace) -> int:
    from evidencedesk.validate import describe
    from evidencedesk.validate import validate as check

    _print(describe(check(args.project)).split("\n"))
    return 0


def audit(args: argparse.Namespace) -> int:
    from evidencedesk.inert import printable
    from evidencedesk.report.audit import audit as check

    found, claims, pages = check(args.site)
    for d in found:
        print(printable(d.line()))
    if found:
        print(f"audit: {len(found)} disagreement(s) with results.json")
        return 1
    print(f"ok: {claims} claims on {pages} pages agree with results.json")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "build":
        return build(args[1:])
    if args and args[0] == "benchmark":
        return benchmark(args[1:])
    parsed = parser().parse_args(args)
    try:
        return {"init": init, "validate": validate, "audit": audit}[parsed.command](parsed)
    except EvidencedeskError as exc:
        from evidencedesk.inert import printable
        from evidencedesk.report.console import PipeSafe

        PipeSafe(sys.stderr, "stderr", strict=False).write(f"error: {printable(str(exc))}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
