"""The audit's independent oracle (`evidencedesk.report._oracle`): clean sites of every shape agree
with it, every lie planted in tests/data/audit-oracle.txt is caught with its exact line, its
statistics and verdict rules hold on hand-worked cases, and it imports none of the build's
computation."""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evidencedesk import cli as main_cli
from evidencedesk.report import _oracle as oracle
from evidencedesk.report._audit import audit
from evidencedesk.report._oracle import Moves, oracle_findings, verdict_of
from evidencedesk.results._serialize import load
from evidencedesk.results.types import _NOTICES, Notice
from tests.generated_projects import generated
from tests.test_model_language import arabic_project
from tests.test_summary import hostile_site  # noqa: F401 - a fixture: a site of hostile names

FIXTURES = Path(__file__).parent / "data" / "audit-oracle.txt"
ORACLE = Path(oracle.__file__)


# -- the sites --------------------------------------------------------------------------------


def _tagless(root: Path) -> Path:
    """Generated project 3 (four candidates, a gate policy, primary recall@10) without tags, its
    runs 25 deep (ten unjudged documents after each list): too deep for the site to export them,
    so the oracle reads the per-question CSV."""
    toml, _ = generated(root, 3)
    queries = root / "queries.jsonl"
    rows = [json.loads(line) for line in queries.read_text("utf-8").splitlines()]
    queries.write_text("".join(json.dumps({"_id": r["_id"], "text": r["text"]}) + "\n"
                               for r in rows), "utf-8")  # fmt: skip
    for run in (root / "runs").glob("*.run"):
        lines = run.read_text("utf-8").splitlines()
        by_query: dict[str, list[str]] = {}
        for line in lines:
            by_query.setdefault(line.split()[0], []).append(line)
        out = []
        for q, mine in by_query.items():
            out += mine
            out += [f"{q} Q0 x{n:03d} {len(mine) + n} {1.0 / (n + 1):.3f} {run.stem}"
                    for n in range(1, 11)]  # fmt: skip
        run.write_text("".join(f"{line}\n" for line in out), "utf-8")
    return toml


@pytest.fixture(scope="module")
def tagless_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tagless")
    toml = _tagless(root / "project")
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return root / "site"


@pytest.fixture
def sites(demo_site: Path, tagless_site: Path) -> dict[str, Path]:
    return {"demo": demo_site, "tagless": tagless_site}


def _lines(site: Path) -> list[str]:
    return [f.line() for f in oracle_findings(site, load(site / "results.json"))]


# -- clean sites ------------------------------------------------------------------------------


def test_the_demo_agrees_with_the_oracle(demo_site: Path) -> None:
    assert _lines(demo_site) == []


@pytest.mark.parametrize("which", ["pipeline", "runs-only"])
def test_the_example_projects_agree_with_the_oracle(
    which: str, example_site: Callable[[str], Path]
) -> None:
    assert _lines(example_site(which)) == []


def test_a_tagless_runs_only_project_agrees_with_the_oracle(tagless_site: Path) -> None:
    assert not list((tagless_site / "data" / "runs").glob("*.run"))  # the CSV is the source
    assert _lines(tagless_site) == []


def test_a_trec_eval_averaged_project_agrees_with_the_oracle(tmp_path: Path) -> None:
    """Generated project 2 (tags, eleven candidates, judged questions with nothing relevant)
    under trec_eval's averaging: every mean counts those questions 0, the candidates' slices as
    the variants'. The candidates' slices once left them out (n 13 where the tag has 20)."""
    toml, _ = generated(tmp_path / "project", 2, questions=60)
    text = toml.read_text("utf-8").replace("[report]", '[report]\naveraging = "trec_eval"')
    toml.write_text(text, "utf-8")
    site = tmp_path / "site"
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(site), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    results = load(site / "results.json")
    assert results.settings.averaging == "trec_eval"
    tagged = {t.tag: t.n for t in results.candidates[0].slices}
    assert tagged == {"a": 20, "b": 20, "c": 20}  # every judged question, 60 in three tags
    assert _lines(site) == []


