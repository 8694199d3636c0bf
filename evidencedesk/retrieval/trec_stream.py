"""Judging a TREC run too large for memory: stream it block by block, keep per-question values.

`stream_values` reads the run with pyarrow's streaming CSV reader (``open_csv``), cuts each block
after its last complete query, judges the complete queries with the same code as
:func:`.trec_judge.question_values` and keeps only one float per question and metric. Memory is
one block (``block_bytes``) plus the qrels plus the per-question values, whatever the file's size.

The run must hold each query's lines together (any query order, as search engines write them;
``sort -s -k1,1`` fixes a run that does not); a query seen again after another one is refused
with its line. Queries are judged in the order they come and the result is sorted by query id,
so the numbers equal :func:`.trec_judge.evaluate_run` on the whole file (a test holds them to
it). On any parse error the file is read again line by line, streaming, to name the bad line.
The input limits apply as to every reader (a regular file only; the per-file limit, 4 GB by
default, is raised with `evidencedesk.files.limits.set_max_input_mb` for a larger run).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from evidencedesk.errors import RunFileError
from evidencedesk.files.limits import check_input
from evidencedesk.files.trec import Run, _sorted_run
from evidencedesk.files.trec_arrays import (
    Bad,
    arrow_options,
    check_line,
    duplicate,
    table_columns,
)
from evidencedesk.retrieval.metrics import RELEVANT, Summary
from evidencedesk.retrieval.trec_judge import question_values, summaries

__all__ = ["StreamResult", "stream_values"]


@dataclass(frozen=True)
class StreamResult:
    """Per-question values (NaN: undefined) of a streamed run, questions sorted like trec_eval."""

    questions: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    lines: int
    blocks: int

    def summary(self) -> dict[str, Summary]:
        return summaries(self.values)


def _diagnose(path: str | Path) -> RunFileError:
    """Line by line without holding the file: the first bad line, a duplicate or a split query."""
    finished: set[bytes] = set()
    current: bytes | None = None
    docs: set[bytes] = set()
    with open(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            checked = check_line(path, line.removeprefix(b"\xef\xbb\xbf"), number)
            if checked is None:
                continue
            parts, _ = checked
            if parts[0] != current:
                if parts[0] in finished:
                    query = parts[0].decode("utf-8")
                    return RunFileError(
                        path,
                        f"expected the lines of each query together (sort the run by query), "
                        f"found {query!r} again",
                        number,
                    )
                if current is not None:
                    finished.add(current)
                current, docs = parts[0], set()
            if parts[2] in docs:
                return duplicate(path, parts[2], number)
            docs.add(parts[2])
    return RunFileError(path, "expected lines 'qid Q0 docid rank score tag', found none")


def _blocks(path: str | Path, block_bytes: int) -> Iterator[pa.Table]:
    """Tables of complete queries, in file order."""
    reader = pacsv.open_csv(path, **arrow_options(" ", block_bytes))
    carry: pa.Table | None = None
    for batch in reader:
        table = pa.Table.from_batches([batch])
        if carry is not None:
            table = pa.concat_tables([carry, table])
        if table.num_rows == 0:
            continue
        last = table["q"][-1]
        tail = pc.equal(table["q"], last).to_numpy(zero_copy_only=False)
        cut = int(np.flatnonzero(~tail)[-1]) + 1 if (~tail).any() else 0
        carry = table.slice(cut)
        if cut:
            yield table.slice(0, cut)
    if carry is not None and carry.num_rows:
        yield carry


def stream_values(
    path: str | Path,
    qrels: Mapping[str, Mapping[str, int]],
    names: Iterable[str],
    relevant: int = RELEVANT,
    block_bytes: int = 64 << 20,
) -> StreamResult:
    """Per-question values of a run read block by block (see the module's notes)."""
    check_input(path, RunFileError)
    names = list(names)
    seen: set[str] = set()
    questions: list[str] = []
    columns: dict[str, list[np.ndarray]] = {name: [] for name in names}
    lines = blocks = 0
    try:
        for table in _blocks(path, block_bytes):
            run = _sorted_run(table_columns(table, b""), slow=False)
            if seen.intersection(run.qids):
                raise Bad  # a query split across blocks: the run is not grouped by query
            seen.update(run.qids)
            block_qrels = {q: qrels[q] for q in run.qids if q in qrels}
            block_questions, values = question_values(run, block_qrels, names, relevant)
            questions.extend(block_questions)
            for name in names:
                columns[name].append(values[name])
            lines += run.n_lines
            blocks += 1
    except (Bad, pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise _diagnose(path) from None
    except OSError as exc:
        raise RunFileError(path, f"expected a readable file, found {exc.strerror or exc}") from None
    if not blocks:
        raise _diagnose(path)
    # judged questions the run never answers: empty lists (a miss where something is relevant)
    missing = sorted((q for q in qrels if q not in seen), key=lambda q: q.encode("utf-8"))
    if missing:
        empty = Run((), np.zeros(1, dtype=np.int64), np.empty(0, dtype="S8"), np.empty(0))
        _, values = question_values(empty, {q: qrels[q] for q in missing}, names, relevant)
        questions.extend(missing)
        for name in names:
            columns[name].append(values[name])
    order = np.argsort(np.array([q.encode("utf-8") for q in questions], dtype=object))
    merged = {name: np.concatenate(parts)[order] for name, parts in columns.items()}
    return StreamResult(tuple(questions[i] for i in order.tolist()), merged, lines, blocks)
