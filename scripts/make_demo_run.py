"""Write the demo's example external run, ``data/runs/bm25-title.run``.

It stands for "a run from another search engine": BM25 (k1 = 0.9, b = 0.4, Anserini's defaults)
over chunks whose title is repeated three times, so titles weigh more than in evidencedesk's own
sparse searcher. It searches the whole index (no scope filter, as an engine outside evidencedesk
would) and keeps the top 10 per question. The report judges it against the labels like any TREC
run, so the external-run path is exercised by the demo. Re-run after changing the corpus:

    python scripts/make_demo_run.py
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from evidencedesk.files.trec import write_run
from evidencedesk.paths import DATA
from evidencedesk.retrieval.catalog import load_catalog
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.searchers import SparseSearcher

OUT = DATA / "runs" / "bm25-title.run"


def main(out: Path = OUT) -> None:
    catalog = load_catalog()
    boosted = [
        dataclasses.replace(c, title=f"{c.title} {c.title} {c.title}") for c in catalog.chunks
    ]
    searcher = SparseSearcher(boosted, k1=0.9, b=0.4)
    run = {}
    for label in load_labels(catalog=catalog):
        found = searcher.search(label.question, 10, None)
        run[label.id] = {c.chunk.id: round(c.score, 4) for c in found}
    out.parent.mkdir(parents=True, exist_ok=True)
    # write_run makes only new files: the refreshed run is written beside the old one and
    # replaces it in one rename, so an interrupted refresh leaves the previous run
    fresh = out.with_name(f".{out.name}.new")
    fresh.unlink(missing_ok=True)
    write_run(fresh, run, tag="bm25-title")
    os.replace(fresh, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
