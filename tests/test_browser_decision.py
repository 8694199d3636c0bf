"""The decision on a phone (390 px) and a laptop (1400 px), in a real browser: on the index, a
candidate page, the gate page and the flips page the candidate's name, verdict, gate level and
primary difference lie inside the window (no sideways scrolling); a question page with four runs
of 20 results opens one run's list at a time and stays within three screens; every text of every
page reads at 4.5:1 contrast or more (WCAG AA). The headless-Chromium harness and its skip rules
are tests/test_browser.py's.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from evidencedesk import cli
from tests.test_browser import _require_browser, browser  # noqa: F401 - the fixture

SCREEN = 844  # a 390 x 844 phone
WIDTHS = [390, 1400]
CANDIDATE = "candidate-pair-cut-to-8-words-5e5e6f4d.html"

# per page: the elements that carry the decision (each must lie inside the window)
DECIDING = {
    "index.html": "table.decision-table tbody th, table.decision-table td[data-label='Verdict'], "
    "table.decision-table td[data-label='Gate'], table.decision-table td[data-label^='Δ'], "
    "table.decision-table td[data-label='Flips']",
    CANDIDATE: "h1, .answers .badge, .keyfacts dd, table.gate-rules tbody th, "
    "table.gate-rules td[data-label='Result'], table.gate-rules td[data-label='On breach']",
    "gate.html": "table.cards tbody th, table.cards td[data-label='Gate'], "
    "table.cards td[data-label='Result'], table.cards td[data-label='On breach']",
    "flips.html": "table.flip-lines tbody th, table.flip-lines td[data-label='Better / worse'], "
    "table.flip-lines td[data-label='Holm p']",
}

# each deciding element's box, and the ones reaching outside the window
BOXES = """(selector) => {
  const els = [...document.querySelectorAll(selector)];
  const out = els.map(e => e.getBoundingClientRect())
    .map((r, i) => [els[i].tagName + ' ' + els[i].textContent.trim().slice(0, 30), r.left, r.right])
    .filter(([, left, right]) => left < 0 || right > window.innerWidth + 0.5);
  return {count: els.length, out, scroll: document.documentElement.scrollWidth,
          inner: window.innerWidth};
}"""

CONTRAST = (Path(__file__).parent / "data" / "contrast.js").read_text("utf-8")


@pytest.fixture(scope="module")
def site(demo_site: Path) -> Path:
    _require_browser()
    return demo_site


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_name", list(DECIDING))
def test_the_decision_lies_inside_the_window(
    browser,  # noqa: F811 - the fixture
    site: Path,
    page_name: str,
    width: int,
) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": width, "height": SCREEN})
    try:
        page.goto((site / page_name).as_uri(), wait_until="load")
        found = page.evaluate(BOXES, DECIDING[page_name])
    finally:
        page.close()
    assert found["count"] >= 4, found
    assert found["out"] == [], found
    assert found["scroll"] <= found["inner"], found


def _four_runs(root: Path, prefix: str = "") -> Path:
    """A runs-only project: 3 questions, a baseline and 3 better candidate runs of 20 results,
    the candidates' names starting with `prefix`."""
    (root / "runs").mkdir(parents=True)
    qids = ["q1", "q2", "q3"]
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": f"what about {q}?"}) + "\n" for q in qids), "utf-8"
    )
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 d{q}-{k} {g}\n" for q in qids for k, g in ((1, 2), (5, 1), (9, 2))), "utf-8"
    )
    for r, name in enumerate(("base", *(prefix + n for n in ("alpha", "beta", "gamma")))):
        lines = [
            f"{q} Q0 d{q}-{(k + 3 - r) % 20 + 1} {k + 1} {100 - k} {name}\n"
            for q in qids
            for k in range(20)
        ]
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "four runs"\n\n[questions]\nqueries = "queries.jsonl"\n'
        'qrels = "qrels.txt"\nrelevance = 1\n\n[runs]\ndir = "runs"\nbaseline = "base"\n',
        "utf-8",
    )
    return root / "evidencedesk.toml"


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_browser()
    root = tmp_path_factory.mktemp("four-runs")
    toml = _four_runs(root / "project")
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    return root / "site"


