"""``evidencedesk validate``: load and check a project the way a build would, build nothing.

Every input the build reads goes through the build's own loaders (documents, questions and
judgments, runs, candidates with their configs and notes, gate policy and saved baseline), so a
project that validates fails a build only on problems that appear while computing (none known),
and a project that does not validate fails with the same one-line error a build would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.inert import printable
from evidencedesk.paths import require
from evidencedesk.project import DEMO_PROJECT, Project, load_project

__all__ = ["Found", "describe", "validate"]


@dataclass(frozen=True)
class Found:
    """What a project holds, counted."""

    project: Project
    documents: int
    chunks: int
    questions: int
    answerable: int
    tags: tuple[tuple[str, int], ...]
    runs: tuple[tuple[str, int], ...]  # name, questions it answers
    candidates: tuple[str, ...]
    policy: str | None
    saved_baseline: bool


def validate(path: Path | None = None) -> Found:
    """Load every input of the project at `path` (default: the demo). Raises EvidencedeskError."""
    from evidencedesk.baseline import load_baseline
    from evidencedesk.candidates import load_candidates
    from evidencedesk.gate import load_policy
    from evidencedesk.retrieval.evalreport import Config

    project = load_project(path or require(DEMO_PROJECT, "the demo project"))
    catalog = project.load_catalog()
    labels = project.load_labels(catalog)
    runs = project.load_runs()
    cands = load_candidates(project.candidates, project.notes) if project.candidates else []
    for cand in cands:
        try:
            Config().replace(**cand.changes)
        except (EvidencedeskError, TypeError, ValueError) as exc:
            raise ConfigError(project.candidates, f"candidate {cand.name!r}: {exc}") from None
    policy = load_policy(project.policy, labels) if project.policy else None
    saved = project.baseline is not None and project.baseline.is_file()
    if saved:
        kind = "runs" if catalog is None else "pipeline"
        load_baseline(project.baseline, labels, kind)  # type: ignore[arg-type]
    tags: dict[str, int] = {}
    for label in labels:
        for tag in label.tags:
            tags[tag] = tags.get(tag, 0) + 1
    asked = {label.id for label in labels}
    policy_text = None
    if policy is not None:
        critical = ", ".join(policy.critical) or "none"
        policy_text = (
            f"{project.relative(project.policy)} (k={policy.k}, min_recall={policy.min_recall}, "  # type: ignore[arg-type]
            f"min_pass_rate={policy.min_pass_rate}, critical: {critical})"
        )
    return Found(
        project=project,
        documents=len({c.doc_id for c in catalog.chunks}) if catalog is not None else 0,
        chunks=len(catalog) if catalog is not None else 0,
        questions=len(labels),
        answerable=sum(label.answerable for label in labels),
        tags=tuple(sorted(tags.items())),
        runs=tuple((name, len(asked & set(run.qids))) for name, run in runs.items()),
        candidates=tuple(c.name for c in cands),
        policy=policy_text,
        saved_baseline=saved,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def describe(found: Found) -> str:
    """The report printed by ``evidencedesk validate``: one fact per line."""
    p = found.project
    kinds = {"markdown": "Markdown folders", "beir": "a BEIR corpus", "none": "no documents"}
    sources = ", ".join(p.relative(d) for d in p.documents) or "-"
    lines = [
        f"project: {p.name} ({p.path})",
        f"kind: {'pipeline (evidencedesk indexes the documents)' if p.kind == 'pipeline' else 'runs-only (each TREC run is a variant)'}",
        (
            f"documents: {kinds[p.documents_format]} ({sources}): "
            f"{_plural(found.documents, 'document')}, {_plural(found.chunks, 'chunk')}"
            + ("" if p.kind == "pipeline" else ", shown on question pages, not indexed")
            if p.documents_format != "none"
            else "documents: none (runs-only: questions, judgments and runs only)"
        ),
        f"questions: {found.questions} ({found.answerable} with a relevant judgment; "
        f"relevant = grade >= {p.relevance}, grades up to {p.max_grade})",
        "tags: " + (", ".join(f"{t} {n}" for t, n in found.tags) or "none"),
    ]
    runs = [f"{name} ({n}/{found.questions} questions)" for name, n in found.runs]
    lines.append("runs: " + (", ".join(runs) or "none"))
    if p.baseline_run:
        lines.append(f"baseline run: {p.baseline_run}")
    lines.append(
        f"candidates: {len(found.candidates)}"
        + (f" ({', '.join(found.candidates)})" if found.candidates else "")
    )
    lines.append(f"gate policy: {found.policy or 'none (every candidate gets REVIEW)'}")
    if p.policy is not None:
        saved = p.relative(p.baseline) if found.saved_baseline else "none"  # type: ignore[arg-type]
        lines.append(f"saved baseline: {saved}")
    skipped: Sequence[tuple[str, str]] = p.skipped_stages()
    for stage, why in skipped:
        lines.append(f"skipped: {stage}: {why}")
    lines.append("ok: the project loads; nothing was built")
    return "\n".join(printable(line) for line in lines)  # names from data: inert on a terminal
