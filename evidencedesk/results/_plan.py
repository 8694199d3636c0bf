"""What the report shows, decided once from the Results' data: `decide` gives one `Plan`
(`results.types`), made once per Results as `Results.plan`, so no page module asks
again which questions get a page, how deep their lists are, which pass, or what the index counts.

Which questions get a page of their own:

Up to `PAGE_LIMIT` questions every question has a page. Above it, at most `PAGE_CAP`, in this
order: the gate policy's critical questions, then the questions the baseline fails, then the
questions whose primary metric changes most (largest absolute change under any candidate);
ties by id. Every other question stays in the question list and the per-question CSV, and
results.json keeps its ranked ids and grades only for the chosen questions (`results.evaluate`), each list
cut to what a page shows (`page_depth`). The other caps of a large site are decided here too:
the flips page's question grid lists the chosen questions only (`_grid_questions`), and the
site's per-question files are gzip-compressed (`large`; results.jsonio, results.exports).

The reviewer's four questions, answered from the Results as numbers (the index's tiles).

How many candidates got better, worse or neither (`verdict_counts`); what the gate says
(`gate_counts`); which candidate is the best lead (`best_lead`); and how large and how judged
the data is (`data_size`). Pure functions: every number is read from the Results, nothing is
worded here, so each tile's sentence can be built (and audited) from these fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from evidencedesk.gate import GateLevel
from evidencedesk.results import _verdicts as v
from evidencedesk.results._settings import _SHOWN
from evidencedesk.retrieval._stats import LARGE, TIE

if TYPE_CHECKING:  # the Results decide their own plan (`Results.plan`): annotations only
    from evidencedesk.results.types import (
        CandidateResult,
        MetricStat,
        RankedList,
        Results,
        VariantResult,
    )


@dataclass(frozen=True)
class VerdictCounts:
    """Candidates by verdict: `better` = BETTER, `worse` = WORSE, `unclear` = every other
    verdict; `by_verdict` counts each verdict that occurs, BETTER first, WORSE last."""

    better: int
    worse: int
    unclear: int
    by_verdict: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class GateCounts:
    """Candidates by gate level (only when the project has a gate policy)."""

    go: int
    review: int
    block: int


@dataclass(frozen=True)
class Lead:
    """The best lead: a candidate and its primary metric's paired difference from the baseline
    with the 95 % interval over `n` questions."""

    candidate: str
    metric: str  # the primary metric's name ("mrr", "ndcg@10:linear")
    delta: float | None
    low: float
    high: float
    n: int
    # the other candidates with the same lower bound and difference: the name chose among them
    tied: tuple[str, ...] = ()


@dataclass(frozen=True)
class DataSize:
    """What the numbers rest on: the questions counted, the documents and chunks, and the share
    of the baseline's top k that the judgments grade (its Judged@k)."""

    questions: int  # every question the project names
    judged: int | None  # with at least one judgment; None: a results.json that did not count
    relevant: int  # with a relevant judgment
    # of those, the ones no run answers: a tie in every comparison, so they decide none
    silent: tuple[str, ...]
    documents: int  # 0: a runs-only project without a corpus
    chunks: int
    judged_k: int
    baseline_judged: MetricStat | None  # the baseline's Judged@k; None when not measured

    @property
    def deciding(self) -> int:
        """The questions a comparison can use: a relevant judgment and a run that answers."""
        return self.relevant - len(self.silent)

    @property
    def chunked(self) -> bool:
        """Whether the site counts the chunks beside the documents (`cut_apart`)."""
        return cut_apart(self.documents, self.chunks)


def cut_apart(documents: int, chunks: int) -> bool:
    """Whether a corpus of `documents` was cut into `chunks` other than one each: then the site
    counts both ("60 chunks in 24 documents"), else the documents alone."""
    return chunks > 0 and chunks != documents


@dataclass(frozen=True)
class Plan:
    """What the report shows, decided once from the Results (`Results.plan`, made by `results.plan.decide`): which
    questions get a page and how deep, the flips grid, the pass rule and the index's counts."""

    large: bool  # above page_limit: capped pages and grid, lean lists, compressed files
    # some interval was read off the bootstrap distribution's expansion, not resampled: a mean
    # over more than `stats.LARGE` values (`stats.bootstrap_ci`)
    expanded: bool
    chosen: tuple[str, ...] | None  # the questions that get a page; None: every question
    grid: tuple[str, ...] | None  # the flips grid's questions; None: every question
    page_depth: int  # results per list on a question page
    pass_depth: int  # pass = a relevant result in the baseline's top pass_depth
    passes: dict[str, bool | None]  # each question's pass (None: no relevant judgment)
    verdicts: VerdictCounts
    gates: GateCounts | None  # None: no gate policy (nothing checked)
    lead: Lead | None  # None: no candidate ahead with an interval
    data: DataSize
    # above page_limit, the questions without a page: those the baseline passes and no
    # candidate changes, those with no relevant judgment, and those beyond page_cap (all 0 up
    # to the limit)
    left_out: tuple[int, int, int]
    page_limit: int  # up to this many questions, every question has a page
    page_cap: int  # above page_limit, at most this many question pages


