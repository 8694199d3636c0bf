"""``evidencedesk build`` (and ``python -m evidencedesk.report build``): run every experiment,
write the site atomically, print what was built.

Exit statuses: 0 the site was written (also when stdout was a pipe closed early, or closed);
1 written, but a candidate's gate level failed ``--fail-on`` (nothing else gives 1); 2 bad
input, a refused ``--out``, another build writing the same folder, or an OS error — of a file,
of stdout (a full disk), of the current folder (deleted) — (one ``error: ...`` line, no
traceback); 3 an unexpected internal error (traceback printed); 130 / 143 interrupted by SIGINT /
SIGTERM. The last words of a failure say what became of the site: before the swap "the previous
site was left as it was" (`_KEPT`), after it (only writing the summary to stdout can fail there)
that the new site replaced it (`_REPLACED`). A closed stderr changes no status.

The work is the library's (`report.build.prepare` and `report.build.build_site`); this command
adds the words and, with ``--tune`` (or ``EVIDENCEDESK_TUNING``), what owns the process
(`cli.process`: malloc thresholds, the collector held off, forked writers, memory given back
between stages).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.cli import _add_project_argument
from evidencedesk.errors import BuildTerminated, EvidencedeskError, StreamError
from evidencedesk.files._text import SEED_EXPECTED, SEED_MAX, SHOWN_CHARS, is_seed
from evidencedesk.report import _site as site

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams
    from evidencedesk.gate import GateLevel
    from evidencedesk.report._model import SiteModel
    from evidencedesk.report._site import Outcome

_FAIL_ON = ("never", "review", "block")  # --fail-on's choices: the gate levels in `_failing`
_KEPT = "the previous site was left as it was"
_REPLACED = "the new site is complete and replaced the previous one"
_WRITTEN = "the new site is complete"
INTERRUPTED = f"build interrupted; {_KEPT}"  # Ctrl-C before the build started

# the one-line summary of `evidencedesk build` in the command list
HELP = "run the experiments and write the static site"
# what `evidencedesk build --help` says the command does
DESCRIPTION = """\
Run the benchmark, the sizing sweep, the ablations, the citation and evidence checks and the \
release gate for every candidate of a project (without --project: the nearest evidencedesk.toml \
of this folder and its parents, up to a repository root, else the demo project), then write a static, linked HTML site into the output folder. \
The output folder is replaced only when it is absent, empty or a previous evidencedesk site, and \
only once the new site is complete; the same inputs and seed give a byte-identical site."""
# the notes `evidencedesk build --help` ends with: the seed, --compare-to, a rebuild
NOTES = f"""\
seed: a whole number from 0 to {SEED_MAX}; default: [project].seed of the project file, else 0.
compare-to: a previous build's results.json or site folder (e.g. the last published CI artifact);
the site then says which verdicts changed, which metrics moved outside their previous interval,
which questions newly fail or pass, and which labels changed.
A rebuild keeps every file of the previous site that its manifest.json does not list (and says
so); one build at a time writes a folder (docs/output-folder.md)."""
# the exit statuses `evidencedesk build --help` lists, one line each
EXIT = (
    "0    the site was written (also when stdout is closed or a pipe closed early, e.g. | head)",
    "1    the site was written, but a candidate's gate level failed --fail-on (only then)",
    "2    bad input (also a --compare-to file that is not a readable results.json), a bad",
    "     SOURCE_DATE_EPOCH, a refused --out, another build writing the same --out (its pid is",
    "     named), or an OS error (a file, stdout on a full disk, a deleted current folder): one",
    "     line on stderr; previous site kept, unless the line says the new site replaced it",
    "3    internal error (traceback printed); previous site kept",
    "130  interrupted (Ctrl-C); previous site kept",
    "143  terminated (SIGTERM); previous site kept",
)


def _run_spec(text: str) -> tuple[str, Path]:
    from evidencedesk.report._build import run_spec

    return run_spec(text)


def _seed(text: str) -> int:
    expected = f"{SEED_EXPECTED}, found {text[:SHOWN_CHARS]!r}"
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(expected) from None
    if not is_seed(value):
        raise argparse.ArgumentTypeError(expected)
    return value


def add_arguments(b: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk build` to its parser."""
    from evidencedesk.cli._process import add_tune_argument

    b.add_argument("--out", default="site", metavar="FOLDER", help="output folder (default: site)")
    b.add_argument(
        "--seed", type=_seed, default=None, metavar="N", help="seed of every resampling (see below)"
    )
    b.add_argument("--fail-on", choices=_FAIL_ON, default="never",
                   help="exit 1 when a candidate's gate level (may it ship?) is this bad: "
                   "block = BLOCK, review = REVIEW or BLOCK (default: never)")  # fmt: skip
    b.add_argument("--run", dest="runs", action="append", type=_run_spec, default=[],
                   metavar="NAME=PATH", help="an external TREC run to judge (repeatable)")  # fmt: skip
    _add_project_argument(b)
    b.add_argument("--compare-to", type=Path, default=None, metavar="PATH",
                   help="a previous build's results.json (or its site folder): add what "
                   "changed since that report")  # fmt: skip
    b.add_argument("-q", "--quiet", action="store_true",
                   help="print only errors and the final line")  # fmt: skip
    add_tune_argument(b)


