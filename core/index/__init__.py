"""The index: Chroma vectors, the FTS5 lexical index, the ingest manifest and index state."""

from core.index.index import Index

__all__ = ["Index"]
