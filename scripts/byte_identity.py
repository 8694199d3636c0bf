"""Byte-identity of the sites a change must not alter: save their hashes, then check them.

    python scripts/byte_identity.py save HASHES.json   # before the change
    python scripts/byte_identity.py check HASHES.json  # after: exit 1 naming what differs

Builds, each into a temporary folder with the real command line: the demo, the example
pipeline project (examples/millbrook-library), its runs-only twin, a generated runs-only
project of every trait a team brings (tests/generated_projects.py, seed 1) and a generated
pipeline project of 1,250 questions over 2,000 chunks (benchmarks/large_build.py's
generator), and hashes every file of every site (sha256). `check` prints one line per site that
differs, with the files that were added, removed or changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))  # the benchmarks import their helpers by name


def projects(scratch: Path) -> dict[str, Path | None]:
    from benchmarks.large_build import write_corpus, write_labels, write_project
    from tests.generated_projects import generated

    generated_toml, _ = generated(scratch / "generated", 1)
    large = scratch / "large"
    large.mkdir()
    docs = write_corpus(large, 2_000, 0)
    write_labels(large, docs, 1_250, 0)
    large_toml = write_project(large, docs, 1_250, 0)
    return {
        "demo": None,
        "millbrook": ROOT / "examples" / "millbrook-library",
        "millbrook-runs-only": ROOT / "examples" / "millbrook-library" / "runs-only",
        "generated": generated_toml,
        "large": large_toml,
    }


def hashes(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}  # fmt: skip


def build_all() -> dict[str, dict[str, str]]:
    found = {}
    with tempfile.TemporaryDirectory(prefix="ed-identity-") as tmp:
        scratch = Path(tmp)
        for name, project in projects(scratch).items():
            out = scratch / "sites" / name
            command = [
                sys.executable,
                "-m",
                "evidencedesk.report",
                "build",
                "--out",
                str(out),
                "-q",
            ]
            # the reproduce command holds --project as typed: the project folder's name, typed
            # in its parent, so that a scratch folder's random name stays out of the sites
            folder = None if project is None else project if project.is_dir() else project.parent
            if folder is not None:
                command += ["--project", folder.name]
            cwd = ROOT if folder is None else folder.parent
            done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(
                    f"{name}: the build exited {done.returncode}: {done.stderr.strip()}"
                )
            found[name] = hashes(out)
            print(f"{name}: {len(found[name])} files", flush=True)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("save", "check"))
    parser.add_argument("hashes", type=Path)
    args = parser.parse_args()
    found = build_all()
    if args.action == "save":
        args.hashes.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"saved: {args.hashes}")
        return 0
    saved = json.loads(args.hashes.read_text("utf-8"))
    differ = 0
    for name in sorted(set(saved) | set(found)):
        before, after = saved.get(name, {}), found.get(name, {})
        if before == after:
            print(f"same: {name}")
            continue
        differ += 1
        changed = sorted(f for f in set(before) & set(after) if before[f] != after[f])
        added, removed = sorted(set(after) - set(before)), sorted(set(before) - set(after))
        print(f"DIFFERS: {name}: changed {changed[:8]}, added {added[:8]}, removed {removed[:8]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
