"""Bounded, strict loaders: one JSON/TOML entry point (`evidencedesk.files._structured`) with a depth
limit, a digit limit, duplicate keys refused and NaN refused, used by every loader; a bounded
gzip; front matter and labels that refuse a repeated key; results files that raise only
`EvidencedeskError`.

Each file is generated with just enough bytes to pass its limit by one (64 + 1 levels, 100 + 1
digits), so the tests stay fast; each message is checked in full.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evidencedesk
from evidencedesk.baseline import load_baseline
from evidencedesk.chunking import load_document
from evidencedesk.errors import ConfigError, EvidencedeskError, InputError
from evidencedesk.files import _text as file_text
from evidencedesk.files._structured import parse_json, parse_json_lines, parse_toml
from evidencedesk.files._text import MAX_DEPTH, MAX_DIGITS
from evidencedesk.gate import load_policy
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._candidates import load_candidates
from evidencedesk.results._inputs import load_project
from evidencedesk.retrieval._citations import load_answers
from evidencedesk.retrieval.beir import read_beir_corpus, read_queries, read_tags
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.lifecycle import Tenancy
from tests.reliability_fixtures import Scratch, build_in_process, copy_scratch, make_scratch
from tests.test_results_units import tiny_results

DEEP = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
LONG = "1" + "0" * MAX_DIGITS  # one digit too many
LONG_SHOWN = f"one of {MAX_DIGITS + 1} digits ({LONG[:40]}…)"

# what each JSON problem is, and the line it gives (the rest of the message is the loader's)
JSON_CASES = {
    "deep": (
        '{"id": ' + DEEP + "}",
        f"expected JSON nested at most {MAX_DEPTH} levels deep, found deeper",
    ),  # fmt: skip
    "digits": (
        '{"id": ' + LONG + "}",
        f"expected numbers of at most {MAX_DIGITS} digits, found {LONG_SHOWN}",
    ),  # fmt: skip
    "key twice": ('{"id": "a", "id": "b"}', 'expected each key once per object, found "id" twice'),
    # the key the value follows is named too
    "NaN": ('{"id": NaN}', "key 'id': expected finite numbers, found NaN"),
    "Infinity": ('{"id": -Infinity}', "key 'id': expected finite numbers, found -Infinity"),
    "1e400": ('{"id": 1e400}', "key 'id': expected finite numbers, found 1e400"),
    "surrogate": ('{"id": "\\udc80"}', "expected UTF-8 text, found a lone surrogate \\udc80"),
}
JSON_LOADERS: dict[str, tuple[str, Callable[[Path], Any], str]] = {
    # name: (file name, loader, what every message ends with)
    "labels": ("labels.jsonl", load_labels, ""),
    "answers": ("answers.jsonl", load_answers, ""),
    "BEIR corpus": ("corpus.jsonl", read_beir_corpus, ""),
    "BEIR queries": ("queries.jsonl", read_queries, ""),
    "tags": ("tags.jsonl", read_tags, ""),
    "tenants": ("tenants.json", Tenancy.load, ""),
    "baseline": ("baseline.json", lambda p: load_baseline(p, []), "; rebuild it with --save-baseline"),
    "gate policy": ("policy.json", load_policy, ""),
    "results.json": ("results.json", evidencedesk.load_results, ""),
}  # fmt: skip


@pytest.mark.parametrize("problem", list(JSON_CASES))
@pytest.mark.parametrize("loader", list(JSON_LOADERS))
def test_every_json_loader_refuses_with_the_line(tmp_path: Path, loader: str, problem: str) -> None:
    name, load, suffix = JSON_LOADERS[loader]
    text, message = JSON_CASES[problem]
    path = tmp_path / name
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load(path)
    assert str(info.value) == f"{path}:1: {message}{suffix}"


TOML_CASES = {
    "deep": (f"x = {DEEP}", 1, f"expected TOML nested at most {MAX_DEPTH} levels deep, found deeper"),
    "digits": (f"x = {LONG}", 1, f"expected numbers of at most {MAX_DIGITS} digits, found {LONG_SHOWN}"),
    "hex digits": (f"x = 0x{'f' * (MAX_DIGITS + 1)}", 1, f"expected numbers of at most {MAX_DIGITS} "
                   f"digits, found one of {MAX_DIGITS + 1} digits (0x{'f' * 38}…)"),
    "nan": ("y = 'nan'\nx = nan", 2, "key 'x': expected finite numbers, found nan"),
    "inf": ("x = -inf", 1, "key 'x': expected finite numbers, found -inf"),
    "key twice": ("x = 1\nx = 2", 2, "expected valid TOML, found a syntax error (Cannot overwrite a value)"),
    "cut short": ('x = 1\ny = """abc', 2, "expected valid TOML, found a syntax error (Unterminated "
                  "string, at the end of the file)"),
}  # fmt: skip
TOML_LOADERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "candidates": ("candidates.toml", lambda p: load_candidates(p, None)),
    "project file": ("evidencedesk.toml", load_project),
}


