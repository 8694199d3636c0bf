"""Present: `Results` -> `SiteModel` (formatting only; no statistic is computed here).

Shared by both kinds of project (pipeline and runs-only): meta (inputs and their hashes,
caveats, skipped stages), the data set, the benchmark, the flip matrix, slices, candidates and
the question pages (beyond `PAGE_LIMIT` questions at most `PAGE_CAP`, chosen by results.pages);
the pipeline-only pages (sizing, ablations, citations; evidence shows its Results rows).

The index's first screen (`bottom_line`): the tiles answer the questions a reviewer asks before
reading on (how many candidates got better, what the gate says, which candidate leads, what the
data is), each from `results.plan`; the rows hold each candidate's verdict, gate,
primary-metric difference, flips and cost. Every number a tile shows is a claim
(`report.claims`); the words are the candidate pages'.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Literal

from evidencedesk._inert import shell_command
from evidencedesk.gate import GateLevel
from evidencedesk.report._benchmark import (
    caveat_key,
    flip_matrix,
    slice_tables,
    variant_models,
)
from evidencedesk.report._candidate import Say, candidate_models, diff_rows
from evidencedesk.report._claims import Claims
from evidencedesk.report._gate_view import gate_page
from evidencedesk.report._model import (
    PAGES,
    AblationLine,
    AblationSection,
    BenchmarkRow,
    BottomLine,
    CandidateRow,
    Caveat,
    CitationSection,
    ClaimedCount,
    Count,
    Dataset,
    DataTile,
    Definition,
    GateTile,
    InputFile,
    LeadTile,
    Meta,
    NotRunPage,
    Question,
    SiteModel,
    SizingSection,
    ToLabelLine,
    ToLabelPage,
    Variant,
    VerdictTile,
)
from evidencedesk.report._questions import question_list, questions
from evidencedesk.report._since_view import since_view
from evidencedesk.report._site import slug
from evidencedesk.report._values import config_word
from evidencedesk.report._words import (
    METHODS_RULES,
    and_joined,
    append_graded,
    bpref_excepted,
    defined_by,
    exports_exception,
    how_many,
    metric_label,
    ndcg_also_decides,
    past_final,
    questions_decide,
    recompute_from,
    tied_with,
    trec_eval_counts,
    undefined_when,
)
from evidencedesk.results import types as r
from evidencedesk.results._plan import DataSize, GateCounts, Lead, Plan, VerdictCounts
from evidencedesk.results._serialize import QUESTIONS_FILE, RESULTS_JSON, TO_LABEL
from evidencedesk.results._settings import Settings
from evidencedesk.results._stages import MODELLED, Progress, Tally
from evidencedesk.results.since import Since
from evidencedesk.results.types import (
    Results,
    RunCosts,
)
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._stats import LARGE, TIE
from evidencedesk.retrieval.evalreport import Config, _capped_words
from evidencedesk.retrieval.labels import _relevant_out_of_scope

_REPRODUCE = ("python", "-m", "evidencedesk.report", "build")  # the footer's command, quoted

# the caveat of each pipeline stand-in (the toy embedder, MiniLM, the lexical rerankers, tuning on
# these labels)
_PIPELINE_CAVEATS = {
    "dense": "The dense searcher is a toy: hashed word and character-trigram features in a fixed "
    "vector, not a trained bi-encoder. It shows how the kit measures, not how good dense retrieval is.",
    "minilm": "",  # what the model ran as, from the report's models (`minilm._caveat`)
    "rerankers": "The rerankers (overlap, feature, pair, blend) are hand-written lexical stand-ins for "
    "a cross-encoder: they read words, not meaning, and cannot see a paraphrase.",
    "tuning": "The feature scorer's weights and the gate's thresholds were chosen while looking at "
    "these labels: gains measured on them are optimistic until checked on unseen questions.",
}

# each caveat in a few words: the one line that points to them from pages other than the
# index and the methods page, which give them in full
_CAVEAT_WORDS = {
    "dense": "the dense searcher is a toy",
    "minilm": "MiniLM is a bi-encoder, not a cross-encoder",
    "rerankers": "the rerankers are lexical stand-ins",
    "tuning": "tuned on these labels",
}


_ATTRIBUTES = ("status", "visibility", "language")  # a document's front-matter fields


def dataset(results: Results) -> Dataset:
    """What the index and documents page say of the data: documents, chunk, question, tag counts."""
    inputs = results.inputs
    docs = inputs.documents
    attributes = tuple(a for a in _ATTRIBUTES if len({getattr(d, a) for d in docs}) > 1)
    labels = inputs.questions
    tags = Counter(t for label in labels for t in label.tags)
    grades = Counter(g for label in labels for g in label.grades.values())
    return Dataset(
        documents=docs,
        chunks=inputs.chunks,
        questions=len(labels),
        answerable=sum(1 for label in labels if label.answerable),
        tags=tuple(Count(t, tags[t]) for t in sorted(tags)),
        grades=tuple(Count(str(g), grades[g]) for g in sorted(grades)),
        attributes=attributes,
    )


def statuses(results: Results, pages: tuple[Question, ...]) -> tuple[Question, ...]:
    """ "unanswerable" only where the labels say so (a labels file); "no judgments" for a
    question the qrels never judged; "no relevant judgment" for one judged below relevance;
    "out of scope" for a pipeline's question whose relevant chunks are all superseded or
    restricted (its judgments in scope hold none)."""
    facts = {q.id: q for q in results.inputs.questions}
    relevance, pipeline = results.settings.relevance, results.settings.kind == "pipeline"
    out = []
    for q in pages:
        fact = facts.get(q.id)
        status = ""
        if (
            fact is not None
            and pipeline
            and _relevant_out_of_scope(fact.grades, fact.judgments, relevance)
        ):  # its judgments are the grades in scope
            status = "out of scope"
        elif fact is not None and not fact.answerable:
            if results.settings.questions_from == "labels":  # labels.jsonl says which
                status = "unanswerable"
            elif not fact.grades:
                status = "no judgments"
            else:
                status = "no relevant judgment"
        out.append(replace(q, status=status))
    return tuple(out)


def _benchmark_rows(
    results: Results, variants: tuple[Variant, ...], claims: Claims
) -> tuple[BenchmarkRow, ...]:
    """The benchmark table: the baseline's row first, every other row's flips against the
    baseline (not against whichever variant happens to come first), on the flips metric, with
    the sign test's p; the table shows on the index and the benchmark page, so both pages make
    the claim."""
    base = results.baseline
    where = {(f.a, f.b, f.family): i for i, f in enumerate(results.flips)}
    out = []
    for v in variants:
        flips = "—"
        if v.name != base:
            source = f"flips[{where[base, v.name, 'variants']}]"
            for page in ("index.html", "benchmark.html"):
                flips = claims.say(page, "flip_p", source)
        out.append(BenchmarkRow(v, flips))
    return tuple(sorted(out, key=lambda r: r.variant.name != base))


def _some(ids: tuple[str, ...], shown: int = 3) -> str:
    """A few ids in parentheses, "…" when there are more."""
    return f" ({', '.join(ids[:shown])}{', …' if len(ids) > shown else ''})"


def _coverage_against(results: Results) -> Literal["", "corpus", "judgments"]:
    """What the TREC runs' top documents were checked against (`Meta.coverage_against`)."""
    if not any(v.kind == "external" for v in results.variants):
        return ""
    return "corpus" if results.inputs.chunks else "judgments"


