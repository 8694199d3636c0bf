"""``python tests/with_model.py build … --model-factory MODULE:FUNCTION``: the build command run
as ``python -m evidencedesk.report`` runs it, with the site model made by a test's factory
(`report.build.ModelFactory`) instead of the real pipeline. The package has no such option; the
tests that need a hand-made model in a process of its own (signals, pipes, a killed build) start
this script.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

if __name__ == "__main__":
    args = sys.argv[1:]
    spec = None
    if "--model-factory" in args:
        at = args.index("--model-factory")
        spec = args[at + 1]
        del args[at : at + 2]
    factory = None
    if spec is not None:
        module, _, function = spec.partition(":")
        factory = getattr(importlib.import_module(module), function)
    from evidencedesk.cli import main

    main(args, model_factory=factory, prog="python -m evidencedesk.report", exit_process=True)