@pytest.mark.parametrize("problem", list(TOML_CASES))
@pytest.mark.parametrize("loader", list(TOML_LOADERS))
def test_every_toml_loader_refuses_with_the_line(tmp_path: Path, loader: str, problem: str) -> None:
    name, load = TOML_LOADERS[loader]
    text, line, message = TOML_CASES[problem]
    path = tmp_path / name
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load(path)
    assert str(info.value) == f"{path}:{line}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{\n  "a": {\n    "k": 1,\n    "k": 2\n  }\n}',
            '4: expected each key once per object, found "k" twice in "a" (first on line 3)',
        ),
        ('[{"k": 1}, {"k": 2}]', None),  # one key in each of two objects: fine
        ('{"s": "[[[[' + "[" * MAX_DEPTH + '"}', None),  # brackets in a string are text
        ('{"s": "' + "9" * (MAX_DIGITS + 1) + '"}', None),  # so are digits
        ('{"s": "\\\\ud800"}', None),  # an escaped backslash, then text
        ('{"s": "\\"' + "[" * (MAX_DEPTH + 1) + '"}', None),  # after an escaped quote: text
        (
            '{"s": "\\\\", "t": ' + DEEP + "}",
            "1: expected JSON nested at most 64 levels deep, found deeper",
        ),  # an escaped backslash ends nothing: the string ends, the list is real
        ('{"s": "\\ud83d\\ude00"}', None),  # a surrogate pair: one character
        ('{"a": 1e300, "b": -1e-400}', None),
        (
            '{"a": 1,',
            "1: expected JSON, found invalid JSON (Expecting property name enclosed in "
            "double quotes)",
        ),
        ("[" * MAX_DEPTH + "]" * MAX_DEPTH, None),  # at the limit
    ],
)
def test_parse_json_limits_and_what_it_leaves_alone(text: str, message: str | None) -> None:
    if message is None:
        assert parse_json(text, "f.json", ConfigError) == json.loads(text)
        return
    with pytest.raises(ConfigError) as info:
        parse_json(text, "f.json", ConfigError)
    assert str(info.value) == f"f.json:{message}"


# one line each: what parse_json says of it alone (a value, or its error's message)
JSON_LINES = [
    '{"q": "a", "n": 1}',
    '{"s": "' + "9" * (MAX_DIGITS + 1) + '"}',  # digits in a string: no number
    '{"n": ' + LONG + "}",
    '{"d": ' + DEEP + "}",
    '{"k": 1, "k": 2}',
    '{"x": NaN}',
    '{"x": 1e400}',
    '{"x": 1e300}',
    '{"s": "\\ud800"}',  # a lone surrogate's escape
    '{"s": "\\ud83d\\ude00"}',  # a pair: one character
    '{"s": "\\\\ud800"}',  # an escaped backslash, then text
    '{"a": [1',  # cut short
    '{"a": 1} {"b": 2}',  # two values
    "\ufeff{}",  # a byte-order mark
    "[1, 2]",
    '{"s": "\ud800"}',  # a raw lone surrogate
    '{"k": "\ud55c"}',  # Hangul: UTF-8 that starts with 0xED too, no surrogate
]


def _one_line(text: str) -> object:
    try:
        return parse_json(text, "f.jsonl", ConfigError, 7, "a JSON object")
    except ConfigError as exc:
        return str(exc).replace(":7:", ":{line}:")


@pytest.mark.parametrize("after", range(len(JSON_LINES)))
@pytest.mark.parametrize("before", range(len(JSON_LINES)))
def test_json_lines_parsed_together_say_what_each_line_says_alone(before: int, after: int) -> None:
    # a line parsed with others gives its value, or is refused at its line as parse_json
    # refuses it; the lines before it are handed out first, the lines after it are not read
    texts = ['{"ok": 0}', JSON_LINES[before], JSON_LINES[after], '{"ok": 3}']
    got: list[object] = []
    values = parse_json_lines(texts, "f.jsonl", ConfigError, [2, 4, 6, 9], "a JSON object")
    try:
        got.extend(values)
    except ConfigError as exc:
        got.append(str(exc))
    expected: list[object] = [{"ok": 0}]
    for text, line in ((JSON_LINES[before], 4), (JSON_LINES[after], 6)):
        alone = _one_line(text)
        if isinstance(alone, str):
            expected.append(alone.format(line=line))
            break
        expected.append(alone)
    else:
        expected.append({"ok": 3})
    assert got == expected


