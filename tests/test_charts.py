"""The charts are written as plain data (report/_charts.py), not through plotly's figure objects:
every chart of every page kind is held to plotly's own reading of it -- each trace and the layout
made into a validated ``go.Figure`` (an unknown property, or a value of the wrong kind, raises)
come back as the same data, so plotly.js draws what plotly's objects would have drawn -- and one
small chart's fragment is pinned byte for byte."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evidencedesk.report._charts import metric_forest

go = pytest.importorskip("plotly.graph_objects")
pio = pytest.importorskip("plotly.io")

# Plotly.newPlot("id", data, layout, config): plotly's JSON never holds a raw "<" or "/", so a
# chart's call ends at the first ")" after its config
_CALL = re.compile(
    r'Plotly\.newPlot\(\s*"(?P<id>[^"]+)",\s*(?P<data>\[.*?\]),\s*(?P<layout>\{"template".*?\}),'
    r'\s*(?P<config>\{"displaylogo"[^}]*\})\s*\)'
)


def _charts(site: Path) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    found = {}
    for page in sorted(site.glob("*.html")):
        for call in _CALL.finditer(page.read_text("utf-8")):
            found[call["id"]] = (json.loads(call["data"]), json.loads(call["layout"]))
    return found


def _kind(chart_id: str) -> str:
    """``chart-forest-0`` -> ``chart-forest``, ``chart-candidate-depth-3-2dc43db9`` ->
    ``chart-candidate``."""
    return re.sub(r"^(chart-candidate)-.+$|-[0-9]+$", r"\1", chart_id)


@pytest.mark.parametrize("which", ["demo", "pipeline", "runs-only", "generated"])
def test_every_chart_is_one_plotly_reads_as_written(
    which: str,
    demo_site: Path,
    example_site: Callable[[str], Path],
    generated_site: Callable[[int], Path],
) -> None:
    site = {"demo": demo_site, "generated": None}.get(which) or (
        generated_site(2) if which == "generated" else example_site(which)
    )
    charts = _charts(site)
    assert charts, site
    for chart_id, (data, layout) in charts.items():
        # plotly's objects validate every property and coerce every value they keep
        read = go.Figure(data=data, layout=layout).to_plotly_json()
        assert read["data"] == data, chart_id
        assert read["layout"] == layout, chart_id


def test_the_demo_draws_every_kind_of_chart(demo_site: Path) -> None:
    kinds = {_kind(c) for c in _charts(demo_site)}
    assert kinds == {
        "chart-index-intervals",
        "chart-intervals",
        "chart-forest",
        "chart-flip-matrix",
        "chart-candidate",
        "chart-sizing",
        "chart-ablations",
    }


def test_a_forest_is_the_fragment_plotlys_figure_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    # the chart as report/_charts.py built it through plotly's figure objects before: the same
    # bytes, wrapper, key order and escapes included
    candidate = SimpleNamespace(metrics=[
        SimpleNamespace(label="MRR", row=SimpleNamespace(delta=0.25, low=-0.5, high=0.75)),
        SimpleNamespace(label="R@3 <b>", row=SimpleNamespace(delta=None, low=None, high=None)),
    ])  # fmt: skip
    font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
    fig = go.Figure(
        go.Scatter(
            x=[0.25, None],
            y=["Δ MRR", "Δ R@3 &lt;b&gt;"],
            mode="markers",
            marker={"size": 10, "color": ["#2166ac", "#6b7280"], "symbol": "diamond"},
            error_x={"type": "data", "symmetric": False, "array": [0.5, None],
                     "arrayminus": [0.75, None], "color": "#1f2937", "thickness": 1.5},
            customdata=[["+0.250", "[−0.500, +0.750]"], ["—", "—"]],
            hovertemplate="%{y}: %{customdata[0]} %{customdata[1]}<extra></extra>",
        )
    )  # fmt: skip
    fig.add_vline(x=0, line_color="#1f2937", line_width=1, line_dash="dash")
    fig.update_layout(template="none", height=220, margin={"l": 10, "r": 40, "t": 30, "b": 60},
                      font={"family": font, "size": 13, "color": "#1f2937"},
                      paper_bgcolor="white", plot_bgcolor="white", showlegend=False,
                      hoverlabel={"font": {"family": font}})  # fmt: skip
    fig.update_xaxes(title_text="difference: candidate − baseline<br>(paired 95 % interval)",
                     title_font_size=12, gridcolor="#e5e7eb", zerolinecolor="#9ca3af",
                     automargin=True)  # fmt: skip
    fig.update_yaxes(title_text="", gridcolor="#e5e7eb", automargin=True)
    fig.update_yaxes(autorange="reversed")
    # plotly's json engine, as the charts always write (orjson installed or not)
    monkeypatch.setattr(pio.json.config, "default_engine", "json")
    theirs = fig.to_html(include_plotlyjs=False, full_html=False, div_id="chart-x",
                         config={"displaylogo": False, "responsive": True},
                         default_width="100%", default_height="220px")  # fmt: skip
    assert metric_forest(candidate, "x") == re.sub(r">\s+<", "><", theirs.strip())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value",
    [
        [{"x": [0.125, -1.5e-7, 3], "name": "a/b <i>c</i> & “d” −0.5"}],
        {"title": {"text": "NaN"}, "x": [float("nan"), float("inf"), -float("inf"), None]},
        {"label": "Infinity and </script>", "y": [1e300, 2**53 + 1, True, False]},
        {"ids": ["q\u200b1", "שאלה", "\x00\x1f"], "nested": [[[]], {}]},
    ],
)
def test_the_json_is_plotlys_json_engine(value: Any) -> None:
    from evidencedesk.report._charts import _plotly_json

    assert _plotly_json(value) == pio.json.to_json_plotly(value, engine="json")


def test_an_array_like_is_written_as_its_list_as_plotly_writes_it() -> None:
    import numpy as np

    from evidencedesk.report._charts import _plotly_json

    value = {"n": np.int64(7), "v": np.array([0.5, np.nan]), "f": np.float64(0.25)}
    assert _plotly_json(value) == '{"n":7,"v":[0.5,null],"f":0.25}'
    assert _plotly_json(value) == pio.json.to_json_plotly(value, engine="json")
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        _plotly_json({"x": object()})
