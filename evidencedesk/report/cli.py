"""``python -m evidencedesk.report build``: run every experiment, render the site atomically.

Exit statuses: 0 the site was written (also when stdout was a pipe closed early, or closed);
1 written, but a candidate's gate verdict failed ``--fail-on`` (nothing else gives 1); 2 bad
input, a refused ``--out``, another build writing the same folder, or an OS error — of a file,
of stdout (a full disk), of the current folder (deleted) — (one ``error: ...`` line, no
traceback); 3 an unexpected internal error (traceback printed); 130 / 143 interrupted by SIGINT /
SIGTERM. The last words of a failure say what became of the site: before the swap "the previous
site was left as it was" (`KEPT`), after it (only writing the summary to stdout can fail there)
that the new site replaced it (`REPLACED`). A closed stderr changes no status.

The model comes from ``evidencedesk.report.pipeline.build_model(options, progress)``. Tests (and
other front ends) inject another factory: ``main(argv, model_factory=f)`` in-process, or the
hidden ``--model-factory module:function`` option in a subprocess. ``parser(prog)`` and
``main(argv, prog=...)`` let another command (``evidencedesk build``) reuse both: `prog` is the
command before ``build`` in usage lines.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from evidencedesk.allocator import reuse_freed_memory
from evidencedesk.errors import ConfigError, EvidencedeskError, InputError, StreamError
from evidencedesk.inert import printable
from evidencedesk.report import outfolder
from evidencedesk.report.console import PipeSafe, Progress, Stream, mode_for
from evidencedesk.report.model import SEED_MAX, BuildOptions, SiteModel
from evidencedesk.report.site import Outcome

if TYPE_CHECKING:  # imported when a build needs it (start-up time of --help and errors)
    from evidencedesk.project import Project

ModelFactory = Callable[[BuildOptions, Callable[[str], None]], SiteModel]
FAILING = {"never": (), "review": ("REVIEW", "BLOCK"), "block": ("BLOCK",)}
PROG = "python -m evidencedesk.report"
KEPT = "the previous site was left as it was"
REPLACED = "the new site is complete and replaced the previous one"
WRITTEN = "the new site is complete"

DESCRIPTION = """\
Run the benchmark, the sizing sweep, the ablations, the citation and evidence checks and the
release gate for every candidate of a project (the demo project without --project), then write a
static, linked HTML site into the output folder. The output folder is replaced only when it is
absent, empty or a previous evidencedesk site, and only once the new site is complete; the same
inputs and seed give a byte-identical site."""

EPILOG = f"""\
seed: a whole number from 0 to {SEED_MAX}; default: [project].seed of the project file, else 0.
compare-to: a previous build's results.json or site folder (e.g. the last published CI artifact);
the site then says which verdicts changed, which metrics moved outside their previous interval,
which questions newly fail or pass, and which labels changed.

exit statuses:
  0    the site was written (also when stdout is closed or a pipe closed early, e.g. | head)
  1    the site was written, but a candidate's gate verdict failed --fail-on (only then)
  2    bad input (also a --compare-to file that is not a readable results.json), a bad
       SOURCE_DATE_EPOCH, a refused --out, another build writing the same --out (its pid is
       named), or an OS error (a file, stdout on a full disk, a deleted current folder): one
       line on stderr; previous site kept, unless the line says the new site replaced it
  3    internal error (traceback printed); previous site kept
  130  interrupted (Ctrl-C); previous site kept
  143  terminated (SIGTERM); previous site kept
