"""Build a runs-only project of 50,000 questions x 1,000 documents x 3 runs.

Generates (seeded, with numpy byte matrices, so that 150 million run lines take a minute, not
half an hour) queries, graded qrels (0-3) and TREC runs in a temporary folder, then
builds the site with the real CLI as ``evidencedesk build --tune`` (every process setting: the
targets of docs/scale.md are met with them; ``--tune none`` builds as the command does by
default, with none) and prints the time per stage (the CLI's own lines), the total
wall-clock time, the peak memory of the build process (``resource.getrusage`` of the child, max
RSS) and the site's size and file count, and beside it the time a fresh process takes to read the
project's runs with pyarrow's ``read_csv`` alone (the floor; target: the build within 2x);
``--repeat N`` builds N times, each build followed by the floor, and prints the medians. ``--scaling`` also builds at 1/4 and 1/2 of the
questions (1x / 2x / 4x) and prints, measured in the same run, each size's total and per-stage
times with their ratio to the 1x build (the stages after the read, "gate" + "site model" +
"render", also on their own). With ``--keep DIR`` the projects stay in DIR and a later run with
the same DIR reuses them (generating 5.4 GB of runs takes minutes); every input is read once
before the first build, so that every build and every floor reads them from the page cache.
The sites are written to ``--out DIR`` (default: the same folder as the projects) as
``site-<questions>``, never into a project's folder.

    python benchmarks/runs_only_scale.py [--questions 50000] [--depth 1000] [--runs 3]
                                         [--scaling] [--keep DIR] [--out DIR] [--tune all]
                                         [--repeat 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _as_installed import as_installed


def _digits(mat: np.ndarray, column: int, numbers: np.ndarray, width: int) -> None:
    """Write `numbers` zero-padded into mat[:, column:column + width] as ASCII digits."""
    for k in range(width):
        mat[:, column + width - 1 - k] = 48 + (numbers // 10**k) % 10


def write_run(path: Path, docs: np.ndarray, name: str) -> None:
    """Fixed-width ``q00001 Q0 D001234 0001 1000 name`` lines, built as one byte matrix."""
    questions, depth = docs.shape
    head = np.frombuffer(f"q00000 Q0 D000000 0000 0000 {name}\n".encode(), dtype=np.uint8)
    with open(path, "wb") as out:
        for first in range(0, questions, 1000):  # 1,000 questions at a time: bounded memory
            n = min(1000, questions - first)
            mat = np.tile(head, (n * depth, 1))
            rank = np.tile(np.arange(1, depth + 1), n)
            _digits(mat, 1, np.repeat(np.arange(first, first + n), depth), 5)
            _digits(mat, 11, docs[first : first + n].ravel(), 6)
            _digits(mat, 18, rank, 4)
            _digits(mat, 23, depth + 1 - rank, 4)  # score: distinct, descending
            out.write(mat.tobytes())


def write_project(root: Path, questions: int, depth: int, runs: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    pool = 100_000
    qids = [f"q{n:05d}" for n in range(questions)]
    with (root / "queries.jsonl").open("w", encoding="utf-8") as out:
        for n, qid in enumerate(qids):
            out.write(
                json.dumps(
                    {
                        "_id": qid,
                        "text": f"question {n}",
                        "tags": [("short", "long", "rare")[n % 3]],
                    }
                )
                + "\n"
            )
    judged = rng.integers(0, pool, size=(questions, 12))
    grades = rng.choice([0, 1, 1, 2, 3], size=(questions, 12))
    with (root / "qrels.txt").open("w", encoding="utf-8") as out:
        for qid, docs, gs in zip(qids, judged, grades, strict=True):
            seen = {}
            for d, g in zip(docs.tolist(), gs.tolist(), strict=True):
                seen.setdefault(d, g)
            out.write("".join(f"{qid} 0 D{d:06d} {g}\n" for d, g in seen.items()))
    (root / "runs").mkdir()
    names = [f"engine{r}" for r in range(runs)]
    for r, name in enumerate(names):
        # distinct documents per question: a random offset and stride through the pool
        start = rng.integers(0, pool, size=(questions, 1))
        step = rng.choice([1, 3, 7, 11, 13], size=(questions, 1))
        docs = (start + step * np.arange(depth)) % pool
        # plant some judged documents near the top, more for later engines
        hits = rng.random((questions, 12)) < 0.3 + 0.1 * r
        places = rng.integers(0, min(30, depth), size=(questions, 12))  # within the list
        for i in np.flatnonzero(hits.any(axis=1)).tolist():
            row = docs[i]
            for d, place in zip(
                judged[i][hits[i]].tolist(), places[i][hits[i]].tolist(), strict=True
            ):
                if d not in row:
                    row[place] = d
        write_run(root / "runs" / f"{name}.run", docs, name)
    (root / "evidencedesk.toml").write_text(
        f'[project]\nname = "scale test"\n\n[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.txt"\n'
        f'relevance = 2\n\n[runs]\ndir = "runs"\nbaseline = "{names[0]}"\n',
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"


STAGES = ("load inputs", "benchmark", "gate", "site model", "render")
AFTER_READ = ("gate", "site model", "render")  # the statistics, the site model and the render


def tree_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def stage_times(output: str) -> dict[str, float]:
    """The CLI's ``  <stage>   <seconds> s`` lines."""
    times = {}
    for line in output.splitlines():
        match = re.fullmatch(r"\s+([a-z][a-z ]*?)\s+([0-9.]+) s", line)
        if match:
            times[match[1]] = float(match[2])
    return times


