"""Document ids checked like query ids: a run's top documents against the corpus (when the
project has one) and, without one, its judged share against the other runs'; ids the corpus
does not hold never reach to-label.tsv. Small hand-made projects built through the command."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.files.trec import read_run
from tests.synthetic_runs import write_project
from tests.test_trust_inputs import build, tree

# four questions, each judging two of the corpus documents "1" .. "12"
QRELS = {f"q{n}": {str(2 * n - 1): 1, str(2 * n): 0} for n in range(1, 5)}
BASE = {f"q{n}": [str(2 * n - 1), str(2 * n), "9"] for n in range(1, 5)}


def with_corpus(project: Path, ids: list[str]) -> Path:
    """`project` with a BEIR corpus of `ids`, shown on question pages, not indexed."""
    root = project.parent
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": f"doc {i}", "text": "words"}) + "\n" for i in ids)
    )
    text = project.read_text().replace(
        "[questions]", '[documents]\ncorpus = "corpus.jsonl"\nindex = false\n\n[questions]'
    )
    project.write_text(text)
    return project


CORPUS = [str(n) for n in range(1, 13)]


def refused(project: Path, previous: Path, before: dict[str, str], line: str) -> None:
    """The build refuses `project` with `line` (relative to its folder), exit 2, the previous
    site as it was; `validate` refuses it with the same line."""
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / line}\n")
    assert tree(previous) == before
    stderr = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=stderr) == 2  # fmt: skip
    assert stderr.getvalue() == f"error: {project.parent / line}\n"


def test_a_half_zero_padded_run_is_refused_against_the_corpus(tmp_path: Path) -> None:
    previous = tmp_path / "site"
    good = with_corpus(write_project(tmp_path / "good", QRELS, {"base": BASE, "cand": BASE},
                                     relevance=1), CORPUS)  # fmt: skip
    assert build(good, previous)[0] == 0
    before = tree(previous)
    padded = {q: [d.zfill(6) if n % 2 else d for d in ids]
              for n, (q, ids) in enumerate(BASE.items())}  # q2 and q4 padded  # fmt: skip
    project = with_corpus(write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": padded},
                                        relevance=1), CORPUS)  # fmt: skip
    line = ("runs/cand.run: expected document ids of the corpus, found 6 of the 12 documents in "
            "the run's top 10 not in it (50 %, above the 10 % [runs].min_coverage allows) (run: "
            "'000003', '000004', '000007'; corpus: '3', '4', '7'); removing leading zeros from "
            "the run's document ids would match 5 of 5")  # fmt: skip
    refused(project, previous, before, line)


@pytest.mark.parametrize(
    ("qrels", "runs", "corpus", "said"),
    [
        # "13": not in the corpus, 1 of 12 (8 %)
        (QRELS, {"base": BASE, "cand": {**BASE, "q4": ["7", "8", "13"]}}, CORPUS, [
            "run base: answers 4 of 4 judged queries (100 %); 8 of the 12 documents of its top "
            "10 are judged for some query (67 %), 12 of them are in the corpus (100 %)",
            "run cand: answers 4 of 4 judged queries (100 %); 8 of the 12 documents of its top "
            "10 are judged for some query (67 %), 11 of them are in the corpus (92 %)",
        ]),
        # one of each: the singular
        ({"q1": {"1": 1, "2": 0}}, {"base": {"q1": ["1"]}, "cand": {"q1": ["2", "7"]}},
         ["1", "2", "7"], [
            "run base: answers 1 of 1 judged query (100 %); 1 of the 1 document of its top 10 "
            "is judged for some query (100 %), 1 of them is in the corpus (100 %)",
            "run cand: answers 1 of 1 judged query (100 %); 1 of the 2 documents of its top 10 "
            "is judged for some query (50 %), 2 of them are in the corpus (100 %)",
        ]),
    ],
)  # fmt: skip
def test_validate_prints_each_runs_share_in_the_corpus(
    tmp_path: Path,
    qrels: dict[str, dict[str, int]],
    runs: dict[str, dict[str, list[str]]],
    corpus: list[str],
    said: list[str],
) -> None:
    project = with_corpus(write_project(tmp_path / "p", qrels, runs, relevance=1), corpus)
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out, stderr=io.StringIO()) == 0
    assert [line for line in out.getvalue().splitlines() if line.startswith("run ")] == said


@pytest.mark.parametrize(
    ("extra", "said"),
    [({"q9": ["1"]}, "; 1 of its 5 queries is not a judged question: left out, as trec_eval "
                     "leaves it out"),
     ({"q8": ["1"], "q9": ["2", "3"]}, "; 2 of its 6 queries are not judged questions: left "
                                       "out, as trec_eval leaves them out"),
     ({}, "")],
)  # fmt: skip
def test_validate_counts_the_queries_of_a_run_that_are_not_questions(
    tmp_path: Path, extra: dict[str, list[str]], said: str
) -> None:
    # queries the judgments do not hold are left out of every number (as trec_eval leaves them
    # out); validate says how many, not nothing
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": {**BASE, **extra}},
                            relevance=1)  # fmt: skip
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out, stderr=io.StringIO()) == 0
    cand = next(line for line in out.getvalue().splitlines() if line.startswith("run cand:"))
    assert cand == ("run cand: answers 4 of 4 judged queries (100 %); 8 of the 12 documents of "
                    f"its top 10 are judged for some query (67 %){said}")  # fmt: skip


@pytest.mark.parametrize(
    ("evaluate_unlisted", "said"),
    [(False, "answers 3 of 3 judged queries (100 %); 6 of the 9 documents of its top 10 are "
             "judged for some query (67 %); 2 of its 5 queries are not questions evaluated: left "
             "out (trec_eval leaves out those without judgments, not the judged ones "
             "queries.jsonl does not list: the warning below)"),
     (True, "answers 4 of 4 judged queries (100 %); 8 of the 12 documents of its top 10 are "
            "judged for some query (67 %); 1 of its 5 queries is not a judged question: left "
            "out, as trec_eval leaves it out")],
)  # fmt: skip
def test_validate_does_not_say_trec_eval_leaves_out_the_judged_queries_a_file_does_not_list(
    tmp_path: Path, evaluate_unlisted: bool, said: str
) -> None:
    # q4 is judged but not in queries.jsonl, q9 has no judgment: trec_eval would evaluate q4
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": {**BASE, "q9": ["1"]}},
                            relevance=1, questions=("q1", "q2", "q3"))  # fmt: skip
    if evaluate_unlisted:
        text = project.read_text("utf-8").replace(
            "relevance = 1", "relevance = 1\nevaluate_unlisted = true"
        )
        project.write_text(text, "utf-8")
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out, stderr=io.StringIO()) == 0
    lines = out.getvalue().splitlines()
    assert next(line for line in lines if line.startswith("run cand:")) == f"run cand: {said}"


def test_to_label_never_lists_an_id_the_corpus_does_not_hold(tmp_path: Path) -> None:
    one_off = {**BASE, "q4": ["7", "8", "13"]}
    project = with_corpus(write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": one_off},
                                        relevance=1), CORPUS)  # fmt: skip
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (0, "")
    rows = (tmp_path / "site" / "data" / "to-label.tsv").read_text("utf-8").splitlines()[1:]
    assert [tuple(r.split("\t")[:3]) for r in rows] == [  # "13" is left out: not in the corpus
        ("q4", "0", "9"), ("q1", "0", "9"), ("q2", "0", "9"), ("q3", "0", "9"),
    ]  # fmt: skip


def test_without_a_corpus_a_run_judged_far_less_with_rewritable_ids_gets_the_hint(
    tmp_path: Path,
) -> None:
    # the same lists, but the candidate wrote its ids in upper case for two questions
    qrels = {f"q{n}": {f"doc{2 * n - 1}": 1, f"doc{2 * n}": 0} for n in range(1, 5)}
    base = {q: list(docs) for q, docs in qrels.items()}
    cand = {q: [d.upper() if n < 3 else d for d in docs]
            for n, (q, docs) in enumerate(qrels.items())}  # fmt: skip
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (2, f"error: {project.parent / 'runs/cand.run'}: expected document "
                              "ids written like the judgments', found 25 % of the 8 documents in "
                              "the run's top 10 judged for some query, against 100 % for the other "
                              "runs (run: 'DOC1', 'DOC2', 'DOC3'; judgments: 'doc1', 'doc2', "
                              "'doc3'); reading the run's document ids without regard to case "
                              "would match 6 of 6\n")  # fmt: skip


def _refused_beside_two_runs(
    tmp_path: Path, qrels: dict[str, dict[str, int]], base: dict[str, list[str]],
    cand: dict[str, list[str]], line: str,
) -> Path:  # fmt: skip
    """A project of the runs base, other (the same as base) and cand, refused with `line` and
    the previous site kept; returns its project file."""
    project = write_project(tmp_path / "p", qrels, {"base": base, "other": base, "cand": cand},
                            relevance=1)  # fmt: skip
    previous = tmp_path / "site"
    good = write_project(tmp_path / "good", qrels, {"base": base, "cand": base}, relevance=1)
    assert build(good, previous)[0] == 0
    refused(project, previous, tree(previous), line)
    return project


def test_without_a_corpus_a_half_zero_padded_run_is_refused(tmp_path: Path) -> None:
    # every run finds two judged and two unjudged documents per question (50 % judged); the
    # candidate zero-pads every id of q2 and q4: 25 % judged, which is not under half of the
    # others' 50 %, but 4 of its 12 unjudged ids are judged ids once unpadded: about
    # (1 - 25 %) x 4 / 12 = 25 % of its top documents, above the 10 % min_coverage leaves
    qrels = {f"q{n}": {f"{n}1": 1, f"{n}2": 0} for n in range(1, 5)}
    base = {f"q{n}": [f"{n}1", f"{n}2", f"9{n}1", f"9{n}2"] for n in range(1, 5)}
    cand = {q: [d.zfill(6) if q in ("q2", "q4") else d for d in ids] for q, ids in base.items()}
    line = ("runs/cand.run: expected document ids written like the judgments', found 25 % of the "
            "16 documents in the run's top 10 judged for some query, against 50 % for the other "
            "runs, about 25 % of them judged ids written another way (above the 10 % "
            "[runs].min_coverage allows) (run: '000021', '000022', '000041'; judgments: '21', "
            "'22', '41'); removing leading zeros from the run's document ids would match 4 of 12")  # fmt: skip
    project = _refused_beside_two_runs(tmp_path, qrels, base, cand, line)
    # a lower [runs].min_coverage lets the same run through (its ids then count as unjudged)
    toml = project.read_text(encoding="utf-8").replace("[runs]", "[runs]\nmin_coverage = 0.7")
    project.write_text(toml, encoding="utf-8")
    code, _, err = build(project, tmp_path / "lowered")
    assert (code, err) == (0, "")


def test_without_a_corpus_a_run_with_a_separator_written_another_way_is_refused(
    tmp_path: Path,
) -> None:
    # as above, but the candidate writes the collection's "/" as "_" in every id of q2 and q4:
    # none of the affix, case or zero rewrites matches them; writing "_" as "/" matches 4 of its
    # 12 unjudged ids, about (1 - 25 %) x 4 / 12 = 25 % of its top documents
    qrels = {f"q{n}": {f"d/{n}1": 1, f"d/{n}2": 0} for n in range(1, 5)}
    base = {f"q{n}": [f"d/{n}1", f"d/{n}2", f"x/9{n}1", f"x/9{n}2"] for n in range(1, 5)}
    cand = {q: [d.replace("/", "_") if q in ("q2", "q4") else d for d in ids]
            for q, ids in base.items()}  # fmt: skip
    line = ("runs/cand.run: expected document ids written like the judgments', found 25 % of the "
            "16 documents in the run's top 10 judged for some query, against 50 % for the other "
            "runs, about 25 % of them judged ids written another way (above the 10 % "
            "[runs].min_coverage allows) (run: 'd_21', 'd_22', 'd_41'; judgments: 'd/21', "
            "'d/22', 'd/41'); writing '_' as '/' in the run's document ids would match 4 of 12")  # fmt: skip
    _refused_beside_two_runs(tmp_path, qrels, base, cand, line)


@pytest.mark.parametrize(
    ("run", "judged", "rewrite"),
    [(["doc_1", "doc_2"], {"doc/1", "doc/2", "doc/3"},
      ("writing '_' as '/' in the run's document ids", 2, 2)),
     (["doc-1", "doc-2"], {"doc1", "doc2"}, ("removing '-' from the run's document ids", 2, 2)),
     # "é" as e + a combining accent (NFD) where the judgments compose it (NFC)
     (["cafe\u0301-1", "cafe\u0301-2"], {"caf\u00e9-1", "caf\u00e9-2"},
      ("normalizing the run's document ids to Unicode NFC", 2, 2)),
     # a run finding documents the judgments never saw: its own separator matches nothing
     (["web-17", "web-92"], {"doc1", "doc2"}, None)],
)  # fmt: skip
def test_a_separator_or_a_unicode_form_written_another_way_is_a_rewrite(
    run: list[str], judged: set[str], rewrite: tuple[str, int, int] | None
) -> None:
    from evidencedesk.retrieval._coverage import id_rewrite

    found = id_rewrite(run, judged, "document")
    assert (found and (found.words, found.hits, found.tried)) == rewrite


def test_without_a_corpus_a_run_finding_unjudged_documents_is_kept(tmp_path: Path) -> None:
    qrels = {f"q{n}": {f"doc{2 * n - 1}": 1, f"doc{2 * n}": 0} for n in range(1, 5)}
    base = {q: list(docs) for q, docs in qrels.items()}
    cand = {q: ["web-17", "web-92", *docs] for q, docs in qrels.items()}  # new, unjudged finds
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1)
    code, _, err = build(project, tmp_path / "site")
    # kept, with the one warning its longer lists call for (the default metrics read past 2)
    assert (code, err) == (
        0,
        (
            "warning: Depth: cand returns up to 4 results a question, the baseline base up to 2; "
            "nDCG@10 (linear gain), R@10, P@10 and MRR read past 2, so part of the difference is how "
            "far each list goes; [runs] max_depth = 2 compares every run at one depth.\n"
        ),
    )


# -- line ends and ids that would not round-trip through the TREC exports -----------------------


def test_a_cr_only_run_is_read_line_by_line(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    run = project.parent / "runs" / "cand.run"
    run.write_bytes(run.read_bytes().replace(b"\n", b"\r"))  # saved with old Mac line ends
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (0, "")
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    base, cand = ({s["metric"]: s["mean"] for s in v["metrics"]} for v in results["variants"])
    assert cand == base and cand["mrr"] == 1.0  # all twelve lines read, not the first one
    assert [r["size"] for r in results["variants"][1]["lists"]] == [3, 3, 3, 3]


@pytest.mark.parametrize("ending", [b"\r", b"\r\n"])
def test_every_qrels_and_queries_reader_reads_cr_line_ends(tmp_path: Path, ending: bytes) -> None:
    from evidencedesk.files.trec import read_qrels
    from evidencedesk.retrieval.beir import read_beir_qrels, read_queries

    trec = tmp_path / "qrels.txt"
    trec.write_bytes(b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n".replace(b"\n", ending))
    beir = tmp_path / "qrels.tsv"
    beir.write_bytes(b"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td3\t2\n"
                     .replace(b"\n", ending))  # fmt: skip
    expected = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    assert read_qrels(trec) == read_beir_qrels(beir) == expected
    queries = tmp_path / "queries.jsonl"
    queries.write_bytes(b'{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n'
                        .replace(b"\n", ending))  # fmt: skip
    assert [q.id for q in read_queries(queries)] == ["q1", "q2"]


def test_an_error_in_a_cr_only_qrels_file_names_its_line(tmp_path: Path) -> None:
    from evidencedesk.errors import LabelsError
    from evidencedesk.retrieval.beir import read_beir_qrels

    path = tmp_path / "qrels.tsv"
    path.write_bytes(b"q1\td1\t1\rq1\td2\r")
    with pytest.raises(LabelsError) as caught:
        read_beir_qrels(path)
    assert str(caught.value) == (
        f"{path}:2: expected 'query-id<TAB>corpus-id<TAB>score', found 'q1\\td2'"
    )


HASH_ID = "expected a query id not starting with '#' (a comment in a TREC file), found '#q1'"


def formula(kind: str, found: str) -> str:
    return (f"expected a {kind} id not starting with '=', '+', '-' or '@' (a spreadsheet would "
            f"run it as a formula), found {found!r}")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("queries.jsonl", '{"_id": "#q1", "text": "a"}\n', f"queries.jsonl:1: '_id': {HASH_ID}"),
        ("queries.tsv", "#q1\ta question\n", f"queries.tsv:1: {HASH_ID}"),
        ("qrels.tsv", "#q1\td1\t1\n", f"qrels.tsv:1: {HASH_ID}"),
        ("qrels.txt", "q1 0 d\u00a01 1\n", "qrels.txt:1: expected a document id without white "
         "space or control characters, found 'd\\xa01'"),
        ("qrels.txt", "q1 0 d\x1b1 1\n", "qrels.txt:1: expected a document id without white "
         "space or control characters, found 'd\\x1b1'"),
        ("corpus.jsonl", '{"_id": "d\\u001b1", "text": "x"}\n', "corpus.jsonl:1: '_id': "
         "expected a document id without white space or control characters, found 'd\\x1b1'"),
        ("labels.jsonl", '{"id": "q1", "question": "a", "grades": {"d\\t1": 2}}\n',
         "labels.jsonl:1: expected a document id without white space or control characters, "
         "found 'd\\t1'"),
        ("labels.jsonl", '{"id": "#q1", "question": "a", "grades": {"d1": 2}}\n',
         f"labels.jsonl:1: {HASH_ID}"),
        ("run.txt", "q1 Q0 d1 1 2.0 t\nq1 Q0 d\u00a02 2 1.0 t\n", "run.txt:2: expected a "
         "document id without white space or control characters, found 'd\\xa02'"),
        ("run.txt", "q1 Q0 d\x011 1 2.0 t\n", "run.txt:1: expected a document id without white "
         "space or control characters, found 'd\\x011'"),
        # ids a spreadsheet would run as a formula (the exports write id columns as they are)
        ("run.txt", "q1 Q0 d1 1 2.0 t\nq1 Q0 =1+1 2 1.0 t\n", f"run.txt:2: {formula('document', '=1+1')}"),
        ("run.txt", "@SUM(1) Q0 d1 1 2.0 t\n", f"run.txt:1: {formula('query', '@SUM(1)')}"),
        ("qrels.txt", "q1 0 d1 1\nq1 0 -2+3 1\n", f"qrels.txt:2: {formula('document', '-2+3')}"),
        ("qrels.tsv", "+q1\td1\t1\n", f"qrels.tsv:1: {formula('query', '+q1')}"),
        ("queries.jsonl", '{"_id": "=q1", "text": "a"}\n',
         f"queries.jsonl:1: '_id': {formula('query', '=q1')}"),
        ("corpus.jsonl", '{"_id": "@d1", "text": "x"}\n',
         f"corpus.jsonl:1: '_id': {formula('document', '@d1')}"),
        ("labels.jsonl", '{"id": "q1", "question": "a", "grades": {"=d1": 2}}\n',
         f"labels.jsonl:1: {formula('document', '=d1')}"),
    ],
)  # fmt: skip
def test_an_id_the_trec_exports_would_not_read_back_is_refused_where_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: str, message: str
) -> None:
    from evidencedesk.errors import InputError
    from evidencedesk.files.trec import read_qrels, read_run
    from evidencedesk.retrieval.beir import read_beir_corpus, read_beir_qrels, read_queries
    from evidencedesk.retrieval.labels import load_labels

    readers = {"queries": read_queries, "qrels.tsv": read_beir_qrels, "qrels.txt": read_qrels,
               "corpus": read_beir_corpus, "labels": load_labels, "run": read_run}  # fmt: skip
    reader = next(r for key, r in readers.items() if name.startswith(key) or name == key)
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(data, "utf-8")
    with pytest.raises(InputError) as caught:
        reader(name)
    assert str(caught.value) == message


def test_a_hash_query_id_is_refused_by_the_build_and_the_previous_site_kept(
    tmp_path: Path,
) -> None:
    previous = tmp_path / "site"
    good = write_project(tmp_path / "good", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    assert build(good, previous)[0] == 0
    before = tree(previous)
    qrels = {"#q1" if q == "q1" else q: docs for q, docs in QRELS.items()}
    project = write_project(tmp_path / "p", qrels, {"base": BASE, "cand": BASE}, relevance=1)
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / 'queries.jsonl'}:1: '_id': {HASH_ID}\n")
    assert tree(previous) == before


def test_judged_documents_the_corpus_lacks_are_a_warning_with_the_nearest_ids(
    tmp_path: Path,
) -> None:
    corpus = [d for d in CORPUS if d != "8"]  # "8" is judged (grade 0) for q4
    project = with_corpus(write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE},
                                        relevance=1), corpus)  # fmt: skip
    code, _, err = build(project, tmp_path / "site")
    line = ("qrels.txt: 1 of the 8 judged documents is not in the corpus (8 (nearest: 7)): its "
            "judgments count in every metric, no page can show it")  # fmt: skip
    assert (code, err.splitlines()) == (0, [f"warning: {line}"])
    assert "q4 0 8 0\n" in (tmp_path / "site" / "data" / "qrels.txt").read_text("utf-8")
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out, stderr=io.StringIO()) == 0
    assert f"warning: {line}" in out.getvalue().splitlines()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("[runs]", '[runs]\nignore = "NOTES.txt"'), "evidencedesk.toml:10: [runs].ignore: "
         "expected a list of file names or patterns in the runs folder, e.g. [\"NOTES.txt\"], "
         "found a string 'NOTES.txt'"),
        (('dir = "runs"\n', 'files = ["runs/base.run"]\nignore = ["x"]\n'), "evidencedesk.toml:11: "
         "[runs].ignore: expected 'ignore' only with a runs folder ('dir')"),
        (('relevance = 1', 'relevance = 1\nevaluate_unlisted = "yes"'), "evidencedesk.toml:8: "
         "[questions].evaluate_unlisted: expected true or false: also evaluate judged queries the "
         "queries file does not list, found a string 'yes'"),
        (('queries = "queries.jsonl"\n', 'evaluate_unlisted = true\n'), "evidencedesk.toml:5: "
         "[questions].evaluate_unlisted: expected 'evaluate_unlisted' only with a 'queries' file "
         "(without one, the judged queries are the questions)"),
    ],
)  # fmt: skip
def test_the_new_keys_are_checked_with_one_line(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    project.write_text(project.read_text().replace(*change))
    stderr = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=stderr) == 2  # fmt: skip
    assert stderr.getvalue() == f"error: {project.parent / message}\n"


@pytest.mark.parametrize(
    ("inner", "refused"),
    [
        (" ", True), ("\t", True), ("\x85", True), ("\u00a0", True), ("\u2007", True),
        ("\u2028", True), ("\u3000", True), ("\x1b", True), ("\x7f", True),
        ("é", False), ("\u200b", False), ("ع", False), ("-", False), ("\u00ad", False),
    ],
)  # fmt: skip
def test_an_id_is_refused_for_every_white_space_and_control_character_alone(
    inner: str, refused: bool
) -> None:
    # printable ids skip the character scan: the characters a printable test lets through
    # (the ASCII space) and those it stops that are still allowed (format characters) are here
    from evidencedesk.files._text import has_space
    from evidencedesk.files._trec_keys import id_problem

    value = f"d{inner}1"
    expected = (f"expected a document id without white space or control characters, found "
                f"{value!r}")  # fmt: skip
    assert id_problem(value, "document") == (expected if refused else None)
    assert has_space(value) is (refused and inner not in ("\x1b", "\x7f"))


def test_an_ms_marco_run_is_refused_with_the_rewrite_that_reads(tmp_path: Path) -> None:
    """``qid<TAB>docid<TAB>rank`` lines (MS MARCO's run format) are not a TREC run: the error
    prints the awk that rewrites one, and the rewritten run reads, ranked as its ranks say."""
    if shutil.which("awk") is None or shutil.which("bash") is None:
        pytest.skip("needs awk and bash")
    project = write_project(tmp_path / "p", QRELS, {"base": BASE}, relevance=1)
    runs = project.parent / "runs"
    (runs / "msmarco run.tsv").write_text(
        "".join(f"q{n}\t{2 * n}\t1\nq{n}\t{2 * n - 1}\t2\n" for n in range(1, 5)), "utf-8"
    )
    err = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=err) == 2  # fmt: skip
    source, target = runs / "msmarco run.tsv", runs / "msmarco run.run"
    rewrite = f"""awk '{{print $1, "Q0", $2, $3, -$3, "msmarco_run"}}' '{source}' > '{target}'"""
    assert err.getvalue() == (
        f"error: {source}:1: expected 6 columns, found 3: qid, docid and rank, as MS MARCO "
        f"writes a run? As a TREC run (score: minus the rank): {rewrite}, and msmarco run.tsv "
        "moved out of the runs\n"
    )
    subprocess.run(["bash", "-c", rewrite], check=True)
    source.rename(tmp_path / source.name)
    run = read_run(target)
    assert run.qids == ("q1", "q2", "q3", "q4")
    assert run.ranked("q1") == [("2", -1.0), ("1", -2.0)]  # rank 1 first
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=io.StringIO()) == 0  # fmt: skip
