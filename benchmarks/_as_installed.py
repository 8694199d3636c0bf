"""Every benchmark times evidencedesk as an installed package runs: with its modules' bytecode
compiled once and cached, as ``pip install`` compiles a package's modules (and compiled the
peers': pyarrow, pytrec_eval, ranx, ir_measures). A machine that sets
``PYTHONDONTWRITEBYTECODE`` (this project's CI machine does) would otherwise compile every
evidencedesk module from source in every process the benchmarks start, about 0.2 s each, and
none of the peers'. `as_installed` compiles them (``__pycache__`` is ignored by git) and lets
the processes started after it read the cache."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "evidencedesk"


def as_installed() -> None:
    """Compile evidencedesk's modules as pip does and let child processes read their bytecode."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(PACKAGE, quiet=1)
