"""The results layer on the demo: every statistic computed once, results.json round-trips to the
same site, and the exports recompute to the same numbers with trec_eval (pytrec_eval)."""

from __future__ import annotations

import ast
import csv
import filecmp
import io
import json
from pathlib import Path

import pytest
import pytrec_eval

from evidencedesk import cli
from evidencedesk.errors import ResultsFileError
from evidencedesk.gate import GateLevel
from evidencedesk.report._assemble import present
from evidencedesk.report._render import render_site
from evidencedesk.results import _serialize as serialize
from evidencedesk.results.types import Results, RunCosts
from tests.conftest import DemoBuild

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo(demo_build: DemoBuild) -> tuple[Path, dict[str, int]]:
    """The session's one demo build (tests/conftest.py), with the bootstrap calls it made."""
    return demo_build.site, demo_build.calls


@pytest.fixture(scope="module")
def results(demo: tuple[Path, dict[str, int]]) -> Results:
    return serialize.load(demo[0] / "results.json")


def test_each_interval_is_computed_once(demo: tuple[Path, dict[str, int]]) -> None:
    # 8 variants (7 built-in + the bm25-title run) x 4 reported metrics = 32;
    # sizing: 11 (depth, final) rows, one of them (10, 3) is "hybrid + feature" again = 10;
    # candidates, their own means: 5 of 10 equal a variant (nothing new); "depth 3" and
    # "depth 20" equal sizing rows (MRR known, 3 metrics new each); "final 5",
    # "no pre-filter" and "dense: MiniLM" 4 + 4 + 4.
    # slice intervals: 8 variants x 2 slice metrics (MRR, R@3) x the 7 tags that at least two
    # answerable questions carry (bangla, direct, exact_term, paraphrase, restricted, stale,
    # structured; "unanswerable" has none) = 112; candidates' slices take no interval.
    # Judged@3: one interval per variant = 8 (the labels judge every chunk: no condensed lists);
    # one paired interval per candidate x reported metric = 40, and one per candidate for its
    # Judged@3 against the baseline's = 10 (each pairs the questions once and bootstraps their
    # differences)
    assert demo[1]["bootstrap"] == 32 + 10 + 3 + 3 + 4 + 4 + 4 + 8 * 2 * 7 + 8 + 10 * 4 + 10
    # one paired interval per ablation change (9)
    assert demo[1]["paired"] == 9


STATISTICS = {"bootstrap_ci", "paired", "_paired_bootstrap_ci", "holm", "by_tag",
              "_randomization_test", "summarize", "per_question", "flips_needed",
              "sign_test_p"}  # fmt: skip


@pytest.mark.parametrize(
    "module", sorted(p.name for p in (REPO / "evidencedesk" / "report").glob("*.py"))
)
def test_report_computes_no_statistic(module: str) -> None:
    """report/ presents Results: it imports no statistic (the audit's re-derivation lives in
    results.recheck)."""
    tree = ast.parse((REPO / "evidencedesk" / "report" / module).read_text("utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evidencedesk.retrieval")
        for alias in node.names
    }  # fmt: skip
    assert imported & STATISTICS == set()


def test_results_json_holds_settings_version_and_hashes(
    demo: tuple[Path, dict[str, int]], results: Results
) -> None:
    data = json.loads((demo[0] / "results.json").read_text("utf-8"))
    assert data["schema_version"] == 2
    assert data["settings"]["seed"] == 0 and data["settings"]["relevance"] == 2
    assert [(m["name"], m["label"]) for m in data["settings"]["columns"]] == [
        ("recall@1", "R@1"), ("recall@3", "R@3"), ("mrr", "MRR"), ("ndcg@5", "nDCG@5 (exp gain)")
    ]  # fmt: skip
    manifest = json.loads((demo[0] / "manifest.json").read_text("utf-8"))
    assert data["version"] == manifest["version"]
    assert data["inputs"]["input_hash"] == manifest["input_hash"]
    assert [f["path"] for f in data["inputs"]["files"]][0] == "evidencedesk.toml"
    assert "results.json" in manifest["downloads"] and "data/qrels.txt" in manifest["downloads"]
    # sorted keys: the file is its own canonical form
    text = (demo[0] / "results.json").read_text("utf-8")
    assert (
        text == json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
    )


