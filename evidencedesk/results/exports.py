"""Files a machine can read beside results.json: the per-question CSV, each variant's final
lists as a TREC run and the judgments as TREC qrels, so that anyone can recompute the numbers
with trec_eval (see docs/results-schema.md). Above `PAGE_LIMIT` questions the per-question CSV
and the qrels are written gzip-compressed (``.gz``, no time stamp: the same bytes every build)."""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Callable
from operator import itemgetter

from evidencedesk.files.slugs import check_unique
from evidencedesk.files.writing import text_cell
from evidencedesk.results.pages import large
from evidencedesk.results.types import Results

PER_QUESTION = "data/per-question.csv"  # the per-question values of every run, beside the pages
TO_LABEL = "data/to-label.tsv"  # the unjudged pairs worth labelling first, beside the pages
SNIPPET = 200  # characters of a document's text to-label.tsv shows
_QRELS = "data/qrels.txt"  # the judgments the metrics used, as a TREC qrels file
RUNS = "data/runs"  # the folder of every run's ranked lists, as TREC run files
_GZ = ".gz"  # the suffix of a download written gzipped (a large project)


_GZIP_LEVEL = 1  # at 50,000 questions: 14.9 MB in 0.7 s, where level 6 gives 12.1 MB in 2.7 s


def gzipped(data: bytes) -> bytes:
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


def _per_question_csv(results: Results) -> str:
    """One row per (question, variant): every reported metric, first relevant rank, tags."""
    metrics = [m.name for m in results.settings.metrics]
    tags = {q.id: text_cell(" ".join(q.tags)) for q in results.inputs.questions}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["question", "variant", *metrics, "first_relevant_rank", "tags"])
    order = {q.id: i for i, q in enumerate(results.inputs.questions)}
    rows = [(order.get(r.question, len(order)), r.question, i, v.name, r)
            for i, v in enumerate(results.variants) for r in v.lists]  # fmt: skip
    rows.sort(key=itemgetter(0, 1, 2))  # label order, then id, then variant order
    writer.writerows(
        [q, text_cell(name), *[_number(r.values[m]) for m in metrics],
         "" if r.first_relevant is None else str(r.first_relevant), tags.get(q, "")]
        for _, q, _, name, r in rows
    )  # fmt: skip
    return out.getvalue()


def _run_text(results: Results, name: str, tag: str) -> str:
    """A variant's final lists as a TREC run (``qid Q0 docid rank score tag``); the score is
    the reversed rank, so every tool keeps the list's order."""
    lines = []
    for r in results.variant(name).lists:
        size = len(r.ids)
        lines += [f"{r.question} Q0 {cid} {rank} {size - rank + 1} {tag}"
                  for rank, cid in enumerate(r.ids, start=1)]  # fmt: skip
    return "".join(f"{line}\n" for line in lines)


def _qrels_text(results: Results) -> str:
    """The judgments the metrics use (in scope), ``qid 0 docid grade``, questions in label order."""
    return "".join(
        f"{q.id} 0 {cid} {grade}\n"
        for q in results.inputs.questions
        for cid, grade in sorted(q.judgments.items())
    )


def _to_label_text(results: Results) -> str:
    """The unjudged pairs worth labelling first, one per line, the most useful first; the first
    four columns are a qrels line once the grade is filled in (``query 0 document grade``)::

        awk -F'\t' '!/^#/ && $4 != "" {print $1, $2, $3, $4}' to-label.tsv >> qrels.txt
    """
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


def _export_files(results: Results, slug: Callable[[str], str]) -> dict[str, str]:
    """Relative path -> text of every export; run files are named by `slug` of the variant (two
    variants with one slug are refused: they would share a file)."""
    files = {PER_QUESTION: _per_question_csv(results), _QRELS: _qrels_text(results),
             TO_LABEL: _to_label_text(results)}  # fmt: skip
    check_unique([v.name for v in results.variants], slug, "variants")
    for name in exported_runs(results):
        files[f"{RUNS}/{slug(name)}.run"] = _run_text(results, name, slug(name))
    return files


def site_exports(results: Results, slug: Callable[[str], str]) -> dict[str, bytes]:
    """Relative path -> bytes of every export as the site writes it: `_export_files`, with the
    per-question CSV and the qrels gzip-compressed above `PAGE_LIMIT` questions."""
    out = {}
    for name, text in _export_files(results, slug).items():
        data = text.encode("utf-8")
        if large(results) and name in (PER_QUESTION, _QRELS):
            name, data = name + _GZ, gzipped(data)
        out[name] = data
    return out
