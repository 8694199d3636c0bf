"""The reviewer's site, page by page (no browser): shades by the size of a change, passages cut
to a snippet with their whole text behind it, the document list on its own capped page, one
line where a section would be empty, and slices led by the primary metric."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evidencedesk.report import _render as render
from evidencedesk.report._questions import FULL_TEXT, SNIPPET, passage
from evidencedesk.report._render import delta_class, flip_class, render_site
from evidencedesk.results._settings import _PIPELINE_COLUMNS, _RUNS_COLUMNS, Settings, reported
from evidencedesk.results.types import HeldBack
from tests import report_fixtures as rf
from tests.long_passages import LONG, built_site
from tests.test_site_polish import text_of

NO_TAGS = (
    "No tags in this project: add a tags file (<code>[questions] tags</code> in "
    "evidencedesk.toml) to see slices."
)


# -- shades: the size of the change, never its significance ---------------------------------
@pytest.mark.parametrize(
    ("value", "shade"),
    [(None, "d0"), (0.0, "d0"), (1e-13, "d0"), (0.167, "up1"), (-0.249, "down1"),
     (0.25, "up2"), (-0.333, "down2"), (0.5, "up3"), (-1.0, "down3"), (0.667, "up3")],
)  # fmt: skip
def test_a_change_is_shaded_by_its_size(value: float | None, shade: str) -> None:
    assert delta_class(value) == shade


@pytest.mark.parametrize(
    ("better", "worse", "tied", "shade"),
    [
        (3, 0, 18, "up1"),  # 3 of 21 = 14 %, however small its p: light
        (0, 5, 16, "down2"),  # 5 of 21 = 24 %
        (4, 5, 12, "down1"),  # net 1 of 21
        (6, 7, 8, "down1"),  # many flips both ways, net 1: light
        (33, 1, 3, "up3"),  # net 32 of 37 = 86 %
        (3, 0, 7, "up3"),  # 3 of 10 = 30 %: dark
        (2, 2, 10, "d0"),
    ],
)
def test_a_flip_count_is_shaded_by_its_net_share(
    better: int, worse: int, tied: int, shade: str
) -> None:
    assert flip_class(better, worse, tied) == shade


# -- passages ---------------------------------------------------------------------------------
def test_a_short_passage_is_its_own_snippet() -> None:
    assert passage("# Returns\n\nThirty days.", "Returns") == ("Thirty days.", "")


def test_a_long_passage_has_a_snippet_and_its_whole_text_behind_it() -> None:
    text = "First paragraph " + "word " * 60 + "\n\nSecond paragraph ends here."
    start, whole = passage(text)
    assert len(start) <= SNIPPET + 1 and start.endswith("…") and start.startswith("First")
    assert whole == text.strip()  # line breaks kept: the page shows the paragraphs


def test_a_very_long_passage_is_cut_at_a_word() -> None:
    text = "abstract " * 1000  # 9,000 characters
    start, whole = passage(text)
    assert whole == ("abstract " * 444).strip() + "…"  # 444 × 9 = 3,996 characters, then a word
    assert len(whole) <= FULL_TEXT + 1


def test_the_long_question_page_lists_first_and_folds_the_rest() -> None:
    html = (built_site("long") / "question-q01.html").read_text("utf-8")
    lists, graded = html.index('<section id="lists">'), html.index('<section id="graded">')
    assert lists < html.index('<section id="candidates">') < graded
    # each list: its top 10 open, ranks 11-20 in a details element, 5 more not listed
    # (cand is a run: its list also shows, folded with its ranks 11-20, what it dropped of base's)
    assert html.count("<summary>Ranks 11–20</summary>") == 1
    assert html.count("<summary>Ranks 11–20, then the documents of base it dropped</summary>") == 1
    assert html.count("5 more results not listed.") == 2
    # the graded table (30 passages) is folded; every passage's whole text sits behind a summary
    fold = html[graded:]
    assert (
        f"<summary>The {LONG} documents the judgments grade above 0 for this question, best first"
        in fold
    )
    assert fold.count('<details class="ptext">') == LONG
    # in the lists each text once: base's 20, and the one document of cand's top 20 base's lacks;
    # cand's other 19 rows and the one it dropped link to theirs
    assert html[lists:graded].count('<details class="ptext" id="t') == 21
    assert html.count('<a class="to-text" href="#t') == 20
    # ids cut by CSS keep the whole id in their title
    first = "doi:10.5555/collection.abstracts.2024.00000-revised-version"
    assert f'<code title="{first}">{first}</code>' in html


def test_no_tags_is_said_in_one_line_where_tables_would_be_empty() -> None:
    site = built_site("long")
    index = (site / "index.html").read_text("utf-8")
    dataset = index[index.index('<section id="dataset">') :]
    assert f'<h3>Tags</h3>\n<p class="empty-why">{NO_TAGS}</p>' in dataset
    slices = (site / "slices.html").read_text("utf-8")
    # the question counts stay: the page's claim, and what the slices would have split
    assert f'<p class="empty-why">{NO_TAGS} The questions: ' in slices and "<table" not in slices
    candidate = (site / "candidate-cand.html").read_text("utf-8")
    section = candidate[candidate.index('<section id="slices">') :]
    assert section[: section.index("</section>")].count("<table") == 0
    assert NO_TAGS in section


# -- documents on their own page --------------------------------------------------------------
def test_the_document_list_is_its_own_capped_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = rf.make_model()
    total = len(model.dataset.documents)
    monkeypatch.setattr(render, "DOCUMENTS_SHOWN", 1)
    render_site(model, tmp_path / "s")
    page = text_of(tmp_path / "s" / "documents.html")
    assert f"The first 1 of the {total} documents, in the corpus's order" in page
    assert total == 2 and "… and 1 more document, not listed here." in page  # in its number
    first = model.dataset.documents[0].id
    assert page.count(first) == 1
    index = (tmp_path / "s" / "index.html").read_text("utf-8")
    assert '<a href="documents.html">' in index and first not in index


def test_the_held_back_table_lists_its_first_pairs_and_counts_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus of near-identical texts holds thousands of held-back pairs: the evidence page
    lists the first (`_HELD_BACK_SHOWN`), counts every one and says where the rest are."""
    model = rf.make_model()
    assert model.evidence is not None
    held = tuple(HeldBack(f"a{i}:c0", f"b{i}:c0", "same words, different numbers")
                 for i in range(5))  # fmt: skip
    model = replace(model, evidence=replace(model.evidence, held_back=held))
    monkeypatch.setattr(render, "_HELD_BACK_SHOWN", 2)
    render_site(model, tmp_path / "s")
    page = text_of(tmp_path / "s" / "evidence.html")
    assert "5 near-duplicate pairs held back because their numbers differ" in page
    assert "a1:c0" in page and "a2:c0" not in page
    assert ("… and 3 more pairs held back, not listed here ( results.json : "
            "evidence.held_back ).") in page  # fmt: skip
    monkeypatch.setattr(render, "_HELD_BACK_SHOWN", 4)  # one left: in its number
    render_site(model, tmp_path / "one")
    assert "… and 1 more pair held back, not listed here" in text_of(
        tmp_path / "one" / "evidence.html"
    )
    monkeypatch.setattr(render, "_HELD_BACK_SHOWN", 5)
    render_site(model, tmp_path / "t")
    page = text_of(tmp_path / "t" / "evidence.html")
    assert "a4:c0" in page and "more pairs held back" not in page