@pytest.mark.parametrize("script", [True, False])
def test_a_question_with_four_runs_shows_one_run_at_a_time(
    browser,  # noqa: F811 - the fixture
    four_runs: Path,
    script: bool,
) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(
        viewport={"width": 390, "height": SCREEN}, java_script_enabled=script
    )
    page = context.new_page()
    try:
        page.goto((four_runs / "question-q1.html").as_uri(), wait_until="load")
        height = page.evaluate("() => document.documentElement.scrollHeight")
        lists = page.evaluate(
            "() => [...document.querySelectorAll('details.ranked')].map(d => "
            "[d.querySelector('h3').id, d.open])"
        )
        # a closed run opens by its name, with or without JavaScript
        page.locator("details.ranked summary", has_text="gamma").click()
        opened = page.evaluate(
            "() => [...document.querySelectorAll('details.ranked')].filter(d => d.open).length"
        )
        rows = page.locator("table[data-list='gamma'] tbody tr").first.is_visible()
    finally:
        context.close()
    assert sorted(anchor.split("-")[1] for anchor, _ in lists) == ["alpha", "base", "beta", "gamma"]
    assert [anchor.split("-")[1] for anchor, open_ in lists if open_] == ["base"]  # the baseline
    assert height <= 3 * SCREEN, height
    assert opened == 2 and rows


def test_a_link_to_a_folded_side_by_side_opens_it(browser, four_runs: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_page(viewport={"width": 390, "height": SCREEN})
    try:
        anchor = page.goto((four_runs / "question-q1.html").as_uri(), wait_until="load")
        assert anchor is not None
        target = page.evaluate("() => document.querySelector('section.vs').id")
        page.goto((four_runs / "question-q1.html").as_uri() + f"#{target}", wait_until="load")
        folded = page.evaluate(f"() => document.querySelector('#{target} details.vs-fold').open")
        visible = page.locator(f"#{target} .vs-metrics").is_visible()
        # a runs-only candidate is a run: its rows are that run's list, which the section links
        page.locator(f"#{target} a", has_text="above").click()
        # the browser opens the <details> holding the target after the click returns: wait for it
        page.locator("table.moves").first.wait_for(state="visible", timeout=5000)
        listed = page.locator("table.moves").first.is_visible()
    finally:
        page.close()
    assert folded and visible and listed


def _low_contrast(browser, site: Path, width: int) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]  # noqa: F811
    """Per page of `site`: each text below 4.5:1 against the background it sits on."""
    found: dict[str, list[str]] = {}
    page = browser.new_page(viewport={"width": width, "height": SCREEN})
    # the charts are left out of the check (their text is SVG the contrast rule skips), so their
    # 3.5 MB library is not loaded on every page: the check reads the same texts, in less time
    page.route("**/assets/plotly.min.js", lambda route: route.abort())
    try:
        for path in sorted(site.glob("*.html")):
            page.goto(path.as_uri(), wait_until="load")
            page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
            low = page.evaluate(CONTRAST)
            if low:
                found[path.name] = low
    finally:
        page.close()
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_every_text_of_the_demo_reads_at_4_5_to_1(browser, site: Path, width: int) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    assert _low_contrast(browser, site, width) == {}