_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("project", "unwanted"),
    [("data", "dense: MiniLM"),  # the demo: a labels file, which grades every chunk
     ("examples/millbrook-library", None)],  # BEIR qrels, which grade only what they name
)  # fmt: skip
def test_bpref_in_a_pipeline_project_agrees_with_the_oracle(
    tmp_path: Path, project: str, unwanted: str | None
) -> None:
    """bpref's N in a pipeline project, as docs/metrics.md defines it: with a labels file every
    chunk in scope without a relevant grade (every chunk of the catalog for an external run),
    with qrels the judgments below the threshold, a document they do not name unjudged. The
    oracle once took every pipeline project's chunks as judged and N from the exported qrels
    alone: 113 and 78 disagreements on these two true sites."""
    root = tmp_path / "project"
    shutil.copytree(_ROOT / project, root, ignore=shutil.ignore_patterns("__pycache__"))
    if unwanted is not None:  # the model's candidate: its first build is seconds of arithmetic
        blocks = (root / "candidates.toml").read_text("utf-8").split("[[candidate]]")
        kept = [b for b in blocks if f'name = "{unwanted}"' not in b]
        (root / "candidates.toml").write_text("[[candidate]]".join(kept), "utf-8")
    toml = root / "evidencedesk.toml"
    toml.write_text(toml.read_text("utf-8").replace(
        "[report]", '[report]\nmetrics = ["mrr", "bpref"]', 1), "utf-8")  # fmt: skip
    site = tmp_path / "site"
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(site), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    assert [m.name for m in load(site / "results.json").settings.compared] == ["mrr", "bpref"]
    assert _lines(site) == []


def test_a_split_site_agrees_with_the_oracle(split_site: Path) -> None:
    """Above 500 questions the per-question CSV and the qrels are gzipped and results.json is
    split in two: the oracle reads both."""
    site = split_site
    assert (site / "data" / "per-question.csv.gz").is_file()
    assert (site / "data" / "qrels.txt.gz").is_file()
    # the oracle's findings and the pages' disagreements, both halves of results.json read
    assert [d.line() for d in audit(site)[0]] == []


def test_an_arabic_project_audits_ok(tmp_path: Path) -> None:
    """Right-to-left questions, titles and text (data, isolated on the pages) make no claim and
    hide none."""
    toml = arabic_project(tmp_path / "project", dense="toy")
    site = tmp_path / "site"
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(site), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    assert "تفتح المكتبة" in (site / "question-q1.html").read_text("utf-8")
    assert [d.line() for d in audit(site)[0]] == []


def test_hostile_run_names_audit_ok(hostile_site: Path) -> None:  # noqa: F811
    """Run names that are markup, Markdown, a table break and a direction override with a
    zero-width space: the override's name is printed inside FSI … PDI wherever it stands (the
    benchmark's rows, the question pages' ranks, the methods page's inputs), and the audit reads
    it as the name it is. It once reported 994 disagreements on this true site."""
    assert "\u2068\u202eevil\u200b\u2069" in (hostile_site / "benchmark.html").read_text("utf-8")
    assert [d.line() for d in audit(hostile_site)[0]] == []


def test_a_tagless_runs_only_project_audits_ok(tagless_site: Path) -> None:
    # the slices page of a project without tags says so and still states the question counts
    # its claim records (audit once reported the missing sentence on every tagless project)
    assert [d.line() for d in audit(tagless_site)[0]] == []
    page = (tagless_site / "slices.html").read_text("utf-8")
    assert "No tags in this project" in page and "The questions: " in page


# -- tampered sites (tests/data/audit-oracle.txt) ---------------------------------------------


@dataclass(frozen=True)
class Case:
    title: str
    site: str
    edits: tuple[str, ...]
    expected: tuple[str, ...]