def meta(results: Results, claims: Claims | None = None) -> Meta:
    """The pages' shared facts; `claims`: the book their claims go in (a throwaway one when the
    caller only wants the facts, as the benchmark command does)."""
    claims = claims or Claims(results)
    inputs, settings = results.inputs, results.settings
    # the tuning caveat is the demo's: its weights and thresholds were chosen on its labels
    # each component's caveat only where it appears: the toy unless [searchers] dense = "minilm",
    # MiniLM when it ran (as a searcher or a reranker)
    shown = {
        "dense": settings.dense == "toy",
        "minilm": bool(results.models),
        "tuning": inputs.demo,
    }
    # MiniLM's caveat names what it ran as, and adds its language warning (`ModelFacts.warning`)
    # where the texts need it
    warned = " ".join(f"Warning: {m.warning}." for m in results.models if m.warning)
    ran = [role for m in results.models for role in m.roles]
    texts = dict(_PIPELINE_CAVEATS, minilm=" ".join(filter(None, [minilm._caveat(ran), warned]))
                 if ran else "")  # fmt: skip
    caveats = [
        Caveat(caveat_key(k, settings.dense), v, _CAVEAT_WORDS[k] + (
            "; it was not trained on this project's script" if k == "minilm" and warned else ""))
        for k, v in texts.items()
        if settings.kind == "pipeline" and shown.get(k, True)
    ]  # fmt: skip
    relevant, silent = results.answerable, results.plan.data.silent
    defined = defined_by(settings.kind)
    deciding = relevant - len(silent)
    also = ndcg_also_decides(settings.averaging, settings.relevance)
    caveats.insert(
        0,
        Caveat(
            "labels",
            f"{how_many(relevant, 'question')} with a {defined} "
            f"{'decides' if relevant == 1 else 'decide'} every comparison{also}: a one- or "
            "two-question difference is noise."
            if not silent
            else f"{deciding} of the {relevant} questions with a {defined} "
            f"{'decides' if deciding == 1 else 'decide'} the "
            f"comparisons{also}: {how_many(len(silent), 'is', 'are')} answered by no run"
            f"{_some(silent)}, a tie in every comparison; a one- or two-question difference is "
            "noise.",
            questions_decide(deciding),
        ),
    )
    counts = inputs.counts
    return Meta(
        title=f"evidencedesk report — {inputs.project}",
        project=inputs.project,
        seed=settings.seed,
        version=results.version,
        input_hash=inputs.input_hash,
        relevance=f"relevant = grade ≥ {settings.relevance}",
        baseline=results.baseline,
        caveats=tuple(caveats),
        skipped=inputs.skipped,
        inputs=tuple(InputFile(f.path, f.sha256) for f in inputs.files),
        price_list=price_list(settings),
        reproduce=shell_command([*_REPRODUCE, *inputs.command])
        if inputs.command
        else shell_command([*_REPRODUCE, "--seed", str(settings.seed)]),
        grade_caption=claims.say("index.html", "grades", "settings"),
        relevance_text=claims.say("methods.html", "relevance", "settings"),
        rules=tuple((k, claims.say("methods.html", "rule", "", key=k)) for k in METHODS_RULES),
        kind=settings.kind,
        primary=settings.compared[0].label,
        demo=inputs.demo,
        large_sample=LARGE if results.plan.expanded else None,
        counts=_say_everywhere(claims, "counts", "inputs.counts") if counts is not None else "",
        notices=tuple(
            _say_everywhere(claims, "notice", f"inputs.notices[{i}]")
            for i in range(len(inputs.notices))
        ),  # fmt: skip
        judged_k=settings.judged_k,
        averaging=settings.averaging,
        trec_eval_counts=trec_eval_counts(settings.relevance),
        undefined_when=undefined_when(settings.kind, labelled=inputs.qrels_file is None),
        exports_exception=exports_exception(settings),
        recompute_from=recompute_from(results),
        bpref_excepted=bpref_excepted(settings),
        past_final=past_final([m.label for m in settings.past_final], Config().final),
        max_depth=settings.max_depth,
        coverage_against=_coverage_against(results),
        models=results.models,
        metric_definitions=tuple(Definition(*d) for d in settings.definitions),
    )


