"""The site's TREC exports as ranx reads them, as they are (that test skipped without ranx): the
runs hold the questions the qrels hold, so ranx's `evaluate` needs no ``make_comparable=True``
and gives evidencedesk's value on every question evidencedesk defines."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from evidencedesk.results.types import Results


@pytest.fixture(scope="module")
def ranx() -> ModuleType:
    # imported by the test that reads with it, not when the suite is collected: ranx's import
    # compiles its kernels, seconds that every worker would pay
    return pytest.importorskip("ranx")


def test_ranx_reads_the_demo_exports_as_they_are(
    ranx: ModuleType, demo_results: Results, demo_site: Path
) -> None:
    qrels = ranx.Qrels.from_file(str(demo_site / "data" / "qrels.txt"), kind="trec")
    for name in ("hybrid", "dense"):
        run = ranx.Run.from_file(str(demo_site / "data" / "runs" / f"{name}.run"), kind="trec")
        # un01 and un02 have no judgment line: the run file leaves them out as the qrels do
        assert set(run.keys()) == set(qrels.keys())
        assert {"un01", "un02"} & set(run.keys()) == set()
        # relevance 2 (the demo's [project].relevance) is ranx's "-l2"; no make_comparable
        values = ranx.evaluate(qrels, run, "mrr-l2", return_mean=False)
        theirs = dict(zip(sorted(qrels.keys()), (float(v) for v in values), strict=True))
        ours = {r.question: r.values["mrr"] for r in demo_results.variant(name).lists}
        defined = {q: v for q, v in ours.items() if v is not None}
        assert len(defined) == 21
        assert {q: theirs[q] for q in defined} == pytest.approx(defined, abs=1e-12)
        # un03 is judged with no relevant chunk: undefined here (left out of the mean), 0 in ranx
        assert [q for q in theirs if q not in defined] == ["un03"] and theirs["un03"] == 0.0
        assert ours["un03"] is None


def test_the_run_exports_hold_every_answered_judged_question(demo_site: Path) -> None:
    judged = {
        line.split()[0] for line in (demo_site / "data" / "qrels.txt").read_text().splitlines()
    }
    assert len(judged) == 22
    for path in sorted((demo_site / "data" / "runs").glob("*.run")):
        questions = {line.split()[0] for line in path.read_text().splitlines()}
        assert questions == judged, path.name
