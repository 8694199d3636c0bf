"""Build a large pipeline project: 5,000 questions over 20,000 chunks.

Generates (seeded) a project in a temporary folder -- Markdown documents with front matter in
``corpus/`` (10 paragraphs each, one chunk per paragraph), ``labels.jsonl`` with tags and graded
labels (0-2; some questions unanswerable), ``candidates.toml`` with a few candidates and a gate
policy, no baseline -- builds it with the real CLI, ``evidencedesk build --project P --tune``
(every process setting: the targets of docs/scale.md are met with them; ``--tune none`` builds
as the command does by default, with none), and prints the CLI's time per stage and the site's
size. The same corpus is built with 1x, 2x and 4x the questions (1,250,
2,500 and 5,000 by default) and the ratio of each build time to the first is printed: the
pipeline's cost should grow linearly with the questions (4x the questions <= 4.5x the time).
Each build's CPU time (user + system, of the build process) is printed beside its wall time:
on a shared machine the wall time also counts the time the build waited for a core.
Above 500 questions only questions that flip or fail in some candidate get a page; the index
says how many were left out.

    python benchmarks/large_build.py [--questions 1250 2500 5000] [--chunks 20000] [--seed 0]
                                     [--keep DIR] [--tune all]
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

from _as_installed import as_installed

REPO = Path(__file__).resolve().parent.parent
PARAGRAPHS = 10  # per document: chunks = documents x PARAGRAPHS
TAGS = ("direct", "paraphrase", "exact_term", "structured", "unanswerable")
CANDIDATES = """\
[[candidate]]
name = "rerank overlap"
rationale = "Reorder the hybrid top 10 by plain word overlap with the question."
changes = { reranker = "overlap" }

[[candidate]]
name = "rerank feature"
rationale = "Reorder the hybrid top 10 with the four-feature lexical scorer."
changes = { reranker = "feature" }

[[candidate]]
name = "sparse first stage"
rationale = "BM25 alone, no fusion."
changes = { first_stage = "sparse" }

