"""The release gate: a validated policy, a saved baseline, critical cases, GO / REVIEW / BLOCK.

Decisions (one reason line each):

- a **critical** question without a grade-2 chunk in the final list -> BLOCK, whatever the averages;
- recall@k or the pass rate below the policy's floor -> BLOCK (floors are absolute promises);
- recall@k or MRR dropped versus the saved baseline by more than ``max_drop`` -> REVIEW;
- MRR worse for more questions than it got better (per-question reciprocal rank against the
  baseline, exact sign test) -> REVIEW, when ``review_on_mrr_flips``.

No reason: GO. Baselines are files (`data/baseline_retrieval.json`) written by
``python -m evidencedesk.retrieval.benchmark --save-baseline`` and read by `evidencedesk.baseline`.

This module holds the policy and the decision (`decide`); `gate_input` shapes a run (and what it
is compared with) for it. `evalreport.retrieval_gate` applies the gate to a run, beside
`run_config` that makes the runs (the course page imports it from there). The layers import one
way: metrics <- gate_input <- gate <- evalreport <- baseline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk.errors import ConfigError
from evidencedesk.gate_input import GateInput, Reference
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import paired
from evidencedesk.textfile import read_text

__all__ = ["GateCheck", "GatePolicy", "GateResult", "Verdict", "decide", "load_policy"]

EPS = 1e-9


class GatePolicy(BaseModel):
    """The gate's policy file (JSON). Unknown keys and wrong types are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    k: int = Field(3, ge=1, description="recall is measured at k (the prompt's chunk count)")
    min_recall: float = Field(0.0, ge=0.0, le=1.0, description="floor for recall@k -> BLOCK")
    min_pass_rate: float = Field(
        0.0, ge=0.0, le=1.0, description="floor for the share of answerable questions passed"
    )
    max_drop: float = Field(
        0.0, ge=0.0, le=1.0, description="allowed drop of recall@k and MRR vs the baseline"
    )
    critical: tuple[str, ...] = Field(default=(), description="question ids that must pass")
    review_on_mrr_flips: bool = True
    notes: dict[str, str] = Field(
        default_factory=dict, description="critical id -> why it is critical"
    )

    @model_validator(mode="after")
    def _notes_name_critical_ids(self) -> GatePolicy:
        if len(set(self.critical)) != len(self.critical):
            raise ValueError("key 'critical': expected each question id once, found a repeat")
        extra = sorted(set(self.notes) - set(self.critical))
        if extra:
            raise ValueError(
                f"key 'notes': expected notes only for critical ids, found {', '.join(extra)}"
            )
        return self


def _line_of(text: str, key: object) -> int | None:
    if not isinstance(key, str):
        return None
    needle = json.dumps(key)
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return None


_EXPECTED = {
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
}


def _explain(error: dict[str, Any]) -> str:
    loc = ".".join(str(p) for p in error["loc"])
    kind, msg = error["type"], error["msg"]
    found = json.dumps(error.get("input"), ensure_ascii=False)
    if kind == "extra_forbidden":
        return f"unknown key {loc!r}; expected one of: {', '.join(GatePolicy.model_fields)}"
    if kind == "missing":
        return f"expected key {loc!r}, found none"
    if kind == "json_invalid":
        return f"expected valid JSON, found {msg.removeprefix('Invalid JSON: ')}"
    if kind == "model_type":
        return f"expected a JSON object of policy keys, found {type(error['input']).__name__}"
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    ctx = error.get("ctx") or {}
    bounds = {
        "greater_than_equal": f"a value >= {ctx.get('ge')}",
        "less_than_equal": f"a value <= {ctx.get('le')}",
    }
    expected = _EXPECTED.get(kind) or bounds.get(kind) or msg.removeprefix("Input should be ")
    return f"key {loc!r}: expected {expected}, found {found}"


def _json_line(message: str) -> int | None:
    match = re.search(r"at line (\d+)", message)
    return int(match.group(1)) if match else None


def _is_a(ids: Sequence[str], noun: str, negation: str = "") -> str:
    if len(ids) == 1:
        article = "an" if noun[0] in "aeiou" else "a"
        return f"is {negation}{article} {noun}"
    return f"are {negation}{noun}s"


def load_policy(path: str | Path, labels: Sequence[Label] | None = None) -> GatePolicy:
    """Read and validate a policy; with `labels`, every critical id must be an answerable question."""
    path = Path(path)
    text = read_text(path, ConfigError, "policy file")
    try:
        policy = GatePolicy.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first["loc"]
        line = (
            _json_line(first["msg"])
            if first["type"] == "json_invalid"
            else _line_of(text, loc[0] if loc else None)
        )
        raise ConfigError(path, _explain(first), line) from None
    if labels is not None:
        by_id = {label.id: label for label in labels}
        unknown = [q for q in policy.critical if q not in by_id]
        if unknown:
            listed = ", ".join(unknown)
            raise ConfigError(
                path,
                f"key 'critical': {listed} {_is_a(unknown, 'labelled question', 'not ')}; "
                f"expected ids from the labels: {', '.join(by_id)}",
                _line_of(text, unknown[0]),
            )
        unanswerable = [q for q in policy.critical if not by_id[q].answerable]
        if unanswerable:
            raise ConfigError(
                path,
                f"key 'critical': {', '.join(unanswerable)} "
                f"{_is_a(unanswerable, 'unanswerable question')}; expected answerable questions "
                "(a critical case passes only with a grade-2 chunk)",
                _line_of(text, unanswerable[0]),
            )
    return policy


