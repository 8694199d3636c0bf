"""The pairs to label next (`_compute.to_label`), made in one numpy pass, against a hand-worked
case and against the straightforward per-question loop it replaced (kept here as the reference)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

import pytest

from evidencedesk.results._compute import to_label
from evidencedesk.results.types import ToLabel
from evidencedesk.retrieval.metrics import Judged
from tests.page_text import visible


def reference(
    baseline: Sequence[Judged], candidates: Mapping[str, Sequence[Judged]], baseline_name: str,
    k: int, cap: int, corpus: Collection[str] | None = None,
) -> tuple[tuple[ToLabel, ...], int]:  # fmt: skip
    """The loop `to_label` was, question by question."""
    runs = {baseline_name: baseline, **candidates}
    by_question = {name: {j.id: j for j in judged} for name, judged in runs.items()}
    rows = []
    for n, q in enumerate(j.id for j in baseline):
        runs_of: dict[str, list[str]] = {}
        rank_of: dict[str, int] = {}
        in_top: dict[str, set[str]] = {}
        for name, lists in by_question.items():
            j = lists.get(q)
            if j is None:
                continue
            in_top[name] = set(j.ids[:k])
            if j.judged is None:
                continue
            for rank, (d, judged) in enumerate(zip(j.ids[:k], j.judged[:k], strict=False), 1):
                if judged or (corpus is not None and d not in corpus):
                    continue
                runs_of.setdefault(d, []).append(name)
                rank_of[d] = min(rank_of.get(d, rank), rank)
        base_top = in_top.get(baseline_name, set())
        tops = [in_top.get(c, set()) for c in candidates]
        for d, names in runs_of.items():
            splits = sum((d in base_top) != (d in top) for top in tops)
            rows.append((rank_of[d], splits == 0, n, d, q, tuple(names), splits))
    best = heapq.nsmallest(cap, rows)
    return tuple(ToLabel(q, d, rank, returning, splits)
                 for rank, _, _, d, q, returning, splits in best), len(rows)  # fmt: skip


def _list(q: str, ids: Sequence[str], judged: Sequence[bool] | None) -> Judged:
    return Judged(q, (), True, (0,) * len(ids), (2,), tuple(ids),
                  judged=None if judged is None else tuple(judged))  # fmt: skip


def test_a_hand_worked_pair_order() -> None:
    # q1: base returns a (unjudged), b (judged), c (unjudged); cand returns c, d (unjudged), a
    # top 2: base {a, b}, cand {c, d}. Open pairs: (q1, a) base rank 1, splits 1 (in base only);
    # (q1, c) cand rank 1 (base's rank 3 is past k), splits 1; (q1, d) cand rank 2, splits 1.
    # q2: both return e unjudged at rank 1: splits 0, two runs; q3: cand2 alone ranks f first.
    # Depth by depth: rank 1 (the splitting pairs question by question, then q2's e), rank 2.
    base = [_list("q1", ["a", "b", "c"], [False, True, False]), _list("q2", ["e"], [False])]
    cand = [_list("q1", ["c", "d", "a"], [False, False, False]), _list("q2", ["e"], [False])]
    rows, total = to_label(base, {"cand": cand}, "base", 2)
    assert total == 4
    assert rows == (
        ToLabel("q1", "a", 1, ("base",), 1),
        ToLabel("q1", "c", 1, ("cand",), 1),
        ToLabel("q2", "e", 1, ("base", "cand"), 0),
        ToLabel("q1", "d", 2, ("cand",), 1),
    )
    # two candidates: the baseline's a splits both comparisons, each candidate's pair one; a
    # candidate's first result still comes before the baseline's second
    base3 = [_list("q1", ["a", "x"], [False, False]), _list("q3", ["g"], [True])]
    cand2 = [_list("q1", ["b"], [False]), _list("q3", ["f"], [False])]
    rows, total = to_label(base3, {"cand": [_list("q1", ["c"], [False])], "cand2": cand2},
                           "base", 2)  # fmt: skip
    assert (
        rows
        == (
            ToLabel("q1", "a", 1, ("base",), 2),
            ToLabel("q1", "b", 1, ("cand2",), 1),
            ToLabel("q1", "c", 1, ("cand",), 1),
            ToLabel("q3", "f", 1, ("cand2",), 1),
            ToLabel("q1", "x", 2, ("base",), 2),
        )
        and total == 5
    )
    # the corpus leaves out an id nobody could read; the cap keeps the first rows, not the count
    rows, total = to_label(base, {"cand": cand}, "base", 2, cap=1, corpus={"c", "d", "e"})
    assert (rows, total) == ((ToLabel("q1", "c", 1, ("cand",), 1),), 3)


def _random_run(rng: random.Random, questions: list[str], docs: list[str]) -> list[Judged]:
    out = []
    for q in questions:
        if rng.random() < 0.1:
            continue  # a question the run does not answer
        ids = rng.sample(docs, rng.randint(0, len(docs)))
        judged = None if rng.random() < 0.2 else [rng.random() < 0.4 for _ in ids]
        out.append(_list(q, ids, judged))
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_equals_the_per_question_loop(seed: int) -> None:
    rng = random.Random(seed)
    questions = [f"q{n}" for n in range(rng.randint(1, 12))]
    docs = [f"d{n}" for n in range(rng.randint(1, 15))] + ["D", "é", "a:b"]
    base = _random_run(rng, questions, docs)
    base += [_list("q-extra", ["d0", "D"], [False, False])]  # asked of the baseline alone
    cands = {f"c{i}": _random_run(rng, questions, docs) for i in range(rng.randint(0, 3))}
    k, cap = rng.randint(1, 6), rng.randint(1, 20)
    corpus = None if rng.random() < 0.5 else set(rng.sample(docs, len(docs) // 2))
    assert to_label(base, cands, "base", k, cap, corpus) == reference(
        base, cands, "base", k, cap, corpus
    )


@pytest.mark.parametrize("seed", range(12))
def test_a_judges_lists_give_the_pairs_their_made_lists_give(seed: int) -> None:
    # a judge's lists are read from their heads (fixed-width ids, judged flags), no list made:
    # the same pairs as the lists themselves, with ids of every width and outside ASCII (bytes
    # sort as their code points), and the same answer to whether every result is judged
    from evidencedesk.files.trec import TrecRun
    from evidencedesk.results._compute import fully_judged
    from evidencedesk.retrieval.trec_judge import judge_trec_run

    rng = random.Random(seed)
    questions = [f"q{n}" for n in range(rng.randint(1, 12))]
    docs = [f"d{n}" for n in range(12)] + ["é", "z", "a-longer-document-id", "Ωmega"]
    qrels = {q: {d: rng.randint(0, 2) for d in rng.sample(docs, rng.randint(0, 8))}
             for q in questions}  # fmt: skip
    runs = {}
    for name in ("base", "c0", "c1"):
        scores = {q: {d: float(rng.randint(1, 50)) for d in rng.sample(docs, rng.randint(1, 9))}
                  for q in questions if rng.random() < 0.9}  # fmt: skip
        runs[name] = judge_trec_run(TrecRun.from_dict(scores), qrels, depth=rng.randint(1, 4))
    k, cap = rng.randint(1, 6), rng.randint(1, 30)
    corpus = None if rng.random() < 0.5 else set(rng.sample(docs, len(docs) // 2))
    base, cands = runs["base"], {n: runs[n] for n in ("c0", "c1")}
    from_heads = to_label(base, cands, "base", k, cap, corpus)
    assert all(j is None for j in base._items)  # no list was made
    made = {name: tuple(judged) for name, judged in runs.items()}  # plain lists: no heads
    made_cands = {n: made[n] for n in ("c0", "c1")}
    assert from_heads == to_label(made["base"], made_cands, "base", k, cap, corpus)
    assert from_heads == reference(made["base"], made_cands, "base", k, cap, corpus)
    for judged in runs.values():
        assert fully_judged(judged) == all(j.judged is None for j in judged)


def test_the_page_says_what_its_order_can_do(example_site: Callable[[str], Path]) -> None:
    """The order pools depth by depth: grading the first rows grades every run alike (and the
    page promises no verdict change)."""
    text = " ".join(visible((example_site("runs-only") / "to-label.html").read_text("utf-8"),
                            unescape=True).split())  # fmt: skip
    assert ("before those every run holds. Grading the first rows grades every run's results "
            "alike: an unjudged result counts as not relevant, so grading one run's results and "
            "not another's would favour the first.") in text  # fmt: skip
    assert "changes the most verdicts" not in text and "most comparisons" not in text


@pytest.mark.parametrize("ids", [
    ["b", "a", "b", "ab", "a"],  # one byte wide and two: as 8-byte words
    ["d10", "d9", "D", "é", "a:b", "d10", "Ω"],  # mixed widths, outside ASCII
    ["12345678", "1234567", "12345679", "1234567"],  # exactly one word, and one byte short
    ["a-longer-id", "a-long", "b", "a-longer-id"],  # wider than a word: as strings
])  # fmt: skip
def test_distinct_ids_sort_in_bytes_order_at_every_width(ids: list[str]) -> None:
    from evidencedesk.files._trec_keys import fixed_width_of
    from evidencedesk.results._compute import _sorted_distinct

    distinct, place = _sorted_distinct(fixed_width_of(ids))
    expected = sorted(set(ids), key=lambda i: i.encode("utf-8"))
    assert [d.decode("utf-8") for d in distinct.tolist()] == expected
    assert [expected[p] for p in place.tolist()] == ids
