"""Every measurement a page prints goes through a formatting filter (issue 37, item 1): render every
page template of every page kind -- the demo, the demo against an earlier build of itself (the
"since" page) and a generated tagless runs-only project -- with an environment that flags, in
the page's text, any expression that printed a float bare or a plain string holding a decimal:
a number rounded somewhere else than the filters (`report.values`), or by a filter but of a
number that is none of the Results' own (a filter marks those: `report.claims.marking`), which
the audit could not trace to results.json. Data text (``dir="auto"``, a reviewer's note) and attribute values are
not page text; whole numbers (counts, ranks, k, the seed) are not measurements and are left
to the templates.

The flagged spans are wrapped in two private-use characters by the environment's `finalize`
(what every ``{{ … }}`` passes through), so the check sees where each printed value landed
without trusting the site's own marks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import hypothesis.strategies
import jinja2
import pytest
from markupsafe import Markup, escape

from evidencedesk import cli as main_cli
from evidencedesk import paths
from evidencedesk.report import _render as render
from evidencedesk.report._audit import _DECIMAL, _FLIPS, _P_VALUE, _PHRASES, _page_text
from tests.test_audit_oracle import _tagless

_CLAIM_PATTERNS = (_DECIMAL, _P_VALUE, _FLIPS, _PHRASES)  # what the audit reads as a claim

_OPEN, _CLOSE = "\ue000", "\ue001"  # around a value printed outside the filters
# templates only a project with an optional extra missing renders (a candidate not run)
_NOT_RENDERED = {"candidate_not_run.html"}


def _bare(value: Any) -> bool:
    """A float, or a plain string holding a decimal (not a claim's words, not a filter's marked
    text, not Markup a filter made)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, float) or (type(value) is str and _DECIMAL.search(value) is not None)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Path], set[str]]]:
    """The sites built with the flagging environment, and the templates they rendered."""
    root = tmp_path_factory.mktemp("printing")
    used: set[str] = set()
    original = render.environment

    def environment(*args: Any, **kwargs: Any) -> jinja2.Environment:
        env = original(*args, **kwargs)
        finalize, get_template = env.finalize, env.get_template

        def flagged(value: Any) -> Any:
            out = finalize(value)
            return Markup(_OPEN) + escape(out) + Markup(_CLOSE) if _bare(value) else out

        def template(name: Any, *more: Any, **given: Any) -> jinja2.Template:
            used.add(str(name))
            return get_template(name, *more, **given)

        env.finalize = flagged
        env.get_template = template  # type: ignore[method-assign]
        return env

    def build(*argv: str) -> None:
        err = io.StringIO()
        assert main_cli.main(["build", *argv, "-q"], stdout=io.StringIO(), stderr=err) == 0, (
            err.getvalue()
        )

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(render, "environment", environment)
        build("--out", str(root / "demo"))
        build("--out", str(root / "since"), "--compare-to", str(root / "demo"))
        build("--project", str(_tagless(root / "tagless")), "--out", str(root / "runs"))
    yield [root / "demo", root / "since", root / "runs"], used


def test_every_page_template_is_rendered(rendered: tuple[list[Path], set[str]]) -> None:
    _, used = rendered
    pages = {p.name for p in paths._TEMPLATES.glob("*.html")} - {"base.html", "macros.html"}
    assert pages - used == _NOT_RENDERED


def test_no_measurement_reaches_a_page_outside_the_filters(
    rendered: tuple[list[Path], set[str]],
) -> None:
    sites, _ = rendered
    found = []
    for site in sites:
        for page in sorted(site.glob("*.html")):
            shown = _page_text(page)
            for text, _ in (*shown.prose, *shown.cells):
                start = text.find(_OPEN)
                while start >= 0:
                    end = text.find(_CLOSE, start)
                    found.append(f"{site.name}/{page.name}: {text[start + 1 : end]!r}")
                    start = text.find(_OPEN, end)
    assert found == []


def test_the_check_sees_a_bare_float() -> None:
    """The flag fires on a float printed without ``num`` and on a string holding a decimal (in an
    attribute too, which the page-text check does not read)."""
    env = render.environment()
    finalize = env.finalize
    env.finalize = lambda v: Markup(_OPEN) + escape(finalize(v)) + Markup(_CLOSE) if _bare(v) else v
    html = env.from_string('<p title="{{ x }}">{{ x }} {{ x | num }} {{ y }}</p>').render(
        x=0.25, y="MRR 0.50"
    )
    # ``num`` of a number that is none of the Results' values is plain text, flagged too: on the
    # sites above every decimal is one of results.json's values (or the difference of two)
    assert html == (
        f'<p title="{_OPEN}0.25{_CLOSE}">{_OPEN}0.25{_CLOSE} {_OPEN}0.250{_CLOSE} '
        f"{_OPEN}MRR 0.50{_CLOSE}</p>"
    )


# what a name may hold that the audit reads as a claim: digits, signs, the letters of its phrases
_CLAIM_ALPHABET = "0123456789.+-−/=<>≤≥ pPlLeaAnsgrdtovmuifbwyxcé٣"


@pytest.mark.parametrize("name", [
    "hybrid 0.75", "bm25 p=0.01", "run +3/-1", "not proven yet", "Leans better", "lean no way",
    "did not move", "useful context", "grade 2 means", "grades 10 is", "p ≤ 1", "v −0.125",
])  # fmt: skip
def test_a_name_the_audit_reads_as_a_claim_is_marked_as_data(name: str) -> None:
    # report.render marks a name as data (`_READ_AS_CLAIM`) whenever the audit's patterns
    # (`_DECIMAL`, `_P_VALUE`, `_FLIPS`, `_PHRASES`) find a claim in it: a looser superset
    assert any(p.search(name) for p in _CLAIM_PATTERNS)
    assert render._READ_AS_CLAIM.search(name)


@hypothesis.given(hypothesis.strategies.text(_CLAIM_ALPHABET, max_size=24))
@hypothesis.settings(max_examples=3_000, deadline=None)
def test_every_claim_the_audit_reads_in_a_name_marks_it_as_data(name: str) -> None:
    if any(p.search(name) for p in _CLAIM_PATTERNS):
        assert render._READ_AS_CLAIM.search(name), name


def test_a_plain_name_is_not_marked() -> None:
    # the superset stays loose, not everything: an ordinary run name is left as it is
    assert [n for n in ("bm25", "dense-v2", "rerank_0.5", "hybrid 1.5") if
            render._READ_AS_CLAIM.search(n)] == []  # fmt: skip
