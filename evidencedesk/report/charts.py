"""Plotly figures as HTML fragments: deterministic, offline, colour-blind-safe.

Each fragment has a fixed ``div_id`` derived from the chart name (plotly's default is a random
uuid, which would break byte-identical builds), loads no plotly.js (the page loads the shared
local copy) and uses the blue–orange palette: blue = better, orange = worse. Text from data is
HTML-escaped before it reaches plotly, which would otherwise interpret a few tags in labels.
Every chart is followed on its page by a table of the same numbers.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import plotly.graph_objects as go

from evidencedesk.report.model import Candidate, FlipMatrix, Variant
from evidencedesk.report.sections import Ablations, Sizing
from evidencedesk.report.site import slug
from evidencedesk.report.values import Stat

BLUE = "#2166ac"
ORANGE = "#b35806"
GREY = "#6b7280"
INK = "#1f2937"
DIVERGING = [[0.0, ORANGE], [0.25, "#f1a340"], [0.5, "#f7f7f7"], [0.75, "#67a9cf"], [1.0, BLUE]]
CONFIG = {"displaylogo": False, "responsive": True}
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _layout(fig: go.Figure, height: int, x_title: str, y_title: str = "") -> None:
    fig.update_layout(
        template="none",
        height=height,
        margin={"l": 190, "r": 30, "t": 30, "b": 60},
        font={"family": FONT, "size": 13, "color": INK},
        paper_bgcolor="white",
        plot_bgcolor="white",
        showlegend=False,
        hoverlabel={"font": {"family": FONT}},
    )
    fig.update_xaxes(title_text=x_title, gridcolor="#e5e7eb", zerolinecolor="#9ca3af")
    fig.update_yaxes(title_text=y_title, gridcolor="#e5e7eb", automargin=True)


def to_fragment(fig: go.Figure, name: str) -> str:
    """The figure as a ``<div>`` + inline script with the fixed id ``chart-<slug>``."""
    text = fig.to_html(
        include_plotlyjs=False,
        full_html=False,
        div_id=f"chart-{slug(name)}",
        config=CONFIG,
        default_width="100%",
        default_height=f"{fig.layout.height or 400}px",
    )
    return re.sub(r">\s+<", "><", text.strip())


def _height(rows: int) -> int:
    return max(220, min(640, 90 + 34 * rows))


def interval_chart(variants: Sequence[Variant], metric_index: int, name: str) -> str:
    """Each variant's metric mean with its 95 % bootstrap interval."""
    shown = [v for v in variants if metric_index < len(v.metrics)]
    stats = [v.metrics[metric_index] for v in shown]
    label = stats[0].name if stats else "metric"
    fig = go.Figure(
        go.Scatter(
            x=[s.value for s in stats],
            y=[_esc(v.name) for v in shown],
            mode="markers",
            marker={"size": 10, "color": [GREY if v.kind == "external" else BLUE for v in shown]},
            error_x=_error_bars(stats),
            customdata=[[s.text, s.interval_text, s.n] for s in stats],
            hovertemplate="%{y}: %{customdata[0]} %{customdata[1]}, n=%{customdata[2]}<extra></extra>",
        )
    )
    _layout(fig, _height(len(shown)), f"{_esc(label)} (mean over questions, 95 % interval)")
    fig.update_yaxes(autorange="reversed")
    return to_fragment(fig, name)


def forest_chart(candidates: Sequence[Candidate], metric_index: int, name: str) -> str:
    """Per candidate, the paired difference from the baseline with its interval and a zero line."""
    shown = [c for c in candidates if metric_index < len(c.metrics)]
    deltas = [c.metrics[metric_index].delta for c in shown]
    label = deltas[0].name if deltas else "Δ"
    return _forest([_esc(c.name) for c in shown], deltas, label, name)


def metric_forest(candidate: Candidate, name: str) -> str:
    """One candidate's paired differences on every metric."""
    deltas = [m.delta for m in candidate.metrics]
    return _forest([_esc(d.name) for d in deltas], deltas, "difference", name)


