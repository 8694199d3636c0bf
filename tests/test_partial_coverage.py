"""A run that answers fewer questions than are judged (issue 35, leftovers): below
``[runs].min_coverage`` it is refused (tests/test_trust_inputs.py); with the threshold lowered it
is accepted, and every page that shows it says that the unanswered questions count as empty
lists. A run answering every judged question gets no such line.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from evidencedesk.report._words import answers_part, notice_text
from evidencedesk.retrieval._coverage import Coverage
from tests.test_bad_input import build

QRELS = "".join(f"q{n} 0 d{n} 1\n" for n in range(1, 5))
FULL = "".join(f"q{n} Q0 d{n} 1 2.0 full\nq{n} Q0 x{n} 2 1.0 full\n" for n in range(1, 5))
# answers q1-q3 of the four judged questions: 75 %
PART = "".join(f"q{n} Q0 x{n} 1 2.0 part\nq{n} Q0 d{n} 2 1.0 part\n" for n in range(1, 4))
SAYS = (
    "Partial coverage: the run part answers 3 of the 4 judged queries (75 %); the others count "
    "as empty lists."
)


def _project(tmp_path: Path, min_coverage: float | None) -> Path:
    root = tmp_path / "p"
    (root / "runs").mkdir(parents=True)
    (root / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (root / "runs" / "full.run").write_text(FULL, encoding="utf-8")
    (root / "runs" / "part.run").write_text(PART, encoding="utf-8")
    lines = [
        "[questions]",
        'qrels = "qrels.txt"',
        "",
        "[runs]",
        'dir = "runs"',
        'baseline = "full"',
    ]
    if min_coverage is not None:
        lines.append(f"min_coverage = {min_coverage}")
    (root / "evidencedesk.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _said(page: Path) -> list[str]:
    return re.findall(r"Partial coverage: [^<]*", page.read_text(encoding="utf-8"))


def test_a_run_answering_part_of_the_questions_is_said_to_on_its_pages(tmp_path: Path) -> None:
    root = _project(tmp_path, 0.5)
    out = tmp_path / "site"
    status, _, stderr = build(root, out)
    assert status == 0, stderr
    assert _said(out / "benchmark.html") == [SAYS]  # the full run: no line
    assert _said(out / "candidate-part.html") == [SAYS]


def test_below_the_default_threshold_the_run_is_refused(tmp_path: Path) -> None:
    root = _project(tmp_path, None)
    status, _, stderr = build(root, tmp_path / "site")
    assert status == 2
    assert stderr.startswith(f"error: {root / 'runs' / 'part.run'}: expected the run to answer ")


@pytest.mark.parametrize(
    ("answered", "judged", "partial"), [(3, 4, True), (4, 4, False), (0, 4, True), (0, 0, False)]
)
def test_answers_part_is_fewer_than_all_judged_queries(
    answered: int, judged: int, partial: bool
) -> None:
    coverage = Coverage(judged, answered, answered, 10, 0, 0)
    assert answers_part(coverage) is partial
    assert answers_part(None) is False


def test_notice_text_takes_no_threshold() -> None:
    assert list(inspect.signature(notice_text).parameters) == ["n", "kind"]