def _say_everywhere(claims: Claims, kind: str, source: str) -> str:
    """A claim every page that shows it makes (`SitePage.says`), a page per candidate included."""
    text = ""
    for page in (p for p in PAGES if kind in p.says):
        files = [page.file]
        if page.each:  # only the candidates have a page per item that says them
            files = [page.file.format(slug(c.name)) for c in claims.results.candidates]
        for file in files:
            text = claims.say(file, kind, source)
    return text


_TO_LABEL_PREVIEW = 30  # rows of to-label.tsv its page shows
_QRELS_FORMATS = {
    "trec": "TREC qrels: qid 0 docid grade",
    "beir": "BEIR qrels: query-id, corpus-id, score",
}


def to_label(results: Results) -> ToLabelPage | None:
    """The to-label page's model (None when no compared top k holds an unjudged result)."""
    if not results.to_label:
        return None
    text = {q.id: q.question for q in results.inputs.questions}
    titles = {c.id: c.title for c in results.inputs.chunk_facts}
    rows = tuple(
        ToLabelLine(r, text.get(r.question, ""), titles.get(r.document, ""))
        for r in results.to_label[:_TO_LABEL_PREVIEW]
    )  # fmt: skip
    page = ToLabelPage(TO_LABEL, results.settings.judged_k, rows, len(results.to_label),
                       results.to_label_total)  # fmt: skip
    qrels, qrels_format = results.inputs.qrels_file, results.inputs.qrels_format
    if qrels is None or qrels_format is None:  # labels.jsonl, or an earlier results.json
        return page  # the round trip in words only
    return replace(
        page, judgments=qrels,
        judgments_format=_QRELS_FORMATS[qrels_format] + ", by tabs" * results.inputs.qrels_tabs,
        append=append_graded(qrels, qrels_format, PurePosixPath(TO_LABEL).name,
                             results.inputs.qrels_tabs),
        report_files=(RESULTS_JSON, QUESTIONS_FILE) if results.plan.large else (RESULTS_JSON,),
    )  # fmt: skip


