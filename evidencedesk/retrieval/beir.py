"""BEIR layout: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/*.tsv``; tags files; judgments -> labels.

A BEIR corpus becomes a `Catalog` with **one chunk per document whose chunk id is the document
id**, so runs and qrels keyed by document id line up with the catalog. Every reader names the file
and line of the first thing it cannot use.

Each reader is two halves: the file's rows (`files._records.rows`), then the value made from them
(`_corpus_of`, `_queries_of`, `_tags_of`). A project's catalog and questions are made here from
its line files' rows, read before (`_catalog_from`, `_labels_from`: `results._inputs.read_inputs`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from evidencedesk.chunking import Chunk, Document
from evidencedesk.errors import DocumentError, InputError, LabelsError
from evidencedesk.files._records import LineFiles, rows, text_lines
from evidencedesk.files._text import FORMULA_STARTS, LongestId, has_space, tags_problem
from evidencedesk.files._trec_keys import alike_earlier, alike_problem, has_alike, id_problem
from evidencedesk.files.trec import _GRADES, Qrels
from evidencedesk.retrieval.catalog import Catalog, _catalog_of
from evidencedesk.retrieval.labels import Label, QuestionCounts, _labels_of, _question_counts

__all__ = [
    "read_beir_corpus",
    "read_beir_qrels",
    "read_queries",
    "read_tags",
]

_QRELS_HEADER = ("query-id", "corpus-id", "score")  # the header line of a BEIR qrels .tsv file
_MIN_GRADE, _MAX_GRADE = _GRADES  # qrels grades; a negative one is judged not relevant
_GRADE = re.compile(r"[+-]?[0-9]{1,4}")  # ASCII digits only: int() would take "２" or "1_0"


class _Query(NamedTuple):
    """A question from a queries file: its id, its text and its tags."""

    id: str
    text: str
    tags: tuple[str, ...] = ()


def _parse_grade(text: str, path: str | Path, number: int, error: type[InputError]) -> int | None:
    """The integer grade in `text` (`_MIN_GRADE`..`_MAX_GRADE`), or None when `text` is not an
    integer at all."""
    if not _GRADE.fullmatch(text):
        if re.fullmatch(r"[+-]?[0-9]+", text):
            shown = text if len(text) <= 20 else f"{text[:20]}…"
            raise error(
                path, f"expected a grade from {_MIN_GRADE} to {_MAX_GRADE}, found {shown}", number
            )
        return None
    grade = int(text)
    if not _MIN_GRADE <= grade <= _MAX_GRADE:
        raise error(
            path, f"expected a grade from {_MIN_GRADE} to {_MAX_GRADE}, found {grade}", number
        )
    return grade


def _ident(
    obj: dict[str, Any], keys: Sequence[str], path: Path, n: int, err: type[InputError],
    kind: str = "query",
) -> str:  # fmt: skip
    """The id under the first of `keys` in `obj`: a non-empty string (or an integer) that a
    TREC file reads back as itself (`trec_keys.id_problem`: `kind` is "query" or "document")."""
    key = next((k for k in keys if k in obj), None)
    if key is None:
        raise err(path, f"expected field {' or '.join(map(repr, keys))}, found none", n)
    value = obj[key]
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or has_space(value):
        raise err(path, f"expected {key!r} to be a non-empty id without spaces, found {value!r}", n)
    problem = id_problem(value, kind)
    if problem is not None:
        raise err(path, f"{key!r}: {problem}", n)
    return value


def _tags(value: object, path: Path, n: int, err: type[InputError]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise err(path, f"expected 'tags' to be a list of non-empty strings, found {value!r}", n)
    return _checked_tags([t.strip() for t in value], path, n, err)


def _checked_tags(
    tags: Sequence[str], path: Path, n: int, err: type[InputError]
) -> tuple[str, ...]:
    """`tags` once each, in order; refused as `files._text.tags_problem` says."""
    problem = tags_problem(tags)
    if problem is not None:
        raise err(path, problem, n)
    return tuple(dict.fromkeys(tags))


def read_beir_corpus(path: str | Path) -> Catalog:
    """``{"_id" (or "id"), "title", "text"}`` per line -> one chunk per document, chunk id = doc id.

    A document with neither title nor text is kept and listed in `Catalog.empty` (id, line): a
    runs-only project only shows documents, a pipeline refuses to index it (`_corpus_of`)."""
    return _corpus_of(rows("corpus", path), Path(path))


def _corpus_of(
    rows: Iterable[tuple[int, dict[str, Any]]], path: Path, indexed: bool = False
) -> Catalog:
    """The catalog of a BEIR corpus's rows (`files._records.rows`); `indexed`: a pipeline
    indexes every document, so an empty one is an error there."""
    documents: list[Document] = []
    chunks: list[Chunk] = []
    empty: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    alike: dict[str, tuple[str, int]] = {}
    longest = LongestId()
    for number, obj in rows:
        doc_id = _ident(obj, ("_id", "id"), path, number, DocumentError, "document")
        longest.see(doc_id, number)
        if doc_id in seen:
            raise DocumentError(
                path,
                f"expected unique document ids, found {doc_id!r} again (first on line {seen[doc_id]})",
                number,
            )
        seen[doc_id] = number
        earlier = alike_earlier(doc_id, number, alike)
        if earlier is not None:
            raise DocumentError(path, alike_problem("document", doc_id, *earlier), number)
        title, text = obj.get("title", ""), obj.get("text")
        if title is None:
            title = ""
        if not isinstance(title, str):
            raise DocumentError(path, f"expected 'title' to be a string, found {title!r}", number)
        if not isinstance(text, str):
            found = "none" if "text" not in obj else repr(text)
            raise DocumentError(
                path, f"expected field 'text' to be a string, found {found}", number
            )
        if not (title.strip() or text.strip()):
            empty.append((doc_id, number))
        doc = Document(
            doc_id, title, 1, "current", "public", "und", doc_id, text, f"{path}:{number}"
        )
        documents.append(doc)
        chunks.append(
            Chunk(
                id=doc_id,
                doc_id=doc_id,
                title=title,
                text=text,
                language="und",
                series=doc_id,
                metadata=doc.to_dict(),
            )
        )
    if not chunks:
        raise DocumentError(path, "expected at least one document, found none")
    longest.check(path, len(chunks), "documents", DocumentError)
    if indexed and empty:
        doc_id, line = empty[0]
        raise DocumentError(
            path, f"expected a title or some text in every document a pipeline indexes, found "
            f"both empty in {doc_id!r}", line,
        )  # fmt: skip
    return Catalog(chunks=tuple(chunks), documents=tuple(documents), empty=tuple(empty))


def read_queries(path: str | Path) -> list[_Query]:
    """BEIR ``queries.jsonl`` (``{"_id", "text"}`` + optional ``"tags"``) or a ``qid<TAB>text`` TSV."""
    return _queries_of(rows("queries", path), Path(path))


def _queries_of(rows: Iterable[tuple[int, str | dict[str, Any]]], path: Path) -> list[_Query]:
    """The queries of a queries file's rows (`files._records.rows`): checked all at once where
    nothing is wrong (`_plain_queries`), else line by line, which names the first problem's
    line (`_checked_queries`)."""
    rows = iter(rows)
    read: list[tuple[int, str | dict[str, Any]]] = []
    plain = _plain_queries(rows, read)
    return plain if plain is not None else _checked_queries(itertools.chain(read, rows), path)


def _plain_queries(
    rows: Iterator[tuple[int, str | dict[str, Any]]], read: list[tuple[int, str | dict[str, Any]]]
) -> list[_Query] | None:
    """The queries of JSON rows in which `_checked_queries` would find nothing wrong, each
    check made once over all of them (printable ids and tags, no space in any: one scan of them
    joined); None as soon as a row is not such a row, or when a check over all of them fails.
    Every row taken from `rows` is added to `read`."""
    ids: list[str] = []
    texts: list[str] = []
    tagged: list[list[str]] = []
    for row in rows:
        read.append(row)
        raw = row[1]
        if type(raw) is not dict:
            return None
        qid = raw["_id"] if "_id" in raw else raw.get("id")  # (`_ident`'s keys, in order)
        text, tags = raw.get("text"), raw["tags"] if "tags" in raw else []
        if type(qid) is int:
            qid = str(qid)
        if type(qid) is not str or type(text) is not str or type(tags) is not list:
            return None
        ids.append(qid)
        texts.append(text.strip())
        tagged.append([t.strip() if type(t) is str else "" for t in tags])
    every_tag = [t for tags in tagged for t in tags]
    if not (ids and all(ids) and all(texts) and all(every_tag)):
        return None
    joined = "".join(ids) + "".join(every_tag)
    if not joined.isprintable() or " " in joined:  # no white space, no control character
        return None
    if any(qid.startswith(("#", *FORMULA_STARTS)) for qid in ids) or len(set(ids)) < len(ids):
        return None
    if has_alike(ids):
        return None
    return [_Query(qid, text, tuple(dict.fromkeys(tags) if len(tags) > 1 else tags))
            for qid, text, tags in zip(ids, texts, tagged, strict=True)]  # fmt: skip


def _checked_queries(rows: Iterable[tuple[int, str | dict[str, Any]]], path: Path) -> list[_Query]:
    """The queries of a queries file's rows, checked line by line."""
    queries: list[_Query] = []
    seen: dict[str, int] = {}
    alike: dict[str, tuple[str, int]] = {}
    for number, raw in rows:
        if isinstance(raw, str):
            qid, sep, text = raw.partition("\t")
            if not sep or not qid.strip() or not text.strip():
                raise LabelsError(
                    path, f"expected 'query id<TAB>query text', found {raw[:60]!r}", number
                )
            problem = id_problem(qid.strip(), "query")
            if problem is not None:
                raise LabelsError(path, problem, number)
            query = _Query(qid.strip(), text.strip())
        else:
            qid = _ident(raw, ("_id", "id"), path, number, LabelsError)
            given = raw.get("text")
            if not isinstance(given, str) or not given.strip():
                raise LabelsError(
                    path, f"expected 'text' to be a non-empty string, found {given!r}", number
                )
            tags = _tags(raw["tags"], path, number, LabelsError) if "tags" in raw else ()
            query = _Query(qid, given.strip(), tags)
        if query.id in seen:
            raise LabelsError(
                path,
                f"expected unique query ids, found {query.id!r} again (first on line {seen[query.id]})",
                number,
            )
        seen[query.id] = number
        earlier = alike_earlier(query.id, number, alike)
        if earlier is not None:
            raise LabelsError(path, alike_problem("query", query.id, *earlier), number)
        queries.append(query)
    if not queries:
        raise LabelsError(path, "expected at least one query, found none")
    return queries


