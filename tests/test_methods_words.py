"""Sentences of the methods, benchmark and question pages that depend on the project: true under
either averaging, whatever the coverage rule does, and naming how an interval was computed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._exports import benchmark_text
from evidencedesk.retrieval import _stats as stats
from tests.page_text import visible
from tests.synthetic_runs import write_project


def _site(tmp_path: Path, averaging: str) -> Path:
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0}, "q3": {"d3": 1}}  # q2: judged, none relevant
    base = {"q1": ["d1"], "q2": ["d2"], "q3": ["x", "d3"]}
    project = write_project(tmp_path / averaging, qrels, {"base": base, "cand": base},
                            relevance=1, report=f'averaging = "{averaging}"')  # fmt: skip
    out = tmp_path / f"site-{averaging}"
    evidencedesk.build(project=project, out=out)
    return out


def _text(site: Path, page: str) -> str:
    return visible((site / page).read_text("utf-8"), unescape=True)


@pytest.mark.parametrize(
    ("averaging", "question", "undefined"),
    [
        (
            "defined",
            "(no relevant judgment): its metrics are undefined and left out of the means.",
            "Undefined ≠ 0 a question with no relevant document (no relevant judgment) has no value "
            "of any metric: it is left out of the mean, and every table says how many were left "
            "out.",
        ),
        (
            "trec_eval",
            "(no relevant judgment): it counts 0 in the means, as trec_eval averages it "
            '([report] averaging = "trec_eval").',
            "Undefined ≠ 0 a question with no relevant document (no relevant judgment) has no value "
            "of any metric: by default it is left out of the mean; with [report] averaging = "
            '"trec_eval" , as here, it counts 0 in the means, as trec_eval averages it: the '
            "benchmark, the candidates and the slices leave it out of no mean; the gate's means "
            "read only the questions with a relevant judgment.",
        ),
    ],
)
def test_a_question_without_a_relevant_judgment_is_described_as_the_means_count_it(
    tmp_path: Path, averaging: str, question: str, undefined: str
) -> None:
    site = _site(tmp_path, averaging)
    assert question in _text(site, "question-q2.html")
    assert undefined in _text(site, "methods.html")


def test_the_methods_page_says_a_run_below_min_coverage_is_refused(tmp_path: Path) -> None:
    assert (
        "is refused with examples from both sides and the rewrite that would make them match, "
        "and so is one whose top documents hold, beyond the share [runs] min_coverage leaves, "
        "judged ids written another way (the rewrites tried: case, zeros, a prefix or suffix, a "
        "separator, a Unicode form); one that answers fewer than [runs] min_coverage of the "
        "judged queries is refused too, "
        "with the value that would let it through; a run a lowered [runs] min_coverage lets "
        "through carries a warning wherever it is used (the judged queries it does not answer "
        "count as empty lists)."
    ) in _text(_site(tmp_path, "defined"), "methods.html")


def test_a_small_project_says_its_intervals_are_resampled(tmp_path: Path) -> None:
    site = _site(tmp_path, "defined")
    assert "intervals are 95 % percentile bootstraps over questions (seed 0)." in _text(
        site, "benchmark.html"
    )
    methods = _text(site, "methods.html")
    assert "Cornish–Fisher" not in methods and "(as here)" not in methods
    assert (
        "the mean per-question difference against the means of random sign swaps of it: "
        "exactly, from seeded patterns or by its normal limit, by the number of changed "
        "questions ( below )."
    ) in methods


def test_a_large_project_names_the_expansion_its_intervals_are_read_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above `stats.LARGE` values (lowered here to 1) an interval is read off the bootstrap
    distribution's expansion: the benchmark page and the terminal's table say so; the methods
    page no longer says the randomization p is read off its normal limit on that count (that
    test goes by the changed questions, none here)."""
    monkeypatch.setattr(stats, "LARGE", 1)
    from evidencedesk.report import _assemble, _exports
    from evidencedesk.results import _plan

    for module in (_assemble, _exports, _plan):
        monkeypatch.setattr(module, "LARGE", 1)
    site = _site(tmp_path, "defined")
    assert (
        "intervals are 95 % percentile bootstraps over questions (seed 0; above 1 questions, as "
        "here, read off the bootstrap distribution's Cornish–Fisher expansion: methods )."
    ) in _text(site, "benchmark.html")
    assert (
        "Above 1 questions (as here) the interval is read off the bootstrap distribution's "
        "Cornish–Fisher expansion (mean, spread and skewness of the values) instead of "
        "resampling:"
    ) in _text(site, "methods.html")
    results = evidencedesk.load_results(site / "results.json")
    assert results.plan.expanded
    assert (
        "interval: percentile bootstrap (above 1 questions, as here, read off its Cornish-Fisher "
        "expansion) over questions;"
    ) in benchmark_text(results)