def test_an_external_run_has_no_pair_cost(results: Results) -> None:
    run = results.variant("bm25-title")
    assert (run.kind, run.costs.pairs_per_question, run.costs.latency_ms) == (
        "external",
        None,
        None,
    )
    hybrid = results.variant("hybrid").costs
    assert (hybrid.pairs_per_question, hybrid.latency_ms) == (0.0, 4.0)  # 4 ms + 0 pairs


def test_gate_lines_are_data(results: Results) -> None:
    dense = next(c for c in results.candidates if c.name == "dense first stage")
    assert dense.gate.level == "BLOCK" and dense.gate.evaluated
    critical = [c for c in dense.gate.checks if c.rule == "critical"]
    assert critical and all(c.level == "BLOCK" and len(c.questions) == 1 for c in critical)
    assert all(c.k == 3 for c in critical)


def test_a_schema_1_file_loads_with_its_gate_verdict_read_as_the_level(
    demo: tuple[Path, dict[str, int]], results: Results
) -> None:
    """Schema 1 named a gate outcome's GO/REVIEW/BLOCK `verdict`; schema 2 names it `level` (the
    verdict is the statistics' answer), and a previous report (build --compare-to) still loads."""
    data = json.loads((demo[0] / "results.json").read_text("utf-8"))
    assert "verdict" not in data["candidates"][0]["gate"]
    data["schema_version"] = 1
    for gate in [c["gate"] for c in data["candidates"]] + [data["baseline_gate"]]:
        gate["verdict"] = gate.pop("level")
    old = serialize.loads(json.dumps(data))
    dense = next(c for c in old.candidates if c.name == "dense first stage")
    assert old == results and dense.gate.level is GateLevel.BLOCK


@pytest.mark.parametrize("metric", ["recall@1", "recall@3", "mrr", "ndcg@5"])
def test_every_reported_metric_has_flips_tests_and_holm(results: Results, metric: str) -> None:
    tests = [c.comparison(metric) for c in results.candidates]
    for t in tests:
        assert len(t.better) + len(t.worse) + t.tied == t.n
        assert 0.0 <= t.sign_p <= t.sign_holm_p <= 1.0
        assert 0.0 <= t.randomization_p <= t.holm_p <= 1.0
    # Holm: adjusted p ordered like the raw p, and at most m times the raw p (the randomization
    # test's decides; the sign test's is shown beside the flips)
    for raw, adjusted in (("randomization_p", "holm_p"), ("sign_p", "sign_holm_p")):
        ordered = sorted(tests, key=lambda t: getattr(t, raw))
        assert [getattr(t, adjusted) for t in ordered] == sorted(
            getattr(t, adjusted) for t in ordered
        )
        assert all(getattr(t, adjusted) <= min(1.0, len(tests) * getattr(t, raw)) for t in tests)


def test_a_candidate_equal_to_a_variant_reuses_its_numbers(results: Results) -> None:
    feature = next(c for c in results.candidates if c.name == "rerank feature")
    assert feature.metrics == results.variant("hybrid + feature").metrics
    flips = results.flip("hybrid", "hybrid + feature")
    mrr = feature.comparison("mrr")
    assert (mrr.better, mrr.worse, mrr.tied, mrr.sign_p) == (
        flips.better, flips.worse, flips.tied, flips.p
    )  # fmt: skip


