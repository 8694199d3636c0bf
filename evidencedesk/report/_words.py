"""The words of every claim: each sentence the site says about a number, made from the Results.

`derive(results, kind, source, args)` is the one way a claim's words are made: the pages call it
through `claims.Claims.say`, and ``evidencedesk audit`` calls it again on the results.json it
reads back. Each kind reads the object at `source` and takes its metric's full label from the
Results' own settings (`metric_label`, which has no default: a metric the Results do not report is
an error, never "MRR").

The kinds:

- ``headline``: a candidate's one-line verdict, the verdict's words first, then what moved which
  way (`source`: ``candidates[i]``);
- ``flips``, ``needed``, ``interval``, ``take``, ``cost``: the
  recommendation's bullets of a candidate;
- ``unjudged``, ``condensed``: a candidate's judgments (the unjudged caveat, condensed lists);
- ``gate_line``: one gate check (`source`: ``candidates[i].gate.checks[j]``);
- ``verdict``, ``gate``: the two badges of a candidate;
- ``delta``: a comparison's difference and interval (`source`: ``candidates[i].comparisons[j]``);
- ``flip_cell``: a flips table's cell (`source`: ``flips[i]``);
- ``counts``, ``notice``: the inputs (`source`: ``inputs.counts``, ``inputs.notices[i]``);
- ``coverage``: a run's partial coverage (`source`: ``variants[i]``);
- ``summary``, ``gate_summary``, ``lead``: the index's bottom line (`source`: "");
- ``rule``: a fixed statement of the methods (`args` ``key``: one of `RULES`).

The inputs in words: how many questions there are and what a reader must know about the inputs
before reading a number. One wording, used by the site, the build's output, ``validate`` and
``benchmark``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from evidencedesk._inert import shell_command, visible
from evidencedesk._metric_names import Metric, label, split_metric
from evidencedesk.files._project_file import ProjectKind
from evidencedesk.gate import _GATE_MRR_FINAL, _LISTED, GateCheck, GateLevel
from evidencedesk.report._values import DELTA_STEPS, FLIP_STEPS, fmt
from evidencedesk.results import _verdicts as v
from evidencedesk.results._serialize import exported_runs
from evidencedesk.results._settings import Settings
from evidencedesk.results.types import (
    CandidateResult,
    Comparison,
    Flip,
    GateOutcome,
    Notice,
    Results,
    VariantResult,
    _resolve,
)
from evidencedesk.retrieval._coverage import Coverage
from evidencedesk.retrieval._stats import (
    ALPHA,
    EXACT_RANDOMIZATION,
    LARGE,
    RANDOMIZATION_RESAMPLES,
    TIE,
    p_is,
    p_text,
)
from evidencedesk.retrieval.labels import QuestionCounts


def how_many(count: int, word: str, plural: str | None = None) -> str:
    """`count` and the word in its number: "1 question", "2 questions" ("1 is", "2 are")."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


# to-label.tsv's first four columns (query, iteration, document, grade) as a line of the qrels
# file the project reads: TREC's four, by spaces (or by tabs, as the file has them), or BEIR's
# query-id, corpus-id and score
_TREC_ROW = '!/^#/ && $4 != "" {print $1, $2, $3, $4}'
_QRELS_COLUMNS = {"trec": ("-F\\t", _TREC_ROW),
                  "trec-tabs": ("-F\\t", "-v", "OFS=\\t", _TREC_ROW),
                  "beir": ("-F\\t", "-v", "OFS=\\t", '!/^#/ && $4 != "" {print $1, $3, $4}')}  # fmt: skip


def append_graded(qrels: str, qrels_format: str, graded: str, tabs: bool = False) -> str:
    """The shell command, run in the project's folder, that appends the graded rows of the
    to-label file `graded` (those whose grade column is filled) to the project's qrels file
    `qrels` in its own format ("trec" or "beir"; `tabs`: TREC columns separated by tabs)."""
    layout = "trec-tabs" if qrels_format == "trec" and tabs else qrels_format
    awk = shell_command(("awk", *_QRELS_COLUMNS[layout], graded))
    return f"{awk} >> {shell_command((qrels,))}"


def questions_decide(count: int) -> str:
    """How many questions decide the comparisons: "1 question decides", "3 questions decide"."""
    return f"{how_many(count, 'question')} {'decides' if count == 1 else 'decide'}"


def share(part: int, whole: int) -> str:
    """A share as a whole percentage ("60 %"); below 1 % and above 99 % never rounded away."""
    if whole == 0:
        return "0 %"
    pct = part / whole * 100
    if 0 < pct < 1:
        return "< 1 %"
    if 99 < pct < 100:
        return "> 99 %"
    return f"{pct:.0f} %"


def defined_by(kind: str) -> str:
    """What a question needs for its metrics to be defined, in the pages' words: a pipeline
    scores the chunks in scope (a superseded or restricted relevant chunk counts for nothing),
    a runs-only project every judgment."""
    return "relevant chunk in scope" if kind == "pipeline" else "relevant judgment"


def undefined_when(kind: str, labelled: bool) -> str:
    """What leaves a question's metrics undefined, in the methods page's words: a labels file
    marks a question unanswerable, qrels hold no relevant judgment for it (`labelled`: the
    questions come from a labels file); a pipeline's scope may also leave its relevant chunks out."""
    if kind != "pipeline":
        return "relevant document (no relevant judgment)"
    why = "unanswerable" if labelled else "no relevant judgment"
    return f"relevant chunk in scope ({why}, or relevant only in superseded or restricted chunks)"


def _below_gains(relevance: int) -> bool:
    """Whether a question with no relevant judgment may hold grades that gain in nDCG: grades
    from 1 up to the threshold, which trec_eval's nDCG reads (`metrics.Kind.undefined`)."""
    return relevance > 1


def trec_eval_counts(relevance: int, one: bool = True) -> str:
    """How trec_eval's averaging counts a judged question with no relevant judgment: "counts 0
    in the means", but where grades below the relevance threshold gain (`_below_gains`) nDCG
    reads them, as trec_eval's does: "counts 0 in the means but nDCG's, which reads its grades
    below 2"; `one` False: of several questions."""
    verb, its = ("counts", "its") if one else ("count", "their")
    text = f"{verb} 0 in the means"
    if _below_gains(relevance):
        text += f" but nDCG's, which reads {its} grades below {relevance}"
    return text


def ndcg_also_decides(averaging: str, relevance: int) -> str:
    """After "N questions with a relevant judgment decide every comparison": under trec_eval's
    averaging nDCG's comparisons also read the other judged questions' grades below the
    threshold (`trec_eval_counts`): " (nDCG's also reads ...)", else ""."""
    if averaging != "trec_eval" or not _below_gains(relevance):
        return ""
    return (f" (nDCG's also reads the other judged questions' grades below {relevance}, as "
            "trec_eval's averaging does)")  # fmt: skip