_BEST_FIRST = tuple(reversed(v.VERDICTS))  # BETTER, PROMISING, ..., WORSE


def verdict_counts(candidates: Sequence[CandidateResult]) -> VerdictCounts:
    """The candidates counted by verdict: better, worse, unclear, and each verdict that occurs."""
    verdicts = [c.decision.verdict for c in candidates]
    better, worse = verdicts.count(v.BETTER), verdicts.count(v.WORSE)
    return VerdictCounts(
        better=better,
        worse=worse,
        unclear=len(verdicts) - better - worse,
        by_verdict=tuple((x, verdicts.count(x)) for x in _BEST_FIRST if x in verdicts),
    )


def gate_counts(results: Results) -> GateCounts | None:
    """GO / REVIEW / BLOCK counts; None when the project has no gate policy (nothing checked)."""
    if results.policy is None:
        return None
    gates = [c.gate.level for c in results.candidates]
    go, review, block = (gates.count(g) for g in GateLevel)  # the order the index counts them
    return GateCounts(go, review, block)


def _ties(value: float | None) -> int:
    """A sort key that treats differences below `stats.TIE` (float noise) as equal."""
    return 0 if value is None else round(value / TIE)


def best_lead(results: Results) -> Lead | None:
    """Among the candidates ahead of the baseline on the primary metric (a positive paired
    difference), the one whose paired interval has the largest lower bound (the gain we are
    surest of); equal bounds go to the larger difference, then to the first name in
    alphabetical order, and the others it tied with are named (`Lead.tied`, in the candidates'
    order). None when no candidate is ahead with an interval."""
    leads = []
    for c in results.candidates:
        d = c.comparison(c.decision.primary)
        if d.low is not None and d.high is not None and d.delta is not None and d.delta > TIE:
            leads.append(Lead(c.name, d.metric, d.delta, d.low, d.high, d.n))
    if not leads:
        return None

    def surest(x: Lead) -> tuple[int, int]:
        return -_ties(x.low), -_ties(x.delta)

    best = min(leads, key=lambda x: (*surest(x), x.candidate))
    tied = tuple(x.candidate for x in leads if x is not best and surest(x) == surest(best))
    return replace(best, tied=tied)


def _answered_by_none(results: Results) -> tuple[str, ...]:
    """The questions with a relevant judgment that no run answers (every variant's and
    candidate's list empty): each is a tie at 0 in every comparison."""
    answered = {r.question for v in results.variants for r in v.lists if r.size}
    answered |= {r.question for c in results.candidates for r in c.lists if r.size}
    return tuple(q.id for q in results.inputs.questions
                 if q.answerable and q.id not in answered)  # fmt: skip


def data_size(results: Results) -> DataSize:
    """What the numbers rest on: questions, judgments, documents, chunks, baseline's Judged@k."""
    inputs, counts = results.inputs, results.inputs.counts
    return DataSize(
        questions=counts.queries if counts is not None else len(inputs.questions),
        judged=counts.judged if counts is not None else None,
        relevant=results.answerable,
        silent=_answered_by_none(results),
        documents=len(inputs.documents),
        chunks=inputs.chunks,
        judged_k=results.settings.judged_k,
        baseline_judged=results.variant(results.baseline).judged,
    )


PAGE_LIMIT = 500  # up to this many questions, every question has a page


PAGE_CAP = 1000  # above PAGE_LIMIT, at most this many question pages


RUNS_ONLY_DEPTH = 10  # the gate's k in a runs-only project without a policy (stages.runs_gate)


LEAN_DEPTH = 10  # above PAGE_LIMIT a question page lists this many results per list (or the k)


CRITICAL, _FAILS, _CHANGES = 0, 1, 2  # the choosing rule's tiers, in order


def over_page_limit(questions: int) -> bool:
    """More than `PAGE_LIMIT` questions: capped pages and grid, lean lists, compressed files."""
    return questions > PAGE_LIMIT


def large(results: Results) -> bool:
    """Whether the Results' questions are `over_page_limit`."""
    return over_page_limit(len(results.inputs.questions))


def page_depth(results: Results) -> int:
    """Results a question page lists per ranked list: `_SHOWN` up to `PAGE_LIMIT` questions;
    above, `LEAN_DEPTH`, or the gate's depth when that is larger (at most `_SHOWN`)."""
    if not large(results):
        return _SHOWN
    return min(_SHOWN, max(LEAN_DEPTH, pass_depth(results)))


