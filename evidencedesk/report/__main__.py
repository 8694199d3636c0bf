"""``python -m evidencedesk.report build …``: the ``evidencedesk`` command (`evidencedesk.cli`)."""

import sys

try:
    from evidencedesk.cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: no traceback
    sys.stderr.write("error: build interrupted; the previous site was left as it was\n")
    sys.exit(130)

sys.exit(main(prog="python -m evidencedesk.report", exit_process=True))
