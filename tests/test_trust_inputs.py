"""Distrust inputs loudly: runs whose ids do not meet the judgments are refused with the likely
fix, partial coverage and unjudged documents are said wherever they change a number, and what
trec_eval accepts is accepted. Each case is a small file worked by hand, built through the real
command: the exact message, the exit status, and the previous site kept."""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import re
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report._audit import audit
from tests.planting import planted
from tests.synthetic_runs import write_project

QRELS = {"19335": {"d1": 2, "d2": 0}, "19336": {"d3": 1, "d4": 0}, "19337": {"d5": 2}}
BASE = {"19335": ["d1", "d2"], "19336": ["d4", "d3"], "19337": ["d5"]}


def build(project: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(["build", "--project", str(project), "--out", str(out), *extra],
                    stdout=stdout, stderr=stderr)  # fmt: skip
    return code, stdout.getvalue(), stderr.getvalue()


def tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    """A site built from a good project: the bad builds must leave it as it was."""
    out = tmp_path / "site"
    good = write_project(tmp_path / "good", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    assert build(good, out)[0] == 0
    return out


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        (  # the most common mistake with TREC files: a prefix on every query id
            {f"q{q}": ids for q, ids in BASE.items()},
            "runs/cand.run: expected query ids that the judgments use, found none in common: the "
            "run answers 3 queries, the judgments grade 3 (run: 'q19335', 'q19336', 'q19337'; "
            "judgments: '19335', '19336', '19337'); removing the prefix 'q' from the run's query "
            "ids would match 3 of 3",
        ),
        (  # document ids that are never judged: an entity run against bracketed qrels ids
            {q: [f"<ent:{d}>" for d in ids] for q, ids in BASE.items()},
            "runs/cand.run: expected document ids that the judgments grade, found none of the 5 "
            "documents in the run's top 10 graded for any query (run: '<ent:d1>', '<ent:d2>', "
            "'<ent:d3>'; judgments: 'd1', 'd2', 'd3'); removing '<ent:' before and '>' after the "
            "run's document ids would match 5 of 5",
        ),
        (  # one query, of none the judgments grade: a query, not "1 queries"
            {"q7": BASE["19335"]},
            "runs/cand.run: expected query ids that the judgments use, found none in common: the "
            "run answers 1 query, the judgments grade 3 (run: 'q7'; judgments: '19335', '19336', "
            "'19337')",
        ),
        (  # a ".0" the run's writer added
            {f"{q}.0": ids for q, ids in BASE.items()},
            "runs/cand.run: expected query ids that the judgments use, found none in common: the "
            "run answers 3 queries, the judgments grade 3 (run: '19335.0', '19336.0', '19337.0'; "
            "judgments: '19335', '19336', '19337'); removing the suffix '.0' from the run's "
            "query ids would match 3 of 3",
        ),
    ],
)
def test_a_run_whose_ids_miss_the_judgments_is_refused_with_the_likely_fix(
    tmp_path: Path, previous: Path, lists: dict[str, list[str]], message: str
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": lists}, relevance=1)
    before = tree(previous)
    code, _, err = build(project, previous)
    assert (code, err.splitlines()) == (2, [f"error: {project.parent / message}"])
    assert tree(previous) == before  # the previous site is kept


def test_validate_refuses_what_the_build_refuses(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from evidencedesk.cli import main

    bad = {f"q{q}": ids for q, ids in BASE.items()}
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": bad}, relevance=1)
    assert main(["validate", "--project", str(project)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {project.parent / 'runs/cand.run'}: expected query ids that ")


def test_a_run_covering_60_percent_is_refused_with_the_key_that_accepts_it(
    tmp_path: Path, previous: Path
) -> None:
    qrels = {f"q{n}": {f"d{n}": 1} for n in range(5)}
    base = {q: [f"d{n}"] for n, q in enumerate(qrels)}
    part = {q: ids for q, ids in list(base.items())[:3]}  # 3 of the 5 judged queries
    project = write_project(tmp_path / "p", qrels, {"base": base, "part": part}, relevance=1)
    before = tree(previous)
    code, _, err = build(project, previous)
    line = ("runs/part.run: expected the run to answer at least 90 % of the judged queries "
            "([runs].min_coverage), found 3 of 5 (60 %; unanswered: 'q3', 'q4'); if the others "
            "are meant to count as empty lists, set [runs].min_coverage = 0.60 in the project "
            "file")  # fmt: skip
    assert (code, err.splitlines()) == (2, [f"error: {project.parent / line}"])
    assert tree(previous) == before
    stderr = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=stderr) == 2  # fmt: skip
    assert stderr.getvalue() == f"error: {project.parent / line}\n"


def test_a_partial_run_whose_other_ids_are_written_another_way_gets_the_rewrite(
    tmp_path: Path,
) -> None:
    qrels = {f"q{n}": {f"d{n}": 1} for n in range(5)}
    base = {q: [f"d{n}"] for n, q in enumerate(qrels)}
    part = {("Q" + q[1:] if n > 2 else q): ids for n, (q, ids) in enumerate(base.items())}
    project = write_project(tmp_path / "p", qrels, {"base": base, "part": part}, relevance=1)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (2, f"error: {project.parent / 'runs/part.run'}: expected the run to "
                              "answer at least 90 % of the judged queries ([runs].min_coverage), "
                              "found 3 of 5 (60 %; unanswered: 'q3', 'q4'); reading the run's "
                              "query ids without regard to case would match 2 of 2\n")  # fmt: skip


def test_min_coverage_sets_the_threshold(tmp_path: Path) -> None:
    qrels = {f"q{n}": {f"d{n}": 1} for n in range(5)}
    base = {q: [f"d{n}"] for n, q in enumerate(qrels)}
    part = {q: ids for q, ids in list(base.items())[:3]}
    project = write_project(tmp_path / "p", qrels, {"base": base, "part": part}, relevance=1)
    text = project.read_text().replace('baseline = "base"', 'baseline = "base"\nmin_coverage = 0.5')
    project.write_text(text)
    assert build(project, tmp_path / "site")[2] == (
        "warning: Partial coverage: the run part answers 3 of the 5 judged queries (60 %); the "
        "others count as empty lists.\n"
    )  # let through, and said so


def test_negative_grades_are_judged_not_relevant_and_shown_as_their_value(tmp_path: Path) -> None:
    qrels = {"q1": {"spam": -2, "good": 1}, "q2": {"ok": 1}}
    base = {"q1": ["spam", "good"], "q2": ["ok"]}
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": base}, relevance=1)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (0, "")
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    q1 = next(r for r in results["variants"][0]["lists"] if r["question"] == "q1")
    assert q1["values"]["mrr"] == 0.5  # the -2 page is judged, not relevant
    page = (tmp_path / "site" / "question-q1.html").read_text("utf-8")
    assert '<td><code>spam</code></td><td><span class="grade grade--2">-2</span>' in page


def test_a_runs_only_project_needs_no_queries_file(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    (project.parent / "queries.jsonl").unlink()
    project.write_text(project.read_text().replace('queries = "queries.jsonl"\n', ""))
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (0, "")
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    assert [(q["id"], q["question"]) for q in results["inputs"]["questions"]] == [
        ("19335", ""), ("19336", ""), ("19337", ""),  # from the qrels, without text
    ]  # fmt: skip


def test_judged_queries_outside_the_queries_file_are_left_out_and_counted(
    tmp_path: Path,
) -> None:
    qrels = {**QRELS, "19338": {"d9": 2}}  # judged, but not among the questions the team asked
    lists = {"19335": ["d1"], "19336": ["d3"], "19337": ["d9"]}  # 19337's d5 not found
    project = write_project(tmp_path / "p", qrels, {"base": BASE, "cand": lists}, relevance=1,
                            questions=("19335", "19336", "19337"))  # fmt: skip
    code, _, err = build(project, tmp_path / "site")
    assert (code, err.splitlines()) == (0, [
        "warning: 1 judged query is not in queries.jsonl (19338): left out ([questions] "
        "evaluate_unlisted = true evaluates it)",
        "warning: Depth: cand returns up to 1 result a question, the baseline base up to 2; "
        "nDCG@10 (linear gain), R@10, P@10 and MRR read past 1, so part of the difference is how "
        "far each list goes; [runs] max_depth = 1 compares every run at one depth.",
    ])  # fmt: skip
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    assert [q["id"] for q in results["inputs"]["questions"]] == ["19335", "19336", "19337"]
    cand = next(v for v in results["variants"] if v["name"] == "cand")
    mrr = next(s for s in cand["metrics"] if s["metric"] == "mrr")
    assert (mrr["mean"], mrr["n"]) == (pytest.approx(2 / 3), 3)  # 1, 1, 0 over the asked three
    qrels_out = (tmp_path / "site" / "data" / "qrels.txt").read_text("utf-8")
    assert "19338" not in qrels_out  # the export holds exactly the judgments used
    assert results["inputs"]["counts"]["judged"] == 3


def test_evaluate_unlisted_evaluates_judged_queries_outside_the_queries_file(
    tmp_path: Path,
) -> None:
    # 19399 is listed without a judgment: "of its 3 queries" counts the file's own, not 19337
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1,
                            questions=("19335", "19336", "19399"))  # fmt: skip
    text = project.read_text().replace("relevance = 1", "relevance = 1\nevaluate_unlisted = true")
    project.write_text(text)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err.splitlines()) == (0, [
        "warning: qrels.txt: 1 of the 3 judged queries is not in the queries file (19337): "
        "evaluated and shown by its id ([questions] evaluate_unlisted)",
        "warning: queries.jsonl: 1 of its 3 queries has no judgment (19399): left out, as "
        "trec_eval leaves it out",
    ])  # fmt: skip
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    assert [q["id"] for q in results["inputs"]["questions"]] == ["19335", "19336", "19337"]


def test_a_file_named_like_a_run_that_does_not_parse_is_an_error(
    tmp_path: Path, previous: Path
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    (project.parent / "runs" / "NOTES.txt").write_text("how we made these runs\n")
    before = tree(previous)
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / 'runs/NOTES.txt'}:1: expected 6 "
                              "columns, found 5\n")  # fmt: skip
    assert tree(previous) == before
    # listed in [runs] ignore, it is skipped on purpose, without a word
    text = project.read_text().replace('dir = "runs"', 'dir = "runs"\nignore = ["NOTES.*"]')
    project.write_text(text)
    assert build(project, tmp_path / "site")[::2] == (0, "")


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("broken.run", b"19335 Q0 d1 1 t\n", ":1: expected 6 columns, found 5"),
        ("empty.trec", b"", ": expected lines 'qid Q0 docid rank score tag', found an empty file"),
        ("header.tsv", b"qid Q0 docid rank score tag\n",
         ":1: expected a numeric score in column 5, found 'score'"),
        ("comments.txt", b"# written by bm25s\n\n",
         ": expected lines 'qid Q0 docid rank score tag', found only blank and comment lines"),
        ("bm25.run.gz", b"\x1f\x8b\x08\x00rest",
         ":1: expected an uncompressed TREC run, found gzip-compressed data (decompress it "
         "first, e.g. gzip -d)"),
    ],
)  # fmt: skip
def test_a_run_file_that_is_broken_empty_or_compressed_is_never_skipped(
    tmp_path: Path, previous: Path, name: str, data: bytes, message: str
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE}, relevance=1)
    (project.parent / "runs" / name).write_bytes(data)
    before = tree(previous)
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / 'runs' / name}{message}\n")
    assert tree(previous) == before
    stderr = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=stderr) == 2  # fmt: skip
    assert stderr.getvalue() == err