def counts_sentence(c: QuestionCounts, averaging: str = "defined") -> str:
    """What the questions are, counted: "50 questions: 40 judged, 38 with a relevant judgment
    (grade ≥ 1); 10 without any judgment are left out"."""
    if c.judged == c.queries and not c.unjudged:
        text = f"{how_many(c.queries, 'question')}, all judged"
    else:
        text = f"{how_many(c.queries, 'question')}: {c.judged} judged"
    text += f", {c.relevant} with a relevant judgment (grade ≥ {c.threshold})"
    scored = c.relevant - c.out_of_scope  # a pipeline's: those with a relevant chunk in scope
    if c.out_of_scope:
        text += f", {scored} of them in scope"
    if averaging == "trec_eval" and c.judged > scored:
        counted = trec_eval_counts(c.threshold, one=False)
        text += f"; the other {c.judged - scored} judged {counted} (trec_eval's averaging)"
    if c.unjudged:
        text += f"; {c.unjudged} without any judgment {'is' if c.unjudged == 1 else 'are'} left out"
    return text


def coverage_sentence(name: str, c: Coverage) -> str:
    """A run's coverage of the judged queries, in words."""
    return (
        f"the run {name} answers {c.answered} of the "
        f"{how_many(c.judged_queries, 'judged query', 'judged queries')} "
        f"({share(c.answered, c.judged_queries)}); the others count as empty lists"
    )


def partial_coverage(name: str, c: Coverage) -> str:
    """The warning a run that answers part of the judged queries carries on its pages."""
    return f"Partial coverage: {coverage_sentence(name, c)}."


def partial_warnings(variants: Iterable[VariantResult]) -> list[str]:
    """The partial-coverage warning of each of `variants` that answers part of the judged
    queries (`answers_part`), in their order: said wherever the run is used."""
    return [partial_coverage(v.name, v.coverage) for v in variants
            if v.coverage is not None and answers_part(v.coverage)]  # fmt: skip


def answers_part(c: Coverage | None) -> bool:
    """Whether a run answers fewer than all of the judged queries: a run below
    ``[runs].min_coverage`` is refused, so only one that a lowered threshold lets through,
    whose pages then say that the others count as empty lists (`coverage_sentence`)."""
    return c is not None and c.answered < c.judged_queries


def _listed_ids(names: tuple[str, ...], count: int) -> str:
    shown = ", ".join(names)
    return f" ({shown}{', …' if count > len(names) else ''})" if names else ""


def notice_text(n: Notice, kind: str = "runs") -> str:
    """One notice as one line, starting with the file it is about. `kind`: the project's
    ("pipeline" searches by the question text; "runs" shows judged ids without text)."""
    where = n.path if n.line is None else f"{n.path}:{n.line}"
    if n.kind == "not_a_run":
        return f"{where}: skipped: not a TREC run (its first line is not 'qid Q0 docid rank score tag')"
    if n.kind == "empty_document":
        return (f"{where}: {how_many(n.count, 'document')} with neither title nor text"
                f"{_listed_ids(n.names, n.count)}: shown, never indexed")  # fmt: skip
    if n.kind == "without_text":  # runs-only, [questions] evaluate_unlisted = true
        verb = "is" if n.count == 1 else "are"
        return (f"{where}: {n.count} of the {how_many(n.total or 0, 'judged query', 'judged queries')} "
                f"{verb} not in the queries "
                f"file{_listed_ids(n.names, n.count)}: evaluated and shown by "
                f"{'its id' if n.count == 1 else 'their ids'} ([questions] evaluate_unlisted)")  # fmt: skip
    if n.kind == "unlisted":  # where: the queries file
        verb = "is" if n.count == 1 else "are"
        them = "it" if n.count == 1 else "them"
        evaluate = (
            ""
            if kind == "pipeline"
            else f" ([questions] evaluate_unlisted = true evaluates {them})"
        )
        return (f"{how_many(n.count, 'judged query', 'judged queries')} {verb} not in {n.path}"
                f"{_listed_ids(n.names, n.count)}: left out{evaluate}")  # fmt: skip
    if n.kind == "judged_not_in_corpus":
        verb = "is" if n.count == 1 else "are"
        return (f"{where}: {n.count} of the {how_many(n.total or 0, 'judged document')} {verb} not in "
                f"the corpus"
                f"{_listed_ids(n.names, n.count)}: "
                f"{'its' if n.count == 1 else 'their'} judgments count in every metric, no page "
                f"can show {'it' if n.count == 1 else 'them'}")  # fmt: skip
    if n.kind == "out_of_scope":  # a pipeline's labels or qrels
        verb = "has" if n.count == 1 else "have"
        return (f"{where}: {n.count} of the {n.total} questions with a relevant judgment {verb} it "
                f"only on superseded or restricted chunks{_listed_ids(n.names, n.count)}: out "
                f"of scope, {'it scores as a question' if n.count == 1 else 'they score as questions'}"
                " with nothing relevant")  # fmt: skip
    if n.kind == "unjudged":
        verb = "has" if n.count == 1 else "have"
        return (f"{where}: {n.count} of its {how_many(n.total or 0, 'query', 'queries')} {verb} no "
                f"judgment{_listed_ids(n.names, n.count)}: left out, as trec_eval leaves "
                f"{'it' if n.count == 1 else 'them'} out")  # fmt: skip
    if n.kind == "score_order":  # where: a run
        return (f"{where}: in {n.count} of its {how_many(n.total or 0, 'query', 'queries')} a line "
                "scores higher than the "
                f"query's line before it{_listed_ids(n.names, n.count)}: ranked by score, highest "
                "first, as trec_eval ranks them (neither the rank column nor the line order "
                "counts); if a lower score means a better match (a distance), negate the scores")  # fmt: skip
    if n.kind == "score_ties":  # where: a run
        return (f"{where}: in {n.count} of its {how_many(n.total or 0, 'query', 'queries')} every "
                "line has the same score"
                f"{_listed_ids(n.names, n.count)}: ranked by document id, descending, as "
                "trec_eval breaks ties (neither the rank column nor the line order counts); give "
                "each line a score that falls with its rank")  # fmt: skip
    raise ValueError(f"unknown notice kind {n.kind!r}")


# ids a list of flips names before "… and N more": as many as the terminal's gate lines name
INLINE_IDS = _LISTED


# the start of a candidate's headline for each verdict
_PREFIX = {
    v.WORSE: "Worse",
    v.LEANS_WORSE: "Leans worse, not proven",
    v.MIXED: "Mixed",
    v.NO_CLEAR_CHANGE: "No clear change",
    v.PROMISING: "Promising, not proven",
    v.BETTER: "Better",
}