@pytest.mark.parametrize(
    ("max_depth", "described", "methods"),
    [
        (None, "TREC run (tag 'base'), judged at its full depth", None),
        (
            1,
            "TREC run (tag 'base'), judged at its top 1 ([runs] max_depth)",
            "Each run is cut to its top 1 result per question before it is judged ( [runs] "
            "max_depth , as trec_eval -M 1 ).",
        ),
    ],
)
def test_a_depth_limit_is_said_where_the_runs_are_described(
    tmp_path: Path, max_depth: int | None, described: str, methods: str | None
) -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    base = {"q1": ["d1"], "q2": ["x", "d2"]}  # q2's relevant document is below a depth of 1
    toml = write_project(tmp_path / "p", qrels, {"base": base, "cand": base}, relevance=1)
    if max_depth is not None:
        toml.write_text(toml.read_text("utf-8").replace(
            '[runs]\n', f"[runs]\nmax_depth = {max_depth}\n"), "utf-8")  # fmt: skip
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    assert results.variant("base").description == described
    mrr = next(m for m in results.variant("base").metrics if m.metric == "mrr")
    assert mrr.mean == (0.5 if max_depth == 1 else 0.75)  # (1 + 0) / 2 cut, (1 + 1/2) / 2 not
    text = _text(tmp_path / "site", "methods.html")
    assert (methods in text) if methods else ("max_depth" not in text)


def test_condensed_lists_that_do_not_move_are_not_said_to_move(tmp_path: Path) -> None:
    """q1's relevant document drops from 1 to 2 under the candidate, behind an unjudged one: on
    full lists MRR falls by 0.5 / 6 (one question of six; its interval reaches 0 and the exact
    randomization p is 1), on condensed lists (the unjudged removed) nothing changes: neither
    moved, and the page says so instead of "it moves as on the full lists"."""
    qids = [f"q{i}" for i in range(1, 7)]
    qrels = {q: {f"rel-{q}": 1} for q in qids}
    base = {q: [f"rel-{q}", "x", "y"] for q in qids}
    cand = {**base, "q1": ["x", "rel-q1", "y"]}
    toml = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1,
                         report='metrics = ["mrr"]')  # fmt: skip
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    full, condensed = results.candidates[0].comparison("mrr"), results.candidates[0].condensed
    assert condensed is not None and condensed.delta == 0.0
    assert full.delta == pytest.approx(-0.5 / 6) and full.high == 0.0
    assert (
        "On condensed lists (each list's unjudged results removed before scoring), Δ MRR = +0.000 "
        "[+0.000, +0.000] over 6 questions: it does not move, nor does it on the full lists, so "
        "the verdict holds where the judgments reach"
    ) in _text(tmp_path / "site", "candidate-cand.html")


