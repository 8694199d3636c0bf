"""Build a pipeline project of many one-paragraph Markdown documents (100,000 by default).

An earlier hostile round found 100,000 one-paragraph documents taking over seven minutes. This
generates (seeded) such a project in a temporary folder -- ``corpus/`` with one small Markdown
file per document (front matter and one paragraph: one chunk each), ``labels.jsonl`` with a few
questions graded against some of them, no candidates -- builds it with the real command line,
``evidencedesk build --project P --out P/site``, in a process of its own, and prints the wall
time, the build's CPU time and its peak memory (the child's maximum resident set size).

    python benchmarks/many_documents.py [--documents 100000] [--questions 50] [--seed 0]
                                        [--keep DIR] [--profile]

``--profile`` runs the build in this process under cProfile instead and prints the 25 functions
with the most cumulative time (where a slow build spends it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SYLLABLES = ("ka", "lo", "mi", "ta", "ren", "so", "vi", "dun", "pe", "xo", "bra", "ul", "ni")


def _vocabulary(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(out)


def make_project(root: Path, documents: int, questions: int, seed: int) -> Path:
    """The project folder: corpus/ of one-paragraph documents, labels.jsonl, evidencedesk.toml."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 5000)
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    paragraphs = []
    for d in range(documents):
        words = rng.sample(vocab, rng.randint(20, 45))
        paragraphs.append(words)
        (corpus / f"d{d:06d}.md").write_text(
            f"---\nid: d{d:06d}\ntitle: Page {d}\n---\n{' '.join(words)}.\n", encoding="utf-8"
        )
    with (root / "labels.jsonl").open("w", encoding="utf-8") as out:
        for q in range(questions):
            answer = rng.randrange(documents)
            text = " ".join(rng.sample(paragraphs[answer], 6)) + "?"
            near = rng.randrange(documents)
            grades = {f"d{answer:06d}:c0": 2, f"d{near:06d}:c0": 1} if near != answer else {
                f"d{answer:06d}:c0": 2}  # fmt: skip
            out.write(json.dumps({"id": f"q{q:03d}", "question": text, "tags": ["direct"],
                                  "grades": grades}) + "\n")  # fmt: skip
    project = root / "evidencedesk.toml"
    project.write_text(
        '[project]\nname = "many documents"\n\n[documents]\nfolders = ["corpus"]\n\n'
        '[questions]\nlabels = "labels.jsonl"\n',
        encoding="utf-8",
    )
    return project


def build(project: Path, out: Path) -> tuple[int, float, float, int]:
    """(exit status, wall seconds, CPU seconds, peak resident memory in MB) of one build."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "evidencedesk.report", "build", "--project", str(project),
         "--out", str(out), "--quiet"],
        env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
    return done.returncode, wall, cpu, after.ru_maxrss // 1024  # Linux: ru_maxrss in KiB


def profile(project: Path, out: Path) -> None:
    import cProfile
    import pstats

    sys.path.insert(0, str(REPO))
    from evidencedesk import cli

    profiler = cProfile.Profile()
    profiler.enable()
    status = cli.main(["build", "--project", str(project), "--out", str(out), "--quiet"])
    profiler.disable()
    print(f"exit status {status}")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="build here and keep it")
    parser.add_argument("--profile", action="store_true", help="cProfile the build in-process")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="ed-many-documents-"))
    try:
        start = time.perf_counter()
        project = make_project(root, args.documents, args.questions, args.seed)
        made = time.perf_counter() - start
        print(f"{args.documents} one-paragraph documents, {args.questions} questions "
              f"(written in {made:.1f} s)")  # fmt: skip
        if args.profile:
            profile(project, root / "site")
            return
        status, wall, cpu, peak = build(project, root / "site")
        print(f"build: exit {status}, {wall:.1f} s wall, {cpu:.1f} s CPU, peak memory {peak} MB")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