_GATE_LEVELS = tuple(level.value for level in GateLevel)  # GO, REVIEW, BLOCK: best first


# what a gate line or badge says when the project has no gate policy
_NO_POLICY = "no gate policy — nothing checked"


def metric_label(results: Results, metric: str) -> str:
    """The metric's full label in these Results (gain and cut-off named); a metric they do not
    report is a LookupError: there is no default label."""
    for m in results.settings.metrics:
        if m.name == metric:
            return m.label
    raise LookupError(f"the results report no metric {metric!r}")


def signed(x: float | None) -> str:
    """A number with its sign, by the one rounding rule ("+0.048", "−0.012", "—")."""
    return fmt(x, signed=True)


def bracket(low: float | None, high: float | None) -> str:
    """ " [+0.063, +0.156]", or "" without an interval."""
    if low is None or high is None:
        return ""
    return f" [{signed(low)}, {signed(high)}]"


def flips_text(better: int, worse: int) -> str:
    """A flips count as the site writes it: "+3/−1"."""
    return f"+{better}/−{worse}"


T = TypeVar("T")  # the kind of object `_at` is asked to find at a source


def _at(results: Results, source: str, kind: type[T] | tuple[type, ...], what: str) -> T:
    """The object at `source`, which must be a `kind`: a claim read from another place is a
    LookupError (the audit names it), never words about the wrong object."""
    found = _resolve(results, source)
    if not isinstance(found, kind):
        raise LookupError(f"expected {what} at {source!r}")
    return found  # type: ignore[return-value]


def _candidate(results: Results, source: str) -> CandidateResult:
    return _at(results, source, CandidateResult, "a candidate")


def _head(c: CandidateResult) -> Comparison:
    return c.on[c.decision.primary]


def _moved(results: Results, cmp: Comparison) -> str:
    """A metric that moved: "nDCG@10 (linear gain) better (+0.108 [+0.063, +0.156], +30/−10
    questions, Holm-adjusted randomization p = 0.009)"; by its interval only, the words say it
    is not significant after Holm."""
    e = v.evidence_of(cmp)
    word = "better" if e.direction == "up" else "worse"
    facts = f"{signed(cmp.delta)}{bracket(cmp.low, cmp.high)}, {flips_text(e.better, e.worse)} questions"
    if e.significant:
        return f"{metric_label(results, cmp.metric)} {word} ({facts}, Holm-adjusted randomization {p_is(cmp.holm_p)})"
    return (f"{metric_label(results, cmp.metric)} {word} by its interval ({facts}), not "
            f"significant after Holm (randomization {p_is(cmp.holm_p)})")  # fmt: skip


def _flips_state(results: Results, cmp: Comparison) -> str:
    """How a metric's flips stand when it did not move: leaning (sign-test p < 0.2), balanced,
    or unchanged."""
    e = v.evidence_of(cmp)
    label = metric_label(results, cmp.metric)
    if e.better == e.worse == 0:
        return f"{label} changed on no question"
    p = f"sign-test {p_is(e.sign_p)}"
    if e.lean:
        state = f"leans {e.lean}: {p}"
        delta = cmp.delta if cmp.delta is not None else 0.0
        if abs(delta) > TIE and (delta > 0) != (e.lean == "better"):
            # the flips count questions, the mean weighs each change by its size
            rose = "rose" if delta > 0 else "fell"
            fewer, more = ("gains", "losses") if delta > 0 else ("losses", "gains")
            state += (
                f"; the mean {rose} all the same: fewer, larger {fewer} outweigh more, "
                f"smaller {more}"
            )
    elif e.better == e.worse:
        state = f"balanced: {p}"
    else:
        state = f"no lean: {p}, not below {v.LEAN_P}"
    return (f"{label} {signed(cmp.delta)}{bracket(cmp.low, cmp.high)}, flips "
            f"{flips_text(e.better, e.worse)} ({state})")  # fmt: skip


def and_joined(names: list[str]) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def _critical(results: Results, c: CandidateResult) -> str:
    """The critical questions worse on some reported metric, each with the metrics it is worse
    on (the primary's flips may not count it), and the gate's level that decides them."""
    ids = c.decision.critical_worse
    if not ids:
        return ""
    reported = [m.name for m in results.settings.compared]
    weighed = sorted((x for x in c.comparisons if x.metric in reported),
                     key=lambda x: reported.index(x.metric))  # fmt: skip

    def on(q: str) -> str:
        return and_joined([metric_label(results, x.metric) for x in weighed if q in x.worse])

    gate = c.gate.level if c.gate.evaluated else _NO_POLICY
    listed = ", ".join(f"{q} (on {on(q)})" for q in ids)
    return f"Critical question(s) worse: {listed} — the gate decides ({gate})."


def _prefix(results: Results, verdict: str, head: Comparison, others: list[Comparison]) -> str:
    """The verdict's words; an unproven verdict beside a Holm-significant reported metric says
    per metric which is not proven and which moved ("Promising — MAP not proven, P@10 and bpref
    better after Holm"): "not proven" is never said of a Holm-significant change."""
    proven = [x for x in others if v.evidence_of(x).significant]
    if verdict not in (v.PROMISING, v.LEANS_WORSE) or not proven:
        return _PREFIX[verdict]
    word = "better" if verdict == v.PROMISING else "worse"
    names = [metric_label(results, x.metric) for x in proven]
    moved = and_joined(names)
    short = "Promising" if verdict == v.PROMISING else "Leans worse"
    return f"{short} — {metric_label(results, head.metric)} not proven, {moved} {word} after Holm"


def _others(results: Results, head: Comparison, others: list[Comparison]) -> str:
    """The other reported metrics that moved, named by direction in one clause ("also better:
    R@10 and R-prec; worse by its interval: P@5"); their numbers are in the page's metrics
    table."""
    moved = v.evidence_of(head).direction
    groups: dict[str, list[str]] = {}
    for x in others:
        e = v.evidence_of(x)
        word = "better" if e.direction == "up" else "worse"
        also = "also " if moved == e.direction else ""
        key = f"{also}{word}" + ("" if e.significant else " by its interval")
        groups.setdefault(key, []).append(metric_label(results, x.metric))
    return "; ".join(f"{key}: {and_joined(names)}" for key, names in groups.items())


