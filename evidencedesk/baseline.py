"""Shaping a run for the gate, and the saved baseline it is compared with.

The baseline file (`data/baseline_retrieval.json`) holds the config, its summary, one result per
question (passed, reciprocal rank, recall) and the sha256 of the labels it was made on; a baseline
made on other labels, or of another schema, is refused. `evidencedesk.gate` re-exports all of it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk.errors import ConfigError
from evidencedesk.retrieval.evalreport import Config, Run
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import per_question, summarize
from evidencedesk.textfile import read_text

__all__ = [
    "BASELINE_SCHEMA",
    "Baseline",
    "GateInput",
    "QuestionResult",
    "gate_result",
    "labels_hash",
    "load_baseline",
    "save_baseline",
]

BASELINE_SCHEMA = "evidencedesk.baseline_retrieval/1"


@dataclass(frozen=True)
class GateInput:
    """A run shaped for the gate: recall@k, pass rate and one case per answerable question."""

    k: int
    final: int
    recall: float | None
    pass_rate: float | None
    cases: dict[str, bool]
    rr: dict[str, float | None]
    recall_by_question: dict[str, float | None]
    mrr: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "final": self.final,
            "recall": self.recall,
            "pass_rate": self.pass_rate,
            "mrr": self.mrr,
            "cases": dict(self.cases),
        }


def gate_result(run: Run, k: int | None = None) -> GateInput:
    """passed = a grade-2 chunk is in the final list (answerable questions only)."""
    k = run.config.final if k is None else k
    judged = list(run.judged)
    final = run.config.final
    hits = per_question(judged, f"hit@{final}")
    # one case per answerable question that has a grade-2 chunk within the scope
    cases = {j.id: bool(hits[j.id]) for j in judged if j.answerable and hits[j.id] is not None}
    summary = summarize(judged, [f"recall@{k}", "mrr"])
    return GateInput(
        k=k,
        final=final,
        recall=summary[f"recall@{k}"].value,
        pass_rate=(sum(cases.values()) / len(cases)) if cases else None,
        cases=cases,
        rr=per_question(judged, "mrr"),
        recall_by_question=per_question(judged, f"recall@{k}"),
        mrr=summary["mrr"].value,
    )


def labels_hash(labels: Sequence[Label]) -> str:
    """sha256 of the labels' canonical JSON (sorted keys, no spaces, UTF-8)."""
    canon = json.dumps(
        [label.to_dict() for label in labels],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class QuestionResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    rr: float | None
    recall: float | None


class Baseline(BaseModel):
    """A saved baseline run: config, summary, per-question results, the labels' hash."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: str = Field(alias="schema")
    config: dict[str, Any]
    k: int
    summary: dict[str, float | None]
    questions: dict[str, QuestionResult]
    labels_hash: str

    def rr(self) -> dict[str, float | None]:
        return {qid: q.rr for qid, q in self.questions.items()}


def save_baseline(path: str | Path, run: Run, labels: Sequence[Label]) -> Baseline:
    """Write `run` as the baseline (pretty JSON, questions in label order, trailing newline)."""
    shaped = gate_result(run)
    summary = {name: run.value(name) for name in run.summary}
    baseline = Baseline(
        schema=BASELINE_SCHEMA,
        config=run.config.to_dict(),
        k=shaped.k,
        summary=summary,
        questions={
            qid: QuestionResult(
                passed=shaped.cases.get(qid, False),
                rr=shaped.rr.get(qid),
                recall=shaped.recall_by_question.get(qid),
            )
            for qid in shaped.rr
        },
        labels_hash=labels_hash(labels),
    )
    data = baseline.model_dump(mode="json", by_alias=True)
    Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return baseline


class _NotFinite(ValueError):
    def __init__(self, token: str):
        super().__init__(token)
        self.token = token


def _refuse(token: str) -> float:
    # NaN compares false with everything: a NaN summary would silently pass every max_drop check
    raise _NotFinite(token)


def _finite(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):  # 1e400 parses to inf
        raise _NotFinite(token)
    return value


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _line_of_token(text: str, token: str) -> int | None:
    """The line of the first `token` outside a JSON string (strings hold no raw newlines)."""
    blank = _JSON_STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    found = re.search(rf"(?<![\w.+-]){re.escape(token)}(?![\w.])", blank)
    return blank.count("\n", 0, found.start()) + 1 if found else None


def load_baseline(path: str | Path, labels: Sequence[Label]) -> Baseline:
    """Read a baseline; refuse a wrong schema or one made on other labels."""
    path = Path(path)
    hint = "rebuild it with --save-baseline"
    if not path.exists():
        raise ConfigError(path, f"expected a saved baseline, found no file; {hint}")
    text = read_text(path, ConfigError, "baseline")
    try:
        raw = json.loads(text, parse_constant=_refuse, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"expected JSON, found {exc.msg}", exc.lineno) from None
    except _NotFinite as exc:
        raise ConfigError(
            path,
            f"expected finite numbers, found {exc.token}; {hint}",
            _line_of_token(text, exc.token),
        ) from None
    schema = raw.get("schema") if isinstance(raw, dict) else None
    if schema != BASELINE_SCHEMA:
        raise ConfigError(
            path, f"expected schema {BASELINE_SCHEMA!r}, found {json.dumps(schema)}; {hint}"
        )
    try:
        baseline = Baseline.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(path, f"key {loc!r}: {first['msg']}; {hint}") from None
    mine = labels_hash(labels)
    if baseline.labels_hash != mine:
        raise ConfigError(
            path,
            f"baseline was made on other labels (hash {baseline.labels_hash[:12]}… ≠ "
            f"{mine[:12]}…); {hint}",
        )
    try:
        Config(**baseline.config)
    except (TypeError, ValueError) as exc:
        raise ConfigError(path, f"key 'config': {exc}; {hint}") from None
    return baseline