class Verdict(StrEnum):
    GO = "GO"
    REVIEW = "REVIEW"
    BLOCK = "BLOCK"


@dataclass(frozen=True)
class GateCheck:
    """One reason line of the gate as data; `text()` is its wording, never parsed back."""

    level: Verdict  # BLOCK or REVIEW
    rule: str  # a policy key, or "critical_missing" / "baseline_missing_metric" / "no_policy"
    metric: str | None = None
    observed: float | None = None
    threshold: float | None = None
    questions: tuple[str, ...] = ()
    reference: float | None = None  # the baseline's value
    k: int | None = None  # the final size (critical) or the k the baseline was saved at
    counts: tuple[int, ...] = ()  # (passed, cases) for the pass rate; (better,) for the flips
    p: float | None = None

    def text(self) -> str:
        q = self.questions[0] if self.questions else ""
        if self.rule == "critical_missing":
            return f"critical: {q} has no case in this run (not an answerable question)"
        if self.rule == "critical":
            return f"critical: {q} failed (no grade-2 chunk in the final {self.k})"
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
                f"{self.metric} dropped {before - now:.3f} vs baseline ({before:.3f} -> "
                f"{now:.3f}), more than the allowed {self.threshold:.3f}"
            )
        if self.rule == "review_on_mrr_flips":
            return (
                f"mrr worse for {len(self.questions)} question(s) [{', '.join(self.questions)}], "
                f"better for {self.counts[0]} (sign-test p={self.p:.3f})"
            )
        if self.rule == "no_policy":
            return "no gate policy in this project; nothing was checked"
        raise ValueError(f"unknown gate rule {self.rule!r}")

    def line(self) -> str:
        return f"{self.level.value.lower()}: {self.text()}"


@dataclass(frozen=True)
class GateResult:
    """The verdict and one ``block: …`` / ``review: …`` line per reason (`checks` as data)."""

    verdict: Verdict
    lines: tuple[str, ...] = ()
    measured: dict[str, Any] = field(default_factory=dict, compare=False)
    checks: tuple[GateCheck, ...] = field(default=(), compare=False)

    def text(self) -> str:
        return "\n".join([f"GATE: {self.verdict.value}", *(f"  {line}" for line in self.lines)])

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "lines": list(self.lines), **self.measured}


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def decide(policy: GatePolicy, shaped: GateInput, reference: Reference | None = None) -> GateResult:
    """The verdict for a shaped run, comparing with `reference` when given."""
    block, review = Verdict.BLOCK, Verdict.REVIEW
    checks: list[GateCheck] = []
    for qid in policy.critical:
        if qid not in shaped.cases:
            checks.append(GateCheck(block, "critical_missing", questions=(qid,)))
        elif not shaped.cases[qid]:
            checks.append(GateCheck(block, "critical", questions=(qid,), k=shaped.final))
    name = f"recall@{policy.k}"
    if shaped.recall is None or shaped.recall < policy.min_recall - EPS:
        checks.append(GateCheck(block, "min_recall", name, shaped.recall, policy.min_recall))
    if shaped.pass_rate is None or shaped.pass_rate < policy.min_pass_rate - EPS:
        passed = sum(shaped.cases.values())
        checks.append(
            GateCheck(block, "min_pass_rate", None, shaped.pass_rate, policy.min_pass_rate,
                      counts=(passed, len(shaped.cases)))
        )  # fmt: skip
    if reference is not None:
        for metric, now in ((name, shaped.recall), ("mrr", shaped.mrr)):
            before = reference.summary.get(metric)
            if before is None and metric == name:
                checks.append(GateCheck(review, "baseline_missing_metric", name, k=reference.k))
                continue
            if before is not None and now is not None and before - now > policy.max_drop + EPS:
                checks.append(
                    GateCheck(review, "max_drop", metric, now, policy.max_drop, reference=before)
                )
        if policy.review_on_mrr_flips:
            flips = paired(dict(reference.rr), shaped.rr, name="mrr")
            if len(flips.worse) > len(flips.better):
                checks.append(
                    GateCheck(review, "review_on_mrr_flips", "mrr", questions=flips.worse,
                              counts=(len(flips.better),), p=flips.p)
                )  # fmt: skip
    # blocks first, then reviews (the order of the lines)
    checks.sort(key=lambda c: c.level != block)
    verdict = block if any(c.level == block for c in checks) else review if checks else Verdict.GO
    measured = {
        "measured": shaped.to_dict(),
        "policy": policy.model_dump(mode="json"),
        "baseline": None if reference is None else reference.config,
    }
    return GateResult(verdict, tuple(c.line() for c in checks), measured, tuple(checks))
