"""results.json: the whole `Results` as JSON, and back.

Written with sorted keys, compact (one line, no spaces: an indent was two fifths of a site's
results.json), UTF-8 and Python's shortest round-trip float
text (``repr``), so the same Results give the same bytes and loading gives the same numbers exactly.
Reading decodes field by field from the dataclasses' type hints; a file that does not match
raises `ResultsFileError` naming the field.

Above `PAGE_LIMIT` questions a site splits the file (`site_files`): the per-question fields
(`MOVED`: the questions, every ranked list, every flipped and compared id) move into
`QUESTIONS_FILE` beside it, gzip-compressed with no time stamp (the same Results, the same
bytes), and results.json holds them as empty lists plus a top-level ``"per_question"`` key naming
the file and the fields (a list equal to an earlier field's stored once, as
``{"same_as": path}``). `load` puts them back: the same Results as before the split.

Files a machine can read beside results.json: the per-question CSV, each variant's final
lists as a TREC run and the judgments as TREC qrels, so that anyone can recompute the numbers
with trec_eval (see docs/results-schema.md). Above `PAGE_LIMIT` questions the per-question CSV
and the qrels are written gzip-compressed (``.gz``, no time stamp: the same bytes every build).
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import gzip
import io
import json
import math
import os
import re
import types
import typing
from collections.abc import Callable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from evidencedesk.errors import ResultsFileError
from evidencedesk.files._structured import gunzip, parse_json
from evidencedesk.files._text import read_bytes, read_text
from evidencedesk.files._writing import check_unique, text_cell, write_file
from evidencedesk.gate import GateCheck
from evidencedesk.results._plan import large, over_page_limit
from evidencedesk.results._settings import Settings
from evidencedesk.results._verdicts import Decision
from evidencedesk.results.types import (
    SCHEMA_VERSION,
    CandidateResult,
    Comparison,
    GateOutcome,
    Inputs,
    ModelFacts,
    Notice,
    PolicyFacts,
    QuestionFact,
    RankedList,
    Results,
    VariantResult,
)

PER_QUESTION = "data/per-question.csv"  # the per-question values of every run, beside the pages


TO_LABEL = "data/to-label.tsv"  # the unjudged pairs worth labelling first, beside the pages


SNIPPET = 200  # characters of a document's text to-label.tsv shows


_QRELS = "data/qrels.txt"  # the judgments the metrics used, as a TREC qrels file


RUNS = "data/runs"  # the folder of every run's ranked lists, as TREC run files


_GZ = ".gz"  # the suffix of a download written _gzipped (a large project)


_GZIP_LEVEL = 1  # at 50,000 questions: 14.9 MB in 0.7 s, where level 6 gives 12.1 MB in 2.7 s


def _gzipped(data: bytes) -> bytes:
    """`data` gzip-compressed, deterministically (no time stamp, no file name in the header)."""
    return gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)


def per_question_file(results: Results) -> str:
    """Where the site has the per-question CSV (compressed above `PAGE_LIMIT` questions)."""
    return PER_QUESTION + _GZ if large(results) else PER_QUESTION


def qrels_file(results: Results) -> str:
    """Where the site has the qrels (compressed above `PAGE_LIMIT` questions)."""
    return _QRELS + _GZ if large(results) else _QRELS


def _number(value: float | None) -> str:
    # repr: the shortest text that reads back as the same float (empty when undefined)
    return "" if value is None else repr(value)


@dataclasses.dataclass(frozen=True)
class QuestionRows:
    """What the per-question exports hold (the per-question CSV and the qrels): the questions,
    the reported metrics' names and every variant's per-question values. All are fixed once the
    benchmark stage is done (`results.evaluate`'s ``on_rows``: a large build writes the two files
    while the gate runs, `made` of them); `of` takes the same from finished Results, to the same
    bytes."""

    questions: tuple[QuestionFact, ...]
    metrics: tuple[str, ...]
    variants: tuple[VariantResult, ...]

    @classmethod
    def made(
        cls, questions: Sequence[QuestionFact], settings: Settings,
        variants: Sequence[VariantResult],
    ) -> QuestionRows:  # fmt: skip
        """The rows of `questions` and `variants`, with the reported metrics of `settings`."""
        return cls(tuple(questions), tuple(m.name for m in settings.metrics), tuple(variants))

    @classmethod
    def of(cls, results: Results) -> QuestionRows:
        return cls.made(results.inputs.questions, results.settings, results.variants)


def _per_question_csv(rows: QuestionRows) -> str:
    """One row per (question, variant): every reported metric, first relevant rank, tags."""
    metrics = rows.metrics
    tags = {q.id: text_cell(" ".join(q.tags)) for q in rows.questions}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["question", "variant", *metrics, "first_relevant_rank", "tags"])
    order = {q.id: i for i, q in enumerate(rows.questions)}
    names = [text_cell(v.name) for v in rows.variants]
    lines = [(order.get(r.question, len(order)), r.question, i, r)
             for i, v in enumerate(rows.variants) for r in v.lists]  # fmt: skip
    lines.sort(key=itemgetter(0, 1, 2))  # label order, then id, then variant order
    writer.writerows(
        [q, names[i], *[_number(r.values[m]) for m in metrics],
         "" if r.first_relevant is None else str(r.first_relevant), tags.get(q, "")]
        for _, q, i, r in lines
    )  # fmt: skip
    return out.getvalue()


def _run_text(results: Results, name: str, tag: str) -> str:
    """A variant's final lists as a TREC run (``qid Q0 docid rank score tag``); the score is
    the reversed rank, so every tool keeps the list's order. Only the questions the qrels export
    holds (those with a judgment): a question no judgment names has no value in any metric, and
    a run and qrels over the same questions are what ranx reads without `make_comparable`."""
    judged = {q.id for q in results.inputs.questions if q.judgments}
    lines = []
    for r in results.variant(name).lists:
        if r.question not in judged:
            continue
        size = len(r.ids)
        lines += [f"{r.question} Q0 {cid} {rank} {size - rank + 1} {tag}"
                  for rank, cid in enumerate(r.ids, start=1)]  # fmt: skip
    return "".join(f"{line}\n" for line in lines)


def _qrels_text(questions: Sequence[QuestionFact]) -> str:
    """The judgments the metrics use (in scope), ``qid 0 docid grade``, questions in label order."""
    return "".join(
        f"{q.id} 0 {cid} {grade}\n" for q in questions for cid, grade in sorted(q.judgments.items())
    )


def _to_label_text(results: Results) -> str:
    """The unjudged pairs worth labelling first, one per line, the most useful first; the first
    four columns are a qrels line once the grade is filled in (``query 0 document grade``):
    the to-label page prints the command that appends them to the project's own qrels file in
    its format (`report._words.append_graded`)."""
    questions = {q.id: q.question for q in results.inputs.questions}
    facts = {c.id: c for c in results.inputs.chunk_facts}
    lines = ["# query\titeration\tdocument\tgrade\tbest_rank\truns\tsplits\tquestion\ttitle\t"
             "snippet"]  # fmt: skip
    for row in results.to_label:
        fact = facts.get(row.document)
        title = text_cell(fact.title) if fact is not None else ""
        snippet = text_cell(fact.text or "", SNIPPET) if fact is not None else ""
        lines.append("\t".join([row.question, "0", row.document, "", str(row.rank),
                                 ",".join(map(text_cell, row.runs)), str(row.splits),
                                 text_cell(questions.get(row.question, "")), title, snippet]))  # fmt: skip
    return "".join(f"{line}\n" for line in lines)


def exported_runs(results: Results) -> list[str]:
    """The variants whose whole lists the Results hold (a runs-only project's runs, judged at
    full depth, keep only their top lists: their files are the user's own, not repeated)."""
    return [v.name for v in results.variants if all(r.size == len(r.ids) for r in v.lists)]


def question_exports(rows: QuestionRows) -> dict[str, bytes]:
    """Relative path -> bytes of the per-question CSV and the qrels as the site writes them:
    gzip-compressed above `PAGE_LIMIT` questions."""
    files = {PER_QUESTION: _per_question_csv(rows), _QRELS: _qrels_text(rows.questions)}
    if not over_page_limit(len(rows.questions)):
        return {name: text.encode("utf-8") for name, text in files.items()}
    return {name + _GZ: _gzipped(text.encode("utf-8")) for name, text in files.items()}


def result_exports(results: Results, slug: Callable[[str], str]) -> dict[str, bytes]:
    """Relative path -> bytes of the exports that need the whole Results: to-label.tsv and each
    variant's run file, named by `slug` of the variant (two variants with one slug are refused:
    they would share a file)."""
    files = {TO_LABEL: _to_label_text(results)}
    check_unique([v.name for v in results.variants], slug, "variants")
    for name in exported_runs(results):
        files[f"{RUNS}/{slug(name)}.run"] = _run_text(results, name, slug(name))
    return {name: text.encode("utf-8") for name, text in files.items()}


def site_exports(results: Results, slug: Callable[[str], str]) -> dict[str, bytes]:
    """Relative path -> bytes of every export as the site writes it: `question_exports` of the
    Results' rows, then `result_exports`."""
    return {**question_exports(QuestionRows.of(results)), **result_exports(results, slug)}


# Fields added to schema 1 after it was first written: a file from an earlier build may lack
# them and reads as the field's default (so a previous report still loads); every other field
# must be present.
_ADDED: dict[type, frozenset[str]] = {
    CandidateResult: frozenset({"lists", "lists_of", "judged", "condensed", "condensed_agrees"}),
    Comparison: frozenset({"sign_holm_p", "sd", "flips_needed"}),
    Decision: frozenset({"family", "for_t", "for_t_power"}),
    VariantResult: frozenset({"coverage", "judged"}),
    Inputs: frozenset({"counts", "notices", "qrels_file", "qrels_format", "qrels_tabs"}),
    Notice: frozenset({"run"}),
    Results: frozenset({"to_label", "to_label_total", "not_run", "models", "baseline_gate"}),
    RankedList: frozenset({"judged"}),
    Settings: frozenset({"dense", "grade_names"}),
    PolicyFacts: frozenset({"flips_min_net", "flips_max_p"}),
    ModelFacts: frozenset({"warning", "roles"}),
    GateOutcome: frozenset({"k"}),
    GateCheck: frozenset({"cut"}),
}


_FIELDS: dict[type, tuple[str, ...]] = {}  # a dataclass type -> its field names, sorted


_LEAVES = (str, int, bool, type(None))


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number in the results, found {value!r}")
    return value


def _ranked(r: RankedList) -> dict[str, Any]:
    # the generic walk's result for the most numerous object, built directly (150,000 of them in
    # a 50,000-question project of three runs); keys in sorted order, as everywhere
    values = {str(k): v if v is None or type(v) is not float else _finite(v)
              for k, v in sorted(r.values.items())}  # fmt: skip
    return {"first_relevant": r.first_relevant, "grades": list(r.grades), "ids": list(r.ids),
            "judged": None if r.judged is None else list(r.judged), "question": r.question,
            "size": r.size, "values": values}  # fmt: skip


def _question(q: QuestionFact) -> dict[str, Any]:
    return {"answerable": q.answerable, "grades": dict(sorted(q.grades.items())),
            "id": q.id, "judgments": dict(sorted(q.judgments.items())),
            "question": q.question, "tags": list(q.tags)}  # fmt: skip


_FAST: dict[type, Any] = {RankedList: _ranked, QuestionFact: _question}


def plain(value: Any) -> Any:
    """JSON-ready data of a Results (or any part of one), every object's keys in sorted order
    (so that `json.dumps` need not sort them: that sort took two thirds of its time)."""
    tp = type(value)
    if tp in _LEAVES:
        return value
    if tp is float:
        return _finite(value)
    fast = _FAST.get(tp)
    if fast is not None:
        return fast(value)
    names = _FIELDS.get(tp)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[tp] = tuple(sorted(f.name for f in dataclasses.fields(value)))
    if names is not None:
        return {name: plain(getattr(value, name)) for name in names}
    if isinstance(value, tuple | list):
        if all(type(v) is str for v in value):
            return list(value)
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted((str(k), v) for k, v in value.items())}
    if isinstance(value, float):
        return _finite(value)
    return value


