"""What the command line's process settings buy: one runs-only build with all of them
(``--tune``), with none (the default), and with each one left out (``--tune`` with the other
names; `evidencedesk.cli._process.Tuning`).

    python benchmarks/process_tuning.py [--questions 12500] [--depth 1000] [--runs 3]
                                        [--repeat 1] [--keep DIR] [--json]

The command line applies no process setting by default. This script generates (or, with
``--keep DIR``, reuses) the project of `benchmarks/runs_only_scale.py` and builds it with the
real command line in a fresh process per build, each build's settings passed explicitly as
``evidencedesk build --tune SETTINGS`` (``--tune none`` for the default, which also overrides an
``EVIDENCEDESK_TUNING`` the environment may hold). Prints each build's wall clock and peak
memory (median of ``--repeat``) and its ratio to the build with every setting (after one untimed
build that generates the project and brings its files into the page cache): ``--tune`` pays when
the default is slower, and a setting pays when leaving it out is slower (or, for ``trim``, takes
more memory). The sites are the same bytes in every case (the settings change how the process
runs, not what it computes; the script checks results.json's hash).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from _as_installed import as_installed
from runs_only_scale import build_once

from evidencedesk.cli._process import TUNINGS

TUNED, DEFAULT = "--tune", "default (none)"  # the labels of the first two rows


def settings() -> list[tuple[str, str]]:
    """(label, the build's --tune) for every build: all, none (the default), all but each one."""
    rows = [(TUNED, "all"), (DEFAULT, "none")]
    rows += [(f"--tune without {name}", ",".join(t for t in TUNINGS if t != name))
             for name in TUNINGS]  # fmt: skip
    return rows


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=12_500)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="keep (and reuse) the project here")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    base = Path(args.keep or tempfile.mkdtemp(prefix="evidencedesk-tuning-"))
    sites = Path(tempfile.mkdtemp(prefix="evidencedesk-tuning-sites-"))
    rows = []
    try:  # a first build, not timed: the project generated (or found) and its files in cache
        build_once(base, args.questions, args.depth, args.runs, reuse=args.keep is not None,
                   out=sites, tune="none", quiet=True)  # fmt: skip
        for label, value in settings():
            builds = [build_once(base, args.questions, args.depth, args.runs, reuse=True,
                                 out=sites, tune=value, quiet=True)
                      for _ in range(args.repeat)]  # fmt: skip
            results = sites / f"site-{args.questions}" / "results.json"
            digest = hashlib.sha256(results.read_bytes()).hexdigest()[:16]
            rows.append({"setting": label, "tuning": value,
                         "seconds": statistics.median(b.seconds for b in builds),
                         "peak_gib": statistics.median(b.peak_gib for b in builds),
                         "results": digest})  # fmt: skip
            if not args.json:
                print(f"  {label:<26} {rows[-1]['seconds']:6.1f} s  "
                      f"{rows[-1]['peak_gib']:.2f} GiB", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(sites, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    same = len({r["results"] for r in rows}) == 1
    found = {"questions": args.questions, "load": os.getloadavg()[0], "default": "none",
             "builds": rows, "same_results": same}  # fmt: skip
    if args.json:
        print(json.dumps(found))
        return
    first = rows[0]
    print("\nevidencedesk build applies no process setting by default; --tune applies them all")
    print(f"\n| {args.questions:,} questions x {args.runs} runs | build (s) | x --tune "
          "| peak (GiB) |")  # fmt: skip
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['setting']} | {r['seconds']:.1f} | {r['seconds'] / first['seconds']:.2f} | "
              f"{r['peak_gib']:.2f} |")  # fmt: skip
    print(f"\nresults.json the same in every build: {'yes' if same else 'NO'}")
    print(f"load average when it ended: {found['load']:.2f} (2 cores)")


if __name__ == "__main__":
    main()
