"""The ``[extras]`` told truly: `validate` reads and refuses them as the build does (answers,
tenants), an answers file cites the catalog's own chunk ids (a BEIR corpus's are its document
ids), the citations page counts the file's answers, and the evidence page shows only the checks
that ran, as the overview's skipped stages say."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.errors import AnswersError
from evidencedesk.results._inputs import load_project
from evidencedesk.retrieval._citations import load_answers, score_answer
from tests.page_text import visible

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "millbrook-library"

# answers citing the Markdown catalog's ids (`<doc>:c0`)
_MARKDOWN_ANSWERS = [
    {"id": "c1", "question_id": "q01", "case": "all good",
     "answer": "The library is open Monday to Friday until 8 in the evening [mpl-hours-weekday:c0].",
     "shown": ["mpl-hours-weekday:c0", "mpl-hours-weekend:c0"]},
    {"id": "c2", "question_id": "q01", "case": "one uncited",
     "answer": "The library is open Monday to Friday until 8 in the evening "
               "[mpl-hours-weekday:c0]. It is a lovely place.",
     "shown": ["mpl-hours-weekday:c0"]},
    {"id": "c3", "question_id": "q12", "case": "wrong number",
     "answer": "Adult cards pay 20 cents per day for each overdue book [mpl-overdue-fees:c0].",
     "shown": ["mpl-overdue-fees:c0"]},
    {"id": "c4", "question_id": "q21", "case": "negation",
     "answer": "A password is needed for the network MPL-Public [mpl-wifi:c0].",
     "shown": ["mpl-wifi:c0"]},
]  # fmt: skip
_TOML = """[project]
name = "Millbrook in Markdown"

[documents]
folders = ["corpus"]

[questions]
queries = "queries.jsonl"
qrels = "qrels/test.tsv"
relevance = 2

[extras]
answers = "answers.jsonl"
"""


def _lines(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _markdown_project(root: Path, answers: str) -> Path:
    """The example's corpus as Markdown documents (one chunk each, ids `<doc>:c0`), its queries
    and judgments, and `answers` as its answers file."""
    (root / "corpus").mkdir(parents=True)
    (root / "qrels").mkdir()
    for line in (EXAMPLE / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        (root / "corpus" / f"{d['_id']}.md").write_text(
            f"---\nid: {d['_id']}\ntitle: {d['title']}\nversion: 1\nstatus: current\n"
            f"visibility: public\nlanguage: en\n---\n{d['text']}\n",
            encoding="utf-8",
        )
    shutil.copy(EXAMPLE / "queries.jsonl", root / "queries.jsonl")
    rows = (EXAMPLE / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    qrels = [rows[0]] + [
        "\t".join([q, f"{doc}:c0", g]) for q, doc, g in (r.split("\t") for r in rows[1:])
    ]
    (root / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (root / "answers.jsonl").write_text(answers, encoding="utf-8")
    (root / "evidencedesk.toml").write_text(_TOML, encoding="utf-8")
    return root


def _beir_project(root: Path, answers: str) -> Path:
    """The example project (a BEIR corpus: a chunk's id is its document's) with an answers file."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "answers.jsonl").write_text(answers, encoding="utf-8")
    with (root / "evidencedesk.toml").open("a", encoding="utf-8") as f:
        f.write('\n[extras]\nanswers = "answers.jsonl"\n')
    return root


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _validate_and_build(project: Path, tmp_path: Path) -> tuple[tuple[int, str], tuple[int, str]]:
    """`validate`'s and `build`'s exit status and last line of stderr, on the same project."""
    v, _, v_err = _run("validate", "--project", str(project))
    b, _, b_err = _run("build", "--project", str(project), "--out", str(tmp_path / "site"), "-q")
    last = lambda text: (text.strip().splitlines() or [""])[-1]  # noqa: E731
    return (v, last(v_err)), (b, last(b_err))


def test_validate_refuses_an_answers_line_with_an_unknown_field_as_the_build_does(
    tmp_path: Path,
) -> None:
    bad = _lines(_MARKDOWN_ANSWERS) + '{"id": "zz", "bogus": 1}\n'
    project = _markdown_project(tmp_path / "p", bad)
    error = (
        f"error: {project / 'answers.jsonl'}:5: unknown field 'bogus'; "
        "expected: id, question_id, case, answer, shown, note, expect"
    )
    assert _validate_and_build(project, tmp_path) == ((2, error), (2, error))