A rebuild keeps every file of the previous site that its manifest.json does not list (and says
so); one build at a time writes a folder (docs/output-folder.md)."""


class UsageError(EvidencedeskError):
    """A command-line argument argparse refused."""


class Parser(argparse.ArgumentParser):
    """argparse, but an argument error is one ``error: ...`` line (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_args(self, args=None, namespace=None):  # untyped: argparse's own is overloaded
        found, extra = self.parse_known_args(args, namespace)
        if extra:  # argparse would blame the top-level parser; point at the subcommand's help
            command = getattr(found, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see {prog} --help)")
        return found


def _run_spec(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, found {text!r}")
    return name.strip(), Path(path.strip())


def run_specs(runs: object) -> tuple[tuple[str, Path], ...]:
    """The ``--run NAME=PATH`` pairs of a name -> path mapping (the notebook API's `runs`),
    checked as the command line checks ``--run``: the same `UsageError` for the same input."""
    if runs is None:
        return ()
    if not isinstance(runs, dict):
        raise UsageError(f"runs: expected a dict of run name -> path, found {type(runs).__name__}")
    specs = []
    for name, path in runs.items():
        text = f"{name}={os.fspath(path) if isinstance(path, os.PathLike) else path}"
        if not isinstance(name, str) or "=" in name or not isinstance(path, str | os.PathLike):
            raise UsageError(f"argument --run: expected NAME=PATH, found {text!r}")
        try:
            specs.append(_run_spec(text))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"argument --run: {exc}") from None
    return tuple(specs)


def _seed(text: str) -> int:
    expected = f"expected a whole number from 0 to {SEED_MAX}, found {text[:40]!r}"
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(expected) from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(expected)
    return value


def add_build_arguments(b: argparse.ArgumentParser) -> None:
    """The options of ``build`` (for a front end that has its own subcommand parser)."""
    b.add_argument("--out", default="site", metavar="FOLDER", help="output folder (default: site)")
    b.add_argument(
        "--seed", type=_seed, default=None, metavar="N", help="seed of every resampling (see below)"
    )
    b.add_argument("--fail-on", choices=tuple(FAILING), default="never",
                   help="exit 1 when a candidate's gate verdict (may it ship?) is this bad: "
                   "block = BLOCK, review = REVIEW or BLOCK (default: never)")  # fmt: skip
    b.add_argument("--run", dest="runs", action="append", type=_run_spec, default=[],
                   metavar="NAME=PATH", help="an external TREC run to judge (repeatable)")  # fmt: skip
    b.add_argument("--project", type=Path, default=None, metavar="PATH",
                   help="an evidencedesk.toml project file or its folder (default: the demo)")  # fmt: skip
    b.add_argument("--compare-to", type=Path, default=None, metavar="PATH",
                   help="a previous build's results.json (or its site folder): add what "
                   "changed since that report")  # fmt: skip
    b.add_argument("-q", "--quiet", action="store_true",
                   help="print only errors and the final line")  # fmt: skip
    b.add_argument("--model-factory", default=None, help=argparse.SUPPRESS)


TOP_DESCRIPTION = """\
Build the evidencedesk report site: a static, linked HTML report of a project's retrieval
variants and candidate changes (intervals, flips, slices, cost, the release gate and a verdict
per candidate) that opens from disk. One subcommand, build; see "build --help" for its options."""


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = Parser(
        prog=prog,
        description=TOP_DESCRIPTION,
        epilog=EPILOG.split("\n\n", 1)[1],  # the exit statuses (build's, the only subcommand)
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    b = sub.add_parser(
        "build",
        help="run the experiments and write the static site",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_build_arguments(b)
    return p


def load_factory(spec: str | None) -> ModelFactory:
    """``module:function``, or the real pipeline when `spec` is None."""
    module_name, _, attr = (spec or "evidencedesk.report.pipeline:build_model").partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise EvidencedeskError(f"model factory module {module_name!r} not found") from exc
    factory = getattr(module, attr or "build_model", None)
    if not callable(factory):
        raise EvidencedeskError(f"{module_name} has no callable {attr or 'build_model'!r}")
    return factory


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _project(path: Path | None) -> tuple[Project, str]:
    """The project (for its seed and the inputs `--out` must not touch): `path`, else
    ./evidencedesk.toml, else the demo; and the line naming it (`project.find_project`)."""
    from evidencedesk.project import find_project

    return find_project(path)


def _effective_seed(given: int | None, project: Project) -> int:
    if given is not None:
        return given
    seed = getattr(project, "seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise ConfigError(
            project.path, f"[project].seed: expected a whole number from 0 to {SEED_MAX}, "
            f"found {seed!r}"
        )  # fmt: skip
    return seed


def prepare(
    out: str,
    project: Path | None,
    seed: int | None,
    runs: tuple[tuple[str, Path], ...] = (),
    fail_on: str = "never",
    compare_to: Path | None = None,
) -> BuildOptions:
    """The checks made before any work: `out` may be replaced, the project loads, the seed,
    and `compare_to` reads back as a previous build's Results.

    Raises `EvidencedeskError` (a refused `--out`, bad input, a deleted current folder, a bad
    SOURCE_DATE_EPOCH) or `OSError`; nothing is written except that a swap an earlier, killed
    build left half done is completed first.
    """
    from evidencedesk.report.render import build_date

    _check_current_folder()
    build_date()  # SOURCE_DATE_EPOCH is read when the pages are written: refused before any work
    target = outfolder.resolve(out)
    outfolder.check_target(target, out, outfolder.protected_places(None))
    outfolder.clean_strays(target)  # before anything can fail: a killed swap is undone
    loaded, named = _project(project)
    places = outfolder.protected_places(loaded, [path for _, path in runs])
    outfolder.check_target(target, out, places)
    outfolder.check_replaceable(target, out)
    if compare_to is not None:
        from evidencedesk.report.pipeline import results_file
        from evidencedesk.results.jsonio import load

        load(results_file(compare_to))  # a missing, broken or other-schema file: one line, exit 2
    return BuildOptions(
        out=Path(out),
        seed=_effective_seed(seed, loaded),
        fail_on=fail_on,  # type: ignore[arg-type]
        runs=runs,
        project=loaded.path,
        compare_to=compare_to,
        loaded=loaded,  # the build uses it: the project is read once
        named=named,
    )


def _warn(model: SiteModel, stderr: Stream | None) -> None:
    """What to know about the inputs, one ``warning:`` line each (also with --quiet)."""
    results = model.results
    if results is None or stderr is None:
        return
    from evidencedesk.report.notices import notice_text

    for n in results.inputs.notices:
        text = notice_text(n, results.settings.kind, results.settings.min_coverage)
        _say(stderr, f"warning: {_one_line(text)}")


def _check_current_folder() -> None:
    """A deleted current folder is named as what it is (else every relative path fails)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise InputError(
            "the current folder", "expected a folder that exists (relative paths are read from "
            "it), found that it was deleted; change to an existing folder and build again"
        ) from None  # fmt: skip


def _say(stream: Stream, line: str) -> None:
    """One line of output holding data: control characters escaped, never a leading ``::``."""
    print(printable(line), file=stream)


def _kept_line(kept: Sequence[str]) -> str:
    """``kept 1 file evidencedesk did not write (reviewer-notes.txt)``: the previous site's
    entries its manifest.json does not list, carried into the new one (folders end in /)."""
    shown = ", ".join(kept[:3]) + (", …" if len(kept) > 3 else "")
    folders = any(k.endswith("/") for k in kept)
    what = (
        ("entry" if folders else "file") if len(kept) == 1 else ("entries" if folders else "files")
    )
    return f"kept {len(kept)} {what} evidencedesk did not write ({shown})"


def build(
    options: BuildOptions,
    factory: ModelFactory,
    stdout: Stream,
    quiet: bool = False,
    outcome: Outcome | None = None,
    stderr: Stream | None = None,
) -> SiteModel:
    """Build the model and write the site atomically; print the summary (after the swap:
    `outcome.replaced` tells a failure there from one before)."""
    from evidencedesk.report import render
    from evidencedesk.report.site import atomic_output, tree_size

    outcome = Outcome() if outcome is None else outcome
    progress = Progress(stdout, mode_for(stdout, quiet))
    if not quiet and options.named:
        _say(stdout, options.named)
        stdout.flush()
    try:  # the work folder (and the lock) exist before the long part
        with atomic_output(options.out, str(options.out), outcome) as tmp:
            model = factory(options, progress)
            progress("render")
            pages_of = getattr(render, "_page_list", None)
            progress.expect_pages(len(pages_of(model)) if pages_of else None)
            pages = render.render_site(model, tmp, on_page=progress.page)
    except BaseException:
        with contextlib.suppress(StreamError):  # the error in flight is the one to report
            progress.close()
        raise
    progress.close()
    out = Path(options.out).resolve()
    _warn(model, stderr)
    if not quiet:
        _say(stdout, f"wrote {len(pages)} pages ({_size(tree_size(out))}) in "
                     f"{progress.total():.1f} s")  # fmt: skip
        if outcome.kept:
            _say(stdout, _kept_line(outcome.kept))
        for c in model.candidates:
            _say(stdout, f"  {c.decision:<15} gate {c.badges[1] or c.verdict:<6} {c.name}")
        for skipped in model.not_run:  # never silent: the one line its page shows
            _say(stdout, f"  {'NOT RUN':<15} {'':<11} {skipped.name}: {skipped.reason}")
        if model.omitted_questions:
            _say(stdout, f"  {model.omitted_questions} question pages left out")
    _say(stdout, f"open {out / 'index.html'}")
    stdout.flush()
    return model


def _last_words(outcome: Outcome) -> str:
    if not outcome.replaced:
        return KEPT
    return REPLACED if outcome.previous else WRITTEN


def _os_error(exc: OSError, out: str, outcome: Outcome) -> str:
    """One line with the file and the OS reason ("No space left on device")."""
    reason = exc.strerror or str(exc)
    name = errno.errorcode.get(exc.errno or 0)
    code = f" ({name})" if name else ""
    named = exc.filename2 if exc.filename2 is not None else exc.filename  # a copy's target
    if named is None:  # nothing to blame it on: never the site folder by default
        return f"error: {reason}{code} (the system named no file); {_last_words(outcome)}"
    where = os.fsdecode(named) if isinstance(named, bytes) else str(named)
    try:  # a file of the unfinished site is named by where it was going to be
        target = outfolder.resolve(out)
        work = str(target.parent / f"{outfolder.work_prefix(target)}{os.getpid()}" / "site")
        if where == work or where.startswith(work + os.sep):
            where = str(target) + where[len(work) :]
    except (EvidencedeskError, OSError, ValueError):
        pass
    return f"error: {where}: {reason}{code}; {_last_words(outcome)}"


def _one_line(text: str) -> str:
    """An error message as one line: a line break in it (from data) is shown as ``\\n``."""
    return printable(text.strip())


def main(
    argv: Sequence[str] | None = None,
    model_factory: ModelFactory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    prog: str = PROG,
    exit_process: bool = False,
) -> int:
    """The build command; returns its exit code. With `exit_process` (``python -m
    evidencedesk.report`` only) the process ends right here once the output is flushed,
    without freeing the build's objects one by one (1.4 s for a 50,000-question project; the
    site is written and closed by then, and evidencedesk registers no exit handler)."""
    out_stream = PipeSafe(stdout or sys.stdout, "stdout")
    err_stream = PipeSafe(stderr or sys.stderr, "stderr", strict=False)  # nowhere left to say it
    reuse_freed_memory()
    kept: list[SiteModel] = []  # the model outlives `_main`, so that `exit_process` can skip it
    outcome = Outcome()
    try:
        code = _main(argv, model_factory, out_stream, err_stream, prog, kept, outcome)
    except KeyboardInterrupt:  # also during start-up: imports, reading the project
        _say(err_stream, f"error: build interrupted; {_last_words(outcome)}")
        code = 130
    try:
        out_stream.flush()
    except StreamError as exc:  # the last line is still in the buffer: it did not get out
        if code in (0, 1):
            _say(err_stream, f"error: {exc}; {_last_words(outcome)}")
            code = 2
    err_stream.flush()
    if exit_process:
        os._exit(code)
    return code


def _main(
    argv: Sequence[str] | None,
    model_factory: ModelFactory | None,
    out_stream: PipeSafe,
    err_stream: PipeSafe,
    prog: str,
    kept: list[SiteModel],
    outcome: Outcome,
) -> int:
    from evidencedesk.report.site import BuildTerminated, terminate_as_exception

    args = None
    try:
        with terminate_as_exception():
            try:
                args = parser(prog).parse_args(argv)
            except BrokenPipeError:  # `build --help | head -1`: the reader has all it wanted
                PipeSafe(sys.stdout).gone()
                return 0
            options = prepare(args.out, args.project, args.seed, tuple(args.runs), args.fail_on,
                              args.compare_to)  # fmt: skip
            factory = model_factory or load_factory(args.model_factory)
            model = build(options, factory, out_stream, args.quiet, outcome, err_stream)
            kept.append(model)
    except StreamError as exc:
        _say(err_stream, f"error: {exc}; {_last_words(outcome)}")
        return 2
    except EvidencedeskError as exc:
        after = f"; {_last_words(outcome)}" if outcome.replaced else ""
        _say(err_stream, f"error: {_one_line(str(exc))}{after}")
        return 2
    except OSError as exc:
        _say(err_stream, _one_line(_os_error(exc, getattr(args, "out", "site"), outcome)))
        return 2
    except BuildTerminated:
        _say(err_stream, f"error: build terminated; {_last_words(outcome)}")
        return 143
    except Exception:
        traceback.print_exc(file=err_stream)
        _say(err_stream, f"error: internal error; {_last_words(outcome)}")
        return 3
    failing = [c for c in model.candidates if c.verdict in FAILING[options.fail_on]]
    if failing:
        names = ", ".join(f"{c.name} ({c.verdict})" for c in failing)
        _say(err_stream, f"gate: --fail-on {options.fail_on} failed for {names}")
        return 1
    return 0
