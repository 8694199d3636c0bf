"""evidencedesk: honest retrieval evaluation and a static HTML report."""

from evidencedesk.errors import EvidencedeskError

__version__ = "0.1.0"
__all__ = ["EvidencedeskError", "__version__"]