def test_json_lines_values_keep_their_float_checks_beside_a_large_number() -> None:
    # a line with 1e400 makes every float of the lines checked: the others parse as before
    texts = ['{"a": 0.5, "b": 1e-5}', '{"c": 1e300}', '{"d": 1e400}']
    values = parse_json_lines(texts, "f.jsonl", ConfigError, [1, 2, 3])
    assert next(values) == {"a": 0.5, "b": 1e-5}
    assert next(values) == {"c": 1e300}
    with pytest.raises(ConfigError) as info:
        next(values)
    assert str(info.value) == "f.jsonl:3: key 'd': expected finite numbers, found 1e400"


def test_parse_toml_leaves_strings_and_comments_alone() -> None:
    text = f'a = \'{DEEP}\'\nb = "{LONG}" # {LONG} nan\nc = """\n{DEEP}\n"""\nnan_key = 1\n'
    assert parse_toml(text, "f.toml", ConfigError) == {"a": DEEP, "b": LONG, "c": DEEP + "\n",
                                                       "nan_key": 1}  # fmt: skip


# -- duplicate keys elsewhere -----------------------------------------------------------------------
def test_front_matter_refuses_a_repeated_key(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("---\nid: kc-note\ntitle: Note\nvisibility: restricted\nvisibility: public\n"
                    "---\n\nInternal only.\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(InputError) as info:
        load_document(path)
    assert str(info.value) == (
        f"{path}:5: expected each front-matter key once, found 'visibility' again (first on line 4)"
    )


def test_a_labels_line_grading_a_chunk_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"id": "q1", "question": "a?", "grades": {"kc-a:c0": 2}}\n'
                    '{"id": "q2", "question": "b?", "grades": {"kc-a:c0": 0, "kc-a:c0": 2}}\n',
                    encoding="utf-8")  # fmt: skip
    with pytest.raises(InputError) as info:
        load_labels(path)
    assert str(info.value) == (
        f'{path}:2: expected each key once per object, found "kc-a:c0" twice in "grades"'
    )


# -- results files ----------------------------------------------------------------------------------
def test_a_nan_interval_in_results_json_is_refused_at_its_line(tmp_path: Path) -> None:
    text = serialize.dumps(tiny_results())
    at = text.index('"high":') + len('"high":')  # compact: the whole file is line 1
    end = text.index(",", at)
    broken = text[:at] + "NaN" + text[end:]
    path = tmp_path / "results.json"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(EvidencedeskError) as info:
        evidencedesk.load_results(path)
    assert (
        str(info.value)
        == f"{path}:{text.count(chr(10), 0, at) + 1}: key 'high': expected finite numbers, "
        "found NaN"
    )


def _split_results(tmp_path: Path, questions: bytes) -> Path:
    path = tmp_path / "results.json"
    split = {"fields": [], "file": serialize.QUESTIONS_FILE}
    path.write_text(json.dumps({"schema_version": 1, "per_question": split}), encoding="utf-8")
    (tmp_path / serialize.QUESTIONS_FILE).write_bytes(questions)
    return path


@pytest.mark.parametrize(
    ("questions", "found"),
    [
        (b"PK\x03\x04 a zip, not a gzip", "expected a gzip-compressed JSON file, found corrupt "
         "data (Error -3 while decompressing data: incorrect header check)"),
        (gzip.compress(b"{}", mtime=0)[:-4], "expected a complete gzip-compressed JSON file, found one cut short"),
        (gzip.compress(b"{}", mtime=0) + b"junk", "expected one gzip stream in the JSON file, found 4 more "
         "bytes after it"),
        (gzip.compress(b"\xff", mtime=0), "expected UTF-8 text, found byte 0xff at offset 0"),
        (gzip.compress(b'{"a": 1, "a": 2}', mtime=0), 'expected each key once per object, found "a" twice'),
    ],
)  # fmt: skip
def test_a_broken_per_question_file_is_one_error(
    tmp_path: Path, questions: bytes, found: str
) -> None:
    path = _split_results(tmp_path, questions)
    with pytest.raises(EvidencedeskError) as info:
        evidencedesk.load_results(path)
    line = ":1" if "each key" in found else ""
    assert str(info.value) == f"{path}{line}: {serialize.QUESTIONS_FILE}: {found}"


