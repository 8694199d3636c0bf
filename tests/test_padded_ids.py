"""One document id far longer than the rest: refused at its line, not a crash.

Ids are held padded to the longest one (`files._trec_keys.fixed_width`): a 400 KB id among a
run's 100,000 lines would take 40 GB. Each reader holds a file's padded ids within
max(`PADDED_FLOOR`, `PADDED_TIMES` x the file's size) and names the longest id's line where
they would not fit. The small cases lower the floor to 0 (16 x the file's size alone) so that
the limit is hand-checkable. Query ids are only hashed: a long one is hashed apart from the
others, and costs its own bytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from evidencedesk.errors import DocumentError, LabelsError, RunFileError
from evidencedesk.files import _text as file_text
from evidencedesk.files import _trec_arrays as trec_arrays
from evidencedesk.files import _trec_keys as trec_keys
from evidencedesk.files import _trec_scan as trec_scan
from evidencedesk.files.trec import read_qrels, read_run
from evidencedesk.retrieval.beir import read_beir_corpus, read_beir_qrels

REPO = Path(__file__).resolve().parents[1]
LINES = 200  # run lines (and judgments) of the small files


def _message(longest: int, count: int, what: str, limit: int, floor: int = 1) -> str:
    return (
        f"expected a document id of at most {limit:,} bytes, found one of {longest:,} bytes "
        f"(the {count:,} {what} hold their ids padded to the longest, in at most {floor} GiB or "
        "16 times the file's size); shorten the longest ids, in the runs and the qrels alike"
    )


def _run(path: Path, long_id: str, at: int = 57) -> int:
    """`LINES` lines of two queries, the document of line `at` (from 1) being `long_id`; the
    file's size."""
    lines = [
        f"q{n // 100} Q0 {long_id if n + 1 == at else f'd{n:03d}'} {n % 100 + 1} {100 - n % 100}.25 tag"
        for n in range(LINES)
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path.stat().st_size


@pytest.fixture(params=["scan", "pyarrow"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The run reader with the compiled scan (where built) and without it."""
    if request.param == "pyarrow":
        monkeypatch.setattr(trec_scan, "_LIBRARY", None)
    elif trec_scan._LIBRARY is None:
        pytest.skip("the compiled scan is not built (no C compiler at install)")
    return str(request.param)


@pytest.fixture
def no_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The padded ids of a file within 16 times its size alone."""
    monkeypatch.setattr(file_text, "PADDED_FLOOR", 0)


def test_the_room_is_the_floor_or_sixteen_times_the_file() -> None:
    assert file_text.padded_room(1000) == 1 << 30
    assert file_text.padded_room(100 << 20) == 1600 << 20
    # 1,000 ids padded to 1,073,744 bytes (1,073,741 rounded up to whole words) do not fit
    assert file_text.padded_fits(1000, 1_073_736, 0)
    assert not file_text.padded_fits(1000, 1_073_737, 0)


def test_a_run_line_with_an_id_too_long_for_the_file_is_named(
    tmp_path: Path, reader: str, no_floor: None
) -> None:
    path = tmp_path / "run.txt"
    size = _run(path, "x" * 900)
    limit = 16 * size // LINES // 8 * 8
    assert 0 < limit < 900  # (the file is about 6.6 KB: ids up to about 530 bytes fit)
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:57: " + _message(900, LINES, "lines", limit, 0)


def test_the_longest_id_that_fits_is_read_and_one_byte_more_is_not(
    tmp_path: Path, reader: str, no_floor: None
) -> None:
    path = tmp_path / "run.txt"
    base = _run(path, "d056") - len("d056")  # the file's size without line 57's id
    fits = max(n for n in range(8, 4000, 8) if LINES * n <= 16 * (base + n))
    _run(path, "y" * fits)
    assert read_run(path).n_lines == LINES
    _run(path, "y" * (fits + 1))  # one byte more: one word more, padded
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:57: " + _message(fits + 1, LINES, "lines", fits, 0)


def test_a_long_id_in_a_large_run_is_refused_without_allocating_for_it(
    tmp_path: Path, reader: str
) -> None:
    # 100,000 lines and one 400 KB id: 40 GB padded, where the readers used to fail in Arrow
    # (a malloc of 98 GB, or a string array over 2 GB) with a traceback
    path = tmp_path / "run.txt"
    with path.open("w") as out:
        for n in range(100_000):
            doc = "x" * 400_000 if n == 50_003 else f"d{n % 1000}"
            out.write(f"q{n // 1000} Q0 {doc} {n % 1000 + 1} {1000 - n % 1000}.5 tag\n")
    with pytest.raises(RunFileError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:50004: " + _message(
        400_000, 100_000, "lines", (1 << 30) // 100_000 // 8 * 8
    )


def test_trec_qrels_with_an_id_too_long_for_the_file(tmp_path: Path, no_floor: None) -> None:
    path = tmp_path / "qrels.txt"
    lines = [f"q{n // 50} 0 {'z' * 700 if n == 120 else f'd{n}'} {n % 3}" for n in range(LINES)]
    path.write_text("\n".join(lines) + "\n")
    size = path.stat().st_size
    with pytest.raises(LabelsError) as info:
        read_qrels(path)
    limit = 16 * size // LINES // 8 * 8
    assert str(info.value) == f"{path}:121: " + _message(700, LINES, "judgments", limit, 0)
    path.write_text("\n".join(lines).replace("z" * 700, "z" * 7) + "\n")
    assert read_qrels(path)["q2"]["z" * 7] == 0


def test_beir_qrels_with_an_id_too_long_for_the_file(tmp_path: Path, no_floor: None) -> None:
    path = tmp_path / "qrels.tsv"
    rows = [f"q{n // 50}\t{'z' * 700 if n == 30 else f'd{n}'}\t1" for n in range(LINES)]
    path.write_text("query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n")
    size = path.stat().st_size
    with pytest.raises(LabelsError) as info:
        read_beir_qrels(path)
    limit = 16 * size // LINES // 8 * 8
    assert str(info.value) == f"{path}:32: " + _message(700, LINES, "judgments", limit, 0)


def test_a_beir_corpus_with_an_id_too_long_for_the_file(tmp_path: Path, no_floor: None) -> None:
    path = tmp_path / "corpus.jsonl"
    docs = [{"_id": "k" * 3000 if n == 4 else f"d{n}", "title": "", "text": "t"}
            for n in range(LINES)]  # fmt: skip
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    size = path.stat().st_size
    with pytest.raises(DocumentError) as info:
        read_beir_corpus(path)
    limit = 16 * size // LINES // 8 * 8
    assert str(info.value) == f"{path}:5: " + _message(3000, LINES, "documents", limit, 0)


def test_the_build_says_one_line_and_keeps_the_previous_site(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "runs").mkdir(parents=True)
    (project / "evidencedesk.toml").write_text(
        '[project]\nname = "long ids"\n[questions]\nqueries = "queries.jsonl"\n'
        'qrels = "qrels.txt"\n[runs]\ndir = "runs"\nbaseline = "a"\n'
    )
    (project / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{q}", "text": f"question {q}"}) + "\n" for q in range(3))
    )
    (project / "qrels.txt").write_text("".join(f"q{q} 0 d1 2\n" for q in range(3)))
    for name in "ab":
        lines = [f"q{q} Q0 d{r} {r + 1} {9 - r} {name}" for q in range(3) for r in range(9)]
        (project / "runs" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    command = [sys.executable, "-m", "evidencedesk.report", "build", "--project",
               str(project / "evidencedesk.toml"), "--out", str(tmp_path / "site"), "--quiet"]  # fmt: skip
    built = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    before = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "site").rglob("*"))
    with (project / "runs" / "b.txt").open("w") as out:
        for n in range(100_000):
            doc = "x" * 400_000 if n == 7 else f"d{n % 1000}"
            out.write(f"q{n // 1000} Q0 {doc} {n % 1000 + 1} {1000 - n % 1000} b\n")
    failed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
    assert failed.stderr.startswith(
        f"error: {project / 'runs' / 'b.txt'}:8: expected a document id"
    )
    after = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "site").rglob("*"))
    assert after == before


