"""``python -m evidencedesk.report build``."""

import sys

try:
    from evidencedesk.report.cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: no traceback
    sys.stderr.write("error: build interrupted; the previous site was left as it was\n")
    sys.exit(130)

sys.exit(main(exit_process=True))  # main ends the process itself (see its docstring)