def read_beir_qrels(path: str | Path) -> Qrels:
    """``query-id<TAB>corpus-id<TAB>score`` lines after that header (the header may be absent)."""
    path = Path(path)
    qrels: Qrels = {}
    first: dict[tuple[str, str], int] = {}
    alike: tuple[dict[str, tuple[str, int]], ...] = ({}, {})  # query ids, document ids
    longest = LongestId()
    for index, (number, raw) in enumerate(text_lines(path, LabelsError, "qrels file")):
        fields = raw.split("\t")
        if index == 0 and tuple(f.strip() for f in fields) == _QRELS_HEADER:
            continue
        if len(fields) != 3 or not all(f.strip() for f in fields):
            # only on the first line: a later one is read as BEIR because the first line is
            # (`files._project_file.qrels_format` decides by it), so a new name changes nothing
            hint = (
                " (a TREC qrels file? give it a name not ending in .tsv)"
                if index == 0 and len(fields) == 1
                else ""
            )
            raise LabelsError(
                path,
                f"expected 'query-id<TAB>corpus-id<TAB>score', found {raw[:60]!r}{hint}",
                number,
            )
        qid, docid, score = (f.strip() for f in fields)
        for value, kind, ids in ((qid, "query", alike[0]), (docid, "document", alike[1])):
            problem = id_problem(value, kind)
            if problem is not None:
                raise LabelsError(path, problem, number)
            earlier = alike_earlier(value, number, ids)
            if earlier is not None:
                raise LabelsError(path, alike_problem(kind, value, *earlier), number)
        grade = _parse_grade(score, path, number, LabelsError)
        if grade is None:
            where = "a header 'query-id<TAB>corpus-id<TAB>score' or " if index == 0 else ""
            raise LabelsError(
                path, f"expected {where}an integer score, found {score[:20]!r}", number
            )
        if (qid, docid) in first:
            raise LabelsError(
                path,
                f"expected one judgment per query and document, found {qid} {docid} again "
                f"(first on line {first[qid, docid]})",
                number,
            )
        first[qid, docid] = number
        qrels.setdefault(qid, {})[docid] = grade
        longest.see(docid, number)
    longest.check(path, len(first), "judgments", LabelsError)
    return qrels


