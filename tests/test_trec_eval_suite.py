"""trec_eval's own test collection (its Makefile's quicktest) through the runs-only build.

`tests/data/trec_eval/` holds trec_eval 10.0's ``test/`` files (NIST; LICENSE.md beside them):
qrels, two runs and the expected outputs. Each is run as a user would run it -- a runs-only
project with no queries file, qrels with comment lines, a run with tabs and padded scores -- and
every measure evidencedesk reports is matched question by question and in the mean, to the four
decimals trec_eval prints:

- ``trec_eval -q -m all_trec qrels.test results.test`` (out.test.aq);
- ``-c`` on results.trunc, which leaves out query 302 (out.test.aqc): a judged query a run does
  not answer counts as an empty list, as ``-c`` counts it;
- ``-c -M100`` (out.test.aqcM): ``[runs] max_depth = 100``;
- ``-l2`` on qrels.rel_level (out.test.aql): ``[questions] relevance = 2``;
- the qrels with comment lines (qrels.test.with-comments) give the same numbers;
- the project file may name the measures as trec_eval does (``map_cut_10``, ``Rprec``, ``P_10``,
  ``ndcg``): each reads as one evidencedesk metric, shown by its label.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from evidencedesk import cli

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval's name -> ours: every measure of all_trec that evidencedesk computes
MEASURES = {
    "recip_rank": "mrr",
    "map": "map",
    "Rprec": "rprec",
    "bpref": "bpref",
    "ndcg": "ndcg:linear",
    **{f"P_{k}": f"precision@{k}" for k in CUTS},
    **{f"recall_{k}": f"recall@{k}" for k in CUTS},
    **{f"ndcg_cut_{k}": f"ndcg@{k}:linear" for k in CUTS},
    **{f"map_cut_{k}": f"map@{k}" for k in CUTS},
    **{f"success_{k}": f"hit@{k}" for k in (1, 5, 10)},
}


def expected(name: str) -> dict[str, dict[str, float]]:
    """trec_eval's printed values: measure -> {query id or "all": value}."""
    out: dict[str, dict[str, float]] = {}
    for line in (DATA / name).read_text().splitlines():
        measure, qid, value = line.split()
        if measure in MEASURES:
            out.setdefault(measure, {})[qid] = float(value)
    return out