def test_a_gzip_bomb_is_refused_before_it_expands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_text, "_MIN_GZIP_EXPANSION", 1 << 20)  # so the bomb need be only 1 MB
    bomb = gzip.compress(b" " * ((1 << 20) + 1), compresslevel=9)
    assert len(bomb) * file_text.MAX_GZIP_RATIO < 1 << 20  # the ratio allows less than the floor
    path = _split_results(tmp_path, bomb)
    with pytest.raises(EvidencedeskError) as info:
        evidencedesk.load_results(path)
    assert str(info.value) == (
        f"{path}: {serialize.QUESTIONS_FILE}: expected a gzip-compressed JSON file that expands to "
        f"at most 1 MB ({file_text.MAX_GZIP_RATIO} times its size, within the per-file limit), "
        "found more"
    )


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe", b"", b"[]", b"{}", b'{"schema_version": 1}', b'{"schema_version": 1, "x": 1}',
     b'{"schema_version": 1, "per_question": 3}', DEEP.encode(), b'{"schema_version": "\\ud800"}',
     json.dumps({**json.loads(serialize.dumps(tiny_results())), "variants": [{"name": []}]}).encode(),
     json.dumps({**json.loads(serialize.dumps(tiny_results())), "flips": {"a": 1}}).encode()],
)  # fmt: skip
def test_load_results_raises_only_evidencedesk_errors(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(content)
    with pytest.raises(EvidencedeskError) as info:
        evidencedesk.load_results(path)
    assert str(info.value).startswith(f"{path}")


@pytest.mark.parametrize("name", ["lone \ud800.json", "nul \x00.json"])
def test_load_results_of_a_name_no_file_can_have(tmp_path: Path, name: str) -> None:
    with pytest.raises(EvidencedeskError, match="expected a file name the file system can hold"):
        evidencedesk.load_results(str(tmp_path) + "/" + name)


# -- through the command line -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    return make_scratch(tmp_path_factory.mktemp("pristine"))


def test_a_bad_project_file_is_one_line_and_changes_nothing(
    pristine: Scratch, tmp_path: Path
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    with world.project.open("a", encoding="utf-8") as out:
        out.write(f"\n[extras]\nx = {LONG}\n")
    before = world.state()
    code, _, err = build_in_process("--project", str(world.project), "--out", str(world.out))
    line = world.project.read_text(encoding="utf-8").count("\n")
    assert (code, err) == (2, f"error: {world.project}:{line}: expected numbers of at most "
                              f"{MAX_DIGITS} digits, found {LONG_SHOWN}\n")  # fmt: skip
    assert world.state() == before


def test_a_query_written_twice_in_one_line_is_one_line_and_changes_nothing(
    pristine: Scratch, tmp_path: Path
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    queries = world.project.parent / "queries.jsonl"
    lines = queries.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace('"text":', '"text": "first", "text":')
    queries.write_text("".join(lines), encoding="utf-8")
    before = world.state()
    code, _, err = build_in_process("--project", str(world.project), "--out", str(world.out))
    assert (code, err) == (2, f'error: {queries}:3: expected each key once per object, found '
                              '"text" twice\n')  # fmt: skip
    assert world.state() == before


# the reproducible-builds specification asks for ASCII digits: no sign, no other script's digits
@pytest.mark.parametrize(
    "epoch",
    [
        "9" * 30,
        "-1",
        "1e9",
        "253402300800",
        "+1700000000",
        "١٧٠٠٠٠٠٠٠٠",
        "１７００００００００",
        " 17",
        "17\n",
    ],
)
def test_an_out_of_range_source_date_epoch_is_one_line_before_any_work(
    pristine: Scratch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, epoch: str
) -> None:
    world = copy_scratch(pristine, tmp_path / "world")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    before = world.state()
    code, _, err = build_in_process("--project", str(world.project), "--out", str(world.out))
    assert (code, err) == (2, "error: SOURCE_DATE_EPOCH: expected whole seconds since 1970 from 0 "
                              f"to 253402300799 (the year 9999), found {epoch!r}\n")  # fmt: skip
    assert world.state() == before


def test_validate_refuses_a_deep_project_file_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evidencedesk.cli import main

    project = tmp_path / "evidencedesk.toml"
    project.write_text(f"[project]\nname = {DEEP}\n", encoding="utf-8")
    assert main(["validate", "--project", str(project)]) == 2
    assert capsys.readouterr().err == (
        f"error: {project}:2: expected TOML nested at most {MAX_DEPTH} levels deep, found deeper\n"
    )
