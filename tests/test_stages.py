"""The evaluation's stages are a declared list: `evaluate` walks it in order, announcing each by
name and handing each the outputs of the earlier stages it declares it needs, so adding a stage
is its function and one line in the list (docs/architecture.md, "Adding an evaluation stage")."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.results._evaluate import RUNS_ONLY_STAGES, STAGES, evaluation
from evidencedesk.results._inputs import DEMO_PROJECT, load_project
from evidencedesk.results._serialize import QuestionRows, question_exports
from evidencedesk.results._stages import Benchmark, Evaluating, Stage, walk
from tests.project_fixtures import make_runs_only_project


def test_the_pipeline_and_runs_only_lists_name_the_progress_lines() -> None:
    assert [s.name for s in STAGES] == [
        "benchmark", "sizing sweep", "ablations", "citation cases", "evidence checks", "gate",
    ]  # fmt: skip
    assert [s.name for s in RUNS_ONLY_STAGES] == ["benchmark", "gate"]


def test_a_stage_added_to_a_copy_of_the_list_runs_in_order_with_what_it_needs() -> None:
    handed: list[tuple[str, int, int]] = []

    def questions_per_row(evaluating: Evaluating, benchmark: Benchmark,
                          sizing_sweep: tuple[object, ...]) -> int:  # fmt: skip
        handed.append(
            (benchmark.variants[0].name, len(sizing_sweep), len(evaluating.inputs.labels))
        )
        return len(evaluating.inputs.labels) // len(sizing_sweep)

    added = Stage("questions per row", questions_per_row, ("benchmark", "sizing sweep"))
    stages = (*STAGES[:2], added)
    announced: list[str] = []
    found = evaluation(load_project(DEMO_PROJECT), 0, (), announced.append, stages=stages)
    assert announced == ["load inputs", "benchmark", "sizing sweep", "questions per row"]
    assert handed == [("sparse", 11, 24)]
    assert found.results.sizing is not None and len(found.results.sizing) == 11
    assert found.results.candidates == () and found.results.ablations is None


def test_a_stage_that_needs_a_later_one_is_refused_before_any_runs() -> None:
    ran: list[str] = []
    first = Stage("first", lambda evaluating, second: ran.append("first"), ("second",))
    second = Stage("second", lambda evaluating: ran.append("second"))
    with pytest.raises(ValueError, match=r"stage 'first' needs \['second'\], not walked before"):
        walk((first, second), None)  # type: ignore[arg-type]
    assert ran == []


@pytest.mark.parametrize("kind", ["pipeline", "runs"])
def test_the_rows_handed_after_the_benchmark_are_the_results_rows(
    kind: str, tmp_path: Path
) -> None:
    """`on_rows` is handed the per-question rows once, right after the benchmark stage, before
    the gate; their exports are those of the finished Results' rows, byte for byte (a runs-only
    project's lists gain the ids their pages show at the end, never a value)."""
    project = DEMO_PROJECT if kind == "pipeline" else make_runs_only_project(tmp_path)
    events: list[object] = []
    found = evaluation(load_project(project), 0, (), events.append, on_rows=events.append)
    rows = [e for e in events if isinstance(e, QuestionRows)]
    assert len(rows) == 1 and events.index(rows[0]) == events.index("benchmark") + 1
    assert events.index("gate") > events.index(rows[0])
    assert question_exports(rows[0]) == question_exports(QuestionRows.of(found.results))
    assert rows[0].metrics == tuple(m.name for m in found.results.settings.metrics)
    # the demo's 24 labels; the runs-only project's 50 queries less the one with no judgment
    assert len(rows[0].questions) == (24 if kind == "pipeline" else 49)
