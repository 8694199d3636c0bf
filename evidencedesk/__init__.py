"""evidencedesk: honest retrieval evaluation and a static HTML report.

From a notebook::

    import evidencedesk
    results = evidencedesk.build(project="my-project", out="site")   # writes the site too
    again = evidencedesk.load_results("site/results.json")           # the same Results

Both raise `EvidencedeskError` on bad input, and only that (the command line turns it into one
line, exit 2): `build` checks its arguments as ``evidencedesk build`` checks its options (the same
messages), and the output folder follows the same contract (docs/output-folder.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk.errors import EvidencedeskError
from evidencedesk.version import __version__

if TYPE_CHECKING:
    from evidencedesk.results.types import Results

__all__ = ["EvidencedeskError", "__version__", "build", "load_results"]


def build(
    project: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] = "site",
    seed: int | None = None,
    runs: dict[str, str | os.PathLike[str]] | None = None,
    compare_to: str | os.PathLike[str] | None = None,
) -> Results:
    """Evaluate a project (default: the nearest evidencedesk.toml, else the demo, as the command
    finds it), write its site into `out`, return the Results.

    The same build as ``evidencedesk build``: `out` is replaced only when it is absent, empty or
    a previous evidencedesk site, atomically; `seed` defaults to ``[project].seed``, else 0;
    `runs` adds external TREC runs by name (like ``--run NAME=PATH``); `compare_to`, a previous
    build's results.json or site folder, adds the site's "since last report" section (like
    ``--compare-to PATH``; the comparison itself is `evidencedesk.results.since.since(previous,
    results)`). Nothing is printed. A run name the command line could not take (empty, or
    holding ``=``) is refused with its message (``argument --run: expected NAME=PATH, …``), as
    is a seed outside 0 to 2**32 - 1.
    """
    from evidencedesk.report._build import build_site, check_seed, prepare, run_specs

    extra = run_specs(runs)
    previous = None if compare_to is None else Path(compare_to)
    options = prepare(_path_text(out, "out"), None if project is None else Path(project),
                      check_seed(seed), extra, compare_to=previous)  # fmt: skip
    model, _ = build_site(options)
    if model.results is None:  # the pipeline always attaches them; a guard, not a branch
        raise EvidencedeskError("internal: the build produced no Results")
    return model.results


def load_results(path: str | os.PathLike[str]) -> Results:
    """Read a build's ``results.json`` (or the site folder holding it) back into Results."""
    from evidencedesk.results._serialize import load

    where = Path(_path_text(path, "path"))
    return load(where / "results.json" if where.is_dir() else where)  # only ResultsFileError


def _path_text(value: object, name: str) -> str:
    if not isinstance(value, str | os.PathLike):
        raise EvidencedeskError(f"{name}: expected a path, found {type(value).__name__}")
    return str(os.fspath(value))
