"""What the evaluation tells the caller while it runs: each stage's name, and how far it is.

`Progress` is any callable told each stage's name as it starts (a test may pass a lambda). An
object that also has ``step(done, total, what)`` (`Steps`; the build's `cli.console` progress is
one) is told "questions judged done / total" during the stages that judge questions: the
benchmark (every variant's or run's questions), the sizing sweep, the ablations and the
candidates' runs; and "candidates compared done / total" in the gate stage, whose paired
statistics take most of its time. `Tally` counts and calls ``step`` at most ten times a second,
and always at the end, so the count costs the work nothing measurable; `Tally.asking` hands a run
its labels through a view that counts each question as it is asked, `Tally.counting` the
candidates through a mapping that counts each one as the loop over its items moves past it (no
change to the loops that do the work).
"""

from __future__ import annotations

import time
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar, overload, runtime_checkable

from evidencedesk.retrieval.labels import Label

Progress = Callable[[str], None]  # told each stage's name as it starts


_EVERY = 0.1  # seconds between two `step` calls (the last one is always made)
JUDGED = "questions judged"  # what a stage that judges questions counts
COMPARED = "candidates compared"  # what the gate stage counts once its candidates have run

_K = TypeVar("_K")
_V = TypeVar("_V")


@runtime_checkable
class Steps(Protocol):
    """A `Progress` that also counts: ``step(done, total, what)``, `what` (`JUDGED`, `COMPARED`)
    of the stage done."""

    def __call__(self, stage: str) -> None: ...

    def step(self, done: int, total: int, what: str = JUDGED) -> None: ...


class Tally:
    """`what` of one stage done, out of `total`, reported to `progress` if it counts."""

    def __init__(self, progress: Progress, total: int, what: str = JUDGED) -> None:
        self.step = progress.step if isinstance(progress, Steps) else None
        self.total, self.done, self.last, self.what = total, 0, 0.0, what
        if self.step is not None and total > 0:
            self.step(0, total, what)

    def add(self, count: int = 1) -> None:
        """`count` more are done."""
        if self.step is None:
            return
        self.done += count
        now = time.perf_counter()
        if self.done >= self.total or now - self.last >= _EVERY:
            self.last = now
            self.step(self.done, self.total, self.what)

    def counting(self, items: Mapping[_K, _V]) -> Mapping[_K, _V]:
        """`items`, each counted once the loop over ``.items()`` has moved past it."""
        return items if self.step is None else _Counted(items, self)

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


class _Counted(Mapping[_K, _V]):
    """A mapping whose ``items()`` counts each item when the loop over them moves past it."""

    def __init__(self, items: Mapping[_K, _V], tally: Tally) -> None:
        self.data, self.tally = items, tally

    def __getitem__(self, key: _K) -> _V:
        return self.data[key]

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[_K]:
        return iter(self.data)

    def items(self) -> ItemsView[_K, _V]:
        return _CountedItems(self)


class _CountedItems(ItemsView[_K, _V]):
    def __init__(self, counted: _Counted[_K, _V]) -> None:
        super().__init__(counted)
        self.counted = counted

    def __iter__(self) -> Iterator[tuple[_K, _V]]:
        for item in self.counted.data.items():
            yield item
            self.counted.tally.add()
