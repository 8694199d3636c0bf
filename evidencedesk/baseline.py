"""The saved baseline the gate compares a run with (`Baseline.reference()`).

The baseline file (`data/baseline_retrieval.json`) holds what the baseline is — a pipeline
project's `config`, or a runs-only project's baseline `run` (its name) — the k its final lists
were cut to, its summary, one result per question (passed, reciprocal rank, recall) and the sha256
of the labels it was made on. Two schema versions: ``evidencedesk.baseline_retrieval/1`` (a
config; what every earlier version wrote, and still what a pipeline baseline is written as, so
older versions read it) and ``…/2``, which adds ``run`` in the config's place. A baseline made on
other labels, of an unknown schema, or of the other kind of project (a config's baseline for a
runs-only project, a run's for a pipeline project) is refused. The file is validated by the
`Baseline` model (strict types, unknown keys refused); its config table is made into the
`Baseline.config` `Config` there, once (fields it leaves out take `Config()`'s values), and is
written back as `Config.to_dict()` (`Baseline.to_json`). Errors are worded by
`evidencedesk.files._validation` (``key 'questions.rc01.rr': expected a number, found …``; a table
that makes no valid `Config` in `Config`'s own words: ``key 'config': unknown reranker …``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    ValidationError,
    model_validator,
)

from evidencedesk.errors import ConfigError
from evidencedesk.files._project_file import ProjectKind
from evidencedesk.files._records import REBUILD_BASELINE, Whole, baseline_file
from evidencedesk.files._structured import read_json
from evidencedesk.files._validation import Loc, Source, Style, found_json, invalid, json_line, rule
from evidencedesk.files._writing import write_file
from evidencedesk.gate import _cut, _gate_result, _GateInput, _Reference, _shape
from evidencedesk.retrieval.evalreport import Config, Run
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.metrics import Judged, summarize
from evidencedesk.retrieval.parts import _summary_names

__all__ = [
    "Baseline",
    "load_baseline",
]

_BASELINE_SCHEMA = "evidencedesk.baseline_retrieval/1"  # a pipeline config's baseline
_RUN_BASELINE_SCHEMA = "evidencedesk.baseline_retrieval/2"  # adds `run`: a runs-only baseline
_SCHEMAS = (_BASELINE_SCHEMA, _RUN_BASELINE_SCHEMA)


def _labels_hash(labels: Sequence[Label]) -> str:
    """sha256 of the labels' canonical JSON (sorted keys, no spaces, UTF-8)."""
    canon = json.dumps(
        [label.to_dict() for label in labels],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class _QuestionResult(BaseModel):
    """One question of a saved baseline: whether its critical case passed, its reciprocal rank
    and recall at the baseline's k (None where undefined)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    passed: bool
    rr: float | None
    recall: float | None


def _config_of(value: object) -> Config:
    """The file's config table as the `Config` it describes, made once as the file is validated
    (fields it leaves out take `Config()`'s values); a table that makes none is refused in
    `Config`'s own words."""
    if isinstance(value, Config):  # a baseline built in Python, from a run's config
        return value
    if not isinstance(value, dict):
        raise invalid(f"expected an object, found {found_json(value)}")
    try:
        return Config.from_changes(value)
    except ValueError as exc:
        raise invalid(str(exc)) from None


# read from the file's table (or taken as it is), written as `Config.to_dict()`
_SavedConfig = Annotated[Config, PlainValidator(_config_of), PlainSerializer(Config.to_dict)]


class Baseline(BaseModel):
    """A saved baseline: its config (or run name), summary, per-question results, labels' hash."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    schema_: str = Field(alias="schema")
    config: _SavedConfig | None = None
    run: str | None = Field(None, min_length=1, json_schema_extra={"expected": "a run's name"})
    k: int = Field(ge=1)
    summary: dict[str, float | None]
    questions: dict[str, _QuestionResult]
    labels_hash: str

    @model_validator(mode="after")
    def _config_or_run(self) -> Baseline:
        if (self.config is None) == (self.run is None):
            found = "neither" if self.config is None else "both"
            raise rule((), "expected 'config' (a pipeline's baseline) or 'run' (a runs-only "
                           f"project's baseline run), found {found}")  # fmt: skip
        if self.run is not None and self.schema_ != _RUN_BASELINE_SCHEMA:
            raise rule(("run",), f"expected schema {_RUN_BASELINE_SCHEMA!r} for a baseline run, "
                                 f"found {self.schema_!r}")  # fmt: skip
        return self

    @property
    def kind(self) -> ProjectKind:
        return "pipeline" if self.config is not None else "runs"

    def rr(self) -> dict[str, float | None]:
        return {qid: q.rr for qid, q in self.questions.items()}

    def reference(self) -> _Reference:
        """What the gate compares a run with (`evalreport.retrieval_gate`, `gate._decide_gate`)."""
        return _Reference(self.k, self.summary, self.rr(), config=self.config, run=self.run)

    def to_json(self) -> str:
        """The file's text: pretty JSON in the keys' order, the config as `Config.to_dict()` (or
        the run's name), a trailing newline; a baseline read from a file that `_save_baseline` or
        `_save_run_baseline` wrote gives back that file's bytes."""
        unused = {"config"} if self.config is None else {"run"}
        data = self.model_dump(mode="json", by_alias=True, exclude=unused)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _write(
    path: str | Path, shaped: _GateInput, summary: dict[str, float | None],
    labels: Sequence[Label], *, config: Config | None = None, run: str | None = None,
) -> Baseline:  # fmt: skip
    """The baseline of `config` or `run`, questions in label order; the oldest schema that can
    hold it (a config: /1, so that earlier versions read it; a run: /2)."""
    baseline = Baseline(
        schema=_BASELINE_SCHEMA if run is None else _RUN_BASELINE_SCHEMA,
        config=config,
        run=run,
        k=shaped.k,
        summary=summary,
        questions={
            qid: _QuestionResult(
                passed=shaped.cases.get(qid, False),
                rr=shaped.rr.get(qid),
                recall=shaped.recall_by_question.get(qid),
            )
            for qid in shaped.rr
        },
        labels_hash=_labels_hash(labels),
    )
    text = baseline.to_json()
    write_file(path, text.encode("utf-8"), "baseline", _is_saved_baseline, "a saved baseline")
    return baseline


def _is_saved_baseline(path: Path) -> bool:
    """True if `path` holds a baseline evidencedesk saved (a JSON object of a baseline schema):
    the only file ``--save-baseline`` replaces."""
    try:
        raw, _ = read_json(path, ConfigError, "baseline")
    except ConfigError:
        return False
    return isinstance(raw, dict) and raw.get("schema") in _SCHEMAS


def _save_baseline(path: str | Path, run: Run, labels: Sequence[Label]) -> Baseline:
    """Write a pipeline `run` (its config, final lists and summary) as the baseline."""
    summary = {name: run.value(name) for name in run.summary}
    return _write(path, _gate_result(run), summary, labels, config=run.config)


def _save_run_baseline(
    path: str | Path, name: str, judged: Sequence[Judged], k: int, labels: Sequence[Label]
) -> Baseline:
    """Write a runs-only project's baseline run `name` (its judged lists cut to the top `k`, the
    gate's final list) as the baseline: ``"run": name`` where a pipeline's config would be."""
    top = _cut(judged, k)
    summary = {n: s.value for n, s in summarize(top, list(_summary_names(k))).items()}
    return _write(path, _shape(top, k, k), summary, labels, run=name)


def _key(loc: Loc) -> str:
    return f"key {'.'.join(map(str, loc))!r}" if loc else ""


_HINT = REBUILD_BASELINE
# how a baseline file's errors are worded: JSON keys, and the hint to rebuild it
_STYLE = Style("json", _key, root="a JSON object", suffix=f"; {_HINT}")


_WHAT = {
    "pipeline": "a pipeline config (this project runs its own retrieval)",
    "runs": "a run (this is a runs-only project)",
}


def load_baseline(
    path: str | Path, labels: Sequence[Label], kind: ProjectKind | None = None
) -> Baseline:
    """Read a baseline; refuse a wrong schema, one made on other labels or, given the project's
    `kind`, one of the other kind of project."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(path, f"expected a saved baseline, found no file; {_HINT}")
    return _baseline_of(baseline_file(path), labels, kind)


def _baseline_of(read: Whole, labels: Sequence[Label], kind: ProjectKind | None = None) -> Baseline:
    """The baseline of a baseline file read whole (`files._records.baseline_file`), checked as
    `load_baseline` says."""
    source = Source(read.path, read.text, _STYLE)
    raw = read.value
    schema = raw.get("schema") if isinstance(raw, dict) else None
    if schema not in _SCHEMAS:  # another version's file: say so before its keys
        raise source.error(
            (),
            f"expected schema {_BASELINE_SCHEMA!r} or {_RUN_BASELINE_SCHEMA!r}, found "
            f"{json.dumps(schema)}",
            json_line(source.text, ("schema",)),
        )
    try:
        baseline = Baseline.model_validate_json(source.text)
    except ValidationError as exc:
        raise source.invalid(exc, Baseline) from None
    if kind is not None and baseline.kind != kind:
        made = "a pipeline config" if baseline.run is None else f"the run {baseline.run!r}"
        raise source.error(
            (),
            f"expected the baseline of {_WHAT[kind]}, found the baseline of {made}",
            json_line(source.text, ("config" if baseline.run is None else "run",)),
        )
    mine = _labels_hash(labels)
    if baseline.labels_hash != mine:
        raise source.error(
            (),
            f"baseline was made on other labels (hash {baseline.labels_hash[:12]}… ≠ {mine[:12]}…)",
        )
    return baseline
