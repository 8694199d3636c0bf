"""Progress on long builds: "questions judged n / total" on a terminal, plain stage lines elsewhere,
nothing but the final line with --quiet; and the counts the evaluation reports, stage by stage."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report._assemble import present
from evidencedesk.results import _plan as plan
from evidencedesk.results import _stages as progress_module
from evidencedesk.results._evaluate import evaluate
from evidencedesk.results._inputs import DEMO_PROJECT, load_project
from evidencedesk.results._stages import _COMPARED as COMPARED
from evidencedesk.results._stages import JUDGED, MODELLED, Tally
from evidencedesk.retrieval.labels import Label
from tests.synthetic_runs import write_project


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Recorder:
    """A `Steps` progress: the stages in order, every (done, total) of questions judged told
    during each (`steps`) and every (done, total) of anything else (`counts`, by stage and what)."""

    def __init__(self) -> None:
        self.stages: list[str] = []
        self.steps: dict[str, list[tuple[int, int]]] = {}
        self.counts: dict[tuple[str, str], list[tuple[int, int]]] = {}

    def __call__(self, stage: str) -> None:
        self.stages.append(stage)
        self.steps[stage] = []

    def step(self, done: int, total: int, what: str = JUDGED) -> None:
        if what == JUDGED:
            self.steps[self.stages[-1]].append((done, total))
        else:
            self.counts.setdefault((self.stages[-1], what), []).append((done, total))


@pytest.fixture
def three_questions(tmp_path: Path) -> Path:
    """One run answering three questions (q1 and q2 have a relevant document, q3 only a grade 1)."""
    return write_project(
        tmp_path,
        {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 1}},
        {"base": {"q1": ["d1", "d2"], "q2": ["d1", "d2"], "q3": ["d3"]}},
    )


def _build(project: Path, out: Path, stdout: io.StringIO, *extra: str) -> str:
    assert cli.main(["build", "--project", str(project), "--out", str(out), *extra],
                    stdout=stdout) == 0  # fmt: skip
    return stdout.getvalue()


def test_on_a_terminal_the_line_counts_the_questions_judged(three_questions, tmp_path):
    named, text = _build(three_questions, tmp_path / "site", Terminal()).split("\n", 1)
    assert named == f"project: synthetic ({three_questions})"
    assert "\r\x1b[K  benchmark  questions judged 3 / 3" in text
    assert "\r\x1b[K  render  pages written 10 / 10" in text
    drawn, summary = text.rsplit("\r\x1b[K", 1)
    assert "\n" not in drawn  # one line, redrawn
    assert summary.startswith("wrote 10 pages (")
    assert summary.endswith(f"open {tmp_path / 'site' / 'index.html'}\n")


def test_not_on_a_terminal_one_plain_line_per_stage(three_questions, tmp_path):
    text = _build(three_questions, tmp_path / "site", io.StringIO())
    assert "\r" not in text and "\x1b" not in text and "questions judged" not in text
    named, *lines = text.splitlines()
    assert named == f"project: synthetic ({three_questions})"
    stages = [re.fullmatch(r"  (\S.*?) +\d+\.\d\d s", line) for line in lines[:5]]
    assert [m.group(1) for m in stages if m] == [
        "load inputs", "benchmark", "gate", "site model", "render",
    ]  # fmt: skip
    assert lines[5].startswith("wrote 10 pages (")
    assert lines[6:] == [f"open {tmp_path / 'site' / 'index.html'}"]


@pytest.mark.parametrize("stream", [Terminal, io.StringIO])
def test_quiet_prints_only_the_final_line(three_questions, tmp_path, stream):
    text = _build(three_questions, tmp_path / "site", stream(), "--quiet")
    assert text == f"open {tmp_path / 'site' / 'index.html'}\n"


def test_runs_only_counts_every_runs_questions(tmp_path):
    lists = {"q1": ["d1"], "q2": ["d2"], "q3": ["d9"], "q4": ["d8"]}
    project = write_project(
        tmp_path,
        {"q1": {"d1": 2}, "q2": {"d2": 2}, "q3": {"d3": 2}, "q4": {"d4": 2}},
        {"base": lists, "other": lists, "third": lists},
    )
    seen = Recorder()
    evaluate(load_project(project), 0, (), seen)
    assert seen.stages == ["load inputs", "benchmark", "gate"]
    # 3 runs x 4 questions, told at the start and after each run (at most ten times a second)
    assert seen.steps["benchmark"][0] == (0, 12) and seen.steps["benchmark"][-1] == (12, 12)
    assert seen.steps["load inputs"] == seen.steps["gate"] == []
    # the gate stage compares the two runs that are not the baseline, each counted once done
    assert seen.counts == {("gate", COMPARED): [(0, 2), (1, 2), (2, 2)]}


def test_on_a_terminal_the_gate_counts_its_candidates(tmp_path):
    lists = {"q1": ["d1"], "q2": ["d2"]}
    project = write_project(tmp_path / "p", {"q1": {"d1": 2}, "q2": {"d2": 2}},
                            {"base": lists, "other": lists, "third": lists})  # fmt: skip
    text = _build(project, tmp_path / "site", Terminal())
    assert "\r\x1b[K  benchmark  questions judged 6 / 6" in text
    assert "\r\x1b[K  gate  candidates compared 2 / 2" in text


def test_on_a_terminal_the_site_model_counts_its_question_pages(three_questions, tmp_path):
    text = _build(three_questions, tmp_path / "site", Terminal())
    assert "\r\x1b[K  site model  question pages modelled 3 / 3" in text


def test_the_site_model_counts_only_the_pages_the_plan_keeps(tmp_path, monkeypatch):
    # six questions above a page limit of 4: the two the candidate changes get a page
    qrels = {f"q{i}": {f"d{i}": 2} for i in range(6)}
    base = {f"q{i}": [f"d{i}"] for i in range(6)}
    other = {**base, "q0": ["d9"], "q1": ["d9"]}
    project = write_project(tmp_path / "p", qrels, {"base": base, "other": other})
    monkeypatch.setattr(plan, "PAGE_LIMIT", 4)
    seen = Recorder()
    results = evaluate(load_project(project), 0, (), seen)
    seen("site model")
    model = present(results, None, seen)
    assert [q.id for q in model.questions] == ["q0", "q1"]
    assert seen.counts[("site model", MODELLED)] == [(0, 2), (1, 2), (2, 2)]


def test_the_demo_counts_each_stages_runs_times_its_24_questions():
    seen = Recorder()
    evaluate(load_project(DEMO_PROJECT), 0, (), seen)
    last = {stage: steps[-1] for stage, steps in seen.steps.items() if steps}
    assert last == {
        "benchmark": (192, 192),  # 7 built-in variants + 1 external run
        "sizing sweep": (264, 264),  # 11 depth x final cells with depth >= final
        "ablations": (240, 240),  # the base + 9 single-field changes
        "gate": (120, 120),  # 5 candidates whose config no variant ran
    }
    # then all 10 candidates compared with the baseline (told at most ten times a second)
    compared = seen.counts[("gate", COMPARED)]
    assert compared[0] == (0, 10) and compared[-1] == (10, 10)
    assert [d for d, _ in compared] == sorted(set(d for d, _ in compared))
    assert all(s[0] == (0, s[-1][1]) for s in seen.steps.values() if s)


def _labels(n: int) -> list[Label]:
    return [Label(f"q{i}", f"question {i}", (), True) for i in range(n)]


def test_tally_counts_each_question_once_it_is_asked(monkeypatch):
    monkeypatch.setattr(progress_module, "_EVERY", 0.0)  # every question, not ten a second
    seen = Recorder()
    seen("benchmark")
    tally = Tally(seen, 6)
    asked = tally.asking(_labels(3))
    assert len(asked) == 3 and asked[1].id == "q1"  # indexing counts nothing
    for _ in range(2):  # two runs over the same three questions
        for i, label in enumerate(asked):
            assert seen.steps["benchmark"][-1] == (tally.done, 6) and tally.done % 3 == i
            assert label.id == f"q{i}"
    assert seen.steps["benchmark"] == [(n, 6) for n in range(7)]


def test_tally_is_throttled_but_always_tells_the_end():
    seen = Recorder()
    seen("ablations")
    tally = Tally(seen, 3000)
    for _ in range(3000):
        tally.add()
    assert seen.steps["ablations"][0] == (0, 3000) and seen.steps["ablations"][-1] == (3000, 3000)
    assert len(seen.steps["ablations"]) < 10  # a fast loop is not redrawn per question


def test_a_plain_callable_is_told_stages_only():
    stages: list[str] = []
    labels = _labels(2)
    tally = Tally(stages.append, 2)
    assert tally.asking(labels) is labels  # no counting view, nothing to tell
    tally.add(2)
    assert stages == []


def test_counting_counts_each_item_once_the_loop_moves_past_it(monkeypatch):
    monkeypatch.setattr(progress_module, "_EVERY", 0.0)
    seen = Recorder()
    seen("gate")
    items = Tally(seen, 2, COMPARED).counting({"a": 1, "b": 2})
    assert dict(items) == {"a": 1, "b": 2} and len(items) == 2  # reading counts nothing
    assert seen.counts[("gate", COMPARED)] == [(0, 2)]
    told = []
    for name, value in items.items():
        told.append((name, value, seen.counts[("gate", COMPARED)][-1]))
    assert told == [("a", 1, (0, 2)), ("b", 2, (1, 2))]
    assert seen.counts[("gate", COMPARED)] == [(0, 2), (1, 2), (2, 2)]
    plain = {"a": 1}
    assert Tally([].append, 1, COMPARED).counting(plain) is plain  # nothing to tell
