"""The decisions of a Results re-derived from the numbers it holds (`evidencedesk audit`).

`recheck(results)` recomputes, independently of the build that wrote them: each candidate's
Decision from its comparisons (`verdicts.decide_verdict`), each gate level from its lines, each
comparison's flips from the per-question values of the lists, its exact sign test and the
one-way flips its `n` needs, the Holm adjustment of the randomization p across the candidates
(per metric), and the judged-question count. It returns one (where, what the Results say, what
the numbers give) triple per disagreement; none when they agree.
"""

from __future__ import annotations

from evidencedesk.gate import GateLevel
from evidencedesk.results import _verdicts as verdicts
from evidencedesk.results.types import CandidateResult, Comparison, Results
from evidencedesk.retrieval._stats import TIE, flips_needed, holm, sign_test_p

__all__ = ["recheck"]

Found = tuple[str, str, str]  # where, what the Results say, what the numbers give


def _flips(base: dict[str, dict[str, float | None]], mine: dict[str, float | None],
           metric: str) -> tuple[list[str], list[str]]:  # fmt: skip
    better: list[str] = []
    worse: list[str] = []
    for q, values in base.items():
        x, y = values.get(metric), mine.get(q)
        if x is None or y is None or abs(y - x) <= TIE:
            continue
        (better if y > x else worse).append(q)
    return better, worse


def _comparison(where: str, cmp: Comparison, lists: dict[str, dict[str, float | None]] | None,
                base: dict[str, dict[str, float | None]]) -> list[Found]:  # fmt: skip
    out: list[Found] = []
    flips = f"+{len(cmp.better)}/−{len(cmp.worse)}"
    if lists is not None:
        better, worse = _flips(base, {q: v.get(cmp.metric) for q, v in lists.items()}, cmp.metric)
        if sorted(better) != sorted(cmp.better) or sorted(worse) != sorted(cmp.worse):
            out.append((where, f"flips on {cmp.metric} {flips}",
                        f"the per-question values give +{len(better)}/−{len(worse)}"))  # fmt: skip
    sign = sign_test_p(len(cmp.better), len(cmp.worse))
    if abs(sign - cmp.sign_p) > 1e-12:
        out.append((where, f"sign-test p {cmp.sign_p} on {cmp.metric} ({flips})", f"{sign}"))
    if cmp.flips_needed != flips_needed(cmp.n):
        out.append((where, f"{cmp.flips_needed} one-way flips needed over {cmp.n} questions",
                    f"{flips_needed(cmp.n)}"))  # fmt: skip
    return out


def _lists(results: Results, c: CandidateResult) -> dict[str, dict[str, float | None]] | None:
    lists = c.ranked(results)
    return {r.question: dict(r.values) for r in lists} if lists else None


def recheck(results: Results) -> list[Found]:
    """Every recorded decision its own numbers do not give again (verdicts, gates, flips, Holm)."""
    out: list[Found] = []
    cands = results.candidates
    base = {r.question: dict(r.values) for r in results.variant(results.baseline).lists}
    critical = results.policy.critical if results.policy is not None else ()
    reported = [m.name for m in results.settings.compared]
    for i, c in enumerate(cands):
        where = f"results.json candidates[{i}] ({c.name})"
        redone = verdicts.decide_verdict(c.comparisons, reported, critical, len(cands))
        if redone.verdict != c.decision.verdict:
            out.append((where, f"verdict {c.decision.verdict}", f"the rules give {redone.verdict}"))
        elif redone != c.decision:
            out.append((where, f"decision {c.decision}", f"the rules give {redone}"))
        gate = GateLevel.worst(g.level for g in c.gate.checks)
        if c.gate.evaluated and gate != c.gate.level:
            out.append((where, f"gate {c.gate.level}", f"its lines give {gate}"))
        lists = _lists(results, c)
        for cmp in c.comparisons:
            out += _comparison(where, cmp, lists, base)
    for metric in (m.name for m in results.settings.metrics):
        raw = {c.name: c.comparison(metric).randomization_p for c in cands}
        if not raw:
            continue
        adjusted = holm(raw)
        for c in cands:
            said = c.comparison(metric).holm_p
            if abs(adjusted[c.name] - said) > 1e-12:
                out.append((f"results.json ({c.name})", f"Holm-adjusted p {said} on {metric}",
                            f"{adjusted[c.name]}"))  # fmt: skip
    counts = results.inputs.counts
    if counts is not None and counts.judged != len(results.inputs.questions):
        out.append(("results.json inputs.counts", f"{counts.judged} judged",
                    f"{len(results.inputs.questions)} questions"))  # fmt: skip
    return out