def _typed(args: argparse.Namespace, seed: int) -> tuple[str, ...]:
    """The arguments of this build that decide its site, as typed (the footer's reproduce
    command): --project and every --run and --compare-to path as given, so that the command
    works pasted where it was typed; --seed always (the effective one). --out, --fail-on,
    --quiet and --tune change no byte of the site and are left out: the same site built into
    another folder stays byte-identical."""
    words: list[str] = []
    if args.project is not None:
        words += ["--project", str(args.project)]
    words += ["--seed", str(seed)]
    for name, path in args.runs:
        words += ["--run", f"{name}={path}"]
    if args.compare_to is not None:
        words += ["--compare-to", str(args.compare_to)]
    return tuple(words)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def _kept_line(kept: Sequence[str]) -> str:
    """``kept 1 file evidencedesk did not write (reviewer-notes.txt)``: the previous site's
    entries its manifest.json does not list, carried into the new one (folders end in /)."""
    shown = ", ".join(kept[:3]) + (", …" if len(kept) > 3 else "")
    folders = any(k.endswith("/") for k in kept)
    what = (
        ("entry" if folders else "file") if len(kept) == 1 else ("entries" if folders else "files")
    )
    return f"kept {len(kept)} {what} evidencedesk did not write ({shown})"


def _failing(fail_on: str) -> tuple[GateLevel, ...]:
    """The gate levels a build exits 1 on under ``--fail-on``."""
    # late: gate.py loads numpy, and a Ctrl-C during start-up must stay one line
    from evidencedesk.gate import GateLevel

    levels = {"review": (GateLevel.REVIEW, GateLevel.BLOCK), "block": (GateLevel.BLOCK,)}
    return levels.get(fail_on, ())


def _last_words(outcome: Outcome) -> str:
    if not outcome.replaced:
        return _KEPT
    return _REPLACED if outcome.previous else _WRITTEN


def _os_error(exc: OSError, out: str, outcome: Outcome) -> str:
    """One line with the file and the OS reason; a file of the unfinished site is named by
    where it was going to be, never the work folder."""
    from evidencedesk.cli import _os_error_text

    text = _os_error_text(exc)
    named = exc.filename2 if exc.filename2 is not None else exc.filename
    if named is not None:
        where = os.fsdecode(named) if isinstance(named, bytes) else str(named)
        try:
            target = site.resolve(out)
            work = str(target.parent / f"{site.work_prefix(target)}{os.getpid()}" / "site")
            if where == work or where.startswith(work + os.sep):
                text = str(target) + text[len(work) :]
        except (EvidencedeskError, OSError, ValueError):
            pass
    return f"error: {text}; {_last_words(outcome)}"


def _warn(model: SiteModel, streams: _Streams) -> None:
    """What to know about the inputs, one ``warning:`` line each (also with --quiet)."""
    results = model.results
    if results is None:
        return
    from evidencedesk.report._words import depth, notice_text, partial_warnings

    for n in results.inputs.notices:
        text = notice_text(n, results.settings.kind)
        streams.error(f"warning: {text.strip()}")
    for warning in partial_warnings(results.variants):  # a lowered [runs] min_coverage's runs
        streams.error(f"warning: {warning}")
    for i in range(len(results.candidates)):  # lists of another depth than the baseline's
        if text := depth(results, f"candidates[{i}]"):
            streams.error(f"warning: {text}")
    for facts in results.models:  # a model used on texts it was not trained for
        if facts.warning is not None:
            streams.error(f"warning: {facts.warning}")


