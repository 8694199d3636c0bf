"""results.since.Since -> the "Since last report" section (index) and page (since.html).

Formatting only: what changed is computed in `evidencedesk.results.since`.
"""

from __future__ import annotations

from dataclasses import dataclass

from evidencedesk.report._values import Plain, config_word, fmt
from evidencedesk.report._words import defined_by, how_many
from evidencedesk.results.since import QuestionChange, Since, VerdictChange
from evidencedesk.results.types import Results

_SHOWN_ON_INDEX = 5  # items per group on the index; the rest on since.html


@dataclass(frozen=True)
class _SinceItem(Plain):
    """One change on since.html: what changed (a question, candidate, run or file) and how."""

    subject: str  # a question id, a candidate, a run or a file
    text: str  # our words, run names in them (isolated as names where they hold RTL text)
    question: bool = False  # subject is a question id (linked to its page)
    # data between the subject and the words: a label grade's chunk or document id, isolated
    # on its own (in `text` a right-to-left id would turn the words around it)
    detail: str = ""


@dataclass(frozen=True)
class _SinceGroup(Plain):
    """One group of since.html (inputs, verdicts, metrics, questions) and what counts in it."""

    key: str  # "inputs", "verdicts", "metrics", "fail", "pass"
    title: str
    rule: str  # what counts as a change in this group
    items: tuple[_SinceItem, ...]


@dataclass(frozen=True)
class SinceView(Plain):
    """What changed since the --compare-to report: the groups with changes, a count, a summary."""

    previous: str  # "evidencedesk 0.9.0, inputs sha256 ab12…, project demo"
    notes: tuple[str, ...]  # same inputs; another seed
    groups: tuple[_SinceGroup, ...]  # only groups with items
    changes: int  # 0: nothing changed
    summary: str  # "2 verdicts changed · 1 metric moved · ..." or "No changes ..."
    shown: int = _SHOWN_ON_INDEX


# the summary when the comparison finds nothing changed
_NO_CHANGES = (
    "No changes: the same verdicts, no metric outside its previous interval, no question "
    "newly failing or passing, and the same labels."
)


def _grade(g: int | None) -> str:
    return "unlabelled" if g is None else f"grade {g}"


def _verdict(before: str | None, after: str | None, gb: str | None, ga: str | None) -> str:
    if before is None:
        return f"new candidate: {after} (gate {ga})"
    if after is None:
        return f"removed (was {before}, gate {gb})"
    text = f"{before} → {after}" if before != after else f"still {after}"
    gate = f"gate {gb} → {ga}" if gb != ga else f"gate {ga}"
    return f"{text} ({gate})"


def _tested(change: tuple[tuple[str, str], ...]) -> str:
    """A candidate's config change in words: "reranker feature, depth 15"."""
    words = (f"{field} {config_word(field, value)}" for field, value in change)
    return ", ".join(words) or "the baseline's config"


def _candidate(c: VerdictChange) -> str:
    """A candidate's line: its verdict and gate level before and after, led by the change it
    now tests when another change took its name."""
    said = _verdict(c.before, c.after, c.gate_before, c.gate_after)
    if c.kind != "redefined":
        return said
    return f"its change is now {_tested(c.change_after)} (was {_tested(c.change_before)}); {said}"


def _inputs(s: Since) -> tuple[_SinceItem, ...]:
    items = [_SinceItem(f.path, f"file {f.change}") for f in s.files]
    items += [
        _SinceItem(g.question, f"{_grade(g.before)} → {_grade(g.after)}", True, g.chunk)
        for g in s.grades
    ]
    items += [_SinceItem(q, "new question", True) for q in s.questions_added]
    items += [_SinceItem(q, "question removed") for q in s.questions_removed]
    return tuple(items)


def _runs(runs: tuple[str, ...]) -> str:
    return ", ".join(runs)


def _failed(q: QuestionChange, defined: str) -> str:
    """A newly failing question: the runs it fails in now, or why it passes in none (no
    `defined`: `words.defined_by`)."""
    if q.judgment:
        return f"no {defined} now (it passed before in {_runs(q.runs)})"
    return f"now fails in {_runs(q.runs)}"