def test_the_contrast_check_names_each_text_below_4_5_to_1_on_the_background_it_sits_on(
    browser,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    """Planted: grey #999 on white (2.85:1), white on a grandparent's dark blue (a background
    found two levels up) and the same white on a parent's pale yellow (1.05:1); black on white
    and white on the dark blue read well and are not named."""
    _require_browser()
    (tmp_path / "planted.html").write_text(
        "<!doctype html><html><body style='background:#fff'>"
        "<p style='color:#000'>black on white</p>"
        "<p style='color:#999'>grey on white</p>"
        "<div style='background:#003366'><div><p style='color:#fff'>white on dark blue</p></div>"
        "<div style='background:#ffff99'><span style='color:#fff'>white on pale yellow</span>"
        "</div></div></body></html>",
        "utf-8",
    )
    assert _low_contrast(browser, tmp_path, 1400) == {"planted.html": [
        '2.85 p. "grey on white" rgb(153, 153, 153) on rgb(255,255,255)',
        '1.05 span. "white on pale yellow" rgb(255, 255, 255) on rgb(255,255,153)',
    ]}  # fmt: skip


def test_every_text_of_a_runs_only_site_reads_at_4_5_to_1(
    browser,  # noqa: F811 - the fixture
    generated_site: Callable[[int], Path],
) -> None:  # type: ignore[no-untyped-def]
    _require_browser()
    assert _low_contrast(browser, generated_site(1), 1400) == {}


# the box (left, top) of each character of the first text matching `pattern` (a regex) inside
# `selector`, in the text's own order: on each line the lefts increase when drawn left to right
DRAWN = """([selector, pattern]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const re = new RegExp(pattern);
  while (walker.nextNode()) {
    const node = walker.currentNode, m = re.exec(node.textContent);
    if (!m) continue;
    const xs = [];
    for (let i = m.index; i < m.index + m[0].length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const box = range.getBoundingClientRect();
      xs.push([box.left, Math.round(box.top)]);
    }
    return [m[0], xs];
  }
  return null;
}"""


@pytest.fixture(scope="module")
def overridden(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The four-run project built twice: its candidates named with a right-to-left override
    (U+202E) in front, and plainly (the control)."""
    _require_browser()
    sites = []
    for prefix in ("\u202e", ""):
        root = tmp_path_factory.mktemp("bidi")
        toml = _four_runs(root / "project", prefix)
        argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
        assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
        sites.append(root / "site")
    return sites[0], sites[1]


@pytest.mark.parametrize(
    ("page_name", "selector", "pattern"),
    [
        ("index.html", "p.bottom-line", r"Δ [^,]+ [+−]\d\.\d+ \[[^\]]+\]"),  # after the lead's name
        ("index.html", "table.decision-table tbody", r"[+−]\d\.\d+"),
        ("flips.html", "table.flip-lines tbody", r"\+\d+/−\d+"),
        ("question-q1.html", "a.flip", r"(better|worse)"),  # "▼ name worse", not "esrow"
        ("methods.html", "#downloads li:nth-child(6)", r": final lists of the judged questions"),
    ],
)
def test_an_override_in_a_run_name_stays_inside_it(
    browser,  # noqa: F811 - the fixture
    overridden: tuple[Path, Path],
    page_name: str,
    selector: str,
    pattern: str,
) -> None:  # type: ignore[no-untyped-def]
    """The page's own numbers after a name holding U+202E are drawn as on the control page: left
    to right, not turned around ("741.0+")."""
    drawn = []
    for site in overridden:
        page = browser.new_page(viewport={"width": 1400, "height": SCREEN})
        try:
            page.goto((site / page_name).as_uri(), wait_until="load")
            drawn.append(page.evaluate(DRAWN, [selector, pattern]))
        finally:
            page.close()
    (text, boxes), (control_text, control_boxes) = drawn
    assert text == control_text
    for found in (boxes, control_boxes):
        for line in {top for _, top in found}:
            lefts = [left for left, top in found if top == line]
            assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts), (text, found)


# each element's text box against its own content box: (element's left, right, text's left, right)
_EDGES = """(selector) => Array.from(document.querySelectorAll(selector)).map(el => {
  const box = el.getBoundingClientRect(), range = document.createRange();
  range.selectNodeContents(el);
  const text = range.getBoundingClientRect();
  const style = getComputedStyle(el);
  return [box.left + parseFloat(style.paddingLeft), box.right - parseFloat(style.paddingRight),
          text.left, text.right];
})"""


def _arabic_project(root: Path) -> Path:
    """A runs-only project whose question and document texts are Arabic (short: each fits one
    line well inside its cell) beside one in English."""
    (root / "runs").mkdir(parents=True)
    queries = [{"_id": "q1", "text": "ما هي سياسة الإرجاع؟"}, {"_id": "q2", "text": "how late?"}]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), "utf-8")
    docs = [{"_id": f"d{n}", "title": "سياسة الإرجاع" if n % 2 else "Opening hours",
             "text": "يمكن إرجاع المنتج خلال ثلاثين يوما" if n % 2 else "We open at nine."}
            for n in range(1, 7)]  # fmt: skip
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), "utf-8")
    (root / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n", "utf-8")
    for name, order in (("base", [1, 2, 3, 4]), ("cand", [3, 1, 4, 2])):
        lines = [f"{q} Q0 d{d} {r} {10 - r} {name}\n" for q in ("q1", "q2")
                 for r, d in enumerate(order, start=1)]  # fmt: skip
        (root / "runs" / f"{name}.run").write_text("".join(lines), "utf-8")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "arabic"\n\n[documents]\ncorpus = "corpus.jsonl"\nindex = false\n\n'
        '[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.txt"\nrelevance = 1\n\n'
        '[runs]\ndir = "runs"\nbaseline = "base"\n',
        "utf-8",
    )
    return root / "evidencedesk.toml"


@pytest.fixture(scope="module")
def arabic_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Arabic project's site, built once for the module."""
    _require_browser()
    root = tmp_path_factory.mktemp("arabic")
    argv = ["build", "--project", str(_arabic_project(root / "p")), "--out", str(root / "site"),
            "-q"]  # fmt: skip
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    return root / "site"


@pytest.mark.parametrize(
    ("page_name", "selector"),
    [
        ("question-q1.html", "h1.question"),
        ("question-q1.html", ".snippet"),
        ("questions.html", "td[dir=auto]"),
        ("to-label.html", "span.line-below[dir=auto]"),
    ],
)
def test_right_to_left_text_reads_from_the_right(
    browser,  # noqa: F811 - the fixture
    arabic_site: Path,
    page_name: str,
    selector: str,
) -> None:  # type: ignore[no-untyped-def]
    site = arabic_site
    page = browser.new_page(viewport={"width": 1400, "height": SCREEN})
    try:
        page.goto((site / page_name).as_uri(), wait_until="load")
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        found = page.evaluate(_EDGES, selector)
        texts = page.evaluate(f"() => Array.from(document.querySelectorAll({selector!r}))"
                              ".map(e => e.textContent)")  # fmt: skip
        sides = page.evaluate(f"() => Array.from(document.querySelectorAll({selector!r}))"
                              ".map(e => [getComputedStyle(e).direction,"
                              " getComputedStyle(e).textAlign])")  # fmt: skip
    finally:
        page.close()
    arabic = [edges for edges, text in zip(found, texts, strict=True) if "ا" in text]
    latin = [edges for edges, text in zip(found, texts, strict=True) if "ا" not in text]
    assert arabic, texts
    # each Arabic text's own direction, aligned from its start: the right
    assert {tuple(side) for side, text in zip(sides, texts, strict=True) if "ا" in text} <= {
        ("rtl", "start"),
        ("rtl", "right"),
    }
    for left, right, text_left, text_right in arabic:  # flush right (a cell may fit it exactly)
        assert abs(right - text_right) < 2, (left, right, text_left, text_right)
    for left, right, text_left, _ in latin:  # flush left
        assert abs(text_left - left) < 2, (left, right, text_left)
