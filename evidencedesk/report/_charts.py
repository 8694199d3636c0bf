"""Plotly figures as HTML fragments: deterministic, offline, colour-blind-safe.

Each figure is written as plotly.js reads it -- its traces and layout as plain data, in the
order of keys plotly's own figure objects give them -- and serialised as plotly's ``json``
engine writes it (`_plotly_json`), so a page holds what ``go.Figure(...).to_html`` would write,
without building the validated figure objects or importing the plotly package (0.1 s of every
build's start). It is always that engine's writing: plotly's ``auto`` choice would switch to
orjson wherever that happens to be installed, and the same project would get other bytes (a
literal ``−`` for ``\u2212``). ``tests/test_charts.py`` holds every chart kind to plotly's own
figure: the same bytes, and every property one plotly knows. Each fragment has
a fixed ``div_id`` derived from the chart name (plotly's default is a random uuid, which would
break byte-identical builds), loads no plotly.js (the page loads the shared local copy) and uses
the blue–orange palette: blue = better, orange = worse. Text from data is HTML-escaped before it
reaches plotly, which would otherwise interpret a few tags in labels. Every chart is followed on
its page by a table of the same numbers.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from evidencedesk.report._model import (
    AblationSection,
    CandidatePage,
    FlipMatrix,
    MetricPair,
    SizingSection,
    Variant,
)
from evidencedesk.report._site import slug
from evidencedesk.report._values import interval, number, p_value
from evidencedesk.results.types import SizingRow

_BLUE = "#2166ac"  # the colour of better changes and of the built-in variants
_ORANGE = "#b35806"  # the colour of worse changes
_GREY = "#6b7280"  # the colour of no change and of TREC runs
_INK = "#1f2937"  # the colour of the charts' text and zero lines
# plotly's options for every chart: no logo, resized with the page
_CONFIG = {"displaylogo": False, "responsive": True}
# the charts' font: the system fonts the stylesheet uses
_FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


# the layout plotly gives ``template="none"``
_TEMPLATE = {"data": {"scatter": [{"type": "scatter"}]}}
_GRID = "#e5e7eb"  # the axes' grid lines
# a figure's HTML as plotly's ``to_html(full_html=False, include_plotlyjs=False)`` writes it
_FRAGMENT = (
    '<div style="height:{height}; width:100%;">                            <div id="{id}" '
    'class="plotly-graph-div" style="height:100%; width:100%;"></div>            <script>  '
    "              window.PLOTLYENV=window.PLOTLYENV || {{}};                                "
    'if (document.getElementById("{id}")) {{                    Plotly.newPlot(            '
    '            "{id}",                        {data},                        {layout},     '
    "                   {config}                    )                }};            </script>"
    "        </div>"
)


def _layout(height: int, x_title: str, y_title: str = "", *, shapes: list[Any] | None = None,
            margin: dict[str, int] | None = None) -> dict[str, Any]:  # fmt: skip
    """The layout every chart starts from: `shapes` (a zero line) first when given, as plotly
    places a shape added before the layout is set."""
    return {
        "template": _TEMPLATE,
        **({"shapes": shapes} if shapes else {}),
        # labels size their own margin (automargin), so a phone keeps the plot's width
        "margin": margin or {"l": 10, "r": 40, "t": 30, "b": 60},
        "font": {"family": _FONT, "size": 13, "color": _INK},
        "hoverlabel": {"font": {"family": _FONT}},
        "height": height,
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "showlegend": False,
        # axis titles short and a size smaller: a phone's plot is a third of a laptop's
        "xaxis": _x_axis(x_title),
        "yaxis": _y_axis(y_title),
    }


def _x_axis(title: str) -> dict[str, Any]:
    return {"title": {"font": {"size": 12}, "text": title}, "gridcolor": _GRID,
            "zerolinecolor": "#9ca3af", "automargin": True}  # fmt: skip


def _y_axis(title: str) -> dict[str, Any]:
    return {"title": {"text": title}, "gridcolor": _GRID, "automargin": True}


def _zero_line(dash: bool) -> dict[str, Any]:
    """A vertical line at x = 0 across the plot (plotly's ``add_vline(x=0)``)."""
    line = {"color": _INK, "dash": "dash", "width": 1} if dash else {"color": _INK, "width": 1}
    return {"line": line, "type": "line", "x0": 0, "x1": 0, "xref": "x", "y0": 0, "y1": 1,
            "yref": "y domain"}  # fmt: skip


# what plotly's ``json`` engine writes in place of the characters that could end a script
_SCRIPT_SAFE = (("<", "\\u003c"), (">", "\\u003e"), ("/", "\\u002f"))


def _plotly_json(value: Any) -> str:
    """`value` as plotly's ``json`` engine writes it (``plotly.io.json.to_json_plotly(value,
    engine="json")``): compact, ASCII, a NaN or an infinity as ``null``, ``<``, ``>`` and ``/``
    as escapes (a label cannot end the script), an array-like (a numpy number) as its list."""
    text = json.dumps(value, separators=(",", ":"), default=_as_list)
    if "NaN" in text or "Infinity" in text:  # (a label may hold the word: then nothing changes)
        text = json.dumps(json.loads(text, parse_constant=lambda _: None), separators=(",", ":"))
    for unsafe, escaped in _SCRIPT_SAFE:
        text = text.replace(unsafe, escaped)
    return text


def _as_list(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _to_fragment(data: list[dict[str, Any]], layout: dict[str, Any], name: str) -> str:
    """The figure as a ``<div>`` + inline script with the fixed id ``chart-<slug>``."""
    text = _FRAGMENT.format(
        height=f"{layout['height']}px",
        id=f"chart-{slug(name)}",
        data=_plotly_json(data),
        layout=_plotly_json(layout),
        config=json.dumps(_CONFIG),
    )
    return re.sub(r">\s+<", "><", text.strip())


def _height(rows: int) -> int:
    return max(220, min(640, 90 + 34 * rows))


def interval_chart(variants: Sequence[Variant], metric_index: int, name: str) -> str:
    """Each variant's metric mean with its 95 % bootstrap interval."""
    shown = [v for v in variants if metric_index < len(v.metrics)]
    stats = [v.metrics[metric_index] for v in shown]
    label = stats[0].name if stats else "metric"
    trace = {
        "customdata": [[number(s.value), interval(s), s.n] for s in stats],
        "error_x": _error_bars(stats),
        "hovertemplate": "%{y}: %{customdata[0]} %{customdata[1]}, n=%{customdata[2]}<extra></extra>",
        "marker": {"color": [_GREY if v.kind == "external" else _BLUE for v in shown], "size": 10},
        "mode": "markers",
        "x": [s.value for s in stats],
        "y": [_esc(v.name) for v in shown],
        "type": "scatter",
    }
    layout = _layout(_height(len(shown)), f"{_esc(label)}, mean (95 % interval)")
    layout["yaxis"]["autorange"] = "reversed"
    return _to_fragment([trace], layout, name)


def forest_chart(candidates: Sequence[CandidatePage], metric_index: int, name: str) -> str:
    """Per candidate, the paired difference from the baseline with its interval and a zero line."""
    shown = [c for c in candidates if metric_index < len(c.metrics)]
    deltas = [_delta(c.metrics[metric_index]) for c in shown]
    label = deltas[0].name if deltas else "Δ"
    return _forest([_esc(c.name) for c in shown], deltas, label, name)


def metric_forest(candidate: CandidatePage, name: str) -> str:
    """One candidate's paired differences on every metric."""
    deltas = [_delta(m) for m in candidate.metrics]
    return _forest([_esc(d.name) for d in deltas], deltas, "difference", name)


class _Point(Protocol):
    """A value with its 95 % interval: a `Stat`, or a paired difference (`_Delta`)."""

    @property
    def value(self) -> float | None: ...

    @property
    def low(self) -> float | None: ...

    @property
    def high(self) -> float | None: ...


@dataclass(frozen=True)
class _Delta:
    """A paired difference as the charts draw it (a `Comparison`'s, an ablation's)."""

    name: str
    value: float | None
    low: float | None
    high: float | None


def _delta(m: MetricPair) -> _Delta:
    c = m.row
    return _Delta(f"Δ {m.label}", c.delta, c.low, c.high)


def _error_bars(stats: Sequence[_Point]) -> dict[str, object]:
    """Asymmetric x error bars from each point's interval (none where it is undefined)."""
    return {
        "array": [None if s.high is None or s.value is None else s.high - s.value for s in stats],
        "arrayminus": [
            None if s.low is None or s.value is None else s.value - s.low for s in stats
        ],
        "color": _INK,
        "symmetric": False,
        "thickness": 1.5,
        "type": "data",
    }


def _forest(labels: list[str], deltas: list[_Delta], label: str, name: str) -> str:
    # blue = better, orange = worse (colour-blind safe), grey = no change
    colours = [
        _BLUE if (d.value or 0) > 0 else _ORANGE if (d.value or 0) < 0 else _GREY for d in deltas
    ]
    trace = {
        "customdata": [[number(d.value, signed=True), interval(d, signed=True)] for d in deltas],
        "error_x": _error_bars(deltas),
        "hovertemplate": "%{y}: %{customdata[0]} %{customdata[1]}<extra></extra>",
        "marker": {"color": colours, "size": 10, "symbol": "diamond"},
        "mode": "markers",
        "x": [d.value for d in deltas],
        "y": labels,
        "type": "scatter",
    }
    layout = _layout(
        _height(len(labels)),
        f"{_esc(label)}: candidate − baseline<br>(paired 95 % interval)",
        shapes=[_zero_line(dash=True)],
    )
    layout["yaxis"]["autorange"] = "reversed"
    return _to_fragment([trace], layout, name)


def flip_bars(matrix: FlipMatrix, name: str) -> str:
    """Each variant and candidate against the baseline: questions it wins (blue, right of zero)
    and loses (orange, left), one row each; ★ marks a Holm-significant row."""
    # a run that is also a candidate (runs-only projects) is shown once, as the candidate
    candidates = {x.run for x in matrix.candidates}
    lines = [x for x in matrix.pairs if x.against == matrix.baseline and x.run not in candidates]
    lines += list(matrix.candidates)
    labels = [_esc(f"{x.run} ★" if x.cell.significant else x.run) for x in lines]
    flips = [x.cell.row for x in lines]
    hover = [[x.kind, x.cell.text, p_value(None if f is None else f.p),
              p_value(None if f is None else f.holm_p)]
             for x, f in zip(lines, flips, strict=True)]  # fmt: skip
    template = (
        "%{y} (%{customdata[0]}): %{customdata[1]}, sign-test p=%{customdata[2]},"
        " Holm p=%{customdata[3]}<extra></extra>"
    )

    def side(counts: list[int], name: str, color: str, sign: str) -> dict[str, Any]:
        # the count sits outside its bar, never clipped by the axis ("+33" stays "+33")
        return {"cliponaxis": False, "customdata": hover, "hovertemplate": template,
                "marker": {"color": color}, "name": name, "orientation": "h",
                "text": [f"{sign}{abs(n)}" if n else "" for n in counts],
                "textposition": "outside", "x": counts, "y": labels, "type": "bar"}  # fmt: skip

    data = [
        side([x.cell.better for x in lines], "better", _BLUE, "+"),
        side([-x.cell.worse for x in lines], "worse", _ORANGE, "−"),
    ]
    bound = max([max(x.cell.better, x.cell.worse) for x in lines] + [1])
    # short, so that a phone's narrow plot does not cut it: the caption says the rest
    layout = _layout(_height(len(lines)), "questions: ← worse · better →")
    # room beyond the longest bar for its label, also on a phone's narrow plot: a quarter of
    # the longest bar and 1.5 questions more
    pad = 1.5 + 0.25 * bound
    layout["xaxis"].update(range=[-bound - pad, bound + pad], zeroline=True)
    layout["yaxis"]["autorange"] = "reversed"
    layout["barmode"] = "relative"
    return _to_fragment(data, layout, name)


def _depth_tick(r: SizingRow) -> str:
    """ "depth 10<br>10 pairs · 19 ms": the x axis carries the cost of each depth."""
    pairs_, latency_ = r.costs.pairs_per_question, r.costs.latency_ms
    pairs = "" if pairs_ is None else f"<br>{pairs_:g} pair{'' if pairs_ == 1 else 's'}"
    latency = "" if latency_ is None else f" · {latency_:g} ms"
    return f"depth {r.depth}{pairs}{latency}"


def sizing_chart(sizing: SizingSection, name: str) -> str:
    """MRR (the metric the marked setting is chosen on) with its interval and tokens per question,
    per depth (scored pairs and hypothetical latency under each depth) and final size."""
    rows = sizing.rows
    depths = sorted({r.depth for r in rows})
    finals = sorted({r.final for r in rows})
    first = {d: next(r for r in rows if r.depth == d) for d in depths}
    ticks = {d: _depth_tick(first[d]) for d in depths}
    palette = [_GREY, _BLUE, _ORANGE, _INK, "#67a9cf", "#f1a340"]
    symbols = ["circle", "square", "diamond", "triangle-up", "cross", "x"]
    data: list[dict[str, Any]] = []
    for k, f in enumerate(finals):
        mine = [r for r in rows if r.final == f]
        colour = palette[k % len(palette)]
        x = [ticks[r.depth] for r in mine]
        data.append({
            "cliponaxis": False,
            "customdata": [
                [r.depth, r.final, number(r.mrr.mean), interval(r.mrr), number(r.recall)]
                for r in mine
            ],
            "error_y": {
                "array": [
                    None if r.mrr.high is None or r.mrr.mean is None else r.mrr.high - r.mrr.mean
                    for r in mine
                ],
                "arrayminus": [
                    None if r.mrr.low is None or r.mrr.mean is None else r.mrr.mean - r.mrr.low
                    for r in mine
                ],
                "color": colour,
                "symmetric": False,
                "thickness": 1.2,
                "type": "data",
            },
            "hovertemplate": (
                "depth %{customdata[0]} × final %{customdata[1]}: MRR "
                "%{customdata[2]} %{customdata[3]}, recall %{customdata[4]}"
                "<extra></extra>"
            ),
            "legendgroup": f"final {f}",
            "marker": {
                "color": colour,
                "line": {"color": _INK, "width": [3 if r.smallest_in_noise else 0 for r in mine]},
                "size": [16 if r.smallest_in_noise else 9 for r in mine],
                "symbol": symbols[k % len(symbols)],
            },
            "mode": "markers+text",
            "name": f"final {f}",
            "offsetgroup": str(k),
            "text": [f"chosen: {r.depth}×{r.final}" if r.smallest_in_noise else "" for r in mine],
            "textfont": {"color": _INK, "size": 12},
            "textposition": "top center",
            "x": x,
            "y": [r.mrr.mean for r in mine],
            "type": "scatter",
            "xaxis": "x",
            "yaxis": "y",
        })  # fmt: skip
        data.append({
            "customdata": [
                [r.depth, r.final, number(r.costs.tokens_per_question, 0)] for r in mine
            ],
            "hovertemplate": (
                "depth %{customdata[0]} × final %{customdata[1]}: "
                "%{customdata[2]} tokens<extra></extra>"
            ),
            "legendgroup": f"final {f}",
            "marker": {"color": colour},
            "name": f"final {f}",
            "offsetgroup": str(k),
            "showlegend": False,
            "x": x,
            "y": [r.costs.tokens_per_question for r in mine],
            "type": "bar",
            "xaxis": "x2",
            "yaxis": "y2",
        })  # fmt: skip
    # two rows sharing the x axis (plotly's make_subplots(rows=2, shared_xaxes=True,
    # vertical_spacing=0.08, row_heights=[0.62, 0.38])): the domains it computes
    categories = {"type": "category", "categoryorder": "array",
                  "categoryarray": [ticks[d] for d in depths]}  # fmt: skip
    layout = _layout(520, "", margin={"l": 70, "r": 20, "t": 40, "b": 70})
    layout = {
        "template": layout.pop("template"),
        "xaxis": {"anchor": "y", "domain": [0.0, 1.0], "matches": "x2",
                  "showticklabels": False, **_x_axis(""), **categories},
        "yaxis": {"anchor": "x", "domain": [0.42960000000000004, 1.0],
                  **_y_axis("MRR (95 % interval)"), "range": [0, 1.1]},
        "xaxis2": {"anchor": "y2", "domain": [0.0, 1.0],
                   **_x_axis("depth<br>(scored pairs, hypothetical latency)"), **categories},
        "yaxis2": {"anchor": "x2", "domain": [0.0, 0.3496], **_y_axis("tokens / question")},
        **{k: v for k, v in layout.items() if k not in ("xaxis", "yaxis")},
        "showlegend": True,
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        "scattermode": "group",
        "barmode": "group",
    }  # fmt: skip
    return _to_fragment(data, layout, name)


def ablation_chart(ablations: AblationSection, name: str) -> str:
    """MRR change of each single-field change against the base config, with its paired 95 %
    interval (where known); labels sit outside the bars and the axis leaves room for them."""
    rows = [r for r in ablations.rows if not r.is_base]
    stats = [_Delta("Δ MRR", r.row.mrr_delta, r.row.mrr_low, r.row.mrr_high) for r in rows]
    values = [s.value for s in stats]
    reach = [abs(v or 0) for v in values]
    reach += [abs(s.low) for s in stats if s.low is not None]
    reach += [abs(s.high) for s in stats if s.high is not None]
    bound = max(reach + [0.05]) * 1.25
    trace = {
        "customdata": [[number(s.value, signed=True), interval(s, signed=True)] for s in stats],
        "error_x": _error_bars(stats),
        "hovertemplate": "%{y}: %{customdata[0]} %{customdata[1]}<extra></extra>",
        "marker": {"color": [_BLUE if (v or 0) >= 0 else _ORANGE for v in values]},
        "orientation": "h",
        "x": values,
        "y": [_esc(r.change) for r in rows],
        "type": "bar",
    }
    layout = _layout(
        _height(len(rows)),
        "MRR change vs the base config<br>(paired 95 % interval)",
        shapes=[_zero_line(dash=False)],
        margin={"l": 10, "r": 40, "t": 20, "b": 60},
    )
    layout["xaxis"]["range"] = [-bound, bound]
    layout["yaxis"]["autorange"] = "reversed"
    return _to_fragment([trace], layout, name)
