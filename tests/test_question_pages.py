"""Question pages: every variant's and candidate's list, the side-by-side diff, the question list
and the links that land on them (one demo build, one small runs-only build past the page limit)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.errors import ResultsFileError
from evidencedesk.report._assemble import present
from evidencedesk.report._model import Question, RankedItem, SideBySide, VariantList
from evidencedesk.report._questions import (
    LIST_COLUMNS,
    LIST_DATA,
    QuestionLinks,
    aligned,
    links_of,
    list_script,
    snippet,
)
from evidencedesk.report._site import slug
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._plan import PAGE_LIMIT
from evidencedesk.results.types import Results
from tests.synthetic_runs import write_project


@pytest.fixture(scope="module")
def demo(demo_results: Results, demo_site: Path) -> tuple[Results, Path]:
    """The session's demo build (tests/conftest.py): its Results and its site."""
    return demo_results, demo_site


class Lists(HTMLParser):
    """Per element id of a question page: the chunk ids of its ranked rows, in order.

    A variant's list is the table after `<h3 id=list-…>`; a candidate's is the `<section
    id=vs-…>`'s rows that carry a candidate rank (dropped rows have none)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.lists: dict[str, list[str]] = {}
        self.marks: dict[tuple[str, str], list[str]] = {}
        self._current: str | None = None
        self._row: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
            if (a["id"] or "").startswith(("list-", "vs-")):
                self._current = a["id"]
                self.lists.setdefault(self._current or "", [])
        if tag == "tr" and self._current and a.get("data-chunk"):
            self._row = None
            if "move-dropped" not in (a.get("class") or ""):  # a dropped row: not in the list
                self.lists[self._current].append(a["data-chunk"] or "")
                self._row = a["data-chunk"]
        if tag == "span" and self._current and self._row and "mark" in (a.get("class") or ""):
            self.marks.setdefault((self._current, self._row), []).append(a.get("class") or "")


def parse(path: Path) -> Lists:
    parser = Lists()
    parser.feed(path.read_text("utf-8"))
    return parser


def ids(results: Results, qid: str, *, variant: str = "", candidate: str = "") -> list[str]:
    if variant:
        lists = results.variant(variant).lists
    else:
        lists = next(c for c in results.candidates if c.name == candidate).ranked(results)
    return list(next(r for r in lists if r.question == qid).ids)


def item(rank: int, cid: str) -> RankedItem:
    return RankedItem(rank, cid, 0)


# -- the side-by-side diff, worked by hand -------------------------------------------------------
@pytest.mark.parametrize(
    ("base", "cand", "cut", "expected"),
    [
        (
            "abc", "cad", (False, False),
            [("c", 3, 1, "up", 2, "▲ up 2"), ("a", 1, 2, "down", 1, "▼ down 1"),
             ("d", None, 3, "new", 0, "+ new"), ("b", 2, None, "dropped", 0, "− dropped")],
        ),
        ("ab", "ab", (False, False), [("a", 1, 1, "same", 0, "= same rank"),
                                      ("b", 2, 2, "same", 0, "= same rank")]),
        ("", "x", (False, False), [("x", None, 1, "new", 0, "+ new")]),
        ("xy", "", (False, False), [("x", 1, None, "dropped", 0, "− dropped"),
                                    ("y", 2, None, "dropped", 0, "− dropped")]),
        # lists held only to their top 20: a missing chunk may sit lower, and the mark says so
        ("ab", "bc", (True, True), [("b", 2, 1, "up", 1, "▲ up 1"),
                                    ("c", None, 2, "new", 0, "+ not in top 20"),
                                    ("a", 1, None, "dropped", 0, "− not in top 20")]),
    ],
)  # fmt: skip
def test_side_by_side_marks_each_move(base: str, cand: str, cut: tuple[bool, bool],
                                      expected: list[tuple[object, ...]]) -> None:  # fmt: skip
    rows = aligned([item(i, c) for i, c in enumerate(base, 1)],
                   [item(i, c) for i, c in enumerate(cand, 1)], *cut)  # fmt: skip
    got = [(r.chunk.chunk_id, r.base_rank, r.cand_rank, r.move, r.by, r.move_text) for r in rows]
    assert got == expected


def _question(folded: int, listed: str | None, changed: bool) -> Question:
    """A page with the baseline's list (ranks a, b, c) and run r's (c, d, a), the candidate r's
    rows against the baseline (c up 2, d new, a down 2, b dropped)."""
    base = VariantList("base", tuple(item(i, c) for i, c in enumerate("abc", 1)), 1, 1.0, None)
    run = VariantList("r", tuple(item(i, c) for i, c in enumerate("cda", 1)), None, 0.0, -1.0,
                      folded=folded)  # fmt: skip
    rows = aligned(list(base.items), list(run.items), False, False)
    diff = SideBySide("r", "vs-r", "candidate-r.html", changed, "worse", None, tuple(rows), (),
                      1, None, listed=listed)  # fmt: skip
    return Question("q1", "?", (), True, (), (base, run), (), candidates=(diff,))


def _ids(parts: tuple[tuple[object, ...], ...]) -> list[str]:
    return ["".join(getattr(r, "chunk", r).chunk_id for r in part) for part in parts]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("folded", "listed", "changed", "against", "parts"),
    [
        (0, "r", True, True, ["cda", "b"]),  # its rows, then the baseline's chunk it dropped
        (2, "r", True, True, ["cd", "ab"]),  # ranks 1-2 open; rank 3 folded with the dropped
        (0, None, True, False, ["cda"]),  # the candidate's rows are shown in its own section
        (0, "r", False, False, ["cda"]),  # the same list as the baseline's: its own items
        (2, None, True, False, ["cd", "a"]),  # its own items, rank 3 folded
    ],
)  # fmt: skip
def test_a_list_is_shown_against_the_baseline_only_as_its_candidates_run(
    folded: int, listed: str | None, changed: bool, against: bool, parts: list[str]
) -> None:
    question = _question(folded, listed, changed)
    shown_against, shown = question.rows_of(question.lists[1])
    assert (shown_against is question.candidates[0], _ids(shown)) == (against, parts)
    assert question.rows_of(question.lists[0]) == (None, (question.lists[0].items,))


def test_a_pages_list_is_found_by_its_variant() -> None:
    question = _question(0, "r", True)
    assert question.list_of("r") is question.lists[1]
    assert question.list_of("base") is question.lists[0]
    assert question.list_of("other") is None
    assert question.list_of(None) is None
    assert question.list_of("") is None


@pytest.mark.parametrize(
    ("text", "title", "expected"),
    [
        ("# Returns policy\n\nThirty days.", "Returns policy", "Thirty days."),
        ("## Refunds\nMoney back.", "Returns policy", "Refunds · Money back."),
        ("| size | frame |\n|---|:---:|\n| 180 | M |", "Sizes", "| size | frame | | 180 | M |"),
        ("word " * 40, "", ("word " * 32).strip() + "…"),  # 32 words: 159 characters
        ("", "T", ""),
    ],
)
def test_snippet_is_one_line_cut_at_a_word(text: str, title: str, expected: str) -> None:
    assert snippet(text, title) == expected


# -- the demo ------------------------------------------------------------------------------------
def test_a_demo_candidates_question_page_shows_its_list(demo: tuple[Results, Path]) -> None:
    results, out = demo
    page = parse(out / "question-rc02.html")
    # its own lists: side by side in its section; the same run as `dense`: shown once, in dense's
    # list (each row's change against the baseline there), which its section links
    assert page.lists[f"vs-{slug('depth 3')}"] == ids(results, "rc02", candidate="depth 3")
    assert page.lists["list-dense"] == ids(results, "rc02", candidate="dense first stage")
    assert page.lists[f"vs-{slug('dense first stage')}"] == []
    html = (out / "question-rc02.html").read_text("utf-8")
    section = html.split(f'id="vs-{slug("dense first stage")}"')[1].split("</section>")[0]
    assert '<p>Its list is dense\'s (<a href="#list-dense">above</a>), each chunk marked' in section
    listed = html.split('id="list-dense"')[1].split("</details>\n<details")[0]
    assert "<td>2</td><td>▲ up 1</td>" in listed and "<td>—</td><td>− dropped from 2</td>" in listed
    # worked from the demo's lists: hybrid [c0, c2, c1], dense first stage [c0, c1, spec-sheet:c2]
    assert ids(results, "rc02", variant="hybrid") == [
        "kc-recall-rd2-24:c0", "kc-recall-rd2-24:c2", "kc-recall-rd2-24:c1"
    ]  # fmt: skip
    model = next(q for q in present(results).questions if q.id == "rc02")
    dense = next(d for d in model.candidates if d.candidate == "dense first stage")
    assert [(r.chunk.chunk_id, r.move_text) for r in dense.rows] == [
        ("kc-recall-rd2-24:c0", "= same rank"),
        ("kc-recall-rd2-24:c1", "▲ up 1"),
        ("kc-spec-sheet:c2", "+ new"),
        ("kc-recall-rd2-24:c2", "− dropped"),
    ]
    assert dense.direction == "worse" and dense.critical_worse and dense.same_run == "dense"
    assert [(m.label, m.before, m.after, m.delta) for m in dense.metrics][2] == (
        "MRR",
        0.5,
        0.0,
        -0.5,
    )
    unchanged = next(d for d in model.candidates if d.candidate == "no pre-filter")
    assert not unchanged.changed and unchanged.rows == ()
    html = (out / "question-rc02.html").read_text("utf-8")
    assert "Same list as the baseline hybrid" in html
    assert "A critical question got worse</strong> under this candidate" in html


def test_every_flip_link_lands_on_that_runs_list(demo: tuple[Results, Path]) -> None:
    results, out = demo
    links = links_of(present(results).questions, listed=True)
    pages: dict[str, Lists] = {}
    checked = 0
    metric = results.settings.flips_metric
    flips = [
        (f.b, q, "variant" if f.family == "variants" else "candidate")
        for f in results.flips
        for q in (*f.better, *f.worse)
    ]
    flips += [
        (c.name, q, "candidate")
        for c in results.candidates
        for q in (*c.comparison(metric).better, *c.comparison(metric).worse)
    ]
    assert len(flips) > 100
    for name, qid, kind in flips:
        href = links.href(qid, **{kind: name})
        file, anchor = href.split("#")
        assert (out / file).is_file(), href
        page = pages.setdefault(file, parse(out / file))
        assert anchor in page.ids, href
        shown = page.lists[anchor]
        cand = next((c for c in results.candidates if c.name == name), None)
        if kind == "candidate" and cand is not None and cand.lists_of is not None:
            assert shown == [], href  # the same run as a variant: listed there, once
            shown = page.lists[f"list-{slug(cand.lists_of)}"]
        assert shown == ids(results, qid, **{kind: name}), href
        checked += 1
    assert checked == len(flips)
    # the candidate pages' better / worse links are exactly these hrefs
    for c in results.candidates:
        html = (out / f"candidate-{slug(c.name)}.html").read_text("utf-8")
        for q in (*c.comparison(metric).better, *c.comparison(metric).worse):
            assert f'href="{links.href(q, candidate=c.name)}"' in html


def test_an_external_runs_restricted_chunk_carries_its_mark(demo: tuple[Results, Path]) -> None:
    results, out = demo
    rs01 = next(q for q in present(results).questions if q.id == "rs01")
    run = next(v for v in rs01.lists if v.variant == "bm25-title")
    # the run searched the whole index: the old helmet and returns policies, then the restricted
    # returns-desk note, which the labels grade 1 and the default scope counts 0
    assert [(i.chunk_id, i.grade, i.marks, i.label_grade) for i in run.items] == [
        ("kc-helmets-v1:c1", 0, ("superseded",), None),
        ("kc-returns-v1:c2", 0, ("superseded",), None),
        ("kc-internal-returns-desk:c1", 0, ("restricted",), 1),
    ]
    note = run.items[2]
    assert note.title and note.snippet and not note.hidden
    page = parse(out / "question-rs01.html")
    assert page.marks[("list-bm25-title", "kc-internal-returns-desk:c1")] == [
        "mark mark-restricted"
    ]
    assert page.marks[("list-bm25-title", "kc-helmets-v1:c1")] == ["mark mark-superseded"]
    html = (out / "question-rs01.html").read_text("utf-8")
    assert "labelled 1, counts 0: out of scope" in html
    st01 = parse(out / "question-st01.html")
    assert st01.marks[("list-bm25-title", "kc-returns-v2:c1")] == ["mark mark-superseded"]


def test_the_question_list_holds_every_question(demo: tuple[Results, Path]) -> None:
    results, out = demo
    ql = present(results).question_list
    assert ql is not None and len(ql.rows) == 24 == ql.static_rows and ql.depth == 3
    rows = {r.id: r for r in ql.rows}
    rc02 = rows["rc02"]
    assert rc02.critical and rc02.better == () and rc02.passed is True and rc02.has_page
    assert rc02.worse == (
        "rerank feature", "depth 3", "depth 20", "dense first stage", "dense: MiniLM"
    )  # fmt: skip
    assert rows["st02"].better == ("final 5", "dense first stage", "dense: MiniLM")
    assert {q: rows[q].passed for q in ("st02", "rs02", "pp02", "un01", "sp01")} == {
        "st02": False, "rs02": False, "pp02": False, "un01": None, "sp01": True
    }  # fmt: skip
    assert ql.pass_rule.startswith("Pass: the baseline hybrid has a relevant chunk in its top 3")
    html = (out / "questions.html").read_text("utf-8")
    assert html.count('<tr><th scope="row">') == 24
    assert '<a href="question-rc02.html#vs-depth-3-2dc43db9">depth 3</a>' in html
    assert '<a href="questions.html" aria-current="page">Questions</a>' in html
    assert '<a href="questions.html">Questions</a>' in (out / "index.html").read_text("utf-8")
    script = (out / LIST_DATA).read_text("utf-8")
    prefix = "window.EVIDENCEDESK_QUESTIONS = "
    assert script.startswith(prefix) and script.endswith(";\n")
    data = json.loads(script[len(prefix) : -2])
    names = [c.name for c in results.candidates]
    assert [n for n, _ in data["candidates"]] == names and data["shown"] == 500
    assert len(data["rows"]) == 24
    row = next(r for r in data["rows"] if r[0] == "rc02")
    worse = [names.index(n) for n in rc02.worse]
    assert row == ["rc02", rc02.question, ["exact_term"], 1, [], worse, 1, "question-rc02.html"]


def test_the_list_script_keeps_markup_as_text() -> None:
    from evidencedesk.report._model import QuestionList, QuestionRow

    row = QuestionRow("q</script>", 'a <b>"x"</b>\u2028', ("t",), False, (), (), None, False)
    text = list_script(QuestionList((row,), 10, "", "MRR", 1, LIST_COLUMNS), ())
    assert "</script>" in text and "\u2028" not in text and "\\u2028" in text
    assert json.loads(text.split(" = ", 1)[1][:-2])["rows"][0][:2] == ["q</script>", row.question]


def test_links_of_a_question_without_a_page() -> None:
    feature, depth = f"list-{slug('hybrid + feature')}", f"vs-{slug('depth 3')}"
    links = QuestionLinks({"q1": frozenset({feature, depth, "vs-c"})}, listed=True)
    assert links.href("q1") == "question-q1.html"
    assert links.href("q1", variant="hybrid + feature") == f"question-q1.html#{feature}"
    assert links.href("q1", candidate="depth 3") == f"question-q1.html#{depth}"
    assert links.href("q1", candidate="depth 20") == "question-q1.html"  # no such section
    assert links.href("q 2/x", candidate="depth 3") == "questions.html#q=q%202%2Fx"
    assert QuestionLinks({}).href("q2") == ""
    assert links.to(candidate="c")("q1") == "question-q1.html#vs-c"


# -- results.json --------------------------------------------------------------------------------
def test_candidate_lists_are_stored_once(demo: tuple[Results, Path]) -> None:
    results, out = demo
    own = {c.name: (c.lists_of, len(c.lists)) for c in results.candidates}
    assert own["rerank blend"] == ("hybrid + blend", 0)
    assert own["dense first stage"] == ("dense", 0)
    assert own["depth 3"] == (None, 24) and own["final 5"] == (None, 24)
    final5 = next(c for c in results.candidates if c.name == "final 5")
    assert max(len(r.ids) for r in final5.lists) == 5
    # the stored lists come back whole: the file, read and written again, is the same bytes
    # (build()'s own Results equal the file's: tests/test_notebook_api.py)
    assert serialize.dumps(results) == (out / "results.json").read_text("utf-8")


def test_a_results_file_from_before_candidate_lists_still_loads(
    demo: tuple[Results, Path], tmp_path: Path
) -> None:
    data = json.loads((demo[1] / "results.json").read_text("utf-8"))
    for c in data["candidates"]:
        del c["lists"], c["lists_of"]
    old = tmp_path / "results.json"
    old.write_text(json.dumps(data), "utf-8")
    loaded = serialize.load(old)
    assert all(c.lists == () and c.lists_of is None for c in loaded.candidates)
    del data["candidates"][0]["exposure"]  # not an added key: still required
    old.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ResultsFileError) as info:
        serialize.load(old)
    assert str(info.value) == f"{old}: key candidates[0].exposure: expected a value, found null"


# -- beyond the page limit -----------------------------------------------------------------------
def test_beyond_the_page_limit_only_flips_and_fails_get_pages(tmp_path: Path) -> None:
    n = PAGE_LIMIT + 10
    qids = [f"q{i:03d}" for i in range(n)]
    qrels = {q: {f"rel-{q}": 2} for q in qids[:-1]} | {qids[-1]: {"other": 1}}
    base = {q: [f"rel-{q}", "x"] for q in qids}
    cand = dict(base)
    for q in qids[-6:-3]:  # three flips: the baseline has the answer at 2, the candidate at 1
        base[q], cand[q] = ["x", f"rel-{q}"], [f"rel-{q}", "x"]
    base[qids[-2]] = cand[qids[-2]] = ["x", "y"]  # the baseline fails (and so does the candidate)
    project = write_project(tmp_path / "p", qrels, {"base": base, "cand": cand})
    results = evidencedesk.build(project=project, out=tmp_path / "site")
    model = present(results)
    flipped, failing = set(qids[-6:-3]), {qids[-2]}
    assert {q.id for q in model.questions} == flipped | failing
    assert model.omitted_questions == n - 4
    ql = model.question_list
    assert ql is not None and [r.id for r in ql.rows] == qids and ql.static_rows == 500
    assert ql.depth == 10  # the gate's k of a runs-only project without a policy
    rows = {r.id: r for r in ql.rows}
    assert rows[qids[-2]].passed is False and rows[qids[-1]].passed is None
    assert rows[qids[-5]].better == ("cand",) and rows[qids[0]].passed is True
    site = tmp_path / "site"
    assert sorted(p.name for p in site.glob("question-*.html")) == sorted(
        f"question-{q}.html" for q in flipped | failing
    )
    html = (site / "questions.html").read_text("utf-8")
    assert html.count('<tr><th scope="row">') == 500
    assert f"the first 500 of {n} questions" in html
    data = (site / LIST_DATA).read_text("utf-8")
    assert data.count('"q') >= n and f'"{qids[-1]}"' in data
    links = links_of(model.questions, listed=True)
    assert links.href(qids[0], variant="cand") == f"questions.html#q={qids[0]}"
    assert links.href(qids[-5], candidate="cand") == f"question-{qids[-5]}.html#vs-cand"
    page = parse(site / f"question-{qids[-5]}.html")
    assert page.lists["vs-cand"] == []  # the same run as the variant cand: listed there, once
    assert page.lists["list-cand"] == [f"rel-{qids[-5]}", "x"]
    assert page.lists["list-base"] == ["x", f"rel-{qids[-5]}"]
