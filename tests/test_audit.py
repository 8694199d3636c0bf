"""`evidencedesk audit SITE`: every site the suite builds agrees with its results.json, and each
kind of false sentence the site once made, planted into a built site, is named."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evidencedesk import cli as main_cli
from evidencedesk._metric_names import canonical
from evidencedesk.cli._audit import forked_pages
from evidencedesk.errors import AuditError
from evidencedesk.report._audit import (
    _ANY,
    _ANY_FIRST,
    _DECIMAL,
    _holding_any,
    _read,
    _Text,
    audit,
)
from tests.generated_projects import generated, shape_of
from tests.planting import NOBODY, on_the_page, planted

SEEDS = range(10)  # every primary metric, grade scale, relevance threshold, policy or none


def test_the_demo_agrees(demo_site: Path) -> None:
    found, claims, pages = audit(demo_site)
    assert found == []
    assert claims > 500 and pages >= 30


@pytest.mark.parametrize("which", ["pipeline", "runs-only"])
def test_the_example_projects_agree(which: str, example_site: Callable[[str], Path]) -> None:
    found, claims, _ = audit(example_site(which))  # the session's build (tests/conftest.py)
    assert found == []
    assert claims > 50


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_projects_agree(seed: int, generated_site: Callable[[int], Path]) -> None:
    shape = shape_of(seed)
    site = generated_site(seed)  # built once for the run: project 1 is also ndcg_site's
    found, claims, _ = audit(site)
    assert [d.line() for d in found] == [], shape
    results = json.loads((site / "results.json").read_text("utf-8"))
    assert results["settings"]["compared"][0]["name"] == canonical(shape.primary)
    assert len(results["candidates"]) == shape.candidates
    assert claims > 0


def test_the_generated_shapes_cover_what_teams_bring() -> None:
    shapes = [shape_of(s) for s in SEEDS]
    assert {s.primary for s in shapes} == {"mrr", "ndcg@10:linear", "ndcg@5:exp", "recall@10",
                                           "precision@5"}  # fmt: skip
    assert {s.scale for s in shapes} == {(0, 1), (0, 1, 2), (0, 1, 2, 3), (0, 1, 2, 3, 4),
                                         (-2, 0, 1, 2)}  # fmt: skip
    assert {s.relevance for s in shapes} == {1, 2}
    assert {s.policy for s in shapes} == {True, False}
    assert any(s.critical for s in shapes) and any(s.unjudged for s in shapes)
    assert {1, 12} <= {s.candidates for s in [shape_of(s) for s in range(12)]}


# each kind of false sentence the site once made, planted where the site says the true one;
# the audit names it with what results.json says instead
def test_text_from_data_is_not_read_as_a_claim(demo_site: Path, tmp_path: Path) -> None:
    """A document title (data: rendered with dir="auto") saying "not proven" and a number makes
    no claim; the same words in the report's own prose are unbacked."""
    title = '<td dir="auto">Stores and opening hours'
    words = " (termination is not proven; MRR rose by 0.100, p = 0.001)"
    site = planted(demo_site, tmp_path / "data", "documents.html", title, title + words)
    assert audit(site)[0] == []
    lede = '<p class="lede">The 20 documents of the corpus'
    site = planted(demo_site, tmp_path / "prose", "documents.html", lede, lede + words)
    found = [d.line() for d in audit(site)[0]]
    assert len(found) >= 1 and all(line.startswith("documents.html: ") for line in found)
    assert any("not proven" in line for line in found)


