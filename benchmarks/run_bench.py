"""How fast ``evidencedesk run`` writes a run: passages per second on a generated corpus.

Generates (seeded) a BEIR project of 5,000 passages (30 to 90 words of the demo corpus each, as
``benchmarks/minilm_bench.py`` makes them) and 200 questions in a temporary folder,
runs the real command, ``evidencedesk run --searcher S --depth 100``, once per built-in searcher,
and prints for each the wall and CPU seconds and the passages per second (the corpus indexed and
searched by every question, divided by the wall time), and the questions per second:

    python benchmarks/run_bench.py [--passages 5000] [--questions 200] [--searchers sparse dense
                                    hybrid minilm] [--seed 0]

MiniLM needs the ``minilm`` extra; without it its row says so. On a shared machine the wall time
also counts the time the command waited for a core: the CPU time is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def write_project(root: Path, passages: int, questions: int, seed: int) -> Path:
    """A BEIR project: corpus.jsonl (`minilm_bench.synthetic`'s passages: the demo corpus's own
    words, so token lengths look like real passages'), queries.jsonl (six words of a passage
    each) and qrels judging that passage."""
    from benchmarks.minilm_bench import synthetic
    from evidencedesk.retrieval._tokens import tokenize
    from evidencedesk.retrieval.catalog import load_catalog
    from evidencedesk.retrieval.searchers import _index_text

    demo = [_index_text(c) for c in load_catalog().chunks]
    words = sorted({w for text in demo for w in tokenize(text) if w.isalpha()})
    texts = synthetic(words, passages, seed)
    rng = random.Random(seed)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            title, body = text.split("\n", 1)
            f.write(json.dumps({"_id": f"d{i}", "title": title, "text": body}) + "\n")
    asked = rng.sample(range(passages), questions)
    with (root / "queries.jsonl").open("w", encoding="utf-8") as f:
        for n, i in enumerate(asked):
            picked = rng.sample(texts[i].split(), 6)
            f.write(json.dumps({"_id": f"q{n}", "text": " ".join(picked)}) + "\n")
    with (root / "qrels.tsv").open("w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        f.writelines(f"q{n}\td{i}\t1\n" for n, i in enumerate(asked))
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "run benchmark"\n\n[documents]\ncorpus = "corpus.jsonl"\n\n'
        '[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.tsv"\n',
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(project: Path, searcher: str, out: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stderr) of one ``evidencedesk run``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "evidencedesk", "run", "--project", str(project),
               "--searcher", searcher, "--depth", "100", "--out", str(out)]  # fmt: skip
    cpu, start = _cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return wall, _cpu() - cpu, done.stderr.strip().splitlines()[-1]
    return wall, _cpu() - cpu, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=5_000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--searchers", nargs="+", default=["sparse", "dense", "hybrid", "minilm"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ed-run-bench-") as tmp:
        root = Path(tmp)
        project = write_project(root, args.passages, args.questions, args.seed)
        print(f"{args.passages} passages, {args.questions} questions, depth 100 (seed {args.seed})")
        print(f"{'searcher':<8} {'wall s':>8} {'CPU s':>8} {'passages/s':>11} {'questions/s':>12}")
        for searcher in args.searchers:
            wall, cpu, failed = timed(project, searcher, root / f"{searcher}.run")
            if failed:
                print(f"{searcher:<8} {'':>8} {'':>8} {'':>11} {'':>12}  not run: {failed}")
                continue
            print(f"{searcher:<8} {wall:8.1f} {cpu:8.1f} {args.passages / wall:11.0f} "
                  f"{args.questions / wall:12.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
