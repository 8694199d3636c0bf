"""Helpers of the large-project path: the input hashes computed in the background, the paused
garbage collector, and results.json's data built with sorted keys (the bytes the generic
dataclass walk and ``json.dumps(sort_keys=True)`` gave before)."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import math
import os
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evidencedesk.cli._process import paused_collector
from evidencedesk.errors import EvidencedeskError
from evidencedesk.results import _serialize as serialize
from evidencedesk.results._inputs import (
    DEMO_PROJECT,
    Hashing,
    _hashed_files,
    load_project,
)
from evidencedesk.results.types import QuestionFact, RankedList
from evidencedesk.retrieval import _stats as stats
from evidencedesk.retrieval._coverage import coverage
from tests.project_fixtures import make_runs_only_project


def _sha256s(project: Any) -> tuple[tuple[str, str], ...]:
    """Each input file's sha256 as hashlib gives it at once (the reference)."""
    return tuple((rel, hashlib.sha256(path.read_bytes()).hexdigest())
                 for rel, path in _hashed_files(project, project.input_files(), ()))  # fmt: skip


@pytest.mark.parametrize("background", [True, False])
def test_the_hashes_are_each_input_files_sha256(tmp_path: Path, background: bool) -> None:
    project = load_project(make_runs_only_project(tmp_path, questions=5, runs=2))
    files, digest = Hashing(_hashed_files(project, project.input_files(), ()), background).result()
    assert [(f.path, f.sha256) for f in files] == list(_sha256s(project))
    assert [f.path for f in files] == ["evidencedesk.toml", "queries.jsonl", "qrels.txt",
                                       "runs/base.run", "runs/better.run"]  # fmt: skip
    joined = "\n".join(f"{f.path} {f.sha256}" for f in files)
    assert digest == hashlib.sha256(joined.encode()).hexdigest()[:16]


def test_hashing_goes_block_by_block_and_the_result_takes_over_what_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evidencedesk.results import _inputs as inputs

    monkeypatch.setattr(inputs, "_HASH_BLOCK", 7)  # 100 bytes: 15 blocks
    (tmp_path / "run.txt").write_bytes(bytes(range(100)))
    (tmp_path / "empty.txt").write_bytes(b"")
    files = [("run.txt", tmp_path / "run.txt"), ("gone.txt", tmp_path / "gone.txt"),
             ("empty.txt", tmp_path / "empty.txt")]  # fmt: skip
    hashing = Hashing(files, background=False)
    hashing._may_run.clear()  # (as `held` does where the thread is not at the lowest priority)
    hashing._thread.start()  # the background thread waits before its first block
    hashing._thread.join(timeout=0.2)
    assert hashing._thread.is_alive() and hashing._found == []
    found, _ = hashing.result()  # the calling thread hashes every block itself
    assert [(f.path, f.sha256) for f in found] == [
        ("run.txt", hashlib.sha256(bytes(range(100))).hexdigest()),
        ("empty.txt", hashlib.sha256(b"").hexdigest()),
    ]  # (a file gone is left out)
    hashing._thread.join(timeout=5)
    assert not hashing._thread.is_alive()  # it found the turn taken and stopped


@pytest.mark.skipif(sys.platform != "linux", reason="a thread's own priority is Linux's")
def test_the_background_thread_hashes_at_the_lowest_priority_and_is_never_held(
    tmp_path: Path,
) -> None:
    from evidencedesk.results import _inputs as inputs

    seen: list[int] = []
    lowered = inputs._lowest_priority

    def lowest() -> bool:
        done = lowered()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return done

    project = load_project(make_runs_only_project(tmp_path, questions=5, runs=2))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inputs, "_lowest_priority", lowest)
        hashing = Hashing(_hashed_files(project, project.input_files(), ()))
        hashing._thread.join()
    assert seen == [19] and hashing._idle
    with hashing.held():
        assert hashing._may_run.is_set()  # idle CPU only: nothing to hold
    assert [(f.path, f.sha256) for f in hashing.result()[0]] == list(_sha256s(project))


