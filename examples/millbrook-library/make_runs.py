"""Write the example's two TREC runs from evidencedesk's own searchers (deterministic).

    python examples/millbrook-library/make_runs.py

- ``runs/bm25.run``: `SparseSearcher` (Okapi BM25, k1=1.2, b=0.75) over ``corpus.jsonl``,
  top 20 documents per query.
- ``runs/rerank.run``: the same top 20 reordered by the four-feature lexical reranker
  (`FeatureReranker`: query-word coverage, adjacent word pairs, identifiers, title match).

Scores are written with 6 decimals and made strictly decreasing down each list (a tie is nudged
down by 0.000001), so tools that sort by score (trec_eval, pytrec_eval, ranx) and tools that read
the rank column see the same order.
"""

from __future__ import annotations

from pathlib import Path

from evidencedesk.retrieval.beir import read_beir_corpus, read_queries
from evidencedesk.retrieval.rerankers import FeatureReranker
from evidencedesk.retrieval.searchers import Hit, SparseSearcher

HERE = Path(__file__).resolve().parent
DEPTH = 20


def trec_lines(qid: str, found: list[Hit], tag: str) -> list[str]:
    lines, previous = [], None
    for rank, candidate in enumerate(found, start=1):
        score = round(candidate.score, 6)
        if previous is not None and score >= previous:
            score = round(previous - 1e-6, 6)
        previous = score
        lines.append(f"{qid} Q0 {candidate.chunk.id} {rank} {score:.6f} {tag}")
    return lines


def main(out: Path = HERE / "runs") -> None:
    catalog = read_beir_corpus(HERE / "corpus.jsonl")
    queries = read_queries(HERE / "queries.jsonl")
    sparse, reranker = SparseSearcher(catalog.chunks), FeatureReranker()
    bm25: list[str] = []
    rerank: list[str] = []
    for query in queries:
        first = sparse.search(query.text, DEPTH, None)
        bm25 += trec_lines(query.id, first, "bm25")
        rerank += trec_lines(query.id, reranker.rerank(query.text, first), "rerank")
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in (("bm25", bm25), ("rerank", rerank)):
        (out / f"{name}.run").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
