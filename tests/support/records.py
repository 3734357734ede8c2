"""Checks that the local copies of chunk records equal what Chroma holds."""

from __future__ import annotations

import numpy as np

from core.index import Index


def assert_records_match(index: Index) -> None:
    """Every chunk in Chroma has a local copy with the same document, metadata and vector (to
    float32 rounding)."""
    got = index.vectors.collection.get(include=["documents", "metadatas", "embeddings"])
    local = index.lexical.records(got["ids"])
    assert set(local) == set(got["ids"])
    for cid, doc, meta, emb in zip(
        got["ids"], got["documents"], got["metadatas"], got["embeddings"], strict=True
    ):
        copy = local[cid]
        assert copy.chunk.text == doc
        assert dict(copy.chunk.metadata) == dict(meta)
        assert copy.embedding is not None
        # Chroma may store a vector a rounding step away from the one it was given
        assert np.allclose(copy.embedding, np.asarray(emb, dtype=np.float32), atol=1e-6)
