"""Which questions get a page of their own, decided once from the Results' data.

Up to `PAGE_LIMIT` questions every question has a page. Above it, at most `PAGE_CAP`, in this
order: the gate policy's critical questions, then the questions the baseline fails, then the
questions whose primary metric changes most (largest absolute change under any candidate);
ties by id. Every other question stays in the question list and the per-question CSV, and
results.json keeps its ranked ids and grades only for the chosen questions (`trim`).
"""

from __future__ import annotations

from dataclasses import replace

from evidencedesk.results.types import RankedList, Results
from evidencedesk.retrieval.stats import TIE

PAGE_LIMIT = 500  # up to this many questions, every question has a page
PAGE_CAP = 1000  # above PAGE_LIMIT, at most this many question pages
RUNS_ONLY_DEPTH = 10  # the gate's k in a runs-only project without a policy (results.runs_only)

CRITICAL, FAILS, CHANGES = 0, 1, 2  # the choosing rule's tiers, in order


def pass_depth(results: Results) -> int:
    """The gate's depth for one question's pass: the baseline's final list in a pipeline project,
    the policy's k in a runs-only one (10 without a policy, as the gate)."""
    config = results.variant(results.baseline).config
    if config is not None:
        return int(config["final"])
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


def largest_change(results: Results) -> dict[str, float]:
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
    ids = [q.id for q in results.inputs.questions]
    if len(ids) <= PAGE_LIMIT:
        return None
    critical = set(results.policy.critical) if results.policy is not None else set()
    passed = passes(results)
    change = largest_change(results)
    ranked = []
    for q in ids:
        if q in critical:
            ranked.append((CRITICAL, 0.0, q))
        elif passed.get(q) is False:
            ranked.append((FAILS, 0.0, q))
        elif q in change:
            ranked.append((CHANGES, -change[q], q))
    return tuple(q for _, _, q in sorted(ranked)[:PAGE_CAP])


def _lean(lists: tuple[RankedList, ...], keep: set[str]) -> tuple[RankedList, ...]:
    return tuple(r if r.question in keep else replace(r, ids=(), grades=()) for r in lists)


def trim(results: Results) -> Results:
    """`results` with each ranked list's ids and grades kept only for the chosen questions
    (values, size and first_relevant stay for every question); unchanged up to `PAGE_LIMIT`."""
    keep = chosen(results)
    if keep is None:
        return results
    kept = set(keep)
    variants = tuple(replace(v, lists=_lean(v.lists, kept)) for v in results.variants)
    candidates = tuple(replace(c, lists=_lean(c.lists, kept)) for c in results.candidates)
    return replace(results, variants=variants, candidates=candidates)