def test_a_file_without_a_runs_name_that_is_not_a_run_is_skipped_with_one_line(
    tmp_path: Path,
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    (project.parent / "runs" / "README").write_text("how we made these runs\n")
    code, _, err = build(project, tmp_path / "site")
    assert (code, err.splitlines()) == (0, [
        "warning: runs/README: skipped: not a TREC run (its first line is not 'qid Q0 docid "
        "rank score tag')"
    ])  # fmt: skip


# (run file, notice kind, the notice's words, each query's reciprocal rank) of a run whose
# file order does not count: every page says so, and the numbers are trec_eval's
ORDER_NOT_COUNTED = [
    (  # distances written best first (the smallest first): trec_eval ranks by score, highest
        # first, so both queries of two lines are read upside down
        "19335 Q0 d1 1 0.10 faiss\n19335 Q0 d2 2 0.80 faiss\n"
        "19336 Q0 d4 1 0.20 faiss\n19336 Q0 d3 2 0.30 faiss\n19337 Q0 d5 1 0.50 faiss\n",
        "score_order",
        "runs/cand.run: in 2 of its 3 queries a line scores higher than the query's line before "
        "it (19335, 19336): ranked by score, highest first, as trec_eval ranks them (neither "
        "the rank column nor the line order counts); if a lower score means a better match (a "
        "distance), negate the scores",
        ["0.5", "1.0", "1.0"],  # d2 (0.80) above the relevant d1; d3 (0.30) above d4
    ),
    (  # one score for every line: ranked by document id, descending (d2 > d1, d4 > d3)
        "19335 Q0 d1 1 0 bool\n19335 Q0 d2 2 0 bool\n"
        "19336 Q0 d3 1 0 bool\n19336 Q0 d4 2 0 bool\n19337 Q0 d5 1 0 bool\n",
        "score_ties",
        "runs/cand.run: in 2 of its 3 queries every line has the same score (19335, 19336): "
        "ranked by document id, descending, as trec_eval breaks ties (neither the rank column "
        "nor the line order counts); give each line a score that falls with its rank",
        ["0.5", "0.5", "1.0"],
    ),
]


@pytest.mark.parametrize(("run", "kind", "line", "rr"), ORDER_NOT_COUNTED)
def test_a_run_whose_file_order_does_not_count_is_ranked_by_score_and_said(
    tmp_path: Path, run: str, kind: str, line: str, rr: list[str]
) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    (project.parent / "runs" / "cand.run").write_text(run)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err.splitlines()) == (0, [f"warning: {line}"])
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    assert results["inputs"]["notices"] == [{
        "kind": kind, "path": "runs/cand.run", "line": None, "count": 2, "total": 3,
        "names": ["19335", "19336"], "run": "cand",
    }]  # fmt: skip
    with (tmp_path / "site" / "data" / "per-question.csv").open(encoding="utf-8") as rows:
        found = {(r["question"], r["variant"]): r["mrr"] for r in csv.DictReader(rows)}
    assert [found[q, "cand"] for q in ("19335", "19336", "19337")] == rr
    for page in ("index.html", "benchmark.html"):
        text = html.unescape((tmp_path / "site" / page).read_text("utf-8"))
        about = re.search(r'<aside class="notices".*?</aside>', text, re.S)
        assert about is not None and line in about.group(), page
    # and on the page of the candidate that compares the run, among its warnings
    page = html.unescape((tmp_path / "site" / "candidate-cand.html").read_text("utf-8"))
    assert re.findall(r'<p class="warning"><strong>(?:<span[^>]*>)?(.*?)(?:</span>)?</strong>',
                      page) == [line]  # fmt: skip
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out,
                    stderr=io.StringIO()) == 0  # fmt: skip
    assert f"warning: {line}" in out.getvalue().splitlines()
    # the audit restates the notice from results.json: a count changed on the page is named
    wrong = planted(tmp_path / "site", tmp_path / "planted", "index.html", "in 2 of its 3",
                    "in 1 of its 3")  # fmt: skip
    assert [d.line() for d in audit(wrong)[0]] == [
        f"index.html: {line!r}: results.json says so, but the page does not show these words",
        f"index.html: {line.replace('in 2 of', 'in 1 of')!r}: results.json says {line!r} (claim "
        "10 of benchmark.html: notice of inputs.notices[0])",
    ]


