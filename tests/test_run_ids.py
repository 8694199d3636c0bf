"""Document ids checked like query ids: a run's top documents against the corpus (when the
project has one) and, without one, its judged share against the other runs'; ids the corpus
does not hold never reach to-label.tsv. Small hand-made projects built through the command."""

from __future__ import annotations

import io
import json
from pathlib import Path

from evidencedesk import cli
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
            "'000003', '000004', '000009'; corpus: '1', '10', '11'); removing leading zeros from "
            "the run's document ids would match 5 of 5")  # fmt: skip
    code, _, err = build(project, previous)
    assert (code, err) == (2, f"error: {project.parent / line}\n")
    assert tree(previous) == before
    stderr = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=io.StringIO(),
                    stderr=stderr) == 2  # fmt: skip
    assert stderr.getvalue() == f"error: {project.parent / line}\n"


def test_validate_prints_each_runs_share_in_the_corpus(tmp_path: Path) -> None:
    one_off = {**BASE, "q4": ["7", "8", "13"]}  # "13": not in the corpus, 1 of 12 (8 %)
    project = with_corpus(write_project(tmp_path / "p", QRELS, {"base": BASE, "cand": one_off},
                                        relevance=1), CORPUS)  # fmt: skip
    out = io.StringIO()
    assert cli.main(["validate", "--project", str(project)], stdout=out, stderr=io.StringIO()) == 0
    runs = [line for line in out.getvalue().splitlines() if line.startswith("run ")]
    assert runs == [
        "run base: answers 4 of 4 judged queries (100 %); 8 of the 12 documents of its top 10 "
        "are judged for some query (67 %), 12 of them are in the corpus (100 %)",
        "run cand: answers 4 of 4 judged queries (100 %); 8 of the 12 documents of its top 10 "
        "are judged for some query (67 %), 11 of them are in the corpus (92 %)",
    ]


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


def test_without_a_corpus_a_run_finding_unjudged_documents_is_kept(tmp_path: Path) -> None:
    qrels = {f"q{n}": {f"doc{2 * n - 1}": 1, f"doc{2 * n}": 0} for n in range(1, 5)}
    base = {q: list(docs) for q, docs in qrels.items()}
    cand = {q: ["web-17", "web-92", *docs] for q, docs in qrels.items()}  # new, unjudged finds
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1)
    code, _, err = build(project, tmp_path / "site")
    assert (code, err) == (0, "")
