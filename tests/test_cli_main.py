"""The ``evidencedesk`` command: --version, help with exit codes at every level, validate on the
demo and on a broken project, build delegated to the report CLI, benchmark through a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencedesk import __version__
from evidencedesk.cli import main
from evidencedesk.cli import main as report_main
from evidencedesk.report import _build as report_build

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "evidencedesk", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or ROOT,
        timeout=300,
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"evidencedesk {__version__}\n"


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        ([], ["0    success", "1    a gate level failed", "2    bad input"]),
        (
            ["build"],
            [
                "0    the site was written",
                "1    the site was written, but a candidate's gate level failed --fail-on",
                "2    bad input",
                "3    internal error",
                "130  interrupted (Ctrl-C)",
                "143  terminated (SIGTERM)",
            ],
        ),
        (
            ["benchmark"],
            [
                "0    the table was printed",
                "1    --gate and a BLOCK (as build --fail-on block exits)",
                "2    bad input",
                "141  the reader closed the pipe early",
            ],
        ),
        (["init"], ["0    evidencedesk.toml was written", "2    bad input"]),
        (["validate"], ["0    the project loads", "2    bad input"]),
    ],
)
def test_every_help_names_its_exit_codes_and_options(
    command: list[str], codes: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main([*command, "--help"])
    except SystemExit as stop:  # argparse's own help exits
        status = stop.code  # type: ignore[assignment]
    assert status == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {' '.join(['evidencedesk', *command])} [-h]")
    tail = re.split(r"\nexit status(?:es)?:\n", text)[1].splitlines()
    for code in codes:
        assert any(line.strip().startswith(code) for line in tail), code
    assert "-h, --help" in text


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("build", ["--out FOLDER", "--seed N", "--fail-on", "--run NAME=PATH", "--project"]),
        ("benchmark", ["--project", "--gate", "--json", "--gate-variant NAME"]),
        ("init", ["DIR", "--force"]),
        ("validate", ["--project"]),
    ],
)
def test_help_lists_the_options(
    command: str, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        main([command, "--help"])
    except SystemExit:
        pass
    options_part = re.split(r"\nexit status(?:es)?:\n", capsys.readouterr().out)[0]
    for option in options:
        assert option in options_part


def test_validate_the_demo_prints_what_it_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()  # a repository's root: the project search stops here
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0] == f"project: the demo, Kestrel Cycles (demo) (no evidencedesk.toml in {tmp_path})"
    )
    assert lines[1:9] == [
        "kind: pipeline (evidencedesk indexes the documents)",
        "documents: Markdown folders (corpus, docs): 20 documents, 60 chunks",
        "questions: 24 questions, all judged, 21 with a relevant judgment (grade ≥ 2); grades "
        "up to 2",
        "tags: bangla 4, direct 10, exact_term 4, paraphrase 4, restricted 3, stale 3, "
        "structured 4, unanswerable 3",
        "dense searcher: toy hashed embedder, cosine",
        "run bm25-title: answers 24 of 24 judged queries (100 %); 70 of the 70 documents of its "
        "top 3 are judged for some query (100 %), 70 of them are in the corpus (100 %)",
        "candidates: 10 (rerank overlap, rerank feature, rerank blend, pair cut to 8 words, "
        "no pre-filter, depth 3, depth 20, final 5, dense first stage, dense: MiniLM)",
        "gate policy: gate_policy_retrieval.json (k=3, min_recall=0.75, min_pass_rate=0.8, "
        "max_drop=0.02, review_on_mrr_flips=true, flips_min_net=1, flips_max_p=1.0, "
        "critical: rc01, st01, rs01, rc02)",
    ]
    assert lines[9] == "saved baseline: baseline_retrieval.json"
    # the course's nDCG@5 on final lists of 3: said, as the methods page says it
    assert (
        "note: The variants' final lists hold 3 results (a candidate's final changes its own): "
        "nDCG@5 (exp gain) reads those 3 and no further."
    ) in lines
    assert lines[-1] == "ok: the project loads; nothing was built"


def test_validate_counts_the_candidates_a_runs_only_build_compares(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a runs-only build compares every run but the baseline run: validate says the same
    from evidencedesk.results._serialize import load

    project = Path(__file__).resolve().parents[1] / "examples" / "millbrook-library" / "runs-only"
    assert main(["validate", "--project", str(project)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "baseline run: bm25" in lines and "candidates: 1 (rerank)" in lines
    assert main(["build", "--project", str(project), "--out", str(tmp_path / "s"), "-q"]) == 0
    assert [c.name for c in load(tmp_path / "s" / "results.json").candidates] == ["rerank"]


def test_validate_says_a_project_without_a_policy_checks_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the site's gate badge says "no gate policy — nothing checked"; validate says the same, and
    # what --fail-on review reads (the level REVIEW: exit 1)
    from tests.project_fixtures import make_runs_only_project

    project = make_runs_only_project(tmp_path)  # no [gate] policy
    assert main(["validate", "--project", str(project)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        "gate policy: none: nothing is checked (each candidate's gate is REVIEW to --fail-on)"
        in lines
    )
    site = tmp_path / "site"
    argv = ["build", "--project", str(project), "--out", str(site), "-q"]
    assert main([*argv, "--fail-on", "review"]) == 1
    assert "no gate policy — nothing checked" in (site / "index.html").read_text("utf-8")


def test_validate_gives_the_builds_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "evidencedesk.toml"
    project.write_text('[questions]\nlabels = "labels.jsonl"\ncolour = "red"\n', encoding="utf-8")
    (tmp_path / "labels.jsonl").write_text("", encoding="utf-8")
    assert main(["validate", "--project", str(tmp_path)]) == 2
    checked = capsys.readouterr()
    assert main(["build", "--project", str(tmp_path), "--out", str(tmp_path / "site")]) == 2
    built = capsys.readouterr()
    assert checked.out == ""
    assert checked.err == built.err
    assert checked.err.startswith(f"error: {project}:3: ") and checked.err.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_build_is_the_report_build(tmp_path: Path) -> None:
    """Delegated with every option, in a subprocess as a user runs it (a fixture model: fast)."""
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, ROOT / "tests" / "with_model.py", "build", "--out", out, "--model-factory",
         "tests.report_fixtures:fixture_model"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"open {out / 'index.html'}"
    assert (out / "manifest.json").is_file()


def test_benchmark_into_head_ends_quietly(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # a repository's root: the project search stops here
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{sys.executable} -m evidencedesk benchmark | head -1"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode in (0, 141)
    assert done.stderr == ""
    assert done.stdout == (
        f"project: the demo, Kestrel Cycles (demo) (no evidencedesk.toml in {tmp_path})\n"
    )


def _help(run: Callable[[], object], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        run()
    except SystemExit as stop:
        assert stop.code == 0
    return capsys.readouterr().out


REPORT = "python -m evidencedesk.report"  # the shim's usage lines name it
HELPS = {
    "python -m evidencedesk.report": lambda: report_main(["--help"], prog=REPORT),
    "python -m evidencedesk.report build": lambda: report_main(["build", "--help"], prog=REPORT),
    "evidencedesk": lambda: main(["--help"]),
    "evidencedesk build": lambda: main(["build", "--help"]),
    "evidencedesk benchmark": lambda: main(["benchmark", "--help"]),
    "evidencedesk init": lambda: main(["init", "--help"]),
    "evidencedesk validate": lambda: main(["validate", "--help"]),
}


@pytest.mark.parametrize("command", list(HELPS))
def test_every_help_has_a_paragraph_the_exit_codes_and_no_markup(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(HELPS[command], capsys)
    assert text.startswith(f"usage: {command} [-h]")
    paragraph = text.split("\n\n")[1]  # after the usage block
    assert len(paragraph.split()) >= 25, paragraph  # a description, not a one-liner
    assert re.search(r"\nexit status(?:es)?:\n  0    ", text)
    assert "\n  2    bad input" in text
    for markup in ("``", "::", "`"):
        assert markup not in text, markup


def test_report_help_names_compare_to_and_its_exit_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = _help(HELPS["python -m evidencedesk.report build"], capsys)
    assert "--compare-to PATH" in text
    assert "2    bad input (also a --compare-to file that is not a readable results.json)" in text
    # one parser tree: the shim's help lists every command, as `evidencedesk --help` does
    top = _help(HELPS["python -m evidencedesk.report"], capsys)
    assert "    build " in top and "    audit " in top and "1    a gate level failed" in top


def test_a_build_reads_the_project_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's checks load the project and the build uses that object (a 50,000-question
    project is not parsed twice)."""
    import evidencedesk.results._inputs
    from tests.synthetic_runs import write_project

    project = write_project(tmp_path / "p", {"q1": {"d1": 2}, "q2": {"d2": 2}},
                            {"base": {"q1": ["d1"], "q2": ["x", "d2"]}})  # fmt: skip
    loads: list[Path] = []
    real = evidencedesk.results._inputs.load_project

    def counting(path: Path, *args: object, **kwargs: object) -> object:
        loads.append(Path(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evidencedesk.results._inputs, "load_project", counting)
    monkeypatch.setattr(report_build, "load_project", counting)
    assert (
        report_main(["build", "--project", str(project), "--out", str(tmp_path / "site"), "-q"])
        == 0
    )
    assert loads == [project]
    assert (tmp_path / "site" / "question-q2.html").is_file()
