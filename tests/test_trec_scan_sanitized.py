"""The compiled run scan reads untrusted bytes: random windows through it, built with
AddressSanitizer and UndefinedBehaviorSanitizer (tests/data/scan_fuzz.c), must end without a
report. Skipped where no C compiler with the sanitizers is at hand."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCAN = REPO / "evidencedesk" / "files" / "_trec_scan.c"
DRIVER = REPO / "tests" / "data" / "scan_fuzz.c"
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    program = tmp_path_factory.mktemp("scan") / "scan_fuzz"
    built = subprocess.run(
        [compiler, "-O1", "-g", "-fno-omit-frame-pointer", *SANITIZERS, "-o", str(program),
         str(DRIVER), str(SCAN)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"no sanitizers with {compiler}: {built.stderr.strip()[:200]}")
    return program


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_windows_scan_without_a_sanitizer_report(fuzzer: Path, seed: int) -> None:
    env = dict(os.environ, ASAN_OPTIONS="abort_on_error=0:detect_leaks=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")  # fmt: skip
    ran = subprocess.run([str(fuzzer), "20000", str(seed)], capture_output=True, text=True,
                         env=env, timeout=300)  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stderr == ""
    counts = re.fullmatch(
        r"taken (\d+) declined (\d+) wider (\d+) counted (\d+) over (\d+)\n", ran.stdout
    )
    assert counts is not None, ran.stdout
    taken, declined, wider, counted, over = map(int, counts.groups())
    # every path of the scan ran: windows it took, declined, and scanned again wider
    assert taken > 100 and declined > 100 and wider > 100
    assert taken + declined == 20000  # each window ends taken or declined
    # and of the count of stretches: windows counted, and past the capacity
    assert counted > 100 and over > 100 and counted + over == 20000
