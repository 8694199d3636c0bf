"""Runs-only projects: every TREC run is a variant; pipeline stages are skipped (and said so)."""

from __future__ import annotations

from typing import Any


def runs_only_variants(*args: Any) -> Any:
    from evidencedesk.errors import EvidencedeskError

    raise EvidencedeskError("runs-only projects are not built yet")