def test_a_range_stops_holding_parts_once_their_padded_ids_exceed_the_room() -> None:
    made: list[int] = []

    def parts() -> Iterator[Any]:
        for n in range(3):
            made.append(n)
            yield SimpleNamespace(docs=np.zeros(10, dtype="S16"))  # 160 bytes of padded ids

    assert len(trec_arrays._held(parts(), 480)) == 3
    made.clear()
    with pytest.raises(trec_arrays.Bad):
        trec_arrays._held(parts(), 300)
    assert made == [0, 1]  # the third is never made


def test_query_salts_hash_ids_of_very_different_lengths_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 20,000 ids of 2 to 6 bytes and one of 100,000: padded together, 2 GB of words
    qids = [f"q{n}".encode() for n in range(20_000)] + [b"Q" * 100_000, b"q1x"]
    single = [int(trec_keys.query_salts([q])[0]) for q in qids]
    padded: list[int] = []
    real = trec_keys.fixed_width_of

    def spy(ids: Any) -> np.ndarray:
        made = real(ids)
        padded.append(made.nbytes)
        return made

    monkeypatch.setattr(trec_keys, "fixed_width_of", spy)
    assert trec_keys.query_salts(qids).tolist() == single  # the same salt as each id alone
    assert sorted(padded) == [100_000, 20_001 * 8]  # a group of each width, not 2 GB
    padded.clear()
    trec_keys.query_salts(qids[:20_000])  # ids of like lengths: one array
    assert padded == [20_000 * 8]
