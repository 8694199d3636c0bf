"""The release gate: policy files, the saved baseline, critical cases and verdicts on the demo data.

The demo policy (`data/gate_policy_retrieval.json`) names four critical questions:

- rc01 — the identifier question: its answer chunk names batch RD2-24 only after the 8th word;
- st01 — the stale-policy question: the superseded returns v2 (store credit only) outranks the
  current v3 refund rule when nothing filters it out;
- rs01 — the restricted-note question: the old helmet and returns policies and two staff notes
  rank above its answers unfiltered; the public helmet rule must reach the prompt;
- rc02 — safety: the recall's action ("stop riding") must reach the prompt; a miss can hurt a rider.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk.baseline import (
    _BASELINE_SCHEMA,
    Baseline,
    _labels_hash,
    _QuestionResult,
    _save_baseline,
    load_baseline,
)
from evidencedesk.errors import ConfigError
from evidencedesk.gate import GateLevel, GatePolicy, GateResult, _gate_result, load_policy
from evidencedesk.paths import DATA
from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.evalreport import Config, Run, retrieval_gate, run_config
from evidencedesk.retrieval.labels import Label, load_labels
from evidencedesk.retrieval.metrics import Judged, per_question_all, summarize
from evidencedesk.retrieval.parts import Parts

POLICY = DATA / "gate_policy_retrieval.json"
BASELINE = DATA / "baseline_retrieval.json"


@pytest.fixture(scope="module")
def demo():
    catalog = load_catalog()
    labels = load_labels(catalog=catalog)
    return Parts.build(catalog), catalog, labels


@pytest.fixture(scope="module")
def policy(demo):
    return load_policy(POLICY, demo[2])


@pytest.fixture(scope="module")
def baseline(demo):
    return load_baseline(BASELINE, demo[2])


def run(demo, cfg: Config) -> Run:
    parts, catalog, labels = demo
    return run_config(cfg, parts, catalog, labels)


def write(tmp_path: Path, text: str, name: str = "policy.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- policy files -------------------------------------------------------------------------------


def test_demo_policy_names_four_answerable_critical_questions(policy, demo):
    assert policy.critical == ("rc01", "st01", "rs01", "rc02")
    tags = {label.id: label.tags for label in demo[2]}
    assert "exact_term" in tags["rc01"] and "stale" in tags["st01"]
    assert "restricted" in tags["rs01"]
    assert set(policy.notes) == set(policy.critical)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"min_recall": "high"}',
            "policy.json:1: key 'min_recall': expected a number, found \"high\"",
        ),
        ('{"k": 3.5}', "policy.json:1: key 'k': expected an integer, found 3.5"),
        (
            '{"min_recall": 1.5}',
            "policy.json:1: key 'min_recall': expected a value from 0.0 to 1.0, found 1.5",
        ),
        ('{"critical": "rc01"}', "policy.json:1: key 'critical': expected a list, found \"rc01\""),
        (
            '{\n  "k": 3,\n  "min_recal": 0.5\n}',
            "policy.json:3: unknown key 'min_recal'; expected one of: k, min_recall, "
            "min_pass_rate, max_drop, critical, review_on_mrr_flips, flips_min_net, "
            "flips_max_p, notes",
        ),
        (
            '{"k": 3,',
            "policy.json:1: expected JSON, found invalid JSON (Expecting property name enclosed in "
            "double quotes)",
        ),
        ("[1, 2]", "policy.json: expected a JSON object of policy keys, found list"),
        (
            '{"critical": ["rc01"], "notes": {"st01": "x"}}',
            "policy.json:1: key 'notes': expected notes only for critical ids, found st01",
        ),
        (
            '{\n  "critical": ["rc01", "rc01"]\n}',
            "policy.json:2: key 'critical': expected each question id once, found a repeat",
        ),
        (
            '{\n  "critical": ["rc01"],\n  "notes": {\n    "rc01": 5\n  }\n}',
            "policy.json:4: key 'notes.rc01': expected a string, found 5",
        ),
        (
            '{"review_on_mrr_flips": "yes"}',
            "policy.json:1: key 'review_on_mrr_flips': expected true or false, found \"yes\"",
        ),
        ('{"k": 0}', "policy.json:1: key 'k': expected a value from 1 to 1000000, found 0"),
    ],
)
def test_policy_errors_name_file_key_and_expectation(tmp_path, demo, text, message):
    with pytest.raises(ConfigError) as info:
        load_policy(write(tmp_path, text), demo[2])
    assert str(info.value).startswith(
        f"{tmp_path / 'policy.json'}{message.removeprefix('policy.json')}"
    )


def test_policy_unknown_critical_id_is_listed(tmp_path, demo):
    path = write(tmp_path, '{\n  "critical": [\n    "rc01",\n    "zz99"\n  ]\n}')
    with pytest.raises(ConfigError) as info:
        load_policy(path, demo[2])
    assert str(info.value).startswith(
        f"{path}:4: key 'critical': zz99 is not a labelled question; expected ids from the "
        "labels: rc01, rc02, sp01,"
    )
    load_policy(path)  # without labels, ids are not checked


def test_policy_unknown_critical_id_among_many_questions_stays_one_line(tmp_path):
    # 600 questions: the first 50 ids listed, the rest counted; the nearest id offered
    many = [Label(f"q{n:04d}", "", (), True, {"d1": 2}) for n in range(600)]
    path = write(tmp_path, '{"critical": ["q0599x"]}')
    with pytest.raises(ConfigError) as info:
        load_policy(path, many)
    listed = ", ".join(f"q{n:04d}" for n in range(50))
    assert str(info.value) == (
        f"{path}:1: key 'critical': q0599x is not a labelled question; did you mean q0599? "
        f"expected ids from the labels: {listed}, … 550 more"
    )


def test_policy_unanswerable_critical_id_is_refused(tmp_path, demo):
    with pytest.raises(ConfigError, match="un02 is an unanswerable question"):
        load_policy(write(tmp_path, '{"critical": ["un02"]}'), demo[2])


@pytest.mark.parametrize(
    ("critical", "found"),
    [
        (
            '["q3"]',
            "q3 has no relevant judgment; expected questions with one (a critical case passes "
            "only with a relevant result: graded 1 or above)",
        ),
        (
            '["q9", "q8"]',
            "q9, q8 are not evaluated questions; expected ids from the questions evaluated "
            "(queries with judgments): q1, q3",
        ),
    ],
)
def test_policy_critical_ids_of_a_qrels_project_are_named_in_its_words(tmp_path, critical, found):
    # qrels judge some documents: no question is "unanswerable", none "labelled"
    judged = [
        Label("q1", "", (), True, {"d1": 1}, relevant_grade=1, complete=False),
        Label("q3", "", (), False, {"d5": 0}, relevant_grade=1, complete=False),
    ]
    path = write(tmp_path, f'{{"critical": {critical}}}')
    with pytest.raises(ConfigError) as info:
        load_policy(path, judged)
    assert str(info.value) == f"{path}:1: key 'critical': {found}"


def test_policy_unanswerable_critical_id_names_the_threshold(tmp_path, demo):
    path = write(tmp_path, '{"critical": ["un02"]}')
    with pytest.raises(ConfigError) as info:
        load_policy(path, demo[2])
    assert str(info.value) == (
        f"{path}:1: key 'critical': un02 is an unanswerable question; expected answerable "
        "questions (a critical case passes only with a relevant result: graded 2 or above)"
    )


def test_policy_model_is_frozen_and_strict():
    policy = GatePolicy()
    with pytest.raises(ValueError):
        policy.k = 5  # type: ignore[misc]
    with pytest.raises(ValueError):
        GatePolicy.model_validate_json('{"review_on_mrr_flips": "yes"}')


# --- the saved baseline -------------------------------------------------------------------------


def test_saved_baseline_is_current_config_on_current_labels(baseline, demo):
    """The committed baseline is `Config()` and matches what the code measures today."""
    now = run(demo, Config())
    assert baseline.config == Config()
    assert baseline.labels_hash == _labels_hash(demo[2])
    assert baseline.rr() == per_question_all(list(now.judged), "mrr")
    assert baseline.summary == {name: now.value(name) for name in now.summary}


def test_baseline_round_trip(tmp_path, demo):
    path = tmp_path / "base.json"
    saved = _save_baseline(path, run(demo, Config(reranker="feature")), demo[2])
    loaded = load_baseline(path, demo[2])
    assert loaded == saved and loaded.config == Config(reranker="feature")
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == _BASELINE_SCHEMA
    assert loaded.to_json().encode("utf-8") == path.read_bytes()  # load -> save: the same bytes


def test_the_committed_baseline_is_written_back_byte_for_byte(baseline):
    assert baseline.to_json().encode("utf-8") == BASELINE.read_bytes()


DEFAULTS = {"first_stage": "hybrid", "reranker": "none", "depth": 10, "final": 3,
            "max_words": None, "prefilter": True}  # fmt: skip


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"reranker": "feature", "depth": 10}, Config(reranker="feature", depth=10)),
        ({}, Config()),
        ({"prefilter": False, "max_words": 8, "first_stage": "sparse"},
         Config(first_stage="sparse", max_words=8, prefilter=False)),
    ],
)  # fmt: skip
def test_a_config_table_is_read_as_its_config(tmp_path, demo, table, expected):
    """A hand-written table becomes one `Config` as the file is read; fields it leaves out take
    `Config()`'s values, and it is written back whole, in the fields' order."""
    path = _saved_demo_baseline(tmp_path, lambda b: b.update(config=table))
    loaded = load_baseline(path, demo[2])
    assert isinstance(loaded.config, Config) and loaded.config == expected
    assert json.loads(loaded.to_json())["config"] == {**DEFAULTS, **table}
    assert list(json.loads(loaded.to_json())["config"]) == list(DEFAULTS)
    assert loaded.reference().config == expected and loaded.reference().what() == {
        **DEFAULTS, **table}  # fmt: skip


def test_baseline_made_on_other_labels_is_refused(tmp_path, demo):
    labels = demo[2]
    path = tmp_path / "base.json"
    _save_baseline(path, run(demo, Config()), labels)
    edited = [replace(labels[0], question=labels[0].question + "?"), *labels[1:]]
    with pytest.raises(ConfigError) as info:
        load_baseline(path, edited)
    old, new = _labels_hash(labels)[:12], _labels_hash(edited)[:12]
    assert str(info.value) == (
        f"{path}: baseline was made on other labels (hash {old}… ≠ {new}…); "
        "rebuild it with --save-baseline"
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            '{"schema": "other/9"}',
            "expected schema 'evidencedesk.baseline_retrieval/1' or 'evidencedesk.baseline_retrieval/2', found \"other/9\"",
        ),
        (
            "[]",
            "expected schema 'evidencedesk.baseline_retrieval/1' or 'evidencedesk.baseline_retrieval/2', found null",
        ),
        ("{", "expected JSON, found"),
        (
            f'{{"schema": "{_BASELINE_SCHEMA}", "config": {{}}}}',
            "base.json: key 'k': expected an integer, found none; rebuild it with --save-baseline",
        ),
    ],
)
def test_baseline_with_wrong_schema_is_refused(tmp_path, demo, text, fragment):
    with pytest.raises(ConfigError, match="rebuild it with --save-baseline|expected JSON") as info:
        load_baseline(write(tmp_path, text, "base.json"), demo[2])
    assert fragment in str(info.value)


def _saved_demo_baseline(tmp_path: Path, change) -> Path:
    """The committed demo baseline, pretty-printed, with one value changed."""
    data = json.loads(BASELINE.read_text(encoding="utf-8"))
    change(data)
    return write(tmp_path, json.dumps(data, indent=2) + "\n", "base.json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda b: b["questions"]["rc02"].update(rr="0.5"),
            "base.json:29: key 'questions.rc02.rr': expected a number, found \"0.5\"",
        ),
        (
            lambda b: b["questions"]["rc01"].update(passed=1),
            "base.json:23: key 'questions.rc01.passed': expected true or false, found 1",
        ),
        (
            lambda b: b["config"].update(reranker="cross-encoder"),
            "base.json:3: key 'config': unknown reranker 'cross-encoder'; expected one of: none, "
            "overlap, feature, pair, blend, minilm",
        ),
        (
            lambda b: b.update(config="hybrid"),
            "base.json:3: key 'config': expected an object, found \"hybrid\"",
        ),
        (
            lambda b: b["config"].update(depth="10"),
            "base.json:3: key 'config': config depth: expected an integer from 1 to 1000000, "
            "found '10'",
        ),
        (  # two faults: the reader meets the config's first
            lambda b: (b["config"].update(rerank="pair"), b["questions"]["rc02"].update(rr="1")),
            "base.json:3: key 'config': unknown config field 'rerank'; expected one of: "
            "first_stage, reranker, depth, final, max_words, prefilter",
        ),
        (
            lambda b: b.update(made_by="hand"),
            "base.json:144: key 'made_by': unknown key; expected one of: schema, config, run, k, "
            "summary, questions, labels_hash",
        ),
        (
            lambda b: b.update(schema="other/9"),
            "base.json:2: expected schema 'evidencedesk.baseline_retrieval/1' or 'evidencedesk.baseline_retrieval/2', found \"other/9\"",
        ),
    ],
)
def test_baseline_errors_name_line_and_key(tmp_path, demo, change, message):
    path = _saved_demo_baseline(tmp_path, change)
    with pytest.raises(ConfigError) as info:
        load_baseline(path, demo[2])
    assert str(info.value) == f"{tmp_path}/{message}; rebuild it with --save-baseline"


def test_missing_baseline_says_how_to_make_one(tmp_path, demo):
    with pytest.raises(ConfigError, match="found no file; rebuild it with --save-baseline"):
        load_baseline(tmp_path / "nope.json", demo[2])


# --- shaping a run and the gate levels ---------------------------------------------------------


@pytest.mark.parametrize(
    ("levels", "worst"),
    [
        ((), GateLevel.GO),
        (("GO", "GO"), GateLevel.GO),
        (("GO", "REVIEW"), GateLevel.REVIEW),
        ((GateLevel.REVIEW, "BLOCK", "GO"), GateLevel.BLOCK),
    ],
)
def test_the_worst_gate_level_of_several(levels, worst):
    assert GateLevel.worst(levels) is worst


def test_an_unknown_gate_level_is_refused_by_name():
    with pytest.raises(ValueError, match="'PASS' is not a valid GateLevel"):
        GateLevel.worst(["GO", "PASS"])


def test_gate_result_has_one_case_per_answerable_question(demo):
    shaped = _gate_result(run(demo, Config()))
    answerable = [label.id for label in demo[2] if label.answerable]
    assert list(shaped.cases) == answerable
    assert [q for q, ok in shaped.cases.items() if not ok] == ["st02", "st03", "rs02", "pp02"]
    assert shaped.pass_rate == pytest.approx(17 / 21)
    assert shaped.recall == run(demo, Config()).value("recall@3")


def test_baseline_against_itself_is_go(policy, baseline, demo):
    result = retrieval_gate(policy, run(demo, Config()), baseline)
    assert result.level is GateLevel.GO
    assert result.text() == "GATE: GO"
    two = GateResult(GateLevel.BLOCK, ("block: a", "review: b"))
    assert two.text() == "GATE: BLOCK\n  block: a\n  review: b"
    assert two.to_dict() == {"level": "BLOCK", "lines": ["block: a", "review: b"]}


def test_eight_word_pair_cut_is_blocked(policy, baseline, demo):
    """The 8-word cut blinds the pair scorer (it reads only title and heading). On the demo data
    it BLOCKs on the floors and loses four questions' reciprocal rank. The identifier questions
    rc01/rc02 survive it: their recall chunks all share one title, so the cut scores them equal
    and ties keep the hybrid order, which already had the answers on top."""
    result = retrieval_gate(policy, run(demo, Config(reranker="pair", max_words=8)), baseline)
    assert result.level is GateLevel.BLOCK
    assert result.lines[:2] == (
        "block: recall@3 0.667 is below the minimum 0.750",
        "block: pass rate 0.714 (15/21) is below the minimum 0.800",
    )
    assert (
        "review: MRR within the final list worse for 4 question(s) [sp01, dr02, dr03, dr04], "
        "better for 0 "
        "(sign-test p=0.125)"
    ) in result.lines
    assert not any(line.startswith("block: critical") for line in result.lines)


def test_dense_first_stage_is_blocked_by_the_identifier_question(policy, baseline, demo):
    """The toy dense embedder cannot match RD2-24 well enough: critical rc02 fails."""
    result = retrieval_gate(policy, run(demo, Config(first_stage="dense")), baseline)
    assert result.level is GateLevel.BLOCK
    assert result.lines[0] == "block: critical: rc02 failed (no relevant result in the final 3)"


def test_dropping_the_prefilter(policy, baseline, demo):
    """At depth 10 the old helmet and returns policies and the two restricted notes take nine
    of rs01's ten candidate slots above its second answer (returns v3 exceptions), which the late
    filter then cannot bring back: rs01's recall@3 falls from 1 to 1/2, the mean by 0.5/21 =
    0.024 > max_drop -> REVIEW. At depth 3 marked chunks fill the whole candidate list of st01
    and rs01, both critical -> BLOCK."""
    at_10 = retrieval_gate(policy, run(demo, Config(prefilter=False)), baseline)
    assert at_10.level is GateLevel.REVIEW
    assert at_10.lines == (
        "review: recall@3 dropped 0.024 vs baseline (0.786 -> 0.762), more than the allowed 0.020",
    )
    at_3 = retrieval_gate(policy, run(demo, Config(prefilter=False, depth=3)), baseline)
    assert at_3.level is GateLevel.BLOCK
    assert at_3.lines[:2] == (
        "block: critical: st01 failed (no relevant result in the final 3)",
        "block: critical: rs01 failed (no relevant result in the final 3)",
    )


def test_failed_critical_case_blocks_whatever_the_averages(baseline, demo):
    lenient = GatePolicy(critical=("st02",), max_drop=1.0)
    result = retrieval_gate(lenient, run(demo, Config()), baseline)
    assert result.level is GateLevel.BLOCK
    assert result.lines == ("block: critical: st02 failed (no relevant result in the final 3)",)


def _run_of(rr: dict[str, float]) -> Run:
    """A run whose single returned chunk sits at rank 1/rr (0: nothing relevant returned)."""
    judged = []
    for qid, value in rr.items():
        rank = 0 if value == 0 else round(1 / value)
        grades = tuple(2 if r == rank else 0 for r in range(1, 4))
        judged.append(Judged(qid, (), True, grades, (2,)))
    names = ["recall@3", "mrr", "hit@3"]
    return Run(Config(), tuple(judged), summarize(judged, names), 0.0, 0.0)


def test_review_line_when_mrr_is_worse_for_more_questions():
    before = {"rc02": 1.0, "rc07": 1.0, "h01": 1.0, "h03": 0.5, "x1": 0.5, "x2": 0.5, "x3": 1.0}
    after = {"rc02": 0.5, "rc07": 0.5, "h01": 1 / 3, "h03": 1 / 3, "x1": 1.0, "x2": 1.0, "x3": 1.0}
    baseline = Baseline(
        schema=_BASELINE_SCHEMA,
        config=Config().to_dict(),
        k=3,
        summary={"recall@3": 1.0, "mrr": sum(before.values()) / 7},
        questions={q: _QuestionResult(passed=True, rr=v, recall=1.0) for q, v in before.items()},
        labels_hash="0" * 64,
    )
    result = retrieval_gate(GatePolicy(max_drop=1.0), _run_of(after), baseline)
    assert result.level is GateLevel.REVIEW
    assert result.lines == (
        "review: MRR within the final list worse for 4 question(s) [rc02, rc07, h01, h03], "
        "better for 2 "
        "(sign-test p=0.688)",
    )
    quiet = retrieval_gate(
        GatePolicy(max_drop=1.0, review_on_mrr_flips=False), _run_of(after), baseline
    )
    assert quiet.level is GateLevel.GO


@pytest.mark.parametrize(
    ("worse", "listed"),
    [(4, "[w1, w2, w3, w4]"),
     (50, "[" + ", ".join(f"w{n}" for n in range(1, 51)) + "]"),
     (227, "[" + ", ".join(f"w{n}" for n in range(1, 51)) + ", … 177 more]")],
)  # fmt: skip
def test_a_flips_line_names_at_most_50_questions(worse: int, listed: str) -> None:
    # a 620-question project's line named all 227 worse questions in the terminal
    from evidencedesk.gate import GateCheck

    check = GateCheck(GateLevel.REVIEW, "review_on_mrr_flips", metric="mrr", k=10,
                      questions=tuple(f"w{n}" for n in range(1, worse + 1)), counts=(118,),
                      p=0.0001, cut="top")  # fmt: skip
    assert check.text() == (
        f"MRR@10 worse for {worse} question(s) {listed}, better for 118 (sign-test p<0.001)"
    )