def headline(results: Results, source: str) -> str:
    """The candidate's one line: the verdict's words, then the primary metric (how it moved, or
    how its flips stand when it did not), then the other reported metrics that moved, by name
    (their numbers are in the metrics table), and any critical question that got worse."""
    c = _candidate(results, source)
    d, head = c.decision, _head(c)
    order = [m.name for m in results.settings.compared]  # the primary first
    # the verdict weighs the reported metrics only (a benchmark column the project did not
    # report is shown in its table, not weighed)
    others = sorted((x for x in c.comparisons if x.metric in order[1:] and v.evidence_of(x).direction),
                    key=lambda x: order.index(x.metric))  # fmt: skip
    moved = v.evidence_of(head).direction is not None
    parts = [_moved(results, head) if moved else _flips_state(results, head)]
    if others:
        parts.append(_others(results, head, others))
    if not moved and not others:
        parts.append("no reported metric moved")
    line = f"{_prefix(results, d.verdict, head, others)}: {'; '.join(parts)}."
    critical = _critical(results, c)
    return f"{line} {critical}" if critical else line


def flips(results: Results, source: str) -> str:
    """The recommendation's flips line, on the primary metric: the counts (the page's flips
    section names the questions)."""
    c = _candidate(results, source)
    head = _head(c)
    return (
        f"Flips on {metric_label(results, head.metric)}: better on {len(head.better)}, "
        f"worse on {len(head.worse)}, {head.tied} tied; exact sign-test {p_is(head.sign_p)}"
    )


def needed(results: Results, source: str) -> str:
    """The flips-needed line: the one-way flips sign-test p < 0.05 needs over these questions."""
    c = _candidate(results, source)
    n, need = _head(c).n, _head(c).flips_needed
    if need is None:
        return f"With {how_many(n, 'question')}, no split of flips reaches sign-test p < 0.05"
    return (f"With {how_many(n, 'question')}, sign-test p < 0.05 needs at least {need} one-way "
            "flips (and no losses)")  # fmt: skip


def interval(results: Results, source: str) -> str:
    """The primary metric's paired difference, its interval and whether it includes zero."""
    c = _candidate(results, source)
    head = _head(c)
    label = metric_label(results, head.metric)
    if head.delta is None:
        return f"Δ {label} is undefined for this comparison"
    text = f"Δ {label} = {signed(head.delta)} over {how_many(head.n, 'question')}"
    if head.low is None or head.high is None:
        return text
    text += f" (95 % paired-bootstrap interval {signed(head.low)} to {signed(head.high)})"
    side = "includes" if head.low <= 0 <= head.high else "excludes"
    return f"{text}; the interval {side} zero; Holm-adjusted randomization {p_is(head.holm_p)}"


def take(results: Results, source: str) -> str:
    """What it would take, for an encouraging, not proven candidate (either way): the paired
    test at Holm's level over the candidates (0.05 / family), the sign test at an unadjusted
    0.05, each level said; the sign test's figures are the totals from which on every larger
    total reaches it (`results._what_it_takes`)."""
    c = _candidate(results, source)
    d = c.decision
    if d.questions is None or (d.for_t is None and d.for_p05 is None):
        return ""
    label = metric_label(results, d.primary)
    parts = []
    if d.for_t is not None:
        # the level as a fraction: a decimal would round 0.05 / 3 up to 0.017, above Holm's
        level = f"{ALPHA} / {d.family}" if d.family > 1 else f"{ALPHA}"
        part = (f"at the observed mean difference and spread of {label}, about {d.for_t} "
                f"questions in all (now {d.questions}) would bring a paired test to p < {level}")  # fmt: skip
        if d.family > 1:
            part += (f" (what Holm's adjustment over the {d.family} candidates asks at most "
                     f"for an adjusted p < {ALPHA})")  # fmt: skip
        if d.for_t_power is not None:
            part += f", about {d.for_t_power} for an 80 % chance"
        parts.append(part)
    if d.for_p05 is not None:  # unadjusted, as the flips line's; from a total on (not monotone)
        part = (f"at the observed flip rate, the sign test reaches an unadjusted p < {ALPHA} at "
                f"every total from about {d.for_p05} questions on")  # fmt: skip
        if d.for_power is not None:
            part += f" (an 80 % chance of it from about {d.for_power})"
        parts.append(part)
    return ("What it would take: " + "; ".join(parts) + " — estimates that assume what was "
            "observed stays as observed")  # fmt: skip


def _change(measure: str, base: float | None, cand: float | None) -> str | None:
    if base is None or cand is None:
        return None
    if abs(cand - base) <= 1e-12:
        return None
    if base > 0:
        pct = round(abs(cand - base) / base * 100)
        if pct == 0:
            return None
        return f"{pct} % {'fewer' if cand < base else 'more'} {measure}"
    return f"{cand:g} {measure} per question instead of none"


def cost(results: Results, source: str) -> str:
    """The cost line: how scored pairs, prompt tokens and latency change against the baseline."""
    c = _candidate(results, source)
    base = results.baseline_variant.costs
    known = [(m, b, x) for m, b, x in (
        ("scored pairs", base.pairs_per_question, c.costs.pairs_per_question),
        ("prompt tokens", base.tokens_per_question, c.costs.tokens_per_question),
        ("ms of hypothetical latency", base.latency_ms, c.costs.latency_ms),
    ) if b is not None and x is not None]  # fmt: skip
    if not known:
        return "Cost: not measured (a TREC run's pairs, tokens and latency are not known)"
    parts = [p for p in (_change(m, b, x) for m, b, x in known) if p]
    return "Cost: " + (", ".join(parts) if parts else "the same as the baseline's")


def unjudged(results: Results, source: str) -> str:
    """The unjudged caveat (`JudgedShare.caveat`): its top k holds clearly more unjudged
    documents than the baseline's, where that can change the answer."""
    c = _candidate(results, source)
    share = c.judged
    if share is None or not share.caveat or share.baseline is None or share.candidate is None:
        return ""
    return (f"Caveat: its top {share.k} holds {round(100 * (1 - share.candidate))} % unjudged "
            f"documents against {round(100 * (1 - share.baseline))} % for the baseline; "
            "unjudged count as not relevant, so this comparison can understate it")  # fmt: skip


def condensed(results: Results, source: str) -> str:
    """The condensed-lists line: the primary metric without unjudged results, and if it agrees."""
    c = _candidate(results, source)
    cmp = c.condensed
    if cmp is None:
        return ""
    label = metric_label(results, cmp.metric)
    where = (f"On condensed lists (each list's unjudged results removed before scoring), Δ {label} "
             f"= {signed(cmp.delta)}{bracket(cmp.low, cmp.high)} over "
             f"{how_many(cmp.n, 'question')}")  # fmt: skip
    if c.condensed_agrees and v.evidence_of(cmp).direction is None:  # neither moved
        return (f"{where}: it does not move, nor does it on the full lists, so the verdict "
                "holds where the judgments reach")  # fmt: skip
    if c.condensed_agrees:
        return f"{where}: it moves as on the full lists, so the verdict holds where the judgments reach"
    return (f"{where}: it does not move as on the full lists, so the holes in the judgments may "
            "decide this comparison; label the pairs of to-label.tsv before deciding")  # fmt: skip


