"""The release gate: a validated policy, a saved baseline, critical cases, GO / REVIEW / BLOCK.

Decisions (one reason line each):

- a **critical** question without a relevant result (a chunk, or a run's document) in the final
  list -> BLOCK, whatever the averages;
- recall@k or the pass rate below the policy's floor -> BLOCK (floors are absolute promises);
- recall@k or MRR dropped versus the saved baseline by more than ``max_drop`` -> REVIEW;
- MRR worse for more questions than it got better (per-question reciprocal rank against the
  baseline, exact sign test) -> REVIEW, when ``review_on_mrr_flips``; ``flips_min_net`` and
  ``flips_max_p`` can ask for more evidence first (a net count, a sign-test p: `_flips_fire`).

The gate's MRR is the reciprocal rank within its final list: a TREC run's top k, named "MRR@k"
(`GateCheck.k`), never the MRR of a benchmark table, which reads the whole list; a pipeline
run's final list, whose length is each run's own, named `_GATE_MRR_FINAL`.
Its p-values print as everywhere else (`stats.p_text`: "p<0.001", never "p=0.000").

No reason: GO. Baselines are files (`data/baseline_retrieval.json`) written by
``python -m evidencedesk.retrieval.benchmark --save-baseline`` and read by `evidencedesk.baseline`.

This module holds the policy and the decision (`_decide_gate`), and what the gate reads of a run
and of what it is compared with (`_GateInput`, `_Reference`). `evalreport.retrieval_gate` applies
the gate to a run, beside `run_config` that makes the runs (the course page imports it from
there). The layers import one way: metrics <- gate <- evalreport <- baseline.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk._metric_names import MAX_CUTOFF
from evidencedesk.errors import _did_you_mean
from evidencedesk.files._records import Whole, policy_file
from evidencedesk.files._validation import Loc, Source, Style, rule, value_line
from evidencedesk.retrieval._stats import p_is
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, paired, per_question_all, summarize

if TYPE_CHECKING:  # annotations only: evalreport imports this module to gate its runs
    from evidencedesk.retrieval.evalreport import Config

__all__ = [
    "GateCheck",
    "GatePolicy",
    "GateResult",
    "GateLevel",
    "load_policy",
]


class _ConfigRun(Protocol):
    """What the gate reads of a run (`evalreport.Run` is one)."""

    # read-only properties, so that a frozen dataclass satisfies them
    @property
    def judged(self) -> Sequence[Judged]: ...
    @property
    def config(self) -> Config: ...


# the list the gate reads, in its lines: a pipeline's "final" list, or a TREC run's "top" k
_ListCut = Literal["final", "top"]
# the MRR a pipeline's gate reads, as every line and table names it: the reciprocal rank within
# each run's final list (the lists the site's MRR reads), whose length is the candidate's final,
# and the baseline's own for its value, so no one "MRR@k" names both
_GATE_MRR_FINAL = "MRR within the final list"


@dataclass(frozen=True)
class _GateInput:
    """A run shaped for the gate: recall@k, pass rate and one case per answerable question."""

    k: int
    final: int
    recall: float | None
    pass_rate: float | None
    cases: dict[str, bool]
    rr: dict[str, float | None]
    recall_by_question: dict[str, float | None]
    mrr: float | None
    cut: _ListCut = "final"

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "final": self.final,
            "recall": self.recall,
            "pass_rate": self.pass_rate,
            "mrr": self.mrr,
            "cases": dict(self.cases),
        }


def _gate_result(run: _ConfigRun, k: int | None = None) -> _GateInput:
    """passed = a relevant chunk (at the judged lists' threshold) is in the final list (answerable questions only)."""
    final = run.config.final
    return _shape(run.judged, final, final if k is None else k)


def _cut(judged: Sequence[Judged], k: int) -> tuple[Judged, ...]:
    """Each ranked list cut to its top `k`: a TREC run's final list as the gate reads it."""
    return tuple(
        Judged(j.id, j.tags, j.answerable, j.grades[:k], j.pool, j.ids[:k], j.relevant)
        for j in judged
    )


def _shape(
    judged_lists: Sequence[Judged], final: int, k: int, cut: _ListCut = "final"
) -> _GateInput:
    """Judged lists shaped for the gate, recall measured at `k`: a pipeline's final lists of
    size `final`, or (`cut` "top", the word the gate's lines use) a TREC run's lists, cut here
    to their top `final`, the policy's k."""
    judged = list(_cut(judged_lists, final) if cut == "top" else judged_lists)
    hits = per_question_all(judged, f"hit@{final}")
    # one case per answerable question that has a relevant chunk within the scope
    cases = {j.id: bool(hits[j.id]) for j in judged if j.answerable and hits[j.id] is not None}
    summary = summarize(judged, [f"recall@{k}", "mrr"])
    return _GateInput(
        k=k,
        final=final,
        recall=summary[f"recall@{k}"].value,
        pass_rate=(sum(cases.values()) / len(cases)) if cases else None,
        cases=cases,
        rr=per_question_all(judged, "mrr"),
        recall_by_question=per_question_all(judged, f"recall@{k}"),
        mrr=summary["mrr"].value,
        cut=cut,
    )


@dataclass(frozen=True)
class _Reference:
    """What a run is compared with: a saved baseline's or a base run's summary, per-question
    reciprocal ranks and the k its recall was measured at; it is a pipeline's (`config`) or a
    named run's (`run`: a TREC run, a runs-only project's saved baseline), exactly one."""

    k: int
    summary: Mapping[str, float | None]
    rr: Mapping[str, float | None]
    config: Config | None = None
    run: str | None = None

    def __post_init__(self) -> None:
        if (self.config is None) == (self.run is None):
            raise ValueError("a Reference is a pipeline's (config) or a run's (run), exactly one")

    def what(self) -> dict[str, Any]:
        """What the reference is, as the gate shows it: the config's fields, or ``{"run": name}``."""
        return {"run": self.run} if self.config is None else self.config.to_dict()

    @classmethod
    def of_run(cls, run: _ConfigRun, k: int) -> _Reference:
        """A pipeline run as the reference, measured at the policy's k (so its recall@k always
        exists)."""
        return cls._of(_shape(run.judged, run.config.final, k), config=run.config)

    @classmethod
    def of_judged(cls, judged: Sequence[Judged], final: int, k: int, run: str) -> _Reference:
        """The judged lists of the TREC run named `run`, cut to their top `final`, as the
        reference, measured at `k`."""
        return cls._of(_shape(judged, final, k, "top"), run=run)

    @classmethod
    def _of(
        cls, shaped: _GateInput, config: Config | None = None, run: str | None = None
    ) -> _Reference:
        summary = {f"recall@{shaped.k}": shaped.recall, "mrr": shaped.mrr}
        return cls(shaped.k, summary, shaped.rr, config, run)


_EPS = 1e-9
# question ids a flips line or an error names before "… N more" (report._words.INLINE_IDS: the
# site's too)
_LISTED = 50


class GatePolicy(BaseModel):
    """The gate's policy file (JSON). Unknown keys and wrong types are errors, worded by
    `evidencedesk.files._validation` (``key 'min_recall': expected a number, found "high"``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    k: int = Field(
        3, ge=1, le=MAX_CUTOFF, description="recall is measured at k (the prompt's chunk count)"
    )
    min_recall: float = Field(0.0, ge=0.0, le=1.0, description="floor for recall@k -> BLOCK")
    min_pass_rate: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="floor for the share of passing questions (of those with a relevant result to find)",
    )
    max_drop: float = Field(
        0.0, ge=0.0, le=1.0, description="allowed drop of recall@k and MRR vs the baseline"
    )
    critical: tuple[str, ...] = Field(default=(), description="question ids that must pass")
    review_on_mrr_flips: bool = True
    # the evidence the flips rule asks for before it reviews (docs/gate.md); the defaults keep the
    # course page's rule: review whenever MRR is worse for more questions than it is better
    flips_min_net: int = Field(
        1, ge=1, description="review on MRR flips only when worse minus better is at least this"
    )
    flips_max_p: float = Field(
        1.0,
        gt=0.0,
        le=1.0,
        description="review on MRR flips only when the sign-test p is at most this",
    )
    notes: dict[str, str] = Field(
        default_factory=dict, description="critical id -> why it is critical"
    )

    @model_validator(mode="after")
    def _notes_name_critical_ids(self) -> GatePolicy:
        if len(set(self.critical)) != len(self.critical):
            raise rule(("critical",), "expected each question id once, found a repeat")
        extra = sorted(set(self.notes) - set(self.critical))
        if extra:
            raise rule(
                ("notes",), f"expected notes only for critical ids, found {', '.join(extra)}"
            )
        return self


def _key(loc: Loc) -> str:
    return f"key {'.'.join(map(str, loc))!r}" if loc else ""


def _unknown(loc: Loc, valid: Sequence[str]) -> str:
    return f"unknown key {'.'.join(map(str, loc))!r}; expected one of: {', '.join(valid)}"


_POLICY_STYLE = Style("json", _key, _unknown, root="a JSON object of policy keys")


def _is_a(ids: Sequence[str], noun: str, negation: str = "") -> str:
    if len(ids) == 1:
        article = "an" if noun[0] in "aeiou" else "a"
        return f"is {negation}{article} {noun}"
    return f"are {negation}{noun}s"


def _some(ids: Sequence[str]) -> str:
    """The first `_LISTED` ids, then how many more: a 50,000-question project's error stays a line."""
    more = len(ids) - _LISTED
    return ", ".join(ids[:_LISTED]) + (f", … {more} more" if more > 0 else "")


def _closest(unknown: Sequence[str], known: Iterable[str]) -> str:
    """ "did you mean a or b? " of the valid ids nearest the first unknown one ("" if none is near)."""
    said = _did_you_mean(difflib.get_close_matches(unknown[0], list(known), n=3, cutoff=0.75))
    return f"{said} " if said else ""


def load_policy(path: str | Path, labels: Sequence[Label] | None = None) -> GatePolicy:
    """Read and validate a policy; with `labels`, every critical id must be an answerable question."""
    return _policy_of(policy_file(Path(path)), labels)


def _policy_of(read: Whole, labels: Sequence[Label] | None = None) -> GatePolicy:
    """The policy of a policy file read whole (`files._records.json_file`), validated; with
    `labels`, every critical id must be an answerable question."""
    source = Source(read.path, read.text, _POLICY_STYLE)
    try:
        policy = GatePolicy.model_validate_json(source.text)
    except ValidationError as exc:
        raise source.invalid(exc, GatePolicy) from None
    if labels is not None:
        by_id = {label.id: label for label in labels}
        # a labels file says which questions are unanswerable; qrels only judge some documents
        labelled = all(label.complete for label in labels)
        unknown = [q for q in policy.critical if q not in by_id]
        if unknown:
            listed = ", ".join(unknown)
            noun, source_of = (
                ("labelled question", "the labels")
                if labelled
                else ("evaluated question", "the questions evaluated (queries with judgments)")
            )
            raise source.error(
                ("critical",),
                f"{listed} {_is_a(unknown, noun, 'not ')}; {_closest(unknown, by_id)}"
                f"expected ids from {source_of}: {_some(list(by_id))}",
                value_line(source.text, unknown[0]),
            )
        without = [q for q in policy.critical if not by_id[q].answerable]
        if without:
            threshold = by_id[without[0]].relevant_grade
            found = (
                _is_a(without, "unanswerable question")
                if labelled
                else f"{'has' if len(without) == 1 else 'have'} no relevant judgment"
            )
            raise source.error(
                ("critical",),
                f"{', '.join(without)} {found}; expected "
                f"{'answerable questions' if labelled else 'questions with one'} (a critical "
                f"case passes only with a relevant result: graded {threshold} or above)",
                value_line(source.text, without[0]),
            )
    return policy


class GateLevel(StrEnum):
    """The gate's answer to "may it ship?": GO, REVIEW or BLOCK (its *gate level*; the
    statistics' answer, BETTER … WORSE, is the *verdict*: results.verdicts). Listed from the
    best to the worst."""

    GO = "GO"
    REVIEW = "REVIEW"
    BLOCK = "BLOCK"

    @classmethod
    def worst(cls, levels: Iterable[str]) -> GateLevel:
        """The worst of `levels` (GateLevel members or their words); GO when there are none."""
        order = list(cls)
        return max((cls(level) for level in levels), key=order.index, default=cls.GO)


# what breaching each rule does: the gate decides with it and the gate page lists it
_ON_BREACH: Mapping[str, GateLevel] = {
    "critical": GateLevel.BLOCK,
    "critical_missing": GateLevel.BLOCK,
    "min_recall": GateLevel.BLOCK,
    "min_pass_rate": GateLevel.BLOCK,
    "baseline_missing_metric": GateLevel.REVIEW,
    "max_drop": GateLevel.REVIEW,
    "review_on_mrr_flips": GateLevel.REVIEW,
    "no_policy": GateLevel.REVIEW,
}


@dataclass(frozen=True)
class GateCheck:
    """One reason line of the gate as data; `text()` is its wording, never parsed back."""

    level: GateLevel  # BLOCK or REVIEW
    rule: str  # a policy key, or "critical_missing" / "baseline_missing_metric" / "no_policy"
    metric: str | None = None
    observed: float | None = None
    threshold: float | None = None
    questions: tuple[str, ...] = ()
    reference: float | None = None  # the baseline's value
    # the final list's size (critical; and the MRR rules: their MRR is the reciprocal rank
    # within it, MRR@k), or the k the baseline was saved at (baseline_missing_metric)
    k: int | None = None
    counts: tuple[int, ...] = ()  # (passed, cases) for the pass rate; (better,) for the flips
    p: float | None = None
    cut: _ListCut = "final"  # the list a critical case reads

    def text(self) -> str:
        q = self.questions[0] if self.questions else ""
        if self.rule == "critical_missing":
            return f"critical: {q} has no case in this run (no relevant chunk in scope, so it cannot pass)"
        if self.rule == "critical":
            return f"critical: {q} failed (no relevant result in the {self.cut} {self.k})"
        if self.rule == "min_recall":
            return f"{self.metric} {_f(self.observed)} is below the minimum {self.threshold:.3f}"
        if self.rule == "min_pass_rate":
            return (
                f"pass rate {_f(self.observed)} ({self.counts[0]}/{self.counts[1]}) is below the "
                f"minimum {self.threshold:.3f}"
            )
        if self.rule == "baseline_missing_metric":
            return f"baseline has no {self.metric} (it was saved at k={self.k})"
        if self.rule == "max_drop":
            before, now = self.reference or 0.0, self.observed or 0.0
            return (
                f"{self._metric()} dropped {before - now:.3f} vs baseline ({before:.3f} -> "
                f"{now:.3f}), more than the allowed {self.threshold:.3f}"
            )
        if self.rule == "review_on_mrr_flips":
            p = p_is(self.p if self.p is not None else 1.0).replace(" ", "")  # "p=0.125"
            return (
                f"{self._metric()} worse for {len(self.questions)} question(s) "
                f"[{_some(self.questions)}], "
                f"better for {self.counts[0]} (sign-test {p})"
            )
        if self.rule == "no_policy":
            return "no gate policy in this project; nothing was checked"
        raise ValueError(f"unknown gate rule {self.rule!r}")

    def _metric(self) -> str:
        """The metric as the line names it: the gate's MRR with the list it reads ("MRR@10" of a
        runs-only gate, `_GATE_MRR_FINAL` of a pipeline's); "mrr" only for a check read from a
        results.json of a build before it had `k`."""
        if self.metric == "mrr" and self.cut == "final" and self.k is not None:
            return _GATE_MRR_FINAL
        if self.metric == "mrr" and self.k is not None:
            return f"MRR@{self.k}"
        return self.metric or ""

    def line(self) -> str:
        return f"{self.level.value.lower()}: {self.text()}"


@dataclass(frozen=True)
class GateResult:
    """The gate level and one ``block: …`` / ``review: …`` line per reason (`checks` as data)."""

    level: GateLevel
    lines: tuple[str, ...] = ()
    measured: dict[str, Any] = field(default_factory=dict, compare=False)
    checks: tuple[GateCheck, ...] = field(default=(), compare=False)

    def text(self) -> str:
        return "\n".join([f"GATE: {self.level.value}", *(f"  {line}" for line in self.lines)])

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level.value, "lines": list(self.lines), **self.measured}


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _flips_fire(policy: GatePolicy, worse: int, better: int, p: float) -> bool:
    """Whether the MRR-flips rule reviews: `worse` questions lost against `better` won, by at
    least ``flips_min_net`` net and with an exact sign-test p of at most ``flips_max_p``."""
    return worse - better >= policy.flips_min_net and p <= policy.flips_max_p + _EPS