def _passed(q: QuestionChange, defined: str) -> str:
    """A newly passing question: the runs it passes in now (and that it had no `defined`
    before, when that is why it did not pass)."""
    return f"now passes in {_runs(q.runs)}" + (f" (no {defined} before)" * q.judgment)


def _first(since: Since) -> str:
    """The pass rule's depth: one number when every run has the same, else each run's."""
    if all(k == since.k for _, k in since.depths):
        return str(since.k)
    return "k (each run's final list: " + ", ".join(f"{n} {k}" for n, k in since.depths) + ")"


def since_view(since: Since, results: Results) -> SinceView:
    """The since page's model: every group of changes in words, notes on inputs and seed."""
    labels = {m.name: m.label for m in results.settings.metrics}
    defined = defined_by(results.settings.kind)
    groups = [
        _SinceGroup("inputs", "Inputs and labels",
                   "project files whose sha256 changed, every label grade that changed",
                   _inputs(since)),
        _SinceGroup("verdicts", "Verdicts",
                   "each candidate's verdict and gate level against the previous report, and "
                   "the config change it tests when another took its name",
                   tuple(_SinceItem(c.candidate, _candidate(c)) for c in since.verdicts)),
        _SinceGroup("metrics", "Metrics beyond their previous interval",
                   "the new mean lies outside the previous report's 95 % interval of the same "
                   "run and metric",
                   tuple(_SinceItem(m.run, f"{labels.get(m.metric, m.metric)} {fmt(m.before)} → "
                                   f"{fmt(m.after)} (previous interval [{fmt(m.low)}, "
                                   f"{fmt(m.high)}])")
                         for m in since.metrics)),
        _SinceGroup("fail", "Questions that newly fail",
                   f"a relevant result within the first {_first(since)} before, none now or no "
                   f"{defined} now",
                   tuple(_SinceItem(q.question, _failed(q, defined), True)
                         for q in since.newly_fail)),
        _SinceGroup("pass", "Questions that newly pass",
                   f"no relevant result within the first {_first(since)} (or no {defined}) "
                   "before, one now",
                   tuple(_SinceItem(q.question, _passed(q, defined), True)
                         for q in since.newly_pass)),
    ]  # fmt: skip
    shown = tuple(g for g in groups if g.items)
    notes = []
    if since.same_inputs:
        notes.append("The inputs are the same as the previous report's (same sha256).")
    if since.previous_project != results.inputs.project:
        notes.append(
            f"The previous report is of another project ({since.previous_project}); this one is "
            f"{results.inputs.project}."
        )
    if since.seed_before != since.seed_after:
        notes.append(
            f"The previous report used seed {since.seed_before}, this one seed "
            f"{since.seed_after}: intervals and resampled p-values differ with the seed."
        )
    if since.relevant_before != since.relevant_after:
        notes.append(
            f"Questions with a {defined} (only they can pass): "
            f"{since.relevant_before} → {since.relevant_after}."
        )
    kinds = [c.kind for c in since.verdicts]
    counts = [
        how_many(n, one, many)
        for n, one, many in (
            (len(since.files), "input file changed", "input files changed"),
            (len(since.grades), "label grade changed", "label grades changed"),
            (len(since.questions_added), "question added", "questions added"),
            (len(since.questions_removed), "question removed", "questions removed"),
            (kinds.count("verdict"), "verdict changed", "verdicts changed"),
            (kinds.count("gate"), "gate level changed (same verdict)",
             "gate levels changed (same verdicts)"),
            (kinds.count("added"), "candidate added", "candidates added"),
            (kinds.count("removed"), "candidate removed", "candidates removed"),
            (kinds.count("redefined"), "candidate redefined", "candidates redefined"),
            (len(since.metrics), "metric moved beyond its interval",
             "metrics moved beyond their interval"),
            (len(since.newly_fail), "question newly fails", "questions newly fail"),
            (len(since.newly_pass), "question newly passes", "questions newly pass"),
        )
        if n
    ]  # fmt: skip
    return SinceView(
        previous=(
            f"evidencedesk {since.previous_version}, inputs sha256 "
            f"{since.previous_input_hash[:12]}…, project {since.previous_project}"
        ),
        notes=tuple(notes),
        groups=shown,
        changes=since.changes,
        summary=" · ".join(counts) if counts else _NO_CHANGES,
    )
