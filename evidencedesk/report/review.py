"""Results -> each candidate's page model: metrics, flips, slices, cost, gate lines, recommendation.

Formatting only; the statistics are in the candidate's `CandidateResult`.
"""

from __future__ import annotations

from urllib.parse import quote

from evidencedesk.gate import GateCheck as GateRule
from evidencedesk.gate import Verdict
from evidencedesk.report.gate_view import rule_rows
from evidencedesk.report.model import (
    Candidate,
    CondensedView,
    CostRow,
    DiffRow,
    Flips,
    GateLine,
    JudgedView,
    MetricPair,
    SliceCompare,
)
from evidencedesk.report.question_list import LIST_PAGE
from evidencedesk.report.recommend import INLINE_IDS, CostChange, Facts, md_escape, recommend
from evidencedesk.report.site import slug
from evidencedesk.report.values import config_word, flips_text, num, pval, stat
from evidencedesk.report.variants import SMALL_SLICE, by_tag, coverage_warning, metric_stat
from evidencedesk.results.rows import Costs
from evidencedesk.results.types import (
    CandidateResult,
    ConfigChange,
    GateCheck,
    JudgedShare,
    Results,
    VariantResult,
)
from evidencedesk.results.verdicts import evidence_of
from evidencedesk.retrieval.evalreport import Config, capped_words
from evidencedesk.retrieval.stats import TIE


def list_filter(words: str) -> str:
    """The question list opened filtered by `words` (questions.html#q=…)."""
    return f"{LIST_PAGE}#q={quote(words, safe='')}"


def gate_text(check: GateCheck) -> str:
    """A gate check's wording (the gate's own, `evidencedesk.gate.GateCheck.text`)."""
    return GateRule(Verdict(check.level), check.rule, check.metric, check.observed,
                    check.threshold, check.questions, check.reference, check.k, check.counts,
                    check.p).text()  # fmt: skip


def _change(base: float | None, cand: float | None, unit: str = "") -> str:
    """ "+375 %", "−3 %"; a change under half a percent keeps one decimal ("−0.2 %", never
    "−0 %"); from zero, the difference itself ("+10.0")."""
    if base is None or cand is None:
        return "—"
    if abs(cand - base) <= TIE:
        return "same"
    if base:
        pct = (cand - base) / base * 100
        text = f"{pct:+.0f} %" if abs(pct) >= 0.5 else f"{pct:+.1f} %"
        return text.replace("-", "−")
    return f"{cand - base:+.1f}{unit}".replace("-", "−")


def note_heading(note: str | None) -> str:
    """The note's heading, or "" when the note already opens with one ("**Reviewer's note.**")."""
    if not note:
        return ""
    first = note.lstrip().lstrip("#*_ ").lower().replace("’", "'")
    return "" if first.startswith(("reviewer's note", "note")) else "Reviewer's note"


def _costs(base: Costs, cand: Costs) -> tuple[tuple[CostRow, ...], tuple[CostChange, ...]]:
    bp, cp = base.pairs_per_question, cand.pairs_per_question
    bt, ct = base.tokens_per_question, cand.tokens_per_question
    rows = [
        CostRow("scored pairs / question", num(bp, 1), num(cp, 1), _change(bp, cp)),
        CostRow("tokens / question (estimate)", num(bt, 0), num(ct, 0), _change(bt, ct)),
    ]
    changes = []
    if bp is not None and cp is not None:  # unknown costs are not "the same cost"
        changes.append(CostChange("scored pairs", bp, cp))
    if bt is not None and ct is not None:
        changes.append(CostChange("prompt tokens", bt, ct))  # the table's numbers, unrounded
    if base.latency_ms is not None and cand.latency_ms is not None:
        bl, cl = base.latency_ms, cand.latency_ms
        rows.append(
            CostRow("latency, hypothetical (ms)", num(bl, 1), num(cl, 1), _change(bl, cl, " ms"))
        )
    return tuple(rows), tuple(changes)


