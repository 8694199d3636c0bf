"""The site's machine-readable files: results.json (split above the page limit), the data/
exports, the list of downloads the pages link and ``manifest.json``.

Up to the page limit `write_results` writes them after the pages; above it
`results_in_background` hands them to the render's `background` as two jobs (the command line
runs them in forked processes while the pages render: `cli.process.forked`): the same files,
the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evidencedesk.files.writing import write_file
from evidencedesk.report.model import SiteModel
from evidencedesk.report.site import inside, slug
from evidencedesk.results import jsonio
from evidencedesk.results.exports import (
    RUNS,
    TO_LABEL,
    exported_runs,
    per_question_file,
    qrels_file,
    site_exports,
)
from evidencedesk.results.jsonio import QUESTIONS_FILE, RESULTS_JSON
from evidencedesk.results.pages import large as results_large
from evidencedesk.version import __version__


def write_bytes(path: Path, data: bytes) -> None:
    """One file of the site: new in the build's work folder (`evidencedesk.files.writing.write_file`
    refuses a second write to one name, say two runs with one slug)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, data, "site file")


def downloads(model: SiteModel) -> list[tuple[str, str]]:
    """(file, what) of the machine-readable outputs; none for a model without Results."""
    if model.results is None:
        return []
    results = model.results
    runs = [
        (f"{RUNS}/{slug(name)}.run", f"{name}: final lists, TREC run format")
        for name in exported_runs(results)
    ]
    large = results_large(results)  # the per-question part split off, the exports compressed
    gz = ", gzip-compressed" if large else ""
    moved = [
        (QUESTIONS_FILE, "the per-question part of results.json (questions, ranked lists, "
         "flipped ids), gzip-compressed; evidencedesk.results.jsonio.load reads both")
    ] if large else []  # fmt: skip
    return [
        (RESULTS_JSON, "every number of this report (schema: docs/results-schema.md)"
         if not large else "every number of this report, the per-question "
         f"ones in {QUESTIONS_FILE} (schema: docs/results-schema.md)"),
        (per_question_file(results),
         f"one row per question and variant: metrics, first relevant rank, tags{gz}"),
        (qrels_file(results), f"the judgments in scope, TREC qrels format{gz}"),
        (TO_LABEL, "the unjudged pairs of the compared top lists, the most useful first, with "
         "an empty grade column: see what to label next (to-label.html)" if results.to_label
         else "empty: every result in the compared top lists is judged"),
        *moved,
        *runs,
    ]  # fmt: skip


def _write_files(out: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        write_bytes(inside(out, name), data)


def write_results(model: SiteModel, out: Path) -> list[str]:
    """results.json (split above the page limit) and the data/ exports of the model's Results;
    the files written."""
    if model.results is None:
        return []
    files = {**jsonio.site_files(model.results), **site_exports(model.results, slug)}
    _write_files(out, files)
    return list(files)


_CLAIMS_JSON = "claims.json"  # every claim of every page, for `evidencedesk audit`


def write_claims(model: SiteModel, out: Path) -> None:
    """claims.json: each page's claims (report.claims), sorted keys, as results.json is."""
    claims = model.claims
    if claims is None or not hasattr(claims, "to_dict"):
        return
    text = json.dumps(claims.to_dict(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    _write_files(out, {_CLAIMS_JSON: text.encode("utf-8")})


def results_in_background(model: SiteModel, out: Path, background: Callable[..., Any]) -> list[Any]:
    """Above the page limit, results.json (with its per-question file) and the data/ exports
    are handed to `background` (`report.render.Launch`) as two jobs while the pages render;
    none up to it (then `write_results` writes them after the pages)."""
    results = model.results
    if results is None or not results_large(results):
        return []
    return [
        background(lambda: _write_files(out, jsonio.site_files(results))),
        background(lambda: _write_files(out, site_exports(results, slug))),
    ]


def manifest(
    model: SiteModel, pages: list[str], date: str | None, files: list[str] | None = None
) -> str:
    """manifest.json: the marker that lets a later build replace the folder, and in ``files``
    every file the build wrote (itself included): a later build replaces only those and keeps
    any other file in the folder (docs/output-folder.md)."""
    data: dict[str, Any] = {
        "generator": "evidencedesk",  # the marker that lets a later build replace this folder
        "seed": model.meta.seed,
        "version": __version__,
        "input_hash": model.meta.input_hash,
        "inputs": [{"path": i.path, "sha256": i.sha256} for i in model.meta.inputs],
        "pages": pages,
    }
    if model.results is not None:
        data["downloads"] = [file for file, _ in downloads(model)]
    if date:
        data["date"] = date
    if files is not None:
        data["files"] = sorted({*files, "manifest.json"})
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