def gate_metric(metric: str | None, k: int, kind: ProjectKind) -> str:
    """The gate's own metrics, named with the list they read: a runs-only gate cuts the
    reciprocal rank at its top k, which the site's MRR is not (MRR@k, the words say why); a
    pipeline's reads each run's final list, whose length differs between a candidate and the
    baseline when it changes `final`, so no one k names both."""
    if metric is None:
        return ""
    if metric == "mrr" and kind == "pipeline":
        return _GATE_MRR_FINAL
    if metric == "mrr":
        return f"MRR@{k} (reciprocal rank within the gate's top {k})"
    return label(metric)


def gate_line(results: Results, source: str) -> str:
    """One gate check (a candidate's, or the baseline's own), with full metric labels."""
    outcome = _at(results, source.rsplit(".checks[", 1)[0], GateOutcome, "a gate outcome")
    g = _at(results, source, GateCheck, "a gate check")
    k = outcome.k or 0  # a gate check exists only where a policy was read, and k with it
    metric = gate_metric(g.metric, k, results.settings.kind)
    q = visible(g.questions[0]) if g.questions else ""
    if g.rule in ("critical_missing", "no_policy"):  # no metric to label: the gate's own words
        return replace(g, questions=tuple(map(visible, g.questions))).text()
    if g.rule == "critical":
        return (f"critical: {q} failed: no relevant result (grade ≥ {results.settings.relevance}) "
                f"in the {g.cut} {g.k}")  # fmt: skip
    if g.rule == "min_recall":
        return f"{metric} {fmt(g.observed)} is below the minimum {fmt(g.threshold)}"
    if g.rule == "min_pass_rate":
        return (f"pass rate {fmt(g.observed)} ({g.counts[0]}/{g.counts[1]}) is below the minimum "
                f"{fmt(g.threshold)}")  # fmt: skip
    if g.rule == "baseline_missing_metric":
        return f"the saved baseline has no {metric} (it was saved at k = {g.k})"
    if g.rule == "max_drop":
        before, now = g.reference or 0.0, g.observed or 0.0
        return (f"{metric} dropped {fmt(before - now)} against the gate's baseline "
                f"({fmt(before)} → {fmt(now)}), more than the allowed {fmt(g.threshold)}")  # fmt: skip
    if g.rule == "review_on_mrr_flips":
        shown = ", ".join(map(visible, g.questions[:INLINE_IDS])) + (
            ", …" if len(g.questions) > INLINE_IDS else ""
        )
        return (f"{metric} worse for {len(g.questions)} question(s) ({shown}), better for "
                f"{g.counts[0]} (sign-test {p_is(g.p or 1.0)})")  # fmt: skip
    raise LookupError(f"unknown gate rule {g.rule!r}")


def baseline_fails(results: Results, source: str) -> str:
    """The baseline on the policy's own floors, said once and first where it fails them: every
    candidate is held to the same floors, so a candidate's REVIEW or BLOCK may be the
    baseline's; "" when it passes or the project has no policy."""
    own = results.baseline_gate
    if own is None or own.level is GateLevel.GO:
        return ""
    lines = [gate_line(results, f"baseline_gate.checks[{i}]") for i in range(len(own.checks))]
    return (f"The baseline {results.baseline} itself fails the gate policy ({own.level}): "
            f"{'; '.join(lines)}. Every candidate is held to the same floors, so a candidate's "
            f"{own.level} may be the baseline's, not the change's")  # fmt: skip


def verdict(results: Results, source: str) -> str:
    """A candidate's verdict badge."""
    return _candidate(results, source).decision.verdict


def gate(results: Results, source: str) -> str:
    """A candidate's gate badge (or that there is no gate policy)."""
    c = _candidate(results, source)
    return c.gate.level.value if c.gate.evaluated else _NO_POLICY


def delta(results: Results, source: str) -> str:
    """A comparison's difference with its interval: "Δ MRR +0.048 [+0.000, +0.119]"."""
    cmp = _at(results, source, Comparison, "a comparison")
    return f"Δ {metric_label(results, cmp.metric)} {signed(cmp.delta)}{bracket(cmp.low, cmp.high)}"


def flip_cell(results: Results, source: str) -> str:
    """A flips table's cell: "+3/−0" of the flip (or comparison) at `source`, on its own metric
    (the table's caption names the metric; `flips_of` says it in words)."""
    f: Flip | Comparison = _at(results, source, (Flip, Comparison), "a flip or a comparison")
    return flips_text(len(f.better), len(f.worse))


def flips_of(results: Results, source: str) -> str:
    """ "+3/−0 on MRR, sign-test p = 0.250": a comparison's (or flip's) flips on its metric."""
    f: Flip | Comparison = _at(results, source, (Flip, Comparison), "a flip or a comparison")
    p = f.p if isinstance(f, Flip) else f.sign_p
    return (f"{flips_text(len(f.better), len(f.worse))} on {metric_label(results, f.metric)}, "
            f"sign-test {p_is(p)}")  # fmt: skip


def flip_p(results: Results, source: str) -> str:
    """A benchmark row's flips against the baseline with the sign test's p: "+0/−3 p = 0.250"."""
    f = _at(results, source, Flip, "a flip")
    return f"{flips_text(len(f.better), len(f.worse))} {p_is(f.p)}"


def flip_line(results: Results, source: str) -> str:
    """A pair of variants in words: "sparse against hybrid: +0/−3 on MRR, sign-test p = 0.250,
    Holm-adjusted p = 1.000" (the flips page's list)."""
    f = _at(results, source, Flip, "a flip")
    return (f"{f.b} against {f.a}: {flips_text(len(f.better), len(f.worse))} on "
            f"{metric_label(results, f.metric)}, sign-test {p_is(f.p)}, Holm-adjusted "
            f"{p_is(f.holm_p)}")  # fmt: skip


def list_value(results: Results, source: str, base: str = "") -> str:
    """A question page's list heading: the first relevant rank, the primary metric's value on
    this question and its change against the baseline's list (`base`: that list's path)."""
    r = _resolve(results, source)
    metric = results.settings.flips_metric
    value = r.values.get(metric)
    before = _resolve(results, base).values.get(metric) if base else None
    change = None if value is None or before is None else value - before
    first = r.first_relevant if r.first_relevant is not None else "—"
    return (f"first relevant at {first} · {metric_label(results, metric)} {fmt(value)} · Δ "
            f"{signed(change)}")  # fmt: skip


def grid_legend(results: Results, source: str) -> str:
    """What the flips grid's cells mean; "—" only where a question has no relevant judgment."""
    base = results.baseline_variant
    metric = results.settings.flips_metric
    undefined = sum(1 for r in base.lists if r.values.get(metric) is None)
    text = "Blue cells gained, orange cells lost, blank cells are unchanged"
    if undefined:
        text += (f"; — marks the {undefined} question(s) with no relevant judgment, which have "
                 f"no {metric_label(results, metric)} to change")  # fmt: skip
    return text