def test_a_run_named_in_files_must_parse(tmp_path: Path, previous: Path) -> None:
    project = write_project(tmp_path / "p", QRELS, {"base": BASE}, relevance=1)
    (project.parent / "NOTES.txt").write_text("how we made these runs\n")
    text = project.read_text().replace('dir = "runs"', 'dir = "runs"\nfiles = ["NOTES.txt"]')
    project.write_text(text)
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / 'NOTES.txt'}:1: expected 6 columns, "
                              "found 5\n")  # fmt: skip


def _corpus_project(root: Path, index: bool) -> Path:
    project = write_project(root, QRELS, {"base": BASE, "cand": BASE}, relevance=1)
    docs = [{"_id": f"d{n}", "title": f"doc {n}", "text": "words"} for n in range(1, 6)]
    docs[2] = {"_id": "d3", "title": "", "text": "  "}
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    text = project.read_text().replace(
        "[questions]", f'[documents]\ncorpus = "corpus.jsonl"\nindex = {str(index).lower()}\n\n[questions]'
    )  # fmt: skip
    project.write_text(text)
    return project


def test_an_empty_document_is_a_warning_where_it_is_only_shown(tmp_path: Path) -> None:
    code, _, err = build(_corpus_project(tmp_path / "p", index=False), tmp_path / "site")
    assert (code, err.splitlines()) == (0, [
        "warning: corpus.jsonl:3: 1 document with neither title nor text (d3): shown, never "
        "indexed"
    ])  # fmt: skip