def _cases() -> list[Case]:
    """The cases of the fixture file, in order."""
    blocks = re.split(r"^~~~ ", FIXTURES.read_text("utf-8"), flags=re.MULTILINE)[1:]
    out = []
    for block in blocks:
        title, site, *rest = block.rstrip("\n").split("\n")
        end = rest.index(".")
        edits, expected = rest[:end], rest[end + 1 : rest.index(".", end + 1)]
        out.append(Case(title, site, tuple(edits), tuple(expected)))
    return out


def _set(data: Any, path: str, value: Any) -> None:
    """Set ``a[1].b`` in parsed JSON."""
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
    for k in keys[:-1]:
        data = data[k]
    data[keys[-1]] = value


def planted(site: Path, copy: Path, edits: tuple[str, ...]) -> Path:
    """A copy of `site` with `edits` made (see the fixture file's header)."""
    shutil.copytree(site, copy)
    for edit in edits:
        name, change = edit.split(": ", 1)
        if name == "results.json":
            path, value = change.split(" = ", 1)
            data = json.loads((copy / name).read_text("utf-8"))
            _set(data, path, json.loads(value))
            (copy / name).write_text(json.dumps(data, indent=2, sort_keys=True), "utf-8")
        else:
            old, new = change.split(" => ", 1)
            text = (copy / name).read_text("utf-8")
            assert old in text, f"{old!r} is not in {name}"
            (copy / name).write_text(text.replace(old, new, 1), "utf-8")
    return copy


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.title)
def test_each_planted_lie_is_caught_with_its_line(
    case: Case, sites: dict[str, Path], tmp_path: Path
) -> None:
    site = planted(sites[case.site], tmp_path / "site", case.edits)
    assert tuple(_lines(site)) == case.expected


