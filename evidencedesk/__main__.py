"""``python -m evidencedesk``: the ``evidencedesk`` command."""

import sys

from evidencedesk.cli import main

sys.exit(main())
