"""``evidencedesk init``: what it finds and guesses in three layouts, that the file it writes loads
(and, once, builds), and that it never replaces a project file without ``--force``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencedesk.cli import main
from evidencedesk.cli._init import render, survey
from evidencedesk.paths import DATA

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "millbrook-library"


def beir_folder(tmp: Path) -> Path:
    """The example project without its project file (and without its runs-only variant)."""
    folder = tmp / "beir"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("runs-only", "__pycache__"))
    (folder / "evidencedesk.toml").unlink()
    return folder


def trec_folder(tmp: Path, grades: dict[str, int] | None = None) -> Path:
    """Queries as ``qid<TAB>text``, TREC qrels, two loose run files: no documents at all."""
    folder = tmp / "trec"
    folder.mkdir()
    with (folder / "topics.tsv").open("w", encoding="utf-8") as out:
        for line in (EXAMPLE / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            query = json.loads(line)
            out.write(f"{query['_id']}\t{query['text']}\n")
    rows = (EXAMPLE / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    with (folder / "qrels.txt").open("w", encoding="utf-8") as out:
        for row in rows:
            qid, doc, grade = row.split("\t")
            out.write(f"{qid} 0 {doc} {(grades or {}).get(grade, int(grade))}\n")
    for run in (EXAMPLE / "runs").glob("*.run"):
        shutil.copy(run, folder / run.name)
    return folder


def markdown_folder(tmp: Path) -> Path:
    """Two folders of Markdown documents with front matter and a labels.jsonl."""
    folder = tmp / "md"
    folder.mkdir()
    for part in ("corpus", "docs"):
        shutil.copytree(DATA / part, folder / part)
    shutil.copy(DATA / "labels.jsonl", folder / "labels.jsonl")
    (folder / "README.md").write_text("# Our help pages\n\nNo front matter here.\n")
    return folder


LAYOUTS = {  # folder maker, the project file as TOML data, lines `validate` must print
    "beir": (  # a corpus, qrels and the team's runs: the runs are compared, the corpus shown
        beir_folder,
        {
            "project": {"name": "beir", "seed": 0},
            "documents": {"corpus": "corpus.jsonl", "index": False},
            "questions": {"queries": "queries.jsonl", "qrels": "qrels/test.tsv", "relevance": 1},
            "runs": {"dir": "runs", "baseline": "bm25"},
            "gate": {"policy": "gate_policy.json"},
        },
        [
            "kind: runs-only (each TREC run is a variant)",
            "documents: a BEIR corpus (corpus.jsonl): 42 documents, 42 chunks, shown on question "
            "pages, not indexed",
            "questions: 32 questions: 31 judged, 31 with a relevant judgment (grade ≥ 1); 1 "
            "without any judgment is left out; grades up to 3",
            "baseline run: bm25",
        ],
    ),
    "trec": (
        trec_folder,
        {
            "project": {"name": "trec", "seed": 0},
            "questions": {"queries": "topics.tsv", "qrels": "qrels.txt", "relevance": 1},
            "runs": {"files": ["bm25.run", "rerank.run"], "baseline": "bm25"},
        },
        [
            "kind: runs-only (each TREC run is a variant)",
            "documents: none (runs-only: questions, judgments and runs only)",
            "questions: 32 questions: 31 judged, 31 with a relevant judgment (grade ≥ 1); 1 "
            "without any judgment is left out; grades up to 3",
            "baseline run: bm25",
        ],
    ),
    "markdown": (
        markdown_folder,
        {
            "project": {"name": "md", "seed": 0},
            "documents": {"folders": ["corpus", "docs"], "chunking": "paragraph"},
            "questions": {"labels": "labels.jsonl", "relevance": 2},
        },
        [
            "documents: Markdown folders (corpus, docs): 20 documents, 60 chunks",
            "questions: 24 questions, all judged, 21 with a relevant judgment (grade ≥ 2); "
            "grades up to 2",
            "runs: none",
        ],
    ),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_init_writes_a_project_that_loads(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, written, found_lines = LAYOUTS[layout]
    folder = make(tmp_path)
    assert main(["init", str(folder)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert out.out.splitlines() == [
        f"wrote {folder / 'evidencedesk.toml'}",
        f"check it:  evidencedesk validate --project {folder}",
        f"build it:  evidencedesk build --project {folder} --out site",
    ]
    text = (folder / "evidencedesk.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text) == written
    guessed = [line for line in text.splitlines()[2:] if "GUESSED" in line]
    assert [line.split(" (")[0] if line.startswith("#") else line.split()[0] for line in guessed] == [
        "# GUESSED"] + (["baseline"] if "baseline" in written.get("runs", {}) else [])  # fmt: skip
    assert main(["validate", "--project", str(folder)]) == 0
    report = capsys.readouterr().out.splitlines()
    for line in found_lines:
        assert line in report, line
    assert report[-1] == "ok: the project loads; nothing was built"


def _kept(qrels: Path, threshold: int) -> int:
    best: dict[str, int] = {}
    for line in qrels.read_text(encoding="utf-8").splitlines():
        qid, _, _, grade = line.split()
        best[qid] = max(best.get(qid, -1), int(grade))
    return sum(g >= threshold for g in best.values())


@pytest.mark.parametrize(
    ("grades", "seen"),
    [
        ({"2": 1, "3": 1}, "0, 1"),  # binary judgments
        ({"3": 2}, "0, 1, 2"),
        (None, "0, 1, 2, 3"),
    ],
)
def test_the_relevance_guess_is_trec_evals_with_the_share_each_choice_keeps(
    tmp_path: Path, grades: dict[str, int] | None, seen: str
) -> None:
    folder = trec_folder(tmp_path, grades)
    lines = render(survey(folder)).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("relevance = "))
    assert lines[at] == f"relevance = 1                  # grades present: {seen}"
    top = int(seen[-1])
    judged = _kept(folder / "qrels.txt", -100)
    share = {t: f"{_kept(folder / 'qrels.txt', t)} ({round(100 * _kept(folder / 'qrels.txt', t) / judged)} %)"
             for t in range(1, top + 1)}  # fmt: skip
    others = "".join(f"; >= {t} keeps {share[t]}" for t in range(2, top + 1))
    assert lines[at - 1] == (
        f"# GUESSED (trec_eval's default level, -l 1): relevant = grade >= 1 keeps {share[1]} "
        f"of the {judged} judged questions{others}"
    )


def test_judged_queries_the_queries_file_does_not_list_are_counted_apart(tmp_path: Path) -> None:
    # q3 is judged but not in queries.jsonl: not a question of the project (the build leaves
    # it out), so the relevance guess counts q1 and q2, and a line says what q3 is
    folder = tmp_path / "p"
    (folder / "runs").mkdir(parents=True)
    (folder / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n'
    )
    (folder / "qrels.txt").write_text("q1 0 d1 2\nq2 0 d2 1\nq3 0 d3 2\n")
    (folder / "runs" / "base.run").write_text(
        "q1 Q0 d1 1 2 base\nq2 Q0 d2 1 2 base\nq3 Q0 d3 1 2 base\n"
    )
    lines = render(survey(folder)).splitlines()
    at = lines.index("relevance = 1                  # grades present: 1, 2")
    assert lines[at - 1 : at + 3] == [
        "# GUESSED (trec_eval's default level, -l 1): relevant = grade >= 1 keeps 2 (100 %) of "
        "the 2 judged questions; >= 2 keeps 1 (50 %)",
        "relevance = 1                  # grades present: 1, 2",
        '# 1 judged query is not in "queries.jsonl" ("q3"): left out of every number',
        "# evaluate_unlisted = true      # evaluates them too, shown by their ids",
    ]
    # uncommented, the key loads: the build evaluates q3 too
    (folder / "evidencedesk.toml").write_text(
        render(survey(folder)).replace("# evaluate_unlisted", "evaluate_unlisted"), "utf-8"
    )
    assert main(["validate", "--project", str(folder)]) == 0


def test_a_labels_file_keeps_its_own_threshold(tmp_path: Path) -> None:
    lines = render(survey(markdown_folder(tmp_path))).splitlines()
    assert "relevance = 2                  # grades present: 0, 1, 2" in lines
    assert any(line.startswith("# GUESSED (a labels file: grade 2 answers the question)")
               for line in lines)  # fmt: skip


def test_a_runs_only_project_gets_a_commented_starter_gate(tmp_path: Path) -> None:
    text = render(survey(trec_folder(tmp_path)))
    assert '# [gate]\n# policy = "gate_policy.json"\n' in text
    start = text.index("#   {")
    policy = json.loads("".join(line.lstrip("# ") for line in text[start:].splitlines()[:2]))
    assert set(policy) == {"k", "min_recall", "min_pass_rate", "max_drop",
                           "review_on_mrr_flips", "flips_max_p", "critical"}  # fmt: skip
    assert (
        policy["flips_max_p"] == 0.2
    )  # the flips rule asks for evidence (tests/test_gate_agreement.py)
    assert "[gate]" not in tomllib.loads(text)  # commented out until the team writes the file


@pytest.mark.parametrize(
    ("files", "found"),
    [
        # the gate's own name is taken whatever it holds: validate says what is wrong with it
        ({"gate_policy.json": '{"k": "three"}', "policy.json": '{"k": 5}'}, "gate_policy.json"),
        # another name like a policy's, when the gate's loader reads it as one
        ({"release-policy.json": '{"k": 5, "min_recall": 0.5}'}, "release-policy.json"),
        ({"gate.json": '{"max_drop": 0.02}'}, "gate.json"),
        # not adopted: a policy of something else, a saved baseline, a name unlike a policy's
        ({"policy.json": '{"retention_days": 30}'}, None),
        ({"baseline_policy.json": '{"k": 5}'}, None),
        ({"thresholds.json": '{"k": 5}'}, None),
        ({"privacy-policy.json": "not json"}, None),
    ],
)
def test_a_gate_policy_is_found_by_its_name_and_what_it_holds(
    tmp_path: Path, files: dict[str, str], found: str | None
) -> None:
    folder = trec_folder(tmp_path)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    text = render(survey(folder))
    gate = tomllib.loads(text).get("gate")
    assert gate == (None if found is None else {"policy": found})
    if found is not None and found != "gate_policy.json":
        (folder / "evidencedesk.toml").write_text(text, encoding="utf-8")
        assert main(["validate", "--project", str(folder)]) == 0  # the policy loads


def test_a_fifo_and_a_folder_named_like_documents_are_never_opened(tmp_path: Path) -> None:
    folder = trec_folder(tmp_path)
    os.mkfifo(folder / "waiting.md")  # opening it would block until a writer came
    (folder / "zz.md").mkdir()
    assert "relevance = 1" in render(survey(folder))  # returns: nothing blocked or crashed


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "evidencedesk", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def test_a_second_init_refuses_without_force_and_replaces_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = trec_folder(tmp_path)
    assert main(["init", str(folder)]) == 0
    target = folder / "evidencedesk.toml"
    fresh = target.read_bytes()
    target.write_text("# my edits\n", encoding="utf-8")
    again = cli("init", folder, cwd=tmp_path)  # the real command: status, streams, no traceback
    assert (again.returncode, again.stdout) == (2, "")
    assert again.stderr == (
        f"error: {target}: expected no project file yet, found one (use --force to replace it)\n"
    )
    assert target.read_text(encoding="utf-8") == "# my edits\n"
    assert main(["init", str(folder), "--force"]) == 0
    assert target.read_bytes() == fresh
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_the_written_file_builds_a_site(tmp_path: Path) -> None:
    """One real build (the runs-only layout is the quickest); init's printed command, as printed."""
    folder = trec_folder(tmp_path)
    init = cli("init", ".", cwd=folder)
    assert init.returncode == 0, init.stderr
    command = init.stdout.splitlines()[-1].removeprefix("build it:  ").split()
    assert command == ["evidencedesk", "build", "--project", ".", "--out", "site"]
    built = cli(*command[1:], cwd=folder)
    assert built.returncode == 0, built.stderr
    assert built.stdout.splitlines()[-1] == f"open {folder / 'site' / 'index.html'}"
    index = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "<title>Overview · evidencedesk report — trec</title>" in index


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {},
            "expected questions (labels.jsonl, or qrels with queries.jsonl/queries.tsv for "
            "their text), found none",
        ),
        (
            {"qrels.txt": "q1 0 d1 1\n", "corpus.jsonl": '{"_id": "d1", "text": "x"}\n'},
            "expected a queries file (queries.jsonl or queries.tsv) to go with the qrels: a "
            "pipeline searches by the question text; add TREC runs for a runs-only project",
        ),
        (
            {"qrels.txt": "q1 0 d1 1\n", "queries.tsv": "q1\twhat\n"},
            "expected documents (corpus.jsonl or Markdown with front matter) or TREC runs, "
            "found neither",
        ),
    ],
)
def test_a_folder_without_enough_to_build_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path}: {message}\n"
    assert not (tmp_path / "evidencedesk.toml").exists()


