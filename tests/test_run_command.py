"""``evidencedesk run`` (issue 35, item 7): a TREC run of a built-in searcher over a project's
documents and questions, deterministic, with progress on stderr, a note beside it, and never
over a file it did not write."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.files.trec import read_run

# three documents, two questions: q1 asks for d1's words, q2 for d2's
_DOCS = [
    ("d1", "Opening hours", "The library opens at nine in the morning."),
    ("d2", "Late fines", "A late book costs ten cents a day."),
    ("d3", "Membership", "A library card is free for residents."),
]
_QUERIES = [("q1", "When does the library open in the morning?", "d1"),
            ("q2", "How much is the fine for a late book?", "d2")]  # fmt: skip


def project(root: Path, index: bool = True) -> Path:
    """A BEIR project; `index=False`: a runs-only one whose corpus is shown, not indexed."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in _DOCS))  # fmt: skip
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t, _ in _QUERIES)
    )
    (root / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, _, d in _QUERIES)
    )
    runs = ""
    if not index:
        (root / "runs").mkdir(exist_ok=True)
        (root / "runs" / "mine.run").write_text(
            "q1 Q0 d3 1 2.0 mine\nq1 Q0 d1 2 1.0 mine\nq2 Q0 d2 1 2.0 mine\n"
        )
        runs = '\n[runs]\ndir = "runs"\nbaseline = "mine"\n'
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "tiny"\n\n[documents]\ncorpus = "corpus.jsonl"\n'
        + ("" if index else "index = false\n")
        + '\n[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.tsv"\n'
        + runs
    )
    return root / "evidencedesk.toml"


def main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_sparse_run_of_a_tiny_corpus(tmp_path: Path) -> None:
    toml = project(tmp_path / "p")
    out = tmp_path / "p" / "bm25.run"
    code, stdout, stderr = main("run", "--project", str(toml), "--searcher", "sparse",
                                "--depth", "2", "--out", str(out))  # fmt: skip
    assert code == 0, stderr
    assert stdout.splitlines() == [
        f"project: tiny ({toml})",
        f"wrote {out}: 4 lines, up to 2 documents for each of 2 questions (the sparse searcher, "
        "tag evidencedesk-sparse)",
        f"wrote {out.with_suffix('.md')}: how the run was made",
    ]
    assert stderr.splitlines() == [
        "  searching 2 questions over 3 passages with the sparse searcher (the index is built on "
        "the first)",
        "  questions searched 1 / 2",
        "  questions searched 2 / 2",
    ]
    lines = [line.split() for line in out.read_text().splitlines()]
    assert [(q, z, d, r, t) for q, z, d, r, _, t in lines] == [
        ("q1", "Q0", "d1", "1", "evidencedesk-sparse"),  # the words of the question's document
        ("q1", "Q0", "d3", "2", "evidencedesk-sparse"),  # "library"
        ("q2", "Q0", "d2", "1", "evidencedesk-sparse"),
        ("q2", "Q0", lines[3][2], "2", "evidencedesk-sparse"),
    ]
    scores = [float(line[4]) for line in lines]
    assert scores[0] > scores[1] and scores[2] > scores[3]
    assert read_run(out).qids == ("q1", "q2")  # evidencedesk reads back what it wrote
    assert (
        out.with_suffix(".md")
        .read_text()
        .startswith(
            "Written by evidencedesk run: the sparse searcher (BM25 over Unicode-aware tokens), the "
            "top 2 of 3 passages (corpus.jsonl) for each of 2 questions, tag evidencedesk-sparse; "
        )
    )


def test_a_count_of_one_is_said_in_the_singular(tmp_path: Path) -> None:
    toml = project(tmp_path / "p")
    out = tmp_path / "p" / "top1.run"
    code, stdout, _ = main("run", "--project", str(toml), "--searcher", "sparse", "--depth", "1",
                           "--out", str(out))  # fmt: skip
    assert code == 0
    assert stdout.splitlines()[1] == (
        f"wrote {out}: 2 lines, up to 1 document for each of 2 questions (the sparse searcher, "
        "tag evidencedesk-sparse)"
    )


@pytest.mark.parametrize("searcher", ["sparse", "dense", "hybrid", "minilm"])
def test_every_searcher_writes_the_same_bytes_twice(tmp_path: Path, searcher: str) -> None:
    if searcher == "minilm":
        pytest.importorskip("onnxruntime")
    toml = project(tmp_path / "p")
    out = tmp_path / "p" / f"{searcher}.trec"
    args = ("run", "--project", str(toml), "--searcher", searcher, "--out", str(out), "--tag", "t")
    assert main(*args)[0] == 0
    first = out.read_bytes()
    # depth 100 over three passages: all three for both questions; BM25 leaves out a passage
    # that shares no word with the question (q1 and d2)
    assert len(first.splitlines()) == (5 if searcher == "sparse" else 6)
    assert main(*args)[0] == 0  # its own file (the note says so): replaced, with the same bytes
    assert out.read_bytes() == first