def test_a_best_lead_that_lost_another_reported_metric_says_which(tmp_path: Path) -> None:
    """On every question the candidate puts the first relevant document first (MRR 1/3 -> 1)
    and drops the second (R@100 1 -> 1/2): MIXED, and the best lead on MRR names R@100."""
    from evidencedesk.report import _oracle as oracle
    from evidencedesk.report import _words as words

    qids = [f"q{i:02d}" for i in range(12)]
    qrels = {q: {f"a-{q}": 1, f"b-{q}": 1} for q in qids}
    base = {q: ["x", "y", f"a-{q}", "z", f"b-{q}"] for q in qids}
    cand = {q: [f"a-{q}", "x", "y"] for q in qids}
    toml = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand}, relevance=1,
                         report='metrics = ["mrr", "recall@100"]')  # fmt: skip
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    assert results.candidates[0].decision.verdict == "MIXED"
    expected = ("Best lead: cand, Δ MRR +0.667 [+0.667, +0.667] over 12 questions (mixed; worse: "
                "R@100)")  # fmt: skip
    assert words.lead(results, "") == expected
    assert oracle._lead_words(results, "") == expected
    assert f"{expected}." in _text(tmp_path / "site", "index.html")


def test_a_best_lead_tied_with_another_names_it(tmp_path: Path) -> None:
    """Two runs return the same lists, each putting the relevant document first where the
    baseline puts it second (MRR 1/2 -> 1 on all 8 questions): the same difference and
    interval, so the name chooses the lead ("alpha" before "beta") and every place that names
    the lead says whom it ties; a third, smaller gain is no tie."""
    from evidencedesk.report import _audit, _oracle
    from evidencedesk.report import _words as words

    qids = [f"q{i}" for i in range(8)]
    qrels = {q: {f"rel-{q}": 1} for q in qids}
    base = {q: ["x", f"rel-{q}"] for q in qids}
    better = {q: [f"rel-{q}", "x"] for q in qids}
    once = {**base, "q0": ["rel-q0", "x"]}
    runs = {"base": base, "beta": better, "alpha": better, "gamma": once}
    toml = write_project(tmp_path / "p", qrels, runs, relevance=1, report='metrics = ["mrr"]')
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    expected = ("Best lead: alpha, tied with beta, Δ MRR +0.500 [+0.500, +0.500] over 8 "
                "questions (better)")  # fmt: skip
    assert words.lead(results, "") == expected
    assert _oracle._lead_words(results, "") == expected
    index = _text(tmp_path / "site", "index.html")
    assert f"{expected}." in index
    assert "Best lead alpha , tied with beta Δ MRR +0.500 [+0.500, +0.500] n=8" in index  # the tile
    summary = (tmp_path / "site" / "summary.md").read_text("utf-8")
    assert (
        "**Best lead:** `alpha`, tied with beta, Δ MRR +0.500 \\[+0.500, +0.500\\] over 8 "
        "questions (BETTER)\n"
    ) in summary
    found, _, _ = _audit.audit(tmp_path / "site")
    assert found == []


@pytest.mark.parametrize("policy", [None, {"k": 3}])
def test_the_summary_points_to_the_gate_page_only_when_one_is_written(
    tmp_path: Path, policy: dict[str, object] | None
) -> None:
    from evidencedesk.report import _oracle as oracle

    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    runs = {"base": {"q1": ["d1"], "q2": ["x", "d2"]}, "cand": {"q1": ["d1"], "q2": ["d2"]}}
    toml = write_project(tmp_path / "p", qrels, runs, relevance=1, policy=policy)
    results = evidencedesk.build(project=toml, out=tmp_path / "site")
    gate = ", the gate its rules on `gate.html`" if policy else ""
    last = (
        "The static site this file sits in: open `index.html` (it works offline); each candidate "
        f"has its page{gate}. Seed 0, inputs `{results.inputs.input_hash[:12]}`."
    )
    assert (tmp_path / "site" / "summary.md").read_text("utf-8").endswith(f"{last}\n")
    assert oracle.summary_lines(results)[-1] == last
    assert (tmp_path / "site" / "gate.html").is_file() == bool(policy)


