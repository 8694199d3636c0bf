"""Issue 15 (layout): Holm marks on the flip page, slice intervals and the small-n flag, and the
polish list, each asserted on numbers worked by hand or on the rendered demo / example pages."""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from evidencedesk.report import _values as values
from evidencedesk.report._benchmark import SMALL_SLICE, _slice_cell
from evidencedesk.report._build import _build_model
from evidencedesk.report._candidate import _change, note_heading
from evidencedesk.report._charts import _depth_tick
from evidencedesk.report._model import BuildOptions
from evidencedesk.report._values import config_word
from evidencedesk.results._compute import Book, tag_values
from evidencedesk.results._settings import Metric
from evidencedesk.results.types import TagValue
from evidencedesk.retrieval._stats import bootstrap_ci
from evidencedesk.retrieval.metrics import Judged
from tests.page_text import unmarked, visible
from tests.synthetic_runs import write_project


def text_of(page: Path) -> str:
    """The visible words of a page's main part (scripts and styles dropped, tags to spaces)."""
    html = page.read_text("utf-8")
    html = html[html.index("<main") :]
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return visible(html)


# -- Holm marks: four runs over ten questions, worked by hand --------------------------------
#
# One relevant document per question; a run puts it at rank 1 (RR 1) or rank 2 (RR 0.5).
#   base: rank 2 everywhere.  b: rank 1 everywhere.  c: rank 1 on q01-q07.  d: rank 1 on q01-q06.
# Sign tests (two-sided, untied): base-b 10/0 p = 2/2^10 = 0.001953125; base-c 7/0 p = 0.015625;
# base-d 6/0 p = 0.03125; b-c 3/0 p = 0.25; b-d 4/0 p = 0.125; c-d 1/0 p = 1.
# Variant pairs (m = 6), Holm: 0.001953125*6 = 0.01171875, 0.015625*5 = 0.078125,
# 0.03125*4 = 0.125, 0.125*3 = 0.375, 0.25*2 = 0.5, 1 -> only base-b is significant.
# Candidates against base (m = 3): 0.001953125*3 = 0.005859375, 0.015625*2 = 0.03125,
# max(0.03125*1, 0.03125) = 0.03125 -> all three are significant.

QIDS = tuple(f"q{n:02d}" for n in range(1, 11))


def _run_first(n: int) -> dict[str, list[str]]:
    """The relevant document at rank 1 on the first `n` questions, at rank 2 on the rest."""
    return {q: ([f"{q}-rel", "x"] if i < n else ["x", f"{q}-rel"]) for i, q in enumerate(QIDS)}


@pytest.fixture(scope="module")
def holm_model():  # type: ignore[no-untyped-def]
    root = Path(tempfile.mkdtemp(prefix="ed-holm-"))
    atexit.register(shutil.rmtree, root, True)
    runs = {"base": _run_first(0), "b": _run_first(10), "c": _run_first(7), "d": _run_first(6)}
    qrels = {q: {f"{q}-rel": 2} for q in QIDS}
    project = write_project(root, qrels, runs, report='metrics = ["mrr"]\nprimary = "mrr"')
    return _build_model(BuildOptions(project=project), lambda stage: None)


def test_holm_marks_only_the_pairs_that_survive_the_correction(holm_model) -> None:  # type: ignore[no-untyped-def]
    fm = holm_model.flip_matrix
    assert fm.variants[0] == fm.baseline == "base"
    got = {
        (x.against, x.run): (x.cell.text, x.cell.row.p, x.cell.row.holm_p, x.cell.significant)
        for x in fm.pairs
    }
    assert got == {
        ("base", "b"): ("+10/−0", 0.001953125, 0.01171875, True),
        ("base", "c"): ("+7/−0", 0.015625, 0.078125, False),
        ("base", "d"): ("+6/−0", 0.03125, 0.125, False),
        ("b", "c"): ("+0/−3", 0.25, 0.5, False),
        ("b", "d"): ("+0/−4", 0.125, 0.375, False),
        ("c", "d"): ("+0/−1", 1.0, 1.0, False),
    }
    cands = {x.run: (x.cell.row.holm_p, x.cell.significant) for x in fm.candidates}
    assert cands == {"b": (0.005859375, True), "c": (0.03125, True), "d": (0.03125, True)}
    # the candidates' family is the one their pages show
    assert {c.name: c.flips.row.holm_p for c in holm_model.candidates} == {
        "b": 0.005859375, "c": 0.03125, "d": 0.03125
    }  # fmt: skip


