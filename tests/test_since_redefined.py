"""A candidate that keeps its name but tests another config change is redefined: the since
page says what it tests now and before, and counts it apart from the verdicts that changed
(its verdict and gate are a new candidate's). The audit holds the change it tests now to
results.json."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import evidencedesk
from evidencedesk.report._audit import audit
from evidencedesk.report._since_view import since_view
from evidencedesk.results.since import since
from tests.page_text import visible

DATA = Path(__file__).resolve().parents[1] / "data"
LINE = (
    "depth 20: its change is now reranker feature, depth 15 (was reranker feature, depth 20); "
    "still {verdict} (gate {gate})"
)


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("redefined")
    shutil.copytree(DATA, root / "data")
    before = evidencedesk.build(project=root / "data", out=root / "before")
    assert any(c.name == "depth 20" for c in before.candidates)
    toml = root / "data" / "candidates.toml"
    text = toml.read_text("utf-8")
    old = 'changes = { reranker = "feature", depth = 20 }'
    assert text.count(old) == 1
    toml.write_text(text.replace(old, 'changes = { reranker = "feature", depth = 15 }'), "utf-8")
    evidencedesk.build(project=root / "data", out=root / "after", compare_to=root / "before")
    return root / "before", root / "after"


def test_a_candidate_that_tests_another_change_is_redefined(builds: tuple[Path, Path]) -> None:
    before, after = (evidencedesk.load_results(site) for site in builds)
    found = since(before, after)
    changed = [c for c in found.verdicts if c.candidate == "depth 20"]
    assert len(changed) == 1
    change = changed[0]
    assert change.kind == "redefined"
    assert change.change_before == (("reranker", "feature"), ("depth", "20"))
    assert change.change_after == (("reranker", "feature"), ("depth", "15"))
    assert [c.candidate for c in found.verdicts if c.kind == "redefined"] == ["depth 20"]
    candidate = next(c for c in after.candidates if c.name == "depth 20")
    line = LINE.format(verdict=candidate.decision.verdict, gate=candidate.gate.word)
    page = " ".join(visible((builds[1] / "since.html").read_text("utf-8"), unescape=True).split())
    assert line.replace(": ", " : ", 1) in page
    assert "1 candidate redefined" in since_view(found, after).summary
    assert "verdict changed" not in since_view(found, after).summary
    assert audit(builds[1])[0] == []


def test_the_audit_names_a_wrong_change_tested_now(
    builds: tuple[Path, Path], tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(builds[1], site)
    page = site / "since.html"
    raw = page.read_text("utf-8")
    old = "its change is now reranker feature, depth 15 (was"
    assert raw.count(old) == 1
    page.write_text(raw.replace(old, "its change is now reranker feature, depth 25 (was"), "utf-8")
    after = evidencedesk.load_results(site)
    candidate = next(c for c in after.candidates if c.name == "depth 20")
    tail = f"still {candidate.decision.verdict} (gate {candidate.gate.word})"
    assert [d.line() for d in audit(site)[0] if d.line().startswith("since.html")] == [
        f"since.html: 'since: depth 20: its change is now reranker feature, depth 25 (was "
        f"reranker feature, depth 20); {tail}': results.json says 'depth 20: its change is now "
        f"reranker feature, depth 15 (was reranker feature, depth 20); {tail}' (the candidate "
        "depth 20's decision and gate)"
    ]
