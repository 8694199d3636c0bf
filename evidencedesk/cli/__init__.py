"""The command line: ``evidencedesk`` and ``python -m evidencedesk``, one parser tree for
``build``, ``benchmark``, ``run``, ``init``, ``validate``, ``audit``, ``summary`` and ``export``,
one map from error to exit
status, one console module (`cli.console`). This folder is the only code that owns the process:
it prints, exits and tunes the interpreter (`cli.process`); the library below it does none of
that.

``python -m evidencedesk.report build …`` and ``python -m evidencedesk.retrieval.benchmark …``
(SPEC) are the same commands through thin shims.

Each command module (`cli.build`, `cli.benchmark`, `cli.run`, `cli.init`, `cli.validate`,
`cli.audit`, `cli.summary`, `cli.export`)
has a one-line `HELP`, a `_DESCRIPTION`, its exit statuses (`_EXIT`), `add_arguments(parser)` and
`run(args, streams) -> int`. An argument argparse refuses is one ``error: …`` line naming the
command's ``--help``, exit 2, as bad input is.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from evidencedesk.errors import BuildTerminated, EvidencedeskError, UsageError
from evidencedesk.version import __version__

if TYPE_CHECKING:
    from evidencedesk.cli._console import PipeSafe
    from evidencedesk.report._build import ModelFactory

_PROG = "evidencedesk"  # the program name the help, the errors and the printed commands use
# the sub-commands, in the order the help lists them; each is a module of this package
_COMMANDS = ("build", "benchmark", "run", "init", "validate", "audit", "summary", "export")
# the exit status line for bad input, shared by the commands' help (some add what else is bad)
_BAD_INPUT = '2    bad input: one line "error: <file>[:<line>]: expected ..., found ..." on stderr'

# the one map from what went wrong to the exit status (the build adds 1: a gate failed --fail-on)
_EXIT_STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (KeyboardInterrupt, 130),
    (BuildTerminated, 143),
    (EvidencedeskError, 2),
    (OSError, 2),
    (Exception, 3),
)

# what `evidencedesk --help` says the tool does
_DESCRIPTION = (
    "Honest retrieval evaluation: run retrieval variants or your own TREC runs over labelled "
    "questions, compare them with intervals, flips and exact tests, apply a release gate, and "
    "write a static HTML report that opens from disk. Start with 'evidencedesk init DIR' in a "
    "folder of your files, then 'evidencedesk build --project DIR'."
)
# the exit statuses `evidencedesk --help` lists
_EXIT = (
    "0    success",
    "1    a gate level failed (build --fail-on, benchmark --gate)",
    _BAD_INPUT,
    "(each command's --help lists all of its statuses, e.g. 141 for a closed pipe)",
)


def _status_of(exc: BaseException) -> int:
    """The exit status for `exc` (`_EXIT_STATUS`)."""
    return next(code for kind, code in _EXIT_STATUS if isinstance(exc, kind))


def _add_project_argument(parser: argparse.ArgumentParser) -> None:
    """``--project PATH``, the one option of every command that reads a project."""
    parser.add_argument(
        "--project", type=Path, default=None, metavar="PATH",
        help="an evidencedesk.toml project file or its folder (default: the nearest "
        "evidencedesk.toml of this folder and its parents up to a repository root, else the "
        "demo)",
    )  # fmt: skip


def _os_error_text(exc: OSError) -> str:
    """An OS error as one line: the file it names and the reason ("No space left on device")."""
    import errno

    reason = exc.strerror or str(exc)
    name = errno.errorcode.get(exc.errno or 0)
    code = f" ({name})" if name else ""
    named = exc.filename2 if exc.filename2 is not None else exc.filename
    if named is None:
        return f"{reason}{code} (the system named no file)"
    return f"{os.fsdecode(named) if isinstance(named, bytes) else named}: {reason}{code}"


@dataclass
class _Streams:
    """What a command writes to, and the model factory a test or another front end gives the
    build (`report.build.ModelFactory`; None: the real pipeline)."""

    out: PipeSafe
    err: PipeSafe
    prog: str = _PROG
    model_factory: ModelFactory | None = None

    def say(self, line: str) -> None:
        """One line of output holding data: control characters escaped."""
        from evidencedesk._inert import printable

        self.out.write(printable(line) + "\n")

    def error(self, line: str) -> None:
        from evidencedesk._inert import printable

        self.err.write(printable(line) + "\n")


class _Parser(argparse.ArgumentParser):
    """argparse, its messages printed inert (an argument holding an escape sequence), and an
    argument error one ``error: …`` line (no usage block) raised as `UsageError`: exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse(self, args: Sequence[str] | None) -> argparse.Namespace:
        """`parse_args`, an argument no command takes blamed on the command's help."""
        found, extra = self.parse_known_args(args)
        if extra:  # argparse would blame the top-level parser; point at the subcommand's help
            command = getattr(found, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see {prog} --help)")
        return found

    def _print_message(self, message: str, file: Any = None) -> None:
        from evidencedesk._inert import printable

        lines = message.split("\n")
        super()._print_message("\n".join(printable(line) for line in lines), file)


