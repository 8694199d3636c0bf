"""Inert text outside HTML: every shell command we print is quoted, every line of data on a
terminal or a CI log has its control characters escaped and never starts with ``::``, and the
CI action escapes its inputs in its own workflow commands (docs/output-folder.md, "Text outside
HTML")."""

from __future__ import annotations

import html
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from evidencedesk._inert import inert_json, printable, shell_command
from evidencedesk.cli import main as evidencedesk_main
from evidencedesk.report._model import BuildOptions, SiteModel
from tests import report_fixtures as rf
from tests.project_fixtures import make_runs_only_project
from tests.reliability_fixtures import build_in_process
from tests.test_action import run_build_step
from tests.test_output_folder import tree_hash

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "b\x1b]0;pwned\x07\n::error::x"  # retitles a terminal, then a workflow command


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("a\nb\r\tc", "a\\nb\\r\\tc"),
        ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),  # NUL, DEL, the one-byte CSI
        ("x\u202eevil\u2066\u2028", "x\\u202eevil\\u2066\\u2028"),  # bidi and line separators
        ("lone \ud800", "lone \\ud800"),
        ("::error::x", "\\x3a:error::x"),
        ("  ::warning file=a::b", "  \\x3a:warning file=a::b"),
        ("a ::error::x", "a ::error::x"),  # only a line's start is a command
        ("বাংলা\u200c নাম", "বাংলা\u200c নাম"),  # Bangla, with its zero-width non-joiner, as is
        ("C:\\runs\\a b", "C:\\runs\\a b"),
    ],
)
def test_printable_escapes_controls_and_a_leading_double_colon(text: str, shown: str) -> None:
    assert printable(text) == shown


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (["build", "--project", "my proj"], "build --project 'my proj'"),
        (["--project", "x;$(touch pwned)"], "--project 'x;$(touch pwned)'"),
        (["--run", "it's=a.run"], "--run 'it'\"'\"'s=a.run'"),
        (["--run", "a\nb=x"], "--run $'a\\nb=x'"),
        (["--run", "c\x1b'\\=x"], "--run $'c\\x1b\\'\\\\=x'"),
        (["plain", "a-b_c.d/e"], "plain a-b_c.d/e"),
    ],
)
def test_shell_command_quotes_every_word(words: list[str], command: str) -> None:
    assert shell_command(words) == command


@pytest.mark.parametrize("words", [["a b", ";", "$(x)", "`y`", "'", '"', "\\", "", "*"]])
def test_a_quoted_command_reads_back_as_its_words(words: list[str]) -> None:
    assert shlex.split(shell_command(words)) == words


def test_control_characters_read_back_through_bash(tmp_path: Path) -> None:
    words = ["a\nb", "c\x1bd", "it's", "$(touch pwned)"]
    done = subprocess.run(["bash", "-c", f"printf '%s\\0' {shell_command(words)}"],
                          cwd=tmp_path, capture_output=True, check=True)  # fmt: skip
    assert done.stdout.decode().split("\0")[:-1] == words
    assert list(tmp_path.iterdir()) == []


def test_inert_json_stays_json() -> None:
    import json

    text = json.dumps({"name": "a\x9bb\u2028"}, ensure_ascii=False)
    assert inert_json(text) == '{"name": "a\\u009bb\\u2028"}'
    assert json.loads(inert_json(text)) == {"name": "a\x9bb\u2028"}


def test_the_footers_reproduce_command_is_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "my proj;$(touch pwned)"
    make_runs_only_project(tmp_path, questions=6, runs=2).parent.rename(folder)
    out = tmp_path / "site"
    monkeypatch.chdir(tmp_path)  # the project path as typed, relative: so it is reproduced
    code, _, err = build_in_process("--project", folder.name, "--out", str(out))
    assert code == 0 and all(line.startswith("warning: ") for line in err.splitlines())
    footer = re.search(r"reproduce with <code>(.*?)</code>", (out / "index.html").read_text())
    assert footer is not None
    command = html.unescape(footer.group(1))
    assert command == (
        "python -m evidencedesk.report build --project 'my proj;$(touch pwned)' --seed 0"
    )
    assert shlex.split(command)[5] == "my proj;$(touch pwned)"


def hostile_names_model(options: BuildOptions, progress: object) -> SiteModel:
    return rf.make_model(candidate_names=(HOSTILE, "c\x1b[2Jd", "plain"))


