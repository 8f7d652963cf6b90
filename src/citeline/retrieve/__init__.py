"""Retrieval math: BM25, dense scoring and rank fusion, as pure functions over arrays."""