def build(
    tmp: Path, qrels: str, runs: dict[str, str], questions: str = "", more: str = "",
    report: str = "",
) -> dict:  # fmt: skip
    """The runs-only build's results.json; `report` is the [report] table (default: every
    measure of `MEASURES`, by our names)."""
    root = tmp / "project"
    (root / "runs").mkdir(parents=True)
    shutil.copy(DATA / qrels, root / "qrels.txt")
    for name, source in runs.items():
        shutil.copy(DATA / source, root / "runs" / f"{name}.run")
    metrics = ", ".join(json.dumps(m) for m in dict.fromkeys(MEASURES.values()))
    (root / "evidencedesk.toml").write_text(
        f'[questions]\nqrels = "qrels.txt"\n{questions}\n[runs]\ndir = "runs"\n'
        f'baseline = "{next(iter(runs))}"\n{more}\n[report]\n'
        f"{report or f'metrics = [{metrics}]'}\n",
        encoding="utf-8",
    )
    out = tmp / "site"
    code = cli.main(["build", "--project", str(root), "--out", str(out), "-q"],
                    stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert code == 0
    return json.loads((out / "results.json").read_text("utf-8"))


def check(results: dict, run: str, theirs: dict[str, dict[str, float]]) -> int:
    """Every measure's per-question values and mean equal trec_eval's to 4 decimals; returns
    how many numbers were compared."""
    variant = next(v for v in results["variants"] if v["name"] == run)
    means = {s["metric"]: s["mean"] for s in variant["metrics"]}
    compared = 0
    for measure, ours in MEASURES.items():
        for r in variant["lists"]:
            assert round(r["values"][ours], 4) == pytest.approx(theirs[measure][r["question"]],
                                                                abs=5e-5), (measure, r["question"])  # fmt: skip
            compared += 1
        assert means[ours] == pytest.approx(theirs[measure]["all"], abs=5e-5), measure
        compared += 1
    return compared


@pytest.fixture(scope="module")
def quicktest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    # "trunc" answers 2 of the 3 judged queries: accepted with a lowered [runs].min_coverage
    return build(tmp_path_factory.mktemp("quicktest"), "qrels.test",
                 {"test": "results.test", "trunc": "results.trunc"},
                 more="min_coverage = 0.6\n")  # fmt: skip


def test_every_supported_measure_matches_trec_eval_q(quicktest: dict) -> None:
    assert [q["id"] for q in quicktest["inputs"]["questions"]] == ["301", "302", "303"]
    assert check(quicktest, "test", expected("out.test.aq")) == len(MEASURES) * 4


def test_a_query_the_run_leaves_out_counts_as_trec_eval_c_counts_it(quicktest: dict) -> None:
    trunc = next(v for v in quicktest["variants"] if v["name"] == "trunc")
    assert next(r for r in trunc["lists"] if r["question"] == "302")["size"] == 0
    assert check(quicktest, "trunc", expected("out.test.aqc")) == len(MEASURES) * 4
    coverage = trunc["coverage"]  # answered 2 of 3 judged queries, at or above min_coverage
    assert (coverage["answered"], coverage["judged_queries"]) == (2, 3)


def test_max_depth_is_trec_evals_M(tmp_path: Path) -> None:
    results = build(tmp_path, "qrels.test", {"trunc": "results.trunc"},
                    more="max_depth = 100\nmin_coverage = 0.6\n")  # fmt: skip
    check(results, "trunc", expected("out.test.aqcM"))


def test_max_depth_is_read_from_the_runs_section(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "runs").mkdir(parents=True)
    shutil.copy(DATA / "qrels.test", root / "qrels.txt")
    shutil.copy(DATA / "results.trunc", root / "runs" / "trunc.run")
    (root / "evidencedesk.toml").write_text(
        '[questions]\nqrels = "qrels.txt"\n[runs]\ndir = "runs"\nbaseline = "trunc"\n'
        "max_depth = 100\n", encoding="utf-8",
    )  # fmt: skip
    from evidencedesk.results._inputs import load_project

    assert load_project(root).max_depth == 100


def test_the_relevance_level_is_trec_evals_l(tmp_path: Path) -> None:
    results = build(tmp_path, "qrels.rel_level", {"test": "results.test"}, "relevance = 2\n")
    check(results, "test", expected("out.test.aql"))


def test_qrels_with_comment_lines_give_the_same_numbers(tmp_path: Path, quicktest: dict) -> None:
    commented = build(tmp_path, "qrels.test.with-comments", {"test": "results.test"})
    ours = next(v for v in commented["variants"] if v["name"] == "test")
    theirs = next(v for v in quicktest["variants"] if v["name"] == "test")
    assert ours["metrics"] == theirs["metrics"]


def test_the_project_file_takes_trec_evals_names(tmp_path: Path) -> None:
    # trec_eval's own spellings, as a team moving from it writes them; its ``ndcg`` is linear
    # gain: evidencedesk reads ``ndcg`` with its own default (exp), so the file says ndcg:linear
    names = ["map", "map_cut_10", "Rprec", "bpref", "P_10", "recip_rank", "ndcg:linear"]
    results = build(tmp_path, "qrels.test", {"test": "results.test"},
                    report=f'metrics = {json.dumps(names)}\nprimary = "AP"')  # fmt: skip
    compared = [(m["name"], m["label"]) for m in results["settings"]["compared"]]
    assert compared == [("map", "MAP"), ("map@10", "MAP@10"), ("rprec", "R-prec"),
                        ("bpref", "bpref"), ("precision@10", "P@10"), ("mrr", "MRR"),
                        ("ndcg:linear", "nDCG (linear gain)")]  # fmt: skip
    theirs = expected("out.test.aq")
    variant = next(v for v in results["variants"] if v["name"] == "test")
    means = {s["metric"]: s["mean"] for s in variant["metrics"]}
    for measure, ours in (("map", "map"), ("map_cut_10", "map@10"), ("Rprec", "rprec"),
                          ("bpref", "bpref"), ("ndcg", "ndcg:linear")):  # fmt: skip
        assert means[ours] == pytest.approx(theirs[measure]["all"], abs=5e-5), measure