def test_an_empty_document_is_an_error_where_it_would_be_indexed(
    tmp_path: Path, previous: Path
) -> None:
    project = _corpus_project(tmp_path / "p", index=True)
    before = tree(previous)
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / 'corpus.jsonl'}:3: expected a title or "
                              "some text in every document a pipeline indexes, found both empty "
                              "in 'd3'\n")  # fmt: skip
    assert tree(previous) == before


def test_trec_eval_averaging_counts_a_judged_query_without_a_relevant_one_as_zero(
    tmp_path: Path,
) -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0}}  # q2 is judged, none of it relevant
    base = {"q1": ["d1"], "q2": ["d2"]}
    results = {}
    for averaging in ("defined", "trec_eval"):
        project = write_project(tmp_path / averaging, qrels, {"base": base, "cand": base},
                                relevance=1, report=f'averaging = "{averaging}"')  # fmt: skip
        assert build(project, tmp_path / f"site-{averaging}")[0] == 0
        data = json.loads((tmp_path / f"site-{averaging}" / "results.json").read_text("utf-8"))
        results[averaging] = {
            s["metric"]: (s["mean"], s["n"]) for s in data["variants"][0]["metrics"]
        }
    assert results["defined"]["mrr"] == (1.0, 1)  # q2 is left out
    assert results["trec_eval"]["mrr"] == (0.5, 2)  # trec_eval: (1 + 0) / 2
    pytrec_eval = pytest.importorskip("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(
        {q: {d: 1.0} for q, (d,) in base.items()}
    )
    assert sum(v["recip_rank"] for v in theirs.values()) / len(theirs) == 0.5


