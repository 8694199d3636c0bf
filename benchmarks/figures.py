"""The one table of figures (README "Speed and scale"): runs the benchmarks, each in processes
of its own, and prints their figures as one Markdown table, the targets beside them.

    python benchmarks/figures.py [--quick] [--keep DIR] [--write README.md]

- `metrics_bench.py`: read + judge + four means of a 10,000-query x 1,000-document run, each
  tool in a fresh process, against the pyarrow read (the floor) and pytrec_eval;
- `runs_only_scale.py`: the runs-only build of 50,000 questions x 1,000 documents x 3 runs
  (wall clock of the command, peak memory, site size);
- `large_build.py`: the pipeline build of 5,000 questions over 20,000 chunks, and its 1x / 2x /
  4x series;
- `process_tuning.py`: the 12,500-question runs-only build with every process setting and with
  none.

``--quick`` runs each at a small size (to try the script: the figures mean little).
``--keep DIR`` keeps the generated projects in DIR and reuses them next time (the 50,000-question
runs take 5 GB and minutes to generate). ``--write FILE`` replaces the table between the lines
``<!-- figures:start -->`` and ``<!-- figures:end -->`` of FILE. The load average is printed:
the figures are only worth reading from a machine with nothing else running.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- figures:start -->", "<!-- figures:end -->"


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(HERE / script), *args, "--json"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(quick: bool, keep: Path | None) -> dict[str, dict]:
    kept = [] if keep is None else ["--keep", str(keep)]
    metrics = ["--queries", "1000", "--docs", "200", "--repeat", "1"] if quick else []
    scale = ["--questions", "2000", "--depth", "100"] if quick else ["--questions", "50000"]
    large = ["--questions", "100", "200", "400", "--chunks", "2000"] if quick else []
    tuning = ["--questions", "1000", "--depth", "100"] if quick else []
    return {
        "metrics": run("metrics_bench.py", *metrics),
        "scale": run("runs_only_scale.py", *scale, *kept),
        "large": run("large_build.py", *large),
        "tuning": run("process_tuning.py", *tuning, *kept),
    }


def table(found: dict[str, dict]) -> str:
    m, tools = found["metrics"], found["metrics"]["tools"]
    ours = tools["evidencedesk"]["seconds"]
    floor = tools["pyarrow read only"]["seconds"]
    rows = [
        "| benchmark (`benchmarks/`) | evidencedesk | beside it, same run | target |",
        "|---|---:|---|---|",
        f"| `metrics_bench.py`: read + judge + 4 means, {m['queries']:,} × {m['docs']:,} "
        f"| {ours:.2f} s | pyarrow read alone {floor:.2f} s: **{ours / floor:.2f}×** | ≤ 2× |",
    ]
    if "pytrec_eval" in tools:
        theirs = tools["pytrec_eval"]["seconds"]
        rows.append(f"| same | {ours:.2f} s | pytrec_eval {theirs:.2f} s: "
                    f"**{theirs / ours:.2f}×** evidencedesk's time | ≥ 4× |")  # fmt: skip
    (n1, s1), _, (n4, s4) = m["scaling"]
    rows.append(f"| same, {n1:,} → {n4:,} queries | {s1:.2f} → {s4:.2f} s: "
                f"**{s4 / s1:.2f}×** | | ≤ 4.5× |")  # fmt: skip
    untuned = tools["evidencedesk, no process settings"]["seconds"]
    rows.append(f"| same, without the process settings | {untuned:.2f} s | | |")
    for b in found["scale"]["builds"]:
        rows.append(f"| `runs_only_scale.py`: runs-only build, {b['questions']:,} questions × 3 "
                    f"runs | {b['seconds']:.1f} s, {b['peak_gib']:.2f} GiB, site "
                    f"{b['site_bytes'] / 1e6:.1f} MB | | ≤ 60 s, ≤ 4 GB, ≤ 50 MB |")  # fmt: skip
    large = found["large"]["builds"]
    first, last = large[0], large[-1]
    rows.append(f"| `large_build.py`: pipeline build, {last['questions']:,} questions | "
                f"{last['seconds']:.1f} s | {first['questions']:,} questions {first['seconds']:.1f}"
                f" s: **{last['seconds'] / first['seconds']:.2f}×** at "
                f"{last['questions'] // first['questions']}× | ≤ 60 s, ≤ 4.5× |")  # fmt: skip
    t = {b["setting"]: b for b in found["tuning"]["builds"]}
    rows.append(f"| `process_tuning.py`: runs-only build, {found['tuning']['questions']:,} "
                f"questions | {t['all']['seconds']:.1f} s with the process settings | "
                f"{t['none']['seconds']:.1f} s without: "
                f"**{t['none']['seconds'] / t['all']['seconds']:.2f}×** | |")  # fmt: skip
    load = max(found[k]["load"] for k in found)
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    rows.append("")
    rows.append(f"Measured {day} on {os.cpu_count()} cores (load average at most {load:.1f} "
                f"when a benchmark ended) by `python benchmarks/figures.py`.")  # fmt: skip
    return "\n".join(rows)


def write(path: Path, text: str) -> None:
    doc = path.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        sys.exit(f"{path}: expected the lines {START} and {END}, found them missing")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to try the script")
    parser.add_argument("--keep", type=Path, default=None, help="keep and reuse projects here")
    parser.add_argument("--write", type=Path, default=None, help="replace the table in FILE")
    args = parser.parse_args()
    text = table(measure(args.quick, args.keep))
    print(text)
    if args.write is not None:
        write(args.write, text)


if __name__ == "__main__":
    main()