def test_holm_marks_reach_the_page(holm_model, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from evidencedesk.report._render import render_site

    render_site(holm_model, tmp_path / "site")
    html = (tmp_path / "site" / "flips.html").read_text("utf-8")
    legend = html.index('class="legend"')
    assert legend < html.index('id="candidates"') < html.index('id="matrix"')
    triangle = html[html.index('<table class="matrix">') :]
    triangle = triangle[: triangle.index("</table>")]
    assert triangle.count("significant after Holm (adjusted p=") == 1
    assert "adjusted p=0.012" in triangle
    listed = unmarked(html[html.index('<ul class="flip-list') :])
    listed = listed[: listed.index("</ul>")]
    assert listed.count("★ significant") == 1
    assert ("b against base: +10/−0 on MRR, sign-test p = 0.002, Holm-adjusted p = 0.012</span> "
            '<span class="sig">★ significant</span>') in listed  # fmt: skip


# -- slices: intervals and the small-n flag --------------------------------------------------


def _judged(qid: str, tags: tuple[str, ...], first: bool) -> Judged:
    grades = (2, 0) if first else (0, 2)
    return Judged(qid, tags, True, grades, (2,), (f"{qid}-a", f"{qid}-b"), 2)


def test_tag_values_carry_the_bootstrap_interval_of_the_tag_questions() -> None:
    judged = [_judged(f"s{i}", ("small",), i < 2) for i in range(4)]
    judged += [_judged(f"t{i}", ("ok",), i < 3) for i in range(5)]
    judged += [_judged("u0", ("alone",), True)]
    got = {t.tag: t for t in tag_values(judged, [Metric("mrr", "MRR")], "defined", Book(7), "run")}
    small, ok = got["small"], got["ok"]
    assert (small.mean, small.n) == (0.75, 4) and (ok.mean, ok.n) == (0.8, 5)
    expect = bootstrap_ci([1.0, 1.0, 1.0, 0.5, 0.5], seed=7)
    assert (ok.low, ok.high) == (expect.low, expect.high)
    assert (got["alone"].n, got["alone"].low, got["alone"].high) == (1, None, None)
    # without a book (a candidate's slices) there is no interval
    bare = tag_values(judged, [Metric("mrr", "MRR")], "defined")
    assert all(t.low is None and t.high is None for t in bare)


@pytest.mark.parametrize(("averaging", "mean", "n"), [("defined", 0.8, 5), ("trec_eval", 4 / 6, 6)])
def test_tag_values_follow_the_averaging_rule(averaging: str, mean: float, n: int) -> None:
    # "ok": five questions (MRR 1, 1, 1, 0.5, 0.5) and one judged with nothing relevant, left
    # out of the mean by default and counted 0 under trec_eval's averaging, as every other mean
    judged = [_judged(f"t{i}", ("ok",), i < 3) for i in range(5)]
    judged += [Judged("none", ("ok",), False, (0, 0), (), ("none-a", "none-b"), 2)]
    for bare in (True, False):
        (got,) = tag_values(judged, [Metric("mrr", "MRR")], averaging,
                            None if bare else Book(7), "run")  # fmt: skip
        assert (got.tag, got.n) == ("ok", n) and got.mean == pytest.approx(mean, abs=1e-15)


@pytest.mark.parametrize(
    ("n", "small", "interval"),
    [(SMALL_SLICE - 1, True, "[0.500, 1.000]"), (SMALL_SLICE, False, "[0.500, 1.000]")],
)
def test_slices_below_the_threshold_are_greyed(n: int, small: bool, interval: str) -> None:
    assert SMALL_SLICE == 5
    cell = _slice_cell(TagValue("mrr", "direct", 0.75, n, 0.5, 1.0))
    assert (cell.n, cell.small, values.interval(cell), values.number(cell.mean)) == (
        n, small, interval, "0.750")  # fmt: skip


def test_demo_slice_page_shows_intervals_greys_small_slices_and_explains_n(demo_site: Path) -> None:
    html = (demo_site / "slices.html").read_text("utf-8")
    page = text_of(demo_site / "slices.html")
    # hybrid's MRR on "direct": 10 questions, not greyed; "restricted": 2, greyed
    row = re.search(r'<tr><th scope="row">hybrid</th>(.*?)</tr>', html).group(1)  # type: ignore[union-attr]
    cells = re.findall(r"<td ([^>]*)>(.*?)</td>", row)
    tags = ["bangla", "direct", "exact_term", "paraphrase", "restricted", "stale", "structured",
            "unanswerable"]  # fmt: skip
    by_tag = dict(zip(tags, cells, strict=True))
    assert "small-n" not in by_tag["direct"][0] and "n=10" in by_tag["direct"][1]
    assert re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", by_tag["direct"][1])
    assert "small-n" in by_tag["restricted"][0] and "too few to read" in by_tag["restricted"][1]
    assert "small-n" in by_tag["bangla"][0]  # n = 4
    assert "Why n can be smaller than the index's tag counts" in page
    assert "restricted 2 of 3, unanswerable 0 of 3" in page


def test_candidate_slice_rows_below_the_threshold_are_never_highlighted(demo_site: Path) -> None:
    page = (demo_site / "candidate-rerank-feature-50853d0e.html").read_text("utf-8")
    rows = re.findall(
        r'<tr class="small-n"><th scope="row"><span class="tag">(\w+)</span>(.*?)</tr>', page
    )
    small = {tag: body for tag, body in rows}
    # structured: 4 questions, +0.208 — greyed, not coloured as a gain
    assert "structured" in small and "+0.208" in small["structured"]
    assert "up1" not in small["structured"] and "up2" not in small["structured"]
    assert '<tr><th scope="row"><span class="tag">direct</span>' in page  # 10: a plain row


# -- the polish list --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["demo", "example"])
def test_no_polish_item_left_on_candidate_pages(
    which: str, demo_site: Path, example_site: Callable[[str], Path]
) -> None:
    site = demo_site if which == "demo" else example_site("pipeline")
    for page in sorted(site.glob("candidate-*.html")):
        text = text_of(page)
        assert "line(s)" not in text, page.name
        assert "−0 %" not in text and "+0 %" not in text, page.name
        assert "hypothetical: hypothetical" not in text, page.name
        assert text.count("Reviewer's note") <= 1, page.name
        diff = page.read_text("utf-8")
        diff = diff[diff.index('<section id="diff">') :]
        diff = diff[: diff.index("</section>")]
        for literal in ("None", "True", "False"):
            assert f">{literal}<" not in diff, (page.name, literal)


def test_demo_candidate_pages_say_their_words(demo_site: Path) -> None:
    site = demo_site
    feature = text_of(site / "candidate-rerank-feature-50853d0e.html")
    assert "Gate GO, no lines raised" in feature
    assert "tokens / question (estimate) 220 220 −0.2 %" in feature
    assert feature.count("Reviewer's note") == 1  # the note's own bold heading, not a second h3
    prefilter = text_of(site / "candidate-no-pre-filter-2a5dbc26.html")
    assert "prefilter yes: filter before ranking no: filter after ranking" in prefilter
    cut = text_of(site / "candidate-pair-cut-to-8-words-5e5e6f4d.html")
    assert "max_words whole chunk (no cut) 8" in cut
    dense = text_of(site / "candidate-dense-first-stage-e9138755.html")
    # the sentence and the table use the same token numbers: 221 -> 213 is −3 % in both
    assert "tokens / question (estimate) 220 213 −3 %" in dense
    assert "3 % fewer prompt tokens" in dense
    assert "Latency is hypothetical: 4 ms per query + 1.5 ms per scored pair." in dense


def test_one_caveat_list_on_the_methods_page(demo_site: Path) -> None:
    page = (demo_site / "methods.html").read_text("utf-8")
    assert page.count('class="caveats"') == 0
    assert page.count("The dense searcher is a toy") == 1
    assert page.count("hand-written lexical stand-ins") == 1
    assert page.count("one- or two-question") == 1


def test_a_status_tag_is_not_printed_twice(demo_site: Path) -> None:
    head = (demo_site / "question-un01.html").read_text("utf-8")
    head = head[head.index('<p class="eyebrow">') :]
    head = head[: head.index("</p>")]
    assert head.count(">unanswerable<") == 1 and head.count(">restricted<") == 1


def test_charts_have_a_fallback_that_points_the_right_way(demo_site: Path) -> None:
    site = demo_site
    for name in ("index.html", "flips.html", "sizing.html", "ablations.html", "benchmark.html"):
        html = (site / name).read_text("utf-8")
        charts = html.count('<figure class="chart">')
        assert charts and html.count("<noscript><style>.chart-body { display: none; }") == charts
        assert "the table below" not in html or name != "index.html"
    flips = (site / "flips.html").read_text("utf-8")
    assert "the same numbers are in the tables above" in flips
    assert flips.index("</table>") < flips.index('<figure class="chart">')


def _unescaped(page: Path) -> str:
    """The page with plotly's JSON escapes (\\u002f, \\u003c, ...) decoded."""
    text = page.read_text("utf-8")
    return re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), text)