def test_a_project_without_documents_has_no_document_page(tmp_path: Path) -> None:
    model = rf.make_model()
    model = replace(model, dataset=replace(model.dataset, documents=()))
    pages = render_site(model, tmp_path / "s")
    assert "documents.html" not in pages
    assert "documents.html" not in (tmp_path / "s" / "index.html").read_text("utf-8")


# -- slices: the primary metric first ---------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "names", "primary", "slices"),
    [
        ("pipeline", ("mrr", "recall@3", "ndcg@5"), None, ("mrr", "recall@3")),
        ("runs", ("ndcg@10:linear", "recall@10", "precision@10", "mrr"), None,
         ("ndcg@10:linear", "mrr", "precision@10")),
        ("runs", ("mrr", "precision@10"), "precision@10", ("precision@10", "mrr")),
    ],
)  # fmt: skip
def test_slices_start_with_the_primary_metric(
    kind: str, names: tuple[str, ...], primary: str | None, slices: tuple[str, ...]
) -> None:
    columns = _RUNS_COLUMNS if kind == "runs" else _PIPELINE_COLUMNS
    compared = reported(names, primary)
    settings = Settings(0, 2, kind, columns, compared, compared[0].name, None)  # type: ignore[arg-type]
    assert tuple(m.name for m in settings.slices) == slices