def build(args: argparse.Namespace, streams: _Streams, outcome: Outcome) -> tuple[SiteModel, str]:
    """Prepare, build and write the site (with the process tuning --tune asks for); print the
    summary. Returns the model and the --fail-on level."""
    from evidencedesk.cli._console import ConsoleProgress, mode_for
    from evidencedesk.cli._process import Tuning, forked
    from evidencedesk.report._build import build_site, prepare
    from evidencedesk.report._render import at_once, compile_ahead
    from evidencedesk.report._site import tree_size

    tuning = Tuning.chosen(args)
    tuning.start()
    # the templates compiled in a child while this process starts up and reads its inputs
    compiling = compile_ahead(forked) if tuning.fork else None
    try:
        options = prepare(args.out, args.project, args.seed, tuple(args.runs), args.fail_on,
                          args.compare_to)  # fmt: skip
        options = dataclasses.replace(options, command=_typed(args, options.seed))
        progress = ConsoleProgress(streams.out, mode_for(streams.out, args.quiet))
        if not args.quiet and options.named:
            streams.say(options.named)
            streams.out.flush()
        try:
            with tuning.paused():
                model, pages = build_site(options, streams.model_factory,
                                          tuning.progress(progress), outcome,
                                          background=forked if tuning.fork else at_once)  # fmt: skip
        except BaseException:
            with contextlib.suppress(StreamError):  # the error in flight is the one to report
                progress.close()
            raise
    finally:
        if compiling is not None:  # (ended before the render took its code)
            compiling.stop()
    progress.close()
    out = Path(options.out).resolve()
    _warn(model, streams)
    if not args.quiet:
        streams.say(f"wrote {len(pages)} pages ({_size(tree_size(out))}) in "
                    f"{progress.total():.1f} s")  # fmt: skip
        if outcome.kept:
            streams.say(_kept_line(outcome.kept))
        for c in model.candidates:
            streams.say(f"  {c.decision:<15} gate {c.badges[1] or c.gate_level:<6} {c.name}")
        if model.gate is not None and model.gate.baseline_fails:  # (the site says it first)
            streams.say(f"  {model.gate.baseline_fails}.")
        for skipped in model.not_run:  # never silent: the one line its page shows
            streams.say(f"  {'NOT RUN':<15} {'':<11} {skipped.name}: {skipped.reason}")
        if model.omitted_questions:
            from evidencedesk.report._words import how_many

            streams.say(f"  {how_many(model.omitted_questions, 'question page')} left out")
    streams.say(f"open {out / 'index.html'}")
    streams.out.flush()
    return model, options.fail_on


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk build`: evaluate, write the site, say how it went; the exit status."""
    from evidencedesk.cli import _status_of
    from evidencedesk.cli._process import terminate_as_exception
    from evidencedesk.report._site import Outcome

    outcome = Outcome()
    try:
        with terminate_as_exception():
            model, fail_on = build(args, streams, outcome)
    except KeyboardInterrupt:  # also during start-up: imports, reading the project
        streams.error(f"error: build interrupted; {_last_words(outcome)}")
        return _status_of(KeyboardInterrupt())
    except BuildTerminated:
        streams.error(f"error: build terminated; {_last_words(outcome)}")
        return _status_of(BuildTerminated())
    except StreamError as exc:
        streams.error(f"error: {exc}; {_last_words(outcome)}")
        return _status_of(exc)
    except EvidencedeskError as exc:
        after = f"; {_last_words(outcome)}" if outcome.replaced else ""
        streams.error(f"error: {str(exc).strip()}{after}")
        return _status_of(exc)
    except OSError as exc:
        streams.error(_os_error(exc, args.out, outcome))
        return _status_of(exc)
    except Exception as exc:
        traceback.print_exc(file=streams.err)
        streams.error(f"error: internal error; {_last_words(outcome)}")
        return _status_of(exc)
    failing = [c for c in model.candidates if c.gate_level in _failing(fail_on)]
    if failing:
        names = ", ".join(f"{c.name} ({c.gate_level})" for c in failing)
        streams.error(f"gate: --fail-on {fail_on} failed for {names}")
        return 1
    return 0
