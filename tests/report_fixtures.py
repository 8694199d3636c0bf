"""A synthetic but realistic `SiteModel` for the report tests (no pipeline needed).

`make_model()` builds 4 variants (one an external TREC run), 6 questions and 3 candidates with
GO / REVIEW / BLOCK verdicts, plus sizing, ablation, citation and evidence sections. `probe`
is appended to every text that comes from data (escaping tests); `candidate_names` and
`question_ids` override names that become file names (slug tests). The `*_model` functions
match the `build_model(options, progress)` contract for ``--model-factory``.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Callable, Sequence

from evidencedesk.errors import LabelsError
from evidencedesk.gate import GateLevel
from evidencedesk.report import _render as render
from evidencedesk.report._candidate import category, md_escape
from evidencedesk.report._model import (
    AblationLine,
    AblationSection,
    BenchmarkRow,
    BuildOptions,
    CandidatePage,
    Caveat,
    CitationSection,
    CostRow,
    Count,
    Dataset,
    DiffRow,
    FlipCell,
    FlipMatrix,
    Flips,
    FlipWords,
    GateLine,
    GradedChunk,
    GridRow,
    InputFile,
    Meta,
    MetricPair,
    Question,
    QuestionFlip,
    RankedItem,
    Recommendation,
    SiteModel,
    SizingSection,
    SliceCell,
    SliceCompare,
    SliceRow,
    SliceTable,
    Variant,
    VariantList,
)  # fmt: skip  # fmt: skip
from evidencedesk.report._values import Stat
from evidencedesk.report._words import METHODS_RULES, RULES
from evidencedesk.results.types import (
    AblationResult,
    CitationRow,
    Comparison,
    CompressionRow,
    ConfigChange,
    DocumentFact,
    EvidenceResult,
    Flip,
    HeldBack,
    Merge,
    MetricStat,
    RunCosts,
    SizingRow,
    Skipped,
    StateRow,
    TagValue,
    TenantRow,
    VariantResult,
)
from evidencedesk.retrieval._stats import sign_test_p as sign_test

XSS = '<script>alert(1)</script>"><img src=x onerror=alert(1)> [click](javascript:alert(1))'
METRICS = ("R@1", "R@3", "MRR", "nDCG@5")
TAGS = ("direct", "paraphrase", "exact_term", "bangla")


def _stats(rng: random.Random, base: float) -> tuple:
    out = []
    for name in METRICS:
        v = min(1.0, max(0.0, base + rng.uniform(-0.1, 0.15)))
        out.append(Stat(name, MetricStat(name, v, max(0.0, v - 0.18), min(1.0, v + 0.14), 5, 1)))
    return tuple(out)


def _ablation(delta: float, better: Sequence[str], worse: Sequence[str], p: float,
              pairs: float) -> AblationResult:  # fmt: skip
    return AblationResult({}, {}, delta, tuple(better), tuple(worse), 0, p, RunCosts(pairs, None, None),
                          delta - 0.05, delta + 0.05)  # fmt: skip


def _flip(a: str, b: str, better: Sequence[str], worse: Sequence[str]) -> Flip:
    return Flip(a, b, "mrr", tuple(better), tuple(worse), 0, 0.375, "variants", 0.375)


def _candidate(name: str, verdict: str, better: Sequence[str], worse: Sequence[str],
               probe: str, rng: random.Random, pairs: float) -> CandidatePage:  # fmt: skip
    d = 0.03 * (len(better) - len(worse))
    b, w = len(better), len(worse)

    def compared(m: str) -> Comparison:
        return Comparison(
            m,
            MetricStat(m, 0.6, 0.45, 0.75, 5, 1),
            MetricStat(m, 0.6 + d, 0.45 + d, 0.75 + d, 5, 1),
            d,
            d - 0.08,
            d + 0.07,
            5,
            tuple(better),
            tuple(worse),
            6 - b - w,
            sign_test(b, w),
            0.11,
            0.375,
        )

    metrics = tuple(MetricPair(compared(m), m) for m in ("MRR", "R@3", "nDCG@5"))
    lines = {"GO": (), "REVIEW": (("REVIEW", "mrr worse for 2 question(s), better for 1"),),
             "BLOCK": (("BLOCK", f"critical case rc07 failed{probe}"),)}[verdict]  # fmt: skip
    decision = {"GO": "BETTER", "REVIEW": "NO CLEAR CHANGE", "BLOCK": "WORSE"}[verdict]
    headline = f"{decision.capitalize()}: {name} (a hand-made candidate{probe})."
    body = "\n".join([
        f"- Flips: better on {b} ({md_escape(', '.join(better))}), worse on {w}.",
        *(f"  - {md_escape(level)}: {md_escape(text)}" for level, text in lines),
    ]) + "\n"  # fmt: skip
    return CandidatePage(
        name=name,
        rationale=f"Rerank the first stage to lift exact terms.{probe}",
        diff=(
            DiffRow(ConfigChange("reranker", "none", f"feature{probe}")),
            DiffRow(ConfigChange("depth", "3", "10")),
        ),
        metrics=metrics,
        flips=Flips(
            compared("MRR"),
            6,
            words=FlipWords(f"{sign_test(b, w):.3f}", "0.110", "0.375", "6 one-way flips"),
        ),  # fmt: skip
        slices=tuple(
            SliceCompare(t, TagValue("mrr", t, 0.5, 2), TagValue("mrr", t, 0.5 + d, 2))
            for t in TAGS
        ),
        cost=(
            CostRow("scored pairs / question", 0, pairs, "+10 pairs"),
            CostRow("latency (hypothetical)", 4, 19, "+15.0 ms"),
        ),
        gate_level=GateLevel(verdict),
        gate_lines=tuple(GateLine(level, text) for level, text in lines),
        recommendation=Recommendation(category(decision), headline, body, decision),
        keyfacts=(f"Δ MRR {d:+.3f}", f"+{b}/−{w} on MRR"),
        badges=(decision, verdict),
        note_markdown=f"Checked by hand.{probe}\n\n<b>raw</b> [bad](javascript:alert(1))",
        caveat_keys=("dense", "rerankers"),  # a feature reranker over the hybrid's toy
    )


def make_model(
    probe: str = "",
    candidate_names: Sequence[str] = ("rerank feature", "depth 20", "no prefilter"),
    question_ids: Sequence[str] = ("rc01", "rc02", "rc03", "rc04", "h01", "h02"),
    seed: int = 0,
) -> SiteModel:
    rng = random.Random(seed)
    variants = tuple(
        Variant(VariantResult(n, kind, f"{n} searcher{probe}", None, (), RunCosts(p, t, None), (), ()),
                caveat, _stats(rng, base))
        for n, kind, caveat, base, p, t in (
            ("sparse", "builtin", None, 0.55, 0.0, 210.0),
            ("dense", "builtin", "toy embedder: hashed n-grams, a stand-in for a bi-encoder", 0.4, 0.0, 205.0),
            ("hybrid", "builtin", None, 0.6, 0.0, 212.0),
            (f"bm25-run{probe}", "external", "external TREC run (data/runs/, made by a script)", 0.5, 0.0, 0.0),
        )
    )  # fmt: skip
    names = tuple(v.name for v in variants)
    qids = tuple(question_ids)
    bench = tuple(
        BenchmarkRow(v, "—" if i == 0 else f"+{i}/−1")
        for i, v in enumerate(variants)
    )  # fmt: skip
    cells = tuple(
        tuple(FlipCell(None, "") if r == c else
              FlipCell(_flip(names[c], names[r], qids[:c], qids[:r]), f"+{c}/−{r}, p=0.375")
              for c in range(len(names)))
        for r in range(len(names))
    )  # fmt: skip
    grid = tuple(
        GridRow(q, tuple(rng.choice((0.0, 0.5, -0.5, 0.667, -1.0)) for _ in names[1:]))
        for q in qids
    )  # fmt: skip
    slices = (SliceTable("MRR", TAGS + (f"tag{probe}",), tuple(
        SliceRow(v.name, tuple(SliceCell(TagValue("mrr", "t", rng.random(), 2)) for _ in range(len(TAGS) + 1)))
        for v in variants)),)  # fmt: skip
    outcomes = (("GO", qids[:6], ()), ("REVIEW", qids[:4], ()), ("BLOCK", qids[:1], qids[1:3]))
    candidates = tuple(
        _candidate(name + probe, verdict, better, worse, probe, rng, 10.0)
        for name, (verdict, better, worse) in zip(candidate_names, itertools.cycle(outcomes))
    )
    questions = tuple(
        Question(
            q, f"How long do I have to return a bike?{probe}", ("direct", f"paraphrase{probe}"), i != 5,
            () if i == 5 else (GradedChunk(f"kc-returns:c{i}", 2, f"Returns{probe}", f"30 days.{probe}"),
                               GradedChunk("kc-returns-v2:c0", 1, "Returns v2", "Store credit only.")),
            tuple(VariantList(v, (RankedItem(1, "kc-x:c0", 0), RankedItem(2, f"kc-returns:c{i}", 2)),
                              2, 0.5, 0.0 if j == 0 else 0.5)
                  for j, v in enumerate(names)),
            (QuestionFlip(names[2], "better"), QuestionFlip(names[1], "worse")),
        )
        for i, q in enumerate(qids)
    )  # fmt: skip
    sizing = SizingSection("feature", "4 ms per query + 1.5 ms per scored pair (hypothetical)", tuple(
        SizingRow(d, f, min(1.0, 0.5 + 0.01 * d + 0.05 * f), MetricStat("mrr", 0.6 + 0.005 * d, 0.5, 0.7, 5, 1),
                  RunCosts(float(d), 70.0 * f, 4 + 1.5 * d), d >= 10, d == 10 and f == 3, d == 20 and f == 5)
        for d in (3, 10, 20) for f in (3, 5)), note="")  # fmt: skip
    ablations = AblationSection("hybrid, no reranker, depth 3, final 3", ("R@3", "MRR", "nDCG@5"), (
        AblationLine(_ablation(0.0, (), (), 1.0, 0.0), "base", True, (0.6, 0.6, 0.65)),
        AblationLine(_ablation(0.06, qids[:3], (), 0.25, 3.0), f"reranker=feature{probe}", False, (0.7, 0.66, 0.7)),
        AblationLine(_ablation(-0.15, (), qids[:4], 0.125, 0.0), "first_stage=dense", False, (0.4, 0.45, 0.5)),
    ))  # fmt: skip
    citations = CitationSection(tuple(
        CitationRow(f"a{i}{probe}", f"case {i}{probe}", f"Returns take 30 days [kc-returns:c0].{probe}",
                    1.0, 0.5 * (i % 3), 1.0 if i != 4 else 1.0, f"note{probe}")
        for i in range(1, 7)), "The word check cannot see negation: 'cannot be returned' and 'can be returned' share their words.")  # fmt: skip
    evidence = EvidenceResult(
        kept=48, merges=(Merge("kc-returns:c1", ("kc-faq:c3",)),),
        held_back=(HeldBack("kc-returns:c1", f"partner:c0{probe}", "30 days vs 14 days"),),
        compression=(CompressionRow("best sentence per chunk", 640, 210, 20, 21, qids[:1]),),
        freshness=(StateRow("before replace", ("v2 (store credit)",), False, ""),
                   StateRow("replaced, index not rebuilt", ("v2 still served",), True, f"stale{probe}"),
                   StateRow("rebuilt", ("v3 (30 days)",), False, "")),
        deletion=(StateRow("deleted, not rebuilt", ("recall notice still served",), True, ""),
                  StateRow("rebuilt", (), False, "")),
        tenants=(TenantRow("kestrel", True, 24, 0, ()), TenantRow("harbor", True, 24, 0, ()),
                 TenantRow(f"control{probe}", False, 24, 7, ("hb-returns:c0",))),
    )  # fmt: skip
    meta = Meta(
        title=f"Kestrel Cycles retrieval review{probe}", project="evidencedesk", seed=seed, version="0.1.0",
        input_hash="ab" * 32, relevance="relevant = grade ≥ 2", baseline="sparse", primary="MRR",
        caveats=(Caveat("dense", "The dense searcher is a toy embedder."),
                 Caveat("rerankers", f"The rerankers are stand-ins.{probe}")),
        skipped=(Skipped("notes", "no data/notes/ folder"),),
        inputs=(InputFile("data/labels.jsonl", "cd" * 32),), price_list="4 ms + 1.5 ms per pair",
        rules=tuple((k, RULES[k]()) for k in METHODS_RULES),
    )  # fmt: skip
    dataset = Dataset(
        (DocumentFact("kc-returns", f"Returns{probe}", 3, "current", "public", "en"),
         DocumentFact("kc-faq-bn", "প্রশ্ন ও উত্তর", 4, "current", "public", "bn")),
        52, len(qids), len(qids) - 1, tuple(Count(t, 2) for t in TAGS), (Count("1", 9), Count("2", 25)),
    )  # fmt: skip
    return SiteModel(meta, dataset, variants, bench, FlipMatrix(names, cells, names[1:], grid),
                     slices, candidates, questions, ("R@1", "R@3", "MRR", "nDCG@5 (exp gain)"),
                     sizing, ablations, citations, evidence)  # fmt: skip


def fixture_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    for stage in ("benchmark", "sizing", "ablations", "citations", "evidence", "gate"):
        progress(stage)
    return make_model(seed=options.seed)


def failing_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    progress("benchmark")
    raise LabelsError("data/labels.jsonl", "expected a JSON object, found 'not json'", line=3)


def crashing_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    raise RuntimeError("boom")


def slow_render_model(options: BuildOptions, progress: Callable[[str], None]) -> SiteModel:
    """A model whose rendering is slow (each page sleeps), to interrupt it midway."""
    delay = float(os.environ.get("EVIDENCEDESK_TEST_PAGE_DELAY", "0.2"))
    original = render._write_page

    def slow(path, text):  # type: ignore[no-untyped-def]
        original(path, text)
        time.sleep(delay)

    render._write_page = slow
    return make_model(seed=options.seed)
