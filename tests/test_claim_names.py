"""A run's name is data: whatever it says, it never changes the markup around it.

A name the audit would read as a claim ("lean", "p = 0.5", "1.23") is marked ``<bdi dir="auto">``
as data where a page prints it as text, and nowhere else: never inside a tag (a claim's own
``data-claim`` attribute names its page, ``candidate-lean.html``; an ``href`` or an ``id`` holds
the run's slug, which for "lean" is the name itself), never in ``<title>`` (text alone), never
inside a longer word of a claim's words ("leans"). Each name below is one of the audit's
patterns (`report.render._READ_AS_CLAIM`)."""

from __future__ import annotations

import html
import io
import json
import random
import re
from pathlib import Path

import pytest
from markupsafe import escape

from evidencedesk import cli as main_cli
from evidencedesk.report._audit import audit
from evidencedesk.report._claims import Said
from evidencedesk.report._render import _READ_AS_CLAIM, environment
from evidencedesk.report._site import slug

QUESTIONS = [f"k{i}" for i in range(30)]


def write_project(root: Path, name: str = "lean", policy: dict[str, object] | None = None) -> Path:
    """A runs-only project of 30 questions (one relevant document each, MRR and R@5 reported):
    the baseline ``base``; the candidate `name` (its run file named apart, the name given in
    ``[runs] files``) moves the relevant document up one place on 7 questions and down one on
    2; ``tiny`` moves it to the top on 3. With `policy`, a gate policy file. Returns the
    project file."""
    rng = random.Random(7)
    (root / "runs").mkdir(parents=True)
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {q}-rel 1\n{q} 0 {q}-non 0\n" for q in QUESTIONS), "utf-8"
    )
    base = {q: rng.randrange(1, 6) for q in QUESTIONS}  # the baseline's rank of the relevant one

    def write(path: Path, tag: str, ranks: dict[str, int]) -> None:
        lines = []
        for q in QUESTIONS:
            ranked = [f"{q}-u{j}" for j in range(10)]
            ranked.insert(ranks[q] - 1, f"{q}-rel")
            lines += [f"{q} Q0 {d} {r} {20 - r} {tag}\n" for r, d in enumerate(ranked, 1)]
        path.write_text("".join(lines), "utf-8")

    up = [q for q in QUESTIONS if base[q] > 1][:7]
    down = [q for q in QUESTIONS if q not in up][:2]
    moved = {**base, **{q: base[q] - 1 for q in up}, **{q: base[q] + 1 for q in down}}
    tiny = {**base, **{q: 1 for q in [q for q in QUESTIONS if base[q] > 2][:3]}}
    write(root / "runs" / "base.run", "base", base)
    write(root / "runs" / "tiny.run", "tiny", tiny)
    write(root / "candidate.trec", "cand", moved)
    gate = ""
    if policy is not None:
        (root / "gate.json").write_text(json.dumps(policy), "utf-8")
        gate = '\n[gate]\npolicy = "gate.json"\n'
    toml = root / "evidencedesk.toml"
    toml.write_text(
        '[project]\nname = "names"\n\n[questions]\nqrels = "qrels.txt"\n\n[runs]\ndir = "runs"\n'
        f'files = [{{ name = {json.dumps(name)}, path = "candidate.trec" }}]\nbaseline = "base"\n'
        f'\n[report]\nmetrics = ["mrr", "recall@5"]\n{gate}',
        "utf-8",
    )
    return toml


def build(root: Path, name: str = "lean", policy: dict[str, object] | None = None) -> Path:
    """`write_project`'s project built into ``root / "site"``."""
    toml = write_project(root / "project", name, policy)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert main_cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    return root / "site"


# every pattern of `_READ_AS_CLAIM`: a decimal, a p-value, a flips count, the verdict words
NAMES = [
    "lean", "lean-rerank", "Leans", "p = 0.5", "P<", "x p≤1", "not proven", "did not move",
    "+3/", "run +3/-1", "1.23", "hybrid 0.75", "useful context", "grade 2", "grades 10",
]  # fmt: skip

# the candidate's key facts: the same words whatever its name
DELTA = "Δ MRR +0.002 [−0.060, +0.059]"
FLIPS = "+7/−2 on MRR, sign-test p = 0.180"
_CLAIM_MARK = re.compile(r'<span data-claim="([^"]*)">')
_TAG = re.compile(r"<[^>]*>")