def test_a_file_it_did_not_write_is_kept(tmp_path: Path) -> None:
    toml = project(tmp_path / "p")
    theirs = tmp_path / "p" / "theirs.run"
    theirs.write_text("q1 Q0 d1 1 1.0 theirs\n")
    code, _, stderr = main("run", "--project", str(toml), "--searcher", "sparse",
                           "--out", str(theirs))  # fmt: skip
    assert code == 2
    assert stderr == (  # refused before any search: no progress line
        f"error: {theirs}: expected no file or a run evidencedesk run wrote (evidencedesk writes "
        "only files it owns), found a file that is not a run evidencedesk run wrote; it is left "
        "as it is — move it away or choose another path for the run file\n"
    )
    assert theirs.read_text() == "q1 Q0 d1 1 1.0 theirs\n"
    assert not theirs.with_suffix(".md").exists()
    # a note of theirs where the run's note would go: refused before anything is written
    (tmp_path / "p" / "new.md").write_text("our own notes\n")
    code, _, stderr = main("run", "--project", str(toml), "--searcher", "sparse",
                           "--out", str(tmp_path / "p" / "new.run"))  # fmt: skip
    assert code == 2 and stderr.startswith(f"error: {tmp_path / 'p' / 'new.md'}: expected no file")
    assert not (tmp_path / "p" / "new.run").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--depth", "0"], "argument --depth: expected a whole number of at least 1, found '0'"),
        (["--tag", "a b"], "argument --tag: expected a tag without whitespace, found 'a b'"),
        (
            ["--searcher", "bm25"],
            "argument --searcher: invalid choice: 'bm25' (choose from "
            "'sparse', 'dense', 'hybrid', 'minilm')",
        ),
    ],
)
def test_bad_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    toml = project(tmp_path / "p")
    base = {"--searcher": "sparse"}
    given = dict(zip(args[::2], args[1::2], strict=True))
    argv = [x for k, v in {**base, **given}.items() for x in (k, v)]
    code, _, stderr = main("run", "--project", str(toml), *argv, "--out", str(tmp_path / "x.run"))
    assert (code, stderr) == (2, f"error: {message} (see evidencedesk run --help)\n")


def test_a_project_without_documents_is_refused(tmp_path: Path) -> None:
    toml = project(tmp_path / "p", index=False)  # runs-only: documents are optional there
    text = toml.read_text().replace('[documents]\ncorpus = "corpus.jsonl"\nindex = false\n', "")
    toml.write_text(text)
    code, _, stderr = main("run", "--project", str(toml), "--searcher", "sparse",
                           "--out", str(tmp_path / "x.run"))  # fmt: skip
    assert (code, stderr) == (2, f"error: {toml}: expected [documents] to search (a corpus.jsonl "
                                 "or Markdown folders), found none\n")  # fmt: skip


def test_the_run_stands_beside_the_team_s_own_in_a_runs_only_project(tmp_path: Path) -> None:
    toml = project(tmp_path / "p", index=False)
    out = tmp_path / "p" / "runs" / "built-in-bm25.run"
    assert main("run", "--project", str(toml), "--searcher", "sparse", "--out", str(out))[0] == 0
    code, _, stderr = main("build", "--project", str(toml), "--out", str(tmp_path / "site"), "-q")
    assert code == 0, stderr
    results = json.loads((tmp_path / "site" / "results.json").read_text())
    described = {v["name"]: v["description"] for v in results["variants"]}
    assert described == {"mine": "TREC run (tag 'mine'), judged at its full depth",
                         "built-in-bm25": "TREC run (tag 'evidencedesk-sparse'), judged at its "
                         "full depth"}  # fmt: skip
    assert [c["name"] for c in results["candidates"]] == ["built-in-bm25"]


def test_a_note_name_is_not_a_run_name(tmp_path: Path) -> None:
    toml = project(tmp_path / "p")
    out = tmp_path / "p" / "run.md"
    code, _, stderr = main("run", "--project", str(toml), "--searcher", "sparse", "--out", str(out))
    assert (code, stderr) == (2, f"error: {out}: expected a run file name, found a .md name (the "
                                 "run's note is <name>.md beside the run)\n")  # fmt: skip
    assert not out.exists()
