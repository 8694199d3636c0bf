"""How the project file's keys combine: one form of documents and of questions, the runs, the
kind of project. `ProjectFile` is the whole file as one pydantic model (its sections come from
`evidencedesk.files.project_schema`); its model validator checks the combinations, so every error goes
through `evidencedesk.files.validation`. `resolve` turns a valid file into the `Project` fields; the
relevance check needs the judgments and is done in `evidencedesk.results.project.load_project`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import model_validator

from evidencedesk.errors import UnknownNameError
from evidencedesk.files.limits import DEFAULT_MAX_INPUT_MB
from evidencedesk.files.project_schema import (
    DEFAULT_METRICS,
    MAX_RUNS,
    DocumentsSection,
    ExtrasSection,
    GateSection,
    ProjectSection,
    QuestionsSection,
    ReportSection,
    RunsSection,
    SearchersSection,
    Section,
    runs_in_folder,
)
from evidencedesk.files.validation import rule
from evidencedesk.metric_names import canonical


def _qrels_format(path: Path) -> Literal["trec", "beir"]:
    if path.suffix.lower() == ".tsv":
        return "beir"
    with path.open("rb") as handle:  # a regular file: the schema checked it
        first = handle.readline(64).decode("utf-8", "replace")
    return "beir" if first.startswith("query-id\t") else "trec"


def _collect_runs(runs: RunsSection) -> tuple[tuple[str, Path], ...]:
    """The runs of ``dir`` then ``files``; a name given twice for the same file counts once."""
    found = (runs_in_folder(runs.dir, runs.ignore)[0] if runs.dir is not None else ()) + runs.files
    seen: dict[str, Path] = {}
    for name, path in found:
        if name in seen and seen[name] != path:
            raise rule(
                ("runs", "files"),
                f"expected unique run names, found {name!r} for {seen[name]} and {path}",
            )
        seen[name] = path
    return tuple(seen.items())


def _one_of(section: Section, name: str, keys: tuple[str, str], what: str) -> None:
    if all(k in section.model_fields_set for k in keys):
        raise rule((name, keys[1]), f"expected {what}, found both {keys[0]!r} and {keys[1]!r}")


class ProjectFile(Section):
    """The whole project file: its sections, and how their keys combine."""

    project: ProjectSection = ProjectSection()
    documents: DocumentsSection = DocumentsSection()
    searchers: SearchersSection = SearchersSection()
    questions: QuestionsSection = QuestionsSection()
    runs: RunsSection = RunsSection()
    report: ReportSection = ReportSection()
    gate: GateSection = GateSection()
    extras: ExtrasSection = ExtrasSection()

    def kind(self) -> Literal["pipeline", "runs"]:
        has_documents = self.documents.folders is not None or self.documents.corpus is not None
        return "pipeline" if has_documents and self.documents.index else "runs"

    @model_validator(mode="after")
    def _combine(self) -> ProjectFile:
        docs, questions, report = self.documents, self.questions, self.report
        given = docs.model_fields_set
        _one_of(
            docs,
            "documents",
            ("folders", "corpus"),
            "documents in one form: 'folders' (Markdown) or 'corpus' (BEIR corpus.jsonl)",
        )
        if "chunking" in given and "folders" not in given:
            raise rule(
                ("documents", "chunking"),
                "expected 'chunking' only with 'folders' (a BEIR corpus is one chunk per document)",
            )
        if "index" in given and not given & {"folders", "corpus"}:
            raise rule(("documents", "index"), "expected 'index' only with 'folders' or 'corpus'")
        _one_of(
            questions,
            "questions",
            ("labels", "queries"),
            "questions in one form: 'labels' (labels.jsonl) or 'queries' + 'qrels'",
        )
        _one_of(
            questions,
            "questions",
            ("labels", "qrels"),
            "judgments in one form: grades inside 'labels' or a 'qrels' file",
        )
        if questions.labels is None and questions.queries is None:
            if questions.qrels is None:
                raise rule(
                    ("questions",),
                    "expected 'labels' (labels.jsonl), 'qrels' (with 'queries' for their text), "
                    "found neither",
                )
            if self.kind() == "pipeline":
                raise rule(
                    ("questions", "queries"),
                    "expected a queries file to go with 'qrels' (a pipeline searches by the "
                    "question text; a runs-only project may leave it out), found none",
                )
        if questions.evaluate_unlisted and questions.queries is None:
            raise rule(
                ("questions", "evaluate_unlisted"),
                "expected 'evaluate_unlisted' only with a 'queries' file (without one, the "
                "judged queries are the questions)",
            )
        if questions.evaluate_unlisted and self.kind() == "pipeline":
            raise rule(
                ("questions", "evaluate_unlisted"),
                "expected 'evaluate_unlisted' only in a runs-only project (a pipeline searches "
                "by the question text, which unlisted queries lack)",
            )
        if questions.queries is not None and questions.qrels is None:
            raise rule(
                ("questions", "qrels"), "expected a qrels file to go with 'queries', found none"
            )
        self._check_runs()
        if report.primary is not None:
            reported = report.metrics or DEFAULT_METRICS[self.kind()]
            primary = _canonical(report.primary)
            if primary not in reported:
                read = f" ({primary})" if primary not in (None, report.primary) else ""
                raise rule(
                    ("report", "primary"),
                    f"expected one of the reported metrics ({', '.join(reported)}), "
                    f"found {report.primary!r}{read}",
                )
        if report.notes is not None and report.candidates is None:
            raise rule(("report", "notes"), "expected 'notes' only together with 'candidates'")
        if self.gate.baseline is not None and self.gate.policy is None:
            raise rule(
                ("gate", "baseline"),
                "expected a 'policy' to go with the gate 'baseline', found none",
            )
        if self.extras.tenant_documents is not None and self.extras.tenants is None:
            raise rule(
                ("extras", "tenant_documents"),
                "expected a 'tenants' file to go with 'tenant_documents', found none",
            )
        return self

    def _check_runs(self) -> None:
        runs_cfg = self.runs
        if runs_cfg.ignore and runs_cfg.dir is None:
            raise rule(("runs", "ignore"), "expected 'ignore' only with a runs folder ('dir')")
        runs = _collect_runs(runs_cfg)
        names = [name for name, _ in runs]
        if len(runs) > MAX_RUNS:
            raise rule(
                ("runs", "files" if "files" in runs_cfg.model_fields_set else "dir"),
                f"expected at most {MAX_RUNS} runs ('dir' and 'files' together; every pair of "
                f"variants is compared), found {len(runs)}",
            )
        baseline = runs_cfg.baseline
        if baseline is not None and baseline not in names:
            _read_skipped_run(runs_cfg.dir, baseline)
            valid = ", ".join(names) or "none (no runs given)"
            raise rule(
                ("runs", "baseline"),
                f"expected the name of one of the runs ({valid}), found {baseline!r}",
            )
        if self.kind() != "runs":
            return
        if not runs:
            raise rule(
                ("runs",),
                "expected at least one TREC run ('dir' or 'files') in a runs-only project, "
                "found none",
            )
        if baseline is None:
            raise rule(
                ("runs", "baseline"),
                "expected the name of the run the others are compared with "
                f"(one of: {', '.join(names)}), found none",
            )
        shown_only = {
            "restricted_text",
            "metrics",
            "primary",
            "averaging",
        }  # decides what the site shows, so it applies here too
        sections = (("searchers", self.searchers), ("report", self.report), ("extras", self.extras))
        for name, section in sections:
            pipeline_keys = [k for k in _given(section) if k not in shown_only]
            if pipeline_keys:
                raise rule(
                    (name, pipeline_keys[0]),
                    "expected no pipeline settings in a runs-only project (no corpus is "
                    "indexed), found one",
                )


def _read_skipped_run(folder: Path | None, name: str) -> None:
    """A file of the runs folder named like the baseline run but skipped as not a run (its first
    line does not read as a run line: a typo such as ``0x1p3`` as a score) is read with the
    strict reader, whose error names the file, the line and what is wrong there, rather than
    the baseline key."""
    if folder is None:
        return
    from evidencedesk.files.trec import read_run  # numpy: only where runs are read

    for path in runs_in_folder(folder)[1]:
        if path.stem == name:
            read_run(path)


def _given(section: Section) -> list[str]:
    """The keys the file gave, in the model's order (the order the README lists them)."""
    return [k for k in type(section).model_fields if k in section.model_fields_set]


