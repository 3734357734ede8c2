"""Exact nearest neighbours of a small collection, from the local copies of its vectors.

Chroma searches an HNSW graph, which is approximate, and the graph of rows not yet in a persisted
index is built again by each process, so two processes on the same store can return different
neighbours for the same query vector (on the 355-chunk SQuAD store, one question in 400 had a
different 15th neighbour, README Open work). A collection of at most `exact_search_max` rows is
searched exactly instead: every row's vector, copied beside its lexical row in the same transaction
as the row (core/index/records.py), is held in one float32 matrix, and a query is one
matrix-vector product; ties go to the smaller chunk id. So every process returns the same
neighbours, the true ones, and a replay finds the evidence the question found.

The matrix follows the rows through the generation counter every write of rows and copies bumps
(core/index/lexical.py): a search that sees a new generation loads the rows again. A collection
with more rows, or with a row whose vector has no local copy (a store from before the copies, until
`Index.fill_records`), is left to Chroma (`nearest` returns None).
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class _Loaded:
    generation: int
    ids: list[str] = field(default_factory=list)  # sorted, so a tie goes to the smaller id
    matrix: np.ndarray | None = None  # one normalised float32 row per id; None: left to Chroma


class ExactVectors:
    """The rows' vectors in memory for an exact search of a collection of at most max_rows."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self._loaded = _Loaded(-1)
        self._lock = threading.Lock()

    def nearest(
        self, conn: sqlite3.Connection, generation: int, embedding: np.ndarray, k: int
    ) -> list[tuple[str, float]] | None:
        """The k nearest rows' ids with their cosine distances, nearest first; None when this
        collection is left to Chroma."""
        loaded = self._sync(conn, generation)
        q = np.asarray(embedding, dtype=np.float32).reshape(-1)
        if loaded.matrix is None or q.shape[0] != loaded.matrix.shape[1] or not np.isfinite(q).all():
            return None  # (a query of another width or with NaNs: Chroma answers as it does)
        norm = float(np.linalg.norm(q))
        sims = loaded.matrix @ (q / norm if norm else q)
        k = min(max(1, k), len(sims))
        # the rows at least as near as the k-th (ties at the cut included), then by similarity and
        # id (rows are id-sorted), so a tie anywhere goes to the smaller id
        part = np.flatnonzero(sims >= np.partition(sims, len(sims) - k)[len(sims) - k])
        top = part[np.lexsort((part, -sims[part]))][:k]
        return [(loaded.ids[i], float(1.0 - sims[i])) for i in top]

    def _sync(self, conn: sqlite3.Connection, generation: int) -> _Loaded:
        with self._lock:
            if self._loaded.generation != generation:
                self._loaded = self._load(conn, generation)
            return self._loaded

    def _load(self, conn: sqlite3.Connection, generation: int) -> _Loaded:
        """The rows of this generation, or a state that leaves them to Chroma."""
        total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        if total == 0 or total > self.max_rows:
            return _Loaded(generation)
        rows = conn.execute("SELECT id, vector FROM chunks WHERE vector IS NOT NULL ORDER BY id").fetchall()
        if len(rows) != total or len({len(v) for _, v in rows}) != 1 or len(rows[0][1]) % 4:
            return _Loaded(generation)  # a row without its copy (or a malformed one): Chroma has them all
        matrix = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float32).reshape(len(rows), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return _Loaded(generation, [cid for cid, _ in rows], matrix / norms)
