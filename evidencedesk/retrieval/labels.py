"""Labelled questions: ``labels.jsonl``, one JSON object a line, with graded chunk labels."""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk._metric_names import DEFAULT_RELEVANCE
from evidencedesk.chunking import Chunk
from evidencedesk.errors import LabelsError
from evidencedesk.files._records import rows
from evidencedesk.files._text import tags_problem
from evidencedesk.files._trec_keys import alike_earlier, alike_problem, id_problem
from evidencedesk.paths import _LABELS

__all__ = ["Label", "QuestionCounts", "load_labels"]

# the question tags of the demo set, each a kind of question its slices compare
_TAGS = (
    "direct",
    "paraphrase",
    "exact_term",
    "structured",
    "bangla",
    "stale",
    "restricted",
    "unanswerable",
)
# every field a labels.jsonl line may have
_FIELDS = ("id", "question", "tags", "answerable", "grades")
_EXAMPLES = 3  # the ids behind a count that `QuestionCounts` keeps (a notice names them)


@dataclass(frozen=True)
class Label:
    """A labelled question: its text, tags, whether answerable, and each chunk's grade."""

    id: str
    question: str
    tags: tuple[str, ...]
    answerable: bool
    grades: Mapping[str, int] = field(default_factory=dict, compare=False)
    relevant_grade: int = DEFAULT_RELEVANCE
    # True: the grades cover every chunk, a missing one is grade 0 (a labels file); False: a
    # missing grade is unjudged (qrels, which judge a pool of documents, not the collection)
    complete: bool = True

    def grade_of(self, chunk: Chunk | str) -> int:
        key = chunk if isinstance(chunk, str) else chunk.id
        return self.grades.get(key, 0)

    @property
    def relevant(self) -> frozenset[str]:
        return frozenset(c for c, g in self.grades.items() if g >= self.relevant_grade)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "tags": list(self.tags),
            "answerable": self.answerable,
            "grades": dict(self.grades),
        }


@dataclass(frozen=True)
class QuestionCounts:
    """What a project's questions are, counted once, in one wording everywhere.

    `queries`: every query id the project names (its queries or labels file, and the judged
    ids); `judged`: with at least one judgment (a labels file judges every question); `relevant`:
    with a judgment at or above the relevance threshold (the questions the metrics average
    over, unless trec_eval's averaging is asked for); `unjudged`: named without any judgment,
    left out of every number; `without_text`: judged but absent from the queries file (a
    runs-only report shows the id; a pipeline cannot search them, so it leaves them out);
    `out_of_scope` (a pipeline project's, counted against its catalog's scope): of `relevant`,
    those whose relevant chunks are all superseded or restricted, scored as questions with
    nothing relevant (their metrics undefined, or as trec_eval scores them under its averaging).
    """

    queries: int
    judged: int
    relevant: int
    unjudged: int
    without_text: int
    threshold: int
    # a few of the ids behind `unjudged` and `without_text`, in file order (for the notices)
    unjudged_ids: tuple[str, ...] = ()
    without_text_ids: tuple[str, ...] = ()
    out_of_scope: int = 0
    out_of_scope_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _relevant_out_of_scope(
    grades: Mapping[str, int], in_scope: Container[str], relevance: int
) -> bool:
    """Whether a question's relevant judgments (grade >= `relevance`) all lie outside
    `in_scope` (a pipeline's scope: superseded or restricted chunks left out): it has some, so
    it is answerable, yet its metrics score it as a question with nothing relevant."""
    relevant = [c for c, g in grades.items() if g >= relevance]
    return bool(relevant) and not any(c in in_scope for c in relevant)


# a finer grade scale is a qrels file's to carry (docs/project-file.md), not a labels file's
_OTHER_SCALE = "; another grade scale: give it as qrels ([questions] qrels)"


def _expect(cond: bool, path: Path | str, line: int, message: str) -> None:
    if not cond:
        raise LabelsError(path, message, line)