def _slices(base: VariantResult, cand: CandidateResult, metric: str) -> tuple[SliceCompare, ...]:
    b = by_tag(base, metric)
    c = {t.tag: (t.mean, t.n) for t in cand.slices if t.metric == metric}
    out = []
    for tag in sorted(set(b) | set(c)):
        bv, n = b.get(tag, (None, 0))
        cv, _ = c.get(tag, (None, 0))
        delta = None if bv is None or cv is None else cv - bv
        out.append(SliceCompare(tag, n, num(bv), num(cv), num(delta, signed=True),
                                n < SMALL_SLICE))  # fmt: skip
    return tuple(out)


def risk(cand: CandidateResult) -> tuple[str, str] | None:
    """What the scope filter protects, for a candidate that filters after ranking: read from the
    config, stated whatever the metrics say."""
    if cand.exposure is None:
        return None
    hits = cand.exposure
    restricted = sum(1 for e in hits if "restricted" in e.marks)
    superseded = sum(1 for e in hits if "superseded" in e.marks)
    qids = sorted({e.question for e in hits})
    links = ", ".join(f"[{md_escape(q)}](question-{slug(q)}.html)" for q in qids)
    head = (
        f"Risk: it removes the pre-filter — {len(hits)} restricted or superseded chunk(s) reached "
        "its candidate lists."
    )
    body = (
        "Risk (from the config, whatever the metrics say): this candidate filters after ranking "
        "(prefilter = false). The pre-filter keeps restricted and superseded chunks out of the "
        f"candidate lists; without it, {restricted} restricted and {superseded} superseded "
        f"chunk(s) reached the candidate lists of {len(qids)} question(s)"
        + (f" ({links})" if links else "")
        + " before the late filter removed them: one filter bug away from the prompt."
    )
    return head, body


def diff_rows(diff: tuple[ConfigChange, ...]) -> tuple[DiffRow, ...]:
    """The config change as a reader says it. A candidate whose depth is below its final says
    that its final list is capped by the depth, on the depth row (else the final row)."""
    given = {d.field: d.candidate for d in diff}  # the candidate's values, over Config()'s
    depth, final = int(given.get("depth", Config().depth)), int(given.get("final", Config().final))
    capped_on = None
    if depth < final:
        capped_on = "depth" if "depth" in given else "final"
    return tuple(
        DiffRow(
            d.field,
            config_word(d.field, d.baseline),
            config_word(d.field, d.candidate)
            + (f" ({capped_words(depth, final)})" if d.field == capped_on else ""),
        )
        for d in diff
    )


def unjudged_caveat(share: JudgedShare) -> str:
    """The headline's caveat for a candidate whose top k is clearly less judged."""
    if not share.caveat or share.baseline is None or share.candidate is None:
        return ""
    theirs, ours = 1 - share.candidate, 1 - share.baseline
    return (
        f"its top {share.k} holds {round(100 * theirs)} % unjudged documents against "
        f"{round(100 * ours)} % for the baseline; unjudged count as not relevant, so this "
        "comparison can understate it"
    )


def judged_view(share: JudgedShare | None) -> JudgedView | None:
    if share is None:
        return None
    label = f"Δ Judged@{share.k}"
    return JudgedView(share.k, num(share.baseline), num(share.candidate),
                      stat(label, share.delta, share.low, share.high, share.n, signed=True),
                      unjudged_caveat(share))  # fmt: skip


def condensed_view(cand: CandidateResult, label: str) -> CondensedView | None:
    cmp = cand.condensed
    if cmp is None:
        return None
    delta = stat(f"Δ {label}", cmp.delta, cmp.low, cmp.high, cmp.n, signed=True)
    where = (f"On condensed lists (each list's unjudged results removed before scoring), "
             f"{delta.name} = {delta.text} {delta.interval_text} over {cmp.n} questions")  # fmt: skip
    if cand.condensed_agrees:
        words = f"{where}: it moves as on the full lists, so the verdict holds where the judgments reach."
    else:
        words = (f"{where}: it does not move as on the full lists, so the holes in the judgments "
                 "may decide this comparison; label the pairs of to-label.tsv before deciding.")  # fmt: skip
    return CondensedView(metric_stat(cmp.baseline, label), metric_stat(cmp.candidate, label),
                         delta, bool(cand.condensed_agrees), words)  # fmt: skip


