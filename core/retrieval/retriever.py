"""Retrieval: dense (Chroma), lexical (FTS5) or both fused by reciprocal rank fusion.

A candidate's `score` is always the dense cosine similarity to the question (1 - cosine distance,
clipped to [0, 1]), whichever search found it, so the refusal threshold keeps one meaning in every
mode; the fused order is the candidates' order, and each carries its dense and lexical ranks.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.embed import Embedder
from core.embed.query import QueryEncoder
from core.index import Index
from core.index.vectors import StoredVector
from core.query.expand import lexical_query
from core.retrieval.fusion import rrf
from core.retrieval.tables import with_table_parts
from core.types import Candidate


class Retriever:
    """Finds the chunks most related to a question; one per index, shared by every request."""

    def __init__(self, index: Index, embedder: Embedder, query_encoder: QueryEncoder | None = None) -> None:
        self.index = index
        self.embedder = embedder
        # questions: ONNX Runtime's single-text path by default (Resources), else the embedder
        self._encode = query_encoder.encode if query_encoder is not None else self._embed_with_embedder
        self._embed_cached = functools.lru_cache(maxsize=512)(self._embed_one)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _embed_with_embedder(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]

    def _embed_one(self, text: str) -> np.ndarray:
        return self._encode(text)

    def embed_query(self, question: str) -> np.ndarray:
        """The question's normalised embedding (cached: replays and follow-ups reuse it)."""
        return self._embed_cached(question)

    def _lexical_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lexical")
            return self._pool

    def search(
        self,
        question: str,
        k: int,
        mode: str = "hybrid",
        rrf_k: int = 60,
        query_vector: np.ndarray | None = None,
    ) -> list[Candidate]:
        """Top-k candidates in rank order (no score filter: the ledger records low scores)."""
        pending = None
        if mode != "dense":
            # the lexical search (in memory, a few ms at 100k) runs on the other core while the
            # query is embedded (ONNX Runtime releases the GIL). Only the records of the ids fusion
            # keeps are read afterwards, from the local copies (core/index/records.py)
            # …for the question's words and the attribute words they ask for ("heavier": "weight")
            words = lexical_query(question)
            pending = self._lexical_pool().submit(self.index.search_lexical, words, _lexical_k(mode, k))
        q = self.embed_query(question) if query_vector is None else query_vector
        if pending is None:
            found = _candidates(self.index.query(q, k), q)[:k]
            return [_with_ranks(c, r, None) for r, c in enumerate(found, 1)]
        if mode == "lexical":
            lexical = pending.result()
            return self._fetch(
                [cid for cid, _ in lexical], q, {cid: r for r, (cid, _) in enumerate(lexical, 1)}
            )[:k]
        # fusion needs only the ids: the records are read for the ids it keeps, not for all 2k
        dense = self.index.nearest(q, k * 2)  # the lexical search follows (server mode)
        lexical = pending.result()
        dense_rank = {cid: r for r, (cid, _) in enumerate(dense, 1)}
        lex_rank = {cid: r for r, (cid, _) in enumerate(lexical, 1)}
        distance = dict(dense)
        fused = rrf([list(dense_rank), list(lex_rank)], rrf_k)
        out: list[Candidate] = []
        at = 0
        while len(out) < k and at < len(fused):  # more than k ids only when one has no record any more
            ids = fused[at : at + k - len(out)]
            at += len(ids)
            out += self._fetch(ids, q, lex_rank, dense_rank, distance)
        return out

    def _fetch(
        self,
        ids: Sequence[str],
        q: np.ndarray,
        lex_rank: Mapping[str, int],
        dense_rank: Mapping[str, int] | None = None,
        distance: Mapping[str, float] | None = None,
    ) -> list[Candidate]:
        """The candidates of these ids in this order (an id without a record is left out); a
        dense hit is scored by Chroma's distance, as a dense query's record carries it."""
        rows = self.index.get(ids) if ids else []
        if distance:
            rows = [dataclasses.replace(r, distance=distance.get(r.chunk.id)) for r in rows]
        got = {c.chunk.id: c for c in _candidates(rows, q)}
        out = []
        for cid in ids:
            c = got.get(cid)
            if c is None:  # in the lexical index but not (yet/any more) in Chroma
                continue
            out.append(_with_ranks(c, (dense_rank or {}).get(cid), lex_rank.get(cid)))
        return out

    def with_table_parts(self, candidates: Sequence[Candidate], question: str) -> list[Candidate]:
        """The candidates with the other parts of the tables ingest split between chunks
        (core/retrieval/tables.py), scored for the question as the others are."""
        q = self.embed_query(question)
        return with_table_parts(
            candidates, self.index.document_ids, self.index.get, lambda rows: _candidates(rows, q)
        )


def _lexical_k(mode: str, k: int) -> int:
    """How many lexical hits a search of k candidates asks for (hybrid fuses 2k of each)."""
    return k * 2 if mode == "hybrid" else k


def _with_ranks(c: Candidate, dense: int | None, lexical: int | None) -> Candidate:
    return Candidate(c.chunk, c.score, c.embedding, dense_rank=dense, lexical_rank=lexical)


def _candidates(rows: Sequence[StoredVector], q: np.ndarray) -> list[Candidate]:
    """Stored vectors → Candidates scored by cosine similarity to the query vector q."""
    out: list[Candidate] = []
    for row in rows:
        if row.distance is not None:
            sim = 1.0 - row.distance
        elif row.embedding is not None:
            sim = float(np.dot(row.embedding, q))
        else:
            sim = 0.0
        out.append(Candidate(row.chunk, min(1.0, max(0.0, sim)), row.embedding))
    return out