def _error_bars(stats: Sequence[Stat]) -> dict[str, object]:
    """Asymmetric x error bars from each Stat's interval (none where it is undefined)."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [None if s.high is None or s.value is None else s.high - s.value for s in stats],
        "arrayminus": [
            None if s.low is None or s.value is None else s.value - s.low for s in stats
        ],
        "color": INK,
        "thickness": 1.5,
    }


def _forest(labels: list[str], deltas: list[Stat], label: str, name: str) -> str:
    # blue = better, orange = worse (colour-blind safe), grey = no change
    colours = [
        BLUE if (d.value or 0) > 0 else ORANGE if (d.value or 0) < 0 else GREY for d in deltas
    ]
    fig = go.Figure(
        go.Scatter(
            x=[d.value for d in deltas],
            y=labels,
            mode="markers",
            marker={"size": 10, "color": colours, "symbol": "diamond"},
            error_x=_error_bars(deltas),
            customdata=[[d.text, d.interval_text] for d in deltas],
            hovertemplate="%{y}: %{customdata[0]} %{customdata[1]}<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_color=INK, line_width=1, line_dash="dash")
    _layout(
        fig, _height(len(labels)), f"{_esc(label)}, candidate − baseline (paired 95 % interval)"
    )
    fig.update_yaxes(autorange="reversed")
    return to_fragment(fig, name)


def flip_heatmap(matrix: FlipMatrix, name: str) -> str:
    """Variant × variant: net questions where the column beats the row, cell text with p."""
    labels = [_esc(v) for v in matrix.variants]
    z = [[None if not c.text else c.better - c.worse for c in row] for row in matrix.cells]
    text = [[c.text for c in row] for row in matrix.cells]
    bound = max([abs(v) for row in z for v in row if v is not None] + [1])
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            text=text,
            texttemplate="%{text}",
            textfont={"size": 11},
            colorscale=DIVERGING,
            zmin=-bound,
            zmax=bound,
            xgap=2,
            ygap=2,
            colorbar={"title": {"text": "net better<br>questions"}},
            hovertemplate="%{x} vs %{y}: %{text}<extra></extra>",
        )
    )
    size = len(labels)
    _layout(fig, max(320, min(760, 140 + 56 * size)), "column variant (compared with the row)")
    fig.update_layout(margin={"l": 190, "r": 30, "t": 30, "b": 110})
    fig.update_yaxes(title_text="row variant", autorange="reversed")
    fig.update_xaxes(tickangle=-30)
    return to_fragment(fig, name)


def sizing_chart(sizing: Sizing, name: str) -> str:
    """Quality against cost: recall at final vs scored pairs per question, one point a setting."""
    rows = sizing.rows
    colours = [BLUE if r.smallest_in_noise else GREY for r in rows]
    fig = go.Figure(
        go.Scatter(
            x=[r.pairs.value for r in rows],
            y=[r.recall.value for r in rows],
            mode="markers+text",
            text=[f"{r.depth}×{r.final}" for r in rows],
            textposition="top center",
            marker={"size": [14 if r.smallest_in_noise else 9 for r in rows], "color": colours},
            customdata=[[r.mrr.text, r.latency.text] for r in rows],
            hovertemplate=(
                "depth×final %{text}: recall %{y:.3f}, %{x} pairs/question, MRR %{customdata[0]},"
                " %{customdata[1]}<extra></extra>"
            ),
        )
    )
    _layout(fig, 420, "scored pairs per question (cost)", "recall at final (share of answers)")
    fig.update_layout(margin={"l": 80, "r": 30, "t": 30, "b": 60})
    return to_fragment(fig, name)


def ablation_chart(ablations: Ablations, name: str) -> str:
    """MRR change of each single-field change against the base config."""
    rows = [r for r in ablations.rows if not r.is_base]
    values = [r.mrr_delta.value for r in rows]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=[_esc(r.change) for r in rows],
            orientation="h",
            marker={"color": [BLUE if (v or 0) >= 0 else ORANGE for v in values]},
            text=[r.mrr_delta.text for r in rows],
            textposition="auto",
            insidetextanchor="middle",
            hovertemplate="%{y}: %{text}<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_color=INK, line_width=1)
    _layout(fig, _height(len(rows)), "MRR change vs the base config (mean reciprocal rank)")
    fig.update_yaxes(autorange="reversed")
    return to_fragment(fig, name)