@pytest.fixture(scope="module")
def named_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated project 3 with its run cand01 named "hybrid 0.75": a name holding a decimal."""
    root = tmp_path_factory.mktemp("named")
    toml, _ = generated(root / "project", 3)
    (root / "project" / "runs" / "cand01.run").rename(root / "project" / "runs" / "hybrid 0.75.run")
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return root / "site"


NAMED = '<a href="candidate-hybrid-0-75-1774aaf8.html"><bdi dir="auto">hybrid 0.75</bdi></a></th>'


def test_a_name_holding_a_decimal_is_data(named_site: Path, tmp_path: Path) -> None:
    """A run named "hybrid 0.75" is the team's name, marked as data wherever the site prints it
    (tables, sentences, its candidate page's rationale, the methods page's downloads): the site
    audits ok. A number planted beside the name is read all the same."""
    assert [d.line() for d in audit(named_site)[0]] == []
    assert NAMED in (named_site / "benchmark.html").read_text("utf-8")
    # inside an attribute the name is only escaped: a mark there would end the attribute's quotes
    pages = [p.read_text("utf-8") for p in sorted(named_site.glob("*.html"))]
    assert not [p for p in pages if '="<bdi' in p]
    assert any('data-list="hybrid 0.75"' in p for p in pages)
    site = planted(named_site, tmp_path, "benchmark.html", NAMED,
                   NAMED.replace("</bdi>", "</bdi> 0.912"))  # fmt: skip
    assert [d.line() for d in audit(site)[0]] == [
        f"benchmark.html: '0.912': {NOBODY.replace('sentence', 'table cell')}"
    ]


def test_a_reviewers_note_is_the_teams_words(demo_site: Path, tmp_path: Path) -> None:
    """A note (the team's Markdown, in ``<div class="note">``) saying a number makes no claim;
    the same words after the note are the report's and unbacked."""
    page, note = "candidate-rerank-feature-50853d0e.html", "<strong>Reviewer's note.</strong>"
    words = " In production MRR was 0.850 last quarter."
    assert audit(planted(demo_site, tmp_path / "note", page, note, note + words))[0] == []
    site = planted(demo_site, tmp_path / "prose", page, '<div class="note">',
                   f"<p>{words.strip()}</p><div class=\"note\">")  # fmt: skip
    assert [d.line() for d in audit(site)[0]] == [
        f"{page}: 'In production MRR was 0.850 last quarter.': {NOBODY}"
    ]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("MRR rose by 0.100", "0.100"),
        ("Δ −0.05 at most", "−0.05"),
        ("a drop of -0.25", "-0.25"),
        ("the mean (0.634).", "0.634"),
        ("chunk d1.25 of FT911-3.25", None),  # ids
        ("evidencedesk 0.10.0", None),  # a version
        ("data/runs/v0.25.run, alpha=0.50", None),  # a path, a name
        ("top 10 of 1,000 questions in 2026", None),  # whole numbers: counts, k, a year
    ],
)
def test_what_reads_as_a_decimal(text: str, read: str | None) -> None:
    hit = _DECIMAL.search(text)
    assert (hit.group() if hit else None) == read


# what `_unbacked` must find (each of `_ANY`'s patterns, at a block's start and end, in either
# case, beside the part `_holding_any` joins the blocks with) and what it must not
_ANYTHING = ["0.125", "x −0.50", "(p = 0.2)", "p<0", "+3/−1", "NOT PROVEN", "Leans better",
             "lean no way", "did not move", "Useful context", "grade 2 means", "P = 0.000",
             "\x00 0.25 \x00", "a\x00p = 1"]  # fmt: skip
_NOTHING = ["d1.25", "rank 1", "0.10.0", "p =x", "+3", "proven", "grades 2", "", "\x00"]


def test_the_blocks_searched_for_what_no_claim_backs() -> None:
    """`_holding_any` finds, in one search of a page's blocks, exactly the blocks `_ANY` finds
    something in, one by one: its cheaper first search misses none (a block holding the part
    it joins them with is searched one by one)."""
    for text in _ANYTHING + _NOTHING:
        if _ANY.search(text) is not None:
            assert _ANY_FIRST.search(text) is not None, text
    blocks = tuple((t, t) for t in [*_NOTHING, *_ANYTHING, *_NOTHING])
    assert [b for b, _ in _holding_any(blocks)] == [t for t in _ANYTHING]
    clean = tuple((t, t) for t in _NOTHING if "\x00" not in t)
    assert _holding_any(clean) == []
    assert [b for b, _ in _holding_any((*clean, ("0.25", "0.25")))] == ["0.25"]


