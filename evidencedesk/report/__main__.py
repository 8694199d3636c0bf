"""``python -m evidencedesk.report build``."""

import sys

from evidencedesk.report.cli import main

sys.exit(main())
