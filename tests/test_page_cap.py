"""The page cap: above PAGE_LIMIT questions at most PAGE_CAP question plan, chosen by
`results.pages.chosen` (critical, then baseline failures, then the largest change of the
primary metric, ties by id); results.json keeps ranked ids only for those questions."""

from __future__ import annotations

import dataclasses
import gzip
import html
import json
import re
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.errors import ResultsFileError
from evidencedesk.report import _candidate as candidate
from evidencedesk.report import _render as render
from evidencedesk.report import _words as words
from evidencedesk.report._assemble import present
from evidencedesk.report._questions import links_of
from evidencedesk.report._site import slug
from evidencedesk.results import _plan as plan
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._evaluate import evaluation
from evidencedesk.results._inputs import load_project
from evidencedesk.results.types import Results
from tests.synthetic_runs import write_project

N = plan.PAGE_LIMIT + 10
QIDS = [f"q{i:03d}" for i in range(N)]
# q500 critical (unchanged, passes); q501, q502 failed by the baseline; q504 moves its answer
# from rank 3 to 1, q503/q505/q506 from 2 to 1 (one change, ties by id), q507 from 1 to 2 under
# the second candidate (the same size, the other way)
ORDER = ["q500", "q501", "q502", "q504", "q503", "q505", "q506", "q507"]


def project(root: Path) -> Path:
    qrels = {q: {f"rel-{q}": 2} for q in QIDS}
    base = {q: [f"rel-{q}", "x", "y"] for q in QIDS}
    cand, other = dict(base), dict(base)
    base["q501"] = cand["q501"] = other["q501"] = ["x", "y"]
    base["q502"] = cand["q502"] = other["q502"] = ["x", "y"]
    base["q504"] = ["x", "y", "rel-q504"]
    for q in ("q503", "q505", "q506"):
        base[q] = ["x", f"rel-{q}", "y"]
    other["q507"] = ["x", "rel-q507", "y"]
    return write_project(root, qrels, {"base": base, "cand": cand, "other": other},
                         policy={"k": 10, "critical": ["q500"]})  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Results, Path]:
    root = tmp_path_factory.mktemp("cap")
    out = root / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plan, "PAGE_CAP", 5)
        mp.setattr(candidate, "INLINE_IDS", 3)
        results = evidencedesk.build(project=project(root / "p"), out=out)
    return results, out


@pytest.mark.parametrize(
    ("cap", "expected"),
    [(100, ORDER), (8, ORDER), (5, ORDER[:5]), (2, ["q500", "q501"]), (0, [])],
)
def test_the_choosing_rule(
    built: tuple[Results, Path], monkeypatch: pytest.MonkeyPatch, cap: int, expected: list[str]
) -> None:
    monkeypatch.setattr(plan, "PAGE_CAP", cap)
    assert plan.chosen(built[0]) == tuple(expected)