def pass_depth(results: Results) -> int:
    """The gate's depth for one question's pass in the baseline: `run_pass_depth` of it."""
    return run_pass_depth(results, results.variant(results.baseline))


def run_pass_depth(results: Results, variant: VariantResult) -> int:
    """The gate's depth for one question's pass in a run: the run's final list in a pipeline
    project (the gate's cases read hit@final), the policy's k in a runs-only one (10 without a
    policy, as the gate)."""
    if variant.config is not None:
        return int(variant.config["final"])
    return results.policy.k if results.policy is not None else RUNS_ONLY_DEPTH


def passed(r: RankedList, depth: int, relevant: bool) -> bool | None:
    """One list's pass: a relevant result in its top `depth`; None when the question has no
    relevant judgment (it cannot pass)."""
    if not relevant:
        return None
    return r.first_relevant is not None and r.first_relevant <= depth


def passes(results: Results) -> dict[str, bool | None]:
    """Per question: the baseline has a relevant chunk in its top `pass_depth` (the gate's case
    for that question); None where the flips metric is undefined (no relevant judgment)."""
    depth = pass_depth(results)
    metric = results.settings.flips_metric
    return {
        r.question: passed(r, depth, r.values[metric] is not None)
        for r in results.variant(results.baseline).lists
    }


def _largest_change(results: Results) -> dict[str, float]:
    """Per question: the largest absolute change of the primary metric under any candidate
    (questions no candidate changes are left out)."""
    metric = results.settings.compared[0].name
    base = {r.question: r.values[metric] for r in results.variant(results.baseline).lists}
    out: dict[str, float] = {}
    for cand in results.candidates:
        for r in cand.ranked(results):
            b, c = base.get(r.question), r.values[metric]
            if b is None or c is None or abs(c - b) <= TIE:
                continue
            out[r.question] = max(out.get(r.question, 0.0), abs(c - b))
    return out


def chosen(results: Results) -> tuple[str, ...] | None:
    """The ids that get a question page, in the choosing rule's order; None (every question)
    up to `PAGE_LIMIT` questions."""
    return _pages(results, passes(results))[0]


def _pages(
    results: Results, passed: dict[str, bool | None]
) -> tuple[tuple[str, ...] | None, tuple[int, int, int]]:
    """`chosen`, and above `PAGE_LIMIT` the questions without a page: those the baseline passes
    and no candidate changes, those with no relevant judgment (no metric of theirs is defined,
    so nothing passes or changes there) and those beyond `PAGE_CAP` ((0, 0, 0) up to the
    limit); the questions are ranked once for both."""
    questions = len(results.inputs.questions)
    if questions <= PAGE_LIMIT:
        return None, (0, 0, 0)
    ranked = _ranked(results, passed)
    pages = tuple(q for _, _, q in ranked[:PAGE_CAP])
    kept = {q for _, _, q in ranked}
    undefined = sum(1 for q in results.inputs.questions
                    if q.id not in kept and passed.get(q.id) is None)  # fmt: skip
    unchanged = questions - len(ranked) - undefined
    return pages, (unchanged, undefined, max(0, len(ranked) - PAGE_CAP))


def _ranked(results: Results, passed: dict[str, bool | None]) -> list[tuple[int, float, str]]:
    """The questions that may get a page, best first: critical, failing in the baseline, then
    by their largest change; a question the baseline passes and no candidate changes is not
    among them."""
    critical = set(results.policy.critical) if results.policy is not None else set()
    change = _largest_change(results)
    ranked = []
    for q in (q.id for q in results.inputs.questions):
        if q in critical:
            ranked.append((CRITICAL, 0.0, q))
        elif passed.get(q) is False:
            ranked.append((_FAILS, 0.0, q))
        elif q in change:
            ranked.append((_CHANGES, -change[q], q))
    return sorted(ranked)


def _grid_questions(results: Results, keep: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The questions the flips page's question x variant grid lists, given `keep` =
    `chosen(results)`: None (every question) up to `PAGE_LIMIT`; above, the chosen questions,
    in the project's question order."""
    if keep is None:
        return None
    kept = set(keep)
    return tuple(q.id for q in results.inputs.questions if q.id in kept)


def decide(results: Results) -> Plan:
    """What the report shows, decided once per Results (`Results.plan`)."""
    passed = passes(results)
    pages, left_out = _pages(results, passed)
    return Plan(
        large=large(results),
        expanded=any(m.n > LARGE for r in results.variants for m in r.metrics),
        chosen=pages,
        grid=_grid_questions(results, pages),
        page_depth=page_depth(results),
        pass_depth=pass_depth(results),
        passes=passed,
        verdicts=verdict_counts(results.candidates),
        gates=gate_counts(results),
        lead=best_lead(results),
        data=data_size(results),
        left_out=left_out,
        page_limit=PAGE_LIMIT,
        page_cap=PAGE_CAP,
    )
