"""Issue 37's statement classes, each on a generated project that is not the demo: a runs-only
project whose judgments are binary and sparse, with no tags and no gate policy."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.results.types import Comparison


def _project(root: Path, answered: int, judged: int) -> Path:
    """`judged` queries with one relevant document each (binary, sparse); two runs answering the
    first `answered` of them, the candidate better on q1."""
    root.mkdir()
    (root / "qrels.txt").write_text(
        "".join(f"q{i} 0 d{i} 1\nq{i} 0 x{i} 0\n" for i in range(1, judged + 1)), "utf-8"
    )
    runs = root / "runs"
    runs.mkdir()
    for name, first in (("base", "x"), ("cand", "d")):
        lines = []
        for i in range(1, answered + 1):
            top = first if i == 1 else "d"
            other = "x" if top == "d" else "d"
            lines += [f"q{i} Q0 {top}{i} 1 2.0 {name}", f"q{i} Q0 {other}{i} 2 1.0 {name}"]
        (runs / f"{name}.run").write_text("\n".join(lines) + "\n", "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "sparse"\n[questions]\nqrels = "qrels.txt"\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\nmin_coverage = 0.5\n'
        '[report]\nmetrics = ["map", "mrr"]\n',
        "utf-8",
    )
    return root


def _build(project: Path, out: Path) -> str:
    err = io.StringIO()
    argv = ["build", "--project", str(project), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return html.unescape(re.sub(r"<[^>]+>", "", (out / "index.html").read_text("utf-8")))


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def test_n_decide_counts_only_the_questions_a_run_answers(tmp_path: Path) -> None:
    """Class 5: "702 questions … decide every comparison" where 652 were answered by no run."""
    index = _squeezed(_build(_project(tmp_path / "p", answered=4, judged=6), tmp_path / "site"))
    assert "6 questions 4 decide" in index
    assert "decide: those with a relevant judgment that a run answers (2 no run answers)" in index
    assert ("4 of the 6 questions with a relevant judgment decide the comparisons: 2 are "
            "answered by no run (q5, q6), a tie in every comparison; a one- or two-question "
            "difference is noise.") in index  # fmt: skip


def test_when_every_question_is_answered_all_of_them_decide(tmp_path: Path) -> None:
    index = _squeezed(_build(_project(tmp_path / "p", answered=6, judged=6), tmp_path / "site"))
    assert "6 questions 6 decide" in index
    assert "no run answers" not in index
    assert ("6 questions with a relevant judgment decide every comparison: a one- or "
            "two-question difference is noise.") in index  # fmt: skip


# -- class 4: "not proven" is never said of a Holm-significant metric --------------------------


def _headline_of(verdict: str, primary: Comparison, others: tuple[Comparison, ...]) -> str:
    from dataclasses import replace

    from evidencedesk.report._words import headline
    from evidencedesk.results._verdicts import Decision
    from tests.test_bottom_line import candidate, results

    cand = candidate("c", Decision(verdict, "mrr", (), (), ()), primary)
    cand = replace(cand, comparisons=(primary, *others))
    return headline(results(cand), "candidates[0]")


def _cmp(metric: str, delta: float, low: float, high: float, holm_p: float) -> Comparison:
    from tests.test_bottom_line import comparison

    better, worse = (6, 1) if delta > 0 else (1, 6)
    return comparison(metric, delta, low, high, better, worse, 0.125, holm_p)


@pytest.mark.parametrize(
    ("verdict", "primary", "others", "expected"),
    [
        # the primary up by its interval only, two reported metrics up after Holm
        ("PROMISING", _cmp("mrr", 0.05, 0.01, 0.12, 0.25),
         (_cmp("recall@3", 0.1, 0.04, 0.16, 0.005), _cmp("ndcg@5", 0.08, 0.02, 0.14, 0.028)),
         "Promising — MRR not proven, R@3 and nDCG@5 (exp gain) better after Holm: MRR better "
         "by its interval (+0.050 [+0.010, +0.120], +6/−1 questions), not significant after Holm "
         "(randomization p = 0.250); also better: R@3 and nDCG@5 (exp gain)."),
        # one reported metric down after Holm beside a primary that leans worse
        ("LEANS WORSE", _cmp("mrr", -0.05, -0.12, -0.01, 0.25),
         (_cmp("recall@3", -0.1, -0.16, -0.04, 0.004),),
         "Leans worse — MRR not proven, R@3 worse after Holm: MRR worse by its interval "
         "(−0.050 [−0.120, −0.010], +1/−6 questions), not significant after Holm "
         "(randomization p = 0.250); also worse: R@3."),
        # nothing else proven: the verdict's own words stand
        ("PROMISING", _cmp("mrr", 0.05, 0.01, 0.12, 0.25),
         (_cmp("recall@3", 0.1, 0.04, 0.16, 0.3),),
         "Promising, not proven: MRR better by its interval (+0.050 [+0.010, +0.120], +6/−1 "
         "questions), not significant after Holm (randomization p = 0.250); also better by its "
         "interval: R@3."),
    ],
)  # fmt: skip
def test_unproven_verdicts_say_per_metric_which_moved(
    verdict: str, primary: Comparison, others: tuple[Comparison, ...], expected: str
) -> None:
    assert _headline_of(verdict, primary, others) == expected


# -- class 10: a runs-only site shows no pipeline-only element -----------------------------------


def test_a_runs_only_site_shows_no_pipeline_leftovers(tmp_path: Path) -> None:
    index = _squeezed(_build(_project(tmp_path / "p", answered=6, judged=6), tmp_path / "site"))
    benchmark = _squeezed(html.unescape(re.sub(r"<[^>]+>", " ", (tmp_path / "site" /
                                                               "benchmark.html").read_text("utf-8"))))  # fmt: skip
    assert "· 2 runs · 1 compared with the baseline ·" in index
    for text in (index, benchmark):
        assert "external run" not in text and "Kind" not in text
        assert "Pairs / question" not in text and "Cost vs baseline" not in text
        assert "candidate changes" not in text
    assert "Runs on the labelled questions" in benchmark
    candidate = (tmp_path / "site" / "candidate-cand.html").read_text("utf-8")
    assert "scored pairs" not in candidate and 'id="cost"' not in candidate  # no table of dashes
    assert "Cost: not measured (a TREC run's pairs, tokens and latency are not known)" in (
        html.unescape(candidate)
    )


@pytest.mark.parametrize(
    ("runs", "max_depth", "compared", "cut"),
    [
        (("base",), 1, "· 1 run · 0 compared with the baseline ·", "its top 1 result per question"),
        (("base", "cand"), 2, "· 2 runs · 1 compared with the baseline ·",
         "its top 2 results per question"),
    ],
)  # fmt: skip
def test_a_count_of_one_takes_the_singular_and_the_audit_reads_it(
    tmp_path: Path, runs: tuple[str, ...], max_depth: int, compared: str, cut: str
) -> None:
    project = _project(tmp_path / "p", answered=6, judged=6)
    for extra in {"base", "cand"} - set(runs):
        (project / "runs" / f"{extra}.run").unlink()
    toml = project / "evidencedesk.toml"
    toml.write_text(toml.read_text("utf-8").replace(
        "min_coverage = 0.5\n", f"min_coverage = 0.5\nmax_depth = {max_depth}\n"), "utf-8")  # fmt: skip
    index = _squeezed(_build(project, tmp_path / "site"))
    methods = _squeezed(html.unescape(re.sub(r"<[^>]+>", "", (tmp_path / "site" /
                                                             "methods.html").read_text("utf-8"))))  # fmt: skip
    assert compared in index
    assert f"Each run is cut to {cut} before it is judged" in methods
    out = io.StringIO()
    assert cli.main(["audit", str(tmp_path / "site")], stdout=out, stderr=out) == 0, out.getvalue()


def test_a_corpus_of_one_document_is_counted_in_the_singular(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "corpus.jsonl").write_text(
        '{"_id": "doc1", "title": "Only", "text": "The library opens at nine on weekdays."}\n',
        "utf-8",
    )
    (root / "queries.jsonl").write_text('{"_id": "q1", "text": "When does the library open?"}\n'
                                        '{"_id": "q2", "text": "Opening hours?"}\n', "utf-8")  # fmt: skip
    (root / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tdoc1\t2\nq2\tdoc1\t2\n")
    (root / "evidencedesk.toml").write_text('[documents]\ncorpus = "corpus.jsonl"\n[questions]\n'
                                            'queries = "queries.jsonl"\nqrels = "qrels.tsv"\n')  # fmt: skip
    index = _squeezed(_build(root, tmp_path / "site"))

    def page(name: str) -> str:
        raw = (tmp_path / "site" / name).read_text("utf-8")
        return _squeezed(html.unescape(re.sub(r"<[^>]+>", "", raw)))

    assert "· 1 document · 7 variants · 0 candidate changes ·" in index
    assert '<a href="documents.html">1 document</a>' in (
        tmp_path / "site" / "index.html"
    ).read_text("utf-8")
    # one chunk a document: the chunks are not counted again beside the documents
    assert "The 1 document: id, title and chunks of each" in index
    assert "The 1 document of the corpus, in its order, cut into 1 chunk." in page("documents.html")
    assert ("1 chunk kept; 0 merged into 0 kept chunks; 0 near-duplicate pairs held back"
            in page("evidence.html"))  # fmt: skip
    out = io.StringIO()
    assert cli.main(["audit", str(tmp_path / "site")], stdout=out, stderr=out) == 0, out.getvalue()
    # the lede's count of documents alone is held to results.json too
    raw = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert raw.count(" · 1 document · ") == 1
    (tmp_path / "site" / "index.html").write_text(
        raw.replace(" · 1 document · ", " · 2 documents · "), "utf-8"
    )
    out = io.StringIO()
    assert cli.main(["audit", str(tmp_path / "site")], stdout=out, stderr=out) == 1
    assert (
        "· 2 documents · 7 variants · 0 candidate changes · seed 0.': results.json says 1 "
        "documents (inputs.documents)\n" in out.getvalue()
    )


# -- class 6: a Δ beside two means is their difference over the same questions ------------------


def test_judged_at_k_means_and_their_delta_cover_the_same_questions() -> None:
    from evidencedesk.results._compute import judged_share
    from evidencedesk.retrieval.metrics import Judged

    def judged(qid: str, flags: tuple[bool, ...]) -> Judged:
        return Judged(qid, (), True, (2,) + (0,) * (len(flags) - 1) if flags else (), (2,),
                      judged=flags)  # fmt: skip

    # the baseline's top 2 on q1..q3 is judged 1/2, 2/2, 0/2; the candidate's 2/2, 2/2 and it
    # returns nothing for q3 (no Judged@k there)
    base = [judged("q1", (True, False)), judged("q2", (True, True)), judged("q3", (False, False))]
    cand = [judged("q1", (True, True)), judged("q2", (True, True)), judged("q3", ())]
    share = judged_share(base, cand, 2, 0)
    assert (share.baseline, share.candidate, share.n) == (0.75, 1.0, 2)  # over q1 and q2 both
    assert share.delta == share.candidate - share.baseline == 0.25
    # the candidate's questions in another order are paired by id: the same share
    assert judged_share(base, cand[::-1], 2, 0) == share


# -- class 3: one Holm family per test, named where its p is shown -----------------------------


def test_every_holm_on_the_flips_page_names_the_sign_test(tmp_path: Path) -> None:
    _build(_project(tmp_path / "p", answered=6, judged=6), tmp_path / "site")
    page = (tmp_path / "site" / "flips.html").read_text("utf-8")
    text = _squeezed(html.unescape(re.sub(r"<[^>]+>", " ", page)))
    sentences = [s for s in re.split(r"(?<=[.;:])\s", text) if "Holm" in s]
    assert sentences and all(re.search(r"sign.test", s, re.I) for s in sentences), sentences
    assert "as on each candidate's page" not in text
    assert "a candidate's page shows the randomization test's Holm-adjusted p" in text


def test_judgments_of_one_grade_are_not_called_a_scale(tmp_path: Path) -> None:
    """Class 10: "Grades 1–1 (the project names none)" on qrels that list relevant documents only."""
    project = _project(tmp_path / "p", answered=6, judged=6)
    qrels = project / "qrels.txt"
    qrels.write_text("".join(line + "\n" for line in qrels.read_text("utf-8").splitlines()
                             if line.endswith(" 1")), "utf-8")  # fmt: skip
    index = _squeezed(_build(project, tmp_path / "site"))
    methods = _squeezed(html.unescape(re.sub(r"<[^>]+>", " ",
                                             (tmp_path / "site" / "methods.html").read_text("utf-8"))))  # fmt: skip
    said = "Every judgment has grade 1 (the project names no scale); relevant = grade ≥ 1"
    assert said in index
    assert "(every judgment here has grade 1)" in methods
    assert all("1–1" not in page for page in (index, methods))


def _unjudged_project(root: Path) -> Path:
    """Eight questions, one relevant (d) and one non-relevant (x) judgment each (binary,
    sparse). The baseline ranks d first, then x and eight unjudged documents (Judged@10 0.2);
    "collapsed" returns nine unjudged documents then x, "buried" nine unjudged then d (both
    Judged@10 0.1)."""
    root.mkdir()
    qids = [f"q{i}" for i in range(1, 9)]
    (root / "qrels.txt").write_text("".join(f"{q} 0 d{q} 1\n{q} 0 x{q} 0\n" for q in qids), "utf-8")
    (root / "runs").mkdir()
    lists = {
        "base": lambda q: [f"d{q}", f"x{q}", *(f"u{j}{q}" for j in range(8))],
        "collapsed": lambda q: [*(f"u{j}{q}" for j in range(9)), f"x{q}"],
        "buried": lambda q: [*(f"u{j}{q}" for j in range(9)), f"d{q}"],
    }
    for name, make in lists.items():
        lines = [f"{q} Q0 {d} {r} {20 - r} {name}\n" for q in qids
                 for r, d in enumerate(make(q), start=1)]  # fmt: skip
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "sparse"\n[questions]\nqrels = "qrels.txt"\nrelevance = 1\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\n[report]\nmetrics = ["map", "mrr"]\n',
        "utf-8",
    )
    return root


def test_the_unjudged_caveat_is_said_only_where_it_can_change_the_answer(tmp_path: Path) -> None:
    """Class 9: "its top 10 holds 90 % unjudged documents … label before deciding" beside a run
    that is worse on the judged documents alone too; the caveat is said where the condensed
    lists (unjudged removed) do not move as the full lists do."""
    _build(_unjudged_project(tmp_path / "p"), tmp_path / "site")
    page = {
        name: _squeezed(html.unescape(re.sub(r"<[^>]+>", " ",
            next((tmp_path / "site").glob(f"candidate-{name}*.html")).read_text("utf-8"))))
        for name in ("collapsed", "buried")
    }  # fmt: skip
    caveat = ("Caveat: its top 10 holds 90 % unjudged documents against 80 % for the baseline; "
              "unjudged count as not relevant, so this comparison can understate it")  # fmt: skip
    assert caveat not in page["collapsed"]
    assert (
        "it moves as on the full lists, so the verdict holds where the judgments reach"
        in (page["collapsed"])
    )
    assert caveat in page["buried"]
    assert "it does not move as on the full lists" in page["buried"]
    # decided once, in the Results: the page only says what results.json holds
    results = json.loads((tmp_path / "site" / "results.json").read_text("utf-8"))
    assert {c["name"]: c["judged"]["caveat"] for c in results["candidates"]} == {
        "collapsed": False,
        "buried": True,
    }


def test_flips_that_lean_against_the_mean_say_why(tmp_path: Path) -> None:
    """Class 9: "Leans worse" beside a positive mean, with no word on why. Six questions lose a
    little (their relevant document from rank 3 to 4: MRR −0.083 each), one gains much (rank 10
    to 1: +0.9): flips +1/−6 (sign-test p = 0.125), mean +0.057."""
    root = tmp_path / "p"
    root.mkdir()
    qids = [f"q{i}" for i in range(1, 8)]
    (root / "qrels.txt").write_text("".join(f"{q} 0 d{q} 1\n" for q in qids), "utf-8")
    (root / "runs").mkdir()
    for name, rank in (("base", {q: 3 for q in qids} | {"q7": 10}),
                       ("cand", {q: 4 for q in qids} | {"q7": 1})):  # fmt: skip
        lines = []
        for q in qids:
            docs = [f"u{j}{q}" for j in range(9)]
            docs.insert(rank[q] - 1, f"d{q}")
            lines += [f"{q} Q0 {d} {r} {20 - r} {name}\n" for r, d in enumerate(docs, start=1)]
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "lean"\n[questions]\nqrels = "qrels.txt"\nrelevance = 1\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\n[report]\nmetrics = ["mrr"]\n',
        "utf-8",
    )
    _build(root, tmp_path / "site")
    page = _squeezed(html.unescape(re.sub(r"<[^>]+>", " ", next(
        (tmp_path / "site").glob("candidate-cand*.html")).read_text("utf-8"))))  # fmt: skip
    assert ("Leans worse, not proven: MRR +0.057 [") in page
    assert ("flips +1/−6 (leans worse: sign-test p = 0.125; the mean rose all the same: fewer, "
            "larger gains outweigh more, smaller losses)") in page  # fmt: skip


def test_a_baseline_failing_its_own_policy_is_said_once_and_first(tmp_path: Path) -> None:
    """Class 9: a baseline that fails the gate's pass-rate floor was shown only as every
    candidate BLOCKED. Here it answers 4 of 8 questions within the policy's k = 3 (pass rate
    0.500 against a floor of 0.800); the candidate is the same run."""
    root = tmp_path / "p"
    root.mkdir()
    qids = [f"q{i}" for i in range(1, 9)]
    (root / "qrels.txt").write_text("".join(f"{q} 0 d{q} 1\n" for q in qids), "utf-8")
    (root / "runs").mkdir()
    for name in ("base", "cand"):
        lines = []
        for n, q in enumerate(qids):
            docs = [f"u{j}{q}" for j in range(5)]
            docs.insert(0 if n < 4 else 4, f"d{q}")
            lines += [f"{q} Q0 {d} {r} {20 - r} {name}\n" for r, d in enumerate(docs, start=1)]
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    (root / "policy.json").write_text('{"k": 3, "min_pass_rate": 0.8}\n', "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "floor"\n[questions]\nqrels = "qrels.txt"\nrelevance = 1\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\n[gate]\npolicy = "policy.json"\n',
        "utf-8",
    )
    index = _squeezed(_build(root, tmp_path / "site"))
    said = ("The baseline base itself fails the gate policy (BLOCK): pass rate 0.500 (4/8) is below "
            "the minimum 0.800. Every candidate is held to the same floors, so a candidate's BLOCK "
            "may be the baseline's, not the change's.")  # fmt: skip
    assert index.count(said) == 1
    assert index.index(said) < index.index("Bottom line") + 40  # first, under the heading
    gate = _squeezed(html.unescape(re.sub(r"<[^>]+>", "", (tmp_path / "site" / "gate.html")
                                          .read_text("utf-8"))))  # fmt: skip
    assert gate.count(said) == 1 and gate.index(said) < gate.index("The gate answers")
    code = cli.main(["audit", str(tmp_path / "site")], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0


def test_a_baseline_within_its_policy_is_not_mentioned(demo_site: Path, demo_results) -> None:  # type: ignore[no-untyped-def]
    assert demo_results.baseline_gate is not None and demo_results.baseline_gate.level == "GO"
    for page in ("index.html", "gate.html"):
        assert "itself fails the gate policy" not in (demo_site / page).read_text("utf-8")


def test_decision_first_each_thing_said_once(tmp_path: Path) -> None:
    """Item 4: the headline is one line (the caveat said once, in the page's warnings; no
    verdict or gate line repeated under the badges; the question ids in the flips section
    only), and the metrics table gives each metric's Holm-adjusted p."""
    _build(_unjudged_project(tmp_path / "p"), tmp_path / "site")
    raw = next((tmp_path / "site").glob("candidate-buried*.html")).read_text("utf-8")
    page = _squeezed(html.unescape(re.sub(r"<[^>]+>", " ", raw)))
    headline = html.unescape(re.sub(r"<[^>]+>", "", re.search(
        r'<p class="headline[^"]*">(.*?)</p>', raw, re.S).group(1)))  # type: ignore[union-attr]  # fmt: skip
    assert "\n" not in headline and "Caveat" not in headline
    assert page.count("Caveat: its top 10 holds 90 % unjudged documents") == 1
    assert "Verdict: " not in page
    recommendation = raw.split('id="recommendation"')[1].split("</section>")[0]
    flips = raw.split('<section id="flips">')[1].split("</section>")[0]
    assert "q1" not in recommendation and 'href="#flips">which questions' in recommendation
    assert all(f">q{i}</a>" in flips for i in range(1, 9))  # the eight worse, named here
    assert '<th scope="col" class="num">Holm-adjusted randomization p</th>' in raw
