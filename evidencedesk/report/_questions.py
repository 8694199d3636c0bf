"""Results -> the question pages of the site model (formatting only).

Every number comes from the `Results`; this module picks, labels and lays out each question's
graded chunks, every variant's and candidate's ranked list (title, snippet, marks, grade) and
the side-by-side diff of the baseline against each candidate. The pages' anchors and every
question href are `evidencedesk.report._questions`'s.

The question list (questions.html) and the one place question hrefs are made.

`QuestionLinks.href` is how every page links a question id: shown for a run, to the question
page's list of that run; shown for a candidate, to its side-by-side diff there; a question
without a page (beyond the page limit and cap, results.pages) to its row in the question list. The list itself is one
lean row per question (tags, critical, which candidates change it, the baseline's pass/fail),
written into the page for the first `_STATIC_ROWS` and, for the list's script, as a data file.
Formatting only: pass/fail reads the baseline's stored rank of its first relevant chunk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from evidencedesk.report._claims import Claims
from evidencedesk.report._model import (
    HIDDEN_TEXT,
    AlignedItem,
    GradedChunk,
    Mark,
    Question,
    QuestionFlip,
    QuestionList,
    QuestionMetric,
    QuestionRow,
    RankedItem,
    SideBySide,
    VariantList,
)
from evidencedesk.report._site import slug
from evidencedesk.report._words import defined_by
from evidencedesk.results._plan import Plan
from evidencedesk.results._settings import _SHOWN
from evidencedesk.results._stages import Tally
from evidencedesk.results.types import (
    CandidateResult,
    ChunkFact,
    RankedList,
    Results,
)
from evidencedesk.retrieval._stats import TIE

_STATIC_ROWS = 500  # question-list rows written into the page (readable without JavaScript)


LIST_PAGE = "questions.html"  # the question list's page


LIST_DATA = "data/question-list.js"  # every row, for the list's script


def _question_file(qid: str) -> str:
    return f"question-{slug(qid)}.html"


def _list_anchor(variant: str) -> str:
    """The id of a variant's ranked list on a question page."""
    return f"list-{slug(variant)}"


def _diff_anchor(candidate: str) -> str:
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
        anchor = _diff_anchor(candidate) if candidate else _list_anchor(variant) if variant else ""
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


# the question list's columns (its page's header, its script's cells), each shown or left out
# whole (`QuestionList.columns`)
LIST_COLUMNS = ("Question", "Text", "Tags", "Critical", "Changed by", "Pass")


def question_list(results: Results, pages: Collection[str], plan: Plan) -> QuestionList:
    """Every question as one lean row (`pages`: the ids that have a question page), marked by
    the plan's pass rule."""
    metric = results.settings.flips_metric
    better: dict[str, list[str]] = {}
    worse: dict[str, list[str]] = {}
    for c in results.candidates:
        f = c.on[metric]
        for q in f.better:
            better.setdefault(q, []).append(c.name)
        for q in f.worse:
            worse.setdefault(q, []).append(c.name)
    critical = set(results.policy.critical) if results.policy is not None else set()
    passed = plan.passes
    rows = tuple(
        QuestionRow(q.id, q.question, tuple(q.tags), q.id in critical,
                    tuple(better.get(q.id, ())), tuple(worse.get(q.id, ())), passed.get(q.id),
                    q.id in pages)
        for q in results.inputs.questions
    )  # fmt: skip
    depth = plan.pass_depth
    unit = "chunk" if results.settings.kind == "pipeline" else "document"
    gate = " (the check the gate's pass rate and critical rule make per question)" * (
        results.policy is not None
    )
    left_out = {"Tags": not any(r.tags for r in rows), "Critical": not critical}
    return QuestionList(
        rows=rows,
        columns=tuple(c for c in LIST_COLUMNS if not left_out.get(c)),
        depth=depth,
        pass_rule=(
            f"Pass: the baseline {results.baseline} has a relevant {unit} in its top {depth}"
            f"{gate}; fail: it has none; —: the question has no "
            f"{defined_by(results.settings.kind)}"
        ),
        metric=results.settings.metric(metric).label,
        static_rows=min(len(rows), _STATIC_ROWS),
    )


