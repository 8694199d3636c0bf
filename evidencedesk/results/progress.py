"""What the evaluation tells the caller while it runs: each stage's name, and how many questions
of the stage are judged.

`Progress` is any callable told each stage's name as it starts (a test may pass a lambda). An
object that also has ``step(done, total)`` (`Steps`; the build's `report.console.Progress` is one)
is told "questions judged done / total" during the stages that judge questions: the benchmark
(every variant's or run's questions), the sizing sweep, the ablations and the candidates' runs.
`Tally` counts them and calls ``step`` at most ten times a second, and always at the end, so the
count costs the judging nothing measurable; `Tally.asking` hands a run its labels through a view
that counts each question as it is asked (no change to the retrieval code's loops).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, overload, runtime_checkable

from evidencedesk.retrieval.labels import Label

Progress = Callable[[str], None]  # told each stage's name as it starts


_EVERY = 0.1  # seconds between two `step` calls (the last one is always made)


@runtime_checkable
class Steps(Protocol):
    """A `Progress` that also counts: ``step(done, total)`` questions judged of the stage."""

    def __call__(self, stage: str) -> None: ...

    def step(self, done: int, total: int) -> None: ...


class Tally:
    """Questions judged of one stage, out of `total`, reported to `progress` if it counts."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.step = progress.step if isinstance(progress, Steps) else None
        self.total, self.done, self.last = total, 0, 0.0
        if self.step is not None and total > 0:
            self.step(0, total)

    def add(self, questions: int = 1) -> None:
        """`questions` more are judged."""
        if self.step is None:
            return
        self.done += questions
        now = time.perf_counter()
        if self.done >= self.total or now - self.last >= _EVERY:
            self.last = now
            self.step(self.done, self.total)

    def asking(self, labels: Sequence[Label]) -> Sequence[Label]:
        """`labels` as a run reads them, each question counted once it has been asked."""
        return labels if self.step is None else _Asked(labels, self)


class _Asked(Sequence[Label]):
    """The labels, counting each question when the loop over them moves past it."""

    def __init__(self, labels: Sequence[Label], tally: Tally) -> None:
        self.labels, self.tally = labels, tally

    def __len__(self) -> int:
        return len(self.labels)

    @overload
    def __getitem__(self, index: int) -> Label: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Label]: ...
    def __getitem__(self, index: int | slice) -> Label | Sequence[Label]:
        return self.labels[index]

    def __iter__(self) -> Iterator[Label]:
        for label in self.labels:
            yield label
            self.tally.add()