def test_each_run_is_read_with_the_hashing_held_where_it_is_not_at_the_lowest_priority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evidencedesk.results import _inputs as inputs

    monkeypatch.setattr(inputs, "_lowest_priority", lambda: False)  # (as off Linux)
    project = load_project(make_runs_only_project(tmp_path, questions=5, runs=2))
    hashing = Hashing(_hashed_files(project, project.input_files(), ()))
    events: list[str] = []
    real_read = inputs.read_run

    def read(path: Path) -> object:
        events.append(f"read, hashing may run: {hashing._may_run.is_set()}")
        return real_read(path)

    monkeypatch.setattr(inputs, "read_run", read)
    inputs.judged_external_runs(
        project.runs, lambda run: events.append("judge") or ([], None),
        lambda name, run, path: events.append("check") or coverage(run, {}, 10), hashing.held,
    )  # fmt: skip
    assert events == ["read, hashing may run: False", "check", "judge"] * 2
    assert hashing._may_run.is_set()
    assert [(f.path, f.sha256) for f in hashing.result()[0]] == list(_sha256s(project))


def test_each_run_is_let_go_before_the_next_is_read(tmp_path: Path) -> None:
    import weakref

    from evidencedesk.results._evaluate import evaluate

    project = load_project(make_runs_only_project(tmp_path, questions=5, runs=3))
    events: list[str] = []
    read: list[weakref.ref[object]] = []

    class Progress:  # a `LetsGo`, as the command line's --tune trim is
        def __call__(self, stage: str) -> None:
            events.append(stage)

        def let_go(self) -> None:
            events.append(f"let go, runs alive: {sum(r() is not None for r in read)}")

    with pytest.MonkeyPatch.context() as patch:
        from evidencedesk.results import _inputs as inputs

        real_read = inputs.read_run

        def reading(path: Path) -> object:
            run = real_read(path)
            read.append(weakref.ref(run))
            return run

        patch.setattr(inputs, "read_run", reading)
        evaluate(project, 0, (), Progress())
    assert len(read) == 3
    assert [e for e in events if e.startswith("let go")] == ["let go, runs alive: 0"] * 3