def list_script(ql: QuestionList, candidates: Sequence[str]) -> str:
    """`LIST_DATA`: every row as compact JSON for the list's script (a script file, so that it
    loads from file:// where fetch cannot)."""
    index = {name: i for i, name in enumerate(candidates)}
    data = {
        "candidates": [[name, _diff_anchor(name)] for name in candidates],
        "columns": list(ql.columns),
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


SNIPPET = 160  # characters of a chunk's text shown beside it in a ranked list


FULL_TEXT = 4000  # characters of its whole text behind the snippet (a long document is cut)


GRADED_OPEN = 5  # a question with more graded chunks shows their table folded


LIST_OPEN = 10  # a ranked list shows its top 10 open, the rest folded below them


def _marks(fact: ChunkFact | None) -> tuple[Mark, ...]:
    return tuple(fact.marks) if fact is not None else ()  # type: ignore[arg-type]


def _graded_chunk(cid: str, grade: int, fact: ChunkFact | None) -> GradedChunk:
    if fact is None:
        return GradedChunk(cid, grade, "", "", (), False)
    if fact.text is None:
        return GradedChunk(cid, grade, fact.title, HIDDEN_TEXT, _marks(fact), True)
    start, whole = passage(fact.text, fact.title)
    return GradedChunk(cid, grade, fact.title, whole or fact.text, _marks(fact), False,
                       start if whole else "")  # fmt: skip


_HEADING = re.compile(r"^#+\s*(.*?)\s*$")


_RULE = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*\|?\s*$")  # a Markdown table's |---|---| line


def _cut(flat: str, limit: int) -> str:
    """`flat` cut at a word before `limit` characters, with "…"; whole when it fits."""
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] or flat[:limit]
    return cut.rstrip(" ,;:.") + "…"


def passage(text: str, title: str = "") -> tuple[str, str]:
    """A chunk's snippet and, when the snippet is only its start, its whole text (cut at
    `FULL_TEXT` characters, line breaks kept) to read behind it; "" when the snippet is all."""
    flat = _flat(text, title)
    if len(flat) <= SNIPPET:
        return flat, ""
    whole = text.strip()
    return _cut(flat, SNIPPET), whole if len(whole) <= FULL_TEXT else _cut(whole, FULL_TEXT)


def snippet(text: str, title: str = "") -> str:
    """The start of a chunk's text on one line, cut at a word before `SNIPPET` characters;
    Markdown headings become "Heading · ", a heading that repeats the title is left out."""
    return _cut(_flat(text, title), SNIPPET)


def _flat(text: str, title: str) -> str:
    """The text on one line: Markdown headings as "Heading · " (one repeating the title left
    out), a table's |---| rules dropped."""
    parts = []
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if _RULE.match(line):
            continue
        if heading is None:
            parts.append(line)
        elif heading.group(1) and heading.group(1) != title:
            parts.append(heading.group(1) + " ·")
    return " ".join(" ".join(parts).split()).removesuffix(" ·")


def _ranked_item(
    rank: int, cid: str, grade: int, fact: ChunkFact | None, labelled: dict[str, int],
    judged: bool = True,
) -> RankedItem:  # fmt: skip
    """A list entry with its title, snippet, marks and, when the metrics counted it lower (out
    of scope), the grade its label gives. A negative judgment (TREC's junk grades) is shown as
    its value, which every metric counts as 0; `judged` False: no judgment grades it."""
    label = labelled.get(cid)
    label_grade = label if label is not None and label > grade else None
    if label is not None and label < 0 and grade == 0:
        grade = label
    if fact is None:
        return RankedItem(rank, cid, grade, (), label_grade=label_grade, judged=judged)
    hidden = fact.text is None
    start, whole = (HIDDEN_TEXT, "") if hidden else passage(fact.text or "", fact.title)
    return RankedItem(rank, cid, grade, _marks(fact), fact.title, start, hidden, label_grade,
                      judged, whole)  # fmt: skip


