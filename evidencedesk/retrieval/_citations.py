"""Citation checks for generated answers with inline ``[chunk id]`` citations.

`check_sentences` splits an answer into sentences and checks each one; `citation_scores` sums up:

- **coverage**: share of sentences that cite at least one chunk;
- **resolve**: share of citations that name a chunk that was shown to the model;
- **support**: share of citing sentences whose numbers and identifiers all appear in the cited
  (and shown) chunk text, and at least 80 % of whose other content words do.

The support check compares words, not meaning. **It cannot see negation**: "opened helmets can be
returned" uses the same content words as "opened helmets cannot be returned" minus the negation
and scores as supported. A high support score is necessary, not sufficient.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidencedesk.chunking import Chunk
from evidencedesk.errors import AnswersError
from evidencedesk.files._structured import parse_json
from evidencedesk.files._text import read_text
from evidencedesk.retrieval._tokens import NUMBER, content_words, is_identifier

# the share of a sentence's other content words the cited chunk must hold to support it
_WORD_SHARE = 0.8
# a chunk id of a Markdown corpus: a document id, then `:c` and the chunk's number (checked only
# when no catalog is given: with one, an id is checked against the catalog's, whatever their
# shape; a BEIR corpus's chunk id is its document id)
_CHUNK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*:c\d+$")
_BRACKET = re.compile(
    r"\[([^\[\]]*)\]"
)  # an inline citation: the chunk ids between square brackets
_BOUNDARY = re.compile(r"[.!?।](?:\s*\[[^\[\]]*\])*(?=\s|$)")
# every field an answers.jsonl line may have
_FIELDS = ("id", "question_id", "case", "answer", "shown", "note", "expect")
# the fields every answers.jsonl line must have
_REQUIRED = ("id", "question_id", "case", "answer", "shown")
# the three citation scores, in the order they are reported
_SCORES = ("coverage", "resolve", "support")


def _citation_ids(inner: str, known: Container[str] | None = None) -> list[str] | None:
    """Ids in one bracket (``a:c1, b:c2``), or None if it is not a citation: each id has the
    ``<doc>:c<n>`` shape or is one of the `known` chunk ids (the catalog's, whatever their shape)."""
    parts = [p.strip() for p in re.split(r"[,;]", inner)]
    ok = all(_CHUNK_ID.match(p) or (known is not None and p in known) for p in parts)
    return parts if parts and ok else None


def _split_sentences(answer: str) -> list[str]:
    """Sentences end at ``. ! ? ।`` + space; citations right after the stop stay with it."""
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(answer):
        out.append(answer[start : m.end()].strip())
        start = m.end()
    out.append(answer[start:].strip())
    return [s for s in out if s]


def numbers(text: str) -> frozenset[str]:
    """Numbers in `text`, digits of any script folded to ASCII (৩০ == 30), commas dropped."""
    out = set()
    for raw in NUMBER.findall(text):
        out.add("".join(str(unicodedata.digit(ch)) if ch.isdigit() else ch for ch in raw))
    return frozenset(n.replace(",", "") for n in out)


@dataclass(frozen=True)
class SentenceCheck:
    """One answer sentence: its text without citations, what it cites, and the verdicts."""

    text: str
    cites: tuple[str, ...]
    resolved: tuple[str, ...]
    supported: bool | None
    missing: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "cites": list(self.cites),
            "resolved": list(self.resolved),
            "supported": self.supported,
            "missing": list(self.missing),
        }


def _shown_texts(shown: Mapping[str, Any] | Sequence[Chunk]) -> dict[str, str]:
    if isinstance(shown, Mapping):
        return {k: v if isinstance(v, str) else v.text for k, v in shown.items()}
    return {c.id: c.text for c in shown}


def _missing(sentence: str, evidence: str) -> list[str]:
    """Facts absent from the evidence, plus content words if fewer than WORD_SHARE are present."""
    ev_words = set(content_words(evidence))
    gone = sorted(numbers(sentence) - numbers(evidence))
    words = list(dict.fromkeys(content_words(NUMBER.sub(" ", sentence))))
    ids = [w for w in dict.fromkeys(content_words(sentence)) if is_identifier(w)]
    gone += [w for w in ids if w not in ev_words]
    absent = [w for w in words if w not in ev_words and not any(ch.isdigit() for ch in w)]
    plain = [w for w in words if not any(ch.isdigit() for ch in w)]
    if plain and (len(plain) - len(absent)) / len(plain) < _WORD_SHARE:
        gone += absent
    return gone