def test_validate_refuses_a_shown_id_the_catalog_lacks_as_the_build_does(tmp_path: Path) -> None:
    # the reviewer's case: a document id shown where the Markdown catalog's ids are `<doc>:c0`
    row = {**_MARKDOWN_ANSWERS[0], "shown": ["mpl-hours-weekday"]}
    project = _markdown_project(tmp_path / "p", _lines([row]))
    error = (
        f"error: {project / 'answers.jsonl'}:1: unknown shown chunk id 'mpl-hours-weekday'; "
        "expected an id from the catalog"
    )
    assert _validate_and_build(project, tmp_path) == ((2, error), (2, error))


def test_validate_refuses_a_tenants_file_naming_an_unknown_document(tmp_path: Path) -> None:
    project = _markdown_project(tmp_path / "p", _lines(_MARKDOWN_ANSWERS))
    (project / "tenants").mkdir()
    (project / "tenants" / "oak-wifi.md").write_text(
        "---\nid: oak-wifi\ntitle: Oakfield wireless\nversion: 1\nstatus: current\n"
        "visibility: public\nlanguage: en\n---\nFree wireless internet at Oakfield.\n",
        encoding="utf-8",
    )
    (project / "tenants.json").write_text(
        json.dumps({"tenants": {"millbrook": ["mpl-wifi"], "oakfield": ["oak-nowhere"]}}),
        encoding="utf-8",
    )
    with (project / "evidencedesk.toml").open("a", encoding="utf-8") as f:
        f.write('tenants = "tenants.json"\ntenant_documents = "tenants"\n')
    error = (
        f"error: {project / 'tenants.json'}: unknown document 'oak-nowhere' under "
        "tenants.oakfield; expected an id of a loaded document"
    )
    assert _validate_and_build(project, tmp_path) == ((2, error), (2, error))


_BEIR_ANSWER = {
    "id": "c1", "question_id": "q01", "case": "all good",
    "answer": "The library is open Monday to Friday until 8 in the evening [mpl-hours-weekday].",
    "shown": ["mpl-hours-weekday"],
}  # fmt: skip


def test_a_beir_projects_answers_cite_its_document_ids(tmp_path: Path) -> None:
    project = _beir_project(tmp_path / "p", _lines([_BEIR_ANSWER]))
    catalog = load_project(project).load_catalog()
    assert catalog is not None
    (answer,) = load_answers(project / "answers.jsonl", known_chunks=catalog.by_id)
    scores = score_answer(answer, catalog.by_id)
    assert (scores.sentences, scores.cited, scores.citations, scores.resolved) == (1, 1, 1, 1)
    assert dict(scores) == {"coverage": 1.0, "resolve": 1.0, "support": 1.0}
    status, out, _ = _run("validate", "--project", str(project))
    assert (status, out.splitlines()[-1]) == (0, "ok: the project loads; nothing was built")
    status, _, err = _run("build", "--project", str(project), "--out", str(tmp_path / "s"), "-q")
    assert status == 0, err
    page = visible((tmp_path / "s" / "citations.html").read_text(encoding="utf-8"))
    assert "1 answer with inline chunk citations, each with the case it tests." in page
    assert "c1 all good 1.00 1.00 1.00" in page


def test_a_beir_projects_answers_refuse_a_citation_of_no_catalog_id(tmp_path: Path) -> None:
    row = {**_BEIR_ANSWER, "answer": "Open until 8 [mpl-nowhere]."}
    project = _beir_project(tmp_path / "p", _lines([row]))
    catalog = load_project(project).load_catalog()
    assert catalog is not None
    with pytest.raises(AnswersError) as err:
        load_answers(project / "answers.jsonl", known_chunks=catalog.by_id)
    assert str(err.value) == (
        f"{project / 'answers.jsonl'}:1: expected citations like '[mpl-hours-weekday]' "
        "(chunk ids from the catalog), found '[mpl-nowhere]'"
    )
    # the `<doc>:c<n>` shape alone is no catalog id either
    row = {**_BEIR_ANSWER, "shown": ["mpl-hours-weekday:c0"]}
    (project / "answers.jsonl").write_text(_lines([row]), encoding="utf-8")
    status, _, err_text = _run("validate", "--project", str(project))
    assert (status, err_text.strip().splitlines()[-1]) == (
        2,
        f"error: {project / 'answers.jsonl'}:1: unknown shown chunk id 'mpl-hours-weekday:c0'; "
        "expected an id from the catalog",
    )