def read_tags(path: str | Path) -> dict[str, tuple[str, ...]]:
    """Tags per question: JSONL ``{"id", "tags": [...]}`` or TSV ``qid<TAB>tag,tag`` (header ok)."""
    return _tags_of(rows("tags", path), Path(path))


def _tags_of(
    rows: Iterable[tuple[int, str | dict[str, Any]]], path: Path
) -> dict[str, tuple[str, ...]]:
    """The tags of a tags file's rows (`files._records.rows`)."""
    tags: dict[str, tuple[str, ...]] = {}
    for index, (number, raw) in enumerate(rows):
        row = _tags_row(index, number, raw, path)
        if row is None:
            continue
        qid, found = row
        if qid in tags:
            raise LabelsError(
                path, f"expected one tags line per query, found {qid!r} again", number
            )
        tags[qid] = tuple(dict.fromkeys(found))
    return tags


def _tags_row(
    index: int, number: int, raw: str | dict[str, Any], path: Path
) -> tuple[str, tuple[str, ...]] | None:
    """One row of a tags file (the `index`-th, on line `number`): its query id and its tags, or
    None for a TSV file's header."""
    if not isinstance(raw, str):
        qid = _ident(raw, ("_id", "id", "query-id"), path, number, LabelsError)
        return qid, _tags(raw.get("tags"), path, number, LabelsError)
    qid, sep, rest = raw.partition("\t")
    if index == 0 and (qid.strip(), rest.strip()) in (("query-id", "tags"), ("id", "tags")):
        return None
    if not sep or not qid.strip():
        raise LabelsError(path, f"expected 'query id<TAB>tag,tag', found {raw[:60]!r}", number)
    found = _checked_tags([t.strip() for t in rest.split(",") if t.strip()], path, number,
                          LabelsError)  # fmt: skip
    return qid.strip(), found