[[candidate]]
name = "final 5"
rationale = "Put five chunks in the prompt instead of three."
changes = { final = 5, depth = 10 }
"""


def words(rng: random.Random, n: int) -> list[str]:
    syllables = ("ka", "lo", "mi", "ta", "ren", "so", "vi", "dun", "pe", "xo", "bra", "ul", "ni")
    out = set()
    while len(out) < n:
        out.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(out)


def write_corpus(root: Path, chunks: int, seed: int) -> list[list[list[str]]]:
    """Documents under root/corpus; returns each document's paragraphs as word lists."""
    rng = random.Random(seed)
    vocab = words(rng, 6000)
    common = vocab[:300]
    (root / "corpus").mkdir(parents=True)
    docs: list[list[list[str]]] = []
    for d in range(-(-chunks // PARAGRAPHS)):
        topic = rng.sample(vocab[300:], 40)
        paras = []
        for _ in range(PARAGRAPHS):
            n = rng.randint(25, 60)
            paras.append([rng.choice(topic) if rng.random() < 0.5 else rng.choice(common)
                          for _ in range(n)])  # fmt: skip
        docs.append(paras)
        status = "superseded" if d % 97 == 5 else "current"
        visibility = "restricted" if d % 89 == 7 else "public"
        body = "\n\n".join(" ".join(p).capitalize() + "." for p in paras)
        (root / "corpus" / f"doc{d:05d}.md").write_text(
            f"---\nid: doc{d:05d}\ntitle: {' '.join(topic[:3]).title()}\nversion: 1\n"
            f"status: {status}\nvisibility: {visibility}\nlanguage: en\n---\n{body}\n",
            encoding="utf-8",
        )
    return docs


def write_labels(root: Path, docs: list[list[list[str]]], questions: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    usable = [d for d in range(len(docs)) if d % 97 != 5 and d % 89 != 7]
    qids = []
    with (root / "labels.jsonl").open("w", encoding="utf-8") as out:
        for q in range(questions):
            qid = f"q{q:05d}"
            qids.append(qid)
            d = rng.choice(usable)
            p = rng.randrange(PARAGRAPHS)
            para = docs[d][p]
            unanswerable = q % 20 == 19
            noise = rng.random()
            picked = rng.sample(para, 6) + ([rng.choice(docs[rng.choice(usable)][0])] * 2)
            text = " ".join(picked[: 4 + int(noise * 4)])
            grades = {f"doc{d:05d}:c{p}": 1 if unanswerable else 2}
            for other in rng.sample(range(PARAGRAPHS), 2):
                if other != p:
                    grades[f"doc{d:05d}:c{other}"] = rng.choice((0, 1))
            tags = [TAGS[q % 4]] + (["unanswerable"] if unanswerable else [])
            row = {"id": qid, "question": f"What about {text}?", "tags": tags,
                   "answerable": not unanswerable, "grades": grades}  # fmt: skip
            out.write(json.dumps(row) + "\n")
    return qids


def write_project(root: Path, docs: list[list[list[str]]], questions: int, seed: int) -> Path:
    qids = write_labels(root, docs, questions, seed)
    (root / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    critical = [q for n, q in enumerate(qids) if n % 20 != 19][:3]
    (root / "gate_policy_retrieval.json").write_text(
        json.dumps(
            {
                "k": 3,
                "min_recall": 0.3,
                "min_pass_rate": 0.3,
                "max_drop": 0.02,
                "critical": critical,
                "review_on_mrr_flips": True,
            },  # fmt: skip
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    (root / "evidencedesk.toml").write_text(
        f'[project]\nname = "generated large project ({questions} questions)"\nseed = {seed}\n\n'
        '[documents]\nfolders = ["corpus"]\nchunking = "paragraph"\n\n'
        '[questions]\nlabels = "labels.jsonl"\nrelevance = 2\n\n'
        '[report]\ncandidates = "candidates.toml"\n\n'
        '[gate]\npolicy = "gate_policy_retrieval.json"\n',
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"


def tree_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def build(project: Path, out: Path, tune: str = "all") -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, the CLI's output) of one build with ``--tune TUNE``."""
    started, cpu = time.perf_counter(), _cpu()
    command = [sys.executable, "-m", "evidencedesk.report", "build",
               "--project", str(project), "--out", str(out), "--tune", tune]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"build failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return seconds, _cpu() - cpu, done.stdout


def main(argv: list[str] | None = None) -> int:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--questions", type=int, nargs="+", default=[1250, 2500, 5000])
    p.add_argument("--chunks", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", type=Path, default=None, help="keep the projects and sites here")
    p.add_argument(
        "--tune",
        default="all",
        metavar="SETTINGS",
        help="the build's --tune (default: all; none: as the command runs by default)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = p.parse_args(argv)
    base = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-large-"))
    base.mkdir(parents=True, exist_ok=True)
    corpus_root = base / "corpus-template"
    shutil.rmtree(corpus_root, ignore_errors=True)
    started = time.perf_counter()
    docs = write_corpus(corpus_root, args.chunks, args.seed)
    print(f"generated {len(docs)} documents, {len(docs) * PARAGRAPHS} chunks "
          f"in {time.perf_counter() - started:.1f} s ({base})")  # fmt: skip
    rows = []
    try:
        for n in args.questions:
            root = base / f"project-{n}"
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(corpus_root, root)
            project = write_project(root, docs, n, args.seed)
            seconds, cpu, stdout = build(project, root / "site", args.tune)
            size, files = tree_size(root / "site")
            question_pages = list((root / "site").glob("question-*.html"))
            pages = len(question_pages)
            qbytes = sum(q.stat().st_size for q in question_pages)
            print(f"\n== {n} questions, evidencedesk build --tune {args.tune}: build "
                  f"{seconds:.1f} s (CPU {cpu:.1f} s), site "
                  f"{size / 1e6:.1f} MB, {files} files, {pages} question pages "
                  f"({qbytes / 1e6:.1f} MB) ==")  # fmt: skip
            print(stdout.rstrip())
            rows.append((n, seconds, cpu, size, files, pages, qbytes))
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        keys = ("questions", "seconds", "cpu", "site_bytes", "files", "pages", "page_bytes")
        print(json.dumps({"load": os.getloadavg()[0], "tune": args.tune,
                          "builds": [dict(zip(keys, row, strict=True)) for row in rows]}))  # fmt: skip
        return 0
    print(f"\nevidencedesk build --tune {args.tune}")
    print("questions  build (s)  x first  CPU (s)  x first  site (MB)  files  question pages"
          "  their MB  rest (MB)")  # fmt: skip
    for n, seconds, cpu, size, files, pages, qbytes in rows:
        print(f"{n:>9}  {seconds:>9.1f}  {seconds / rows[0][1]:>7.2f}  {cpu:>7.1f}  "
              f"{cpu / rows[0][2]:>7.2f}  {size / 1e6:>9.1f}  {files:>5}  {pages:>14}  "
              f"{qbytes / 1e6:>8.1f}  {(size - qbytes) / 1e6:>9.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
