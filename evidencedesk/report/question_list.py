"""The question list (questions.html) and the one place question hrefs are made.

`QuestionLinks.href` is how every page links a question id: shown for a run, to the question
page's list of that run; shown for a candidate, to its side-by-side diff there; a question
without a page (beyond the page limit and cap, results.pages) to its row in the question list. The list itself is one
lean row per question (tags, critical, which candidates change it, the baseline's pass/fail),
written into the page for the first `_STATIC_ROWS` and, for the list's script, as a data file.
Formatting only: pass/fail reads the baseline's stored rank of its first relevant chunk.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from evidencedesk.report.model import Question, QuestionList, QuestionRow
from evidencedesk.report.site import slug
from evidencedesk.results.pages import pass_depth, passes
from evidencedesk.results.types import Results

_STATIC_ROWS = 500  # question-list rows written into the page (readable without JavaScript)
LIST_PAGE = "questions.html"  # the question list's page
LIST_DATA = "data/question-list.js"  # every row, for the list's script


def _question_file(qid: str) -> str:
    return f"question-{slug(qid)}.html"


def list_anchor(variant: str) -> str:
    """The id of a variant's ranked list on a question page."""
    return f"list-{slug(variant)}"


def diff_anchor(candidate: str) -> str:
    """The id of a candidate's side-by-side diff on a question page."""
    return f"vs-{slug(candidate)}"


@dataclass(frozen=True)
class QuestionLinks:
    """Where a question id links: `pages` maps each id that has a page to the anchors on it;
    `listed`: the site has the question list, so an id without a page links to its row there."""

    pages: dict[str, frozenset[str]]
    listed: bool = False

    def href(self, qid: str, variant: str | None = None, candidate: str | None = None) -> str:
        """The question's page; with `variant`, the anchor of that run's list, with `candidate`
        the anchor of that candidate's side-by-side diff (the page's top if it has neither).
        Without a page (beyond the page limit), the question list filtered to the id; "" when
        there is neither."""
        anchors = self.pages.get(qid)
        if anchors is None:
            return f"{LIST_PAGE}#q={quote(qid, safe='')}" if self.listed else ""
        anchor = diff_anchor(candidate) if candidate else list_anchor(variant) if variant else ""
        return _question_file(qid) + (f"#{anchor}" if anchor in anchors else "")

    def to(self, variant: str | None = None, candidate: str | None = None) -> Callable[[str], str]:
        """`href` with the run or candidate fixed (for the templates' `qlist` macro)."""
        return lambda qid: self.href(qid, variant, candidate)


def links_of(questions: Sequence[Question], listed: bool) -> QuestionLinks:
    """The links of a site whose question pages are `questions`."""
    pages = {}
    for q in questions:
        anchors = frozenset([*(v.anchor for v in q.lists), *(d.anchor for d in q.candidates)])
        pages[q.id] = anchors
    return QuestionLinks(pages, listed)


def question_list(results: Results, pages: Collection[str]) -> QuestionList:
    """Every question as one lean row (`pages`: the ids that have a question page)."""
    metric = results.settings.flips_metric
    better: dict[str, list[str]] = {}
    worse: dict[str, list[str]] = {}
    for c in results.candidates:
        f = c.comparison(metric)
        for q in f.better:
            better.setdefault(q, []).append(c.name)
        for q in f.worse:
            worse.setdefault(q, []).append(c.name)
    critical = set(results.policy.critical) if results.policy is not None else set()
    passed = passes(results)
    rows = tuple(
        QuestionRow(q.id, q.question, tuple(q.tags), q.id in critical,
                    tuple(better.get(q.id, ())), tuple(worse.get(q.id, ())), passed.get(q.id),
                    q.id in pages)
        for q in results.inputs.questions
    )  # fmt: skip
    depth = pass_depth(results)
    return QuestionList(
        rows=rows,
        depth=depth,
        pass_rule=(
            f"Pass: the baseline {results.baseline} has a relevant chunk in its top {depth} (the "
            "check the gate's pass rate and critical rule make per question); fail: it has none; "
            "—: the question has no relevant judgment"
        ),
        metric=results.settings.metric(metric).label,
        static_rows=min(len(rows), _STATIC_ROWS),
    )


def list_script(ql: QuestionList, candidates: Sequence[str]) -> str:
    """`LIST_DATA`: every row as compact JSON for the list's script (a script file, so that it
    loads from file:// where fetch cannot)."""
    index = {name: i for i, name in enumerate(candidates)}
    data = {
        "candidates": [[name, diff_anchor(name)] for name in candidates],
        "shown": _STATIC_ROWS,
        "rows": [
            [
                r.id,
                r.question,
                list(r.tags),
                int(r.critical),
                [index[c] for c in r.better],
                [index[c] for c in r.worse],
                None if r.passed is None else int(r.passed),
                _question_file(r.id) if r.has_page else "",
            ]
            for r in ql.rows
        ],  # fmt: skip
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.EVIDENCEDESK_QUESTIONS = {text};\n"