def _standard(raw: str) -> tuple[Any, ...]:
    """What `_Text` reads of `raw` fed by html.parser itself."""
    standard = _Text()
    standard.feed(raw)
    standard.close()
    return (tuple(standard.prose), tuple(standard.cells), tuple(standard.marked),
            tuple(standard.values), tuple(standard.marked_in), tuple(standard.claim_after))  # fmt: skip


# markup the pages do not write: comments, a script holding a tag, an unquoted attribute, a
# self-closed element, character references, elements left open inside data text and inside a
# mark, a stray end tag, a lone "<", upper-case tags, a repeated attribute
TRICKY = (
    '<!DOCTYPE html><!-- a <p>comment</p> --><script>if (a < b) { x = "<td>0.500</td>" }</script>'
    "<p class=x data-n=3>R&amp;D rose by 0.100 &lt;p&gt;</p><div/><span data-v='1"
    '7\'>0.844</span><td dir="auto">0.912</td><br/>tail 0.25',
    '<p><i><span dir="auto">0.125 <b>x</i> 0.250 </p><div class="a note">0.375</div>0.500',
    '<td><span data-claim="index.html 3">0.1 <span>0.2</td> 0.3</span> after</span></p></q>',
    "<P>a < b 0.100 &amp c</P><SPAN DATA-V=x>0.1</SPAN><span dir=auto dir=ltr>0.125</span>",
    "<table><tr><td>1</td><td>2<table><td>0.3</td></table>0.4</td></tr></table><style>p{}</style>",
    '<span data-claim="x 1"/>0.625 <code dir="auto"><span data-v="p">0.5</span></code> 0.75',
    # tables and rows read whole: a head and a body of leaf and value cells, text before the
    # table in an open block, a marked value's references, a body alone, an empty table, rows
    # outside a table, a table that cannot be read whole (a caption) and a note in a cell
    '<p>before 0.5<table class="t" data-list="a&amp;b">\n <thead><tr><th scope="col">x</th>'
    '<th>y &amp; z</th></tr></thead>\n <tbody><tr data-chunk="d1"><td>1</td><td><i>0.25</i></td>'
    '<td class="up1"><span data-v=g&amp;1>+0.&#49;00</span></td></tr>\n<tr><th scope="row">'
    "R@10</th><td><span data-v=g2></span></td><td><b>a</b> <code>d2</code></td></tr></tbody>"
    "</table>after 0.75</p><table><tbody><tr><td>0.125</td></tr></tbody></table><table></table>"
    "<tr><td>2</td><td><span data-v=g3>0.300</span></td></tr> tail",
    '<table><caption>0.5</caption><tr><td>1</td></tr></table><table><tr><td><div class="note">'
    "0.7</div></td><td>0.8</td></tr></table><table><thead><tr><td>1</td></tr></thead></table>",
    # runs of start and end tags read in one loop: a boolean attribute, end tags of what is not
    # open (a span, a table), a block closing what it left open, a note and a dir left out
    '<p>a 0.1 <section id="s"> <details open>\n<summary>0.5</summary><div class="x"></section>'
    '</div></span></table> b <div class="a note">0.6</div><details OPEN>0.7</details></details>'
    '<div dir="auto">0.8</div><ul>\n<li>0.9</li></ul></p>',
)


def test_the_pages_read_as_the_standard_parser_reads_them(demo_site: Path) -> None:
    """The audit's one-pass reader reads what html.parser hands `_Text`, on every page of the
    demo and on markup the pages do not write (`TRICKY`)."""
    cell = ("<table><tr><td>a &amp; <td><span data-v=g&amp;2> 1.0 &lt; 2 </span></td>"
            '<td class="x"><span data-v=g3></span></td></table>')  # fmt: skip
    pages = [p.read_text("utf-8") for p in sorted(demo_site.glob("*.html"))] + [*TRICKY, cell]
    for raw in pages:
        shown = _read(raw)
        fast = (shown.prose, shown.cells, shown.marked, shown.values, shown.marked_in,
                shown.claim_after)  # fmt: skip
        assert fast == _standard(raw)
    assert ("R&D rose by 0.100 <p>", "R&D rose by 0.100 <p>") in _read(TRICKY[0]).prose
    # a cell of one marked value, read whole: its text, and its mark's words, as one cell
    cells = _read(cell)
    assert (cells.cells, cells.values) == ((("a &", "a &"), ("1.0 < 2", "")),
                                           (("g&2", "1.0 < 2"), ("g3", "")))  # fmt: skip
    # the <i> that holds the data text closes it: what follows is read
    assert _read(TRICKY[1]).prose == (("0.250", "0.250"), ("0.500", "0.500"))