# -- Judged@k and condensed lists against independent tools ------------------------------------


def _random_collection(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    import random

    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(12):
        docs = [f"d{n}" for n in range(40)]
        judged = rng.sample(docs, rng.randint(1, 15))
        qrels[f"q{q}"] = {d: rng.choice((-2, 0, 0, 1, 2, 3)) for d in judged}
        if all(g < 1 for g in qrels[f"q{q}"].values()):
            qrels[f"q{q}"][judged[0]] = 2
        ranked = rng.sample(docs, rng.randint(3, 25))
        run[f"q{q}"] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return qrels, run


@pytest.mark.parametrize("seed", range(5))
def test_judged_at_k_equals_ir_measures(seed: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    from evidencedesk.files.trec import TrecRun
    from evidencedesk.retrieval.metrics import per_question
    from evidencedesk.retrieval.trec_judge import judge_trec_run

    qrels, run = _random_collection(seed)
    judged = judge_trec_run(TrecRun.from_dict(run), qrels, relevant=1)
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 5, ir_measures.Judged @ 10],
        [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()],
    )}  # fmt: skip
    for k in (5, 10):
        ours = per_question(judged, f"judged@{k}")
        assert ours == pytest.approx({q: theirs[q, f"Judged@{k}"] for q in run}, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_condensed_lists_equal_pytrec_eval_on_the_hand_condensed_run(seed: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from evidencedesk.files.trec import TrecRun
    from evidencedesk.retrieval.metrics import per_question
    from evidencedesk.retrieval.trec_judge import _judge_trec_run_condensed

    qrels, run = _random_collection(seed)
    _, condensed = _judge_trec_run_condensed(TrecRun.from_dict(run), qrels, relevant=1)
    by_hand = {q: {d: s for d, s in docs.items() if d in qrels[q]} for q, docs in run.items()}
    theirs = pytrec_eval.RelevanceEvaluator(
        {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()},
        {"ndcg_cut_10", "recip_rank", "P_5"},
    ).evaluate(by_hand)
    for ours_name, their_name in (("ndcg@10:linear", "ndcg_cut_10"), ("mrr", "recip_rank"),
                                  ("precision@5", "P_5")):  # fmt: skip
        ours = per_question(condensed, ours_name)
        expected = {q: theirs.get(q, {}).get(their_name, 0.0) for q in ours}
        assert ours == pytest.approx(expected, abs=1e-12), ours_name


# -- what to label next: the round trip ------------------------------------------------------


def test_to_label_round_trips_through_the_qrels_and_compare_to(tmp_path: Path) -> None:
    """Fill to-label.tsv's first rows from a hidden full qrels, append them to the qrels,
    rebuild with --compare-to: the candidate's comparison changes as the README says."""
    import subprocess

    hidden = {f"q{n}": {f"a{n}": 1, f"b{n}": 2, f"c{n}": 0} for n in range(6)}
    known = {q: {f"a{q[1:]}": 1} for q in hidden}  # only the baseline's first result is judged
    base = {q: [f"a{q[1:]}"] for q in hidden}
    cand = {q: [f"b{q[1:]}", f"a{q[1:]}"] for q in hidden}  # finds the unjudged answer first
    project = write_project(tmp_path / "p", known, {"base": base, "cand": cand}, relevance=1)
    first = tmp_path / "site-1"
    assert build(project, first)[0] == 0
    before = json.loads((first / "results.json").read_text("utf-8"))
    cand_before = next(c for c in before["candidates"] if c["name"] == "cand")
    assert cand_before["judged"]["caveat"] is True  # half of its top 2 is unjudged
    tsv = (first / "data" / "to-label.tsv").read_text("utf-8").splitlines()
    assert tsv[0].startswith("# query\titeration\tdocument\tgrade\t")
    rows = [line.split("\t") for line in tsv[1:]]
    assert [(r[0], r[2], r[6]) for r in rows[:2]] == [("q0", "b0", "1"), ("q1", "b1", "1")]
    filled = [[*r[:3], str(hidden[r[0]][r[2]]), *r[4:]] for r in rows]  # the assessor's grades
    (first / "data" / "to-label.tsv").write_text(
        "\n".join([tsv[0], *("\t".join(r) for r in filled)]) + "\n", "utf-8"
    )
    # the README's command: append the graded rows to the qrels
    awk = subprocess.run(["awk", "-F\t", '!/^#/ && $4 != "" {print $1, $2, $3, $4}',
                          str(first / "data" / "to-label.tsv")],
                         capture_output=True, text=True, check=True)  # fmt: skip
    with (project.parent / "qrels.txt").open("a", encoding="utf-8") as out:
        out.write(awk.stdout)
    second = tmp_path / "site-2"
    code, _, _ = build(project, second, "--compare-to", str(first))
    assert code == 0
    after = json.loads((second / "results.json").read_text("utf-8"))
    cand_after = next(c for c in after["candidates"] if c["name"] == "cand")
    assert cand_after["judged"]["caveat"] is False and cand_after["judged"]["candidate"] == 1.0
    head = cand_after["comparisons"][0]
    assert head["delta"] > cand_before["comparisons"][0]["delta"]
    since = (second / "since.html").read_text("utf-8")
    assert "label grades changed" in since or "labels changed" in since
