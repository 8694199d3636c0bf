"""Our numbers against trec_eval's (via pytrec_eval) on a few hundred random graded queries.

trec_eval ``ndcg_cut`` uses linear gain (the grade itself), so it is compared with our
``ndcg@k:linear``; binary measures use ``relevance_level=2``. Scores have many ties, so the
tie-breaking order (document id descending) is checked too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from evidencedesk.retrieval.metrics import per_question, per_question_all, summarize
from evidencedesk.retrieval.trec import read_qrels, read_run, write_qrels, write_run
from evidencedesk.retrieval.trec_judge import evaluate_run, judge_trec_run

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = (1, 3, 5, 10, 20)
MEASURES = {"recip_rank"} | {f"{m}.{','.join(map(str, CUTS))}" for m in ("P", "recall", "ndcg_cut")}


def random_collection(
    seed: int, n_queries: int = 300, ensure_relevant: bool = True
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{rng.randrange(400)}" for _ in range(rng.randint(1, 60))]
        docs = list(dict.fromkeys(docs))
        judged = rng.sample(docs, k=rng.randint(0, len(docs)))
        judged += [f"u{q}-{i}" for i in range(rng.randint(0, 5))]  # judged, never retrieved
        grades = {d: rng.choice((0, 0, 1, 2, 3)) for d in judged}
        if ensure_relevant and not any(g >= 2 for g in grades.values()):
            grades[f"r{q}"] = 2
        if grades:
            qrels[qid] = grades
        # few distinct scores -> many ties
        run[qid] = {d: float(rng.randint(0, 8)) / 2 for d in docs}
    return qrels, run


def trec_eval(qrels, run) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, relevance_level=2)
    return evaluator.evaluate(run)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory):
    qrels, run = random_collection(seed=11)
    folder: Path = tmp_path_factory.mktemp("agree")
    write_qrels(folder / "qrels.txt", qrels)
    write_run(folder / "run.txt", run, "rand")
    return qrels, run, read_qrels(folder / "qrels.txt"), read_run(folder / "run.txt")


def test_per_query_agreement_to_1e_9(collection) -> None:
    qrels, run, qrels_back, run_back = collection
    reference = trec_eval(qrels, run)
    judged = judge_trec_run(run_back, qrels_back)
    assert len(judged) == len(reference) >= 250
    pairs = [("mrr", "recip_rank")]
    for k in CUTS:
        pairs += [
            (f"recall@{k}", f"recall_{k}"),
            (f"precision@{k}", f"P_{k}"),
            (f"ndcg@{k}:linear", f"ndcg_cut_{k}"),
        ]
    for ours_name, theirs in pairs:
        ours = per_question(judged, ours_name)
        for qid, row in reference.items():
            assert ours[qid] == pytest.approx(row[theirs], abs=1e-9, rel=0), (qid, ours_name)


def test_mean_agreement_both_paths(collection) -> None:
    qrels, run, qrels_back, run_back = collection
    reference = trec_eval(qrels, run)
    names = {"mrr": "recip_rank", "recall@5": "recall_5", "precision@10": "P_10"}
    names["ndcg@10:linear"] = "ndcg_cut_10"
    fast = evaluate_run(run_back, qrels_back, list(names))
    slow = summarize(judge_trec_run(run_back, qrels_back), list(names))
    for ours, theirs in names.items():
        expected = sum(row[theirs] for row in reference.values()) / len(reference)
        assert fast[ours].value == pytest.approx(expected, abs=1e-9, rel=0)
        assert slow[ours].value == pytest.approx(expected, abs=1e-9, rel=0)
        assert fast[ours].left_out == slow[ours].left_out == 0


def test_no_relevant_queries_are_left_out_where_trec_eval_scores_zero(tmp_path: Path) -> None:
    qrels, run = random_collection(seed=5, n_queries=80, ensure_relevant=False)
    for qid in list(qrels)[:5]:  # make sure some queries have only grades 0-1
        qrels[qid] = {d: min(g, 1) for d, g in qrels[qid].items()}
    qrels = {q: g for q, g in qrels.items() if g}
    run = {q: r for q, r in run.items() if q in qrels}
    reference = trec_eval(qrels, run)
    undefined = [q for q, grades in qrels.items() if not any(g >= 2 for g in grades.values())]
    assert len(undefined) >= 5
    for qid in undefined:  # trec_eval: 0 for a query with nothing relevant
        assert reference[qid]["recip_rank"] == 0.0
        assert reference[qid]["recall_5"] == 0.0
    write_qrels(tmp_path / "q.txt", qrels)
    write_run(tmp_path / "r.txt", run)
    run_back, qrels_back = read_run(tmp_path / "r.txt"), read_qrels(tmp_path / "q.txt")
    judged = judge_trec_run(run_back, qrels_back)
    for name, theirs in (
        ("mrr", "recip_rank"),
        ("recall@5", "recall_5"),
        ("ndcg@5:linear", "ndcg_cut_5"),
    ):
        ours = per_question_all(judged, name)
        for qid, row in reference.items():
            if qid in undefined:
                assert ours[qid] is None
            else:
                assert ours[qid] == pytest.approx(row[theirs], abs=1e-9, rel=0)
        defined = [row[theirs] for q, row in reference.items() if q not in undefined]
        for summary in (
            evaluate_run(run_back, qrels_back, [name])[name],
            summarize(judged, [name])[name],
        ):
            assert summary.value == pytest.approx(sum(defined) / len(defined), abs=1e-9)
            assert (summary.n, summary.left_out) == (len(defined), len(undefined))
