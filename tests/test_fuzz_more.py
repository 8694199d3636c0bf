"""More fuzzed loaders: TREC runs and qrels, gate policy, baseline, answers, BEIR files, projects.

Hypothesis feeds random bytes and random structures (JSON values shaped like the real files, TREC
lines from a small alphabet, TOML project files built from the real schema). The only exception a
loader may let escape is an `EvidencedeskError` subclass: anything else reaches the user as a
traceback. (`tests/test_fuzz_loaders.py` covers documents, labels, tenants and candidates.)
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidencedesk.baseline import _BASELINE_SCHEMA, _labels_hash, load_baseline
from evidencedesk.errors import LabelsError
from evidencedesk.files import _text as file_text
from evidencedesk.files._project_file import _SECTIONS
from evidencedesk.files.trec import read_qrels, read_run
from evidencedesk.gate import load_policy
from evidencedesk.results._inputs import load_project
from evidencedesk.retrieval._citations import load_answers
from evidencedesk.retrieval.beir import read_beir_corpus, read_beir_qrels, read_queries, read_tags
from evidencedesk.retrieval.labels import Label
from tests.test_fuzz_loaders import only_our_errors

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))  # raise it for a longer hunt
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LABELS = [
    Label("q1", "first question", ("direct",), True, {"a:c0": 2}),
    Label("q2", "second question", (), False, {"a:c1": 1}),
]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def shaped(keys: list[str], values: st.SearchStrategy[Any] = json_values) -> st.SearchStrategy:
    """Objects with some of the real keys (plus an odd one), each with a random value."""
    return st.dictionaries(st.sampled_from([*keys, "zz"]), values, max_size=len(keys) + 1)


def jsonl(rows: list[Any]) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


# -- TREC runs and qrels ---------------------------------------------------------------------------
trec_tokens = st.sampled_from(
    ["q1", "q2", "Q0", "0", "a:c0", "a:c1", "D1", "1", "2", "-1", "0.5", "1e999", "nan", "inf",
     "-inf", "x", "", "\t", "tag", "é"]
)  # fmt: skip
trec_lines = st.lists(st.lists(trec_tokens, max_size=7), max_size=8)


def trec_text(lines: list[list[str]]) -> bytes:
    return "\n".join(" ".join(tokens) for tokens in lines).encode()


@FUZZ
@given(st.binary(max_size=300))
def test_run_from_random_bytes(data: bytes) -> None:
    only_our_errors(read_run, data, "x.run")


@FUZZ
@given(trec_lines)
def test_run_from_random_lines(lines: list[list[str]]) -> None:
    only_our_errors(read_run, trec_text(lines), "x.run")


@FUZZ
@given(st.binary(max_size=300))
def test_qrels_from_random_bytes(data: bytes) -> None:
    only_our_errors(read_qrels, data, "qrels.txt")


@FUZZ
@given(trec_lines)
def test_qrels_from_random_lines(lines: list[list[str]]) -> None:
    only_our_errors(read_qrels, trec_text(lines), "qrels.txt")


# -- gate policy and baseline ----------------------------------------------------------------------
POLICY_KEYS = ["k", "min_recall", "min_pass_rate", "max_drop", "critical", "review_on_mrr_flips"]
policy_values = json_values | st.lists(st.sampled_from(["q1", "q2", "q3"]), max_size=3)


@FUZZ
@given(st.binary(max_size=300))
def test_policy_from_random_bytes(data: bytes) -> None:
    only_our_errors(lambda p: load_policy(p, LABELS), data, "policy.json")


@FUZZ
@given(json_values | shaped([*POLICY_KEYS, "notes"], policy_values))
def test_policy_from_random_json(value: Any) -> None:
    only_our_errors(lambda p: load_policy(p, LABELS), json.dumps(value).encode(), "policy.json")


BASELINE_KEYS = ["schema", "config", "k", "summary", "questions", "labels_hash"]
baseline_values = (
    json_values
    | st.just(_BASELINE_SCHEMA)
    | st.just(_labels_hash(LABELS))
    | shaped(["first_stage", "reranker", "depth", "final", "max_words", "prefilter"])
    | st.dictionaries(st.sampled_from(["q1", "q2"]), shaped(["passed", "rr", "recall"]))
)


@FUZZ
@given(st.binary(max_size=300))
def test_baseline_from_random_bytes(data: bytes) -> None:
    only_our_errors(lambda p: load_baseline(p, LABELS), data, "baseline.json")


@FUZZ
@given(json_values | shaped(BASELINE_KEYS, baseline_values))
def test_baseline_from_random_json(value: Any) -> None:
    data = json.dumps(value).encode()
    only_our_errors(lambda p: load_baseline(p, LABELS), data, "baseline.json")


# -- answers.jsonl ---------------------------------------------------------------------------------
ANSWER_KEYS = ["id", "question_id", "case", "answer", "shown", "note", "expect"]
answer_values = (
    json_values
    | st.sampled_from(["[a:c0]", "x [a:c0, b:c1]. y [ ]", "[bad id]", "a:c0", "[]"])
    | st.lists(st.sampled_from(["a:c0", "b:c1", "bad id", ""]), max_size=3)
    | shaped(["coverage", "resolve", "support"])
)


@FUZZ
@given(st.binary(max_size=300))
def test_answers_from_random_bytes(data: bytes) -> None:
    only_our_errors(lambda p: load_answers(p, {"a:c0"}), data, "answers.jsonl")


@FUZZ
@given(st.lists(shaped(ANSWER_KEYS, answer_values) | json_values, max_size=4))
def test_answers_from_random_json(rows: list[Any]) -> None:
    only_our_errors(lambda p: load_answers(p, {"a:c0", "b:c1"}), jsonl(rows), "answers.jsonl")


# -- BEIR files ------------------------------------------------------------------------------------
beir_values = json_values | st.sampled_from(["d1", "q1", "a:c0", "", " "])
BEIR_READERS: dict[str, tuple[Callable[[Path], object], str]] = {
    "corpus": (read_beir_corpus, "corpus.jsonl"),
    "queries": (read_queries, "queries.jsonl"),
    "queries-tsv": (read_queries, "queries.tsv"),
    "qrels": (read_beir_qrels, "qrels.tsv"),
    "tags": (read_tags, "tags.jsonl"),
    "tags-tsv": (read_tags, "tags.tsv"),
}
tsv_lines = st.lists(
    st.lists(st.sampled_from(["q1", "d1", "1", "-2", "x", "query-id", "score", "a,b", ""]),
             max_size=4),
    max_size=6,
)  # fmt: skip


@FUZZ
@given(st.sampled_from(sorted(BEIR_READERS)), st.binary(max_size=300))
def test_beir_from_random_bytes(kind: str, data: bytes) -> None:
    reader, name = BEIR_READERS[kind]
    only_our_errors(reader, data, name)


@FUZZ
@given(
    st.sampled_from(["corpus", "queries", "tags"]),
    st.lists(shaped(["_id", "id", "title", "text", "tags"], beir_values) | json_values, max_size=4),
)
def test_beir_from_random_json(kind: str, rows: list[Any]) -> None:
    reader, name = BEIR_READERS[kind]
    only_our_errors(reader, jsonl(rows), name)


grade_texts = (
    st.integers(-(2**80), 2**80).map(str)
    | st.text(st.characters(categories=["Nd", "No", "Pd"]) | st.sampled_from("+-_.e 1"),
              min_size=1, max_size=8)
)  # fmt: skip


@FUZZ
@given(grade_texts)
def test_beir_qrels_grades_are_in_range_or_one_error(score: str) -> None:
    """Any score text: an ASCII integer from -100 to 100, or a `LabelsError` at line 2."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qrels.tsv"
        path.write_text(f"query-id\tcorpus-id\tscore\nq1\td1\t{score}\n", encoding="utf-8")
        try:
            grade = read_beir_qrels(path)["q1"]["d1"]
        except LabelsError as exc:
            assert exc.line == 2
            return
    assert -100 <= grade <= 100
    assert score.strip().lstrip("+-").isascii() and score.strip().lstrip("+-").isdigit()