def test_a_broken_qrels_file_stops_init_with_the_loaders_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = trec_folder(tmp_path)
    with (folder / "qrels.txt").open("a", encoding="utf-8") as out:
        out.write("q1 0 d1 high\n")
    assert main(["init", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder / 'qrels.txt'}:") and err.count("\n") == 1
    assert not (folder / "evidencedesk.toml").exists()


@pytest.mark.parametrize(
    ("make", "found"), [(lambda p: p / "none", "nothing"), (lambda p: p / "f", "a file")]
)
def test_init_needs_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, found
) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "f").write_text("x", encoding="utf-8")
    target = make(tmp_path)
    assert main(["init", str(target)]) == 2
    assert (
        capsys.readouterr().err == f"error: {target}: expected a folder to look at, found {found}\n"
    )


def test_a_runs_folder_with_a_note_beside_the_runs_is_still_the_runs_folder(tmp_path: Path) -> None:
    folder = trec_folder(tmp_path)
    (folder / "runs").mkdir()
    for run in sorted(folder.glob("*.run")):
        run.rename(folder / "runs" / run.name)
    (folder / "runs" / "NOTES.txt").write_text("how we made them\n", encoding="utf-8")
    written = tomllib.loads(render(survey(folder)))
    # a file named like a run that does not parse is an error: init lists the note under ignore
    assert written["runs"] == {"dir": "runs", "ignore": ["NOTES.txt"], "baseline": "bm25"}


