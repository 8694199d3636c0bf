"""A site's build, as a library: the checks made before any work (`prepare`), then the model
and the atomic write of its pages (`build_site`). The command line (`evidencedesk.cli._build`)
and the notebook API (`evidencedesk.build`) both call these; neither prints nor exits here.

`prepare` raises `EvidencedeskError` (a refused output folder, bad input, a deleted current
folder, a bad ``SOURCE_DATE_EPOCH``) or `OSError`, and writes nothing except that a swap an
earlier, killed build left half done is completed first. `build_site` replaces the output folder
only once the new site is complete (`report.site.atomic_output`, docs/output-folder.md).

The build's one data flow: project + options -> Settings -> evaluation -> Results -> present.

`_build_model(options, progress)` is what ``python -m evidencedesk.report build`` calls: it
evaluates the project (`evidencedesk.results._evaluate`, every statistic computed once) and
presents the Results as the plain-data site model (`evidencedesk.report._assemble.present`);
with ``options.compare_to`` also what changed since that previous build (`results.since`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.errors import ConfigError, InputError, UsageError
from evidencedesk.files._text import SEED_EXPECTED, is_seed
from evidencedesk.paths import _require
from evidencedesk.report import _site as site
from evidencedesk.report._assemble import present
from evidencedesk.report._model import BuildOptions, SiteModel
from evidencedesk.report._render import Launch, at_once
from evidencedesk.report._site import Outcome
from evidencedesk.results._evaluate import evaluate
from evidencedesk.results._inputs import DEMO_PROJECT, Project, load_project
from evidencedesk.results._serialize import QuestionRows, load
from evidencedesk.results._stages import Progress
from evidencedesk.results.since import since

if TYPE_CHECKING:
    from evidencedesk.results._inputs import Project
    from evidencedesk.results.types import Results


def results_file(path: Path) -> Path:
    """A results.json, or the site folder that holds one (``--compare-to site-previous``)."""
    return path / "results.json" if path.is_dir() else path


def _build_model(
    options: BuildOptions,
    progress: Progress,
    on_results: Callable[[Results], object] | None = None,
    on_rows: Callable[[QuestionRows], object] | None = None,
) -> SiteModel:
    """The site model of a build: load the project (once), evaluate it (handing `on_rows` the
    per-question rows once the benchmark has fixed them), hand the Results to `on_results` (the
    build starts writing results.json there) and present them."""
    project = options.loaded  # read once, by the CLI's checks before the build
    if not isinstance(project, Project):
        project = load_project(options.project or _require(DEMO_PROJECT, "the demo project"))
    results = evaluate(project, options.seed, options.runs, progress, on_rows)
    if options.command is not None:  # the command as the user typed it, for the footer
        inputs = dataclasses.replace(results.inputs, command=options.command)
        results = dataclasses.replace(results, inputs=inputs)
    if on_results is not None:
        on_results(results)
    progress("site model")
    previous = None if options.compare_to is None else load(results_file(options.compare_to))
    return present(results, None if previous is None else since(previous, results), progress)


# what makes the site model from the build's options and its progress callback (tests pass their
# own)
ModelFactory = Callable[[BuildOptions, Callable[[str], None]], SiteModel]


def run_spec(text: str) -> tuple[str, Path]:
    """``NAME=PATH`` (``--run``); `argparse.ArgumentTypeError` for anything else."""
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
            specs.append(run_spec(text))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"argument --run: {exc}") from None
    return tuple(specs)


def check_seed(seed: object) -> int | None:
    """A seed given to the notebook API, checked as ``--seed`` is (None: the project's)."""
    if seed is not None and not is_seed(seed):
        raise UsageError(f"argument --seed: {SEED_EXPECTED}, found {seed!r}")
    return seed


def _effective_seed(given: int | None, project: Project) -> int:
    if given is not None:
        return given
    seed = getattr(project, "seed", 0)
    if not is_seed(seed):
        raise ConfigError(project.path, f"[project].seed: {SEED_EXPECTED}, found {seed!r}")
    return seed


def _check_current_folder() -> None:
    """A deleted current folder is named as what it is (else every relative path fails)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise InputError(
            "the current folder", "expected a folder that exists (relative paths are read from "
            "it), found that it was deleted; change to an existing folder and build again"
        ) from None  # fmt: skip


def prepare(
    out: str,
    project: Path | None,
    seed: int | None,
    runs: tuple[tuple[str, Path], ...] = (),
    fail_on: str = "never",
    compare_to: Path | None = None,
) -> BuildOptions:
    """The checks made before any work: `out` may be replaced, the project loads (`project`,
    else the nearest evidencedesk.toml of the current folder and its parents, else the demo),
    the seed, and `compare_to` reads back as a previous build's Results."""
    from evidencedesk.report._render import build_date
    from evidencedesk.results._inputs import find_project

    _check_current_folder()
    build_date()  # SOURCE_DATE_EPOCH is read when the pages are written: refused before any work
    target = site.resolve(out)
    site.check_target(target, out, site.protected_places(None))
    site.clean_strays(target)  # before anything can fail: a killed swap is undone
    loaded, named = find_project(project)
    places = site.protected_places(loaded, [path for _, path in runs])
    site.check_target(target, out, places)
    site.check_replaceable(target, out)
    if compare_to is not None:
        from evidencedesk.results._serialize import load

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


def _silent(_: str) -> None:
    """No progress to show (the notebook API)."""


def build_site(
    options: BuildOptions,
    factory: ModelFactory | None = None,
    progress: Callable[[str], None] = _silent,
    outcome: Outcome | None = None,
    background: Launch = at_once,
) -> tuple[SiteModel, list[str]]:
    """Build the model (`factory`, default `report.pipeline.build_model`) and write the site
    atomically into ``options.out``; return the model and the pages written. `progress` is told
    each stage (and ``page`` each page, when it has one); `outcome` records whether the swap
    happened; `background` is the render's `Launch`."""
    from evidencedesk.report import _render as render
    from evidencedesk.report._site import atomic_output

    outcome = Outcome() if outcome is None else outcome
    on_page = getattr(progress, "page", None)
    expect = getattr(progress, "expect_pages", None)
    with atomic_output(options.out, str(options.out), outcome) as tmp:
        # above the page limit the per-question exports are written from the moment the
        # benchmark has fixed their rows, while the gate runs, and results.json and the other
        # exports from the moment the Results exist, while the site model is made (one core
        # would wait otherwise): the same files, the same bytes, that the render would write
        started: list[render.Job] = []

        def start_rows(rows: QuestionRows) -> None:
            started.extend(render.rows_in_background(rows, tmp, background))

        def start_results(results: Results) -> None:
            started.extend(render.results_in_background(results, tmp, background))

        try:
            if factory is None:
                model = _build_model(options, progress, start_results, start_rows)
            else:  # a factory of the caller's (tests): the render starts them
                model = factory(options, progress)
            progress("render")
            if expect is not None:
                expect(len(render.page_list(model)))
            pages = render.render_site(model, tmp, on_page=on_page, background=background,
                                       started=started if factory is None else None)  # fmt: skip
        except BaseException:
            for job in started:
                job.stop()
            raise
    return model, pages


__all__ = ["ModelFactory", "build_site", "check_seed", "prepare", "run_spec", "run_specs"]
