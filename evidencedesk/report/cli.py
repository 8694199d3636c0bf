"""``python -m evidencedesk.report build``: run every experiment, render the site atomically.

Exit statuses: 0 the site was written; 1 written, but a candidate's gate verdict failed
``--fail-on``; 2 bad input (an `EvidencedeskError`, printed as one ``error: ...`` line, no
traceback); 3 an unexpected internal error (traceback printed); 130 / 143 interrupted by
SIGINT / SIGTERM. Whenever the status is not 0 or 1, the previous site is left as it was.

The model comes from ``evidencedesk.report.pipeline.build_model(options, progress)``. Tests (and
other front ends) inject another factory: ``main(argv, model_factory=f)`` in-process, or the
hidden ``--model-factory module:function`` option in a subprocess.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from evidencedesk.errors import EvidencedeskError
from evidencedesk.report.model import BuildOptions, SiteModel
from evidencedesk.report.render import render_site
from evidencedesk.report.site import (
    BuildTerminated,
    atomic_output,
    terminate_as_exception,
    tree_size,
)

ModelFactory = Callable[[BuildOptions, Callable[[str], None]], SiteModel]
FAILING = {"never": (), "review": ("REVIEW", "BLOCK"), "block": ("BLOCK",)}


def _run_spec(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, found {text!r}")
    return name.strip(), Path(path.strip())


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m evidencedesk.report", description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="run the experiments and write the static site")
    b.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site)")
    b.add_argument("--seed", type=int, default=0, help="seed of every resampling (default: 0)")
    b.add_argument(
        "--fail-on", choices=tuple(FAILING), default="never", help="exit 1 on this verdict"
    )
    b.add_argument(
        "--run",
        dest="runs",
        action="append",
        type=_run_spec,
        default=[],
        metavar="NAME=PATH",
        help="an external TREC run to judge (repeatable)",
    )
    b.add_argument("--project", type=Path, default=None, help="an evidencedesk.toml project file")
    b.add_argument("--model-factory", default=None, help=argparse.SUPPRESS)
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


class Progress:
    """Prints one line per finished stage with its elapsed seconds."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.stage: str | None = None
        self.started = time.perf_counter()
        self.first = self.started

    def __call__(self, stage: str) -> None:
        self.finish()
        self.stage, self.started = stage, time.perf_counter()

    def finish(self) -> None:
        if self.stage is not None:
            seconds = time.perf_counter() - self.started
            print(f"  {self.stage:<24} {seconds:7.2f} s", file=self.stream, flush=True)
        self.stage = None

    def total(self) -> float:
        return time.perf_counter() - self.first


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def build(options: BuildOptions, factory: ModelFactory, stdout: TextIO) -> SiteModel:
    progress = Progress(stdout)
    model = factory(options, progress)
    progress("render")
    with atomic_output(options.out) as tmp:
        pages = render_site(model, tmp)
    progress.finish()
    out = options.out.resolve()
    print(
        f"wrote {len(pages)} pages ({_size(tree_size(out))}) in {progress.total():.1f} s",
        file=stdout,
    )
    for c in model.candidates:
        print(f"  {c.verdict:<6} {c.name}", file=stdout)
    if model.omitted_questions:
        print(f"  {model.omitted_questions} question pages left out", file=stdout)
    print(f"open {out / 'index.html'}", file=stdout, flush=True)
    return model


def main(
    argv: Sequence[str] | None = None,
    model_factory: ModelFactory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    out_stream, err_stream = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    options = BuildOptions(
        out=args.out,
        seed=args.seed,
        fail_on=args.fail_on,
        runs=tuple(args.runs),
        project=args.project,
    )
    try:
        with terminate_as_exception():
            factory = model_factory or load_factory(args.model_factory)
            model = build(options, factory, out_stream)
    except EvidencedeskError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=err_stream, flush=True)
        return 2
    except BuildTerminated:
        print("error: build terminated; the previous site was left as it was", file=err_stream)
        return 143
    except KeyboardInterrupt:
        print("error: build interrupted; the previous site was left as it was", file=err_stream)
        return 130
    except Exception:
        traceback.print_exc(file=err_stream)
        print("error: internal error; the previous site was left as it was", file=err_stream)
        return 3
    failing = [c for c in model.candidates if c.verdict in FAILING[options.fail_on]]
    if failing:
        names = ", ".join(f"{c.name} ({c.verdict})" for c in failing)
        print(f"gate: --fail-on {options.fail_on} failed for {names}", file=err_stream)
        return 1
    return 0
