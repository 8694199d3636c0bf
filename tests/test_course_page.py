"""The course page's thirteen code blocks (docs/course-api.md), run as written, in order.

The blocks are read from the doc itself and executed in one namespace, as a reader runs them in
one session; what each prints is checked line by line for its *shape* — columns, types, which
ids appear, counts derived from the demo's labels — not for the demo's numbers, so that a change
of shape fails here and not in a reader's hands. Where the doc shows a block's output (a plain
fence right after the block), the printed text must be exactly that. The shell block runs as a
subprocess: the benchmark as written, the test command collected (the suite runs those tests).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from evidencedesk.chunking import load_document
from evidencedesk.paths import _ROOT, DUPS
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.evalreport import Config
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.metrics import per_question_all

PAGE = _ROOT / "docs" / "course-api.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
HEADINGS = (
    "1. Searchers",
    "2. Metrics: the worked example",
    "3. Means, intervals, flips and slices",
    "4. Configurations and what they cost",
    "5. Ablations",
    "6. Rerankers",
    "7. Evidence: duplicates",
    "8. Evidence: order and budget",
    "9. Evidence: citations",
    "10. Lifecycle: a new version, a deletion, an index not rebuilt",
    "11. Lifecycle: tenants",
    "12. The release gate",
    "13. The benchmark, and the kit's own tests",
)
NUM = r"(-?\d+\.\d{3})"  # a value printed with :.3f
ID = r"([a-z]{2}-[a-z0-9-]+:c\d+)"  # a chunk id


@dataclass(frozen=True)
class Block:
    language: str  # "python" or "bash"
    code: str
    shown: str | None  # the output the doc shows right after the block, if any


def page_blocks() -> list[Block]:
    text = PAGE.read_text(encoding="utf-8")
    fences = list(FENCE.finditer(text))
    blocks = []
    for i, fence in enumerate(fences):
        if fence.group(1) not in ("python", "bash"):
            continue
        after = fences[i + 1] if i + 1 < len(fences) else None
        adjacent = after is not None and not text[fence.end() : after.start()].strip()
        shown = after.group(2) if adjacent and after.group(1) == "" else None  # type: ignore[union-attr]
        blocks.append(Block(fence.group(1), fence.group(2), shown))
    return blocks


BLOCKS = page_blocks()


@dataclass(frozen=True)
class Page:
    printed: list[list[str]]  # each python block's printed lines, in page order
    ns: dict[str, Any]  # the reader's session after the last block


@pytest.fixture(scope="module")
def page() -> Page:
    ns: dict[str, Any] = {"__name__": "__course_page__"}
    printed = []
    for number, block in enumerate(BLOCKS, start=1):
        if block.language != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.code, f"{PAGE.name}, block {number}", "exec"), ns)  # noqa: S102
        printed.append(out.getvalue().splitlines())
    return Page(printed, ns)


@pytest.fixture(scope="module")
def demo():  # type: ignore[no-untyped-def]
    catalog = load_catalog()
    return catalog, load_labels(catalog=catalog)


def lines(page: Page, number: int) -> list[str]:
    """What block `number` (1 to 12, the python blocks) printed."""
    return page.printed[number - 1]


def match(pattern: str, line: str) -> re.Match[str]:
    found = re.fullmatch(pattern, line)
    assert found is not None, f"{line!r} does not have the shape {pattern!r}"
    return found


def test_the_page_is_thirteen_blocks_in_the_page_s_order() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert tuple(re.findall(r"^## (.+)$", text, re.M)) == HEADINGS
    assert [b.language for b in BLOCKS] == ["python"] * 12 + ["bash"]
    sections = re.split(r"^## .+$", text, flags=re.M)[1:]
    assert [s.count("```python") + s.count("```bash") for s in sections] == [1] * 13
    # the hand-worked example, the citation cases and the tenants show their output
    assert [n for n, b in enumerate(BLOCKS, start=1) if b.shown is not None] == [2, 9, 11]


@pytest.mark.parametrize(
    "number", [n for n, b in enumerate(BLOCKS, start=1) if b.shown is not None]
)
def test_a_block_prints_exactly_the_output_the_page_shows(page: Page, number: int) -> None:
    assert lines(page, number) == BLOCKS[number - 1].shown.splitlines()  # type: ignore[union-attr]


def test_block_1_searchers(page: Page, demo) -> None:  # type: ignore[no-untyped-def]
    catalog, _ = demo
    out = lines(page, 1)
    assert len(out) == 5
    rows = [match(rf"(\d) (\d\.\d{{4}}) {ID}", line).groups() for line in out[:3]]
    assert [int(rank) for rank, _, _ in rows] == [1, 2, 3]
    scores = [float(score) for _, score, _ in rows]
    assert scores == sorted(scores, reverse=True)
    assert {cid for _, _, cid in rows} <= catalog.allowed(Scope())
    assert out[3] == "[]"
    assert out[4] == repr([cid for _, _, cid in rows[:2]])


def test_block_3_means_intervals_flips_and_slices(page: Page, demo) -> None:  # type: ignore[no-untyped-def]
    _, labels = demo
    out = lines(page, 3)
    names = ["recall@3", "mrr", "ndcg@5", "ndcg@5:linear"]
    means = {}
    for name, line in zip(names, out[:4], strict=True):
        means[name] = float(match(rf"{re.escape(name)} +{NUM}", line).group(1))
    answerable = sum(label.answerable for label in labels)
    mean, n = match(rf"MRR {NUM} \((\d+) questions\)", out[4]).groups()
    assert (float(mean), int(n)) == (means["mrr"], answerable)
    twice = rf"95% interval \[{NUM}, {NUM}\]; again \[{NUM}, {NUM}\]"
    lo, hi, lo2, hi2 = map(float, match(twice, out[5]).groups())
    assert (lo, hi) == (lo2, hi2) and lo <= float(mean) <= hi
    better, worse, tied, p = match(
        r"hybrid vs sparse: (\d+) better, (\d+) worse, (\d+) tied, sign test p = (\d\.\d{3})",
        out[6],
    ).groups()
    assert int(better) + int(worse) + int(tied) == answerable
    ids = match(r"better: (.*)", out[7]).group(1).split(", ")
    assert len(ids) == int(better) and set(ids) <= {label.id for label in labels}
    tags = sorted({t for label in labels for t in label.tags})
    slices = [match(r"(\w+) +(\d\.\d{3}) \((\d+) questions\)", line).groups() for line in out[8:]]
    # a tag none of whose questions defines MRR (all unanswerable) is left out
    defined = [t for t in tags if any(t in q.tags and q.answerable for q in labels)]
    assert [tag for tag, _, _ in slices] == defined and "unanswerable" not in defined
    for tag, _, count in slices:
        tagged = [label for label in labels if tag in label.tags and label.answerable]
        assert int(count) == len(tagged)


def test_the_slice_line_formats_every_slice_by_tag_gives(page: Page) -> None:
    # the course's slice line, over the hybrid run: a slice with no defined question would
    # stop it with a TypeError on None
    metrics, run = page.ns["metrics"], page.ns["run"]
    slices = metrics.by_tag(run, "mrr")
    printed = [f"{t} {v:.2f}/{n}" for t, (v, n) in slices.items()]
    assert len(printed) == len(slices) and all(n > 0 for _, n in slices.values())
    assert metrics.by_tag_all(run, "mrr")["unanswerable"] == (None, 0)
    assert {t: s for t, s in metrics.by_tag_all(run, "mrr").items() if s[0] is not None} == slices


def test_per_question_leaves_the_undefined_out_so_the_page_s_mean_works(page: Page) -> None:
    ns = page.ns
    values, run = ns["values"], ns["run"]
    every = per_question_all(run, "mrr")
    undefined = [qid for qid, v in every.items() if v is None]
    assert len(undefined) == 3 and not set(undefined) & set(values)
    assert values == {qid: v for qid, v in every.items() if v is not None}
    assert sum(values.values()) / len(values) == pytest.approx(ns["summary"]["mrr"], abs=1e-12)
    # what per_question returns is accepted by paired, by_tag and bootstrap_ci
    metrics = ns["metrics"]
    assert metrics.paired(ns["other"], run) == ns["flips"]
    assert metrics.by_tag(run, "mrr", values) == metrics.by_tag(run, "mrr")
    assert metrics.bootstrap_ci(values, seed=0) == metrics.bootstrap_ci(every.values(), seed=0)


def test_bootstrap_ci_indexes_and_unpacks_like_a_pair_on_the_page(page: Page) -> None:
    ns = page.ns
    ci = ns["ci"]
    assert (ns["lo"], ns["hi"]) == (ci[0], ci[1]) == tuple(ci) == (ci.low, ci.high)
    assert len(ci) == 2 and ci.n == len(ns["values"]) and ci.low <= ci.mean <= ci.high


def columns(page: Page, number: int, pattern: str) -> list[tuple[str, ...]]:
    """The columns of every line block `number` printed, each line of the shape `pattern`."""
    return [match(pattern, line).groups() for line in lines(page, number)]


def test_block_4_run_config_and_costs(page: Page) -> None:
    row = rf"(baseline|pair reranker) +recall@3 {NUM}  MRR {NUM}  pairs/q (\d+\.\d)  "
    rows = columns(page, 4, row + r"tokens/q (\d+)  latency (\d+\.\d) ms")
    assert [r[0] for r in rows] == ["baseline", "pair reranker"]
    # hand-worked: no reranker scores nothing (4 ms), the pair reranker ten pairs (4 + 1.5 * 10)
    assert [(r[3], r[5]) for r in rows] == [("0.0", "4.0"), ("10.0", "19.0")]
    assert all(int(r[4]) > 0 for r in rows)


def test_ablate_runs_a_depth_below_final_as_the_page_does(page: Page) -> None:
    row = rf"(\S+) +MRR {NUM}  delta ([+-]\d\.\d{{3}})  \+(\d+)/-(\d+)  p (\d\.\d{{3}})  "
    rows = columns(page, 5, row + r"pairs/q (\d+\.\d)")
    assert [r[0] for r in rows] == ["(base)", "depth=3", "reranker=none", "max_words=8"]
    assert rows[0][2:5] == ("+0.000", "0", "0")
    # stage one fetches three chunks: three pairs scored, at most three reach the prompt
    assert [r[6] for r in rows] == ["10.0", "3.0", "0.0", "10.0"]
    depth_3 = page.ns["rows"][1]["run"]
    assert depth_3.config == Config(reranker="pair", final=5, depth=3) and depth_3.config.capped
    assert max(len(ids) for ids in depth_3.final_ids.values()) == 3


def test_block_6_rerankers(page: Page) -> None:
    out = lines(page, 6)
    assert len(match(r"\[('-?\d+\.\d\d'(, )?){3}\]", out[0]).group(0)) > 0
    rows = [match(rf"(\d) (-?\d+\.\d\d) {ID}", line).groups() for line in out[1:4]]
    assert [int(r[0]) for r in rows] == [1, 2, 3]
    assert [float(r[1]) for r in rows] == sorted((float(r[1]) for r in rows), reverse=True)
    pairs, ties = match(r"pairs scored: (\d+) ties at the top: (\d+)", out[4]).groups()
    assert (int(pairs), int(ties) <= 1) == (10, True)  # one question, depth 10


def test_the_demo_duplicates_reach_the_page_s_top_5(page: Page) -> None:
    out = lines(page, 7)
    ns = page.ns
    found, result = ns["found"], ns["result"]
    assert out == [
        f"found: {[c.chunk.id for c in found]}",
        f"kept: {[c.chunk.id for c in result.kept]}",
        f"merged: {result.merged}",
        f"held back: {result.held_back}",
    ]
    assert len(found) == 5
    texts = {c.chunk.id: c.chunk.text for c in found}
    # one copy of the 30-day rule merged into the other, the 14-day page held back against it
    [(kept, merged)] = result.merged.items()
    assert len(merged) == 1 and {kept, *merged} <= set(texts)
    assert all("within 30 days" in texts[cid] for cid in (kept, *merged))
    [(first, second)] = result.held_back
    assert first == kept and "within 14 days" in texts[second]
    assert second in [c.chunk.id for c in result.kept]
    # the copies are documents of the dups folder (the policy itself does not rank here)
    dups = {load_document(p).id for p in sorted(DUPS.glob("*.md"))}
    assert {cid.split(":")[0] for cid in (kept, *merged, second)} <= dups


def test_block_8_order_and_budget(page: Page) -> None:
    out = lines(page, 8)
    kept = [c.chunk.id for c in page.ns["result"].kept]
    assert out[0] == f"reading order: {kept[0::2] + kept[1::2][::-1]}"
    assert int(match(r"tokens: (\d+)", out[1]).group(1)) > 0
    fit, dropped = map(int, match(r"(\d+) fit in 150 tokens, (\d+) dropped", out[2]).groups())
    assert fit + dropped == len(kept)
    assert out[3] == f"the prompt gets: {kept[:fit]}"


def test_block_10_lifecycle(page: Page) -> None:
    out = lines(page, 10)
    v3 = [f"kc-returns-v3:c{n}" for n in range(len(page.ns["new_chunks"]))]
    assert out[0] == f"superseded: {tuple(v3)}"
    removed = ast.literal_eval(match(r"removed: (\(.*\))", out[1]).group(1))
    assert removed and all(cid.startswith("kc-returns-v2:c") for cid in removed)
    still = ast.literal_eval(match(r"old index still serves: (\[.*\])", out[2]).group(1))
    assert still and set(still) <= set(removed)  # an index not rebuilt serves deleted text
    assert out[3] == "rebuilt index serves: []"


def test_block_12_gate(page: Page) -> None:
    out = lines(page, 12)
    verdict = match(r"GATE: (GO|REVIEW|BLOCK)", out[0]).group(0)
    assert all(re.fullmatch(r"  (block|review|note): .+", line) for line in out[1:-1])
    assert out[-1] == verdict  # the saved baseline is the same Config() run: the same verdict


def _commands() -> list[list[str]]:
    block = BLOCKS[12]
    assert block.language == "bash"
    commands = [shlex.split(line) for line in block.code.splitlines() if line.strip()]
    assert [c[:3] for c in commands] == [
        ["python", "-m", "evidencedesk.retrieval.benchmark"],
        ["python", "-m", "pytest"],
    ]
    return commands


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    """A command of the page, run as a reader runs it from the repository's root."""
    return subprocess.run(
        command, cwd=_ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_block_13_the_benchmark_command_as_written() -> None:
    benchmark = _commands()[0]
    done = run([sys.executable, *benchmark[1:]])
    out = done.stdout.splitlines()
    # the site's own benchmark table: the baseline first, flips against it on the primary metric
    header = (r"variant +R@1 +R@3 +MRR +nDCG@5 \(exp gain\) +MRR 95% CI +Judged@3 "
              r"+flips vs hybrid +p +pairs/q")  # fmt: skip
    assert any(re.fullmatch(header, line) for line in out)
    verdict = match(r"GATE: (GO|REVIEW|BLOCK)", out[-1]).group(1)
    assert done.returncode == (1 if verdict == "BLOCK" else 0) and done.stderr == ""


def test_the_page_s_test_command_finds_the_kit_s_tests() -> None:
    pytest_command = _commands()[1]
    files = pytest_command[3:]
    modules = ("metrics", "rerankers", "evidence", "lifecycle", "evalreport")
    assert files == [f"tests/test_retrieval_{m}.py" for m in modules]
    # collected, not run again: the suite itself runs them
    done = run([sys.executable, *pytest_command[1:], "--collect-only", "-q"])
    assert done.returncode == 0, done.stdout + done.stderr
    counts = dict(re.findall(r"^(tests/test_retrieval_\w+\.py): (\d+)$", done.stdout, re.M))
    assert sorted(counts) == sorted(files) and all(int(n) > 0 for n in counts.values())
