"""Index lifecycle: building the searchers (freshness, deletion and tenants follow in this module)."""

from __future__ import annotations

from evidencedesk.paths import TENANT_DOCS
from evidencedesk.retrieval.base import Searcher
from evidencedesk.retrieval.catalog import Catalog
from evidencedesk.retrieval.dense import DenseSearcher
from evidencedesk.retrieval.hybrid import HybridSearcher
from evidencedesk.retrieval.sparse import SparseSearcher

__all__ = ["TENANT_DOCS", "build_searchers"]


def build_searchers(catalog: Catalog) -> dict[str, Searcher]:
    """Index every chunk of the catalog (scope is applied at query time)."""
    sparse = SparseSearcher(catalog.chunks)
    dense = DenseSearcher(catalog.chunks)
    return {"sparse": sparse, "dense": dense, "hybrid": HybridSearcher(sparse, dense)}