@pytest.fixture
def small_is_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's 46 pages handed to the forked readers as a large site's are (its audit takes
    a tenth of the split site's)."""
    from evidencedesk.cli import _audit as audit_command

    monkeypatch.setattr(audit_command, "_FORK_FROM", 1)


def test_forked_readers_print_the_lines_of_one_process(
    demo_site: Path, tmp_path: Path, small_is_large: None
) -> None:
    # the command line hands a large site's pages to two forked readers (page i to reader i mod
    # 2): the lines come back in the pages' order, as one process prints them
    site = planted(demo_site, tmp_path, "question-bn01.html",
                   '<tr data-chunk="kc-faq-bn:c2"><td>2</td>',
                   '<tr data-chunk="kc-faq-bn:c2"><td>3</td>')  # fmt: skip
    # the next page, which the other reader reads
    page = site / "question-bn02.html"
    text = page.read_text("utf-8")
    page.write_text(text.replace('<tr data-chunk="kc-faq-bn:c2"><td>2</td>',
                                 '<tr data-chunk="kc-faq-bn:c2"><td>9</td>', 1), "utf-8")  # fmt: skip
    expected = [
        "question-bn01.html: 'rank 3: kc-faq-bn:c2': results.json says 'rank 2: kc-faq-bn:c2' "
        "(variants[0].lists[11].ids[1])",
        "question-bn02.html: 'rank 9: kc-faq-bn:c2': results.json says 'rank 2: kc-faq-bn:c2' "
        "(variants[1].lists[12].ids[1])",
    ]
    assert [d.line() for d in audit(site)[0]] == expected
    assert [d.line() for d in audit(site, forked_pages)[0]] == expected


def test_a_forked_reader_raises_what_one_process_raises(
    demo_site: Path, tmp_path: Path, small_is_large: None
) -> None:
    site = tmp_path / "site"
    shutil.copytree(demo_site, site)
    (site / "question-dr01.html").write_bytes(b"\xff\xfe not text")
    with pytest.raises(AuditError) as one:
        audit(site)
    with pytest.raises(AuditError) as forked:
        audit(site, forked_pages)
    assert str(forked.value) == str(one.value)
    assert str(one.value) == (
        f"{site / 'question-dr01.html'}:1: expected UTF-8 text, found byte 0xff at offset 0"
    )


def test_the_command_forks_page_readers_only_with_tune(
    demo_site: Path, monkeypatch: pytest.MonkeyPatch, small_is_large: None
) -> None:
    # the readers are the `fork` process setting, off by default as the build's forked writers
    import os

    monkeypatch.delenv("EVIDENCEDESK_TUNING", raising=False)
    forks: list[int] = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real_fork())
    for argv, made in (
        (["audit", str(demo_site)], 0),
        (["audit", "--tune", "fork", str(demo_site)], 2),
    ):
        out, err = io.StringIO(), io.StringIO()
        assert (main_cli.main(argv, stdout=out, stderr=err), err.getvalue()) == (0, "")
        assert out.getvalue().startswith("ok:"), out.getvalue()
        assert (len(forks), argv) == (made, argv)


