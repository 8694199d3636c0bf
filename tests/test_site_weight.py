"""The site's plotly.js: plotly's partial "basic" bundle, vendored at a pinned version with its
licence, copied once per site, and holding every trace type the site's charts draw."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from evidencedesk import paths
from evidencedesk.report._render import _PLOTLY_BUNDLE

BUNDLE = paths._TEMPLATES / _PLOTLY_BUNDLE
_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"[^"]+",\s*')


def _drawn(site: Path) -> dict[str, set[str]]:
    """Every page's trace types, from the data of each ``Plotly.newPlot`` call."""
    found: dict[str, set[str]] = {}
    for page in sorted(site.glob("*.html")):
        text = page.read_text("utf-8")
        for call in _NEW_PLOT.finditer(text):
            traces, _ = json.JSONDecoder().raw_decode(text, call.end())
            found.setdefault(page.name, set()).update(t.get("type", "scatter") for t in traces)
    return found


def _in_bundle() -> set[str]:
    return set(re.findall(r'moduleType:"trace",name:"(\w+)"', BUNDLE.read_text("utf-8")))


def test_the_bundle_is_the_pinned_basic_bundle_with_its_licence() -> None:
    head = BUNDLE.read_text("utf-8")[:200]
    assert "plotly.js (basic - minified) v4.1.1" in head
    assert _in_bundle() == {"bar", "pie", "scatter"}
    licence = (paths._TEMPLATES / "plotly-basic.LICENSE.txt").read_text("utf-8")
    assert licence.startswith("MIT License\n\nCopyright (c) 2016-2024 Plotly Technologies Inc.")
    assert BUNDLE.stat().st_size < 1_300_000  # the full bundle is 4.8 MB


def test_every_trace_type_the_demo_draws_is_in_the_bundle(demo_site: Path) -> None:
    drawn = _drawn(demo_site)
    assert set().union(*drawn.values()) == {"scatter", "bar"}
    assert set().union(*drawn.values()) <= _in_bundle()
    # every page with a chart loads the one copy, and it is the vendored bundle
    for page in drawn:
        assert '<script src="assets/plotly.min.js"></script>' in (demo_site / page).read_text()
    assert (demo_site / "assets" / "plotly.min.js").read_bytes() == BUNDLE.read_bytes()
    assert (demo_site / "assets" / "plotly-license.txt").read_text("utf-8").startswith("MIT")
    assert [p.name for p in demo_site.rglob("*.js") if "plotly" in p.name] == ["plotly.min.js"]


def test_every_trace_type_a_runs_only_site_draws_is_in_the_bundle(
    generated_site: Callable[[int], Path],
) -> None:
    drawn = _drawn(generated_site(1))
    assert drawn and set().union(*drawn.values()) <= _in_bundle()


_ROW = re.compile(r'<tr data-chunk="([^"]+)"[^>]*>(.*?)</tr>', re.S)


def test_a_question_page_holds_each_text_once_and_links_it(demo_site: Path) -> None:
    """Each chunk's whole text is written once per question page (in the baseline's list, else
    the first list returning it, as ``id="t<n>"``); every other row's "text" link lands on it."""
    pages = sorted(demo_site.glob("question-*.html"))
    linked = 0
    for page in pages:
        text = page.read_text("utf-8")
        homes: dict[str, list[str]] = {}
        links: list[tuple[str, str]] = []
        for chunk, row in _ROW.findall(text):
            homes.setdefault(chunk, []).extend(
                re.findall(r'<details class="ptext" id="(t\d+)">', row)
            )
            links += [
                (chunk, t) for t in re.findall(r'<a class="to-text" href="#(t\d+)">text</a>', row)
            ]
        assert all(len(ids) <= 1 for ids in homes.values()), page.name  # never twice
        for chunk, target in links:
            assert homes[chunk] == [target], (page.name, chunk)  # the link lands on its text
        linked += len(links)
    assert linked == 483  # the demo's eight lists return the same chunks again and again
    st03 = (demo_site / "question-st03.html").read_text("utf-8")
    base = st03.split('id="list-hybrid"')[1].split("</details>\n<details")[0]
    assert 'class="to-text"' not in base  # the baseline's list, open first, has every text
    assert base.count('<details class="ptext" id="t') == 3
