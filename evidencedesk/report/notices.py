"""The inputs in words: how many questions there are and what a reader must know about the inputs
before reading a number. One wording, used by the site, the build's output, ``validate`` and
``benchmark``.
"""

from __future__ import annotations

from evidencedesk.results.types import Notice
from evidencedesk.retrieval.coverage import Coverage
from evidencedesk.retrieval.labels import QuestionCounts

__all__ = [
    "answers_part",
    "counts_sentence",
    "coverage_sentence",
    "notice_text",
    "partial_coverage",
    "share",
]


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def share(part: int, whole: int) -> str:
    """A share as a whole percentage ("60 %"); below 1 % and above 99 % never rounded away."""
    if whole == 0:
        return "0 %"
    pct = part / whole * 100
    if 0 < pct < 1:
        return "< 1 %"
    if 99 < pct < 100:
        return "> 99 %"
    return f"{pct:.0f} %"


def counts_sentence(c: QuestionCounts, averaging: str = "defined") -> str:
    """What the questions are, counted: "50 questions: 40 judged, 38 with a relevant judgment
    (grade ≥ 1); 10 without any judgment are left out"."""
    if c.judged == c.queries and not c.unjudged:
        text = f"{_n(c.queries, 'question')}, all judged"
    else:
        text = f"{_n(c.queries, 'question')}: {c.judged} judged"
    text += f", {c.relevant} with a relevant judgment (grade ≥ {c.threshold})"
    if averaging == "trec_eval" and c.judged > c.relevant:
        text += f"; the other {c.judged - c.relevant} judged count 0 in every mean (trec_eval's averaging)"
    if c.unjudged:
        text += f"; {c.unjudged} without any judgment {'is' if c.unjudged == 1 else 'are'} left out"
    return text


def coverage_sentence(name: str, c: Coverage) -> str:
    """A run's coverage of the judged queries, in words."""
    return (
        f"the run {name} answers {c.answered} of the {c.judged_queries} judged queries "
        f"({share(c.answered, c.judged_queries)}); the others count as empty lists"
    )


def partial_coverage(name: str, c: Coverage) -> str:
    """The warning a run that answers part of the judged queries carries on its pages."""
    return f"Partial coverage: {coverage_sentence(name, c)}."


def answers_part(c: Coverage | None) -> bool:
    """Whether a run answers fewer than all of the judged queries: a run below
    ``[runs].min_coverage`` is refused, so only one that a lowered threshold lets through,
    whose pages then say that the others count as empty lists (`coverage_sentence`)."""
    return c is not None and c.answered < c.judged_queries


def _listed_ids(names: tuple[str, ...], count: int) -> str:
    shown = ", ".join(names)
    return f" ({shown}{', …' if count > len(names) else ''})" if names else ""


def notice_text(n: Notice, kind: str = "runs") -> str:
    """One notice as one line, starting with the file it is about. `kind`: the project's
    ("pipeline" searches by the question text; "runs" shows judged ids without text)."""
    where = n.path if n.line is None else f"{n.path}:{n.line}"
    if n.kind == "not_a_run":
        return f"{where}: skipped: not a TREC run (its first line is not 'qid Q0 docid rank score tag')"
    if n.kind == "empty_document":
        return (f"{where}: {_n(n.count, 'document')} with neither title nor text"
                f"{_listed_ids(n.names, n.count)}: shown, never indexed")  # fmt: skip
    if n.kind == "without_text":  # runs-only, [questions] evaluate_unlisted = true
        verb = "is" if n.count == 1 else "are"
        return (f"{where}: {n.count} of the {n.total} judged queries {verb} not in the queries "
                f"file{_listed_ids(n.names, n.count)}: evaluated and shown by their ids "
                f"([questions] evaluate_unlisted)")  # fmt: skip
    if n.kind == "unlisted":  # where: the queries file
        verb = "is" if n.count == 1 else "are"
        evaluate = (
            "" if kind == "pipeline" else " ([questions] evaluate_unlisted = true evaluates them)"
        )
        return (f"{_n(n.count, 'judged query', 'judged queries')} {verb} not in {n.path}"
                f"{_listed_ids(n.names, n.count)}: left out{evaluate}")  # fmt: skip
    if n.kind == "judged_not_in_corpus":
        verb = "is" if n.count == 1 else "are"
        return (f"{where}: {n.count} of the {n.total} judged documents {verb} not in the corpus"
                f"{_listed_ids(n.names, n.count)}: their judgments count in every metric, no page "
                "can show them")  # fmt: skip
    if n.kind == "unjudged":
        verb = "has" if n.count == 1 else "have"
        return (f"{where}: {n.count} of its {n.total} queries {verb} no judgment"
                f"{_listed_ids(n.names, n.count)}: left out, as trec_eval leaves them out")  # fmt: skip
    raise ValueError(f"unknown notice kind {n.kind!r}")