def _parse_line(obj: dict[str, Any], path: Path | str, number: int, max_grade: int) -> Label:
    # a chunk graded twice on one line was refused as it was read ("kc-x:c0" twice in "grades")
    unknown = sorted(set(obj) - set(_FIELDS))
    _expect(
        not unknown,
        path,
        number,
        f"unknown field {unknown[0] if unknown else ''!r}; expected: {', '.join(_FIELDS)}",
    )
    for key in ("id", "question", "grades"):
        _expect(key in obj, path, number, f"expected field {key!r}, found none")
    qid, question, grades = obj["id"], obj["question"], obj["grades"]
    _expect(
        isinstance(qid, str) and qid.strip() != "",
        path,
        number,
        f"expected 'id' to be a non-empty string, found {qid!r}",
    )
    _expect(
        isinstance(question, str) and question.strip() != "",
        path,
        number,
        "expected 'question' to be a non-empty string",
    )
    tags = obj.get("tags", [])
    _expect(
        isinstance(tags, list) and all(isinstance(t, str) and t for t in tags),
        path,
        number,
        f"expected 'tags' to be a list of strings, found {tags!r}",
    )
    problem = tags_problem(tags)
    _expect(problem is None, path, number, str(problem))
    _expect(
        isinstance(grades, dict),
        path,
        number,
        f"expected 'grades' to be an object of chunk id -> grade, found {type(grades).__name__}",
    )
    # an id the TREC exports would not read back as itself
    problem = id_problem(qid, "query") or next(
        (p for c in grades if (p := id_problem(c, "document")) is not None), None
    )
    _expect(problem is None, path, number, str(problem))
    for chunk_id, grade in grades.items():
        whole = isinstance(grade, int) and not isinstance(grade, bool)
        _expect(
            whole and 0 <= grade <= max_grade,
            path,
            number,
            f"expected grade 0-{max_grade} for {chunk_id!r}, found {grade!r}"
            f"{_OTHER_SCALE if whole and grade > max_grade else ''}",
        )
    has_answer = any(g >= DEFAULT_RELEVANCE for g in grades.values())
    answerable = obj.get("answerable", has_answer)
    _expect(
        isinstance(answerable, bool),
        path,
        number,
        f"expected 'answerable' to be true or false, found {answerable!r}",
    )
    _expect(
        answerable == has_answer,
        path,
        number,
        f"expected an answerable question to have a grade-{DEFAULT_RELEVANCE} chunk and an unanswerable one none; "
        f"found answerable={str(answerable).lower()} with {sum(g >= DEFAULT_RELEVANCE for g in grades.values())} grade-{DEFAULT_RELEVANCE} chunk(s)",
    )
    return Label(qid, question, tuple(tags), answerable, dict(grades))


def _labels_of(
    rows: Iterable[tuple[int, dict[str, Any]]],
    path: Path | str,
    known_chunks: Container[str] | None,
    max_grade: int,
) -> list[Label]:
    """The labelled questions of a labels file's rows (`files._records.rows`); with
    `known_chunks` (a catalog), every labelled chunk id must be one of them."""
    labels: list[Label] = []
    seen: dict[str, int] = {}
    alike: tuple[dict[str, tuple[str, int]], ...] = ({}, {})  # question ids, chunk ids
    for number, obj in rows:
        label = _parse_line(obj, path, number, max_grade)
        if label.id in seen:
            raise LabelsError(
                path,
                f"expected unique question ids, found {label.id!r} again (first on line {seen[label.id]})",
                number,
            )
        seen[label.id] = number
        for value, kind, ids in (
            (label.id, "question", alike[0]),
            *((chunk_id, "chunk", alike[1]) for chunk_id in label.grades),
        ):
            earlier = alike_earlier(value, number, ids)
            if earlier is not None:
                raise LabelsError(path, alike_problem(kind, value, *earlier), number)
        if known_chunks is not None:
            for chunk_id in label.grades:
                _expect(
                    chunk_id in known_chunks,
                    path,
                    number,
                    f"unknown chunk id {chunk_id!r}; expected an id from the catalog like 'kc-returns-v3:c0'",
                )
        labels.append(label)
    if not labels:
        raise LabelsError(path, "expected at least one labelled question, found none")
    return labels


def load_labels(
    path: str | Path = _LABELS, catalog: Container[str] | None = None, max_grade: int = 2
) -> list[Label]:
    """Read ``labels.jsonl`` line by line; with a catalog, every labelled chunk id must exist in it.

    Grades are integers from 0 to `max_grade` (2 for labels files; other scales use qrels).
    """
    path = Path(path)
    return _labels_of(rows("labels", path), path, catalog, max_grade)


def _question_counts(
    judgments: Mapping[str, Mapping[str, int]], relevance: int, labels_file: bool,
    listed: Sequence[str] | None, evaluate_unlisted: bool = False,
) -> QuestionCounts:  # fmt: skip
    """A project's questions counted (`QuestionCounts`) from its `judgments` (qid -> id ->
    grade): a labels file's (`labels_file`) are all judged; else `listed` are the queries
    file's ids (None without one: the judged ids are the questions)."""
    if labels_file:
        n = len(judgments)
        relevant = sum(any(g >= relevance for g in d.values()) for d in judgments.values())
        return QuestionCounts(n, n, relevant, 0, 0, relevance)
    ids = listed or []
    judged = [qid for qid, docs in judgments.items() if docs]
    unjudged = [q for q in ids if q not in judgments or not judgments[q]]
    # without a queries file, every judged id is a question with no text of its own
    known = set(ids)
    without_text = [] if listed is None else [q for q in judged if q not in known]
    if not evaluate_unlisted:  # the questions are the ones the queries file lists
        judged = [q for q in judged if q in known] if listed is not None else judged
    relevant = sum(any(g >= relevance for g in judgments[q].values()) for q in judged)
    return QuestionCounts(len(known | set(judged)), len(judged), relevant, len(unjudged),
                          len(without_text), relevance, tuple(unjudged[:_EXAMPLES]),
                          tuple(without_text[:_EXAMPLES]))  # fmt: skip
