"""``python -m evidencedesk``: the ``evidencedesk`` command (`evidencedesk.cli`)."""

import sys

from evidencedesk.cli import main

sys.exit(main(exit_process=True))