def test_a_pipeline_project_says_its_judgments_are_the_chunks_in_scope(demo_site: Path) -> None:
    """In a pipeline project (the demo) R and the ideal lists count only the chunks a question's
    scope admits, and the pages say "in scope" where they say what decides."""
    methods = _text(demo_site, "methods.html")
    assert (
        "Here the judgments are the labels of the chunks in scope: R and each ideal list count a "
        "relevant chunk only when the question's scope admits it (a restricted or superseded "
        "chunk counts in neither), and a question whose relevant chunks are all out of scope "
        "scores as one with nothing relevant (below)."
    ) in methods
    index = _text(demo_site, "index.html")
    assert "decide: those with a relevant chunk in scope" in index
    assert ("21 questions with a relevant chunk in scope decide every comparison: a one- or "
            "two-question difference is noise.") in index  # fmt: skip
    assert "Dot = mean reciprocal rank over the questions with a relevant chunk in scope;" in index
    terminal = " ".join(
        benchmark_text(evidencedesk.load_results(demo_site / "results.json")).split()
    )
    assert ("the judgments grade at all, over the questions with a relevant chunk in scope that "
            "the run answers;") in terminal  # fmt: skip
    assert "Means leave out questions where a metric is undefined (no relevant chunk in scope)" in (
        _text(demo_site, "benchmark.html")
    )


EXCEPTED = (
    "the per-question CSV, the TREC runs and the qrels let any trec_eval-style tool recompute "
    "them, Judged@k excepted: the labels file grades every chunk (a missing grade is 0), the "
    "qrels list the grades it gives, and such a tool takes an unlisted chunk as unjudged, which "
    "only Judged@k tells from a 0."
)


def test_only_a_labels_file_makes_judged_at_k_the_exports_exception(
    demo_site: Path, example_site: Callable[[str], Path], tmp_path: Path
) -> None:
    """The demo's labels grade every chunk; its qrels export lists the labelled ones (Judged@3
    of hybrid: 1.000 here, lower for a tool reading them). The demo reports no bpref, so the
    sentence names Judged@k alone. BEIR qrels, in a pipeline project or a runs-only one, are
    exported as read: every number recomputes."""
    assert EXCEPTED in _text(demo_site, "methods.html")
    assert "bpref" not in _text(demo_site, "methods.html")
    assert "Judged@3 of hybrid: 1.000 [1.000, 1.000]" in _text(demo_site, "index.html")
    for site in (example_site("pipeline"), _site(tmp_path, "defined")):
        methods = _text(site, "methods.html")
        assert EXCEPTED not in methods
        assert "let any trec_eval-style tool recompute them." in methods


@pytest.mark.parametrize(
    ("kind", "questions_from", "metrics", "exception"),
    [
        ("pipeline", "labels", ("mrr", "recall@3"), ", Judged@k excepted: the labels file grades "
         "every chunk (a missing grade is 0), the qrels list the grades it gives, and such a tool "
         "takes an unlisted chunk as unjudged, which only Judged@k tells from a 0"),
        ("pipeline", "labels", ("map", "bpref"), ", Judged@k and bpref excepted: the labels file "
         "grades every chunk (a missing grade is 0), the qrels list the grades it gives, and such "
         "a tool takes an unlisted chunk as unjudged, which only those two tell from a 0"),
        ("pipeline", "qrels", ("map", "bpref"), ""),  # BEIR qrels: exported as read
        ("runs", "qrels", ("map", "bpref"), ""),
    ],
)  # fmt: skip
def test_the_exports_exception_names_what_tells_unjudged_from_0(
    kind: str, questions_from: str, metrics: tuple[str, ...], exception: str
) -> None:
    from evidencedesk.report._words import exports_exception
    from evidencedesk.results._settings import _PIPELINE_COLUMNS, Settings, reported

    settings = Settings(seed=0, relevance=2, kind=kind, columns=_PIPELINE_COLUMNS,  # type: ignore[arg-type]
                        compared=reported(metrics, None), flips_metric=metrics[0], design=None,
                        questions_from=questions_from)  # type: ignore[arg-type]  # fmt: skip
    assert exports_exception(settings) == exception


PAST_FINAL = ("The variants' final lists hold 3 results (a candidate's final changes its own): "
              "{} those 3 and no further.")  # fmt: skip


