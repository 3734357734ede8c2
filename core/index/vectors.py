"""The Chroma side of the index: the client (embedded or server), typed reads and batched writes.

The only module that sees Chroma's columnar results; everything above it gets StoredVectors."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.config import Settings
from core.errors import StoreUnavailable
from core.types import Chunk

log = logging.getLogger(__name__)

# Chroma's own embedding function is never used: we always pass vectors we computed.
_COLLECTION_META = {"hnsw:space": "cosine"}


def _chroma_settings() -> Any:
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=True)


@dataclass(frozen=True)
class StoredVector:
    """One stored chunk as Chroma returned it: the chunk, its vector and (for a query) its distance."""

    chunk: Chunk
    embedding: np.ndarray | None = None
    distance: float | None = None


def _client(path: str | None, host: str | None, port: int) -> Any:
    import chromadb

    try:
        if host:
            return chromadb.HttpClient(host=host, port=port, settings=_chroma_settings())
        return chromadb.PersistentClient(path=path, settings=_chroma_settings())
    except Exception as e:  # chromadb raises ValueError/ConnectionError/httpx errors
        where = f"Chroma server at {host}:{port}" if host else f"store at {path}"
        raise StoreUnavailable(f"Cannot open the {where}: {_short(e)}") from e


def _short(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


class VectorStore:
    """One Chroma collection (cosine space) with the few operations ContextLens needs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._collection: Any = None
        self._where = (
            f"Chroma server at {settings.chroma_host}:{settings.chroma_port}"
            if settings.server_mode
            else f"store at {settings.store_path}"
        )

    # -- connection ---------------------------------------------------------------------------
    @property
    def collection(self) -> Any:
        """The collection, created on first use; reconnects after a failure."""
        with self._lock:
            if self._collection is None:
                s = self.settings
                path = None if s.server_mode else str(s.store_path)
                if path:
                    s.store_path.mkdir(parents=True, exist_ok=True)
                client = _client(path, s.chroma_host, s.chroma_port)
                try:
                    self._collection = client.get_or_create_collection(
                        s.collection, metadata=_COLLECTION_META, embedding_function=None
                    )
                except Exception as e:
                    raise StoreUnavailable(f"Cannot reach the {self._where}: {_short(e)}") from e
            return self._collection

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StoreUnavailable:
            raise
        except Exception as e:
            # drop the cached handle so the next call reconnects once the server is back
            self._collection = None
            raise StoreUnavailable(f"{what} failed on the {self._where}: {_short(e)}") from e

    # -- reads --------------------------------------------------------------------------------
    def count(self) -> int:
        return int(self._call("count", lambda: self.collection.count()))

    def query(self, embedding: np.ndarray, k: int, with_embeddings: bool = True) -> list[StoredVector]:
        """The k nearest chunks to one query vector, nearest first."""
        include = ["documents", "metadatas", "distances"] + (["embeddings"] if with_embeddings else [])
        got = self._call(
            "query",
            lambda: self.collection.query(
                query_embeddings=[embedding.tolist()], n_results=max(1, k), include=include
            ),
        )
        embs = got.get("embeddings")
        return _rows(
            (got.get("ids") or [[]])[0],
            (got.get("documents") or [[]])[0],
            (got.get("metadatas") or [[]])[0],
            embs[0] if embs is not None and len(embs) else None,
            (got.get("distances") or [[]])[0],
        )

    def nearest(self, embedding: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ids of the k nearest chunks to one query vector with their cosine distances,
        nearest first (no documents, metadata or vectors: the index reads those locally)."""
        got = self._call(
            "query",
            lambda: self.collection.query(
                query_embeddings=[embedding.tolist()], n_results=max(1, k), include=["distances"]
            ),
        )
        ids = (got.get("ids") or [[]])[0]
        dists = (got.get("distances") or [[]])[0]
        return [(cid, float(d)) for cid, d in zip(ids, dists, strict=True)]

    def get(self, ids: Sequence[str], with_embeddings: bool = True) -> list[StoredVector]:
        """The stored chunks with these ids (missing ids are left out)."""
        include = ["documents", "metadatas"] + (["embeddings"] if with_embeddings else [])
        got = self._call("get", lambda: self.collection.get(ids=list(ids), include=include))
        return _rows(got.get("ids") or [], got.get("documents") or [], got.get("metadatas") or [],
                     got.get("embeddings"), None)  # fmt: skip

    def metadata(self) -> dict[str, dict[str, Any]]:
        """Every stored chunk's metadata by id (no texts, no vectors)."""
        got = self._call("get", lambda: self.collection.get(include=["metadatas"]))
        return {cid: dict(m or {}) for cid, m in zip(got["ids"], got.get("metadatas") or [], strict=True)}

    def stamps_of(self, source: str) -> dict[str, tuple[int, str]]:
        """Server mode: each stored chunk of this source by id, with the stamp and writer id of the
        write that upserted it ((0, "") for a chunk written without them)."""
        got = self._call("get", lambda: self.collection.get(where={"source": source}, include=["metadatas"]))
        metas = [m or {} for m in got.get("metadatas") or []]
        return {
            cid: (int(m.get("stamp", 0)), str(m.get("writer", "")))
            for cid, m in zip(got["ids"], metas, strict=True)
        }

    def all_ids(self) -> list[str]:
        got = self._call("get", lambda: self.collection.get(include=[]))
        return list(got["ids"])

    # -- writes -------------------------------------------------------------------------------
    def _batch(self) -> int:
        try:
            return int(self.collection._client.get_max_batch_size())
        except Exception:  # older clients / server mode without the endpoint
            return 5000

    def upsert(
        self,
        ids: Sequence[str],
        embeddings: np.ndarray,
        documents: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]],
    ) -> None:
        """Upsert in the largest batches Chroma accepts (idempotent: ids are content-derived)."""
        step = self._batch()
        for i in range(0, len(ids), step):
            j = i + step
            self._call(
                "upsert",
                lambda i=i, j=j: self.collection.upsert(
                    ids=list(ids[i:j]),
                    embeddings=embeddings[i:j],
                    documents=list(documents[i:j]),
                    metadatas=[dict(m) for m in metadatas[i:j]],
                ),
            )

    def delete(self, ids: Sequence[str]) -> None:
        step = self._batch()
        ids = list(ids)
        for i in range(0, len(ids), step):
            self._call("delete", lambda i=i: self.collection.delete(ids=ids[i : i + step]))

    def reset(self) -> None:
        """Drop and recreate the collection."""
        s = self.settings
        path = None if s.server_mode else str(s.store_path)
        client = _client(path, s.chroma_host, s.chroma_port)
        with self._lock:
            try:
                client.delete_collection(s.collection)
            except Exception as e:  # a missing collection is fine
                log.debug("delete_collection: %s", e)
            self._collection = None


def _rows(
    ids: Sequence[str], docs: Sequence[Any], metas: Sequence[Any], embs: Any, dists: Sequence[float] | None
) -> list[StoredVector]:
    """Chroma's columns → StoredVectors (the one place this conversion happens)."""
    out = []
    for n, cid in enumerate(ids):
        meta = dict(metas[n] or {}) if n < len(metas) else {}
        emb = np.asarray(embs[n], dtype=np.float32) if embs is not None and len(embs) > n else None
        chunk = Chunk(id=cid, text=docs[n] or "", source=str(meta.get("source", "")), metadata=meta)
        out.append(StoredVector(chunk, emb, float(dists[n]) if dists is not None else None))
    return out