def _decide_gate(
    policy: GatePolicy, shaped: _GateInput, reference: _Reference | None = None
) -> GateResult:
    """The gate level for a shaped run, comparing with `reference` when given."""
    checks: list[GateCheck] = []

    def breach(rule: str, *args: Any, **kwargs: Any) -> None:
        checks.append(GateCheck(_ON_BREACH[rule], rule, *args, **kwargs))

    for qid in policy.critical:
        if qid not in shaped.cases:
            breach("critical_missing", questions=(qid,))
        elif not shaped.cases[qid]:
            breach("critical", questions=(qid,), k=shaped.final, cut=shaped.cut)
    name = f"recall@{policy.k}"
    if shaped.recall is None or shaped.recall < policy.min_recall - _EPS:
        breach("min_recall", name, shaped.recall, policy.min_recall)
    if shaped.pass_rate is None or shaped.pass_rate < policy.min_pass_rate - _EPS:
        passed = sum(shaped.cases.values())
        breach("min_pass_rate", None, shaped.pass_rate, policy.min_pass_rate,
               counts=(passed, len(shaped.cases)))  # fmt: skip
    if reference is not None:
        for metric, now in ((name, shaped.recall), ("mrr", shaped.mrr)):
            before = reference.summary.get(metric)
            if before is None and metric == name:
                breach("baseline_missing_metric", name, k=reference.k)
                continue
            if before is not None and now is not None and before - now > policy.max_drop + _EPS:
                within = shaped.final if metric == "mrr" else None  # MRR@k: its final list
                breach("max_drop", metric, now, policy.max_drop, reference=before, k=within,
                       cut=shaped.cut)  # fmt: skip
        if policy.review_on_mrr_flips:
            flips = paired(dict(reference.rr), shaped.rr, name="mrr")
            if _flips_fire(policy, len(flips.worse), len(flips.better), flips.p):
                breach("review_on_mrr_flips", "mrr", questions=tuple(flips.worse),
                       k=shaped.final, counts=(len(flips.better),), p=flips.p,
                       cut=shaped.cut)  # fmt: skip
    # blocks first, then reviews (the order of the lines)
    checks.sort(key=lambda c: c.level is not GateLevel.BLOCK)
    level = GateLevel.worst(c.level for c in checks)
    measured = {
        "measured": shaped.to_dict(),
        "policy": policy.model_dump(mode="json"),
        "baseline": None if reference is None else reference.what(),
    }
    return GateResult(level, tuple(c.line() for c in checks), measured, tuple(checks))
