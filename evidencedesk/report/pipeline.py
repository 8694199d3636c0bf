"""The build's one data flow: project + options -> Settings -> evaluation -> Results -> present.

`build_model(options, progress)` is what ``python -m evidencedesk.report build`` calls: it
evaluates the project (`evidencedesk.results.evaluate`, every statistic computed once) and
presents the Results as the plain-data site model (`evidencedesk.report.assemble.present`);
with ``options.compare_to`` also what changed since that previous build (`results.since`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from evidencedesk.paths import require
from evidencedesk.report.assemble import present
from evidencedesk.report.model import BuildOptions, SiteModel
from evidencedesk.results.evaluate import evaluate
from evidencedesk.results.jsonio import load
from evidencedesk.results.progress import Progress
from evidencedesk.results.project import DEMO_PROJECT, Project, load_project
from evidencedesk.results.since import since


def results_file(path: Path) -> Path:
    """A results.json, or the site folder that holds one (``--compare-to site-previous``)."""
    return path / "results.json" if path.is_dir() else path


def build_model(options: BuildOptions, progress: Progress) -> SiteModel:
    """The site model of a build: load the project (once), evaluate it, and present the Results."""
    project = options.loaded  # read once, by the CLI's checks before the build
    if not isinstance(project, Project):
        project = load_project(options.project or require(DEMO_PROJECT, "the demo project"))
    results = evaluate(project, options.seed, options.runs, progress)
    if options.command is not None:  # the command as the user typed it, for the footer
        inputs = dataclasses.replace(results.inputs, command=options.command)
        results = dataclasses.replace(results, inputs=inputs)
    progress("site model")
    previous = None if options.compare_to is None else load(results_file(options.compare_to))
    return present(results, None if previous is None else since(previous, results))
