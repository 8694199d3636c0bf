"""Text from data on a page and a terminal: isolated when it can turn text around, invisible
characters shown (`report.render`'s finalize and filters, `inert.visible`). The browser test
that draws it: tests/test_browser_decision.py."""

from __future__ import annotations

import pytest

from evidencedesk._inert import printable, visible
from evidencedesk.report._claims import Said
from evidencedesk.report._render import environment

EVIL = "\u202eevil"  # a run name holding a right-to-left override


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("q001\u200b", "q001⟨U+200B⟩"),
        ("q001\u200c", "q001⟨U+200C⟩"),  # after ASCII a non-joiner shapes nothing: shown
        ("\ufeffq1", "⟨U+FEFF⟩q1"),
        ("a\u00adb\u2060c", "a⟨U+00AD⟩b⟨U+2060⟩c"),
        ("বাংলা\u200c নাম", "বাংলা\u200c নাম"),  # part of the Bangla word: kept
        ("👩\u200d💻", "👩\u200d💻"),  # an emoji sequence: kept
        ("plain", "plain"),
    ],
)
def test_invisible_characters_are_shown(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert printable(text) == shown


def _render(source: str, names: tuple[str, ...] = (EVIL,), **context: object) -> str:
    return environment(names=names).from_string(source).render(**context)


def test_a_string_that_can_turn_text_around_is_isolated() -> None:
    assert _render("<p>{{ a }} +0.048</p>", a=EVIL) == "<p>\u2068\u202eevil\u2069 +0.048</p>"
    assert _render("<p>{{ a }}</p>", a="שלום <b>") == "<p>\u2068שלום &lt;b&gt;\u2069</p>"
    assert _render('<a title="{{ a }}">x</a>', a=EVIL) == '<a title="\u2068\u202eevil\u2069">x</a>'
    # text without a right-to-left letter or a bidi control is as it was
    assert _render("<p>{{ a }}</p>", a="বাংলা <i>") == "<p>বাংলা &lt;i&gt;</p>"


def test_a_name_inside_our_sentence_is_wrapped_in_bdi() -> None:
    said = Said(f"Best lead: {EVIL}, Δ MRR +0.048", "index.html", 3)
    assert _render("{{ s }}", s=said) == (
        f'<span data-claim="index.html 3">Best lead: <bdi>{EVIL}</bdi>, Δ MRR +0.048</span>'
    )
    assert _render("{{ s | isolate }}", s=f"Best lead: {EVIL}, Δ +0.048") == (
        f"Best lead: <bdi>{EVIL}</bdi>, Δ +0.048"
    )
    assert _render("{{ s | isolate }}", s="<b> & x") == "&lt;b&gt; &amp; x"


def test_an_id_shows_its_invisible_characters() -> None:
    assert _render("<code>{{ q | shown_id }}</code>", q="q001\u200b") == "<code>q001⟨U+200B⟩</code>"


@pytest.mark.parametrize(
    ("text", "balanced"),
    [
        ("plain", "plain"),
        ("\u2069\u202e", "\u202e"),  # a closer of nothing dropped: it would end our isolate
        ("a\u2067b", "a\u2067b\u2069"),  # an isolate it opens is closed at its end
        ("\u2066x\u2069\u2069y", "\u2066x\u2069y"),
        ("\u2068\u2068z\u2069", "\u2068\u2068z\u2069\u2069"),
    ],
)
def test_a_name_s_own_isolates_are_balanced(text: str, balanced: str) -> None:
    from evidencedesk.report._render import _balanced

    assert _balanced(text) == balanced