def test_results_json_round_trips_to_the_same_site(
    demo: tuple[Path, dict[str, int]], results: Results, tmp_path: Path
) -> None:
    text = (demo[0] / "results.json").read_text("utf-8")
    assert serialize.dumps(results) == text
    again = tmp_path / "again"
    render_site(present(results), again)
    left, right = demo[0], again

    def same(cmp: filecmp.dircmp) -> list[str]:  # type: ignore[type-arg]
        bad = cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files
        return bad + [f for sub in cmp.subdirs.values() for f in same(sub)]

    # byte comparison, not os.stat shortcuts
    filecmp.clear_cache()
    cmp = filecmp.dircmp(left, right)
    files = [p.relative_to(left) for p in left.rglob("*") if p.is_file()]
    assert same(cmp) == []
    assert all((left / f).read_bytes() == (right / f).read_bytes() for f in files)


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text("utf-8").splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def test_exports_recompute_to_the_same_numbers_with_trec_eval(
    demo: tuple[Path, dict[str, int]], results: Results
) -> None:
    """trec_eval's recall / recip_rank at relevance 2, and ndcg_cut on exponential gains
    (qrels grade g written as 2^g - 1), equal results.json per question and on average."""
    site = demo[0]
    qrels: dict[str, dict[str, int]] = {}
    for line in (site / "data" / "qrels.txt").read_text("utf-8").splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    exp = {q: {d: 2**g - 1 for d, g in docs.items()} for q, docs in qrels.items()}
    measures = {"recall.1,3", "recip_rank"}
    rows = list(csv.DictReader((site / "data" / "per-question.csv").open(encoding="utf-8")))
    checked = 0
    for v in results.variants:
        run = read_run(site / "data" / "runs" / f"{_slug(v.name)}.run")
        binary = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=2).evaluate(run)
        gains = pytrec_eval.RelevanceEvaluator(exp, {"ndcg_cut.5"}).evaluate(run)
        mine = {r["question"]: r for r in rows if r["variant"] == v.name}
        for name, measure, table in (("recall@1", "recall_1", binary), ("recall@3", "recall_3", binary),
                                     ("mrr", "recip_rank", binary), ("ndcg@5", "ndcg_cut_5", gains)):  # fmt: skip
            defined = [q for q, docs in qrels.items() if any(g >= 2 for g in docs.values())]
            theirs = {q: table.get(q, {}).get(measure, 0.0) for q in defined}
            ours = {q: float(mine[q][name]) for q in defined}
            assert ours == pytest.approx(theirs, abs=1e-12), (v.name, name)
            stat = next(s for s in v.metrics if s.metric == name)
            assert stat.n == len(defined)
            assert stat.mean == pytest.approx(sum(theirs.values()) / len(defined), abs=1e-12)
            checked += 1
    assert checked == 8 * 4


def _slug(name: str) -> str:
    from evidencedesk.report._site import slug

    return slug(name)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(schema_version=99), "key schema_version: expected 1 or 2, found 99"),
        (lambda d: d.pop("baseline"), "key baseline: expected a value, found null"),
        (lambda d: d.update(answerable="24"), 'key answerable: expected a int, found "24"'),
        (
            lambda d: d["settings"].update(kind="both"),
            "key settings.kind: expected one of ('pipeline', 'runs'), found \"both\"",
        ),  # fmt: skip
        (lambda d: d.update(extra=1), "key extra: expected no such key, found 1"),
    ],
)
def test_a_bad_results_file_is_one_line_naming_the_key(
    demo: tuple[Path, dict[str, int]],
    tmp_path: Path,
    edit,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    data = json.loads((demo[0] / "results.json").read_text("utf-8"))
    edit(data)
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultsFileError) as info:
        serialize.load(bad)
    assert str(info.value) == f"{bad}: {message}"


def test_a_runs_only_project_round_trips_and_keeps_only_top_lists(tmp_path: Path) -> None:
    from tests.project_fixtures import make_runs_only_project

    project = make_runs_only_project(tmp_path / "p", questions=6, runs=2, depth=30)
    out = tmp_path / "site"
    argv = ["build", "--project", str(project), "--out", str(out), "--quiet"]
    assert cli.main(argv, stdout=io.StringIO()) == 0
    loaded = serialize.load(out / "results.json")
    assert loaded.settings.kind == "runs" and loaded.sizing is None
    lists = [r for v in loaded.variants for r in v.lists]
    assert {len(r.ids) for r in lists} <= {20} | {r.size for r in lists if r.size < 20}
    assert any(r.size == 30 for r in lists)
    assert not (out / "data" / "runs").exists()  # the runs are the project's own files
    assert all(v.costs == RunCosts(None, None, None) for v in loaded.variants)
    again = tmp_path / "again"
    render_site(present(loaded), again)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((out / f).read_bytes() == (again / f).read_bytes() for f in files)