def test_the_build_summary_prints_names_inert() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        code, out, err = build_in_process("--out", f"{scratch}/site", factory=hostile_names_model)
    assert (code, err) == (0, "")
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("::")]
    assert any(line.endswith(" b\\x1b]0;pwned\\x07\\n::error::x") for line in lines), out
    assert any(line.endswith(" c\\x1b[2Jd") for line in lines), out


def test_an_error_line_prints_a_file_name_inert(tmp_path: Path) -> None:
    project = tmp_path / "p\x1b[2J\n::error::x.toml"
    code, out, err = build_in_process("--project", str(project), "--out", str(tmp_path / "site"))
    assert code == 2
    assert err == (
        f"error: {tmp_path}/p\\x1b[2J\\n::error::x.toml: expected a readable project file, found "
        "No such file or directory\n"
    )


def _hostile_project(tmp_path: Path) -> Path:
    project = make_runs_only_project(tmp_path, questions=6, runs=2)
    runs = project.parent / "runs"
    (runs / "better.run").rename(runs / f"{HOSTILE}.run")
    return project


@pytest.mark.parametrize("command", ["validate", "benchmark", "build"])
def test_a_run_name_with_control_characters_is_refused_in_one_inert_line(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a page would draw its newline as a space: refused where the project is read, and the
    # refusal names the file and the name with every control character escaped
    project = _hostile_project(tmp_path)
    before = tree_hash(project.parent)
    out = ["--out", str(tmp_path / "site")] if command == "build" else []
    assert evidencedesk_main([command, "--project", str(project), *out]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert not [line for line in err.splitlines() if line.lstrip().startswith("::")]
    assert err == (
        f"error: {project}:11: [runs].dir: expected a run name without control characters (a "
        "page shows it on one line), found 'b\\x1b]0;pwned\\x07\\n::error::x'\n"
    )
    assert tree_hash(project.parent) == before


def test_init_hints_are_quoted_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "team data;$(id)"
    make_runs_only_project(tmp_path, questions=6, runs=2).parent.rename(folder)
    (folder / "evidencedesk.toml").unlink()
    assert evidencedesk_main(["init", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        f"check it:  evidencedesk validate --project '{folder}'",
        f"build it:  evidencedesk build --project '{folder}' --out site",
    ]
    # run as `python -m evidencedesk.report`: the program's three words, each a word the shell
    # reads (quoted as one, it would look for a program named "python -m evidencedesk.report")
    (folder / "evidencedesk.toml").unlink()
    assert evidencedesk_main(["init", str(folder)], prog="python -m evidencedesk.report") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        f"check it:  python -m evidencedesk.report validate --project '{folder}'",
        f"build it:  python -m evidencedesk.report build --project '{folder}' --out site",
    ]
    assert shlex.split(lines[1].removeprefix("check it:  "))[:4] == [
        "python", "-m", "evidencedesk.report", "validate"]  # fmt: skip


# -- the CI action ----------------------------------------------------------------------------------
def test_a_previous_run_id_with_a_newline_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    done, output = run_build_step(tmp_path, PREVIOUS="12\n::error::pwned 100%")
    assert done.returncode == 0, done.stderr
    assert output == "status=0\n"
    commands = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert commands == [
        "::warning::no results.json in the artifact of run 12%0A::error::pwned 100%25; built "
        "without --compare-to"
    ]


def test_a_multi_line_args_input_passes_every_line(tmp_path: Path) -> None:
    done, output = run_build_step(
        tmp_path, EXTRA="--model-factory\n  tests.report_fixtures:fixture_model\n\t--quiet\n"
    )
    assert done.returncode == 0, done.stderr
    assert output == "status=0\n"
    args = (tmp_path / "args").read_text().splitlines()
    assert args[-3:] == ["--model-factory", "tests.report_fixtures:fixture_model", "--quiet"]
    assert done.stdout.splitlines() == [f"open {tmp_path / 'site' / 'index.html'}"]  # --quiet


def test_the_build_step_quotes_no_input_into_its_script() -> None:
    from tests.test_action import step_script

    script = step_script("Build the report")
    assert "${{" not in script  # every input arrives through the environment
    assert "read -r -d '' -a extra <<< \"$EXTRA\" || true" in script


def test_an_argument_error_prints_the_argument_inert(capsys: pytest.CaptureFixture[str]) -> None:
    assert evidencedesk_main(["validate", "--bogus\x1b]0;pwned\x07"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: unrecognized arguments: --bogus\\x1b]0;pwned\\x07 (see evidencedesk validate --help)\n"
    )
    assert "\x1b" not in err