def test_the_citations_page_counts_the_files_answers(tmp_path: Path) -> None:
    project = _markdown_project(tmp_path / "p", _lines(_MARKDOWN_ANSWERS))
    status, _, err = _run("build", "--project", str(project), "--out", str(tmp_path / "s"), "-q")
    assert status == 0, err
    page = visible((tmp_path / "s" / "citations.html").read_text(encoding="utf-8"))
    assert "4 answers with inline chunk citations, each with the case it tests." in page
    assert "Six answers" not in page and "one situation each" not in page
    # the audit holds the count to results.json's answers
    assert _run("audit", str(tmp_path / "s"))[0] == 0
    cited = tmp_path / "s" / "citations.html"
    cited.write_text(cited.read_text(encoding="utf-8").replace(">4 answers", ">6 answers"), "utf-8")
    status, out, _ = _run("audit", str(tmp_path / "s"))
    assert status == 1
    assert "citations.html: '6 answers': results.json says 4 answers (citations)" in out


def test_the_evidence_page_shows_only_the_checks_that_ran(example_site) -> None:  # type: ignore[no-untyped-def]
    site = example_site("pipeline")  # no [extras]: no dups, updates or tenants
    page = visible((site / "evidence.html").read_text(encoding="utf-8"), unescape=True)
    index = visible((site / "index.html").read_text(encoding="utf-8"), unescape=True)
    assert (
        "What happens to retrieved text before and after it reaches the prompt: duplicates and "
        "compression (only the checks this project's inputs let run)." in page
    )
    # dedupe ran over the catalog alone: the page shows it and the overview does not skip it
    assert ("Duplicates: the top 20 (sparse) of every question with a relevant judgment, over the "
            "catalog.") in page  # fmt: skip
    assert "42 chunks kept; 0 merged into 0 kept chunks" in page
    assert "dedupe" not in index
    # no freshness, deletion or tenant section: the overview names the skipped ones
    raw = (site / "evidence.html").read_text(encoding="utf-8")
    for section in ("freshness", "deletion", "tenants"):
        assert f'<section id="{section}">' not in raw
    assert "Tenant boundaries" not in page and "Every question is asked" not in page
    assert '<section id="dedupe">' in raw and '<section id="compression">' in raw
    assert (
        "Skipped stages: citations : no [extras].answers file in the project: no citations page "
        "tenants : no [extras].tenants file in the project: evidence.html has no tenant "
        "boundaries section freshness : no [extras].updates folder in the project: "
        "evidence.html has no freshness section" in index
    )
    assert "Deletion: no superseded document with a labelled question to delete." in page
    # the compression row names the questions cut off and counts those with nothing to keep
    assert (
        "spans of the baseline's final chunks 4142 2344 15 / 30 q02 , q05 , q13 , q17 , q18 , "
        "q19 , q20 cut off; 8 had no relevant chunk among these chunks spans of every labelled "
        "chunk 2692 1478 19 / 30 q02 , q05 , q08 , q11 , q12 , q13 , q17 , q18 , q19 , q20 , q29 "
        "cut off" in page
    )


def test_the_audit_holds_the_questions_not_kept(example_site, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    shutil.copytree(example_site("pipeline"), site)
    assert _run("audit", str(site))[0] == 0
    page = site / "evidence.html"
    text = page.read_text(encoding="utf-8")
    assert text.count("cut off; 8 had no relevant chunk") == 1
    page.write_text(text.replace("cut off; 8 had", "cut off; 7 had"), encoding="utf-8")
    status, out, _ = _run("audit", str(site))
    assert status == 1
    assert (
        "evidence.html: \"spans of the baseline's final chunks: 4142 → 2344 tokens, kept 15 / 30; "
        "not kept: q02, q05, q13, q17, q18, q19, q20 cut off; 7 had no relevant chunk among these "
        'chunks": results.json says "spans of the baseline\'s final chunks: 4142 → 2344 tokens, '
        "kept 15 / 30; not kept: q02, q05, q13, q17, q18, q19, q20 cut off; 8 had no relevant "
        'chunk among these chunks" (evidence.compression[0])' in out
    )