HOSTILE_NAMES = [
    'proj\n[gate]\npolicy = "x.json"\n#',  # a dataset unpacked from someone else's archive
    'a "quoted" #name [x]',
    "ctrl\x1b[31m\x7f\r\t\x00end",
    "bidi \u202e\u2066 zero\u200b width \u2028 sep \u0085 nel \ufeff",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_names_init_writes_cannot_add_a_line_or_a_table(tmp_path: Path, name: str) -> None:
    """The project folder's and a Markdown folder's names (a comment and two strings) and a second
    qrels file's name (a comment): the file reads back as exactly the tables init meant."""
    if "\x00" in name:  # no file system holds a NUL in a name: the rest of it is tried
        name = name.replace("\x00", "")
    folder = markdown_folder(tmp_path)
    hostile = tmp_path / name
    folder.rename(hostile)
    (hostile / "corpus").rename(hostile / name)
    assert main(["init", str(hostile)]) == 0
    text = (hostile / "evidencedesk.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text) == {
        "project": {"name": name, "seed": 0},
        "documents": {"folders": sorted([name, "docs"]), "chunking": "paragraph"},
        "questions": {"labels": "labels.jsonl", "relevance": 2},
    }
    assert [line for line in text.splitlines() if line.startswith("[")] == [
        "[project]", "[documents]", "[questions]"
    ]  # fmt: skip
    # one line per line: no written character is a line break, a control or a bidi override
    assert all(ch == "\n" or ch.isprintable() or ch == " " for ch in text), text
    assert main(["validate", "--project", str(hostile)]) == 0

    trec = trec_folder(tmp_path)
    second = trec / f"qrels {name}.txt"
    shutil.copy(trec / "qrels.txt", second)
    assert main(["init", str(trec)]) == 0
    written = (trec / "evidencedesk.toml").read_text(encoding="utf-8")
    tables = tomllib.loads(written)
    assert set(tables) == {"project", "questions", "runs"}
    chosen, other = sorted(["qrels.txt", second.name])
    assert tables["questions"]["qrels"] == chosen
    (comment,) = [line for line in written.splitlines() if line.startswith("# other qrels")]
    assert tomllib.loads(f"x = {comment.removeprefix('# other qrels found (pick one): ')}") == {
        "x": other
    }


def test_a_file_init_cannot_read_is_named_with_the_os_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read that fails (EIO names no file) while init looks at first lines: the one line names
    the file being read, and nothing is written."""
    import errno

    from evidencedesk.files import trec

    folder = markdown_folder(tmp_path)
    broken = folder / "corpus" / "kc-shipping.md"
    real_open = Path.open

    class Failing:
        def __enter__(self) -> Failing:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self, *args: object) -> bytes:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    def fake_open(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        return Failing() if self == broken else real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", fake_open)
    assert main(["init", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {broken}: Input/output error (EIO)\n"
    assert not (folder / "evidencedesk.toml").exists()

    monkeypatch.setattr(Path, "open", real_open)
    run = folder / "a.run"
    run.write_text("q1 Q0 d1 1 1.0 a\n", encoding="utf-8")
    monkeypatch.setattr(trec, "open", lambda *a, **k: Failing(), raising=False)
    assert main(["init", str(folder)]) == 2
    assert capsys.readouterr().err == f"error: {run}: Input/output error (EIO)\n"


@pytest.mark.parametrize("dangling", [False, True])
def test_init_force_never_writes_through_a_symbolic_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], dangling: bool
) -> None:
    """An earlier round's case: ``evidencedesk.toml`` a link to another file (or to nothing);
    --force replaces only a project file, never a link or what it points at."""
    folder = markdown_folder(tmp_path)
    precious = tmp_path / "precious.toml"
    if not dangling:
        precious.write_text("precious = 1\n", encoding="utf-8")
    link = folder / "evidencedesk.toml"
    link.symlink_to(precious)
    assert main(["init", str(folder), "--force"]) == 2
    assert capsys.readouterr().err == (
        f"error: {link}: expected no file or an evidencedesk.toml to replace (--force) "
        "(evidencedesk writes only files it owns), found a symbolic link; it is left as it is — "
        "move it away or choose another path for the project file\n"
    )
    assert link.is_symlink() and os.readlink(link) == str(precious)
    assert precious.exists() is not dangling
    if not dangling:
        assert precious.read_text(encoding="utf-8") == "precious = 1\n"


@settings(max_examples=300, deadline=None)
@given(name=st.text(st.characters(codec=None, categories=None), max_size=40))
def test_any_name_init_quotes_reads_back_as_itself_on_one_line(name: str) -> None:
    from evidencedesk.cli._init import _q

    written = _q(name)
    # no control, format (bidi, zero-width) or separator character is written as itself
    assert not [ch for ch in written if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs")]
    # a lone surrogate (a byte that is not UTF-8) is the one thing TOML cannot hold: U+FFFD
    expected = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in name)
    assert tomllib.loads(f"x = {written}\n# {written}\n") == {"x": expected}


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n", "beir"),  # BEIR's header
        ("qrels.txt", "q1\td1\t1\n", "beir"),  # three tab-separated columns, no header
        ("qrels.dev.tsv", "1102432\t0\t2026790\t1\n", "trec"),  # MS MARCO: TREC by tabs
        ("qrels.tsv", "# judged in 2024\n\nq1 0 d1 2\n", "trec"),  # after a comment, a blank
        ("qrels.txt", "q1 0 d1 2\n", "trec"),
        ("qrels.tsv", "q1 d1\n", "beir"),  # neither: the name decides, its reader names it
        ("qrels", "", "trec"),
    ],
)
def test_a_qrels_file_reads_as_its_first_line_says(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    from evidencedesk.files._project_file import qrels_format

    (tmp_path / name).write_text(text, encoding="utf-8")
    assert qrels_format(tmp_path / name) == expected


def test_ms_marcos_tab_separated_trec_qrels_are_found_and_read(tmp_path: Path) -> None:
    """``qrels.dev.tsv`` (qid, 0, passage id, grade, by tabs) is TREC qrels whatever its name."""
    folder = trec_folder(tmp_path)
    text = (folder / "qrels.txt").read_text(encoding="utf-8")
    (folder / "qrels.txt").unlink()
    (folder / "qrels.dev.tsv").write_text(text.replace(" ", "\t"), encoding="utf-8")
    init = cli("init", ".", cwd=folder)
    assert init.returncode == 0, init.stderr
    project = (folder / "evidencedesk.toml").read_text(encoding="utf-8")
    assert 'qrels = "qrels.dev.tsv"   # TREC qrels\n' in project
    built = cli("build", "--project", ".", "--out", "site", "-q", cwd=folder)
    assert built.returncode == 0, built.stderr
    results = json.loads((folder / "site" / "results.json").read_text(encoding="utf-8"))
    assert (results["inputs"]["qrels_file"], results["inputs"]["qrels_format"]) == (
        "qrels.dev.tsv", "trec"
    )  # fmt: skip


def test_an_ms_marco_folder_is_named_with_the_rewrite_of_its_run_and_then_found(
    tmp_path: Path,
) -> None:
    """MS MARCO's layout: ``queries.dev.tsv``, TREC qrels by tabs in ``qrels.dev.tsv`` and a run
    of ``qid docid rank`` lines. init names the run with the awk that makes it a TREC run; run
    as printed, init finds the three and the project builds."""
    if shutil.which("awk") is None or shutil.which("bash") is None:
        pytest.skip("needs awk and bash")
    folder = tmp_path / "msmarco"
    folder.mkdir()
    (folder / "queries.dev.tsv").write_text("1\twhat is a\n2\twhat is b\n3\twhat is c\n")
    (folder / "qrels.dev.tsv").write_text("1\t0\t100\t1\n2\t0\t200\t1\n3\t0\t300\t1\n")
    (folder / "run.bm25.dev.tsv").write_text("1\t100\t1\n1\t999\t2\n2\t999\t1\n2\t200\t2\n"
                                             "3\t300\t1\n")  # fmt: skip
    refused = cli("init", ".", cwd=folder)
    rewrite = ("""awk '{print $1, "Q0", $2, $3, -$3, "run.bm25.dev"}' run.bm25.dev.tsv > """
               "run.bm25.dev.run")  # fmt: skip
    assert (refused.returncode, refused.stderr) == (2, (
        "error: .: expected documents (corpus.jsonl or Markdown with front matter) or TREC runs, "
        f"found neither (run.bm25.dev.tsv: qid, docid and rank, as MS MARCO writes a run? As a "
        f"TREC run (score: minus the rank): {rewrite})\n"))  # fmt: skip
    subprocess.run(["bash", "-c", rewrite], cwd=folder, check=True)
    init = cli("init", ".", cwd=folder)
    assert init.returncode == 0, init.stderr
    project = tomllib.loads((folder / "evidencedesk.toml").read_text(encoding="utf-8"))
    assert project["questions"]["queries"] == "queries.dev.tsv"
    assert project["questions"]["qrels"] == "qrels.dev.tsv"
    assert project["runs"]["files"] == ["run.bm25.dev.run"]
    built = cli("build", "--project", ".", "--out", "site", "-q", cwd=folder)
    assert built.returncode == 0, built.stderr
    results = json.loads((folder / "site" / "results.json").read_text(encoding="utf-8"))
    mrr = next(m["mean"] for m in results["variants"][0]["metrics"] if m["metric"] == "mrr")
    assert mrr == pytest.approx((1 + 1 / 2 + 1) / 3)


def test_labels_of_whole_documents_guess_document_chunking(tmp_path: Path) -> None:
    """A labels file that grades only each document's first chunk (doc:c0) reads as labels of
    whole documents: init guesses chunking by document, and says it guesses; one that grades a
    later chunk keeps the chunking by paragraph."""
    folder = markdown_folder(tmp_path)
    labels = [
        json.loads(line) for line in (folder / "labels.jsonl").read_text("utf-8").splitlines()
    ]
    for label in labels:  # each grade moved onto its document's first chunk
        grades: dict[str, int] = {}
        for chunk, grade in label["grades"].items():
            first = chunk.rsplit(":", 1)[0] + ":c0"
            grades[first] = max(grade, grades.get(first, grade))
        label["grades"] = grades
    (folder / "labels.jsonl").write_text("".join(json.dumps(lb) + "\n" for lb in labels), "utf-8")
    assert cli("init", ".", cwd=folder).returncode == 0
    project = (folder / "evidencedesk.toml").read_text("utf-8")
    graded = len({c for lb in labels for c in lb["grades"]})
    assert (
        f"# GUESSED (every one of the {graded} labelled chunks is a document's first, :c0): a "
        'whole document a chunk\nchunking = "document"         # or "paragraph": one chunk per '
        "paragraph\n"
    ) in project
    assert cli("validate", "--project", ".", cwd=folder).returncode == 0
    # the demo's own labels grade later chunks too: by paragraph, no guess
    (tmp_path / "demo").mkdir()
    other = markdown_folder(tmp_path / "demo")
    assert cli("init", ".", cwd=other).returncode == 0
    written = (other / "evidencedesk.toml").read_text("utf-8")
    assert 'chunking = "paragraph"        # one chunk per paragraph; or "document"\n' in written
    assert "a whole document a chunk" not in written