@FUZZ
@given(st.sampled_from(["queries-tsv", "qrels", "tags-tsv"]), tsv_lines)
def test_beir_from_random_tsv(kind: str, lines: list[list[str]]) -> None:
    reader, name = BEIR_READERS[kind]
    only_our_errors(reader, "\n".join("\t".join(cells) for cells in lines).encode(), name)


# -- project files ---------------------------------------------------------------------------------
def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"  # fmt: skip
    return json.dumps(value)


# files that exist in every fuzzed project folder, so path keys sometimes resolve
PROJECT_FILES = {
    "labels.jsonl": jsonl([lab.to_dict() for lab in LABELS]),
    "queries.jsonl": jsonl([{"_id": "q1", "text": "a question"}]),
    "qrels.txt": b"q1 0 a:c0 2\n",
    "qrels.tsv": b"query-id\tcorpus-id\tscore\nq1\ta:c0\t1\n",
    "corpus.jsonl": jsonl([{"_id": "a:c0", "title": "A", "text": "some text"}]),
    "runs/one.run": b"q1 Q0 a:c0 1 1.0 one\n",
    "docs/a.md": b"---\nid: a\ntitle: A\n---\nSome text.\n",
}
path_values = st.sampled_from([*PROJECT_FILES, "runs", "docs", "missing.txt", "..", "/", ""])
safe_text = st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=6)
project_values = (
    st.integers(-2, 5)
    | st.booleans()
    | safe_text
    | path_values
    | st.sampled_from(["paragraph", "markdown", "one"])
    | st.lists(path_values | st.integers(), max_size=3)
    | st.lists(st.fixed_dictionaries({"name": safe_text, "path": path_values}), max_size=2)
)