def run_warnings(results: Results, cand: CandidateResult) -> tuple[str, ...]:
    """Coverage warnings of the runs a candidate's comparison reads: the baseline's and, in a
    runs-only project, its own."""
    names = [results.baseline] + ([cand.lists_of] if cand.lists_of else [])
    found = (coverage_warning(results.variant(n), results.settings.min_coverage)
             for n in dict.fromkeys(names))  # fmt: skip
    return tuple(w for w in found if w)


def candidate_models(results: Results) -> tuple[Candidate, ...]:
    base = results.variant(results.baseline)
    labels = {m.name: m.label for m in results.settings.compared}
    out = []
    for cand in results.candidates:
        shown = [cand.comparison(m.name) for m in results.settings.compared]
        metrics = tuple(
            MetricPair(
                baseline=metric_stat(c.baseline, labels[c.metric]),
                candidate=metric_stat(c.candidate, labels[c.metric]),
                delta=stat(f"Δ {labels[c.metric]}", c.delta, c.low, c.high, c.n, signed=True),
            )
            for c in shown
        )
        head = shown[0] if shown else None
        cost_rows, cost_changes = _costs(base.costs, cand.costs)
        lines = tuple(GateLine(c.level, gate_text(c)) for c in cand.gate.checks)
        f = cand.comparison(results.settings.flips_metric)
        facts = Facts(
            candidate=cand.name,
            verdict=cand.gate.verdict,
            gate_lines=tuple((g.level, g.text) for g in lines),
            better=f.better,
            worse=f.worse,
            p=f.sign_p,
            questions=results.answerable,
            flips_needed=results.flips_needed,
            delta=head.delta if head else None,
            low=head.low if head else None,
            high=head.high if head else None,
            costs=cost_changes,
            decision=cand.decision,
            evidence=tuple((labels[c.metric], evidence_of(c)) for c in shown),
            risk=risk(cand),
            metric=labels[head.metric] if head else labels[f.metric],
            unjudged=unjudged_caveat(cand.judged) if cand.judged is not None else "",
            to_label=sum(1 for r in results.to_label
                         if cand.name in r.runs or results.baseline in r.runs),  # fmt: skip
        )
        out.append(
            Candidate(
                name=cand.name,
                rationale=cand.rationale,
                diff=diff_rows(cand.diff),
                metrics=metrics,
                flips=Flips(
                    better=f.better,
                    worse=f.worse,
                    tied=f.tied,
                    sign_p=pval(f.sign_p),
                    randomization_p=pval(f.randomization_p),
                    holm_p=pval(f.holm_p),
                    needed=results.flips_needed,
                    text=flips_text(len(f.better), len(f.worse)),
                    inline=INLINE_IDS,
                    more=(
                        list_filter(f'"better {cand.name}"'),
                        list_filter(f'"worse {cand.name}"'),
                    ),
                ),
                slices=_slices(base, cand, f.metric),
                cost=cost_rows,
                verdict=cand.gate.verdict,  # type: ignore[arg-type]
                gate_lines=lines,
                recommendation=recommend(facts),
                note_markdown=cand.note,
                gate_rules=rule_rows(cand.gate.rules),
                gate_baseline=cand.gate.baseline,
                note_heading=note_heading(cand.note),
                slice_small=SMALL_SLICE,
                judged=judged_view(cand.judged),
                condensed=condensed_view(cand, labels[results.settings.compared[0].name]),
                warnings=run_warnings(results, cand),
            )
        )
    return tuple(out)
