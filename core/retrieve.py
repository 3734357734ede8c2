"""Retrieval: dense (Chroma), lexical (FTS5) or both fused by reciprocal rank fusion.

The only module that turns Chroma's columnar results into Candidates. A candidate's `score` is
always the dense cosine similarity to the question (1 - cosine distance, clipped to [0, 1]),
whichever search found it, so the refusal threshold keeps one meaning in every mode; the fused
order is the candidates' order, and each carries its dense and lexical ranks.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from core.config import Settings
from core.embed import Embedder
from core.index import Index
from core.types import Candidate, Chunk

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _lexical_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lexical")
        return _pool


class Retriever:
    """Finds the chunks most related to a question."""

    def __init__(self, settings: Settings, index: Index, embedder: Embedder) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self._embed_cached = functools.lru_cache(maxsize=512)(self._embed_one)

    def _embed_one(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]

    def embed_query(self, question: str) -> np.ndarray:
        """The question's normalised embedding (cached: replays and follow-ups reuse it)."""
        return self._embed_cached(question)

    def search(
        self, question: str, k: int, mode: str | None = None, query_vector: np.ndarray | None = None
    ) -> list[Candidate]:
        """Top-k candidates in rank order (no score filter: the ledger records low scores)."""
        mode = mode or self.settings.retrieval_mode
        pending = None
        if mode != "dense":
            # FTS5 (SQLite releases the GIL) runs on the other core while the query is embedded
            # and Chroma searched
            pending = _lexical_pool().submit(self.index.lexical.search, question, _lexical_k(mode, k))
        q = self.embed_query(question) if query_vector is None else query_vector
        if pending is None:
            found = _candidates(self.index.vectors.query(q, k), q)[:k]
            return [_with_ranks(c, r, None) for r, c in enumerate(found, 1)]
        if mode == "lexical":
            lexical = pending.result()
            return self._fetch(
                [cid for cid, _ in lexical], q, {}, {cid: r for r, (cid, _) in enumerate(lexical, 1)}
            )[:k]
        dense = _candidates(self.index.vectors.query(q, k * 2), q)
        lexical = pending.result()
        dense_rank = {c.chunk.id: r for r, c in enumerate(dense, 1)}
        lex_rank = {cid: r for r, (cid, _) in enumerate(lexical, 1)}
        fused = rrf([list(dense_rank), list(lex_rank)], self.settings.rrf_k)[:k]
        known = {c.chunk.id: c for c in dense}
        return self._fetch(fused, q, known, lex_rank, dense_rank)

    def _fetch(
        self,
        ids: Sequence[str],
        q: np.ndarray,
        known: Mapping[str, Candidate],
        lex_rank: Mapping[str, int],
        dense_rank: Mapping[str, int] | None = None,
    ) -> list[Candidate]:
        missing = [i for i in ids if i not in known]
        got: dict[str, Candidate] = dict(known)
        if missing:
            for c in _candidates(self.index.vectors.get(missing), q, from_get=True):
                got[c.chunk.id] = c
        out = []
        for cid in ids:
            c = got.get(cid)
            if c is None:  # in the lexical index but not (yet/any more) in Chroma
                continue
            out.append(_with_ranks(c, (dense_rank or {}).get(cid), lex_rank.get(cid)))
        return out

    def retrieve(self, question: str, k: int | None = None) -> list[Candidate]:
        """Top-k candidates whose similarity is at least the min-score setting."""
        k = k or self.settings.top_k
        return [c for c in self.search(question, k) if c.score >= self.settings.min_score]


def _lexical_k(mode: str, k: int) -> int:
    """How many lexical hits a search of k candidates asks for (hybrid fuses 2k of each)."""
    return k * 2 if mode == "hybrid" else k


def _with_ranks(c: Candidate, dense: int | None, lexical: int | None) -> Candidate:
    return Candidate(c.chunk, c.score, c.embedding, dense_rank=dense, lexical_rank=lexical)


def rrf(rankings: Sequence[Sequence[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion of ranked id lists (Cormack et al. 2009); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, 1):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda cid: -scores[cid])


def _candidates(result: Mapping[str, Any], q: np.ndarray, from_get: bool = False) -> list[Candidate]:
    """Chroma's columnar query/get result → Candidates (the one place this conversion happens)."""
    if from_get:
        ids = result.get("ids") or []
        docs = result.get("documents") or []
        metas = result.get("metadatas") or []
        embs = result.get("embeddings")
        dists = None
    else:
        ids = (result.get("ids") or [[]])[0]
        docs = (result.get("documents") or [[]])[0]
        metas = (result.get("metadatas") or [[]])[0]
        embs_all = result.get("embeddings")
        embs = embs_all[0] if embs_all is not None and len(embs_all) else None
        dists = (result.get("distances") or [[]])[0]
    out: list[Candidate] = []
    for n, cid in enumerate(ids):
        meta = dict(metas[n] or {}) if n < len(metas) else {}
        emb = None
        if embs is not None and len(embs) > n:
            emb = np.asarray(embs[n], dtype=np.float32)
        if dists is not None:
            sim = 1.0 - float(dists[n])
        elif emb is not None:
            sim = float(np.dot(emb, q))
        else:
            sim = 0.0
        chunk = Chunk(id=cid, text=docs[n] or "", source=str(meta.get("source", "")), metadata=meta)
        out.append(
            Candidate(chunk, min(1.0, max(0.0, sim)), tuple(emb.tolist()) if emb is not None else None)
        )
    return out