def test_a_cut_off_past_the_final_lists_is_said(tmp_path: Path, demo_site: Path) -> None:
    """A pipeline's variants return final lists of 3: the demo's nDCG@5 reads those 3, and a
    project reporting R@5 and MRR@10 reads them too; R@3 and a runs-only project's metrics read
    what they name."""
    assert PAST_FINAL.format("nDCG@5 (exp gain) reads") in _text(demo_site, "methods.html")
    assert "final lists hold" not in _text(_site(tmp_path, "defined"), "methods.html")
    from evidencedesk.results._settings import _PIPELINE_COLUMNS, Settings, reported

    settings = Settings(seed=0, relevance=1, kind="pipeline", columns=_PIPELINE_COLUMNS,
                        compared=reported(("recall@5", "recall@3", "mrr@10", "map"), None),
                        flips_metric="recall@5", design=None)  # fmt: skip
    assert [m.label for m in settings.past_final] == ["R@5", "MRR@10 (cut at 10)"]
    from evidencedesk.report._words import past_final

    assert past_final([m.label for m in settings.past_final], 3) == PAST_FINAL.format(
        "R@5 and MRR@10 (cut at 10) read"
    )
    assert past_final([], 3) == ""
    assert past_final(["R@3"], 1) == ("The variants' final lists hold 1 result (a candidate's "
                                      "final changes its own): R@3 reads that one and no further.")  # fmt: skip


def test_a_partial_run_is_warned_about_in_the_terminal_too(tmp_path: Path) -> None:
    """A run a lowered [runs] min_coverage lets through (it answers 2 of the 3 judged queries)
    carries its warning in `build`'s output and in the benchmark table, as on its pages; its
    Judged@k is over the questions it answers, and the table says so."""
    import io

    from evidencedesk import cli

    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    runs = {"base": {"q1": ["d1"], "q2": ["d2"], "q3": ["d3"]},
            "part": {"q1": ["d1"], "q2": ["x", "d2"]}}  # fmt: skip
    toml = write_project(tmp_path / "p", qrels, runs, relevance=1)
    toml.write_text(toml.read_text("utf-8").replace("[runs]\n", "[runs]\nmin_coverage = 0.5\n"),
                    "utf-8")  # fmt: skip
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(tmp_path / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0
    warning = ("Partial coverage: the run part answers 2 of the 3 judged queries (67 %); the "
               "others count as empty lists.")  # fmt: skip
    assert f"warning: {warning}\n" in err.getvalue()
    results = evidencedesk.load_results(tmp_path / "site" / "results.json")
    text = benchmark_text(results)
    assert f"warning: {warning}" in text.splitlines()
    assert ("the judgments grade at all, over the questions with a relevant judgment that the "
            "run answers;") in " ".join(text.split())  # fmt: skip
    part = next(v for v in results.variants if v.name == "part")
    assert part.judged is not None and part.judged.n == 2  # q3: an empty list, no top to judge


@pytest.mark.parametrize(
    ("long_runs", "phrase"),
    [
        ((), "the per-question CSV, the TREC runs and the qrels let"),
        (
            ("cand",),
            "the per-question CSV, the qrels, the TREC runs under data/runs/ and, for cand, the "
            "project's own TREC run files (listed with their sha256 under Reproduce; not "
            "repeated here) let",
        ),
        (
            ("base", "cand"),
            "the per-question CSV, the qrels and the project's own TREC run files (listed with "
            "their sha256 under Reproduce; not repeated here) let",
        ),
    ],
)
def test_the_methods_page_names_the_files_the_numbers_recompute_from(
    tmp_path: Path, long_runs: tuple[str, ...], phrase: str
) -> None:
    """A runs-only run longer than a question page's 20 results is not copied under
    data/runs/: the sentence sends a reader to the project's own file instead."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    short = {"q1": ["d1"], "q2": ["x", "d2"]}
    deep = {q: ids + [f"n{i}" for i in range(25)] for q, ids in short.items()}
    runs = {name: deep if name in long_runs else short for name in ("base", "cand")}
    project = write_project(tmp_path / "p", qrels, runs, relevance=1)
    out = tmp_path / "site"
    evidencedesk.build(project=project, out=out)
    assert phrase in _text(out, "methods.html")
    exported = sorted(p.name for p in (out / "data" / "runs").glob("*.run"))
    assert exported == sorted(f"{n}.run" for n in ("base", "cand") if n not in long_runs)