@dataclass(frozen=True)
class _Either(Container[str]):
    """The ids of two containers: the shown chunks' and the catalog's."""

    first: Container[str]
    second: Container[str]

    def __contains__(self, item: object) -> bool:
        return item in self.first or item in self.second


def check_sentences(
    answer: str, shown: Mapping[str, Any] | Sequence[Chunk], known: Container[str] | None = None
) -> list[SentenceCheck]:
    """Check every sentence of `answer` against the chunks `shown` to the model.

    `shown` maps chunk id -> chunk (or text), or is a list of chunks. Support is judged only
    against cited chunks that were shown: a chunk the model never saw cannot support it.
    `known`: every chunk id of the catalog (a bracket of them is a citation whatever their shape;
    the shown ids always are).
    """
    texts = _shown_texts(shown)
    ids: Container[str] = _Either(texts, known) if known is not None else texts
    checks: list[SentenceCheck] = []
    for sentence in _split_sentences(answer):
        cites: list[str] = []
        for m in _BRACKET.finditer(sentence):
            cites.extend(_citation_ids(m.group(1), ids) or [])
        cites = list(dict.fromkeys(cites))
        plain = _BRACKET.sub(
            lambda m: "" if _citation_ids(m.group(1), ids) else m.group(0), sentence
        ).strip()
        plain = re.sub(r"\s+([.!?।,;:])", r"\1", re.sub(r"\s{2,}", " ", plain))
        resolved = tuple(c for c in cites if c in texts)
        if not cites:
            checks.append(SentenceCheck(plain, (), (), None))
            continue
        evidence = "\n".join(texts[c] for c in resolved)
        gone = _missing(plain, evidence) if resolved else ["<no shown chunk cited>"]
        checks.append(SentenceCheck(plain, tuple(cites), resolved, not gone, tuple(gone)))
    return checks


@dataclass(frozen=True)
class CitationScores(Mapping[str, float | None]):
    """coverage / resolve / support (None when undefined: no sentences / citations / citers).

    Also a read-only mapping of exactly those three, ``s["coverage"]``, printed as the plain
    dict; the counts behind them (and the per-sentence checks) stay attributes.
    """

    sentences: int
    cited: int
    citations: int
    resolved: int
    supported: int
    checks: tuple[SentenceCheck, ...] = field(default=(), compare=False)

    @property
    def coverage(self) -> float | None:
        return self.cited / self.sentences if self.sentences else None

    @property
    def resolve(self) -> float | None:
        return self.resolved / self.citations if self.citations else None

    @property
    def support(self) -> float | None:
        return self.supported / self.cited if self.cited else None

    def __getitem__(self, name: str) -> float | None:
        if name not in _SCORES:
            raise KeyError(name)
        score: float | None = getattr(self, name)
        return score

    def __iter__(self) -> Iterator[str]:
        return iter(_SCORES)

    def __len__(self) -> int:
        return len(_SCORES)

    def __repr__(self) -> str:
        return repr(dict(self))

    def to_dict(self) -> dict[str, Any]:
        return {
            "coverage": self.coverage,
            "resolve": self.resolve,
            "support": self.support,
            "sentences": self.sentences,
            "cited": self.cited,
            "citations": self.citations,
            "resolved": self.resolved,
            "supported": self.supported,
            "checks": [c.to_dict() for c in self.checks],
        }


def citation_scores(checks: Sequence[SentenceCheck]) -> CitationScores:
    """The citation scores of an answer from its sentences' checks."""
    return CitationScores(
        sentences=len(checks),
        cited=sum(bool(c.cites) for c in checks),
        citations=sum(len(c.cites) for c in checks),
        resolved=sum(len(c.resolved) for c in checks),
        supported=sum(c.supported is True for c in checks),
        checks=tuple(checks),
    )


@dataclass(frozen=True)
class Answer:
    """One line of ``answers.jsonl``."""

    id: str
    question_id: str
    case: str
    answer: str
    shown: tuple[str, ...]
    note: str = ""
    expect: Mapping[str, float | None] = field(default_factory=dict, compare=False)
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question_id": self.question_id,
            "case": self.case,
            "answer": self.answer,
            "shown": list(self.shown),
            "note": self.note,
            "expect": dict(self.expect),
        }


