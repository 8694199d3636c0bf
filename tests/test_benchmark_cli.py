"""The benchmark CLI: the table, JSON, --save-baseline, and the gate's exit statuses.

Exit statuses: 0 for GO and REVIEW, 1 for BLOCK, 2 for bad input (one ``error:`` line, no
traceback). Each CLI case runs in a subprocess, as CI would run it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.paths import DATA, ROOT
from evidencedesk.retrieval.benchmark import CAVEAT, benchmark_variants, format_table
from evidencedesk.retrieval.benchmark_cli import main
from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.parts import Parts

NAMES = [
    "sparse",
    "dense",
    "hybrid",
    "hybrid + overlap",
    "hybrid + feature",
    "hybrid + blend",
    "hybrid + pair (8 words)",
]


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "evidencedesk.retrieval.benchmark", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=cwd or ROOT,
        timeout=300,
    )


def policy_file(tmp_path: Path, policy: dict) -> Path:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(policy), encoding="utf-8")
    return path


def test_gate_go_exits_0(tmp_path):
    done = cli("--gate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[-1] == "GATE: GO"
    assert lines[-2] == "gate: hybrid vs baseline data/baseline_retrieval.json"
    assert CAVEAT in lines
    assert [line.split("  ")[0] for line in lines[4:11]] == NAMES


def test_forced_block_exits_1(tmp_path):
    """An impossible floor (every answerable question fully recalled) blocks the baseline."""
    path = policy_file(tmp_path, {"min_recall": 1.0, "min_pass_rate": 1.0})
    done = cli("--gate", "--policy", path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    tail = done.stdout.splitlines()[-3:]
    assert tail == [
        "GATE: BLOCK",
        "  block: recall@3 0.833 is below the minimum 1.000",
        "  block: pass rate 0.857 (18/21) is below the minimum 1.000",
    ]


def test_review_exits_0(tmp_path):
    """No floors, no critical cases: the 8-word cut only earns review lines against the baseline."""
    path = policy_file(tmp_path, {"max_drop": 0.02})
    done = cli("--gate", "--policy", path, "--gate-variant", "hybrid + pair (8 words)")
    assert done.returncode == 0, done.stderr
    gate = done.stdout.split("\n\ngate: ")[1].splitlines()
    assert gate[1] == "GATE: REVIEW"
    assert gate[2].startswith("  review: recall@3 dropped 0.167 vs baseline")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"min_recall": "high"}', "key 'min_recall': expected a number, found \"high\""),
        ('{"critical": ["zz99"]}', "key 'critical': zz99 is not a labelled question"),
        ('{"colour": "red"}', "unknown key 'colour'; expected one of: k, min_recall"),
    ],
)
def test_bad_policy_exits_2_with_one_line(tmp_path, text, message):
    path = tmp_path / "policy.json"
    path.write_text(text, encoding="utf-8")
    done = cli("--gate", "--policy", path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"error: {path}:1: {message}")


def test_missing_baseline_exits_2(tmp_path):
    done = cli("--gate", "--baseline", tmp_path / "none.json")
    assert done.returncode == 2
    assert "found no file; rebuild it with --save-baseline" in done.stderr
    assert "Traceback" not in done.stderr


def test_save_baseline_reproduces_the_committed_file(tmp_path):
    """Same inputs -> byte-identical baseline: the committed file is what the code writes."""
    out = tmp_path / "baseline.json"
    done = cli("--save-baseline", "--baseline", out, "--gate")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (DATA / "baseline_retrieval.json").read_bytes()
    assert f"baseline saved: {out}" in done.stdout


def test_json_output(tmp_path):
    done = cli("--json", "--gate", "--seed", "7")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["seed"] == 7 and data["questions"] == 24 and data["answerable"] == 21
    assert [v["name"] for v in data["variants"]] == NAMES
    assert data["gate"]["verdict"] == "GO" and data["gate"]["lines"] == []
    first = data["variants"][0]
    assert first["flips"] == {"versus": "sparse", "better": [], "worse": [], "tied": 21, "p": 1.0}


# --- in process ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def results():
    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    return benchmark_variants(Parts.build(catalog), catalog, labels, seed=0), labels


def test_benchmark_variants_rows(results):
    rows, _ = results
    assert [r.name for r in rows] == NAMES
    assert [r.pairs_per_question for r in rows] == [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 10.0]
    assert rows[0].better == () and rows[0].worse == ()
    for row in rows:
        ci = row.mrr_ci
        assert ci.low <= row.mrr <= ci.high
        assert len(row.better) + len(row.worse) + row.tied == 21
    json.dumps([r.to_dict() for r in rows])


def test_table_is_deterministic_for_a_seed(capsys):
    assert main(["--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert main(["--seed", "3"]) == 0
    assert capsys.readouterr().out == first
    assert "bootstrap seed 3" in first


def test_table_flags_toy_dense_and_stand_in_rerankers(results):
    rows, labels = results
    text = format_table(rows, labels, seed=0)
    assert "toy hashed embedder" in text and "stand-ins for a cross-encoder" in text
    assert "+3/-0 p=0.250" in text  # hybrid vs sparse on reciprocal rank


# --- any project, pipes -------------------------------------------------------------------------

EXAMPLE = ROOT / "examples" / "millbrook-library"


def test_runs_only_project_agrees_with_trec_eval(capsys):
    """One row per run; the means are trec_eval's over the questions with a relevant judgment."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from evidencedesk.retrieval.beir import read_beir_qrels

    assert main(["--project", str(EXAMPLE / "runs-only"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in data["runs"]] == ["bm25", "rerank"]
    assert data["runs"][0]["flips"]["better"] == [] and data["runs"][0]["flips"]["p"] == 1.0
    qrels = read_beir_qrels(EXAMPLE / "qrels" / "test.tsv")
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"recall_10", "P_10", "recip_rank", "ndcg_cut_10"}, relevance_level=2
    )
    counted = [q for q, docs in qrels.items() if max(docs.values()) >= 2]
    assert data["answerable"] == len(counted) == 30
    for row in data["runs"]:
        run: dict[str, dict[str, float]] = {}
        for line in (EXAMPLE / "runs" / f"{row['name']}.run").read_text().splitlines():
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
        per_q = evaluator.evaluate(run)
        for ours, theirs in [
            ("recall@10", "recall_10"),
            ("precision@10", "P_10"),
            ("mrr", "recip_rank"),
            ("ndcg@10:linear", "ndcg_cut_10"),
        ]:
            expected = sum(per_q.get(q, {}).get(theirs, 0.0) for q in counted) / len(counted)
            assert row[ours] == pytest.approx(expected, abs=1e-9), (row["name"], ours)