@dataclass(frozen=True)
class Build:
    questions: int
    seconds: float
    peak_gib: float
    site_bytes: int
    files: int
    stages: dict[str, float]
    floor: float = 0.0  # reading its runs alone (`read_floor`), measured in the same run
    # the kernel's share of each (system CPU seconds): on a VM whose memory comes slowly by
    # turns (docs/scale.md), a build and its floor slow down together, and this says which turn
    system: float = 0.0
    floor_system: float = 0.0

    @property
    def over_floor(self) -> float:
        return self.seconds / self.floor if self.floor else float("nan")

    @property
    def after_read(self) -> float:
        return sum(self.stages.get(s, 0.0) for s in AFTER_READ)


def _into_page_cache(folder: Path) -> float:
    """Read every file under `folder` once (seconds taken), so that the first build reads its
    inputs from the page cache as every later build and every floor does (each floor reads the
    runs a build has just read): where other work since they were written (the test suite, a
    larger project) pushed them out, the first build would otherwise read them from the disk,
    alone of all the timed processes."""
    started = time.perf_counter()
    buffer = bytearray(8 << 20)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        with open(path, "rb", buffering=0) as handle:
            while handle.readinto(buffer):
                pass
    return time.perf_counter() - started


def build_once(
    base: Path, questions: int, depth: int, runs: int, reuse: bool = False,
    out: Path | None = None, tune: str = "all", quiet: bool = False, repeat: int = 1,
) -> Build:  # fmt: skip
    """The build of the project ``project-<questions>`` in `base` (generated unless `reuse`
    finds it), with the real command line in a fresh process: ``evidencedesk build --tune
    TUNE`` (``none``: the command's default, the process as Python starts it), `repeat` times,
    each followed by the floor (`read_floor`): the medians of both, measured in turn, so that a
    machine that slows down part way slows both alike."""
    root = base / f"project-{questions}"
    project = root / "evidencedesk.toml"
    started = time.perf_counter()
    if reuse and project.is_file() and len(list((root / "runs").glob("*.run"))) == runs:
        if not quiet:
            print(f"reusing the project generated earlier in {root}", flush=True)
    else:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        project = write_project(root, questions, depth, runs)
    size = sum(p.stat().st_size for p in (root / "runs").iterdir())
    if not quiet:
        print(f"{questions} questions x {depth} documents x {runs} runs "
              f"({size / 1e6:.0f} MB of runs) ready in {time.perf_counter() - started:.1f} s",
              flush=True)  # fmt: skip
    warmed = _into_page_cache(root)
    if not quiet:
        print(f"every input read once into the page cache ({warmed:.1f} s)", flush=True)
    site_dir = (out or base) / f"site-{questions}"
    builds: list[tuple[float, dict[str, float]]] = []
    floors: list[float] = []
    systems: list[tuple[float, float]] = []  # (the build's, the floor's) system seconds
    peak = 0
    for attempt in range(1, repeat + 1):  # build, floor, build, floor, ...: interleaved
        shutil.rmtree(site_dir, ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        system_before = _system()
        started = time.perf_counter()
        command = [sys.executable, "-m", "evidencedesk.report", "build"]
        command += ["--project", str(project), "--out", str(site_dir), "--tune", tune]
        done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
        seconds = time.perf_counter() - started
        builds.append((seconds, stage_times(done.stdout)))
        if not quiet and attempt == 1:
            print(done.stdout, end="", flush=True)
        if attempt == 1:  # before any floor ran: the floors' processes count in it after
            largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, the largest
            # an earlier, larger child: the figure is an upper bound then
            peak = largest if largest > before else before
        between = _system()
        floors.append(read_floor(root / "runs"))
        systems.append((between - system_before, _system() - between))
        if not quiet:
            print(f"   attempt {attempt}: build {seconds:.1f} s (system {systems[-1][0]:.1f} s), "
                  f"reading its runs alone {floors[-1]:.1f} s (system {systems[-1][1]:.1f} s; "
                  f"load {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
    seconds = statistics.median(b[0] for b in builds)
    stages = {s: statistics.median(b[1].get(s, float("nan")) for b in builds) for s in STAGES}
    floor = statistics.median(floors)
    system, floor_system = (statistics.median(found) for found in zip(*systems, strict=True))
    site, files = tree_size(site_dir)
    if not quiet:
        print(f"== {questions} questions, evidencedesk build --tune {tune}: build "
              f"{seconds:.1f} s wall clock (median of {repeat}), peak memory (the first) "
              f"{peak / 2**20:.2f} GiB, site {site / 1e6:.1f} MB in {files} files ==",
              flush=True)  # fmt: skip
        print(f"   reading its runs alone (pyarrow read_csv, a fresh process, median of "
              f"{repeat}): {floor:.1f} s; the build: {seconds / floor:.2f}x that (target <= 2)",
              flush=True)  # fmt: skip
        print(f"   system time (medians): the build {system:.1f} s, the floor "
              f"{floor_system:.1f} s", flush=True)  # fmt: skip
    return Build(questions, seconds, peak / 2**20, site, files, stages, floor, system,
                 floor_system)  # fmt: skip


def _system() -> float:
    """System CPU seconds of the finished child processes so far."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime


# through malloc (the system pool), as the build reads: pyarrow's default pool (mimalloc) takes
# its large blocks as transparent huge pages, and on the 2-core VM of docs/scale.md a read of
# the 10,000-question runs took 1.9-2.2 s or 4.0-4.4 s by turns (3-5 s of system time), while
# through malloc it took 2.2 s every time: the floor is the steady one
_FLOOR = """
import sys, pyarrow as pa, pyarrow.csv as pacsv
names = ["q", "q0", "doc", "rank", "score", "tag"]
for path in sys.argv[1:]:
    pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                   parse_options=pacsv.ParseOptions(delimiter=" "),
                   memory_pool=pa.system_memory_pool())
"""


def read_floor(runs: Path) -> float:
    """Seconds a fresh process takes to read every run with pyarrow's ``read_csv`` and nothing
    else (one run at a time, through malloc, as the build reads them): the floor a build is
    measured against."""
    started = time.perf_counter()
    paths = sorted(str(p) for p in runs.glob("*.run"))
    subprocess.run([sys.executable, "-c", _FLOOR, *paths], check=True)
    return time.perf_counter() - started


def table(rows: list[Build]) -> str:
    """Every build's figures, and each one's ratio to the first (the 1x build)."""
    first = rows[0]
    head = ["questions", "total s", "x 1st", *(f"{s} s" for s in STAGES), "after read s",
            "x 1st", "peak GiB", "site MB", "files", "read s", "x read"]  # fmt: skip
    lines = ["  ".join(head)]
    for b in rows:
        cells = [f"{b.questions:>9}", f"{b.seconds:>7.1f}", f"{b.seconds / first.seconds:>5.2f}",
                 *(f"{b.stages.get(s, float('nan')):>{len(s) + 2}.1f}" for s in STAGES),
                 f"{b.after_read:>12.1f}",
                 f"{b.after_read / first.after_read if first.after_read else float('nan'):>5.2f}",
                 f"{b.peak_gib:>8.2f}", f"{b.site_bytes / 1e6:>7.1f}", f"{b.files:>5}",
                 f"{b.floor:>6.1f}", f"{b.over_floor:>6.2f}"]  # fmt: skip
        lines.append("  ".join(cells))
    return "\n".join(lines)


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scaling", action="store_true", help="also 1/4 and 1/2 the questions")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="keep projects and sites here (and reuse a project generated there before)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write the sites here (default: beside the projects)"
    )
    parser.add_argument(
        "--tune",
        default="all",
        metavar="SETTINGS",
        help="the build's --tune (default: all; none: as the command runs by default)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="builds and floors, interleaved: their medians"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = parser.parse_args()
    base = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-runs-only-"))
    sizes = [args.questions // 4, args.questions // 2, args.questions]
    rows = []
    try:
        for n in sizes if args.scaling else sizes[-1:]:
            rows.append(build_once(base, n, args.depth, args.runs, args.keep is not None,
                                   args.out, tune=args.tune, quiet=args.json,
                                   repeat=args.repeat))  # fmt: skip
            if args.keep is None:
                shutil.rmtree(base / f"project-{n}", ignore_errors=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps({"load": os.getloadavg()[0], "tune": args.tune,
                          "builds": [dataclasses.asdict(r) for r in rows]}))  # fmt: skip
        return
    print(f"\nevidencedesk build --tune {args.tune} (medians of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores when it ended)")  # fmt: skip
    print(table(rows))


if __name__ == "__main__":
    main()