def _items(
    r: RankedList,
    facts: dict[str, ChunkFact],
    labelled: dict[str, int],
    made: dict[int, tuple[RankedItem, ...]],
    depth: int = _SHOWN,
) -> tuple[RankedItem, ...]:
    """The page entries of `r` (its top `depth`), made once per page (`made`: by list, since a
    candidate that is a variant's run shares its lists)."""
    if id(r) not in made:
        flags = r.judged or (True,) * len(r.ids)
        made[id(r)] = tuple(
            _ranked_item(rank, cid, g, facts.get(cid), labelled, f)
            for rank, (cid, g, f) in enumerate(
                zip(r.ids[:depth], r.grades[:depth], flags[:depth], strict=False), 1
            )
        )
    return made[id(r)]


def _move(
    base: int | None, cand: int | None, base_cut: bool, cand_cut: bool, depth: int = _SHOWN
) -> tuple[str, int, str]:
    """A chunk's move; when a list is shown only to its top `depth`, "new" and "dropped" say so
    (the chunk may sit lower in the whole list)."""
    if base is None:
        return "new", 0, f"+ not in top {depth}" if base_cut else "+ new"
    if cand is None:
        return "dropped", 0, f"− not in top {depth}" if cand_cut else "− dropped"
    if cand < base:
        return "up", base - cand, f"▲ up {base - cand}"
    if cand > base:
        return "down", cand - base, f"▼ down {cand - base}"
    return "same", 0, "= same rank"


def aligned(
    base: Sequence[RankedItem],
    cand: Sequence[RankedItem],
    base_cut: bool = False,
    cand_cut: bool = False,
    depth: int = _SHOWN,
) -> tuple[AlignedItem, ...]:
    """The candidate's list in its order, each chunk marked against its baseline rank (moved
    up / down by how many ranks, same, or new), then the baseline's chunks the candidate
    dropped, in baseline order. `base_cut` / `cand_cut`: that list is only its top `depth`."""
    base_rank = {it.chunk_id: it.rank for it in base}
    cand_ids = {it.chunk_id for it in cand}
    rows = []
    for it in cand:
        before = base_rank.get(it.chunk_id)
        move, by, text = _move(before, it.rank, base_cut, cand_cut, depth)
        rows.append(AlignedItem(it, before, it.rank, move, by, text))  # type: ignore[arg-type]
    for it in base:
        if it.chunk_id not in cand_ids:
            move, by, text = _move(it.rank, None, base_cut, cand_cut, depth)
            rows.append(AlignedItem(it, it.rank, None, "dropped", 0, text))
    return tuple(rows)


@dataclass(frozen=True)
class _Moves:
    """One candidate's flips as sets (a large project asks them once per question page)."""

    better: frozenset[str]
    worse: frozenset[str]
    critical_worse: frozenset[str]

    @classmethod
    def of(cls, cand: CandidateResult, metric: str) -> _Moves:
        f = cand.on[metric]
        return cls(frozenset(f.better), frozenset(f.worse), frozenset(cand.decision.critical_worse))

    def direction(self, qid: str) -> str:
        return "better" if qid in self.better else "worse" if qid in self.worse else ""


def _side_by_side(
    results: Results,
    cand: CandidateResult,
    qid: str,
    base_r: RankedList | None,
    base_items: tuple[RankedItem, ...],
    cand_r: RankedList | None,
    cand_items: tuple[RankedItem, ...],
    moves: _Moves,
    critical: bool,
    labels: Sequence[tuple[str, str]],
    depth: int = _SHOWN,
) -> SideBySide:
    metrics = []
    for name, label in labels:
        b = base_r.values.get(name) if base_r else None
        c = cand_r.values.get(name) if cand_r else None
        metrics.append(QuestionMetric(label, b, c))
    direction = moves.direction(qid)
    changed = (base_r.ids if base_r else ()) != (cand_r.ids if cand_r else ()) or bool(direction)
    return SideBySide(
        candidate=cand.name,
        anchor=_diff_anchor(cand.name),
        page=f"candidate-{slug(cand.name)}.html",
        changed=changed,
        direction=direction,  # type: ignore[arg-type]
        same_run=cand.lists_of if cand.lists_of != cand.name else None,
        rows=aligned(
            base_items,
            cand_items,
            base_r is not None and base_r.size > depth,
            cand_r is not None and cand_r.size > depth,
            depth,
        )
        if changed
        else (),
        metrics=tuple(metrics),
        base_first=base_r.first_relevant if base_r else None,
        cand_first=cand_r.first_relevant if cand_r else None,
        not_shown=max(0, cand_r.size - depth) if cand_r else 0,
        critical_worse=critical and qid in moves.critical_worse,
        listed=cand.lists_of if cand_r is not None else None,
    )


