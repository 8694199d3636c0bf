"""``evidencedesk validate``: load and check a project the way a build would, build nothing.

Every input the build reads goes through the build's own loaders (documents, questions and
judgments, runs, candidates with their configs and notes, gate policy and saved baseline, and a
pipeline's ``[extras]``: answers, dups, updates, tenants), so a
project that validates fails a build only on problems that appear while computing (none known),
and a project that does not validate fails with the same one-line error a build would give.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evidencedesk._inert import printable
from evidencedesk._metric_names import reading_note
from evidencedesk.cli import _BAD_INPUT, _add_project_argument
from evidencedesk.files.trec import read_run
from evidencedesk.results._inputs import Project, find_project
from evidencedesk.retrieval._coverage import Coverage
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.labels import QuestionCounts

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams
    from evidencedesk.results.types import Notice

__all__ = ["Found", "describe", "validate"]


@dataclass(frozen=True)
class Found:
    """What a project holds, counted."""

    project: Project
    first_line: str  # names the project read (`project.find_project`)
    documents: int
    chunks: int
    counts: QuestionCounts
    tags: tuple[tuple[str, int], ...]
    runs: tuple[tuple[str, Coverage], ...]  # name, its ids' coverage of the judgments
    candidates: tuple[str, ...]
    policy: str | None
    saved_baseline: bool
    notices: tuple[str, ...]  # what to know about the inputs (`report.notices`)
    # the compared metrics, primary first, as the site labels them, and how a name other tools
    # spell differently reads here (`metric_names.reading_note`)
    metrics: tuple[str, ...] = ()
    metric_notes: tuple[str, ...] = ()
    # name, how many documents of its top k the corpus holds, of how many (with a corpus only)
    in_corpus: tuple[tuple[str, int, int], ...] = ()
    # the candidates this machine will not run (a model of an optional extra not installed):
    # name, the line its page shows instead of numbers (`results._stages._not_run`)
    not_run: tuple[tuple[str, str], ...] = ()


def validate(path: Path | None = None, announce: Callable[[str], None] | None = None) -> Found:
    """Load every input of the project at `path` (default: the nearest ``evidencedesk.toml``, else the
    demo) and check each run's ids against the judgments, as a build would. Raises
    EvidencedeskError where a build would refuse."""
    import numpy as np

    from evidencedesk.baseline import load_baseline
    from evidencedesk.gate import load_policy
    from evidencedesk.report._words import (
        depth_sentence,
        most_relevant,
        notice_text,
        past_final,
        read_past,
    )
    from evidencedesk.results._candidates import load_candidates
    from evidencedesk.results._evaluate import model_warnings
    from evidencedesk.results._inputs import (
        _check_run_names,
        baseline_run,
        in_scope,
        notices,
        order_notices,
        shown_runs,
    )
    from evidencedesk.results._settings import settings_for
    from evidencedesk.results._stages import BUILTIN_NAMES, _not_run
    from evidencedesk.retrieval._coverage import (
        check_coverage,
        check_judged_shares,
        corpus_share,
        unjudged_top,
    )
    from evidencedesk.retrieval.evalreport import Config
    from evidencedesk.retrieval.lifecycle import _check_dense

    project, first_line = find_project(path)
    if announce is not None:  # the project's line, before any input is refused
        announce(first_line)
    settings = settings_for(project, project.seed)
    catalog = project.load_catalog()
    labels = project.load_labels(catalog)
    # a pipeline's run may not take a built-in variant's name, as its build refuses
    _check_run_names(project, (), BUILTIN_NAMES if settings.kind == "pipeline" else ())
    counts = in_scope(project.question_counts(), project, catalog, labels)
    qrels = {label.id: dict(label.grades) for label in labels}
    complete = frozenset(catalog.ids()) if catalog is not None and project.labels else None
    corpus = frozenset(catalog.ids()) if catalog is not None else None
    k = settings.judged_k
    checked: dict[str, tuple[Path, Coverage, list[str]]] = {}
    held: list[tuple[str, int, int]] = []
    # a runs-only build compares every run but the baseline run with it, as its candidates: the
    # most results each returns for a judged question (a pipeline's runs are variants, cut to
    # the final lists: their depth is not compared)
    runs_only = settings.kind == "runs" or catalog is None
    depths: dict[str, int] = {}
    shown = shown_runs(project, ())
    orders: list[Notice] = []  # where a run's file order does not count (`order_notices`)
    for name, file in project.runs:
        trec = read_run(file)
        found = check_coverage(trec, qrels, k, file, complete,
                               min_coverage=project.min_coverage, corpus=corpus)  # fmt: skip
        orders += order_notices(name, trec, shown[name])
        checked[name] = (file, found, unjudged_top(trec, qrels, k, complete))
        if runs_only:
            sizes = (
                int(n) for q, n in zip(trec.qids, np.diff(trec.offsets), strict=True) if q in qrels
            )
            depths[name] = min(max(sizes, default=0), project.max_depth or sys.maxsize)
        if corpus is not None:
            held.append((name, *corpus_share(trec, qrels, k, corpus, complete)))
    if corpus is None:
        check_judged_shares(checked, qrels, complete, project.min_coverage)
    coverage = tuple((name, found) for name, (_, found, _) in checked.items())
    cands = load_candidates(project.candidates, project.notes) if project.candidates else []
    names = tuple(c.name for c in cands)
    depth_notes: tuple[str, ...] = ()
    if runs_only and project.runs:
        baseline = baseline_run(project)
        names = tuple(name for name, _ in project.runs if name != baseline)

        @functools.cache
        def most() -> int:  # R-prec's largest R (read_past asks where R-prec is reported)
            return most_relevant((lb.grades for lb in labels), settings.relevance)

        shallow = [(name, depths[name],
                    read_past(settings.compared, min(depths[name], depths[baseline]), most))
                   for name in names if depths[name] != depths[baseline]]  # fmt: skip
        depth_notes = tuple(depth_sentence(name, depth, baseline, depths[baseline], past, True)
                            for name, depth, past in shallow if past)  # fmt: skip
    not_run: tuple[tuple[str, str], ...] = ()
    if catalog is not None and settings.kind == "pipeline":
        _check_extras(project, catalog)  # a pipeline's build reads them; a runs-only one skips them
        _check_dense(project.dense)  # MiniLM as the dense searcher, without its extra: refused
        not_run = tuple((c.name, c.reason) for c in _not_run(cands, project.dense))
    policy = load_policy(project.policy, labels) if project.policy else None
    saved = project.baseline is not None and project.baseline.is_file()
    if saved:
        kind = "runs" if catalog is None else "pipeline"
        load_baseline(project.baseline, labels, kind)  # type: ignore[arg-type]
    tags: dict[str, int] = {}
    for label in labels:
        for tag in label.tags:
            tags[tag] = tags.get(tag, 0) + 1
    policy_text = None
    if policy is not None:
        # every rule as the file sets it or leaves its default (notes are words, not rules)
        rules = [
            f"{key}={str(value).lower() if isinstance(value, bool) else value}"
            for key, value in policy.model_dump(exclude={"critical", "notes"}).items()
        ]
        critical = ", ".join(policy.critical) or "none"
        policy_text = (
            f"{project.relative(project.policy)} ({', '.join(rules)}, critical: {critical})"  # type: ignore[arg-type]
        )
    return Found(
        project=project,
        first_line=first_line,
        documents=len({c.doc_id for c in catalog.chunks}) if catalog is not None else 0,
        chunks=len(catalog) if catalog is not None else 0,
        counts=counts,
        tags=tuple(sorted(tags.items())),
        runs=coverage,
        candidates=names,
        policy=policy_text,
        saved_baseline=saved,
        notices=tuple(
            notice_text(n, project.kind)
            for n in (*notices(project, catalog, labels, counts), *orders)
        )
        + model_warnings(project, catalog, labels, cands),  # MiniLM on another script's texts
        metrics=tuple(m.label for m in settings.compared),
        metric_notes=tuple(
            note for m in settings.compared if (note := reading_note(m.name)) is not None
        )
        + tuple(filter(None, [past_final([m.label for m in settings.past_final], Config().final)]))
        + depth_notes,
        in_corpus=tuple(held),
        not_run=not_run,
    )


def _check_extras(project: Project, catalog: Catalog) -> None:
    """Read the ``[extras]`` inputs as the build's citation and evidence stages read them: the
    answers checked against the catalog's chunk ids, the dups and tenant documents, the one
    update (chunked as the freshness check chunks it) and the tenants file against every
    document loaded. Raises the error the build would."""
    from evidencedesk.results._evidence import read_update
    from evidencedesk.retrieval._citations import load_answers
    from evidencedesk.retrieval.catalog import _load_documents
    from evidencedesk.retrieval.lifecycle import Tenancy

    if project.answers is not None:
        load_answers(project.answers, known_chunks=catalog.by_id)
    dups = _load_documents([project.dups]) if project.dups is not None else []
    if project.updates is not None:
        read_update(catalog, project.updates, project.chunking)
    if project.tenants is not None and project.tenant_documents is not None:
        tenant_docs = _load_documents([project.tenant_documents])
        known = {d.id for d in (*catalog.documents, *dups, *tenant_docs)}
        Tenancy.load(project.tenants, known_docs=known)


def describe(found: Found) -> str:
    """The report printed by ``evidencedesk validate``: the project read, then one fact per
    line, each run's coverage of the judgments, and what to know about the inputs."""
    from evidencedesk.report._words import counts_sentence, how_many, share
    from evidencedesk.results._stages import dense_description

    p = found.project
    kinds = {"markdown": "Markdown folders", "beir": "a BEIR corpus", "none": "no documents"}
    sources = ", ".join(p.relative(d) for d in p.documents) or "-"
    lines = [
        found.first_line,
        f"kind: {'pipeline (evidencedesk indexes the documents)' if p.kind == 'pipeline' else 'runs-only (each TREC run is a variant)'}",
        (
            f"documents: {kinds[p.documents_format]} ({sources}): "
            f"{how_many(found.documents, 'document')}, {how_many(found.chunks, 'chunk')}"
            + ("" if p.kind == "pipeline" else ", shown on question pages, not indexed")
            if p.documents_format != "none"
            else "documents: none (runs-only: questions, judgments and runs only)"
        ),
        f"questions: {counts_sentence(found.counts, p.averaging)}; grades up to {p.max_grade}",
        "tags: " + (", ".join(f"{t} {n}" for t, n in found.tags) or "none"),
    ]
    if p.kind == "pipeline":  # its built-in variants' dense searcher (`[searchers] dense`)
        lines.append(f"dense searcher: {dense_description(p.dense)}")
    if not found.runs:
        lines.append("runs: none")
    held = {name: (n, top) for name, n, top in found.in_corpus}
    # trec_eval leaves out a run's queries without judgments, but it evaluates judged queries
    # that a queries file does not list: those the file leaves out (a warning below)
    not_questions = ("is not a judged question", "are not judged questions")
    why_left_out = (
        "left out, as trec_eval leaves it out",
        "left out, as trec_eval leaves them out",
    )
    if found.counts.without_text and p.queries is not None and not p.evaluate_unlisted:
        not_questions = ("is not a question evaluated", "are not questions evaluated")
        why = (f"left out (trec_eval leaves out those without judgments, not the judged "
               f"ones {p.relative(p.queries)} does not list: the warning below)")  # fmt: skip
        why_left_out = (why, why)
    for name, c in found.runs:
        in_corpus = ""
        if name in held:
            n, top = held[name]
            in_corpus = f", {n} of them {'is' if n == 1 else 'are'} in the corpus ({share(n, top)})"
        # the run's queries that are not judged questions: left out of every number
        unjudged = c.run_queries - c.answered
        left_out = (
            f"; {unjudged} of its {c.run_queries} queries "
            + not_questions[unjudged != 1]
            + f": {why_left_out[unjudged != 1]}"
            if unjudged
            else ""
        )
        lines.append(
            f"run {name}: answers {c.answered} of "
            f"{how_many(c.judged_queries, 'judged query', 'judged queries')} "
            f"({share(c.answered, c.judged_queries)}); {c.judged_anywhere} of the "
            f"{how_many(c.top, 'document')} of its top {c.k} "
            f"{'is' if c.judged_anywhere == 1 else 'are'} judged for some query "
            f"({share(c.judged_anywhere, c.top)}){in_corpus}{left_out}"
        )
    if p.baseline_run:
        lines.append(f"baseline run: {p.baseline_run}")
    lines.append(
        f"candidates: {len(found.candidates)}"
        + (f" ({', '.join(found.candidates)})" if found.candidates else "")
    )
    # the site's words for no policy, and what --fail-on reads (docs/gate.md)
    no_policy = "none: nothing is checked (each candidate's gate is REVIEW to --fail-on)"
    lines.append(f"gate policy: {found.policy or no_policy}")
    if p.policy is not None:
        saved = p.relative(p.baseline) if found.saved_baseline else "none"  # type: ignore[arg-type]
        lines.append(f"saved baseline: {saved}")
    if found.metrics:
        lines.append(f"metrics: {', '.join(found.metrics)} (the first is the primary)")
    lines += [f"note: {text}" for text in found.metric_notes]
    skipped: Sequence[tuple[str, str]] = p.skipped_stages()
    for stage, why in skipped:
        lines.append(f"skipped: {stage}: {why}")
    lines += [f"skipped: candidate {name}: {why}" for name, why in found.not_run]
    lines += [f"warning: {text}" for text in found.notices]
    lines.append("ok: the project loads; nothing was built")
    return "\n".join(printable(line) for line in lines)  # names from data: inert on a terminal


# the one-line summary of `evidencedesk validate` in the command list
HELP = "load and check a project, print what it holds, build nothing"
# what `evidencedesk validate --help` says the command does
DESCRIPTION = (
    "Load and check a project the way a build would (documents, questions and judgments, "
    "runs, candidates, gate policy, saved baseline, [extras]) and print what was found: kind, "
    "documents and chunks, questions, tags, runs, candidates, policy. Builds nothing."
)
# the exit statuses `evidencedesk validate --help` lists
EXIT = (
    "0    the project loads",
    _BAD_INPUT,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk validate` (--project) to its parser."""
    _add_project_argument(p)


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Run `evidencedesk validate`: load the project as a build would and print what it holds."""
    found = validate(args.project, streams.say)
    for line in describe(found).split("\n")[1:]:  # its first line was said as it was found
        streams.say(line)
    return 0
