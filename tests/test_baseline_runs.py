"""A runs-only project's saved baseline (schema /2, ``"run"`` in the config's place): saved by the
benchmark command, read back, refused for the other kind of project, and gated against by the
build. Numbers worked by hand on four questions with one relevant document each, k = 2."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.baseline import (
    _BASELINE_SCHEMA,
    _RUN_BASELINE_SCHEMA,
    _save_run_baseline,
    load_baseline,
)
from evidencedesk.errors import ConfigError
from evidencedesk.paths import DATA
from evidencedesk.results._evaluate import evaluate
from evidencedesk.results._inputs import load_project
from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.evalreport import Config
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.trec_judge import judge_trec_run
from tests.synthetic_runs import write_project


def main(argv: list[str], **kwargs: object) -> int:
    """`evidencedesk benchmark ARGV…`, in this process."""
    return cli.main(["benchmark", *argv], **kwargs)  # type: ignore[arg-type]


RELEVANT = {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 2}, "q4": {"d4": 2}}
RUNS = {
    # cut to k = 2: q1 first (rr 1), q2 second (rr 0.5), q3's d3 is third (cut away), q4 none
    "base": {"q1": ["d1", "n1"], "q2": ["n1", "d2"], "q3": ["n1", "n2", "d3"], "q4": ["n1", "n2"]},
    # rr 0.5, 1, 1, 0: q1 worse, q2 and q3 better than the base
    "new": {"q1": ["n1", "d1"], "q2": ["d2"], "q3": ["d3"], "q4": ["n1"]},
    # rr 0, 0.5, 0, 0: q1 worse (and it is critical), the rest tied
    "bad": {"q1": ["n1", "n2"], "q2": ["n1", "d2"]},
}
POLICY = {"k": 2, "max_drop": 0.1, "critical": ["q1"]}
BAD_LINES = [
    "GATE: BLOCK",
    "  block: critical: q1 failed (no relevant result in the top 2)",
    "  review: recall@2 dropped 0.250 vs baseline (0.500 -> 0.250), more than the allowed 0.100",
    "  review: MRR@2 dropped 0.250 vs baseline (0.375 -> 0.125), more than the allowed 0.100",
    "  review: MRR@2 worse for 1 question(s) [q1], better for 0 (sign-test p=1.000)",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = write_project(tmp_path / "p", RELEVANT, RUNS, policy=POLICY)
    # "bad" answers 2 of the 4 questions on purpose: the others count as empty lists
    text = path.read_text("utf-8").replace(
        'baseline = "base"', 'baseline = "base"\nmin_coverage = 0.5'
    )
    path.write_text(text, "utf-8")
    return path


def _saved(project: Path) -> Path:
    """Save the baseline run with the benchmark command, then name it in the project file."""
    path = project.parent / "baseline.json"
    assert main(["--project", str(project), "--save-baseline", "--baseline", str(path)]) == 0
    text = project.read_text("utf-8").replace(
        'policy = "policy.json"', 'policy = "policy.json"\nbaseline = "baseline.json"'
    )
    project.write_text(text, "utf-8")
    return path


def test_a_runs_only_baseline_is_the_run_cut_to_k(project):
    loaded = load_project(project)
    labels = loaded.load_labels(None)
    judged = judge_trec_run(loaded.load_runs()["base"], None, labels)
    path = project.parent / "saved.json"
    saved = _save_run_baseline(path, "base", judged, 2, labels)
    data = json.loads(path.read_text("utf-8"))
    assert list(data) == ["schema", "run", "k", "summary", "questions", "labels_hash"]
    assert (data["schema"], data["run"], data["k"]) == (_RUN_BASELINE_SCHEMA, "base", 2)
    summary = data["summary"]
    assert (summary["recall@1"], summary["recall@2"], summary["precision@2"]) == (0.25, 0.5, 0.25)
    assert (summary["mrr"], summary["hit@2"]) == (0.375, 0.5)
    assert summary["ndcg@5"] == pytest.approx((1 + 1 / math.log2(3)) / 4)
    assert data["questions"] == {
        "q1": {"passed": True, "rr": 1.0, "recall": 1.0},
        "q2": {"passed": True, "rr": 0.5, "recall": 1.0},
        "q3": {"passed": False, "rr": 0.0, "recall": 0.0},  # d3 was third: cut away
        "q4": {"passed": False, "rr": 0.0, "recall": 0.0},
    }
    back = load_baseline(path, labels, "runs")
    assert back == saved and back.kind == "runs" and back.config is None
    assert back.to_json().encode("utf-8") == path.read_bytes()  # load -> save: the same bytes
    reference = back.reference()
    assert (reference.config, reference.run, reference.k) == (None, "base", 2)
    assert reference.what() == {"run": "base"}  # what the gate shows: no made-up config
    assert dict(reference.rr) == {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.0}


def test_an_old_format_pipeline_baseline_still_loads():
    labels = load_labels(DATA / "labels.jsonl", load_catalog())
    path = DATA / "baseline_retrieval.json"
    assert json.loads(path.read_text("utf-8"))["schema"] == _BASELINE_SCHEMA  # written by /1
    for kind in (None, "pipeline"):
        saved = load_baseline(path, labels, kind)  # type: ignore[arg-type]
        assert saved.kind == "pipeline" and saved.run is None and saved.config == Config()
        assert (saved.reference().config, saved.reference().run) == (Config(), None)


def test_a_pipeline_baseline_for_a_runs_only_project_is_one_clear_line(project, capsys):
    demo = DATA / "baseline_retrieval.json"
    assert main(["--project", str(project), "--gate", "--baseline", str(demo)]) == 2
    out = capsys.readouterr()
    assert out.out == f"project: synthetic ({project})\n"
    assert out.err == (
        f"error: {demo}:3: expected the baseline of a run (this is a runs-only project), found "
        "the baseline of a pipeline config; rebuild it with --save-baseline\n"
    )


def test_a_runs_only_baseline_for_a_pipeline_project_is_one_clear_line(project, capsys):
    path = _saved(project)
    capsys.readouterr()
    assert main(["--gate", "--baseline", str(path)]) == 2  # the demo: a pipeline project
    assert capsys.readouterr().err == (
        f"error: {path}:3: expected the baseline of a pipeline config (this project runs its own "
        "retrieval), found the baseline of the run 'base'; rebuild it with --save-baseline\n"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.pop("run"), "expected 'config' (a pipeline's baseline) or 'run' (a runs-only "
                                 "project's baseline run), found neither"),
        (lambda b: b.update(config={}), "expected 'config' (a pipeline's baseline) or 'run' (a "
                                        "runs-only project's baseline run), found both"),
        (lambda b: b.update(schema=_BASELINE_SCHEMA), "key 'run': expected schema "
         "'evidencedesk.baseline_retrieval/2' for a baseline run, found "
         "'evidencedesk.baseline_retrieval/1'"),
        (lambda b: b.update(run=""), "key 'run': expected a run's name, found \"\""),
    ],
)  # fmt: skip
def test_a_broken_runs_only_baseline_is_refused(project, change, message):
    path = _saved(project)
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2), "utf-8")
    labels = load_project(project).load_labels(None)
    with pytest.raises(ConfigError) as info:
        load_baseline(path, labels, "runs")
    assert message in str(info.value) and str(info.value).startswith(f"{path}")


def test_the_benchmark_gates_a_run_against_the_saved_run(project, capsys):
    path = _saved(project)
    assert capsys.readouterr().out.splitlines()[-1] == f"baseline saved: {path} (the run 'base')"
    assert main(["--project", str(project), "--gate", "--gate-variant", "new"]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [f"gate: new vs baseline {path}",
                                                         "GATE: GO"]  # fmt: skip
    assert main(["--project", str(project), "--gate", "--gate-variant", "bad", "--json"]) == 1
    gate = json.loads(capsys.readouterr().out)["gate"]
    assert gate["level"] == "BLOCK" and gate["lines"] == [line[2:] for line in BAD_LINES[1:]]
    assert gate["baseline"] == {"run": "base"}  # what it was compared with: no made-up config
    assert gate["measured"]["recall"] == 0.25 and gate["measured"]["mrr"] == 0.125


def test_the_build_gates_against_the_saved_baseline_not_the_baseline_run(project, capsys):
    _saved(project)
    assert main(["--project", str(project), "--save-baseline"]) == 0  # refreshed from the project
    # the baseline run changes after it was saved: now it is as bad as "bad"
    (project.parent / "runs" / "base.run").write_text(
        (project.parent / "runs" / "bad.run").read_text("utf-8").replace(" bad\n", " base\n"),
        "utf-8",
    )
    results = evaluate(load_project(project), 0, (), lambda stage: None)
    gates = {c.name: c.gate for c in results.candidates}
    assert gates["new"].level == "GO" and gates["bad"].level == "BLOCK"
    assert gates["bad"].baseline == "the saved baseline baseline.json"
    assert [(c.level, c.rule, c.metric, c.observed, c.reference) for c in gates["bad"].checks] == [
        ("BLOCK", "critical", None, None, None),
        ("REVIEW", "max_drop", "recall@2", 0.25, 0.5),
        ("REVIEW", "max_drop", "mrr", 0.125, 0.375),
        ("REVIEW", "review_on_mrr_flips", "mrr", None, None),
    ]  # against the base run as it is now, only the critical question would fail
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["build", "--project", str(project), "--out",
                              str(project.parent / "site"), "--fail-on", "block"],
                             stdout=out, stderr=err)  # fmt: skip
    assert (status, err.getvalue().splitlines()) == (1, [
        "warning: Partial coverage: the run bad answers 2 of the 4 judged queries (50 %); the "
        "others count as empty lists.",
        "warning: Partial coverage: the run base answers 2 of the 4 judged queries (50 %); the "
        "others count as empty lists.",
        "gate: --fail-on block failed for bad (BLOCK)",
    ])  # fmt: skip