RESULTS_JSON = "results.json"  # the Results' file in a site


QUESTIONS_FILE = "results-questions.json.gz"  # the per-question part, above PAGE_LIMIT


_SPLIT_KEY = "per_question"  # results.json's key naming QUESTIONS_FILE and the fields it holds


_SAME = "same_as"  # QUESTIONS_FILE: a field whose list equals an earlier field's names that one


def _text(data: Any) -> str:
    """`data` (from `plain`: keys already sorted) as compact JSON text: one line, no spaces (an
    indent was two fifths of a site's results.json; `jq .` or `python -m json.tool` shows it
    indented)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def dumps(results: Results) -> str:
    """The whole Results as one compact JSON text."""
    return _text(plain(results))


def _moved(data: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(field path, the object holding it, its key) of every per-question field of `data`."""
    out = [("inputs.questions", data["inputs"], "questions")]
    for i, v in enumerate(data["variants"]):
        out.append((f"variants[{i}].lists", v, "lists"))
    for i, f in enumerate(data["flips"]):
        out += [(f"flips[{i}].{k}", f, k) for k in ("better", "worse")]
    for i, c in enumerate(data["candidates"]):
        out.append((f"candidates[{i}].lists", c, "lists"))
        for j, x in enumerate(c["comparisons"]):
            out += [(f"candidates[{i}].comparisons[{j}].{k}", x, k) for k in ("better", "worse")]
    return out


