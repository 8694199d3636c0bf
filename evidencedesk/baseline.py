"""The saved baseline the gate compares a run with (`Baseline.reference()`).

The baseline file (`data/baseline_retrieval.json`) holds the config, its summary, one result per
question (passed, reciprocal rank, recall) and the sha256 of the labels it was made on; a baseline
made on other labels, or of another schema, is refused. The file is validated by the `Baseline`
model (strict types, unknown keys refused, a config that makes a valid `Config`); errors are
worded by `evidencedesk.validation` (``key 'questions.rc01.rr': expected a number, found …``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk.errors import ConfigError, EvidencedeskError
from evidencedesk.gate_input import Reference, gate_result
from evidencedesk.keylines import Loc, json_line
from evidencedesk.retrieval.evalreport import Config, Run
from evidencedesk.retrieval.labels import Label
from evidencedesk.textfile import read_text
from evidencedesk.validation import Source, Style, rule

__all__ = [
    "BASELINE_SCHEMA",
    "Baseline",
    "QuestionResult",
    "labels_hash",
    "load_baseline",
    "save_baseline",
]

BASELINE_SCHEMA = "evidencedesk.baseline_retrieval/1"


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
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    passed: bool
    rr: float | None
    recall: float | None


class Baseline(BaseModel):
    """A saved baseline run: config, summary, per-question results, the labels' hash."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    schema_: str = Field(alias="schema")
    config: dict[str, Any]
    k: int = Field(ge=1)
    summary: dict[str, float | None]
    questions: dict[str, QuestionResult]
    labels_hash: str

    @model_validator(mode="after")
    def _config_is_valid(self) -> Baseline:
        try:
            Config().replace(**self.config)
        except (EvidencedeskError, TypeError, ValueError) as exc:
            raise rule(("config",), str(exc)) from None
        return self

    def rr(self) -> dict[str, float | None]:
        return {qid: q.rr for qid, q in self.questions.items()}

    def reference(self) -> Reference:
        """What the gate compares a run with (`evalreport.retrieval_gate`)."""
        return Reference(self.k, self.summary, self.rr(), self.config)


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


def _key(loc: Loc) -> str:
    return f"key {'.'.join(map(str, loc))!r}" if loc else ""


HINT = "rebuild it with --save-baseline"
STYLE = Style("json", _key, root="a JSON object", suffix=f"; {HINT}")


def load_baseline(path: str | Path, labels: Sequence[Label]) -> Baseline:
    """Read a baseline; refuse a wrong schema or one made on other labels."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(path, f"expected a saved baseline, found no file; {HINT}")
    source = Source(path, read_text(path, ConfigError, "baseline"), STYLE)
    try:
        raw = json.loads(source.text, parse_constant=_refuse, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"expected JSON, found {exc.msg}", exc.lineno) from None
    except _NotFinite as exc:
        raise source.error(
            (),
            f"expected finite numbers, found {exc.token}",
            _line_of_token(source.text, exc.token),
        ) from None
    schema = raw.get("schema") if isinstance(raw, dict) else None
    if schema != BASELINE_SCHEMA:  # another version's file: say so before its keys
        raise source.error(
            (),
            f"expected schema {BASELINE_SCHEMA!r}, found {json.dumps(schema)}",
            json_line(source.text, ("schema",)),
        )
    try:
        baseline = Baseline.model_validate_json(source.text)
    except ValidationError as exc:
        raise source.invalid(exc, Baseline) from None
    mine = labels_hash(labels)
    if baseline.labels_hash != mine:
        raise source.error(
            (),
            f"baseline was made on other labels (hash {baseline.labels_hash[:12]}… ≠ {mine[:12]}…)",
        )
    return baseline