def page_rule(results: Results) -> str:
    """The choosing rule of `results.pages.chosen`, in words (critical questions named only when
    the gate policy has some)."""
    primary = results.settings.compared[0].label
    critical = results.policy is not None and bool(results.policy.critical)
    order = "the gate's critical questions first, then the questions the baseline fails, then"
    if not critical:
        order = "the questions the baseline fails first, then"
    shown = results.plan
    unchanged, undefined, capped = shown.left_out
    why = []
    if unchanged:
        gets = "gets" if unchanged == 1 else "get"
        why.append(f"{unchanged:,} the baseline passes and no candidate changes {gets} none")
    if undefined:
        gets = "gets" if undefined == 1 else "get"
        why.append(f"{undefined:,} with no {defined_by(results.settings.kind)} {gets} none")
    if capped:
        why.append(f"{capped:,} {'falls' if capped == 1 else 'fall'} beyond the cap")
    return (
        f"above {shown.page_limit:,} questions at most {shown.page_cap:,} get a page — "
        f"{order} those whose {primary} changes most under some candidate (ties by id)"
        + (f"; of the others, {and_joined(why)}" if why else "")
    )


def _mark_critical(results: Results, pages: tuple[Question, ...]) -> tuple[Question, ...]:
    """Question pages of the policy's critical ids say so, and under which candidates they got
    worse (on any reported metric, even while the gate still passes)."""
    if results.policy is None:
        return pages
    notes = results.policy.notes
    crit = set(results.policy.critical)
    return tuple(
        replace(
            q,
            critical=notes.get(q.id, "named critical in the gate policy"),
            critical_worse=tuple(
                c.name for c in results.candidates if q.id in c.decision.critical_worse
            ),
        )
        if q.id in crit
        else q
        for q in pages
    )


# the sizing page's note on how recall is read
_SIZING_NOTE = "Recall is measured at each row's own final size. "
# the citations page's statement of what the support check cannot see
_CITATION_LIMIT = (
    "The support check compares words and numbers; it cannot see negation. An answer that "
    "says the opposite of its cited chunk with the same words scores perfectly and is wrong."
)


def price_list(settings: Settings) -> str:
    """The sizing page's price list: ms per query plus ms per scored pair ("" without a design)."""
    d = settings.design
    if d is None:
        return ""
    return f"{d.stage_one_ms:g} ms per query + {d.per_pair_ms:g} ms per scored pair"


def _left_out_cells(skipped: tuple[tuple[int, int], ...]) -> str:
    """The sizing note's sentence on the grid cells the sweep does not run (depth < final)."""
    if len(skipped) == 1:
        ((d, f),) = skipped
        return (
            f" Depth {d} × final {f} is not run: its final list is capped by the depth "
            f"({_capped_words(d, f)}), so it is the same run as depth {d} × final {d}."
        )
    if skipped:
        cells = "; ".join(f"depth {d} × final {f} ({_capped_words(d, f)})" for d, f in skipped)
        return (
            f" Not run, since a final list is capped by the depth and each is the same run as "
            f"its depth × depth cell: {cells}."
        )
    return ""


def sizing(rows: tuple[r.SizingRow, ...], settings: Settings, noise: str = "") -> SizingSection:
    """The sweep's model; `noise`: the "within noise" rule's words (a claim of sizing.html)."""
    assert settings.design is not None  # noqa: S101 - sizing rows exist only with a design
    design = settings.design
    return SizingSection(
        reranker=settings.design.sizing_reranker,
        price_list=price_list(settings),
        rows=rows,
        note=_SIZING_NOTE + (f"{noise}." if noise else "") + _left_out_cells(design.skipped_cells),
    )