def test_up_to_the_page_limit_every_question(
    built: tuple[Results, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(plan, "PAGE_LIMIT", N)
    assert plan.chosen(built[0]) is None
    # every question's lists keep their ids, made from the judged lists at the evaluation's end
    found = evaluation(load_project(project(tmp_path)), 0, (), lambda stage: None)
    for variant in found.results.variants:
        assert all(r.ids and len(r.ids) == len(r.grades) == r.size for r in variant.lists)
    base = {r.question: r for r in found.results.variant("base").lists}
    assert base["q504"].ids == ("x", "y", "rel-q504") and base["q504"].grades == (0, 0, 2)
    assert base["q000"].ids == ("rel-q000", "x", "y") and base["q501"].ids == ("x", "y")


def test_the_capped_build_writes_the_chosen_pages(built: tuple[Results, Path]) -> None:
    results, site = built
    assert sorted(p.name for p in site.glob("question-*.html")) == sorted(
        f"question-{q}.html" for q in ORDER[:5]
    )
    # the default cap (a copy: the build's Results hold the plan it decided under a cap of 5)
    model = present(dataclasses.replace(results))  # all eight that are critical, fail or change
    assert [q.id for q in model.questions] == sorted(ORDER)
    index = html.unescape((site / "index.html").read_text("utf-8"))
    assert (
        f"{N - 5} question pages were left out: above 500 questions at most 5 get a page — the "
        "gate's critical questions first, then the questions the baseline fails, then those whose "
        "nDCG@10 (linear gain) changes most under some candidate (ties by id); of the others, "
        f"{N - 8} the baseline passes and no candidate changes get none and 3 fall beyond the cap."
    ) in index
    listing = (site / "questions.html").read_text("utf-8")
    assert f"(5 of {N} questions have a page: above 500 questions at most 5 get" in listing
    # the questions without a page counted once, as one group
    assert (
        f"{N - 8} the baseline passes and no candidate changes get none and 3 fall beyond the "
        f"cap; the {N - 5} without one are listed here, and their numbers are in"
    ) in html.unescape(" ".join(listing.split()))
    links = links_of(tuple(q for q in model.questions if q.id in ORDER[:5]), listed=True)
    assert links.href("q506", candidate="cand") == "questions.html#q=q506"
    assert links.href("q504", candidate="cand") == "question-q504.html#vs-cand"


def test_a_long_flip_list_links_the_question_list(built: tuple[Results, Path]) -> None:
    """`cand` makes four questions better: three inline (pages or the list), then the link."""
    candidate = (built[1] / "candidate-cand.html").read_text("utf-8")
    better = candidate.split("<dt>Better (4)</dt><dd>")[1].split("</dd>")[0]
    assert better == (
        '<a class="qid" href="question-q503.html#vs-cand">q503</a>, '
        '<a class="qid" href="question-q504.html#vs-cand">q504</a>, '
        '<a class="qid" href="questions.html#q=q505">q505</a> … and 1 more: '
        '<a href="questions.html#q=%22better%20cand%22">see the question list</a> '
        "(filtered to “better cand”)"
    )
    other = (built[1] / "candidate-other.html").read_text("utf-8")
    worse = other.split("<dt>Worse (1)</dt><dd>")[1].split("</dd>")[0]
    assert worse == '<a class="qid" href="questions.html#q=q507">q507</a>'


def test_results_json_keeps_ids_only_for_the_chosen(built: tuple[Results, Path]) -> None:
    results, site = built
    text = (site / "results.json").read_text("utf-8")
    assert text.startswith('{"ablations":null,"answerable":510,') and text.count("\n") == 1
    loaded = serialize.load(site / "results.json")
    assert loaded == results
    for variant in loaded.variants:
        with_ids = {r.question for r in variant.lists if r.ids}
        assert with_ids == set(ORDER[:5]), variant.name
        assert all(r.grades == () for r in variant.lists if r.question not in with_ids)
        assert len(variant.lists) == N and all(r.size >= 2 for r in variant.lists)
    base = {r.question: r for r in loaded.variant("base").lists}
    assert base["q504"].ids == ("x", "y", "rel-q504") and base["q504"].grades == (0, 0, 2)
    assert base["q505"].first_relevant == 2 and base["q505"].values["mrr"] == 0.5
    assert base["q000"].first_relevant == 1 and base["q501"].first_relevant is None
    csv = gzip.decompress((site / "data" / "per-question.csv.gz").read_bytes()).decode("utf-8")
    assert sum(1 for line in csv.splitlines() if line.startswith("q505,base,")) == 1


def test_the_more_link_opens_the_list_filtered_to_the_candidate(
    built: tuple[Results, Path],
) -> None:
    from tests.test_browser import _require_browser
    from tests.test_browser_questions import _ids, _open_plain

    _require_browser()
    from playwright.sync_api import sync_playwright

    from tests.test_browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        url = (built[1] / "questions.html").as_uri()
        page, problems = _open_plain(browser, url + "#q=%22better%20cand%22")
        assert _ids(page) == ["q503", "q504", "q505", "q506"]
        page.locator("#question-filter").fill('"worse other"')
        assert _ids(page) == ["q507"]
        page.locator("#question-filter").fill('"worse cand"')
        assert _ids(page) == []
        assert problems == []
        browser.close()


def test_the_recommendation_counts_the_flips_and_names_no_question(demo_results) -> None:  # type: ignore[no-untyped-def]
    """The question ids are in the candidate page's flips section, not in its recommendation."""
    for i, c in enumerate(demo_results.candidates):
        line = words.flips(demo_results, f"candidates[{i}]")
        head = c.comparison(c.decision.primary)
        assert line.startswith(f"Flips on MRR: better on {len(head.better)}, worse on "
                               f"{len(head.worse)}, {head.tied} tied; exact sign-test p ")  # fmt: skip
        assert not any(q.id in line for q in demo_results.inputs.questions)


def test_without_critical_questions_the_rule_does_not_name_them(
    built: tuple[Results, Path],
) -> None:
    results = built[0]
    assert present(dataclasses.replace(results, policy=None)).page_rule == (
        "above 500 questions at most 1,000 get a page — the questions the baseline fails first, "
        "then those whose nDCG@10 (linear gain) changes most under some candidate (ties by id); "
        f"of the others, {N - 7} the baseline passes and no candidate changes get none"
    )  # without a policy the critical-only question is one the baseline passes, unchanged


def test_results_json_is_split_and_loads_back_from_both_files(
    built: tuple[Results, Path],
) -> None:
    """Above the page limit the per-question fields move into results-questions.json.gz; the
    documented results.json keeps every other field, and `serialize.load` reads both back."""
    results, site = built
    data = json.loads((site / "results.json").read_text("utf-8"))
    fields = [
        "inputs.questions",
        *(f"variants[{i}].lists" for i in range(3)),
        *(f"flips[{i}].{k}" for i in range(8) for k in ("better", "worse")),
        *(f"candidates[{i}].lists" for i in range(2)),
        *(f"candidates[{i}].comparisons[{j}].{k}" for i in range(2) for j in range(4)
          for k in ("better", "worse")),
    ]  # fmt: skip
    assert data["per_question"] == {"file": "results-questions.json.gz", "fields": sorted(fields)}
    assert data["inputs"]["questions"] == [] and data["variants"][0]["lists"] == []
    assert (
        data["flips"][0]["better"] == [] and data["candidates"][0]["comparisons"][0]["worse"] == []
    )
    assert data["candidates"][0]["comparisons"][2]["tied"] == 506  # the counts stay (mrr)
    moved = json.loads(gzip.decompress((site / "results-questions.json.gz").read_bytes()))
    assert sorted(moved) == sorted(fields)
    assert [q["id"] for q in moved["inputs.questions"]] == QIDS
    # a list equal to one moved before is stored once: the candidate's comparison on the flips
    # metric names the same ids as its flips
    assert moved["flips[0].better"] == ["q503", "q504", "q505", "q506"]
    assert moved["candidates[0].comparisons[2].better"] == {"same_as": "flips[0].better"}
    assert results.candidates[0].comparisons[2].better == ("q503", "q504", "q505", "q506")
    stored = [json.dumps(v) for v in moved.values() if isinstance(v, list) and v]
    assert len(stored) == len(set(stored))  # no list twice
    assert serialize.load(site / "results.json") == results
    assert serialize.dumps(serialize.load(site / "results.json")) == serialize.dumps(results)


def test_a_split_results_json_without_its_questions_file_is_one_error(
    built: tuple[Results, Path], tmp_path: Path
) -> None:
    (tmp_path / "results.json").write_bytes((built[1] / "results.json").read_bytes())
    with pytest.raises(ResultsFileError) as err:
        serialize.load(tmp_path / "results.json")
    assert str(err.value) == (
        f"{tmp_path / 'results.json'}: expected results-questions.json.gz beside it, found none"
    )
    (tmp_path / "results-questions.json.gz").write_bytes(b"not gzip")
    with pytest.raises(ResultsFileError) as err:
        serialize.load(tmp_path / "results.json")
    assert str(err.value).startswith(
        f"{tmp_path / 'results.json'}: results-questions.json.gz: expected a gzip-compressed JSON "
        "file, found corrupt data "
    )
    (tmp_path / "results-questions.json.gz").write_bytes(gzip.compress(b'{"inputs.questions":[]}'))
    with pytest.raises(ResultsFileError) as err:
        serialize.load(tmp_path / "results.json")
    assert str(err.value).startswith(
        f"{tmp_path / 'results.json'}: key per_question.fields: expected the fields of "
        'results-questions.json.gz, found ["inputs.questions"]'
    )


def test_a_same_as_that_names_no_list_is_one_error(
    built: tuple[Results, Path], tmp_path: Path
) -> None:
    (tmp_path / "results.json").write_bytes((built[1] / "results.json").read_bytes())
    moved = json.loads(gzip.decompress((built[1] / "results-questions.json.gz").read_bytes()))
    moved["candidates[0].comparisons[2].better"] = {"same_as": "flips[99].better"}
    (tmp_path / "results-questions.json.gz").write_bytes(gzip.compress(json.dumps(moved).encode()))
    with pytest.raises(ResultsFileError) as err:
        serialize.load(tmp_path / "results.json")
    assert str(err.value) == (
        f"{tmp_path / 'results.json'}: key results-questions.json.gz: "
        "candidates[0].comparisons[2].better: expected a list or the path of a list, found "
        '{"same_as": "flips[99].better"}'
    )


def test_the_compressed_files_are_deterministic(built: tuple[Results, Path]) -> None:
    """The same Results give the same bytes: gzip without a time stamp or a file name."""
    results, site = built
    files = {**serialize.site_files(results), **serialize.site_exports(results, slug)}
    assert files == {**serialize.site_files(results), **serialize.site_exports(results, slug)}
    assert sorted(files) == [
        "data/per-question.csv.gz", "data/qrels.txt.gz", "data/to-label.tsv",
        "results-questions.json.gz", "results.json",
    ]  # fmt: skip
    for name, data in files.items():
        assert (site / name).read_bytes() == data, name
        if name.endswith(".gz"):
            assert data[:4] == b"\x1f\x8b\x08\x00" and data[4:8] == b"\x00\x00\x00\x00", name
    qrels = gzip.decompress(files["data/qrels.txt.gz"]).decode("utf-8")
    assert qrels == serialize._qrels_text(results.inputs.questions) and qrels.startswith(
        "q000 0 rel-q000 2\n"
    )


def test_the_flips_grid_lists_the_chosen_questions(built: tuple[Results, Path]) -> None:
    results, site = built
    flips = (site / "flips.html").read_text("utf-8")
    assert re.findall(r'<tr id="q-([^"]+)">', flips) == ["q500", "q501", "q502", "q503", "q504"]
    assert (
        html.unescape(re.sub(r"<[^>]+>", "", flips)).count(
            f"The grid lists the 5 questions that have a page (above 500 questions at most 5 get a "
            f"page — the gate's critical questions first, then the questions the baseline fails, then "
            f"those whose nDCG@10 (linear gain) changes most under some candidate (ties by id); of "
            f"the others, {N - 8} the baseline passes and no candidate changes get none and 3 fall "
            f"beyond the cap); … {N - 5} more: see the question list and data/per-question.csv.gz."
        )
        == 1
    )
    # the default cap, on a copy of the Results (the build's hold its plan under a cap of 5)
    grid = present(dataclasses.replace(results)).flip_matrix  # all eight, in question order
    assert [r.question for r in grid.grid] == sorted(ORDER) and grid.grid_more == N - 8
    assert grid.grid[sorted(ORDER).index("q504")].deltas == (0.5, 0.5)


@pytest.mark.parametrize(
    ("limit", "k", "depth"), [(N, 10, 20), (500, 10, 10), (500, 15, 15), (500, 40, 20)]
)
def test_large_question_pages_list_fewer_results(
    built: tuple[Results, Path], monkeypatch: pytest.MonkeyPatch, limit: int, k: int, depth: int
) -> None:
    """Up to the page limit a page lists 20 results per list; above, 10 (or the gate's k)."""
    results = built[0]
    assert results.policy is not None
    monkeypatch.setattr(plan, "PAGE_LIMIT", limit)
    policy = dataclasses.replace(results.policy, k=k)
    assert plan.page_depth(dataclasses.replace(results, policy=policy)) == depth


def test_a_large_question_page_lists_the_top_ten(tmp_path: Path) -> None:
    """Lists of 30: the page shows ranks 1-10 and says 20 more; a document the other list has
    only below its top 10 is marked "not in top 10"."""
    qids = [f"q{i:03d}" for i in range(N)]
    base = {q: [f"d{j}" for j in range(30)] for q in qids}
    cand = dict(base)
    cand["q000"] = [f"d{j}" for j in range(10, 30)] + [f"d{j}" for j in range(10)]
    project = write_project(
        tmp_path / "p", {q: {"d0": 2} for q in qids}, {"base": base, "cand": cand}
    )
    results = evidencedesk.build(project=project, out=tmp_path / "site")
    assert [len(r.ids) for r in results.variant("base").lists[:2]] == [10, 0]
    page = (tmp_path / "site" / "question-q000.html").read_text("utf-8")
    # two lists of 10; cand is the variant's run, so its list also shows the 10 of base it
    # dropped from its top 10
    assert page.count("<tr data-chunk=") == 30
    assert page.count('class="move-dropped"') == 10
    assert page.count("20 more results not listed.") == 2
    assert page.count("+ not in top 10") == 10 and page.count("− not in top 10") == 10


@pytest.mark.parametrize("tune", [[], ["--tune"]])
def test_a_data_file_error_in_the_forked_writer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tune: list[str]
) -> None:
    """Above the page limit ``--tune`` has the data files written by forked processes (the
    default writes them in the build's own): an OS error there is the CLI's usual one line,
    exit 2, and no site is left half written."""
    import errno
    import io
    import os

    from evidencedesk import cli

    def full(*args: object) -> dict[str, bytes]:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "site" / "x.gz"))

    monkeypatch.setattr(render, "question_exports", full)
    err = io.StringIO()
    argv = ["build", "--project", str(project(tmp_path / "p")), "--out", str(tmp_path / "site"),
            *tune]  # fmt: skip
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue() == (
        f"error: {tmp_path / 'site' / 'x.gz'}: No space left on device (ENOSPC); "
        "the previous site was left as it was\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


def test_above_the_page_limit_unjudged_results_still_read_unjudged(split_site: Path) -> None:
    # issue 37's class 1: above 500 questions the lists kept for the pages lost their judged
    # flags, so every unjudged document of a question page read as graded 0
    site = split_site
    results = serialize.load(site / "results.json")
    kept = [r for v in results.variants for r in v.lists if r.ids]
    assert kept and all(r.judged is None or len(r.judged) == len(r.ids) for r in kept)
    unjudged = [
        (r.question, i)
        for r in kept
        if r.judged
        for i, f in zip(r.ids, r.judged, strict=True)
        if not f
    ]
    assert unjudged  # the generated runs return documents the qrels never grade
    question, _ = unjudged[0]
    page = (site / f"question-{slug(question)}.html").read_text("utf-8")
    assert "<i>unjudged</i>" in page


def test_questions_without_a_relevant_judgment_are_not_counted_as_passing(tmp_path: Path) -> None:
    """A question whose judgments are all below the relevance threshold has no metric to pass or
    to change: the rule's words count it apart, in the build's words and in the audit's."""
    from evidencedesk.report import _oracle as oracle
    from evidencedesk.report._assemble import page_rule

    qrels = {q: {f"rel-{q}": 2} for q in QIDS}
    for q in ("q010", "q011", "q012"):
        qrels[q] = {f"rel-{q}": 1}  # judged, none relevant at relevance 2
    base = {q: [f"rel-{q}", "x", "y"] for q in QIDS}
    base["q501"] = ["x", "y"]  # the one question the baseline fails
    found = evaluation(load_project(write_project(tmp_path, qrels, {"base": base, "cand": base})),
                       0, (), lambda stage: None)  # fmt: skip
    results = found.results
    assert plan.decide(results).left_out == (N - 4, 3, 0)
    expected = (
        "above 500 questions at most 1,000 get a page — the questions the baseline fails first, "
        "then those whose nDCG@10 (linear gain) changes most under some candidate (ties by id); "
        f"of the others, {N - 4} the baseline passes and no candidate changes get none and 3 with "
        "no relevant judgment get none"
    )
    assert page_rule(results) == expected
    assert oracle.page_rule(results) == expected


def test_the_terminal_counts_one_page_left_out_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evidencedesk.cli import main

    # five questions above a page limit of 3: four change under the candidate (each gets a
    # page), the fifth neither fails nor changes (none)
    qids = [f"q{i}" for i in range(5)]
    base = {q: ["x", f"rel-{q}"] for q in qids}
    cand = {q: [f"rel-{q}", "x"] for q in qids} | {"q4": base["q4"]}
    root = write_project(tmp_path / "p", {q: {f"rel-{q}": 2} for q in qids},
                         {"base": base, "cand": cand})  # fmt: skip
    monkeypatch.setattr(plan, "PAGE_LIMIT", 3)
    assert main(["build", "--project", str(root), "--out", str(tmp_path / "site")]) == 0
    assert "\n  1 question page left out\n" in capsys.readouterr().out
    index = html.unescape((tmp_path / "site" / "index.html").read_text("utf-8"))
    assert "1 question page was left out: " in index
    assert "; of the others, 1 the baseline passes and no candidate changes gets none." in index
    listing = html.unescape(
        " ".join((tmp_path / "site" / "questions.html").read_text("utf-8").split())
    )
    assert "(4 of 5 questions have a page: " in listing
    assert "gets none; the 1 without one is listed here, and its numbers are in" in listing
    # the oracle restates the rule in the same words, with the same limit
    from evidencedesk.report import _oracle as oracle
    from evidencedesk.report._audit import audit

    monkeypatch.setattr(oracle, "_PAGE_LIMIT", 3)
    assert [d.line() for d in audit(tmp_path / "site")[0]] == []