@pytest.mark.parametrize(
    ("pairs", "latency", "tick"),
    [
        (1.0, 5.5, "depth 1<br>1 pair · 5.5 ms"),
        (2.5, None, "depth 1<br>2.5 pairs"),
        (None, None, "depth 1"),
    ],
)
def test_a_sizing_tick_says_its_pairs_in_their_number(
    pairs: float | None, latency: float | None, tick: str
) -> None:
    costs = SimpleNamespace(pairs_per_question=pairs, latency_ms=latency)
    assert _depth_tick(SimpleNamespace(depth=1, costs=costs)) == tick  # type: ignore[arg-type]


def test_sizing_chart_plots_mrr_tokens_and_latency_in_ms(demo_site: Path) -> None:
    html = _unescaped(demo_site / "sizing.html")
    assert '"title":{"text":"MRR (95 % interval)"}' in html
    assert '"title":{"text":"tokens / question"}' in html
    assert "depth 3<br>3 pairs · 8.5 ms" in html and "depth 20<br>20 pairs · 34 ms" in html
    assert '"chosen: 3×3"' in html  # the marked setting: the cheapest inside the noise, on MRR
    assert "recall at final" not in html.split("<table")[0]  # not the chart's axis any more


def test_ablation_bars_carry_their_interval(demo_site: Path) -> None:
    html = (demo_site / "ablations.html").read_text("utf-8")
    assert '"error_x":{' in html
    page = text_of(demo_site / "ablations.html")
    assert "Paired 95 % interval" in page
    assert "prefilter=no: filter after ranking" in page and "prefilter=False" not in page