FITTING = {
    "file": st.sampled_from(["labels.jsonl", "queries.jsonl", "qrels.txt", "qrels.tsv",
                             "corpus.jsonl", "runs/one.run"]),
    "saved": st.sampled_from(["baseline.json", "labels.jsonl", "missing.json", "runs"]),
    "dir": st.sampled_from(["runs", "docs"]),
    "dirs": st.lists(st.sampled_from(["docs", "runs"]), max_size=2),
    "int": st.integers(-1, 3),
    "float": st.sampled_from([0.0, 0.5, 1.0, 1.5, -0.1]),
    "grades": st.sampled_from([{"0": "no", "1": "yes"}, {"x": "bad"}, {}, {"2": ""}]),
    "bool": st.booleans(),
    "str": safe_text,
    "choice": st.sampled_from(["paragraph", "heading", "x", "show", "hide", "trec_eval"]),
    "metrics": st.lists(st.sampled_from(["mrr", "recall@3", "ndcg@10:linear", "ndcg@x", "MRR"]),
                        max_size=3),
    "runs": st.lists(st.just("runs/one.run") | st.fixed_dictionaries(
        {"name": safe_text, "path": st.just("runs/one.run")}), max_size=2),
    "names": st.lists(st.sampled_from(["NOTES.txt", "*.log", "a/b", ""]), max_size=2),
}  # fmt: skip


def section(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """A section with some of its real keys, values mostly of the right kind, rarely a junk key."""
    kinds = {k: f.json_schema_extra["kind"] for k, f in _SECTIONS[name].model_fields.items()}  # type: ignore[index]
    real = st.fixed_dictionaries(
        {},
        optional={
            k: st.integers(0, 4).flatmap(lambda n, s=FITTING[kind]: project_values if n == 0 else s)
            for k, kind in kinds.items()
        },
    )
    junk = real.map(lambda r: r | {"junk": 1})
    return st.integers(0, 9).flatmap(lambda n: junk if n == 0 else real)


VALID = {"documents": {"folders": ["docs"]}, "questions": {"labels": "labels.jsonl"}}


def on_valid(sections: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A valid project (documents + labels) with `sections` laid over it."""
    return {n: VALID.get(n, {}) | sections.get(n, {}) for n in VALID.keys() | sections.keys()}


random_sections = st.fixed_dictionaries({}, optional={name: section(name) for name in _SECTIONS})
project_sections = random_sections | random_sections.map(on_valid)


def with_project_files(text: bytes) -> Callable[[Path], object]:
    def load(path: Path) -> object:
        for rel, content in PROJECT_FILES.items():
            (path.parent / rel).parent.mkdir(parents=True, exist_ok=True)
            (path.parent / rel).write_bytes(content)
        path.write_bytes(text)
        try:
            project = load_project(path)
            catalog = project.load_catalog()  # a valid project is then loaded like the build does
            project.load_labels(catalog)
            return project.load_runs()
        finally:  # a fuzzed [project].max_input_mb must not shrink the limit for later tests
            file_text.set_max_input_mb(file_text.DEFAULT_MAX_INPUT_MB)

    return load


@FUZZ
@given(st.binary(max_size=300))
def test_project_from_random_bytes(data: bytes) -> None:
    only_our_errors(with_project_files(data), data, "evidencedesk.toml")


@settings(max_examples=EXAMPLES * 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(project_sections)
def test_project_from_random_toml(sections: dict[str, dict[str, Any]]) -> None:
    text = "\n".join(
        f"[{name}]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in keys.items())
        for name, keys in sections.items()
    ).encode()
    only_our_errors(with_project_files(text), text, "evidencedesk.toml")
