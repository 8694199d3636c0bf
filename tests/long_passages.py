"""A runs-only project over a corpus of abstracts: question q01 has 30 judged passages of about
1,500 characters each, with long ids and titles, and two runs that rank 25 of them (the pages
list the top 20). Beside it, 36 short questions: the candidate ranks the answer first on all of
them, the baseline on the first 3 only, so the candidate wins 33 questions (a flips bar of +33,
whose label must not be clipped) and loses q01. Seeded: the same project every time."""

from __future__ import annotations

import atexit
import io
import json
import random
import shutil
import tempfile
from functools import cache
from pathlib import Path

from evidencedesk import cli
from tests.synthetic_runs import write_project

WORDS = (
    "retrieval evaluation assessor judgment pooling relevance graded corpus abstract query "
    "ranking reciprocal precision recall interval bootstrap paired significance collection "
    "passage document topic system baseline candidate rerank lexical dense sparse embedding "
    "cross encoder bias depth condensed unjudged effect variance sample agreement protocol"
).split()
LONG = 30  # judged passages of q01
SHORT = tuple(f"q{n:02d}" for n in range(2, 38))
WINS = 33  # short questions the candidate wins


def abstract(rng: random.Random, length: int = 1500) -> str:
    """About `length` characters of sentences, in two paragraphs."""
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < length:
        sentence = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
        words += [sentence[0].capitalize(), *sentence[1:-1], sentence[-1] + "."]
    half = len(words) // 2
    return " ".join(words[:half]) + "\n\n" + " ".join(words[half:])


def doc_id(n: int) -> str:
    return f"doi:10.5555/collection.abstracts.2024.{n:05d}-revised-version"


def write_long_passages(root: Path) -> Path:
    """The project's evidencedesk.toml."""
    rng = random.Random(27)
    long_ids = [doc_id(n) for n in range(LONG)]
    qrels = {"q01": {d: 3 - (i % 3) for i, d in enumerate(long_ids)}}
    base = {"q01": long_ids[:25]}
    cand = {"q01": long_ids[1:25] + long_ids[:1]}
    corpus = [{"_id": d, "title": f"A study of {' '.join(rng.sample(WORDS, 9))}",
               "text": abstract(rng)} for d in long_ids]  # fmt: skip
    for i, q in enumerate(SHORT):
        rel, other = f"{q}-answer", f"{q}-other"
        qrels[q] = {rel: 2}
        base[q] = [other, rel] if i < WINS else [rel, other]
        cand[q] = [rel, other]
        corpus += [{"_id": d, "title": f"Short {d}", "text": f"A short passage {d}."}
                   for d in (rel, other)]  # fmt: skip
    toml = write_project(root, qrels, {"base": base, "cand": cand})
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), "utf-8")
    text = toml.read_text("utf-8")
    toml.write_text(text + '\n[documents]\ncorpus = "corpus.jsonl"\nindex = false\n', "utf-8")
    return toml


@cache
def built_site(which: str) -> Path:
    """This project ("long") built once per test process (the page and browser tests share it;
    the runs-only example is the session's `example_site("runs-only")`, tests/conftest.py)."""
    assert which == "long", which
    root = Path(tempfile.mkdtemp(prefix=f"ed-{which}-"))
    atexit.register(shutil.rmtree, root, True)
    project = write_long_passages(root / "project")
    out = root / "site"
    args = ["build", "--project", str(project), "--out", str(out), "--quiet"]
    assert cli.main(args, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    return out