def questions(
    results: Results,
    keep: set[str] | None = None,
    claims: Claims | None = None,
    depth: int = _SHOWN,
    tally: Tally | None = None,
) -> tuple[Question, ...]:
    """One page model per question (all of them, or only the ids in `keep`, each counted on
    `tally` when given): every variant's
    list (its first `depth` results: the plan's page depth) and, per candidate, its
    side-by-side diff against the baseline.

    Every chunk carries its marks (restricted, superseded); a restricted chunk whose text the
    project withholds shows `HIDDEN_TEXT`.
    """
    facts = {f.id: f for f in results.inputs.chunk_facts}
    metric = results.settings.flips_metric
    by_variant = [{r.question: r for r in v.lists} for v in results.variants]
    at = [{r.question: j for j, r in enumerate(v.lists)} for v in results.variants]
    by_cand = [{r.question: r for r in c.ranked(results)} for c in results.candidates]
    moves = [_Moves.of(c, metric) for c in results.candidates]
    labels = [(m.name, m.label) for m in results.settings.metrics]
    base_index = next(i for i, v in enumerate(results.variants) if v.name == results.baseline)
    critical = set(results.policy.critical) if results.policy is not None else set()
    pages = []
    for label in results.inputs.questions:
        if keep is not None and label.id not in keep:
            continue
        graded = [
            _graded_chunk(cid, grade, facts.get(cid))
            for cid, grade in sorted(label.grades.items(), key=lambda kv: (-kv[1], kv[0]))
            if grade > 0
        ]
        base_r = by_variant[base_index].get(label.id)
        base_rr = base_r.values[metric] if base_r else None
        lists, flips = [], []
        made: dict[int, tuple[RankedItem, ...]] = {}  # a list shared by a variant and candidate
        say = claims.on(f"question-{slug(label.id)}.html") if claims is not None else None
        base_at = at[base_index].get(label.id)
        base_source = "" if base_at is None else f"variants[{base_index}].lists[{base_at}]"
        for vi, (v, index) in enumerate(zip(results.variants, by_variant, strict=True)):
            r = index.get(label.id)
            if r is None:
                continue
            rr = r.values[metric]
            delta = None if rr is None or base_rr is None else rr - base_rr
            source = f"variants[{vi}].lists[{at[vi][label.id]}]"
            lists.append(
                VariantList(
                    v.name,
                    _items(r, facts, label.grades, made, depth),
                    r.first_relevant,
                    rr,
                    delta,
                    max(0, r.size - depth),
                    _list_anchor(v.name),
                    LIST_OPEN if min(r.size, depth) > LIST_OPEN else 0,
                    say("list_value", source, base=base_source) if say is not None else "",
                )
            )
            if delta is not None and abs(delta) > TIE and v.name != results.baseline:
                flips.append(
                    QuestionFlip(v.name, "better" if delta > 0 else "worse", _list_anchor(v.name))
                )
        base_items = _items(base_r, facts, label.grades, made, depth) if base_r else ()
        diffs = []
        for cand, index, moved in zip(results.candidates, by_cand, moves, strict=True):
            cand_r = index.get(label.id)
            cand_items = _items(cand_r, facts, label.grades, made, depth) if cand_r else ()
            diffs.append(_side_by_side(results, cand, label.id, base_r, base_items, cand_r,
                                      cand_items, moved, label.id in critical, labels, depth))  # fmt: skip
        pages.append(
            Question(
                id=label.id,
                question=label.question,
                tags=tuple(label.tags),
                answerable=label.answerable,
                graded=tuple(graded),
                lists=tuple(lists),
                flips=tuple(flips),
                candidates=tuple(diffs),
                graded_folded=len(graded) > GRADED_OPEN,
            )
        )
        if tally is not None:
            tally.add()
    return tuple(pages)