def site_files(results: Results) -> dict[str, bytes]:
    """File name -> bytes of the site's results: results.json alone up to `PAGE_LIMIT`
    questions; above, results.json with its per-question fields moved into `QUESTIONS_FILE`."""
    return _site_files(results)


def _site_files(results: Results) -> dict[str, bytes]:
    data = plain(results)
    if not large(results):
        return {RESULTS_JSON: _text(data).encode("utf-8")}
    moved: dict[str, Any] = {}
    for name, holder, key in _moved(data):
        value = holder[key]
        # a list equal to one moved before is stored once: the flips and each comparison hold
        # the same question ids (a runs-only candidate is a run's flips), a 5,000-question
        # project's file held each list up to four times
        first = next((n for n, v in moved.items() if type(v) is list and v and v == value), None)
        moved[name] = {_SAME: first} if first is not None else value
        holder[key] = []
    data[_SPLIT_KEY] = {"fields": sorted(moved), "file": QUESTIONS_FILE}
    return {
        RESULTS_JSON: _text(dict(sorted(data.items()))).encode("utf-8"),
        QUESTIONS_FILE: _gzipped(_text(dict(sorted(moved.items()))).encode("utf-8")),
    }


def write(results: Results, path: Path) -> None:
    """results.json at `path` (and, above `PAGE_LIMIT` questions, `QUESTIONS_FILE` beside it):
    new files only (`evidencedesk.files._writing.write_file`)."""
    for name, data in site_files(results).items():
        write_file(path if name == RESULTS_JSON else path.parent / name, data, name)


