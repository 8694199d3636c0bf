"""The build hook: compiles the run reader's scan (evidencedesk/files/_trec_scan.c) into a shared
library beside its loader, where a C compiler is at hand.

The library is optional: where no compiler works, the wheel is built without it (a warning says
so) and evidencedesk reads every run through pyarrow alone, to the same arrays and the same
reports, more slowly. A wheel with it is tagged for its platform (``py3-none-<platform>``: the
library is loaded with ctypes and uses no Python header); an editable install builds it into
the checkout, where the loader finds it.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = "evidencedesk/files/_trec_scan.c"
LIBRARY = "evidencedesk/files/libevidencedesk_scan.so"  # files._trec_scan._NAME


def source_digest(source: bytes) -> str:
    """The name of the source a library is built from (`files._trec_scan._load` checks it: a
    library left from an older source, say in a checkout pulled since its install, is not used)."""
    return hashlib.sha256(source).hexdigest()[:16]


def compile_scan(source: Path, target: Path) -> str | None:
    """Compile `source` into the shared library `target`, which reports the source's digest;
    None when built, else why not."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    digest = source_digest(source.read_bytes())
    command = [*compiler, "-O2", "-shared", "-fPIC", f'-DEVIDENCEDESK_SCAN_SOURCE="{digest}"',
               "-o", str(target), str(source)]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{shlex.join(command)}: {exc}"
    if done.returncode != 0:
        return f"{shlex.join(command)}: {(done.stderr or done.stdout).strip()[:500]}"
    return None


class ScanBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version == "editable":  # beside the loader in the checkout the install points at
            target = root / LIBRARY
        else:
            self._folder = tempfile.mkdtemp(prefix="evidencedesk-scan-")
            target = Path(self._folder) / Path(LIBRARY).name
        problem = compile_scan(root / SOURCE, target)
        if problem is not None:
            self.app.display_warning(
                "evidencedesk: the run reader's compiled scan was not built, runs will be read "
                f"through pyarrow alone (the same results, more slowly): {problem}"
            )
            return
        build_data["pure_python"] = False
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        build_data["tag"] = f"py3-none-{platform}"
        if version != "editable":
            build_data["force_include"][str(target)] = LIBRARY

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