@pytest.mark.parametrize(
    ("which", "page", "old", "new", "line"),
    [
        (  # a count changed: the list holds 15 results, 10 of them ranked on the page
            "split", "question-q001.html", '<p class="muted">5 more results not listed.</p>',
            '<p class="muted">6 more results not listed.</p>',
            "question-q001.html: '6 more results of base not listed': results.json says 5 "
            "(variants[0].lists[0].size 15, 10 ranks shown)",
        ),
        (  # the count in its number for one result: still read
            "split", "question-q001.html", '<p class="muted">5 more results not listed.</p>',
            '<p class="muted">1 more result not listed.</p>',
            "question-q001.html: '1 more result of base not listed': results.json says 5 "
            "(variants[0].lists[0].size 15, 10 ranks shown)",
        ),
        (  # a count added where the page ranks the whole list
            "demo", "question-bn01.html", '</div>\n</details>\n<details class="ranked">',
            '</div>\n<p class="muted">2 more results not listed.</p></details>\n'
            '<details class="ranked">',
            "question-bn01.html: '2 more results of sparse not listed': results.json says 0 "
            "(variants[0].lists[11].size 3, 3 ranks shown)",
        ),
    ],
)  # fmt: skip
def test_the_results_a_page_leaves_out_are_counted_from_results_json(
    which: str, page: str, old: str, new: str, line: str, demo_site: Path, split_site: Path,
    tmp_path: Path,
) -> None:  # fmt: skip
    site = planted(demo_site if which == "demo" else split_site, tmp_path, page, old, new)
    assert [d.line() for d in audit(site, on_the_page(page))[0]] == [line]


def test_the_methods_page_of_a_site_above_3000_questions_audits_ok(
    demo_site: Path, tmp_path: Path
) -> None:
    # the rule's size, as the methods page of a project above `stats.LARGE` questions states it
    # (audit read it as a question count no claim backed, on every such site)
    rule = (" Above 3,000 questions (as here) the interval is read off the bootstrap "
            "distribution's Cornish–Fisher expansion (mean, spread and skewness of the values) "
            "and the randomization p off the permutation distribution's normal limit, instead "
            "of resampling: at that size the two agree within the noise of 10,000 resamples, and "
            "resampling would take seconds per interval.")  # fmt: skip
    at = "bootstrap of the per-question difference."
    assert audit(planted(demo_site, tmp_path / "rule", "methods.html", at, at + rule))[0] == []
    # a count of questions the project has is still a claim to back
    count = " The interval is over 3,000 questions."
    assert [
        d.line()
        for d in audit(planted(demo_site, tmp_path / "count", "methods.html", at, at + count))[0]
    ] == [  # fmt: skip
        "methods.html: 'The interval is over 3,000 questions.': results.json says nothing: no "
        "claim backs this sentence"
    ]


def test_a_count_in_the_projects_name_is_data_on_the_methods_page() -> None:
    from evidencedesk.report._audit import _unbacked

    name = "large project (1250 questions)"
    title = _read(f"<p>Methods · {name} · evidencedesk</p>")
    assert _unbacked("methods.html", title, name) == []
    assert [d.line() for d in _unbacked("methods.html", title)] == [
        "methods.html: 'Methods · large project (1250 questions) · evidencedesk': results.json "
        "says nothing: no claim backs this sentence"
    ]
    # a count beside the name is still a count to back
    beside = _read(f"<p>{name} over 30 questions.</p>")
    assert [d.line() for d in _unbacked("methods.html", beside, name)] == [
        "methods.html: 'large project (1250 questions) over 30 questions.': results.json says "
        "nothing: no claim backs this sentence"
    ]


def test_an_input_error_crosses_a_fork_whole() -> None:
    # a forked child hands its error to the parent pickled: the line and its parts come back
    import pickle

    error = AuditError("/site/q.html", "expected UTF-8 text, found byte 0xff at offset 0", 1)
    back = pickle.loads(pickle.dumps(error))
    assert (type(back), str(back), back.path, back.detail, back.line) == (
        AuditError, "/site/q.html:1: expected UTF-8 text, found byte 0xff at offset 0",
        "/site/q.html", "expected UTF-8 text, found byte 0xff at offset 0", 1,
    )  # fmt: skip
