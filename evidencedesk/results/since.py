"""What changed since the last report: a previous build's Results against this build's.

`since(previous, current)` compares two `Results` (the previous one read back from its
results.json) and returns a `Since`, computed here once and presented by the report:

- **inputs**: the project files whose sha256 differ, appear or disappear; every label grade
  that changed (question, chunk, before, after); questions added or removed;
- **verdicts**: each candidate's verdict and gate level before and after, candidates added
  and removed, and candidates redefined (the same name, another config change: `diff`);
- **metrics**: a run's (variant's or candidate's) mean *moved* when the new mean lies outside the
  previous report's 95 % interval of the same run and metric (strictly outside, to 1e-12); runs
  or metrics missing on either side are not compared;
- **questions**: a question *passes* in a run when it has a relevant judgment and a relevant
  result within the first `k` of that run's list — the gate's own pass rule
  (`pages.run_pass_depth`: the run's final list in a pipeline project, the policy's k in a
  runs-only one, else 10), each report by its own rule; it newly fails when it passed in the
  previous report and does not now (and newly passes the other way round). A question without
  a relevant judgment does not pass: one that passed and has no relevant judgment now newly
  fails for that reason (`QuestionChange.judgment`), one that had none before and passes now
  newly passes. Only runs whose lists both Results hold (the variants), only questions both
  hold (one added or removed is listed as such); how many questions have a relevant judgment,
  before and after (`relevant_before`, `relevant_after`).

The comparison is not stored in results.json (a build's results.json describes its own inputs
only, whatever it was compared with); the site shows it and says what it compared with.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from evidencedesk.results._plan import pass_depth, passed, run_pass_depth
from evidencedesk.results.types import CandidateResult, Results

# how far outside its previous interval a mean must lie to count as moved (float noise is not)
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class FileChange:
    """A project file that changed, was added or was removed since the previous report."""

    path: str  # relative to the project
    change: str  # "changed" | "added" | "removed"


@dataclass(frozen=True)
class GradeChange:
    """A label grade that changed since the previous report."""

    question: str
    chunk: str
    before: int | None  # None: not labelled before
    after: int | None  # None: no longer labelled


@dataclass(frozen=True)
class VerdictChange:
    """A candidate whose verdict or gate level changed, or that was added or removed."""

    candidate: str
    before: str | None  # the candidate's verdict (results.verdicts); None: not in that report
    after: str | None
    # the gate level (GO, REVIEW, BLOCK), or "not checked" where the report had no gate policy;
    # None: not in that report
    gate_before: str | None
    gate_after: str | None
    # the config change the candidate tests, (field, value) each, in either report (a
    # candidate in both): another change under the same name is not the same candidate
    change_before: tuple[tuple[str, str], ...] = ()
    change_after: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        """ "added", "removed", "redefined" (another config change under the same name: its
        verdict and gate level are a new candidate's, whether or not they changed), "verdict"
        (the verdict changed, the gate level perhaps too) or "gate" (the gate level alone: the
        same verdict)."""
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        if self.change_before != self.change_after:
            return "redefined"
        return "verdict" if self.before != self.after else "gate"


@dataclass(frozen=True)
class _MetricMove:
    """A run's mean that now lies outside the previous report's 95 % interval."""

    run: str  # a variant's or a candidate's name
    metric: str
    before: float  # the previous mean
    low: float  # the previous 95 % interval
    high: float
    after: float  # this report's mean, outside [low, high]


@dataclass(frozen=True)
class QuestionChange:
    """A question that newly fails (or newly passes), and the runs in which it does."""

    question: str
    runs: tuple[str, ...]  # the runs in which it newly fails (or newly passes)
    # its relevant judgment is why: a newly failing question has none now (it passed before in
    # `runs`), a newly passing one had none before
    judgment: bool = False


@dataclass(frozen=True)
class Since:
    """What changed since a previous report: inputs, labels, verdicts, metrics and questions."""

    previous_version: str  # the evidencedesk version that wrote the previous results
    previous_input_hash: str
    previous_project: str
    same_inputs: bool  # the input hashes are equal
    seed_before: int
    seed_after: int
    k: int  # the pass rule's k for the baseline (`pages.pass_depth`)
    depths: tuple[tuple[str, int], ...]  # each run's k (`pages.run_pass_depth`), this report
    files: tuple[FileChange, ...]
    grades: tuple[GradeChange, ...]
    questions_added: tuple[str, ...]
    questions_removed: tuple[str, ...]
    verdicts: tuple[VerdictChange, ...]  # changed, added or removed candidates only
    metrics: tuple[_MetricMove, ...]
    newly_fail: tuple[QuestionChange, ...]
    newly_pass: tuple[QuestionChange, ...]
    relevant_before: int = 0  # the questions with a relevant judgment in the previous report
    relevant_after: int = 0  # and in this one

    @property
    def changes(self) -> int:
        """How many findings there are (0: nothing changed that the comparison can see)."""
        return sum(map(len, (self.files, self.grades, self.questions_added,
                             self.questions_removed, self.verdicts, self.metrics,
                             self.newly_fail, self.newly_pass)))  # fmt: skip


def _files(previous: Results, current: Results) -> tuple[FileChange, ...]:
    before = {f.path: f.sha256 for f in previous.inputs.files}
    after = {f.path: f.sha256 for f in current.inputs.files}
    out = [FileChange(p, "changed") for p in after if p in before and before[p] != after[p]]
    out += [FileChange(p, "added") for p in after if p not in before]
    out += [FileChange(p, "removed") for p in before if p not in after]
    return tuple(out)


def _grades(previous: Results, current: Results) -> tuple[GradeChange, ...]:
    before = {q.id: q.grades for q in previous.inputs.questions}
    out = []
    for q in current.inputs.questions:
        if q.id not in before:
            continue
        old, new = before[q.id], q.grades
        for chunk in sorted(set(old) | set(new)):
            if old.get(chunk) != new.get(chunk):
                out.append(GradeChange(q.id, chunk, old.get(chunk), new.get(chunk)))
    return tuple(out)


def _tested(c: CandidateResult) -> tuple[tuple[str, str], ...]:
    """The config change a candidate tests: each changed field with the candidate's value."""
    return tuple((d.field, d.candidate) for d in c.diff)


def _verdicts(previous: Results, current: Results) -> tuple[VerdictChange, ...]:
    before = {c.name: c for c in previous.candidates}
    after = {c.name: c for c in current.candidates}
    out = []
    for name in [*after, *(n for n in before if n not in after)]:
        b, a = before.get(name), after.get(name)
        tested = (_tested(b), _tested(a)) if b is not None and a is not None else ((), ())
        change = VerdictChange(
            name,
            None if b is None else b.decision.verdict,
            None if a is None else a.decision.verdict,
            None if b is None else b.gate.word,
            None if a is None else a.gate.word,
            *tested,
        )
        moved = (change.before, change.gate_before) != (change.after, change.gate_after)
        if moved or change.kind == "redefined":
            out.append(change)
    return tuple(out)


_Interval = tuple[float | None, float | None, float | None]  # a metric's (mean, low, high)


def _runs(results: Results) -> Iterator[tuple[str, dict[str, _Interval]]]:
    """(run name, {metric: (mean, low, high)}): every variant, then each candidate that is not
    also a variant (a runs-only project's candidates are its runs)."""
    names = set()
    for v in results.variants:
        names.add(v.name)
        yield v.name, {m.metric: (m.mean, m.low, m.high) for m in v.metrics}
    for c in results.candidates:
        if c.name not in names:
            yield c.name, {m.metric: (m.mean, m.low, m.high) for m in c.metrics}


def _metrics(previous: Results, current: Results) -> tuple[_MetricMove, ...]:
    before = dict(_runs(previous))
    out = []
    for run, stats in _runs(current):
        for metric, (mean, _, _) in stats.items():
            was, low, high = before.get(run, {}).get(metric, (None, None, None))
            if mean is None or was is None or low is None or high is None:
                continue
            if mean < low - _TOLERANCE or mean > high + _TOLERANCE:
                out.append(_MetricMove(run, metric, was, low, high, mean))
    return tuple(out)


def _relevant(results: Results) -> dict[str, bool]:
    """Per question: it has a relevant judgment (a grade at or above the relevance)."""
    return {
        q.id: any(g >= results.settings.relevance for g in q.judgments.values())
        for q in results.inputs.questions
    }


def _outcomes(results: Results, relevant: dict[str, bool]) -> dict[tuple[str, str], bool | None]:
    """(run, question) -> it passes in that variant's list; None: no relevant judgment (it
    does not pass, and cannot). `relevant`: `_relevant(results)`."""
    out = {}
    for v in results.variants:
        k = run_pass_depth(results, v)
        for r in v.lists:
            out[(v.name, r.question)] = passed(r, k, relevant.get(r.question, False))
    return out


def _questions(
    previous: Results,
    current: Results,
    judged_before: dict[str, bool],
    judged_after: dict[str, bool],
) -> tuple[tuple[QuestionChange, ...], tuple[QuestionChange, ...]]:
    """The questions that newly fail and newly pass; `judged_before` and `judged_after`: each
    report's `_relevant`."""
    before, after = _outcomes(previous, judged_before), _outcomes(current, judged_after)
    order = [q.id for q in current.inputs.questions]
    runs = [v.name for v in current.variants]
    fail: dict[str, list[str]] = {}
    win: dict[str, list[str]] = {}
    for run in runs:
        for q in order:
            if (run, q) not in before or (run, q) not in after:
                continue  # a run or a question only one report holds
            if before[(run, q)] is True and after[(run, q)] is not True:
                fail.setdefault(q, []).append(run)
            if before[(run, q)] is not True and after[(run, q)] is True:
                win.setdefault(q, []).append(run)
    return (
        tuple(QuestionChange(q, tuple(fail[q]), not judged_after[q]) for q in order if q in fail),
        tuple(QuestionChange(q, tuple(win[q]), not judged_before.get(q, False)) for q in order
              if q in win),
    )  # fmt: skip


def since(previous: Results, current: Results) -> Since:
    """What changed from `previous` (an earlier build's Results) to `current`."""
    old_ids = [q.id for q in previous.inputs.questions]
    new_ids = [q.id for q in current.inputs.questions]
    judged_before, judged_after = _relevant(previous), _relevant(current)
    fail, win = _questions(previous, current, judged_before, judged_after)
    return Since(
        previous_version=previous.version,
        previous_input_hash=previous.inputs.input_hash,
        previous_project=previous.inputs.project,
        same_inputs=previous.inputs.input_hash == current.inputs.input_hash,
        seed_before=previous.settings.seed,
        seed_after=current.settings.seed,
        k=pass_depth(current),
        depths=tuple((v.name, run_pass_depth(current, v)) for v in current.variants),
        files=_files(previous, current),
        grades=_grades(previous, current),
        questions_added=tuple(q for q in new_ids if q not in set(old_ids)),
        questions_removed=tuple(q for q in old_ids if q not in set(new_ids)),
        verdicts=_verdicts(previous, current),
        metrics=_metrics(previous, current),
        newly_fail=fail,
        newly_pass=win,
        relevant_before=sum(judged_before.values()),
        relevant_after=sum(judged_after.values()),
    )