@pytest.mark.parametrize("background", [True, False])
def test_a_hashing_error_is_raised_where_the_result_is_asked(
    tmp_path: Path, background: bool
) -> None:
    project = load_project(make_runs_only_project(tmp_path, questions=5, runs=1))
    files = _hashed_files(project, project.input_files(), ())
    real_open = Path.open

    def refused(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name == "base.run":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    hashing = Hashing(files, background=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "open", refused)
        if background:  # the thread meets it and stops; the result raises it
            hashing._thread.start()
            hashing._thread.join()
            assert isinstance(hashing._error, PermissionError)
        with pytest.raises(PermissionError, match="Permission denied"):
            hashing.result()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_library_leaves_the_collector_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    """Switching the collector is the command line's choice (`cli.process`), never evaluate's."""
    from evidencedesk.results import _evaluate as evaluate

    seen: list[bool] = []

    def stages(*args: object) -> SimpleNamespace:
        seen.append(gc.isenabled())
        return SimpleNamespace(results="results")

    monkeypatch.setattr(evaluate, "_evaluate", stages)
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert evaluate.evaluate(None, 0, (), print) == "results"  # type: ignore[arg-type]
        assert seen == [enabled] and gc.isenabled() is enabled
    finally:
        (gc.enable if before else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_paused_collector_is_restored(enabled: bool) -> None:
    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with paused_collector():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(ZeroDivisionError), paused_collector():
            1 / 0  # noqa: B018 - the block fails
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if before else gc.disable)()


def _walk(value: Any) -> Any:
    """The generic walk `serialize.plain` replaced (field order; json.dumps sorted the keys)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _walk(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_walk(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _walk(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize(
    "value",
    [
        RankedList("q1", ("d2", "d1"), (0, 2), 40, 2, {"mrr": 0.5, "recall@10": None, "a": 1}),
        QuestionFact("q1", "why?", ("b", "a"), True, {"d2": 1, "d1": 3}, {"d1": 3}),
        {"z": (1, 2.5), "a": [RankedList("q", (), (), 0, None, {})]},
    ],
)
def test_plain_gives_the_generic_walks_json_with_sorted_keys(value: Any) -> None:
    fast = serialize.plain(value)
    assert json.dumps(fast) == json.dumps(_walk(value), sort_keys=True)


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_plain_refuses_a_number_json_cannot_hold(bad: float) -> None:
    with pytest.raises(ValueError, match="expected a finite number in the results, found"):
        serialize.plain(RankedList("q1", (), (), 0, None, {"mrr": bad}))


def test_a_runs_values_are_made_once_a_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's variant, its comparisons and its Judged@k read the same values of its judge's
    lists: within a build each metric's values of a run are made once (the memo "metric
    values"), and they are the values made afresh outside it."""
    from evidencedesk.results._evaluate import evaluate
    from evidencedesk.retrieval import metrics
    from evidencedesk.retrieval._memos import build_memos
    from evidencedesk.retrieval._metric_engine import JudgedLists

    made: list[tuple[int, str, str]] = []
    lists: list[Any] = []
    real = metrics._values_of

    def values_of(lines: Any, name: Any, averaging: str = "defined") -> Any:
        made.append((id(lines), str(name), averaging))
        lists.append(lines)  # held: their identities stay theirs until the test ends
        return real(lines, name, averaging)

    monkeypatch.setattr(metrics, "_values_of", values_of)
    project = load_project(make_runs_only_project(tmp_path, questions=6, runs=3))
    evaluate(project, 0, (), lambda stage: None)
    assert made and len(made) == len(set(made))  # each run's metric once
    # q1 returns a relevant result at rank 2 (of one), q2 at rank 1
    judged = JudgedLists([metrics.Judged("q1", (), True, (0, 2), (2,), ("a", "b")),
                          metrics.Judged("q2", (), True, (2,), (2,), ("c",))])  # fmt: skip
    with build_memos():
        first = metrics._of_judged(judged, ["mrr", "recall@1"])
        again = metrics._of_judged(judged, ["recall@1"])
    assert again["recall@1"] is first["recall@1"]  # read, not made again
    fresh = metrics._of_judged(judged, ["mrr", "recall@1"])  # outside a build: made afresh
    assert fresh["mrr"] is not first["mrr"]
    assert first == fresh == {"mrr": [0.5, 1.0], "recall@1": [0.0, 1.0]}


def test_an_evaluation_s_memos_end_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bootstrap's draws (up to 768 MB), the token memos, the pure scorers' scores and the
    toy embedder's buckets, the metric engine's judged-lines conversions and a judge's lists'
    metric values, the judged ids the judge and the run checks share, and each run's top ids as
    both checks look them up are the build's, not the process's: held by the one `Memos` the
    evaluation opens, and dropped once `evaluate` returns, or fails."""
    from evidencedesk.results._evaluate import evaluate
    from evidencedesk.retrieval import _memos as memos

    opened: dict[int, memos.Memos] = {}
    tables: set[str] = set()
    real = memos.Memos.table

    def table(self: memos.Memos, name: str, make: Any) -> Any:
        opened[id(self)] = self
        tables.add(name)
        return real(self, name, make)

    monkeypatch.setattr(memos.Memos, "table", table)
    evaluate(load_project(DEMO_PROJECT), 0, (), lambda stage: None)
    assert len(opened) == 1  # one object holds every memo of the build
    assert tables == {"draws", "feature buckets", "judged id arrays", "judged ids",
                      "judged lines", "metric values", "pair scores", "pair scores by pair",
                      "token counts", "tokens", "top judged ids", "word sets"}  # fmt: skip
    assert [m.names() for m in opened.values()] == [()]  # dropped when the build ended
    assert memos._SCOPE.get() is None
    assert stats.draws(40, 0, 100) is not stats.draws(40, 0, 100)  # outside a build: no memo
    broken = load_project(make_runs_only_project(tmp_path / "broken"))
    next(broken.root.glob("runs/*")).write_text("not a run\n")
    with pytest.raises(EvidencedeskError):
        evaluate(broken, 0, (), lambda stage: None)
    assert memos._SCOPE.get() is None  # closed with the failed build too


def test_a_build_keeps_each_memo_in_its_own_table() -> None:
    from evidencedesk.retrieval._memos import build_memos
    from evidencedesk.retrieval._tokens import tokenize

    with build_memos() as memos:
        kept = stats.draws(40, 0, 100)
        assert stats.draws(40, 0, 100) is kept
        tokenize("RD2-24 valve")
        with build_memos() as inner:  # a build inside a build keeps one set
            assert inner is memos
        assert memos.names() == ("draws", "tokens")
    assert memos.names() == ()
