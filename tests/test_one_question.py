"""A project of one question: every sentence counts it as one ("over 1 question", "1 question
... decides"), never "1 questions", and the audit's oracle, which words the same sentences on
its own, agrees."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._audit import audit
from tests.page_text import visible

RUNS = {  # the baseline finds the answer third, the candidate first
    "a": ["d5", "d6", "d1", "d7", "d2", "d8", "d3", "d4"],
    "b": ["d1", "d5", "d2", "d6", "d7", "d3", "d8", "d4"],
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("one")
    (root / "runs").mkdir()
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "which one?"}) + "\n")
    (root / "qrels.txt").write_text("".join(f"q1 0 d{n} 2\n" for n in range(1, 5)))
    for name, docs in RUNS.items():
        lines = [f"q1 Q0 {d} {r} {10 - r} {name}" for r, d in enumerate(docs, start=1)]
        (root / "runs" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "one question"\n[questions]\nqueries = "queries.jsonl"\n'
        'qrels = "qrels.txt"\n[runs]\ndir = "runs"\nbaseline = "a"\n'
    )
    out = root / "site"
    evidencedesk.build(project=root / "evidencedesk.toml", out=out)
    return out


def _text(site: Path, page: str) -> str:
    return visible((site / page).read_text(encoding="utf-8"), unescape=True)


def test_no_page_says_1_questions(site: Path) -> None:
    for path in sorted(site.rglob("*")):
        if path.suffix in (".html", ".md"):
            text = visible(path.read_text(encoding="utf-8"), unescape=True)
            assert re.search(r"\b1 questions\b", text) is None, path.name


@pytest.mark.parametrize(
    ("page", "said"),
    [
        ("methods.html", "1 question with a relevant judgment decides every comparison: a one- "
                         "or two-question difference is noise."),
        ("candidate-b.html", "With 1 question, no split of flips reaches sign-test p < 0.05"),
        # nDCG@10, linear gain: 2 at ranks 3, 5, 7, 8 against 1, 3, 6, 8 (ideal 1 to 4):
        # 3.0713 / 5.1233 = 0.5995 against 4.3433 / 5.1233 = 0.8478
        ("candidate-b.html", "Δ nDCG@10 (linear gain) = +0.248 over 1 question (95 %"),
        ("candidate-b.html", "0.500 → 0.500 over 1 question (Δ +0.000"),
        ("index.html", "Best lead: b, Δ nDCG@10 (linear gain) +0.248 [+0.248, +0.248] over 1 "
                       "question (promising)."),
        ("index.html", "What it rests on 1 question 1 decides decide: those with a relevant "
                       "judgment"),
        ("questions.html", "The 1 question: which candidates change them"),
    ],
)  # fmt: skip
def test_the_sentences_count_one_question(site: Path, page: str, said: str) -> None:
    assert said in _text(site, page)


def test_the_summary_counts_one_question(site: Path) -> None:
    summary = (site / "summary.md").read_text(encoding="utf-8")
    assert "over 1 question (" in summary and "1 questions" not in summary


def test_the_audit_agrees_with_every_sentence(site: Path) -> None:
    found, claims, _ = audit(site)
    assert [d.line() for d in found] == []
    assert claims > 0