def test_runs_only_table_and_gate(capsys):
    assert (
        main(["--project", str(EXAMPLE / "runs-only"), "--gate", "--gate-variant", "rerank"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("benchmark: Millbrook Public Library (runs only): 2 TREC runs, ")
    assert lines[2].split() == [
        "run",
        "R@10",
        "P@10",
        "MRR",
        "MRR",
        "95%",
        "CI",
        "nDCG@10",
        "flips",
        "vs",
        "bm25",
    ]
    assert [line.split()[0] for line in lines[4:6]] == ["bm25", "rerank"]
    assert lines[-2:] == ["gate: rerank vs no saved baseline", "GATE: GO"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--gate-variant", "dense", "--gate"],
            "error: --gate-variant: expected one of bm25, rerank, found 'dense'\n",
        ),
        (
            ["--save-baseline"],
            f"error: {EXAMPLE / 'runs-only' / 'evidencedesk.toml'}: expected a [gate].baseline "
            "to save to (or --baseline PATH), found none\n",
        ),
    ],
)
def test_project_mistakes_exit_2_with_one_line(args, message, capsys):
    assert main(["--project", str(EXAMPLE / "runs-only"), *args]) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", message)


def test_pipeline_project_gets_the_built_in_variants(capsys):
    assert main(["--project", str(EXAMPLE), "--gate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "benchmark: 32 questions (30 answerable), final 3 chunks, reranker depth 10, "
        "bootstrap seed 0"
    )
    assert [line.split("  ")[0] for line in lines[4:11]] == NAMES
    assert (
        "external runs (bm25, rerank) are judged in the report (`evidencedesk build`), "
        "not in this table." in lines
    )
    assert lines[-2:] == ["gate: hybrid vs no saved baseline", "GATE: GO"]


def test_a_closed_pipe_ends_with_141_and_no_traceback(tmp_path):
    """The reader is gone before the table is written: no traceback, status 128 + SIGPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "evidencedesk.retrieval.benchmark"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=tmp_path,
            timeout=300,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_runs_only_baseline_saved_without_gate_is_cut_at_the_policys_k(tmp_path, capsys):
    """Saved first, gated later: the baseline run against itself is GO with no line."""
    saved = tmp_path / "baseline.json"
    project = str(EXAMPLE / "runs-only")
    assert main(["--project", project, "--save-baseline", "--baseline", str(saved)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (f"baseline saved: {saved} (the run 'bm25')")
    assert json.loads(saved.read_text())["k"] == 3  # gate_policy.json's k
    assert main(["--project", project, "--gate", "--baseline", str(saved)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"gate: bm25 vs baseline {saved}",
        "GATE: GO",
    ]
