"""How the project file's keys combine: one form of documents and of questions, the runs, the
kind of project. Returns the `Project` fields; the relevance check needs the judgments and is done
in `evidencedesk.project.load_project`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from evidencedesk.limits import DEFAULT_MAX_INPUT_MB
from evidencedesk.project_schema import DEFAULT_RELEVANCE, MAX_RUNS, Fail, runs_in_folder


def _qrels_format(path: Path) -> Literal["trec", "beir"]:
    if path.suffix.lower() == ".tsv":
        return "beir"
    with path.open("rb") as handle:  # a regular file: the schema checked it
        first = handle.readline(64).decode("utf-8", "replace")
    return "beir" if first.startswith("query-id\t") else "trec"


def _one_of(
    fail: Fail, section: str, keys: Sequence[str], given: dict[str, Any], what: str
) -> None:
    present = [k for k in keys if k in given]
    if len(present) > 1:
        raise fail(
            section, present[1], f"expected {what}, found both {present[0]!r} and {present[1]!r}"
        )


def resolve(s: dict[str, dict[str, Any]], path: Path, fail: Fail) -> dict[str, Any]:
    """Check how the keys combine and return the `Project` fields (all but ``max_grade``)."""
    root = path.parent
    project, docs, questions = s.get("project", {}), s.get("documents", {}), s.get("questions", {})
    runs_cfg, report, gate, extras = (s.get(k, {}) for k in ("runs", "report", "gate", "extras"))

    _one_of(
        fail,
        "documents",
        ("folders", "corpus"),
        docs,
        "documents in one form: 'folders' (Markdown) or 'corpus' (BEIR corpus.jsonl)",
    )
    if "chunking" in docs and "folders" not in docs:
        raise fail(
            "documents",
            "chunking",
            "expected 'chunking' only with 'folders' (a BEIR corpus is one chunk per document)",
        )
    documents: tuple[Path, ...] = docs.get("folders") or (
        (docs["corpus"],) if "corpus" in docs else ()
    )
    fmt = "markdown" if "folders" in docs else "beir" if "corpus" in docs else "none"
    if "index" in docs and fmt == "none":
        raise fail("documents", "index", "expected 'index' only with 'folders' or 'corpus'")
    kind: Literal["pipeline", "runs"] = (
        "pipeline" if fmt != "none" and docs.get("index", True) else "runs"
    )

    _one_of(
        fail,
        "questions",
        ("labels", "queries"),
        questions,
        "questions in one form: 'labels' (labels.jsonl) or 'queries' + 'qrels'",
    )
    _one_of(
        fail,
        "questions",
        ("labels", "qrels"),
        questions,
        "judgments in one form: grades inside 'labels' or a 'qrels' file",
    )
    if "labels" not in questions and "queries" not in questions:
        if "qrels" in questions:
            raise fail(
                "questions", "queries", "expected a queries file to go with 'qrels', found none"
            )
        raise fail(
            "questions",
            None,
            "expected 'labels' (labels.jsonl) or 'queries' + 'qrels', found neither",
        )
    if "queries" in questions and "qrels" not in questions:
        raise fail("questions", "qrels", "expected a qrels file to go with 'queries', found none")

    runs = tuple(runs_in_folder(runs_cfg["dir"])) if "dir" in runs_cfg else ()
    runs += runs_cfg.get("files", ())
    seen: dict[str, Path] = {}
    for name, run_path in runs:
        if name in seen and seen[name] != run_path:
            raise fail(
                "runs",
                "files",
                f"expected unique run names, found {name!r} for {seen[name]} and {run_path}",
            )
        seen[name] = run_path
    runs = tuple(seen.items())
    if len(runs) > MAX_RUNS:
        raise fail(
            "runs",
            "files" if "files" in runs_cfg else "dir",
            f"expected at most {MAX_RUNS} runs ('dir' and 'files' together; every pair of "
            f"variants is compared), found {len(runs)}",
        )
    baseline_run = runs_cfg.get("baseline")
    if baseline_run is not None and baseline_run not in seen:
        valid = ", ".join(seen) or "none (no runs given)"
        raise fail(
            "runs",
            "baseline",
            f"expected the name of one of the runs ({valid}), found {baseline_run!r}",
        )
    if kind == "runs":
        if not runs:
            raise fail(
                "runs",
                None,
                "expected at least one TREC run ('dir' or 'files') in a runs-only project, found none",
            )
        if baseline_run is None:
            raise fail(
                "runs",
                "baseline",
                f"expected the name of the run the others are compared with (one of: {', '.join(seen)}), found none",
            )
        shown_only = {"restricted_text"}  # decides what the site shows, so it applies here too
        for section, table in (("report", report), ("extras", extras)):
            pipeline_keys = [key for key in table if key not in shown_only]
            if pipeline_keys:
                raise fail(
                    section,
                    pipeline_keys[0],
                    "expected no pipeline settings in a runs-only project (no corpus is indexed), found one",
                )
    if "notes" in report and "candidates" not in report:
        raise fail("report", "notes", "expected 'notes' only together with 'candidates'")
    if "baseline" in gate and "policy" not in gate:
        raise fail(
            "gate", "baseline", "expected a 'policy' to go with the gate 'baseline', found none"
        )
    if "tenant_documents" in extras and "tenants" not in extras:
        raise fail(
            "extras",
            "tenant_documents",
            "expected a 'tenants' file to go with 'tenant_documents', found none",
        )

    qrels = questions.get("qrels")
    return dict(
        name=project.get("name", root.name),
        path=path,
        root=root,
        kind=kind,
        documents=documents,
        documents_format=fmt,
        chunking=docs.get("chunking", "paragraph"),
        labels=questions.get("labels"),
        queries=questions.get("queries"),
        qrels=qrels,
        qrels_format=None if qrels is None else _qrels_format(qrels),
        tags=questions.get("tags"),
        relevance=questions.get("relevance", DEFAULT_RELEVANCE),
        candidates=report.get("candidates"),
        notes=report.get("notes"),
        policy=gate.get("policy"),
        baseline=gate.get("baseline"),
        runs=runs,
        runs_dir=runs_cfg.get("dir"),
        baseline_run=baseline_run,
        answers=extras.get("answers"),
        tenants=extras.get("tenants"),
        tenant_documents=extras.get("tenant_documents"),
        dups=extras.get("dups"),
        updates=extras.get("updates"),
        seed=project.get("seed", 0),
        max_input_mb=project.get("max_input_mb", DEFAULT_MAX_INPUT_MB),
        restricted_text=report.get("restricted_text", "show"),
    )