def test_the_runs_only_slices_and_candidate_show_the_primary_metric(
    example_site: Callable[[str], Path],
) -> None:
    site = example_site("runs-only")
    slices = (site / "slices.html").read_text("utf-8")
    assert re.findall(r"<h2>(.*?)</h2>", slices) == ["nDCG@10 (linear gain)", "MRR", "P@10"]
    candidate = (site / "candidate-rerank.html").read_text("utf-8")
    section = candidate[candidate.index('<section id="slices">') :]
    section = section[: section.index("</section>")]
    assert "<h2>Slices: nDCG@10 (linear gain) by tag</h2>" in section
    tags = re.findall(r'<th scope="row"><span class="tag">(\w+)</span>', section)
    assert tags == ["direct", "exact_term", "number", "paraphrase", "unanswerable"]


# -- say things once ----------------------------------------------------------------------------
def test_the_demo_says_its_caveats_in_full_on_the_index_and_in_a_line_elsewhere(
    demo_site: Path,
) -> None:
    site = demo_site
    toy = "The dense searcher is a toy: hashed word and character-trigram features"
    assert (site / "index.html").read_text("utf-8").count(toy) == 1
    assert (site / "methods.html").read_text("utf-8").count(toy) == 1
    line = (
        '<p class="caveat-line"><strong>Read with care:</strong> {} (<a '
        'href="methods.html#caveats">each in full</a>).</p>'
    )
    toy_line, minilm_line = (
        "the dense searcher is a toy",
        "MiniLM is a bi-encoder, not a cross-encoder",
    )
    lexical, tuned = "the rerankers are lexical stand-ins", "tuned on these labels"
    # a candidate's page: the caveats of its and the baseline's (hybrid, toy dense) components
    for name, said in [
        ("ablations.html", (toy_line, lexical, tuned)),  # the built-in stages: no MiniLM
        ("candidate-rerank-overlap-b089019e.html", (toy_line, lexical, tuned)),
        ("candidate-dense-minilm-54de3130.html", (toy_line, minilm_line, tuned)),
        ("candidate-final-5-eb8a8428.html", (toy_line, tuned)),
    ]:
        page = (site / name).read_text("utf-8")
        assert line.format(" · ".join(said)) in page and toy not in page, name
    for name in ("flips.html", "gate.html", "question-rc02.html", "benchmark.html"):
        page = (site / name).read_text("utf-8")
        assert page.count('class="caveat-line"') == 1 and toy not in page, name


def test_document_attributes_appear_only_where_the_documents_differ_in_them(
    demo_site: Path, example_site: Callable[[str], Path]
) -> None:
    """The demo's front matter varies status, visibility and language: three columns; a BEIR
    corpus has none of them (every document "current", "public", "und"): no such column."""
    demo = (demo_site / "documents.html").read_text("utf-8")
    head = demo[demo.index("<thead>") : demo.index("</thead>")]
    assert [h for h in ("Status", "Visibility", "Language") if f">{h}</th>" in head] == [
        "Status", "Visibility", "Language"]  # fmt: skip
    assert "<td>superseded</td>" in demo and "<td>bn</td>" in demo
    beir = (example_site("pipeline") / "documents.html").read_text("utf-8")
    head = beir[beir.index("<thead>") : beir.index("</thead>")]
    assert (
        ">Status</th>" not in head and ">Language</th>" not in head and "<td>und</td>" not in beir
    )
    assert "The documents carry no status, visibility or language that differs between them." in \
        " ".join(beir.split())  # fmt: skip
