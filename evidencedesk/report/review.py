"""Each candidate change against the baseline: paired statistics, gate, cost, recommendation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evidencedesk.gate import GateResult, Verdict
from evidencedesk.report.model import (
    Candidate,
    CostRow,
    DiffRow,
    Flips,
    GateLine,
    MetricPair,
    SliceCompare,
)
from evidencedesk.report.recommend import CostChange, Facts, recommend
from evidencedesk.report.values import num, pval, stat
from evidencedesk.report.variants import Scored, metric_stat
from evidencedesk.retrieval.metrics import (
    by_tag,
    flips_needed,
    holm,
    paired,
    paired_bootstrap_ci,
    randomization_test,
)

NO_POLICY = GateResult(
    Verdict.REVIEW, ("review: no gate policy in this project; nothing was checked",)
)
COMPARED = (("mrr", "MRR"), ("recall@3", "recall@3"), ("ndcg@5", "nDCG@5"))


@dataclass(frozen=True)
class Proposal:
    """A candidate's inputs to the review: its scored run, config diff, gate and costs."""

    name: str
    rationale: str
    scored: Scored
    diff: tuple[tuple[str, str, str], ...]
    gate: GateResult
    latency: tuple[float, float] | None  # (baseline, candidate) hypothetical ms
    note: str | None = None


def gate_lines(result: GateResult) -> tuple[GateLine, ...]:
    lines = []
    for line in result.lines:
        level, sep, text = line.partition(":")
        level = level.strip().upper() if sep else result.verdict.value
        lines.append(
            GateLine(
                level if level in ("BLOCK", "REVIEW") else result.verdict.value,
                text.strip() if sep else line,
            )
        )
    return tuple(lines)


def _change(base: float | None, cand: float | None, unit: str = "") -> str:
    if base is None or cand is None:
        return "—"
    if abs(cand - base) < 1e-12:
        return "same"
    if base:
        return f"{(cand - base) / base * 100:+.0f} %".replace("-", "−")
    return f"{cand - base:+.1f}{unit}".replace("-", "−")


def _costs(
    base: Scored, cand: Scored, latency: tuple[float, float] | None
) -> tuple[tuple[CostRow, ...], tuple[CostChange, ...]]:
    rows = [
        CostRow(
            "scored pairs / question",
            num(base.pairs, 1),
            num(cand.pairs, 1),
            _change(base.pairs, cand.pairs),
        ),
        CostRow(
            "tokens / question (estimate)",
            num(base.tokens, 0),
            num(cand.tokens, 0),
            _change(base.tokens, cand.tokens),
        ),
    ]
    changes = [CostChange("scored pairs", base.pairs, cand.pairs)]
    if base.tokens is not None and cand.tokens is not None:
        changes.append(CostChange("prompt tokens", round(base.tokens), round(cand.tokens)))
    if latency is not None:
        rows.append(
            CostRow(
                "latency, hypothetical (ms)",
                num(latency[0], 1),
                num(latency[1], 1),
                _change(*latency, " ms"),
            )
        )
    return tuple(rows), tuple(changes)


def _slices(base: Scored, cand: Scored) -> tuple[SliceCompare, ...]:
    b, c = by_tag(list(base.judged), "mrr"), by_tag(list(cand.judged), "mrr")
    out = []
    for tag in sorted(set(b) | set(c)):
        bv, n = b.get(tag, (None, 0))
        cv, _ = c.get(tag, (None, 0))
        delta = None if bv is None or cv is None else cv - bv
        out.append(SliceCompare(tag, n, num(bv), num(cv), num(delta, signed=True)))
    return tuple(out)


def review_candidates(
    base: Scored, proposals: Sequence[Proposal], seed: int
) -> tuple[Candidate, ...]:
    """One model Candidate per proposal; Holm adjusts the sign-test p across the family."""
    flips = {p.name: paired(list(base.judged), list(p.scored.judged), "mrr") for p in proposals}
    adjusted = holm({name: f.p for name, f in flips.items()}) if flips else {}
    answerable = sum(1 for j in base.judged if j.n_relevant > 0)
    needed = flips_needed(answerable)
    out = []
    for prop in proposals:
        cand, flip = prop.scored, flips[prop.name]
        metrics = []
        delta_ci = None
        for name, label in COMPARED:
            ci = paired_bootstrap_ci(list(base.judged), list(cand.judged), name, seed=seed)
            delta_ci = delta_ci or ci
            metrics.append(
                MetricPair(
                    baseline=metric_stat(list(base.judged), name, label, seed),
                    candidate=metric_stat(list(cand.judged), name, label, seed),
                    delta=stat(f"Δ {label}", ci.mean, ci.low, ci.high, ci.n, signed=True),
                )
            )
        cost_rows, cost_changes = _costs(base, cand, prop.latency)
        lines = gate_lines(prop.gate)
        facts = Facts(
            candidate=prop.name,
            verdict=prop.gate.verdict.value,
            gate_lines=tuple((g.level, g.text) for g in lines),
            better=flip.better,
            worse=flip.worse,
            p=flip.p,
            questions=answerable,
            flips_needed=needed,
            delta=delta_ci.mean if delta_ci else None,
            low=delta_ci.low if delta_ci else None,
            high=delta_ci.high if delta_ci else None,
            costs=cost_changes,
        )
        out.append(
            Candidate(
                name=prop.name,
                rationale=prop.rationale,
                diff=tuple(DiffRow(*row) for row in prop.diff),
                metrics=tuple(metrics),
                flips=Flips(
                    better=flip.better,
                    worse=flip.worse,
                    tied=flip.tied,
                    sign_p=pval(flip.p),
                    randomization_p=pval(
                        randomization_test(list(base.judged), list(cand.judged), "mrr", seed=seed)
                    ),
                    holm_p=pval(adjusted.get(prop.name)),
                    needed=needed,
                    text=f"+{len(flip.better)}/−{len(flip.worse)}",
                ),
                slices=_slices(base, cand),
                cost=cost_rows,
                verdict=prop.gate.verdict.value,  # type: ignore[arg-type]
                gate_lines=lines,
                recommendation=recommend(facts),
                note_markdown=prop.note,
            )
        )
    return tuple(out)
