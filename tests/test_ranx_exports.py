"""The site's TREC exports as ranx reads them (skipped without ranx): ranx refuses a run whose
query ids differ from the qrels' unless told ``make_comparable=True``, and with it gives
evidencedesk's value on every question evidencedesk defines."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.results.types import Results

ranx = pytest.importorskip("ranx")


def test_ranx_reads_the_demo_exports_with_make_comparable(
    demo_results: Results, demo_site: Path
) -> None:
    qrels = ranx.Qrels.from_file(str(demo_site / "data" / "qrels.txt"), kind="trec")
    run = ranx.Run.from_file(str(demo_site / "data" / "runs" / "hybrid.run"), kind="trec")
    # the run answers the unanswerable un01 and un02, which no judgment names: a TREC qrels file
    # cannot list a question without a judgment line, nor a TREC run a question it left empty
    assert set(run.keys()) - set(qrels.keys()) == {"un01", "un02"}
    assert set(qrels.keys()) <= set(run.keys())
    with pytest.raises(AssertionError, match="make_comparable=True"):
        ranx.evaluate(qrels, run, "mrr-l2")
    # relevance 2 (the demo's [project].relevance) is ranx's "-l2"
    values = ranx.evaluate(qrels, run, "mrr-l2", return_mean=False, make_comparable=True)
    theirs = dict(zip(sorted(qrels.keys()), (float(v) for v in values), strict=True))
    ours = {r.question: r.values["mrr"] for r in demo_results.variant("hybrid").lists}
    defined = {q: v for q, v in ours.items() if v is not None}
    assert len(defined) == 21
    assert {q: theirs[q] for q in defined} == pytest.approx(defined, abs=1e-12)
    # un03 is judged with no relevant chunk: undefined here (left out of the mean), 0 in ranx
    assert [q for q in theirs if q not in defined] == ["un03"] and theirs["un03"] == 0.0
    assert ours["un03"] is None
