"""Retrieval: catalog, labels, searchers, rerankers, metrics, evidence, lifecycle, experiments."""
