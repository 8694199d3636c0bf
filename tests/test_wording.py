"""Wording from the project's data: a runs-only project with grades 0-4, relevance 1 and
unjudged queries gets its own scale in captions and methods, "no judgments" (never
"unanswerable"), its own reproduce command, and none of the demo's sentences."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report._assemble import meta
from evidencedesk.report._words import notice_text
from evidencedesk.results.types import Notice, Results
from tests.page_text import visible
from tests.synthetic_runs import write_project

ROOT = Path(__file__).resolve().parents[1]
DEMO_SENTENCES = [
    line
    for line in (ROOT / "templates" / "demo_sentences.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
JUDGED = tuple(f"q{n}" for n in range(1, 9))
UNJUDGED = ("q9", "q10")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("graded") / "cranfield-like"
    qrels = {q: {f"{q}-a": 4, f"{q}-b": 3, f"{q}-c": 1, f"{q}-z": 0} for q in JUDGED}
    base = {q: [f"{q}-a", f"{q}-z", f"{q}-b", f"{q}-c"] for q in (*JUDGED, *UNJUDGED)}
    cand = {q: [f"{q}-b", f"{q}-a", f"{q}-c", f"{q}-z"] for q in (*JUDGED, *UNJUDGED)}
    project = write_project(root, qrels, {"base": base, "cand": cand}, relevance=1,
                            questions=(*JUDGED, *UNJUDGED))  # fmt: skip
    out = root.parent / "site"
    code = cli.main(["build", "--project", str(project), "--out", str(out)],
                    stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert code == 0
    return out


def text(page: Path) -> str:
    return visible(page.read_text("utf-8"), unescape=True)


def test_no_demo_sentence_appears_on_any_page(site: Path) -> None:
    assert len(DEMO_SENTENCES) >= 10
    pages = sorted(site.glob("*.html"))
    assert len(pages) > 10
    for page in pages:
        words = text(page)
        found = [s for s in DEMO_SENTENCES if s in words]
        assert not found, (page.name, found)


def test_captions_and_methods_describe_the_projects_scale(site: Path) -> None:
    index = text(site / "index.html")
    # the project names no grades: neutral words, never the demo's "answer" / "useful context"
    assert "Grades 0–4 (the project names none); relevant = grade ≥ 1" in index
    assert "useful context" not in index and "answers" not in index
    methods = text(site / "methods.html")
    assert (
        "A result is relevant when its grade is at least 1 (the grades in these judgments run "
        "0–4); lower grades are not relevant, and unjudged results count as not relevant."
        in methods
    )
    raw = (site / "question-q1.html").read_text("utf-8")
    assert (
        '<span class="grade grade-4">4</span>' in raw
        and '<span class="grade grade-3">3</span>' in raw
    )
    css = (site / "assets" / "style.css").read_text("utf-8")
    assert ".grade-3, .grade-4" in css


def test_unjudged_queries_are_counted_named_and_left_out_never_unanswerable(site: Path) -> None:
    for q in UNJUDGED:  # no judgment at all: trec_eval leaves them out, and so does the site
        assert not (site / f"question-{q}.html").exists()
    index = text(site / "index.html")
    assert "10 questions: 8 judged, 8 with a relevant judgment (grade ≥ 1); 2 without any " \
        "judgment are left out" in index  # fmt: skip
    assert "queries.jsonl: 2 of its 10 queries have no judgment (q9, q10): left out, as " \
        "trec_eval leaves them out" in index  # fmt: skip
    assert "unanswerable" not in index


def test_reproduce_command_names_the_project_and_seed(site: Path) -> None:
    methods = text(site / "methods.html")
    typed = site.parent / "cranfield-like" / "evidencedesk.toml"  # --project as the build got it
    assert f"python -m evidencedesk.report build --project {typed} --seed 0" in methods
    index = text(site / "index.html")
    assert "0 chunks" not in index and "0 documents" not in index
    assert "Flips vs baseline base" in index


def test_index_charts_the_primary_metric_of_a_runs_only_project(site: Path) -> None:
    index = text(site / "index.html")
    assert "nDCG@10 (linear gain) per variant (the primary metric)." in index
    assert "MRR per variant." not in index


def test_questions_from_qrels_are_never_called_unanswerable(
    example_site: Callable[[str], Path],
) -> None:
    """Millbrook's pipeline project reads queries + qrels: its question without a relevant
    judgment is "no relevant judgment", its unjudged one is counted and left out (its own tag
    `unanswerable` stays a tag)."""
    import evidencedesk

    site = example_site("pipeline")  # the session's build of it (tests/conftest.py)
    results = evidencedesk.load_results(site / "results.json")
    assert results.settings.questions_from == "qrels"
    q30 = (site / "question-q30.html").read_text("utf-8")
    assert '<span class="tag tag-ext">no relevant judgment</span>' in q30
    assert not (site / "question-q31.html").exists()
    assert 'tag-ext">unanswerable<' not in q30


@pytest.mark.parametrize(
    ("report", "clause"),
    [
        ("", "; a grade below 0 (here -2 and -1) counts as 0."),
        ('metrics = ["ndcg@10:linear", "bpref"]',
         " (bpref excepted: it counts an unjudged result neither way); a grade below 0 (here -2 "
         "and -1) counts as 0, and in bpref neither way."),
    ],
)  # fmt: skip
def test_the_methods_say_what_a_grade_below_0_counts(
    tmp_path: Path, report: str, clause: str
) -> None:
    """TREC's -2 ("junk") and -1: nDCG's gain is the grade, but a grade below 0 counts as 0
    (trec_eval's reading), so the methods page must not leave "gain = grade" to stand alone.
    By hand, q1 returns a (-2) then b (1): DCG = 0 + 1/log2(3) = 0.631 over an ideal of 1."""
    qrels = {"q1": {"a": -2, "b": 1, "c": 0}, "q2": {"d": -1, "e": 2}}
    runs = {"base": {"q1": ["a", "b"], "q2": ["d", "e"]}, "cand": {"q1": ["b", "a"], "q2": ["e"]}}
    project = write_project(tmp_path / "p", qrels, runs, relevance=1, report=report)
    out = tmp_path / "site"
    argv = ["build", "--project", str(project), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    methods = " ".join(text(out / "methods.html").split())
    assert (
        "A result is relevant when its grade is at least 1 (the grades in these judgments run "
        f"-2–2); lower grades are not relevant, and unjudged results count as not relevant{clause}"
    ) in methods
    rows = (out / "data" / "per-question.csv").read_text("utf-8").splitlines()
    head = rows[0].split(",")
    at = head.index("ndcg@10:linear")
    base_q1 = next(r.split(",") for r in rows if r.startswith("q1,") and ",base," in f",{r},")
    assert round(float(base_q1[at]), 3) == 0.631


@pytest.mark.parametrize("bpref", [False, True])
def test_every_unjudged_sentence_excepts_bpref_where_it_is_reported(
    tmp_path: Path, bpref: bool
) -> None:
    """bpref reads an unjudged result neither as relevant nor as not: where it is reported, no
    page may say an unjudged result counts as not relevant in every metric without saying so."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    runs = {
        "base": {"q1": ["x", "a"], "q2": ["c", "d"]},
        "cand": {"q1": ["a", "y"], "q2": ["z", "c"]},
    }
    report = 'metrics = ["map", "bpref"]' if bpref else 'metrics = ["map"]'
    project = write_project(tmp_path / "p", qrels, runs, relevance=1, report=report)
    out = tmp_path / "site"
    argv = ["build", "--project", str(project), "--out", str(out), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    pages = {name: " ".join(text(out / name).split())
             for name in ("methods.html", "to-label.html", "candidate-cand.html", "question-q1.html")}  # fmt: skip
    excepted = " (bpref excepted: it counts an unjudged result neither way)" if bpref else ""
    said = {
        "methods.html": [
            f"lower grades are not relevant, and unjudged results count as not relevant{excepted}.",
            f"Unjudged results count as not relevant in every metric{excepted}, so a run",
        ],
        "to-label.html": [f"they count as not relevant in every metric{excepted}."],
        "candidate-cand.html": [f"An unjudged result counts as not relevant{excepted}, so a"],
        "question-q1.html": [f"no judgment grades it, so it counts as not relevant{excepted}."],
    }
    for name, sentences in said.items():
        for sentence in sentences:
            assert sentence in pages[name], (name, sentence)
    assert ("bpref excepted" in " ".join(pages.values())) is bpref


@pytest.mark.parametrize(
    ("metrics", "questions_from", "said"),
    [
        (("map",), "qrels", ""),
        (("map", "bpref"), "qrels", " (bpref excepted: it counts an unjudged result neither way)"),
        # a labels file grades every chunk: nothing is unjudged, bpref reads a missing grade as 0
        (("map", "bpref"), "labels", ""),
    ],
)
def test_bpref_is_excepted_only_where_results_can_be_unjudged(
    demo_results, metrics: tuple[str, ...], questions_from: str, said: str
) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from evidencedesk._metric_names import read_metric
    from evidencedesk.report._words import bpref_excepted

    settings = replace(demo_results.settings, compared=tuple(map(read_metric, metrics)),
                       questions_from=questions_from)  # fmt: skip
    assert bpref_excepted(settings) == said


@pytest.mark.parametrize(
    ("grades", "caption"),
    [
        ((0, 1, 2), "Grades 0–2 (the project names none); relevant = grade ≥ 1"),
        # a dash after a number below 0 would read as a minus: "-2–2"
        ((-2, 0, 2), "Grades -2 to 2 (the project names none); relevant = grade ≥ 1"),
    ],
)
def test_the_grade_caption_spans_the_grades_seen(
    tmp_path: Path, grades: tuple[int, ...], caption: str
) -> None:
    qrels = {f"q{i}": {"d1": 1, "d2": g} for i, g in enumerate(grades)}
    lists = {q: ["d1", "d2"] for q in qrels}
    project = write_project(tmp_path / "p", qrels, {"base": lists, "cand": lists}, relevance=1)
    out = tmp_path / "site"
    assert cli.main(["build", "--project", str(project), "--out", str(out), "--quiet"],
                    stdout=io.StringIO(), stderr=io.StringIO()) == 0  # fmt: skip
    assert caption in text(out / "index.html")
    assert cli.main(["audit", str(out)], stdout=io.StringIO(), stderr=io.StringIO()) == 0


def test_the_methods_define_only_what_the_project_has(
    site: Path, demo_site: Path, demo_results: Results
) -> None:
    """Without a corpus a TREC run's top documents are held against the judged ids, with one
    the corpus's; a project with no TREC run has no coverage entry to read, one without tags no
    slices entry."""
    runs_only = " ".join(text(site / "methods.html").split())
    assert "Slices a tag's mean" not in runs_only and "No tags in this project" in text(
        site / "slices.html"
    )
    assert ("beyond the share [runs] min_coverage leaves, judged ids written another way (the "
            "rewrites tried: case, zeros,") in runs_only  # fmt: skip
    assert "corpus" not in runs_only
    demo = " ".join(text(demo_site / "methods.html").split())
    assert "min_coverage leaves, ids the corpus lacks (the rewrites tried: case," in demo
    assert "Slices a tag's mean with its 95 % bootstrap interval over the tag's questions" in demo
    assert meta(demo_results).coverage_against == "corpus"
    builtin = tuple(v for v in demo_results.variants if v.kind == "builtin")
    assert len(builtin) == len(demo_results.variants) - 1
    assert meta(replace(demo_results, variants=builtin)).coverage_against == ""


def test_the_question_list_speaks_of_documents_and_of_a_gate_only_with_one(
    site: Path, demo_site: Path
) -> None:
    """A runs-only project ranks documents, and with no gate policy no question is critical:
    the list's words say neither "chunk" nor "gate" (the demo, with a policy, says both)."""
    listed = " ".join(text(site / "questions.html").split())
    assert ("All 8 questions: which candidates change them, and whether the "
            "baseline passes them.") in listed  # fmt: skip
    assert ("Pass: the baseline base has a relevant document in its top 10; fail: it has none; "
            "—: the question has no relevant judgment.") in listed  # fmt: skip
    assert "chunk" not in listed and "gate" not in listed
    demo = " ".join(text(demo_site / "questions.html").split())
    assert "their tags, whether the gate calls them critical, which candidates" in demo
    assert ("has a relevant chunk in its top 3 (the check the gate's pass rate and critical rule "
            "make per question); fail:") in demo  # fmt: skip


def test_the_methods_say_unanswerable_only_where_a_labels_file_does(
    site: Path, demo_site: Path, example_site: Callable[[str], Path]
) -> None:
    """The demo's labels mark questions unanswerable; a pipeline project's qrels (the example's
    BEIR files) and a runs-only project's only lack a relevant judgment."""
    said = {
        "runs-only": text(site / "methods.html"),
        "labels": text(demo_site / "methods.html"),
        "qrels": text(example_site("pipeline") / "methods.html"),
    }
    undefined = {
        "runs-only": "relevant document (no relevant judgment)",
        "labels": "relevant chunk in scope (unanswerable, or relevant only in superseded or "
        "restricted chunks)",
        "qrels": "relevant chunk in scope (no relevant judgment, or relevant only in superseded "
        "or restricted chunks)",
    }
    for source, words in said.items():
        assert f"Undefined ≠ 0 a question with no {undefined[source]} has no value" in " ".join(
            words.split()
        ), source
    assert "unanswerable" not in said["qrels"] and "unanswerable" not in said["runs-only"]


# one of each notice that counts, in its number: (kind, total, the words after "x.run: ")
ONE_OF_EACH = [
    ("without_text", 1, "1 of the 1 judged query is not in the queries file (q1): evaluated and "
     "shown by its id ([questions] evaluate_unlisted)"),
    ("judged_not_in_corpus", 40, "1 of the 40 judged documents is not in the corpus (q1): its "
     "judgments count in every metric, no page can show it"),
    ("out_of_scope", 5, "1 of the 5 questions with a relevant judgment has it only on superseded "
     "or restricted chunks (q1): out of scope, it scores as a question with nothing relevant"),
    ("unjudged", 1, "1 of its 1 query has no judgment (q1): left out, as trec_eval leaves it out"),
    ("score_ties", 1, "in 1 of its 1 query every line has the same score (q1): ranked by "
     "document id, descending, as trec_eval breaks ties (neither the rank column nor the line "
     "order counts); give each line a score that falls with its rank"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "total", "words"), ONE_OF_EACH)
def test_a_notice_of_one_is_said_in_its_number(kind: str, total: int, words: str) -> None:
    assert notice_text(Notice(kind, "x.run", None, 1, total, ("q1",))) == f"x.run: {words}"


def test_one_unlisted_judged_query_is_evaluated_as_it() -> None:
    n = Notice("unlisted", "queries.tsv", None, 1, 40, ("q1",))
    assert notice_text(n) == ("1 judged query is not in queries.tsv (q1): left out ([questions] "
                              "evaluate_unlisted = true evaluates it)")  # fmt: skip
