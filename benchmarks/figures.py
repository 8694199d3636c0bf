"""The one table of figures (README "Current figures"): runs the benchmarks, each in processes
of its own, and prints their figures as one Markdown table, the targets beside them.

    python benchmarks/figures.py [--quick] [--keep DIR] [--write README.md]

- `metrics_bench.py`: the documented calls (read, judge whole lists, four means) on a
  10,000-query x 1,000-document run, each tool in a fresh process, interleaved, against the
  pyarrow read (the floor) and pytrec_eval;
- `runs_only_scale.py`: the runs-only build of 10,000 and of 50,000 questions x 1,000
  documents x 3 runs (wall clock of the command, peak memory, site size), beside reading its
  runs alone;
- `large_build.py`: the pipeline build of 5,000 questions over 20,000 chunks, and its 1x / 2x /
  4x series;
- `process_tuning.py`: the 12,500-question runs-only build with every process setting
  (``--tune``) and with none (the command line's default);
- `minilm_bench.py`: the MiniLM int8 embedder's passages per second (when the extra is
  installed); `minilm_build.py`: the demo build with the extra against the same build without
  it; the demo build of the quick start; `audit_time.py`: the audit of a split site against its
  build, with and without the process settings; `site_size.py`: the weight of three sites.

``--quick`` runs each at a small size (to try the script: the figures mean little).
``--keep DIR`` keeps the generated projects in DIR and reuses them next time (the 50,000-question
runs take 5 GB and minutes to generate). ``--write FILE`` replaces the table between the lines
``<!-- figures:start -->`` and ``<!-- figures:end -->`` of FILE. The load average is printed:
the figures are only worth reading from a machine with nothing else running.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import metrics_bench
import process_tuning
from _as_installed import as_installed

HERE = Path(__file__).resolve().parent
START, END = "<!-- figures:start -->", "<!-- figures:end -->"


def run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(HERE / script), *args, "--json"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def demo_build() -> dict:
    """The demo site, as the quick start builds it: wall clock of the whole command, its first
    build (no MiniLM rows kept by an earlier one: ``EVIDENCEDESK_CACHE=off``)."""
    with tempfile.TemporaryDirectory(prefix="evidencedesk-demo-") as folder:
        out = Path(folder) / "site"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "evidencedesk.report", "build", "--out", str(out)],
                       check=True, capture_output=True, text=True,
                       env=dict(os.environ, EVIDENCEDESK_CACHE="off"))  # fmt: skip
        seconds = time.perf_counter() - start
        files = [p for p in out.rglob("*") if p.is_file()]
        pages = sum(p.suffix == ".html" for p in files)
        return {"seconds": seconds, "pages": pages, "bytes": sum(p.stat().st_size for p in files),
                "load": os.getloadavg()[0]}  # fmt: skip


def minilm(passages: int) -> dict:
    """Passages per second of the MiniLM int8 embedder (`minilm_bench.py`'s own lines)."""
    done = subprocess.run([sys.executable, str(HERE / "minilm_bench.py"), "--passages",
                           str(passages), "--agreement", "20"], capture_output=True, text=True)  # fmt: skip
    rates = [float(r) for r in re.findall(r"MiniLM int8 +([0-9.]+)/s", done.stdout)]
    loaded = re.search(r"loaded in ([0-9.]+) s", done.stdout)
    if done.returncode != 0 or len(rates) < 2 or loaded is None:
        return {"missing": (done.stdout + done.stderr).strip().splitlines()[-1:],
                "load": os.getloadavg()[0]}  # fmt: skip
    return {"demo": rates[0], "synthetic": rates[1], "passages": passages,
            "load_seconds": float(loaded[1]), "load": os.getloadavg()[0]}  # fmt: skip


def lines_of(script: str, *args: str) -> list[str]:
    """What a benchmark that prints a table (and no JSON) printed, line by line."""
    done = subprocess.run([sys.executable, str(HERE / script), *args], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout.splitlines()


def site_sizes(quick: bool) -> dict:
    """`site_size.py`'s sizes: the demo, 50 and 5,000 questions (MB)."""
    rows = lines_of("site_size.py", *(["--depth", "20"] if quick else []))
    found = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) > 2 and cells[1].endswith(" MB"):
            found[cells[0]] = float(cells[1].removesuffix(" MB"))
    return {"sizes": found, "load": os.getloadavg()[0]}


def minilm_build(quick: bool) -> dict:
    """`minilm_build.py`: the demo build with and without the [minilm] extra, and the ratio."""
    rows = lines_of("minilm_build.py", "--repeat", "1" if quick else "5")
    seconds = [float(m[1]) for r in rows if (m := re.search(r"([0-9.]+) s", r))]
    cpu = {m[1]: float(m[2]) for r in rows
           if (m := re.search(r"^CPU time (\w+) / .* = ([0-9.]+)x", r))}  # fmt: skip
    same = any(r.endswith("byte-identical: yes") for r in rows)
    # what this machine allows a cold build (minilm_build.py's bound and estimate)
    bound = [float(m[1]) for r in rows if (m := re.search(r"^bound: .* at best ([0-9.]+)x", r))]
    estimate = [float(m[1]) for r in rows
                if (m := re.search(r"^with the stages between .*: ([0-9.]+)x$", r))]  # fmt: skip
    by_cpu = [float(m[1]) for r in rows
              if (m := re.search(r"^bound by the CPU: .* at best ([0-9.]+)x$", r))]  # fmt: skip
    # the build that embeds its texts from its first line: what reordering the build reaches
    ahead = [float(m[1]) for r in rows
             if (m := re.search(r"^the build with the texts embedded from its first line .*?: "
                                r"[0-9.]+ s, ([0-9.]+)x", r))]  # fmt: skip
    # the rate of the model's products, and of a float32 product on one core of this machine
    rates = [(float(m[1]), float(m[2])) for r in rows
             if (m := re.search(r"^its arithmetic: .*?([0-9.]+) GFLOP/s of them over the "
                                r"whole run on one thread .* runs ([0-9.]+) GFLOP/s", r))]  # fmt: skip
    return {"cold": seconds[0], "warm": seconds[1], "without": seconds[2], "cpu": cpu,
            "same": same, "repeat": 1 if quick else 5, "load": os.getloadavg()[0],
            "bound": bound[0] if bound else None,
            "estimate": estimate[0] if estimate else None,
            "by_cpu": by_cpu[0] if by_cpu else None,
            "ahead": ahead[0] if ahead else None,
            "rates": rates[0] if rates else None}  # fmt: skip


def test_suite() -> dict:
    """The README's test command (the whole suite, every core), timed from outside: as the README
    writes it (the project's addopts hold -q; a second -q would drop the count of tests passed)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest"], cwd=HERE.parent,
                          capture_output=True, text=True)  # fmt: skip
    seconds = time.perf_counter() - start
    passed = re.search(r"(\d+) passed", done.stdout)
    # the tests that failed, by name (pytest's short summary): a FAILED row says which
    failed = [m[2] for m in re.finditer(r"^(FAILED|ERROR) (\S+)", done.stdout, re.M)]
    if done.returncode != 0:
        print(done.stdout[-4000:], file=sys.stderr)
    return {"seconds": seconds, "passed": int(passed[1]) if passed else 0,
            "ok": done.returncode == 0, "failed": failed, "load": os.getloadavg()[0]}  # fmt: skip


def measure(quick: bool, keep: Path | None) -> dict[str, dict]:
    kept = [] if keep is None else ["--keep", str(keep)]
    metrics = ["--queries", "1000", "--docs", "200", "--repeat", "1"] if quick else []
    scale = (["--questions", "2000", "--depth", "100"] if quick
             else ["--questions", "50000", "--repeat", "2"])  # fmt: skip
    scale10k = (["--questions", "1000", "--depth", "100"] if quick
                else ["--questions", "10000", "--repeat", "3"])  # fmt: skip
    audit = ["--questions", "120", "--repeat", "1"] if quick else []
    large = ["--questions", "100", "200", "400", "--chunks", "2000"] if quick else []
    tuning = ["--questions", "1000", "--depth", "100"] if quick else []
    return {
        "metrics": run("metrics_bench.py", *metrics),
        "scale10k": run("runs_only_scale.py", *scale10k, *kept),
        "scale": run("runs_only_scale.py", *scale, *kept),
        "large": run("large_build.py", *large),
        "tuning": run("process_tuning.py", *tuning, *kept),
        "minilm": minilm(200 if quick else 2000),
        "minilm_build": minilm_build(quick),
        "demo": demo_build(),
        "audit": run("audit_time.py", *audit, "--tune", "all", "--repeat", "1" if quick else "3"),
        "audit_default": run(
            "audit_time.py", *audit, "--tune", "none", "--repeat", "1" if quick else "5"
        ),  # fmt: skip
        "sizes": site_sizes(quick),
        "suite": {"load": 0.0} if quick else test_suite(),  # (too long to try)
    }


def table(found: dict[str, dict]) -> str:
    m, tools = found["metrics"], found["metrics"]["tools"]
    ours = tools[metrics_bench.EVIDENCEDESK]["seconds"]
    floor = tools[metrics_bench.FLOOR]["seconds"]
    rows = [
        "| benchmark (`benchmarks/`) | evidencedesk | beside it, same run | target |",
        "|---|---:|---|---|",
        f"| `metrics_bench.py`: the documented calls (read, judge whole lists, 4 means), "
        f"{m['queries']:,} × {m['docs']:,}, as a notebook runs them "
        f"| {ours:.2f} s | pyarrow read alone {floor:.2f} s: **{ours / floor:.2f}×** | ≤ 2× |",
    ]
    if "pytrec_eval" in tools:
        theirs = tools["pytrec_eval"]["seconds"]
        ranx = f"; ranx {tools['ranx']['seconds']:.2f} s" if "ranx" in tools else ""
        rows.append(f"| same | {ours:.2f} s | pytrec_eval {theirs:.2f} s: "
                    f"**{theirs / ours:.2f}×** evidencedesk's time{ranx} | ≥ 3× |")  # fmt: skip
    (n1, s1, f1), _, (n4, s4, f4) = m["scaling"]
    rows.append(f"| same, {n1:,} → {n4:,} queries | {s1:.2f} → {s4:.2f} s: **{s4 / s1:.2f}×** "
                f"| pyarrow read {f1:.2f} → {f4:.2f} s: {f4 / f1:.2f}×; growth "
                f"**{(s4 / s1) / (f4 / f1):.2f}×** the floor's | ≤ 1.2× the floor's |")  # fmt: skip
    tuned = tools[metrics_bench.TUNED]["seconds"]
    rows.append(f"| same, with `--tune`'s process settings | {tuned:.2f} s | | |")
    own = tools[metrics_bench.BUILD_PATH]["seconds"]
    rows.append(f"| same run: one run through the runs-only build's own path | {own:.2f} s | "
                f"pyarrow read alone {floor:.2f} s: **{own / floor:.2f}×** | ≤ 1.5× |")  # fmt: skip
    for key, target in (("scale10k", "≤ 2× the read"), ("scale", "≤ 30 s, ≤ 4 GB, ≤ 50 MB")):
        for b in found[key]["builds"]:
            floor = b.get("floor") or float("nan")
            rows.append(f"| `runs_only_scale.py`: runs-only build, {b['questions']:,} questions × "
                        f"3 runs, `--tune` | {b['seconds']:.1f} s, {b['peak_gib']:.2f} GiB, site "
                        f"{b['site_bytes'] / 1e6:.1f} MB; system time {b['system']:.1f} s | "
                        f"reading its runs alone {floor:.1f} s (system time "
                        f"{b['floor_system']:.1f} s): **{b['seconds'] / floor:.2f}×** | "
                        f"{target} |")  # fmt: skip
    large = found["large"]["builds"]
    first, last = large[0], large[-1]
    rows.append(f"| `large_build.py`: pipeline build, {last['questions']:,} questions, `--tune` | "
                f"{last['seconds']:.1f} s | {first['questions']:,} questions {first['seconds']:.1f}"
                f" s: **{last['seconds'] / first['seconds']:.2f}×** at "
                f"{last['questions'] // first['questions']}× | ≤ 60 s, ≤ 4.5× |")  # fmt: skip
    t = {b["setting"]: b for b in found["tuning"]["builds"]}
    tuned, default = t[process_tuning.TUNED]["seconds"], t[process_tuning.DEFAULT]["seconds"]
    rows.append(f"| `process_tuning.py`: runs-only build, {found['tuning']['questions']:,} "
                f"questions | {tuned:.1f} s with `--tune` | {default:.1f} s by default (no "
                f"tuning): **{default / tuned:.2f}×** | |")  # fmt: skip
    mini = found["minilm"]
    if "missing" not in mini:
        rows.append(f"| `minilm_bench.py`: MiniLM int8, one thread | {mini['demo']:.1f} passages/s "
                    f"on the demo's chunks, {mini['synthetic']:.1f}/s on {mini['passages']:,} "
                    f"synthetic; loads in {mini['load_seconds']:.1f} s | | |")  # fmt: skip
    d = found["demo"]
    rows.append(f"| the demo: `python -m evidencedesk.report build`, a first build | {d['seconds']:.1f} s, "
                f"{d['pages']} pages, {d['bytes'] / 1e6:.1f} MB | | |")  # fmt: skip
    b = found["minilm_build"]
    for kind, how in (("cold", "every text embedded (no rows kept)"),
                      ("warm", "the rows an earlier build kept (byte-identical site: "
                       f"{'yes' if b['same'] else 'NO'})")):  # fmt: skip
        allowed = ""  # the lowest ratio this machine allows a cold build, and an estimate
        if kind == "cold" and b["bound"] is not None and b["estimate"] is not None:
            allowed = (f"; at best {b['bound']:.2f}× here (the model alone on both cores between "
                       f"reading the texts and the site), about {b['estimate']:.2f}× with the "
                       "stages between")  # fmt: skip
            if b["by_cpu"] is not None:
                allowed += (f"; at best {b['by_cpu']:.2f}× by the CPU its work needs on "
                            f"{os.cpu_count()} cores, in any order")  # fmt: skip
            if b["ahead"] is not None:
                allowed += (f"; measured with its texts embedded from its first line (the "
                            f"earliest any order of its work starts the model) {b['ahead']:.2f}×")  # fmt: skip
            if b["rates"] is not None:
                allowed += (f"; its matrix products' operations at {b['rates'][0]:.1f} "
                            f"GFLOP/s over the model's whole run, a float32 product on one "
                            f"core {b['rates'][1]:.1f}")  # fmt: skip
        rows.append(f"| `minilm_build.py`: the demo build with the `[minilm]` extra, {how} "
                    f"(median of {b['repeat']}) | {b[kind]:.2f} s | without it "
                    f"{b['without']:.2f} s: **{b[kind] / b['without']:.2f}×** (CPU "
                    f"{b['cpu'][kind]:.2f}×){allowed} | ≤ 1.3× |")  # fmt: skip
    for key, how in (("audit", "both with `--tune`"), ("audit_default", "both as they run by "
                     "default (no process setting: the audit reads its pages in one process, the "
                     "recomputation on a thread)")):  # fmt: skip
        a = found[key]
        split = "split " if a["questions"] > 500 else ""  # (the site of more than 500)
        rows.append(f"| `audit_time.py`: `evidencedesk audit` of a {a['questions']:,}-question "
                    f"{split}site, {how} (median of {a['repeat']}) | {a['audit']:.2f} s | its build "
                    f"{a['build']:.2f} s: **{a['audit'] / a['build']:.2f}×** (CPU "
                    f"{a['audit_cpu'] / a['build_cpu']:.2f}×) | ≤ 1× |")  # fmt: skip
    z = found["sizes"]["sizes"]
    rows.append("| `site_size.py`: site weight (plotly.js basic bundle) | "
                + ", ".join(f"{k} {v:.2f} MB" for k, v in z.items())
                + " | | ≤ 3 MB, ≤ 3 MB, ≤ 25 MB |")  # fmt: skip
    t = found["suite"]
    if "seconds" in t:
        rows.append(f"| the README's test command, `python -m pytest` | {int(t['seconds'] // 60)} min "
                    f"{t['seconds'] % 60:02.0f} s, {t['passed']:,} tests"
                    f"{'' if t['ok'] else ', FAILED: ' + (', '.join(t['failed']) or '?')} | | "
                    "≤ 3 min |")  # fmt: skip
    load = max(found[k]["load"] for k in found)
    rows.append("")
    rows.append(f"Measured on {os.cpu_count()} cores (load average at most {load:.1f} when a "
                "benchmark ended) by `python benchmarks/figures.py`, each row by the script it "
                "names, evidencedesk's bytecode cached as an installed package's is "
                "(docs/scale.md).")  # fmt: skip
    return "\n".join(rows)


def write(path: Path, text: str) -> None:
    doc = path.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        sys.exit(f"{path}: expected the lines {START} and {END}, found them missing")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    as_installed()  # time the package as pip installs it (benchmarks/_as_installed.py)
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