def _change(changes: dict[str, object], base: Config) -> str:
    """An ablation row's change as a reader says it; a capped final list says so."""
    words = ", ".join(f"{k}={config_word(k, str(v))}" for k, v in changes.items())
    cfg = base.replace(**changes)
    return f"{words} ({_capped_words(cfg.depth, cfg.final)})" if cfg.capped else words


def ablations(a: r.Ablations, settings: Settings) -> AblationSection:
    """The ablations page's model: a row per change, with its MRR change and interval."""
    assert settings.design is not None  # noqa: S101 - ablation rows exist only with a design
    base = Config(**settings.design.ablation_base)
    return AblationSection(
        base=a.base,
        metric_names=tuple(m.label for m in settings.columns),
        rows=tuple(
            AblationLine(
                row=x,
                change="base" if i == 0 else _change(x.changes, base),
                is_base=i == 0,
                values=tuple(x.metrics[m.name] for m in settings.columns),
            )
            for i, x in enumerate(a.rows)
        ),
    )


def citations(rows: tuple[r.CitationRow, ...]) -> CitationSection:
    """The citations page's model: each scored answer and the negation limit."""
    return CitationSection(cases=rows, limit=_CITATION_LIMIT)


_NOT_KNOWN = "not known"  # a candidate's cost when no measure of it is known (TREC runs)
_INDEX = "index.html"  # the page the bottom line's claims are recorded on


def change(base: float, cand: float, unit: str = "") -> str:
    """ "same", "+375 %", "−0.2 %" (one decimal under 1 %, never "−0 %"), "0 → 10" from none."""
    if abs(cand - base) <= TIE:
        return "same"
    if base == 0:
        return f"0 → {cand:g}{unit}"
    pct = (cand - base) / base * 100
    return (f"{pct:+.1f} %" if abs(pct) < 1 else f"{pct:+.0f} %").replace("-", "−")


def _cost_text(base: RunCosts, cand: RunCosts) -> str:
    """Each known cost's change against the baseline (the candidate page's own wording);
    "not known" when the run's costs are unknown (an external run), never "same"."""
    parts = []
    measures = (
        ("pairs/question", base.pairs_per_question, cand.pairs_per_question, ""),
        ("tokens/question", base.tokens_per_question, cand.tokens_per_question, ""),
        ("latency", base.latency_ms, cand.latency_ms, " ms"),
    )
    for name, b, c, unit in measures:
        if b is None or c is None:
            continue
        text = change(b, c, unit)
        parts.append(f"{name} {text}" + (" (hypothetical)" if name == "latency" else ""))
    if not parts:
        return _NOT_KNOWN
    if all(p.split(" ")[1] == "same" for p in parts):
        return "same cost"
    return " · ".join(parts)


def _candidate_rows(results: Results, say: Say) -> tuple[CandidateRow, ...]:
    """The index's candidate rows: verdict, gate, primary-metric difference, flips and cost."""
    base = results.baseline_variant.costs
    out = []
    for i, c in enumerate(results.candidates):
        d = c.on[c.decision.primary]
        f = c.on[results.settings.flips_metric]
        at = [x.metric for x in c.comparisons].index(f.metric)
        out.append(CandidateRow(
            name=c.name,
            slug=slug(c.name),
            verdict=say("verdict", f"candidates[{i}]"),
            gate=say("gate", f"candidates[{i}]"),
            primary=d,
            flips=say("flip_cell", f"candidates[{i}].comparisons[{at}]"),
            cost=_cost_text(base, c.costs),
            critical=c.decision.critical_worse,
            gated=c.gate.evaluated,
        ))  # fmt: skip
    return tuple(out)


def _headline(results: Results, say: Say) -> str:
    """The two answers counted, and the best lead: "2 better, 1 no clear change; gate: 3 GO.
    Best lead: …" (each a claim); "" with no candidate (the tiles say so)."""
    if not results.candidates:
        return ""
    return f"{say('summary', '')}; {say('gate_summary', '')}. {say('lead', '')}."