def _command(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(f"evidencedesk.cli._{name}")


def _wrapped(text: str) -> str:
    """A description wrapped here: the raw formatter (kept for the epilog) won't."""
    return "\n\n".join(textwrap.fill(part, width=88) for part in text.split("\n\n"))


def _epilog(before: str, statuses: Sequence[str]) -> str:
    return (
        (before + "\n\n" if before else "")
        + "exit status:\n"
        + "\n".join(f"  {line}" for line in statuses)
    )


def _parser(prog: str = _PROG) -> _Parser:
    """The one parser tree: ``evidencedesk COMMAND …``."""
    p = _Parser(prog=prog, description=_wrapped(_DESCRIPTION), epilog=_epilog("", _EXIT),
               formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("-V", "--version", action="version", version=f"{_PROG} {__version__}")
    # not required: a bare `evidencedesk` prints this help (exit 0), as git and pip do
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMANDS:
        module = _command(name)
        c = sub.add_parser(
            name,
            help=module.HELP,
            description=_wrapped(module.DESCRIPTION),
            epilog=_epilog(getattr(module, "NOTES", ""), module.EXIT),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(c)
    return p


def main(
    argv: Sequence[str] | None = None,
    *,
    model_factory: ModelFactory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    prog: str = _PROG,
    exit_process: bool = False,
) -> int:
    """Run one command; return its exit status. `model_factory` replaces the build's pipeline
    (tests, other front ends); `exit_process` (the ``python -m`` entry points) ends the process
    here once the output is flushed, without freeing the build's objects one by one (1.4 s for a
    50,000-question project; every file is written and closed by then)."""
    from evidencedesk.cli._console import PipeSafe

    args = list(sys.argv[1:] if argv is None else argv)
    streams = _Streams(PipeSafe(stdout or sys.stdout, "stdout"),
                      PipeSafe(stderr or sys.stderr, "stderr", strict=False), prog,
                      model_factory)  # fmt: skip
    code = _dispatch(args, streams)
    try:
        streams.out.flush()
    except EvidencedeskError as exc:  # the last line is still in the buffer: it did not get out
        if code in (0, 1):
            streams.error(f"error: {exc}")
            code = 2
    streams.err.flush()
    if exit_process:
        os._exit(code)
    return code


def _dispatch(args: list[str], streams: _Streams) -> int:
    if args in (["-V"], ["--version"]):  # answered before the parser imports every command
        streams.out.write(f"{_PROG} {__version__}\n")
        return 0
    try:
        try:
            tree = _parser(streams.prog)
            parsed = tree.parse(args)
        except BrokenPipeError:  # `build --help | head -1`: the reader has all it wanted
            streams.out.gone()
            return 0
        except SystemExit as stop:  # --help and --version: argparse printed them
            return int(stop.code or 0)
        if parsed.command is None:  # bare `evidencedesk`: the help, not an error
            streams.out.write(tree.format_help())
            return 0
        command = _command(parsed.command)
        return int(command.run(parsed, streams))
    except UsageError as exc:
        streams.error(f"error: {str(exc).strip()}")
        return 2
    except BaseException as exc:  # every other failure, by the one map
        if not isinstance(exc, Exception | KeyboardInterrupt | BuildTerminated):
            raise  # SystemExit from deeper down, GeneratorExit: not ours to map
        status = _status_of(exc)
        if status == 3:
            traceback.print_exc(file=streams.err)
            streams.error("error: internal error")
        elif isinstance(exc, KeyboardInterrupt):  # before the command ran: loading modules
            streams.error(f"error: {_interrupted(args)}")
        elif isinstance(exc, OSError):
            streams.error(f"error: {_os_error_text(exc)}")
        else:
            streams.error(f"error: {str(exc).strip()}")
        return status


def _interrupted(args: Sequence[str]) -> str:
    """What Ctrl-C before the command started means: a command's own words (`INTERRUPTED`:
    build's says the previous site was kept) or just that it was interrupted."""
    name = next((a for a in args if not a.startswith("-")), "")
    module = sys.modules.get(f"evidencedesk.cli._{name}") if name in _COMMANDS else None
    return str(getattr(module, "INTERRUPTED", "interrupted"))