def _labels_from_judgments(
    queries: Sequence[_Query | tuple[str, str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    relevance: int = 2,
    tags: Mapping[str, Sequence[str]] | None = None,
    qrels_path: str | Path | None = None,
    tags_path: str | Path | None = None,
    complete: bool = False,
) -> list[Label]:
    """One `Label` per judged query; relevant = grade >= `relevance`.

    The questions are the queries with at least one judgment, as trec_eval evaluates them: the
    queries file's order first, then the judged ids it does not list, in the judgments' order
    (their text is empty: a runs-only report shows the id). A query the judgments never name
    is left out (`QuestionCounts` counts it). Grades keep their values (a negative grade, TREC
    Web's -2 "junk", is judged not relevant and counts as 0 in every metric). Tags are the
    query's own followed by those from `tags`; tags for an id that is neither a query nor
    judged are an error. `complete`: the grades cover every document (a labels file), a missing
    one means 0; otherwise a missing grade is unjudged.
    """
    text = {q[0]: (q[1], tuple(q[2])) for q in queries}
    order = [q[0] for q in queries if qrels.get(q[0])] if not complete else [q[0] for q in queries]
    order += [qid for qid in qrels if qid not in text and qrels[qid]]
    extra = tags or {}
    stray = [qid for qid in extra if qid not in text and qid not in qrels]
    if stray:
        raise LabelsError(
            tags_path,
            f"expected tags only for known queries, found unknown query id {stray[0]!r}",
            None if tags_path is None else _tags_line(Path(tags_path), stray[0]),
        )
    labels = []
    for qid in order:
        grades = dict(qrels.get(qid, {}))
        answerable = any(g >= relevance for g in grades.values())
        question, own = text.get(qid, ("", ()))
        merged = tuple(dict.fromkeys([*own, *extra.get(qid, ())]))
        labels.append(Label(qid, question, merged, answerable, grades, relevance, complete))
    return labels


def _catalog_from(lines: LineFiles, strategy: str, indexed: bool) -> Catalog | None:
    """A project's documents as a catalog (None without documents): its BEIR corpus's rows
    (`indexed`: a pipeline's, which refuses an empty document), or its Markdown texts chunked by
    `strategy`."""
    if lines.corpus is not None:
        return _corpus_of(lines.corpus, lines.paths["corpus"], indexed)
    if lines.markdown is not None:
        return _catalog_of(lines.markdown, strategy)
    return None


def _judgment_line(qrels: Path, qid: str, doc: str) -> int | None:
    """The line of the qrels file `qrels` that judges `doc` for `qid` (TREC's ``qid 0 doc grade``
    or BEIR's ``qid<TAB>doc<TAB>score``), read again to name it in an error."""
    for number, raw in text_lines(qrels, LabelsError, "qrels file"):
        fields = raw.split()
        at = 2 if len(fields) == 4 else 1  # the document's column: TREC's third, BEIR's second
        if fields[:1] == [qid] and fields[at : at + 1] == [doc]:
            return number
    return None


def _tags_line(path: Path, qid: str) -> int | None:
    """The line of the tags file `path` that tags `qid`, read again (as `_tags_of` reads it) to
    name it in an error."""
    for index, (number, raw) in enumerate(rows("tags", path)):
        row = _tags_row(index, number, raw, path)
        if row is not None and row[0] == qid:
            return number
    return None


def _labels_from(
    lines: LineFiles, judgments: Mapping[str, Mapping[str, int]], relevance: int, *,
    max_grade: int, catalog: Container[str] | None, evaluate_unlisted: bool,
    qrels: Path | None,
) -> tuple[list[Label], QuestionCounts]:  # fmt: skip
    """A project's labelled questions at its `relevance` threshold, and their counts, from its
    line files and its `judgments` (qid -> id -> grade).

    A labels file's questions are the questions (they grade every chunk: `max_grade` is its
    top grade). Else they come from the judgments (the `qrels` file's), as
    `_labels_from_judgments` makes them: with a queries file, only the judged queries it lists,
    unless `evaluate_unlisted` (runs-only) adds the others. Tags come from the queries and the
    tags file. With a `catalog` (a pipeline's), every judged id must be one of its chunks.
    """
    tags = _tags_of(lines.tags, lines.paths["tags"]) if lines.tags is not None else None
    tags_path = lines.paths.get("tags")
    if lines.labels is not None:
        path = lines.paths["labels"]
        found = _labels_of(lines.labels, path, catalog, max_grade)
        listed = [(lab.id, lab.question, lab.tags) for lab in found]
        grades = {lab.id: dict(lab.grades) for lab in found}
        labels = _labels_from_judgments(
            listed, grades, relevance, tags, path, tags_path, complete=True
        )
        return labels, _question_counts(judgments, relevance, True, None)
    queries = None
    if lines.queries is not None:
        queries = _queries_of(lines.queries, lines.paths["queries"])
    if catalog is not None:
        for qid, docs in judgments.items():
            missing = next((d for d in docs if d not in catalog), None)
            if missing is not None:
                raise LabelsError(
                    qrels,
                    f"expected judged ids from the corpus, found {missing!r} (query {qid!r}) "
                    "which is not a chunk or document id of the catalog",
                    None if qrels is None else _judgment_line(qrels, qid, missing),
                )
    labels = _labels_from_judgments(queries or [], judgments, relevance, tags, qrels, tags_path)
    listed_ids = None if queries is None else [q.id for q in queries]
    if listed_ids is not None and not evaluate_unlisted:
        # the question set is what the team asked: judged ids the queries file does not list
        # are left out of every number (`QuestionCounts` counts them)
        known = set(listed_ids)
        labels = [lab for lab in labels if lab.id in known]
    counts = _question_counts(judgments, relevance, False, listed_ids, evaluate_unlisted)
    return labels, counts