def _verdict_tile(counts: VerdictCounts, say: Say) -> VerdictTile:
    by_verdict = tuple(
        ClaimedCount(name, say("tally", "", of=name)) for name, _ in counts.by_verdict
    )
    tallies = tuple(ClaimedCount(k, say("tally", "", of=k)) for k in ("better", "worse", "unclear"))
    return VerdictTile(tallies, by_verdict)


def _gate_tile(counts: GateCounts | None, say: Say) -> GateTile:
    if counts is None:
        return GateTile(checked=False)
    return GateTile(
        True, tuple(ClaimedCount(g.value, say("tally", "", of=g.value)) for g in GateLevel)
    )


def _lead_tile(results: Results, lead: Lead | None, say: Say) -> LeadTile | None:
    if lead is None:
        return None
    i, c = next((i, c) for i, c in enumerate(results.candidates) if c.name == lead.candidate)
    j = [x.metric for x in c.comparisons].index(lead.metric)
    return LeadTile(c.name, slug(c.name), say("verdict", f"candidates[{i}]"),
                    say("gate", f"candidates[{i}]"), c.gate.evaluated,
                    say("delta", f"candidates[{i}].comparisons[{j}]"), lead.n,
                    tied_with(lead.tied))  # fmt: skip


def _data_tile(results: Results, size: DataSize, say: Say) -> DataTile:
    at = [v.name for v in results.variants].index(results.baseline)
    judged = say("variant_judged", f"variants[{at}]") if size.baseline_judged is not None else ""
    return DataTile(size, results.baseline, judged)


def bottom_line(results: Results, claims: Claims, shown: Plan) -> BottomLine:
    """The index's first screen: the headline, four tiles (counted by the plan) and a row per
    candidate, all claims."""
    say = claims.on(_INDEX)
    primary = results.settings.compared[0]
    return BottomLine(
        headline=_headline(results, say),
        verdicts=_verdict_tile(shown.verdicts, say),
        gate=_gate_tile(shown.gates, say),
        lead=_lead_tile(results, shown.lead, say),
        data=_data_tile(results, shown.data, say),
        rows=_candidate_rows(results, say),
        metric=primary.label,
        flips_metric=metric_label(results, results.settings.flips_metric),
        baseline_fails=say("baseline_fails", ""),
    )


def present(
    results: Results, since: Since | None = None, progress: Progress | None = None
) -> SiteModel:
    """The site model of `results` (and of what changed `since` a previous report, when given);
    the same Results always give the same model. A `progress` that counts is told the question
    pages modelled."""
    settings = results.settings
    shown = results.plan  # decided once with the Results: what the report shows
    keep = None if shown.chosen is None else set(shown.chosen)
    claims = Claims(results)
    total = len(results.inputs.questions) if keep is None else len(keep)
    tally = None if progress is None else Tally(progress, total, MODELLED)
    pages = statuses(
        results,
        _mark_critical(results, questions(results, keep, claims, shown.page_depth, tally)),
    )
    variants = variant_models(results)
    labels = tuple(m.label for m in settings.columns)
    candidates = candidate_models(results, claims)
    return SiteModel(
        meta=meta(results, claims),
        dataset=dataset(results),
        variants=variants,
        benchmark=_benchmark_rows(results, variants, claims),
        flip_matrix=flip_matrix(results, shown.grid, claims),
        slices=slice_tables(results, settings.slices),
        candidates=candidates,
        questions=pages,
        sizing=sizing(results.sizing, settings, claims.say("sizing.html", "rule", "", key="noise"))
        if results.sizing is not None
        else None,
        ablations=(
            ablations(results.ablations, settings) if results.ablations is not None else None
        ),
        citations=citations(results.citations) if results.citations is not None else None,
        evidence=results.evidence,
        omitted_questions=len(results.inputs.questions) - len(pages),
        page_rule=page_rule(results) if len(pages) < len(results.inputs.questions) else "",
        benchmark_columns=tuple(labels),
        results=results,
        gate=gate_page(results, {c.name: c.slug for c in candidates}, claims.on("gate.html")),
        bottom_line=bottom_line(results, claims, shown),
        since=None if since is None else since_view(since, results),
        question_list=question_list(results, {q.id for q in pages}, shown),
        to_label=to_label(results),
        not_run=tuple(NotRunPage(c, diff_rows(c.diff)) for c in results.not_run),
        claims=claims,
        plan=shown,
    )