def test_the_command_prints_the_oracles_lines_and_exits_1(
    demo_site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = next(c for c in _cases() if c.title == "a Holm p changed")
    site = planted(demo_site, tmp_path / "site", case.edits)
    assert main_cli.main(["audit", str(site)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert case.expected[0] in out
    assert out[-1].startswith("audit: ") and out[-1].endswith(" disagreement(s) with results.json")


def test_an_unreadable_qrels_line_is_bad_input(demo_site: Path, tmp_path: Path) -> None:
    site = planted(demo_site, tmp_path / "site", ("data/qrels.txt: rc01 0 => rc01",))
    err = io.StringIO()
    assert main_cli.main(["audit", str(site)], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == (
        f"error: {site / 'data' / 'qrels.txt'}:1: expected 'qid 0 docid grade', found "
        "'rc01 kc-recall-rd2-24:c0 2'\n"
    )


# -- the statistics and the rules, by hand ----------------------------------------------------


@pytest.mark.parametrize(
    ("better", "worse", "p"),
    [(0, 0, 1.0), (4, 0, 0.125), (5, 0, 0.0625), (6, 0, 0.03125), (3, 1, 0.625), (2, 2, 1.0)],
)
def test_the_sign_test(better: int, worse: int, p: float) -> None:
    assert oracle._sign_p(better, worse) == p


def test_the_exact_randomization_test_counts_every_sign_pattern() -> None:
    # differences 1, 1, 1, -1: |sum| = 2; of the 16 sign patterns, those with |sum| >= 2 are
    # the ones with three or four signs alike: 2 * (1 + 4) = 10
    assert oracle._randomization_p([1.0, 1.0, 1.0, -1.0], seed=0) == 10 / 16
    assert oracle._randomization_p([0.0, 1e-13], seed=0) == 1.0  # ties only


def test_holm() -> None:
    assert oracle._holm({"a": 0.01, "b": 0.04, "c": 0.03}) == {
        "a": 0.03,
        "b": 0.06,
        "c": 0.06,
    }  # 3 * 0.01; 2 * 0.03; max(0.06, 1 * 0.04)
    assert oracle._holm({"a": 0.6, "b": 0.9}) == {"a": 1.0, "b": 1.0}


def test_the_interval_of_one_and_of_no_value() -> None:
    draws = oracle._Draws(seed=0)
    assert oracle._interval([0.5], draws) == (0.5, 0.5)
    assert oracle._interval([], draws) == (None, None)
    low, high = oracle._interval([0.0, 1.0] * 10, draws)
    assert low is not None and high is not None and 0.25 < low < 0.5 < high < 0.75


def _moves(**given: Any) -> Moves:
    base: dict[str, Any] = {
        "up": (), "down": (), "primary_up_by_p": False, "primary_up_by_interval": False,
        "primary_down_by_p": False, "primary_down_by_interval": False, "primary_still": True,
        "lean_better": False, "lean_worse": False,
    }  # fmt: skip
    return Moves(**(base | given))


@pytest.mark.parametrize(
    ("moves", "verdict"),
    [
        (_moves(up=("mrr",), primary_up_by_p=True, primary_still=False), "BETTER"),
        (_moves(up=("mrr",), primary_up_by_interval=True, primary_still=False), "PROMISING"),
        (_moves(lean_better=True), "PROMISING"),
        (_moves(up=("map",), lean_better=True), "PROMISING"),
        (_moves(down=("mrr",), primary_down_by_p=True, primary_still=False), "WORSE"),
        (
            _moves(down=("mrr",), primary_down_by_interval=True, primary_still=False),
            "LEANS WORSE",
        ),  # fmt: skip
        (_moves(lean_worse=True), "LEANS WORSE"),
        (
            _moves(up=("map",), down=("mrr",), primary_down_by_p=True, primary_still=False),
            "MIXED",
        ),  # fmt: skip
        (_moves(up=("map",)), "NO CLEAR CHANGE"),  # a secondary metric alone decides nothing
        (_moves(down=("map",), lean_better=True), "NO CLEAR CHANGE"),
        (_moves(up=("map",), lean_worse=True), "NO CLEAR CHANGE"),
        (_moves(), "NO CLEAR CHANGE"),
    ],
)
def test_the_verdict_table(moves: Moves, verdict: str) -> None:
    assert verdict_of(moves) == verdict


# -- independence -----------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def test_the_oracle_imports_none_of_the_builds_computation() -> None:
    forbidden = {
        "evidencedesk.results._verdicts",
        "evidencedesk.retrieval._metric_engine",
        "evidencedesk.retrieval._stats",
        "evidencedesk.results._recheck",
        "evidencedesk.results._compute",
        "evidencedesk.results._plan",  # the best lead, the verdict and gate counts
        "evidencedesk.report._assemble",  # the site model (`present`)
        "evidencedesk.report._exports",  # summary.md's writer
        "evidencedesk.report._words",  # the claims' words, the caveats' and notices' texts
        "evidencedesk.report._values",  # the pages' number formatting
        "evidencedesk.report._gate_view",  # the gate tables' cells
        "evidencedesk.results.since",  # what changed since an earlier report
        "evidencedesk.report._since_view",  # and its words
    }
    imported = _imports(ORACLE)
    assert "evidencedesk.retrieval.metrics._metric_value" in imported  # the readable kernels
    assert imported & forbidden == set()
    assert "decide_verdict" not in ORACLE.read_text("utf-8")
    # the audit holds summary.md to the oracle's lines, and every claim's words and every
    # marked number to the oracle's (`claim_words`, `number_text`), not to the build's site
    # model, words, number formatting, plan or gate tables
    audit_imports = _imports(ORACLE.parent / "_audit.py")
    assert (
        audit_imports
        & {
            "evidencedesk.report._exports",
            "evidencedesk.report._assemble",
            "evidencedesk.report._words",
            "evidencedesk.report._values",
            "evidencedesk.results._plan",
            "evidencedesk.report._gate_view",
            "evidencedesk.results.since",
            "evidencedesk.report._since_view",
        }
        == set()
    )


def test_the_since_words_are_the_builds() -> None:
    """The oracle restates the since page's words (`SINCE_GROUPS` …) instead of importing them;
    they must be the build's (this test may import the build): the summary when nothing
    changed, each count's words, and a verdict change in each of its forms (a clean since site
    holds the groups' titles and rules, `test_audit_plants`)."""
    from evidencedesk.report import _since_view as view

    assert oracle.SINCE_NONE == view._NO_CHANGES
    assert oracle.SINCE_SHOWN == view._SHOWN_ON_INDEX
    assert oracle.since_summary({"removed": 1, "pass": 2}) == (
        "1 question removed · 2 questions newly pass"
    )
    assert oracle.since_summary(
        {"verdicts": 1, "gates": 2, "candidates added": 1, "candidates removed": 3}
    ) == (
        "1 verdict changed · 2 gate levels changed (same verdicts) · 1 candidate added · "
        "3 candidates removed"
    )
    assert oracle.since_relevant_note(29, 27) == (
        "Questions with a relevant judgment (only they can pass): 29 → 27."
    )
    assert oracle.since_relevant_note(29, 27, "pipeline") == (
        "Questions with a relevant chunk in scope (only they can pass): 29 → 27."
    )
    for change in [(None, "BETTER", None, "GO"), ("WORSE", None, "BLOCK", None),
                   ("MIXED", "WORSE", "GO", "GO"), ("MIXED", "MIXED", "GO", "BLOCK"),
                   ("MIXED", "WORSE", "GO", "REVIEW")]:  # fmt: skip
        assert oracle.since_verdict(*change) == view._verdict(*change)


def test_the_restated_constants_are_the_documented_ones() -> None:
    """The oracle restates docs/statistics.md's numbers instead of importing them; they must be
    the numbers the build uses (this test may import the build)."""
    from evidencedesk.results import _verdicts as verdicts
    from evidencedesk.retrieval import _stats as stats

    assert oracle._LARGE == stats.LARGE == 3_000
    assert oracle._CELLS == stats.CELLS
    assert oracle._TIE == stats.TIE
    assert oracle._EXACT_SIGNS == stats.EXACT_RANDOMIZATION == 20
    assert oracle._RESAMPLES == stats.RANDOMIZATION_RESAMPLES == 10_000
    assert oracle._LEAN == verdicts.LEAN_P
    assert oracle._ALPHA == verdicts.ALPHA == stats.ALPHA
    from evidencedesk.results import _plan as plan

    # the question pages' rule (`oracle.page_rule`)
    assert (oracle._PAGE_LIMIT, oracle._PAGE_CAP) == (plan.PAGE_LIMIT, plan.PAGE_CAP) == (500, 1000)
    assert oracle._RUNS_ONLY_DEPTH == plan.RUNS_ONLY_DEPTH == 10


@pytest.mark.parametrize("n", [2, 15, 25, 400, 3_001])
def test_the_oracles_statistics_equal_the_builds_in_every_regime(n: int) -> None:
    """Exact sign patterns (up to 20 differences), seeded draws (up to 3,000), the large-sample
    limits above: the second implementation gives the build's numbers to 1e-9 (this test may
    import the build)."""
    import numpy as np

    from evidencedesk.retrieval import metrics

    rng = np.random.default_rng(n)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.random(n))}
    b = {q: v + float(d) for (q, v), d in zip(a.items(), rng.normal(0.05, 0.2, n), strict=True)}
    d = [b[q] - a[q] for q in a]
    ci = metrics._paired_bootstrap_ci(a, b, seed=7)
    low, high = oracle._interval(d, oracle._Draws(seed=7))
    assert low == pytest.approx(ci.low, abs=1e-9) and high == pytest.approx(ci.high, abs=1e-9)
    assert oracle._randomization_p(d, seed=7) == pytest.approx(
        metrics._randomization_test(a, b, seed=7), abs=1e-9
    )


# -- the gate's rule cells and the components' caveats, restated --------------------------------


def test_the_restated_caveats_are_the_builds() -> None:
    """The oracle's caveat texts are the build's (a new caveat, or a reworded one, is restated
    here too) and the rule that gives them agrees on the demo."""
    from evidencedesk.report._assemble import _CAVEAT_WORDS, _PIPELINE_CAVEATS
    from evidencedesk.retrieval import minilm

    built = {k: (v, _CAVEAT_WORDS[k]) for k, v in _PIPELINE_CAVEATS.items() if k != "minilm"}
    for roles in (["searcher"], ["reranker"], ["searcher", "reranker"]):  # what the model ran as
        built[f"minilm {' and '.join(roles)}"] = (minilm._caveat(roles), _CAVEAT_WORDS["minilm"])
    assert built == oracle.COMPONENT_CAVEATS


def test_the_demo_gives_its_caveats(demo_site: Path) -> None:
    texts, words = oracle.caveats_given(load(demo_site / "results.json"))
    assert words == {"the dense searcher is a toy", "MiniLM is a bi-encoder, not a cross-encoder",
                     "the rerankers are lexical stand-ins", "tuned on these labels"}  # fmt: skip
    # the model ran as the "dense: MiniLM" candidate's searcher only
    assert texts == {text for key, (text, _) in oracle.COMPONENT_CAVEATS.items()
                     if key in ("dense", "minilm searcher", "rerankers", "tuning")}  # fmt: skip


def test_a_wrong_build_formatter_is_caught(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A build whose gate tables printed a rule's margin without its sign: the audit holds the
    cells to the oracle's reading of docs/gate.md, not to the build's formatter, and names
    each."""
    from evidencedesk.report import _gate_view

    signed = _gate_view._margin
    monkeypatch.setattr(_gate_view, "_margin", lambda r: signed(r).removeprefix("+"))
    toml, _ = generated(tmp_path / "project", 1)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(tmp_path / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    lines = [d.line() for d in audit(tmp_path / "site")[0]]
    assert lines[0] == ("gate.html: '0.625': results.json says '+0.625' (margin of "
                        "candidates[0].gate.rules[1])")  # fmt: skip
    assert all(" (margin of candidates[" in line for line in lines), lines


def test_a_flips_cell_without_its_wins_is_caught(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A build whose gate tables gave the flips rule's losses without its wins (the cell as it
    was): the oracle's reading of the rule ("worse for N, better for M") names each cell."""
    from evidencedesk.report import _gate_view

    whole = _gate_view._observed
    monkeypatch.setattr(_gate_view, "_observed", lambda r: whole(r).split(", better for")[0])
    toml, _ = generated(tmp_path / "project", 1)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(tmp_path / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    lines = [d.line() for d in audit(tmp_path / "site")[0]]
    assert lines and all("worse for" in line for line in lines), lines
    cells = [line for line in lines if not line.startswith("summary.md: ")]
    said = re.compile(
        r"(gate|candidate-[^:]*)\.html: 'worse for \d+': results\.json says 'worse "
        r"for \d+, better for \d+' \(observed of candidates\[\d+\]\.gate\.rules\[5\]\)"
    )
    assert cells and all(said.fullmatch(line) for line in cells), cells
    # summary.md's failing rules print the same cell, held to results.json as well
    assert len(lines) > len(cells)


# -- the claims' words, restated ----------------------------------------------------------------


def test_the_restated_words_are_the_builds_on_every_claim(
    sites: dict[str, Path], split_site: Path, hostile_site: Path,  # noqa: F811
    example_site: Callable[[str], Path], generated_site: Callable[[int], Path],
) -> None:  # fmt: skip
    """The oracle's words (`claim_words`, from results.json alone) are the build's for every
    claim of every site shape: the demo, a tagless runs-only project, a split site, hostile
    names, both examples and the generated shapes (this test may import the build)."""
    from evidencedesk.report._words import derive

    every = [*sites.values(), split_site, hostile_site, example_site("pipeline"),
             example_site("runs-only"), *(generated_site(s) for s in range(10))]  # fmt: skip
    kinds: set[str] = set()
    for site in every:
        results = load(site / "results.json")
        for rows in json.loads((site / "claims.json").read_text("utf-8")).values():
            for row in rows:
                kind, source, args = (*row, {})[:3]
                assert oracle.claim_words(results, kind, source, args) == derive(
                    results, kind, source, args
                ), (site, kind, source)
                kinds.add(kind)
    assert kinds == set(oracle.CLAIM_WORDS)  # every kind said somewhere


def test_the_restated_rules_and_steps_are_the_builds() -> None:
    from evidencedesk.report import _values, _words  # this test may import the build
    from evidencedesk.results import _verdicts

    assert {k: f() for k, f in _words.RULES.items()} == oracle._RULE_WORDS
    assert (oracle._DELTA_STEPS, oracle._FLIP_STEPS) == (_values.DELTA_STEPS, _values.FLIP_STEPS)
    assert (oracle._NO_POLICY, oracle._IDS_SHOWN) == (_words._NO_POLICY, _words.INLINE_IDS)
    assert oracle._UNJUDGED_GAP == _verdicts.UNJUDGED_GAP


def test_wrong_words_in_the_build_are_caught(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A build whose words were wrong -- a verdict's words, a Δ's, the p-value of another test,
    the question counts -- shows them on its pages: the audit holds every claim to the
    oracle's own words (`claim_words`), not to the build's, and names each with its line."""
    from evidencedesk.report import _words

    counts = _words.counts_sentence
    monkeypatch.setitem(_words._PREFIX, "BETTER", "Proven better")
    monkeypatch.setitem(_words.KINDS, "delta", lambda r, s: _words.delta(r, s).replace("Δ", "Δ ≈"))
    monkeypatch.setitem(_words.KINDS, "p", lambda r, s, which="": _words._p_value(r, s, "sign_p"))
    monkeypatch.setattr(_words, "counts_sentence", lambda c, a="defined": counts(c, a).replace(
        " judged,", " judged questions,", 1))  # fmt: skip
    toml, _ = generated(tmp_path / "project", 1)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(tmp_path / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    lines = [d.line() for d in audit(tmp_path / "site")[0]]
    head = ("nDCG@10 (linear gain) better (+0.157 [+0.090, +0.225], +25/−8 questions, "
            "Holm-adjusted randomization p = 0.001); also better by its interval: MRR; also "
            "better: R@10.")  # fmt: skip
    counted = ("40 questions: 38 judged{}, 34 with a relevant judgment (grade ≥ 1); 2 without "
               "any judgment are left out")  # fmt: skip
    for line in [
        f"candidate-cand02.html: 'Proven better: {head}': results.json says 'Better: {head}' "
        "(claim 4 of candidate-cand02.html: headline of candidates[1])",
        "candidate-cand02.html: 'Δ ≈ nDCG@10 (linear gain) +0.157 [+0.090, +0.225]': "
        "results.json says 'Δ nDCG@10 (linear gain) +0.157 [+0.090, +0.225]' (claim 14 of "
        "candidate-cand02.html: delta of candidates[1].comparisons[3])",
        "candidate-cand02.html: '0.005': results.json says '< 0.001' (claim 1 of "
        "candidate-cand02.html: p of candidates[1].comparisons[3])",
        f"candidate-cand01.html: '{counted.format(' questions')}': results.json says "
        f"'{counted.format('')}' (claim 19 of candidate-cand06.html: counts of inputs.counts)",
    ]:
        assert line in lines
    # one headline, a Δ on each of 8 candidate pages, 12 p-values, each counts sentence twice
    assert len(lines) == 1 + 8 + 12 + 19, lines


# -- summary.md and the label caveat, restated ------------------------------------------------


def test_the_restated_summary_is_the_sites_on_every_shape(
    sites: dict[str, Path], split_site: Path, hostile_site: Path,  # noqa: F811
    example_site: Callable[[str], Path], generated_site: Callable[[int], Path],
) -> None:  # fmt: skip
    """The oracle's summary.md (`summary_lines`, from results.json alone) is the one the build
    wrote: the demo, a tagless runs-only project, a split site, hostile names, both examples and
    the generated shapes."""
    every = [*sites.values(), split_site, hostile_site, example_site("pipeline"),
             example_site("runs-only"), *(generated_site(s) for s in range(10))]  # fmt: skip
    for site in every:
        written = (site / "summary.md").read_text("utf-8").splitlines()
        assert oracle.summary_lines(load(site / "results.json")) == written, site


@pytest.mark.parametrize("kind", _NOTICES)
@pytest.mark.parametrize("project", ["runs", "pipeline"])
def test_the_restated_notices_are_the_builds(kind: str, project: str) -> None:
    from evidencedesk.report._words import notice_text  # this test may import the build

    for count, total, line, names in ((1, 12, None, ("q1",)), (3, 12, 7, ("q1", "q2")),
                                      (2, 12, None, ()), (1, 1, None, ("q1",))):  # fmt: skip
        n = Notice(kind, "runs/x.run", line, count, total, names)
        assert oracle._notice(n, project) == notice_text(n, project)


def test_a_summary_line_the_results_do_not_give_is_named(demo_site: Path, tmp_path: Path) -> None:
    # the best lead is the oracle's own pick (the largest lower bound among those ahead), and
    # the caveat its own rule's: neither read from the build's model
    site = planted(demo_site, tmp_path / "site", (
        "summary.md: **Best lead:** `rerank overlap` => **Best lead:** `rerank feature`",
        "summary.md: - `final 5`: Depth: final 5 returns up to 5 => - `depth 3`: Caveat: its top "
        "3 holds 9 % unjudged documents against 0 % for the baseline; unjudged count as not "
        "relevant, so this comparison can understate it. Depth: final 5 returns up to 5"))  # fmt: skip
    assert [d.line() for d in audit(site)[0]] == [
        "summary.md: '**Best lead:** `rerank feature`, Δ MRR +0.056 \\\\[+0.000, +0.135\\\\] over 21 "
        "questions (NO CLEAR CHANGE)': results.json says **Best lead:** `rerank overlap`, Δ MRR "
        "+0.056 \\[+0.000, +0.135\\] over 21 questions (NO CLEAR CHANGE)",
        "summary.md: '- `depth 3`: Caveat: its top 3 holds 9 % unjudged documents against 0 % for "
        "the baseline; unjudged count as not relevant, so this comparison can understate it. "
        "Depth: final 5 returns up to 5 results a question, the baseline hybrid up to 3; MRR and "
        "nDCG\\\\@5 (exp gain) read past 3, so part of the difference is how far each list goes.': "
        "results.json says - `final 5`: Depth: final 5 returns up to 5 results a question, the "
        "baseline hybrid up to 3; MRR and nDCG\\@5 (exp gain) read past 3, so part of the "
        "difference is how far each list goes.",
    ]


def test_the_per_question_values_are_read_whatever_the_length_of_a_cell(tmp_path: Path) -> None:
    # a 200 KB query id: over the csv module's default cell limit (128 KB), which ended the
    # audit of such a site in an internal error
    long_id = "Q" * 200_000
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "per-question.csv").write_text(
        f"question,variant,mrr,first_relevant_rank,tags\nq1,a,0.5,2,\n{long_id},a,1.0,1,short\n"
    )
    before = csv.field_size_limit()
    values, tags = oracle._csv(tmp_path, ["mrr"])
    assert values["a"]["mrr"] == {"q1": 0.5, long_id: 1.0}
    assert values["a"]["first_relevant_rank"] == {"q1": 2.0, long_id: 1.0}
    assert tags["a", long_id] == ("short",)
    assert csv.field_size_limit() == before  # the process's limit put back