@pytest.mark.parametrize(
    ("base", "cand", "text"),
    [(220.7, 220.2, "−0.2 %"), (220.7, 213.4, "−3 %"), (4.0, 19.0, "+375 %"), (221, 221, "same"),
     (0.0, 10.0, "+10.0"), (None, 3.0, "—")],
)  # fmt: skip
def test_cost_change_never_reads_minus_zero(base: float, cand: float, text: str) -> None:
    assert _change(base, cand) == text


@pytest.mark.parametrize(
    ("field", "value", "word"),
    [("max_words", "None", "whole chunk (no cut)"), ("prefilter", "False", "no: filter after ranking"),
     ("prefilter", "True", "yes: filter before ranking"), ("other", "None", "not set"),
     ("other", "True", "yes"), ("depth", "10", "10")],
)  # fmt: skip
def test_config_words(field: str, value: str, word: str) -> None:
    assert config_word(field, value) == word


@pytest.mark.parametrize(
    ("note", "heading"),
    [("**Reviewer's note.** Checked.", ""), ("# Note\nChecked.", ""),
     ("Checked by hand.", "Reviewer's note"), (None, "")],
)  # fmt: skip
def test_note_heading_is_not_doubled(note: str | None, heading: str) -> None:
    assert note_heading(note) == heading


def test_methods_page_names_the_large_sample_method_only_when_it_was_used(
    holm_model, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace as swap

    from evidencedesk.report._assemble import present
    from evidencedesk.report._render import render_site
    from evidencedesk.retrieval._stats import LARGE

    results = holm_model.results
    assert present(results).meta.large_sample is None  # 10 questions: resampled
    first = results.variants[0]
    big = swap(first, metrics=(swap(first.metrics[0], n=LARGE + 1), *first.metrics[1:]))
    model = present(swap(results, variants=(big, *results.variants[1:])))
    assert model.meta.large_sample == LARGE
    render_site(model, tmp_path / "site")
    methods = (tmp_path / "site" / "methods.html").read_text("utf-8")
    assert "Above 3,000 questions (as here) the interval is read off" in methods
