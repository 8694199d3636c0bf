"""Our numbers against trec_eval's (via pytrec_eval) on a few hundred random graded queries.

trec_eval ``ndcg_cut`` and ``ndcg`` use linear gain (the grade itself), so they are compared with
our ``ndcg@k:linear`` and ``ndcg:linear`` (our exponential gain against trec_eval's linear nDCG
over grades replaced by 2^grade - 1); binary measures use ``relevance_level=2`` (and 1). Scores
have many ties, so the tie-breaking order (document id descending) is checked too. Every declared
metric is compared on runs with unjudged documents and grades -2 to 4, question by question.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from evidencedesk.files.trec import read_qrels, read_run, write_qrels, write_run
from evidencedesk.retrieval.metrics import per_question, per_question_all, summarize
from evidencedesk.retrieval.trec_judge import judge_trec_run

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


def test_means_equal_trec_eval_s(collection) -> None:
    qrels, run, qrels_back, run_back = collection
    reference = trec_eval(qrels, run)
    names = {"mrr": "recip_rank", "recall@5": "recall_5", "precision@10": "P_10"}
    names["ndcg@10:linear"] = "ndcg_cut_10"
    means = summarize(judge_trec_run(run_back, qrels_back), list(names))
    for ours, theirs in names.items():
        expected = sum(row[theirs] for row in reference.values()) / len(reference)
        assert means[ours].value == pytest.approx(expected, abs=1e-9, rel=0)
        assert means[ours].left_out == 0


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
        summary = summarize(judged, [name])[name]
        assert summary.value == pytest.approx(sum(defined) / len(defined), abs=1e-9)
        assert (summary.n, summary.left_out) == (len(defined), len(undefined))


# -- grades -2..4, relevance 1 and 2 (every registered metric trec_eval has: test_every_metric) --


def graded_collection(seed: int, n_queries: int = 250):  # type: ignore[no-untyped-def]
    """Runs with many tied scores, unjudged documents, judged documents never retrieved and
    grades -2 to 4. A query whose judgments are all below 0 gets one judged 0: trec_eval's
    form_res_rels sizes an array by the largest grade + 1 and crashes on such a query."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = list(dict.fromkeys(f"d{rng.randrange(300)}" for _ in range(rng.randint(1, 50))))
        judged = rng.sample(docs, k=rng.randint(0, len(docs)))
        judged += [f"u{q}-{i}" for i in range(rng.randint(0, 6))]
        grades = {d: rng.randint(-2, 4) for d in judged}
        if grades and max(grades.values()) < 0:
            grades[f"z{q}"] = 0
        if grades:
            qrels[f"q{q}"] = grades
        run[f"q{q}"] = {d: float(rng.randint(0, 6)) / 2 for d in docs}
    return qrels, run


def _read_back(folder: Path, qrels, run):  # type: ignore[no-untyped-def]
    write_qrels(folder / "qrels.txt", qrels)
    write_run(folder / "run.txt", run, "rand")
    return read_qrels(folder / "qrels.txt"), read_run(folder / "run.txt")


def _top(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """Each list cut to its top k in trec_eval's order (score descending, then document id
    descending): the list MRR@k reads."""
    return {q: dict(sorted(docs.items(), key=lambda d: (d[1], d[0]), reverse=True)[:k])
            for q, docs in run.items()}  # fmt: skip


def _agree(ours: dict[str, float | None], theirs: dict[str, dict[str, float]], measure: str,
           relevant_in: dict[str, bool]) -> int:  # fmt: skip
    """Our value equals pytrec_eval's to 1e-12 on every question that defines it, and is
    undefined exactly where the question has no relevant judgment; how many were compared."""
    compared = 0
    for qid, row in theirs.items():
        if not relevant_in[qid]:
            assert ours[qid] is None, (qid, measure)
            continue
        assert ours[qid] == pytest.approx(row[measure], abs=1e-12, rel=0), (qid, measure)
        compared += 1
    return compared


@pytest.mark.parametrize(("seed", "relevance"), [(21, 1), (22, 2), (23, 1), (24, 2)])
def test_exp_gain_ndcg_and_mrr_at_k_equal_pytrec_eval_per_question_to_1e_12(
    tmp_path: Path, seed: int, relevance: int
) -> None:
    # the registered metrics trec_eval has no name for, through trec_eval's own measures
    qrels, run = graded_collection(seed)
    qrels_back, run_back = _read_back(tmp_path, qrels, run)
    judged = judge_trec_run(run_back, qrels_back, relevant=relevance)
    relevant_in = {q: any(g >= relevance for g in qrels[q].values()) for q in qrels}
    # exponential gain: trec_eval's linear nDCG over qrels graded 2^grade - 1
    exp_qrels = {q: {d: 2**g - 1 if g > 0 else g for d, g in docs.items()}
                 for q, docs in qrels.items()}  # fmt: skip
    exp = pytrec_eval.RelevanceEvaluator(exp_qrels, {"ndcg", "ndcg_cut.10"}).evaluate(
        {q: r for q, r in run.items() if q in qrels}
    )
    assert _agree(per_question_all(judged, "ndcg"), exp, "ndcg", relevant_in)
    assert _agree(per_question_all(judged, "ndcg@10"), exp, "ndcg_cut_10", relevant_in)
    # MRR@k: trec_eval's recip_rank of each list cut to its top k (trec_eval -M k)
    for k in (1, 3, 10):
        cut = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=relevance)
        at_k = cut.evaluate({q: r for q, r in _top(run, k).items() if q in qrels})
        assert _agree(per_question_all(judged, f"RR@{k}"), at_k, "recip_rank", relevant_in)


def test_a_long_run_judged_to_its_head_keeps_every_whole_list_metric(tmp_path: Path) -> None:
    # judged to depth 3 with `graded`, each list is kept through its last graded result: AP,
    # R-precision, nDCG and bpref over the whole list are what the whole list gives
    qrels, run = graded_collection(31, n_queries=120)
    qrels_back, run_back = _read_back(tmp_path, qrels, run)
    names = ["map", "rprec", "ndcg", "ndcg:linear", "bpref", "mrr", "recall@3"]
    whole = judge_trec_run(run_back, qrels_back, relevant=2)
    head = judge_trec_run(run_back, qrels_back, relevant=2, depth=3, graded=True)
    assert sum(len(j.grades) for j in head) < sum(len(j.grades) for j in whole)
    for name in names:
        assert per_question_all(head, name) == per_question_all(whole, name), name
    first_only = judge_trec_run(run_back, qrels_back, relevant=2, depth=3)
    assert per_question_all(first_only, "map") != per_question_all(whole, "map")