# the p-values a `p` claim may name, each the Comparison field it reads
_P_OF = {"sign_p": "sign_p", "randomization_p": "randomization_p", "holm_p": "holm_p",
        "sign_holm_p": "sign_holm_p"}  # fmt: skip


def _p_value(results: Results, source: str, which: str = "sign_p") -> str:
    """One p of a comparison, as printed ("0.062", "< 0.001")."""
    cmp = _resolve(results, source)
    if not isinstance(cmp, Comparison) or which not in _P_OF:
        raise LookupError(f"expected a comparison's {which} at {source!r}")
    return p_text(getattr(cmp, _P_OF[which]))


def judged(results: Results, source: str) -> str:
    """A candidate's Judged@k against the baseline's over the questions both lists define:
    "0.940 → 0.780 over 21 questions (Δ −0.160 [−0.21, −0.11])"."""
    c = _candidate(results, source)
    share = c.judged
    if share is None:
        return ""
    return (f"{fmt(share.baseline)} → {fmt(share.candidate)} over {how_many(share.n, 'question')} (Δ "
            f"{signed(share.delta)}{bracket(share.low, share.high)})")  # fmt: skip


def counts(results: Results, source: str) -> str:
    """The inputs' counts sentence: the questions counted, judged and left out."""
    if results.inputs.counts is None:
        return ""
    return counts_sentence(results.inputs.counts, results.settings.averaging)


def notice(results: Results, source: str) -> str:
    """One input notice in words (not a run, an empty document, partial coverage …)."""
    n = _resolve(results, source)
    return notice_text(n, results.settings.kind)


def coverage(results: Results, source: str) -> str:
    """A run's partial-coverage warning ("" when it answers enough of the judged queries)."""
    variant = _resolve(results, source)
    if not isinstance(variant, VariantResult) or variant.coverage is None:
        return ""
    return partial_coverage(variant.name, variant.coverage)


def read_past(metrics: Iterable[Metric], depth: int, most_relevant: Callable[[], int]) -> list[str]:
    """The labels of `metrics` that read past a list's first `depth` results: a cut-off above
    it, or none (the whole list) — but R-prec, which reads the first R (a question's relevant
    documents), only where some question has more than `depth`: `most_relevant()`, asked only
    where R-prec is among them (it walks every judgment)."""

    def past(m: Metric) -> bool:
        kind, cut, _ = split_metric(m.name)
        if kind == "rprec":
            return most_relevant() > depth
        return cut is None or cut > depth

    return [m.label for m in metrics if past(m)]


def most_relevant(judgments: Iterable[Mapping[str, int]], relevance: int) -> int:
    """The most relevant documents (grade >= `relevance`) any question's `judgments` (document
    -> grade) hold: R-prec's largest R."""
    return max((sum(g >= relevance for g in grades.values()) for grades in judgments), default=0)


def depth_gap(results: Results, c: CandidateResult) -> tuple[int, int, list[str]] | None:
    """How deep the candidate's lists and the baseline's go (the most results either returns
    for a question), and the reported metrics that read past the shallower: None when both go
    as deep, or no reported metric reads that far. Part of such a difference is depth, not
    ranking: a run cut at 10 cannot find what R@100 or MAP count beyond its tenth result."""
    mine = max((r.size for r in c.ranked(results)), default=0)
    base = max((r.size for r in results.baseline_variant.lists), default=0)
    if mine == base:
        return None
    questions, rel = results.inputs.questions, results.settings.relevance
    past = read_past(results.settings.compared, min(mine, base),
                     lambda: most_relevant((q.judgments for q in questions), rel))  # fmt: skip
    return (mine, base, past) if past else None


def depth_sentence(name: str, mine: int, baseline: str, base: int, past: list[str],
                   runs_only: bool) -> str:  # fmt: skip
    """A run or candidate whose lists go `mine` deep against the baseline's `base`, with the
    reported metrics that read past the shallower (`past`): the site's depth warning, and
    `validate`'s note before any build."""
    shallow = min(mine, base)
    hint = f"; [runs] max_depth = {shallow} compares every run at one depth" if runs_only else ""
    return (f"Depth: {name} returns up to {how_many(mine, 'result')} a question, the baseline "
            f"{baseline} up to {base}; {and_joined(past)} {'reads' if len(past) == 1 else 'read'} past "
            f"{shallow}, so part of the difference is how far each list goes{hint}.")  # fmt: skip


def depth(results: Results, source: str) -> str:
    """A candidate's depth warning (`depth_gap`; "" when there is none)."""
    c = _candidate(results, source)
    gap = depth_gap(results, c)
    if gap is None:
        return ""
    mine, base, past = gap
    return depth_sentence(c.name, mine, results.baseline, base, past,
                          results.settings.kind == "runs")  # fmt: skip


# the order in which the index's summary counts the verdicts, best first
_SUMMARY_ORDER = (v.BETTER, v.PROMISING, v.MIXED, v.NO_CLEAR_CHANGE, v.LEANS_WORSE, v.WORSE)


def summary(results: Results, source: str) -> str:
    """ "2 better, 1 worse, 1 no clear change" from the verdicts (did they get better?)."""
    found = [c.decision.verdict for c in results.candidates]
    parts = [f"{found.count(x)} {x.lower()}" for x in _SUMMARY_ORDER if x in found]
    return ", ".join(parts) if parts else "no candidate"


def gate_summary(results: Results, source: str) -> str:
    """ "gate: 3 GO, 1 BLOCK", or that there is no policy (may they ship?)."""
    if results.policy is None:
        return f"gate: {_NO_POLICY}"
    found = [c.gate.level.value for c in results.candidates]
    parts = [f"{found.count(x)} {x}" for x in _GATE_LEVELS if x in found]
    return "gate: " + (", ".join(parts) if parts else "no candidate")


def tied_with(names: Sequence[str]) -> str:
    """ ", tied with final 10" after a best lead that others tie (the same lower bound and
    difference: the first name is the lead), else ""."""
    return f", tied with {and_joined(list(names))}" if names else ""


