"""The build's one data flow: project + options -> Settings -> evaluation -> Results -> present.

`build_model(options, progress)` is what ``python -m evidencedesk.report build`` calls: it
evaluates the project (`evidencedesk.results.evaluate`, every statistic computed once) and
presents the Results as the plain-data site model (`evidencedesk.report.assemble.present`).
"""

from __future__ import annotations

from evidencedesk.paths import require
from evidencedesk.project import DEMO_PROJECT, load_project
from evidencedesk.report.assemble import present
from evidencedesk.report.model import BuildOptions, SiteModel
from evidencedesk.results.evaluate import evaluate
from evidencedesk.results.progress import Progress


def build_model(options: BuildOptions, progress: Progress) -> SiteModel:
    project = load_project(options.project or require(DEMO_PROJECT, "the demo project"))
    results = evaluate(project, options.seed, options.runs, progress)
    progress("site model")
    return present(results)