def resolve(model: ProjectFile, path: Path) -> dict[str, Any]:
    """The `Project` fields (all but ``max_grade``) of a valid project file."""
    root = path.parent
    docs, questions, runs_cfg = model.documents, model.questions, model.runs
    report, gate, extras = model.report, model.gate, model.extras
    fmt = "markdown" if docs.folders is not None else "beir" if docs.corpus is not None else "none"
    documents = docs.folders or ((docs.corpus,) if docs.corpus is not None else ())
    qrels = questions.qrels
    return dict(
        name=model.project.name or root.name,
        path=path,
        root=root,
        kind=model.kind(),
        documents=documents,
        documents_format=fmt,
        chunking=docs.chunking,
        dense=model.searchers.dense,
        labels=questions.labels,
        queries=questions.queries,
        qrels=qrels,
        qrels_format=None if qrels is None else _qrels_format(qrels),
        tags=questions.tags,
        relevance=questions.relevance,
        grade_names=questions.grades or (),
        evaluate_unlisted=questions.evaluate_unlisted,
        candidates=report.candidates,
        notes=report.notes,
        policy=gate.policy,
        baseline=gate.baseline,
        runs=_collect_runs(runs_cfg),
        runs_dir=runs_cfg.dir,
        skipped_files=(
            runs_in_folder(runs_cfg.dir, runs_cfg.ignore)[1] if runs_cfg.dir is not None else ()
        ),
        baseline_run=runs_cfg.baseline,
        min_coverage=runs_cfg.min_coverage,
        max_depth=runs_cfg.max_depth,
        averaging=report.averaging,
        answers=extras.answers,
        tenants=extras.tenants,
        tenant_documents=extras.tenant_documents,
        dups=extras.dups,
        updates=extras.updates,
        seed=model.project.seed,
        max_input_mb=model.project.max_input_mb or DEFAULT_MAX_INPUT_MB,
        restricted_text=report.restricted_text,
        report_metrics=report.metrics,
        primary=_canonical(report.primary) if report.primary else None,
    )


def _canonical(name: str) -> str | None:
    """A metric name's canonical form; None for a name no metric answers to."""
    try:
        return canonical(name)
    except UnknownNameError:
        return None