def lead(results: Results, source: str) -> str:
    """The best lead: among the candidates ahead on the primary metric, the largest lower bound
    of its paired interval (`Results.plan`'s lead), and the candidates it ties."""
    found = results.plan.lead
    if found is None:
        label = metric_label(results, results.settings.compared[0].name)
        return f"No best lead: no candidate is ahead of the baseline on {label}"
    c = next(c for c in results.candidates if c.name == found.candidate)
    # a lead on the primary metric may have lost on another reported one: said beside it
    down = [metric_label(results, x.metric) for m in results.settings.compared[1:]
            for x in c.comparisons if x.metric == m.name and v.evidence_of(x).direction == "down"]  # fmt: skip
    worse = f"; worse: {and_joined(down)}" if down else ""
    return (f"Best lead: {c.name}{tied_with(found.tied)}, Δ {metric_label(results, found.metric)} "
            f"{signed(found.delta)}{bracket(found.low, found.high)} over "
            f"{how_many(found.n, 'question')} "
            f"({c.decision.verdict.lower()}{worse})")  # fmt: skip


# the index's three verdict tiles: BETTER, WORSE, and every other verdict
_TALLIES = ("better", "worse", "unclear")


def tally(results: Results, source: str, of: str = "") -> str:
    """A count of the index's tiles: candidates `of` "better" (BETTER), "worse" (WORSE),
    "unclear" (every other verdict), of one verdict, or of one gate word."""
    verdicts = [c.decision.verdict for c in results.candidates]
    if of in _TALLIES:
        better, worse = verdicts.count(v.BETTER), verdicts.count(v.WORSE)
        return str(
            {"better": better, "worse": worse, "unclear": len(verdicts) - better - worse}[of]
        )
    if of in v.VERDICTS:
        return str(verdicts.count(of))
    if of in _GATE_LEVELS:
        return str([c.gate.level.value for c in results.candidates].count(of))
    raise LookupError(f"nothing to count as {of!r}")


def variant_judged(results: Results, source: str) -> str:
    """A variant's Judged@k with its interval: "Judged@10 of bm25: 0.167 [0.120, 0.210]"."""
    variant = _at(results, source, VariantResult, "a variant")
    share = variant.judged
    if share is None:
        return ""
    return (f"{label(f'judged@{results.settings.judged_k}')} of {variant.name}: {fmt(share.mean)}"
            f"{'' if share.low is None or share.high is None else f' [{fmt(share.low)}, {fmt(share.high)}]'}")  # fmt: skip


# the fixed statements of the methods: the verdict and gate rules in the words docs/verdicts.md
# uses (a test holds them to the same words), and worked examples
RULES: Mapping[str, Callable[[], str]] = {
    "moved": lambda: (
        "A reported metric moved when its paired 95 % bootstrap interval excludes zero or its "
        "paired randomization test, Holm-adjusted across the candidates, gives p < "
        f"{ALPHA}; it moved the way its paired difference points"
    ),
    "reported": lambda: (
        "The reported metrics are the project's [report] metrics, the primary first; a benchmark "
        "column the project does not report is shown, not weighed"
    ),
    "randomization": lambda: (
        "The randomization test flips the signs of the per-question differences: exactly, over "
        f"every sign pattern, up to {EXACT_RANDOMIZATION} non-zero differences; with "
        f"{RANDOMIZATION_RESAMPLES:,} seeded resamples up to {LARGE:,}; by its normal limit above"
    ),
    "better": lambda: (
        f"BETTER: the primary metric moved up with Holm-adjusted p < {ALPHA}, and no reported "
        "metric moved down"
    ),
    "promising": lambda: (
        "PROMISING (encouraging, not proven): nothing moved down, and the primary metric moved "
        "up by its interval alone, or it did not move but its flips lean better with an exact "
        f"sign-test p below {v.LEAN_P}"
    ),
    "worse": lambda: "WORSE and LEANS WORSE: the mirror images, when nothing moved up",
    "mixed": lambda: "MIXED: some reported metric moved up and another moved down",
    "no_clear_change": lambda: "NO CLEAR CHANGE: anything else",
    "gate": lambda: (
        "The gate answers whether it may ship: GO, REVIEW or BLOCK from the gate policy, or "
        f"{_NO_POLICY}; a critical question that got worse is named in the headline and decided "
        "by the gate, never by the verdict"
    ),
    "not_proven": lambda: (
        "Not proven is never said of a change that is significant after Holm's adjustment"
    ),
    # worked examples of the exact sign test (tests/test_verdicts.py computes them); true of any
    # project (the least one-way flips do not depend on how many questions are asked)
    "sign_example": lambda: (
        "Four better and none worse gives p = 0.125; six better and none worse, p = 0.031, is "
        f"the fewest one-way flips that give p < {ALPHA}"
    ),
    "holm_star": lambda: f"A ★ marks a Holm-adjusted sign-test p < {ALPHA}",
    "shades": lambda: (
        f"A pair's cell is light when its net flips are under {round(100 * FLIP_STEPS[0])} % of the "
        f"questions compared, medium under {round(100 * FLIP_STEPS[1])} %, dark from "
        f"{round(100 * FLIP_STEPS[1])} %; a question's cell is light when its change is under "
        f"{DELTA_STEPS[0]}, medium under {DELTA_STEPS[1]}, dark from {DELTA_STEPS[1]}"
    ),
    "take": lambda: (
        "For a candidate that is encouraging but not proven (PROMISING or LEANS WORSE), the page "
        "says how many questions would bring a paired test to p < "
        f"{ALPHA} divided by the number of candidates (what Holm's adjustment asks at most) at "
        "the observed mean difference and spread, never fewer than one more than now nor fewer "
        "than give the randomization test enough changed questions, with an 80 % power "
        "estimate, and beside it what the sign test would need at the observed flip rate"
    ),
    "unjudged": lambda: (
        f"A candidate whose Judged@k is at least {round(100 * v.UNJUDGED_GAP)} points below the "
        "baseline's, with the paired 95 % interval of the difference below zero, carries that "
        "caveat in its headline and is told to label before deciding, unless its primary metric "
        "on condensed lists moves as on the full lists (then the holes cannot change the answer)"
    ),
    "noise": lambda: (
        "Within noise = MRR not distinguishable from the best row: at most a two-question gap, "
        f"or a sign-test p ≥ {ALPHA}"
    ),
}


# the verdict and gate rules docs/verdicts.md states, each a key of `RULES`
_VERDICT_RULES = ("reported", "moved", "randomization", "better", "promising", "worse", "mixed",
                 "no_clear_change", "gate", "not_proven")  # fmt: skip


# the methods page's fixed statements, each a claim
METHODS_RULES = (*_VERDICT_RULES, "sign_example", "holm_star", "take", "unjudged")


def grades(results: Results, source: str) -> str:
    """The grade scale in the project's own words ([questions] grades), or neutral words."""
    names = results.settings.grade_names
    rel = results.settings.relevance
    if names:
        scale = ", ".join(f"{g} = {name}" for g, name in names)
        return f"Grades: {scale}; relevant = grade ≥ {rel}"
    seen = _grades_seen(results)
    if len(seen) == 1:  # not a scale "1–1": the judgments say only which documents are relevant
        return f"Every judgment has grade {seen[0]} (the project names no scale); relevant = grade ≥ {rel}"
    # "-2 to 2", not "-2–2": a dash after a number below 0 reads as a minus
    joint = " to " if seen and seen[0] < 0 else "–"
    span = f"{seen[0]}{joint}{seen[-1]}" if seen else "none"
    return f"Grades {span} (the project names none); relevant = grade ≥ {rel}"


