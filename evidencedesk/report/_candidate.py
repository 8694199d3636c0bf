"""Results -> each candidate's page model: metrics, flips, slices, cost, gate lines, recommendation.

Formatting only; the statistics are in the candidate's `CandidateResult`.

The written recommendation of a candidate change: its headline and its Markdown bullets, each
sentence with a number a typed claim (`report.claims`, worded by `report.words`).

The headline starts with the verdict's words (the badge's: results.verdicts), names every
metric that moved and which way, says how the primary metric's flips stand when it did not move,
and names any critical question that got worse (the gate decides those). The bullets give the
flips, what this label set needs, the interval, what it would take, the cost, the two answers
(verdict and gate) and the gate's lines; an unjudged caveat and the condensed lists where the
judgments have holes. A third-decimal difference is never named a winner.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

from evidencedesk.report._benchmark import SMALL_SLICE, caveat_keys
from evidencedesk.report._claims import Claims
from evidencedesk.report._gate_view import rule_rows
from evidencedesk.report._model import (
    CandidatePage,
    CondensedView,
    CostRow,
    DiffRow,
    Flips,
    FlipWords,
    GateLine,
    JudgedView,
    MetricPair,
    Recommendation,
    SliceCompare,
)
from evidencedesk.report._questions import LIST_PAGE
from evidencedesk.report._site import slug
from evidencedesk.report._values import fmt
from evidencedesk.report._words import INLINE_IDS, answers_part, depth_gap
from evidencedesk.results import _verdicts as v
from evidencedesk.results.types import (
    CandidateResult,
    ConfigChange,
    JudgedShare,
    Results,
    RunCosts,
    VariantResult,
)
from evidencedesk.retrieval._stats import TIE
from evidencedesk.retrieval.evalreport import Config, _capped_words

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&\"'=:])")


# a page's claim recorder (`report.claims`): the words of a claim kind for a results.json source
Say = Callable[..., str]


def md_escape(text: str) -> str:
    """Text made inert inside generated Markdown (one line, punctuation escaped)."""
    return _MD_PUNCT.sub(r"\\\1", " ".join(str(text).split()))


def category(verdict: str) -> str:
    """The verdict as a CSS-safe word: "NO CLEAR CHANGE" -> "no-clear-change"."""
    return "-".join(verdict.lower().split(" "))


# verdicts whose recommendation warns that a third-decimal difference is not a result
_CAUTIOUS = (v.NO_CLEAR_CHANGE, v.PROMISING, v.MIXED, v.LEANS_WORSE)


def recommend(
    say: Say, source: str, cand: CandidateResult, risk: tuple[str, str] | None = None,
    to_label: bool = False,
) -> Recommendation:  # fmt: skip
    """The candidate at `source` (``candidates[i]``): every sentence with a number said through
    `say` (a page's `Claims.say`); `risk`: what the config's scope change risks (headline clause,
    paragraph); `to_label`: the site has a to-label.tsv to point at."""
    line = say("headline", source)
    if risk is not None:
        line += f" {risk[0]}"
    caveat = say("unjudged", source)  # said on the page's warnings, once
    lines = [f"- {md_escape(say('flips', source))} ([which questions](#flips))."]
    if risk is not None:
        lines.append(f"- {risk[1]}")  # Markdown already: its question links
    lines.append(f"- {md_escape(say('interval', source))}.")
    take = say("take", source)
    if take:
        lines.append(f"- {md_escape(take)}.")
    lines.append(f"- {md_escape(say('cost', source))}.")
    if caveat:
        where = (" The unjudged pairs worth labelling first are in [to-label.tsv](data/to-label.tsv)"
                 " ([what to label next](to-label.html)); grade them, append them to the qrels and"
                 " rebuild.") if to_label else ""  # fmt: skip
        lines.append(f"- Label before deciding: the comparison reads unjudged documents as not "
                     f"relevant.{where}")  # fmt: skip
    condensed = say("condensed", source)
    if condensed:
        lines.append(f"- {md_escape(condensed)}.")
    if cand.decision.verdict in _CAUTIOUS:
        lines += [
            "",
            "Differences in the third decimal of a mean are not a result; decide on the flips "
            "and the interval, and on cost when quality is the same.",
        ]
    return Recommendation(category(cand.decision.verdict), line, "\n".join(lines) + "\n",
                          cand.decision.verdict)  # fmt: skip


def _list_filter(words: str) -> str:
    """The question list opened filtered by `words` (questions.html#q=…)."""
    return f"{LIST_PAGE}#q={quote(words, safe='')}"


def _change(base: float | None, cand: float | None, unit: str = "") -> str:
    """ "+375 %", "−3 %"; a change under half a percent keeps one decimal ("−0.2 %", never
    "−0 %"); from zero, the difference itself ("+10.0")."""
    if base is None or cand is None:
        return "—"
    if abs(cand - base) <= TIE:
        return "same"
    if base:
        pct = (cand - base) / base * 100
        return fmt(pct, 0 if abs(pct) >= 0.5 else 1, signed=True) + " %"
    return fmt(cand - base, 1, signed=True) + unit


_CURLY = str.maketrans("’", "'")  # a typed note's curly apostrophe reads as the straight one


def note_heading(note: str | None) -> str:
    """The note's heading, or "" when the note already opens with one ("**Reviewer's note.**")."""
    if not note:
        return ""
    first = note.lstrip().lstrip("#*_ ").lower().translate(_CURLY)
    return "" if first.startswith(("reviewer's note", "note")) else "Reviewer's note"


def _costs(base: RunCosts, cand: RunCosts) -> tuple[CostRow, ...]:
    bp, cp = base.pairs_per_question, cand.pairs_per_question
    bt, ct = base.tokens_per_question, cand.tokens_per_question
    rows = [
        CostRow("scored pairs / question", bp, cp, _change(bp, cp)),
        CostRow("tokens / question (estimate)", bt, ct, _change(bt, ct), digits=0),
    ]
    if base.latency_ms is not None and cand.latency_ms is not None:
        bl, cl = base.latency_ms, cand.latency_ms
        rows.append(CostRow("latency, hypothetical (ms)", bl, cl, _change(bl, cl, " ms")))
    return tuple(rows)


def _slices(base: VariantResult, cand: CandidateResult, metric: str) -> tuple[SliceCompare, ...]:
    b = {t.tag: t for t in base.slices if t.metric == metric}
    c = {t.tag: t for t in cand.slices if t.metric == metric}
    out = []
    for tag in sorted(set(b) | set(c)):
        before = b.get(tag)
        out.append(SliceCompare(tag, before, c.get(tag),
                                (0 if before is None else before.n) < SMALL_SLICE))  # fmt: skip
    return tuple(out)


def risk(cand: CandidateResult) -> tuple[str, str] | None:
    """What the scope filter protects, for a candidate that filters after ranking: read from the
    config, stated whatever the metrics say."""
    if cand.exposure is None:
        return None
    hits = cand.exposure  # one per (question, chunk): a chunk in many lists counts in each
    chunks = {e.chunk for e in hits}
    restricted = len({e.chunk for e in hits if "restricted" in e.marks})
    superseded = len({e.chunk for e in hits if "superseded" in e.marks})
    qids = sorted({e.question for e in hits})
    links = ", ".join(f"[{md_escape(q)}](question-{slug(q)}.html)" for q in qids)
    head = (
        f"Risk: it removes the pre-filter — {len(chunks)} restricted or superseded chunk(s) "
        f"reached its candidate lists, {len(hits)} time(s) in all."
    )
    body = (
        "Risk (from the config, whatever the metrics say): this candidate filters after ranking "
        "(prefilter = false). The pre-filter keeps restricted and superseded chunks out of the "
        f"candidate lists; without it, {restricted} restricted and {superseded} superseded "
        f"chunk(s) reached the candidate lists of {len(qids)} question(s), {len(hits)} time(s) in "
        "all"
        + (f" ({links})" if links else "")
        + " before the late filter removed them: one filter bug away from the prompt."
    )
    lost = _lost_to_the_late_filter(cand)
    if lost:
        lost_links = ", ".join(f"[{md_escape(q)}](question-{slug(q)}.html)" for q in lost)
        body += (
            f" Here it also costs answers: on {len(lost)} question(s) ({lost_links}) those chunks "
            "outranked a chunk that answers the question and pushed it out of the first stage's "
            "list; the late filter then removed them, leaving a shorter final list without it."
        )
    return head, body


def _lost_to_the_late_filter(cand: CandidateResult) -> tuple[str, ...]:
    """The questions answers were lost on by filtering after ranking: the candidate changes only
    that, does worse there (on any reported metric), marked chunks reached the question's list
    and the late filter left it shorter than the baseline's final size."""
    if cand.exposure is None or [d.field for d in cand.diff] != ["prefilter"]:
        return ()
    exposed = {e.question for e in cand.exposure}
    worse = {q for c in cand.comparisons for q in c.worse}
    final = Config().final
    short = {r.question for r in cand.lists if r.size < final}
    return tuple(sorted(worse & exposed & short))


def diff_rows(diff: tuple[ConfigChange, ...]) -> tuple[DiffRow, ...]:
    """The config change as a reader says it. A candidate whose depth is below its final says
    that its final list is capped by the depth, on the depth row (else the final row)."""
    given = {d.field: d.candidate for d in diff}  # the candidate's values, over Config()'s
    depth, final = int(given.get("depth", Config().depth)), int(given.get("final", Config().final))
    capped_on = None
    if depth < final:
        capped_on = "depth" if "depth" in given else "final"
    return tuple(
        DiffRow(d, _capped_words(depth, final) if d.field == capped_on else "") for d in diff
    )


def _judged_view(say: Say, source: str, share: JudgedShare | None) -> JudgedView | None:
    if share is None:
        return None
    return JudgedView(share, say("unjudged", source), say("judged", source))


def _condensed_view(say: Say, source: str, cand: CandidateResult) -> CondensedView | None:
    cmp = cand.condensed
    if cmp is None:
        return None
    return CondensedView(cmp, bool(cand.condensed_agrees), say("condensed", source))


def _compared_runs(results: Results, i: int) -> list[str]:
    """The runs candidate `i`'s comparison reads: the baseline's and, in a runs-only project,
    its own."""
    cand = results.candidates[i]
    return list(dict.fromkeys([results.baseline] + ([cand.lists_of] if cand.lists_of else [])))


def _run_notices(results: Results, say: Say, i: int) -> tuple[str, ...]:
    """The inputs' notices about the runs candidate `i`'s comparison reads (where a run's file
    order does not count: `results._inputs.order_notices`), said on its page as on the
    overview."""
    runs = _compared_runs(results, i)
    return tuple(say("notice", f"inputs.notices[{at}]")
                 for at, n in enumerate(results.inputs.notices) if n.run in runs)  # fmt: skip


def _run_warnings(results: Results, say: Say, i: int) -> tuple[str, ...]:
    """Coverage warnings of the runs candidate `i`'s comparison reads (`_compared_runs`): each
    that answers fewer than all judged queries (`answers_part`); then its depth warning, when
    its lists and the baseline's go to different depths that a reported metric reads past
    (`depth_gap`)."""
    cand = results.candidates[i]
    index = {v.name: at for at, v in enumerate(results.variants)}
    out = []
    for name in _compared_runs(results, i):
        variant = results.by_name[name]
        if answers_part(variant.coverage):
            out.append(say("coverage", f"variants[{index[name]}]"))
    if depth_gap(results, cand) is not None:
        out.append(say("depth", f"candidates[{i}]"))
    return tuple(out)


def _caveat_keys(results: Results, cand: CandidateResult) -> tuple[str, ...]:
    """The caveats a candidate's page bears: the components of the baseline's configuration and
    of its own (the baseline's with its changes), then the demo's tuning; none in a runs-only
    project (no built-in configuration)."""
    base = results.baseline_variant.config
    if base is None:
        return ()
    mine = {**base, **{c.field: c.candidate for c in cand.diff}}
    dense = results.settings.dense
    # (the page lists them in the overview's order, whatever the order here)
    return tuple(dict.fromkeys((*caveat_keys(base["first_stage"], base["reranker"], dense),
                                *caveat_keys(mine["first_stage"], mine["reranker"], dense),
                                "tuning")))  # fmt: skip


def candidate_models(results: Results, claims: Claims) -> tuple[CandidatePage, ...]:
    """Every candidate page's model, each number on it a claim."""
    base = results.baseline_variant
    labels = {m.name: m.label for m in results.settings.compared}
    out = []
    bench = claims.on("benchmark.html")  # the difference tables: each metric's own flips
    for i, cand in enumerate(results.candidates):
        say = claims.on(f"candidate-{slug(cand.name)}.html")
        bench("verdict", f"candidates[{i}]")  # its badge in each difference table
        source = f"candidates[{i}]"
        at = {c.metric: j for j, c in enumerate(cand.comparisons)}
        shown = [cand.on[m.name] for m in results.settings.compared]
        metrics = tuple(
            MetricPair(
                row=c,
                label=labels[c.metric],
                flips_claim=bench("flip_cell", f"{source}.comparisons[{at[c.metric]}]"),
                sign_p_claim=bench("p", f"{source}.comparisons[{at[c.metric]}]", which="sign_p"),
            )
            for c in shown
        )
        cost_rows = _costs(base.costs, cand.costs)
        lines = tuple(GateLine(g.level, say("gate_line", f"{source}.gate.checks[{j}]"))
                      for j, g in enumerate(cand.gate.checks))  # fmt: skip
        f = cand.on[results.settings.flips_metric]
        flips_source = f"{source}.comparisons[{at[f.metric]}]"
        head_source = f"{source}.comparisons[{at[cand.decision.primary]}]"
        out.append(
            CandidatePage(
                name=cand.name,
                rationale=cand.rationale,
                diff=diff_rows(cand.diff),
                metrics=metrics,
                flips=Flips(
                    row=f,
                    needed=results.flips_needed,
                    inline=INLINE_IDS,
                    more=(
                        _list_filter(f'"better {cand.name}"'),
                        _list_filter(f'"worse {cand.name}"'),
                    ),
                    words=FlipWords(
                        say("p", flips_source, which="sign_p"),
                        say("p", flips_source, which="randomization_p"),
                        say("p", flips_source, which="holm_p"),
                        say("needed", source),
                    ),
                ),
                slices=_slices(base, cand, f.metric),
                cost=cost_rows,
                gate_level=cand.gate.level,
                gate_lines=lines,
                recommendation=recommend(say, source, cand, risk(cand), bool(results.to_label)),
                note_markdown=cand.note,
                gate_rules=rule_rows(
                    cand.gate.rules, cand.gate.k or 0, results.settings.kind, results.policy
                ),
                gate_baseline=cand.gate.baseline,
                note_heading=note_heading(cand.note),
                slice_small=SMALL_SLICE,
                judged=_judged_view(say, source, cand.judged),
                caveat_keys=_caveat_keys(results, cand),
                condensed=_condensed_view(say, source, cand),
                warnings=_run_warnings(results, say, i),
                notices=_run_notices(results, say, i),
                keyfacts=(say("delta", head_source), say("flips_of", flips_source)),
                badges=(say("verdict", source), say("gate", source)),
                gated=cand.gate.evaluated,
            )
        )
    return tuple(out)


__all__ = ["category", "md_escape", "recommend"]