def test_the_names_are_every_pattern_the_audit_reads_as_a_claim() -> None:
    alternatives = _READ_AS_CLAIM.pattern.split("|")
    assert len(alternatives) == 8
    for alternative in alternatives:
        one = re.compile(alternative, re.IGNORECASE)
        assert any(one.search(n) for n in NAMES), alternative
    assert all(_READ_AS_CLAIM.search(n) for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_claim_like_name_leaves_the_markup_as_it_is(tmp_path: Path, name: str) -> None:
    site = build(tmp_path, name)
    page = f"candidate-{slug(name)}.html"
    text = (site / page).read_text("utf-8")
    shown = str(escape(name))
    data = f'<bdi dir="auto">{shown}</bdi>'
    # the claims' marks name their page, nothing else: no name marked inside them
    marks = _CLAIM_MARK.findall(text)
    assert marks and all(re.fullmatch(rf"{re.escape(page)} \d+", m) for m in marks), marks
    # the key facts: each claim's words in its own mark, shown as they are
    delta = re.search(r"<dt>Δ MRR</dt><dd>(.*?)</dd>", text)
    assert delta is not None
    assert re.fullmatch(rf'<span data-claim="{re.escape(page)} \d+">{re.escape(DELTA)}</span>',
                        delta[1])  # fmt: skip
    assert f'">{FLIPS}</span>' in text
    # the name: data in text, plain in the tab's title
    assert f"</span></span> {data}</h1>" in text
    assert f"<title>{shown} · evidencedesk report — names</title>" in text
    # no tag of any page holds a mark (an attribute's value, a title)
    for path in sorted(site.glob("*.html")):
        raw = path.read_text("utf-8")
        assert [t for t in _TAG.findall(raw) if "<" in t[1:]] == [], path.name
        assert "<" not in raw.split("<title>", 1)[1].split("</title>", 1)[0], path.name
    # the index links the candidate's page by its file name, its name marked as data
    index = (site / "index.html").read_text("utf-8")
    assert f'<a href="candidate-{slug(name)}.html">{data}</a>' in index
    assert [d.line() for d in audit(site)[0]] == []


def test_the_page_reads_the_candidate_s_words_whatever_its_name(tmp_path: Path) -> None:
    """The QA case: a candidate named "lean" (its slug "lean"): the Δ key fact as a reader
    sees it, not the rest of a broken attribute ("lean.html 15">Δ MRR …)."""
    site = build(tmp_path, "lean")
    text = (site / "candidate-lean.html").read_text("utf-8")
    dd = re.search(r"<dt>Δ MRR</dt><dd>(.*?)</dd>", text)
    assert dd is not None and html.unescape(_TAG.sub("", dd[1])) == DELTA
    assert '<tr id="v-lean">' in (site / "index.html").read_text("utf-8")


@pytest.mark.parametrize("name", ["lean", "p = 0.5", "+3/", "1.23"])
def test_a_claim_s_words_mark_its_name_where_it_stands_as_a_word(name: str) -> None:
    """A claim's mark names its page, which may hold the name; its words hold the name once
    as a word of its own, and the same letters inside longer words and numbers."""
    env = environment(names=(name,))
    shown = str(escape(name))
    words = f"{name} against base: {name}s, x{name}, {name}0, {name}.5 and +3/−1; not {name}."
    said = Said(words, f"candidate-{name}.html", 3)
    out = env.from_string("<p>{{ s }}</p>").render(s=said)
    rest = str(escape(f": {name}s, x{name}, {name}0, {name}.5 and +3/−1; not "))
    data = f'<bdi dir="auto">{shown}</bdi>'
    assert out == (f'<p><span data-claim="{escape(f"candidate-{name}.html")} 3">'
                   f"{data} against base{rest}{data}.</span></p>")  # fmt: skip


@pytest.mark.parametrize("name", ["lean", "p = 0.5", "1.23", "P<"])
def test_a_name_inside_a_tag_or_the_title_is_text(name: str) -> None:
    """A template prints a value in an attribute or the ``<title>`` without saying so: the
    name is escaped there, never marked; in text it is marked as data."""
    env = environment(names=(name,))
    source = ('<title>{{ s }} · x</title><a href="c-{{ s }}.html" title="{{ s }}" data-x={{ s }}>'
              "{{ s }}</a><!-- {{ s }} --><script>{{ s }}</script>")  # fmt: skip
    shown = str(escape(name))
    assert env.from_string(source).render(s=name) == (
        f'<title>{shown} · x</title><a href="c-{shown}.html" title="{shown}" data-x={shown}>'
        f'<bdi dir="auto">{shown}</bdi></a><!-- {shown} --><script>{shown}</script>'
    )


def _in_tag_by_the_last_bracket(before: str) -> bool:
    """A second reading of where a template prints: after a "<" that opens a tag and no ">"
    since, or inside ``<title>`` or ``<script>`` (no template writes ">" inside an attribute's
    quotes, nor a comment)."""
    opened = max((m.start() for m in re.finditer(r"<[A-Za-z/!]", before)), default=-1)
    if opened > before.rfind(">"):
        return True
    return any(before.count(f"<{tag}") > before.count(f"</{tag}") for tag in ("title", "script"))


def test_every_value_a_template_prints_inside_a_tag_goes_through_in_tag() -> None:
    """Every ``{{ … }}`` of every template: printed through ``in_tag`` exactly when it stands
    inside a tag or a text-only element, by a second reading of the template's text."""
    env = environment()
    folder = Path(__file__).resolve().parents[1] / "templates"
    wrapped = unwrapped = 0
    for path in sorted(folder.glob("*.html")):
        source = path.read_text("utf-8")
        before, pending, seen = "", False, []
        for token in env._tokenize(source, path.name):  # the stream the compiler reads
            if token.type == "data":
                before += token.value
            elif token.type == "variable_begin":
                pending, seen = True, []
            elif pending and token.type == "variable_end":
                pending = False
                marked = seen[-3:] == ["rparen", "pipe", "name:in_tag"]
                assert marked == _in_tag_by_the_last_bracket(before), (path.name, before[-60:])
                wrapped += marked
                unwrapped += not marked
            elif pending:
                seen.append(f"name:{token.value}" if token.type == "name" else token.type)
    assert wrapped > 90 and unwrapped > 500
