"""README.md and every docs/*.md render as CommonMark (markdown-it-py, tables on), with every code
fence closed where it is meant to close, every relative link and image pointing at a file that
exists (and at a heading that exists, for a ``#anchor``), and a README of at most 250 lines.

markdown-it closes an unclosed fence silently at the end of the document, so a fence left open
turns the rest of the page into one code block without an error; a closing fence with text after
it (```` ``` Output: ````) is not a closing fence either, and shifts every fence after it by one.
Both are found from the parsed tokens. Small hand-made documents below show that each check
fails on its defect.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)  # http:, https:, mailto:, //host


def markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _container_free(line: str) -> str:
    """A source line without its indentation and block-quote markers."""
    return re.sub(r"^[\s>]*", "", line)


def fence_problems(text: str) -> list[str]:
    """Fences that do not close where they are meant to: one that runs to the end of the
    document unclosed, and a line inside a fence that is itself a fence of the same kind (a
    closing fence with text after it, or the opener of the next block: the fences are shifted)."""
    lines = text.splitlines()
    problems = []
    for token in markdown().parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        char, width = token.markup[0], len(token.markup)
        last = _container_free(lines[end - 1]) if end - 1 > start else ""
        closed = end - 1 > start and re.fullmatch(rf"{re.escape(char)}{{{width},}}\s*", last)
        if not closed:
            problems.append(f"line {start + 1}: the fence {token.markup!r} is never closed")
        inside = lines[start + 1 : end - 1 if closed else end]
        for offset, line in enumerate(inside, start=start + 2):
            if _container_free(line).startswith(char * width):
                problems.append(
                    f"line {offset}: a fence {line.strip()[:30]!r} inside the fence opened on "
                    f"line {start + 1} (a closing fence takes no text after it)"
                )
    return problems


def _heading_text(inline: Token) -> str:
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


def anchors(text: str) -> set[str]:
    """The heading anchors a page gets on GitHub: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered (-1, -2, …)."""
    tokens = markdown().parse(text)
    seen: dict[str, int] = {}
    found = set()
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        slug = re.sub(r"[^\w\- ]", "", _heading_text(tokens[i + 1]).strip().lower())
        slug = slug.replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def targets(text: str) -> list[tuple[str, str]]:
    """Every link and image target of a page, with its kind ("link" or "image")."""
    out = []
    for token in markdown().parse(text):
        for child in token.children or ():
            if child.type == "link_open":
                out.append(("link", str(child.attrs.get("href", ""))))
            elif child.type == "image":
                out.append(("image", str(child.attrs.get("src", ""))))
    return out


def link_problems(text: str, path: Path) -> list[str]:
    """Relative links and images that point at no file, and anchors that name no heading."""
    problems = []
    for kind, href in targets(text):
        if not href or EXTERNAL.match(href):
            continue
        where, _, anchor = href.partition("#")
        target = (path.parent / unquote(where)).resolve() if where else path
        if not target.exists():
            problems.append(f"{kind} {href!r}: no file {target}")
            continue
        if not anchor or target.suffix != ".md":
            continue
        headings = anchors(target.read_text("utf-8") if where else text)  # "#x": this page's
        if anchor not in headings:
            problems.append(f"{kind} {href!r}: no heading '#{anchor}' in {target.name}")
    return problems


def length_problems(text: str, limit: int = README_MAX_LINES) -> list[str]:
    n = len(text.splitlines())
    return [f"{n} lines, more than {limit}"] if n > limit else []


# -- the repository's pages ----------------------------------------------------------------------
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_page_renders_with_every_fence_closed(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "<p>" in markdown().render(text) or "<h1>" in markdown().render(text)
    assert fence_problems(text) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_image_resolves(page: Path) -> None:
    assert link_problems(page.read_text(encoding="utf-8"), page) == []


def test_the_readme_is_at_most_250_lines() -> None:
    assert length_problems((ROOT / "README.md").read_text(encoding="utf-8")) == []


def test_the_readme_shows_its_screenshot() -> None:
    images = [href for kind, href in targets((ROOT / "README.md").read_text("utf-8"))
              if kind == "image"]  # fmt: skip
    assert images and all((ROOT / src).is_file() and src.endswith(".png") for src in images)
    assert all((ROOT / src).stat().st_size < 200_000 for src in images)


# -- each check fails on its defect --------------------------------------------------------------
GOOD = """# A page

## First part

Text with a [link](other.md), an [anchor](#first-part), a [far anchor](other.md#the-end),
an ![image](pic.png) and [a site](https://example.org).

```bash
echo hi
```

- a list item with a fence

  ~~~
  indented content
  ~~~

````markdown
```python
shown, not run
```
````
"""


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "other.md").write_text("# Other\n\n## The end\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG")
    (tmp_path / "page.md").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_a_good_page_passes_every_check(folder: Path) -> None:
    assert fence_problems(GOOD) == []
    assert link_problems(GOOD, folder / "page.md") == []
    assert length_problems(GOOD) == []


def test_an_unclosed_fence_is_found() -> None:
    text = "# Page\n\n```python\nprint(1)\n\n## Not a heading any more\n\nText.\n"
    assert fence_problems(text) == ["line 3: the fence '```' is never closed"]


def test_a_closing_fence_with_text_after_it_is_found() -> None:
    text = (
        "# Page\n\n```\nGATE: GO\n``` Output: one line per reason.\n\nProse.\n\n"
        "```bash\nls\n```\n\nMore prose.\n"
    )
    problems = fence_problems(text)
    assert problems and "line 5: a fence '``` Output: one line per reaso'" in problems[0]


def test_a_link_to_a_missing_page_is_found(folder: Path) -> None:
    text = "See [the missing page](missing.md) and [this one](other.md).\n"
    problems = link_problems(text, folder / "page.md")
    assert len(problems) == 1 and problems[0].startswith("link 'missing.md': no file ")


def test_a_missing_image_is_found(folder: Path) -> None:
    problems = link_problems("![shot](docs/missing.png)\n", folder / "page.md")
    assert len(problems) == 1 and problems[0].startswith("image 'docs/missing.png': no file ")


def test_an_anchor_without_its_heading_is_found(folder: Path) -> None:
    text = "# Page\n\n[here](#nowhere), [there](other.md#the-start), [fine](other.md#the-end)\n"
    assert link_problems(text, folder / "page.md") == [
        "link '#nowhere': no heading '#nowhere' in page.md",
        "link 'other.md#the-start': no heading '#the-start' in other.md",
    ]


def test_a_readme_over_250_lines_is_found() -> None:
    assert length_problems("line\n" * 250) == []
    assert length_problems("line\n" * 251) == ["251 lines, more than 250"]


def test_anchors_are_made_as_github_makes_them() -> None:
    text = "# Top\n\n## `labels.jsonl`\n\n## Coverage, checked first\n\n## A\n\n## A\n"
    assert anchors(text) == {"top", "labelsjsonl", "coverage-checked-first", "a", "a-1"}