def _fail(where: str, expected: str, found: Any) -> ResultsFileError:
    shown = json.dumps(found, ensure_ascii=False)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return ResultsFileError(
        None, f"key {where.lstrip('.') or '(top)'}: expected {expected}, found {shown}"
    )


_HINTS: dict[type, dict[str, Any]] = {}


def _decode(tp: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return data
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, data, where)
            except ResultsFileError as exc:
                errors.append(exc)
        raise errors[0]
    if origin is typing.Literal:
        if data not in typing.get_args(tp):
            raise _fail(where, f"one of {typing.get_args(tp)}", data)
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise _fail(where, "a list", data)
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] in (str, int) and all(type(v) is args[0] for v in data):
                return tuple(data)  # ids and grades: thousands of them, nothing to convert
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise _fail(where, f"a list of {len(args)}", data)
        return tuple(
            _decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        if not isinstance(data, dict):
            raise _fail(where, "an object", data)
        _, value_type = typing.get_args(tp)
        if value_type in (str, int) and all(type(v) is value_type for v in data.values()):
            return dict(data)  # a question's grades: nothing to convert
        return {k: _decode(value_type, v, f"{where}.{k}") for k, v in data.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):  # the gate's levels (`gate.GateLevel`)
        try:
            return tp(data)
        except ValueError:
            raise _fail(where, f"one of {tuple(m.value for m in tp)}", data) from None
    if tp is RankedList:
        ranked = _ranked_from(data)
        if ranked is not None:
            return ranked
    if dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise _fail(where, "an object", data)
        assert isinstance(tp, type)  # noqa: S101 - a dataclass type, not an instance
        hints = _HINTS.get(tp)
        if hints is None:  # once per type (setdefault would evaluate the hints every time)
            hints = _HINTS[tp] = typing.get_type_hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name not in data:
                if f.name in _ADDED.get(tp, ()):
                    continue
                raise _fail(f"{where}.{f.name}", "a value", None)
            kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
        extra = sorted(set(data) - set(kwargs))
        if extra:
            raise _fail(f"{where}.{extra[0]}", "no such key", data[extra[0]])
        return tp(**kwargs)
    if tp is float:
        # ints stay ints: written back, they give the same bytes
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise _fail(where, "a number", data)
        return data
    if tp in (int, str, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise _fail(where, f"a {tp.__name__}", data)
        return data
    raise _fail(where, f"a value of type {tp}", data)


_STEP = re.compile(r"([a-z_]+)((?:\[\d+\])*)$")


def _put_back(data: dict[str, Any], split: Any, questions: bytes | None) -> None:
    """Fill the fields `split` names (results.json's ``per_question``) from `questions`."""
    if not isinstance(split, dict) or split.get("file") != QUESTIONS_FILE:
        raise _fail(_SPLIT_KEY, f'{{"file": "{QUESTIONS_FILE}", "fields": [...]}}', split)
    if questions is None:
        raise ResultsFileError(None, f"expected {QUESTIONS_FILE} beside it, found none")
    try:  # bounded: a gzip bomb is refused before it fills the memory
        expanded = gunzip(questions, None, ResultsFileError, "JSON file")
        moved = parse_json(expanded.decode("utf-8"), None, ResultsFileError)
    except UnicodeDecodeError as exc:
        raise ResultsFileError(
            None, f"{QUESTIONS_FILE}: expected UTF-8 text, found byte 0x{exc.object[exc.start]:02x} "
            f"at offset {exc.start}"
        ) from None  # fmt: skip
    except ResultsFileError as exc:
        raise ResultsFileError(None, f"{QUESTIONS_FILE}: {exc.detail}", exc.line) from None
    fields = split.get("fields")
    if not isinstance(moved, dict) or fields != sorted(moved):
        shown = sorted(moved) if isinstance(moved, dict) else moved
        raise _fail(f"{_SPLIT_KEY}.fields", f"the fields of {QUESTIONS_FILE}", shown)
    for name, value in moved.items():
        if type(value) is dict and value.keys() == {_SAME}:
            first = moved.get(value[_SAME]) if type(value[_SAME]) is str else None
            if type(first) is not list:
                raise _fail(f"{QUESTIONS_FILE}: {name}", "a list or the path of a list", value)
            value = first
        holder: Any = data
        steps = name.split(".")
        for n, step in enumerate(steps):
            match = _STEP.match(step)
            if match is None or not isinstance(holder, dict) or match[1] not in holder:
                raise _fail(f"{_SPLIT_KEY}.fields", "paths of results.json fields", name)
            indexes = [int(i) for i in re.findall(r"\d+", match[2])]
            if n == len(steps) - 1 and not indexes:
                holder[match[1]] = value
                break
            holder = holder[match[1]]
            for i in indexes:
                if not isinstance(holder, list) or i >= len(holder):
                    raise _fail(f"{_SPLIT_KEY}.fields", "paths of results.json fields", name)
                holder = holder[i]
        else:
            raise _fail(f"{_SPLIT_KEY}.fields", "paths of results.json fields", name)


_RANKED_KEYS = frozenset(f.name for f in dataclasses.fields(RankedList))


_RANKED_KEYS_BEFORE = _RANKED_KEYS - {"judged"}  # a results.json from before `judged`


def _ranked_from(data: Any) -> RankedList | None:
    """A well-formed RankedList object read directly (the generic decoder walks each of its
    values); None for anything else, which the generic decoder then reads or reports."""
    if type(data) is not dict or data.keys() not in (_RANKED_KEYS, _RANKED_KEYS_BEFORE):
        return None
    ids, grades, values, first = data["ids"], data["grades"], data["values"], data["first_relevant"]
    judged = data.get("judged")
    if (
        type(data["question"]) is str
        and type(ids) is list
        and all(type(i) is str for i in ids)
        and type(grades) is list
        and all(type(g) is int for g in grades)
        and type(data["size"]) is int
        and (first is None or type(first) is int)
        and type(values) is dict
        and all(v is None or type(v) in (int, float) for v in values.values())
        and (judged is None or (type(judged) is list and all(type(j) is bool for j in judged)))
    ):
        flags = None if judged is None else tuple(judged)
        return RankedList(data["question"], tuple(ids), tuple(grades), data["size"], first, values,
                          flags)  # fmt: skip
    return None


_READABLE = (1, SCHEMA_VERSION)  # the schema versions a loader reads


def _from_schema_1(data: dict[str, Any]) -> None:
    """A schema-1 file as schema 2: a gate outcome's `verdict` (GO, REVIEW, BLOCK) is its
    `level` (the verdict is the statistics' answer, BETTER … WORSE)."""
    results = data.get("candidates")
    gates = [c.get("gate") for c in results if isinstance(c, dict)] if type(results) is list else []
    for gate in (*gates, data.get("baseline_gate")):
        if isinstance(gate, dict) and "verdict" in gate and "level" not in gate:
            gate["level"] = gate.pop("verdict")
    data["schema_version"] = SCHEMA_VERSION


def loads(text: str, questions: bytes | None = None) -> Results:
    """Results from results.json's text (and, for a split file, `QUESTIONS_FILE`'s bytes)."""
    return _loads(text, questions)


def _loads(text: str, questions: bytes | None) -> Results:
    data = parse_json(text, None, ResultsFileError)  # NaN, 1e400, a key twice: refused here
    version = data.get("schema_version") if isinstance(data, dict) else data
    if not isinstance(data, dict) or type(version) is not int or version not in _READABLE:
        raise _fail("schema_version", " or ".join(map(str, _READABLE)), version)
    if version == 1:
        _from_schema_1(data)
    if _SPLIT_KEY in data:
        _put_back(data, data.pop(_SPLIT_KEY), questions)
    results: Results = _decode(Results, data, "")
    return results


def load(path: Path) -> Results:
    """Results from a results.json (reading `QUESTIONS_FILE` beside it when it was split).

    Raises only `ResultsFileError` (an `EvidencedeskError`) naming the file, whatever the file
    holds: bad JSON, a gzip bomb or a corrupt .gz, a lone surrogate, NaN, a file name the file
    system cannot encode; anything else the decoding trips over is worded with its type.
    """
    try:
        text = read_text(path, ResultsFileError, "results.json")
        beside = path.parent / QUESTIONS_FILE
        questions = None
        if f'"{_SPLIT_KEY}":' in text and os.path.isfile(beside):
            questions = read_bytes(beside, ResultsFileError, QUESTIONS_FILE)
        return loads(text, questions)
    except ResultsFileError as exc:
        if exc.path is not None:
            raise
        raise ResultsFileError(path, exc.detail, exc.line) from None
    except RecursionError:
        raise ResultsFileError(path, "expected a results.json evidencedesk wrote, found "
                               "structures nested too deep") from None  # fmt: skip
    except (ArithmeticError, LookupError, TypeError, ValueError) as exc:
        raise ResultsFileError(path, f"expected a results.json evidencedesk wrote, found "
                               f"{type(exc).__name__}: {str(exc)[:80]}") from None  # fmt: skip
