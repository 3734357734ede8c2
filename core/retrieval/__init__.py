"""Retrieval: dense, lexical and hybrid (reciprocal rank fusion) search over the index."""

from core.retrieval.retriever import Retriever

__all__ = ["Retriever"]
