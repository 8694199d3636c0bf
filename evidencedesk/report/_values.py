"""How a number becomes text on the site: one rounding rule, and the jinja filters that apply it.

The filters (`FILTERS`: ``num``, ``p``, ``interval``, ``flips``) are registered once, in the
renderer's environment (`report.render.environment`); a template hands them the Results row's
own numbers, so a page model holds the row and never a copy of its numbers as text. They are the
one choke point where a number turns into the page's text (a later change can record each one).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from evidencedesk.results.types import MetricStat
from evidencedesk.retrieval import minilm

# a p-value's text: the rule's one home is the statistics (the gate's lines read it too)
from evidencedesk.retrieval._stats import p_text

_DASH = "—"  # what an undefined number shows


class Plain:
    """A site-model object, with a JSON-ready view of itself (`to_dict`)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = dataclasses.asdict(self)  # type: ignore[call-overload]
        return data


def fmt(value: float | None, digits: int = 3, signed: bool = False) -> str:
    """The one rounding rule: fixed decimals, a true minus sign, an em dash for undefined."""
    if value is None:
        return _DASH
    text = f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    return text.replace("-", "−")


# the shades of the flips tables (report.render): a metric's change (a reciprocal rank from 1 to
# 0.5 is dark) and the net share of the compared questions that flipped one way
DELTA_STEPS = (0.25, 0.5)
# the shade steps of a flip count: the net share of the compared questions that flipped one way
FLIP_STEPS = (0.15, 0.3)


@dataclass(frozen=True)
class Stat(Plain):
    """A Results mean with its 95 % interval (`row`) under the label the site gives its metric."""

    name: str
    row: MetricStat

    @property
    def value(self) -> float | None:
        return self.row.mean

    @property
    def low(self) -> float | None:
        return self.row.low

    @property
    def high(self) -> float | None:
        return self.row.high

    @property
    def n(self) -> int:
        """Questions that define the metric."""
        return self.row.n

    @property
    def left_out(self) -> int:
        """Questions where it is undefined (excluded from the mean)."""
        return self.row.left_out


def flips_text(better: int, worse: int) -> str:
    """The one "+b/−w" flips formatter."""
    return f"+{better}/−{worse}"


def number(value: float | None, digits: int = 3, signed: bool = False) -> str:
    """The ``num`` filter: a number's text by the one rounding rule (`fmt`)."""
    return fmt(value, digits, signed)


def p_value(value: float | None) -> str:
    """The ``p`` filter: a p-value's text ("0.062", "< 0.001", "—" when undefined)."""
    return _DASH if value is None else p_text(value)


def interval(value: Any, digits: int = 3, signed: bool = False) -> str:
    """The ``interval`` filter: "[low, high]" of a row with ``low`` and ``high`` (a
    `MetricStat`, a `Comparison`, ...) or of a (low, high) pair; "—" when either is undefined."""
    low, high = value if isinstance(value, tuple) else (value.low, value.high)
    if low is None or high is None:
        return _DASH
    return f"[{fmt(low, digits, signed)}, {fmt(high, digits, signed)}]"


def _count(side: int | tuple[str, ...]) -> int:
    return side if isinstance(side, int) else len(side)


def flips(value: Any) -> str:
    """The ``flips`` filter: "+b/−w" of a row with ``better`` and ``worse`` (question ids or
    counts)."""
    return flips_text(_count(value.better), _count(value.worse))


# the jinja filters that turn a number into the page's text (report.render.environment)
FILTERS = {"num": number, "p": p_value, "interval": interval, "flips": flips}


# config values as a reader says them (a diff shows no Python literals)
_WORDS = {
    ("first_stage", "minilm"): f"minilm ({minilm._DESCRIPTION})",
    ("reranker", "minilm"): f"minilm ({minilm._DESCRIPTION})",
    ("max_words", "None"): "whole chunk (no cut)",
    ("prefilter", "True"): "yes: filter before ranking",
    ("prefilter", "False"): "no: filter after ranking",
}


def config_word(field: str, value: str) -> str:
    """A config value as a reader says it ("whole chunk (no cut)", "yes", "not set")."""
    if (field, value) in _WORDS:
        return _WORDS[field, value]
    return {"None": "not set", "True": "yes", "False": "no"}.get(value, value)
