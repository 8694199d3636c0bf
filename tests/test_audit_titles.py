"""The browser tab's title, held by the audit to the page's name and the report's: a page of one
question or candidate by its id or name, any other page by words without a number."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.report._audit import audit
from tests.planting import on_the_page, planted

REPORT = " · evidencedesk report — Kestrel Cycles (demo)"


@pytest.mark.parametrize(
    ("page", "old", "new", "expected"),
    [
        (  # a number planted in a page of ours
            "benchmark.html",
            "<title>Benchmark &amp; intervals · ",
            "<title>MRR 0.95 · ",
            f"benchmark.html: 'title: MRR 0.95{REPORT}': results.json says a page name without "
            f"a number, then '{REPORT}' (inputs.project)",
        ),
        (  # another candidate's name on a candidate's page
            "candidate-depth-3-2dc43db9.html",
            "<title>depth 3 · ",
            "<title>depth 20 · ",
            f"candidate-depth-3-2dc43db9.html: 'title: depth 20{REPORT}': results.json says "
            f"'depth 3{REPORT}' (the page's own, inputs.project)",
        ),
        (  # another question's id on a question's page
            "question-bn01.html",
            "<title>bn01 · ",
            "<title>bn02 · ",
            f"question-bn01.html: 'title: bn02{REPORT}': results.json says 'bn01{REPORT}' (the "
            "page's own, inputs.project)",
        ),
        (  # another project's name
            "flips.html",
            "Kestrel Cycles (demo)</title>",
            "Kestrel Cycles (2 demos)</title>",
            "flips.html: 'title: Flips · evidencedesk report — Kestrel Cycles (2 demos)': "
            f"results.json says a page name without a number, then '{REPORT}' (inputs.project)",
        ),
    ],
)
def test_a_title_that_is_not_the_pages_name_is_a_disagreement(
    demo_site: Path, tmp_path: Path, page: str, old: str, new: str, expected: str
) -> None:
    site = planted(demo_site, tmp_path, page, old, new)
    assert [d.line() for d in audit(site, on_the_page(page))[0]] == [expected]


def test_the_demos_titles_agree(demo_site: Path) -> None:
    found = audit(demo_site, on_the_page("candidate-depth-3-2dc43db9.html"))[0]
    assert [d.line() for d in found] == []