def score_answer(answer: Answer, chunks: Mapping[str, Chunk]) -> CitationScores:
    """Scores of one `Answer`; shown ids are looked up in `chunks` (e.g. ``catalog.by_id``)."""
    shown = {cid: chunks[cid] for cid in answer.shown if cid in chunks}
    return citation_scores(check_sentences(answer.answer, shown, chunks))


def _first_id(known: Container[str] | None) -> str | None:
    """The first id of a catalog (a `Catalog` or a mapping of its ids), if it has one."""
    ids = getattr(known, "by_id", known)
    return next(iter(ids), None) if isinstance(ids, Mapping) else None


def _parse_line(raw: str, path: str | Path, n: int, known: Container[str] | None) -> Answer:
    def fail(message: str) -> AnswersError:
        return AnswersError(path, message, n)

    obj = parse_json(raw, path, AnswersError, n, "a JSON object")
    if not isinstance(obj, dict):
        raise fail(f"expected a JSON object, found {type(obj).__name__}")
    unknown = sorted(set(obj) - set(_FIELDS))
    if unknown:
        raise fail(f"unknown field {unknown[0]!r}; expected: {', '.join(_FIELDS)}")
    for key in _REQUIRED:
        if key not in obj:
            raise fail(f"expected field {key!r}, found none")
    for key in ("id", "question_id", "case", "answer"):
        if not isinstance(obj[key], str) or not obj[key].strip():
            raise fail(f"expected {key!r} to be a non-empty string, found {obj[key]!r}")
    shown = obj["shown"]
    if not isinstance(shown, list) or not all(isinstance(s, str) for s in shown):
        raise fail(f"expected 'shown' to be a list of chunk ids, found {shown!r}")
    for cid in shown:  # with a catalog, its ids whatever their shape (a BEIR corpus's: doc ids)
        if known is None and not _CHUNK_ID.match(cid):
            raise fail(f"expected a shown chunk id like 'kc-returns-v3:c0', found {cid!r}")
        if known is not None and cid not in known:
            raise fail(f"unknown shown chunk id {cid!r}; expected an id from the catalog")
    for m in _BRACKET.finditer(obj["answer"]):
        if _citation_ids(m.group(1), known) is None:
            like = "'[kc-returns-v3:c0]' (<doc_id>:c<n>)"
            first = _first_id(known)
            if first is not None:  # the catalog's ids: its first as the example
                like = f"'[{first}]' (chunk ids from the catalog)"
            raise fail(f"expected citations like {like}, found '[{m.group(1)}]'")
    note = obj.get("note", "")
    if not isinstance(note, str):
        raise fail(f"expected 'note' to be a string, found {type(note).__name__}")
    expect = obj.get("expect", {})
    if not isinstance(expect, dict) or set(expect) - set(_SCORES):
        raise fail(f"expected 'expect' to be an object with keys {', '.join(_SCORES)}")
    for key, value in expect.items():
        ok = value is None or (
            isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
        )
        if not ok:
            raise fail(f"expected expect.{key} to be a number in [0, 1] or null, found {value!r}")
    return Answer(
        obj["id"], obj["question_id"], obj["case"], obj["answer"], tuple(shown), note, expect, n
    )


def _parse_answers(
    text: str, path: str | Path = "<answers>", known_chunks: Container[str] | None = None
) -> list[Answer]:
    """The answers of an answers.jsonl text, each checked; ids unique, at least one answer."""
    answers: list[Answer] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        answer = _parse_line(raw, path, n, known_chunks)
        if answer.id in seen:
            raise AnswersError(
                path,
                f"expected unique answer ids, found {answer.id!r} again (first on line {seen[answer.id]})",
                n,
            )
        seen[answer.id] = n
        answers.append(answer)
    if not answers:
        raise AnswersError(path, "expected at least one answer, found none")
    return answers


def load_answers(path: str | Path, known_chunks: Container[str] | None = None) -> list[Answer]:
    """Read ``answers.jsonl``; errors read ``file:line: expected ..., found ...``."""
    path = Path(path)
    text = read_text(path, AnswersError, "answers file", max_line=True)
    return _parse_answers(text, path, known_chunks)