def _grades_seen(results: Results) -> list[int]:
    """The grades the judgments give, lowest first."""
    return sorted({g for q in results.inputs.questions for g in q.grades.values()})


def past_final(labels: list[str], final: int) -> str:
    """The reported metrics whose cut-off is above the variants' final lists of `final` results
    (`Settings.past_final`, by their labels), in one sentence: the methods page's and
    `validate`'s note; "" when none reads past them."""
    if not labels:
        return ""
    those = "that one" if final == 1 else f"those {final}"
    return (f"The variants' final lists hold {how_many(final, 'result')} (a candidate's final "
            f"changes its own): {and_joined(labels)} {'reads' if len(labels) == 1 else 'read'} "
            f"{those} and no further.")  # fmt: skip


def _reports_bpref(settings: Settings) -> bool:
    """Whether bpref is among the reported metrics: the one that reads an unjudged result
    neither as relevant nor as not (the methods page says so where it matters)."""
    return any(m.name == "bpref" for m in settings.compared)


def bpref_excepted(settings: Settings) -> str:
    """What follows "an unjudged result counts as not relevant" wherever a page says it: ""
    or, where bpref is reported, that bpref counts it neither way ("" with a labels file, which
    grades every chunk: nothing is unjudged, and bpref counts a missing grade as 0)."""
    if not _reports_bpref(settings) or settings.questions_from == "labels":
        return ""
    return " (bpref excepted: it counts an unjudged result neither way)"


def exports_exception(settings: Settings) -> str:
    """What a trec_eval-style tool cannot recompute from the exports, in a pipeline project whose
    labels file grades every chunk (a missing grade is 0, the qrels export lists the grades it
    gives): the measures that tell an unjudged result from a 0, Judged@k and bpref where it is
    reported; "" where the exports are the judgments as read."""
    if settings.kind != "pipeline" or settings.questions_from != "labels":
        return ""
    bpref = _reports_bpref(settings)
    return (f", Judged@k{' and bpref' if bpref else ''} excepted: the labels file grades every "
            "chunk (a missing grade is 0), the qrels list the grades it gives, and such a tool "
            "takes an unlisted chunk as unjudged, which only "
            f"{'those two tell' if bpref else 'Judged@k tells'} from a 0")  # fmt: skip


def recompute_from(results: Results) -> str:
    """What a trec_eval-style tool recomputes the numbers from: the per-question CSV, the qrels
    and every variant's run, under data/runs/ where the site holds its whole lists; a runs-only
    project's run longer than a question page shows is the project's own file (its sha256
    listed under Reproduce), not repeated (`results._serialize.exported_runs`)."""
    exported = set(exported_runs(results))
    own = [visible(v.name) for v in results.variants if v.name not in exported]
    if not own:
        return "the per-question CSV, the TREC runs and the qrels"
    files = "the project's own TREC run files (listed with their sha256 under Reproduce; not repeated here)"
    if len(own) == len(results.variants):
        return f"the per-question CSV, the qrels and {files}"
    return (f"the per-question CSV, the qrels, the TREC runs under data/runs/ and, for "
            f"{and_joined(own)}, {files}")  # fmt: skip


def relevance(results: Results, source: str) -> str:
    """The methods page's relevance sentence; where the judgments hold a grade below 0, what
    the metrics make of it (0, or neither way in bpref)."""
    rel = results.settings.relevance
    named = dict(results.settings.grade_names)
    missing = ("a missing grade counts as 0 (the labels file grades every chunk)"
               if results.settings.questions_from == "labels"
               else f"unjudged results count as not relevant{bpref_excepted(results.settings)}")  # fmt: skip
    seen = _grades_seen(results)
    below = [g for g in seen if g < 0]
    if below:
        bpref = _reports_bpref(results.settings)
        missing += (f"; a grade below 0 (here {and_joined([str(g) for g in below])}) counts as "
                    f"0{', and in bpref neither way' if bpref else ''}")  # fmt: skip
    if rel in named:
        return (f"A result is relevant when its grade is at least {rel} ({rel} = {named[rel]}); "
                f"lower grades are not relevant, and {missing}")  # fmt: skip
    if len(seen) == 1:
        return (f"A result is relevant when its grade is at least {rel} (every judgment here "
                f"has grade {seen[0]}); lower grades are not relevant, and {missing}")  # fmt: skip
    span = f"{seen[0]}–{seen[-1]}" if seen else "none"
    return (f"A result is relevant when its grade is at least {rel} (the grades in these "
            f"judgments run {span}); lower grades are not relevant, and {missing}")  # fmt: skip


def rule(results: Results, source: str, key: str = "") -> str:
    """A fixed statement of the methods (`RULES[key]`), recorded as a claim like any other."""
    return RULES[key]()


# claim kind -> the function that words it from the Results (`derive`)
KINDS: Mapping[str, Callable[..., str]] = {
    "headline": headline,
    "baseline_fails": baseline_fails,
    "flips": flips,
    "needed": needed,
    "interval": interval,
    "take": take,
    "cost": cost,
    "unjudged": unjudged,
    "condensed": condensed,
    "gate_line": gate_line,
    "verdict": verdict,
    "gate": gate,
    "delta": delta,
    "flip_cell": flip_cell,
    "flips_of": flips_of,
    "flip_line": flip_line,
    "flip_p": flip_p,
    "grid_legend": grid_legend,
    "list_value": list_value,
    "p": _p_value,
    "judged": judged,
    "counts": counts,
    "notice": notice,
    "coverage": coverage,
    "depth": depth,
    "summary": summary,
    "gate_summary": gate_summary,
    "lead": lead,
    "tally": tally,
    "variant_judged": variant_judged,
    "rule": rule,
    "grades": grades,
    "relevance": relevance,
}


def derive(results: Results, kind: str, source: str, args: Mapping[str, Any]) -> str:
    """A claim's words, from the Results alone."""
    if kind not in KINDS:
        raise LookupError(f"unknown claim kind {kind!r}; expected one of: {', '.join(KINDS)}")
    return KINDS[kind](results, source, **args)


__all__ = [
    "KINDS",
    "answers_part",
    "counts_sentence",
    "trec_eval_counts",
    "ndcg_also_decides",
    "coverage_sentence",
    "derive",
    "gate_metric",
    "metric_label",
    "notice_text",
    "partial_coverage",
    "share",
]
