"""The manifest in Chroma (server mode): one record per ingested file, so every app instance on the
same Chroma server sees the same truth (issue 22).

A record lives in a sibling collection `<collection>-manifest`: its id is derived from (root,
source), its metadata holds the file hash, category, indexed time, the writer's stamp (the Chroma
server's clock, in ms) and a `removed` flag (a removal is a tombstone, so followers see it), its
document the JSON list of the file's chunk ids. The embedding is a constant 1-d vector: Chroma
requires one, nothing ever queries it. The stamp is what followers read changes by
(`changed_since`). Not wired into Index yet: see the branch's report."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from core.config import Settings
from core.errors import StoreUnavailable

_DUMMY = [[1.0]]


@dataclass(frozen=True)
class SharedRecord:
    root: str
    source: str
    file_hash: str
    chunk_ids: tuple[str, ...]
    stamp: int  # ms on the Chroma server's clock
    indexed_at: str = ""
    category: str = ""
    removed: bool = False


def record_id(root: str, source: str) -> str:
    return "f-" + hashlib.sha256(f"{root}\x00{source}".encode()).hexdigest()[:40]


def _record(meta: dict[str, Any], doc: str | None) -> SharedRecord:
    return SharedRecord(
        root=str(meta.get("root", "")),
        source=str(meta.get("source", "")),
        file_hash=str(meta.get("file_hash", "")),
        chunk_ids=tuple(json.loads(doc or "[]")),
        stamp=int(meta.get("stamp", 0)),
        indexed_at=str(meta.get("indexed_at", "")),
        category=str(meta.get("category", "")),
        removed=bool(meta.get("removed", False)),
    )


class SharedManifest:
    """The manifest collection on a Chroma server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = f"{settings.collection}-manifest"
        self._lock = threading.Lock()
        self._client: Any = None
        self._col: Any = None
        self._offset_ms: int | None = None

    def _collection(self) -> Any:
        with self._lock:
            if self._col is None:
                from core.index.vectors import _client

                s = self.settings
                self._client = _client(None, s.chroma_host, s.chroma_port)
                self._col = self._call(
                    lambda: self._client.get_or_create_collection(self.name, embedding_function=None)
                )
            return self._col

    def _call(self, fn: Any) -> Any:
        try:
            return fn()
        except StoreUnavailable:
            raise
        except Exception as e:
            self._col = None
            s = self.settings
            line = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            raise StoreUnavailable(
                f"manifest on the Chroma server at {s.chroma_host}:{s.chroma_port}: {line}"
            ) from e

    def now(self) -> int:
        """A stamp on the server's clock (ms): one heartbeat fixes the offset to the local clock."""
        if self._offset_ms is None:
            self._collection()
            server_ns = int(self._call(lambda: self._client.heartbeat()))
            self._offset_ms = server_ns // 1_000_000 - time.time_ns() // 1_000_000
        return time.time_ns() // 1_000_000 + self._offset_ms

    def put(self, rec: SharedRecord) -> None:
        meta = {
            "kind": "file", "root": rec.root, "source": rec.source, "file_hash": rec.file_hash,
            "stamp": rec.stamp, "indexed_at": rec.indexed_at, "category": rec.category,
            "removed": rec.removed, "chunks": len(rec.chunk_ids),
        }  # fmt: skip
        col = self._collection()
        self._call(
            lambda: col.upsert(
                ids=[record_id(rec.root, rec.source)], embeddings=_DUMMY,
                documents=[json.dumps(list(rec.chunk_ids))], metadatas=[meta],
            )
        )  # fmt: skip

    def get(self, root: str, source: str) -> SharedRecord | None:
        col = self._collection()
        got = self._call(lambda: col.get(ids=[record_id(root, source)], include=["metadatas", "documents"]))
        if not got["ids"]:
            return None
        return _record(dict(got["metadatas"][0] or {}), got["documents"][0])

    def changed_since(self, stamp: int) -> list[SharedRecord]:
        """Records (tombstones included) stamped at or after this stamp; 0 → all of them."""
        col = self._collection()
        where: dict[str, Any] = {"kind": "file"} if stamp <= 0 else {
            "$and": [{"kind": "file"}, {"stamp": {"$gte": stamp}}]
        }  # fmt: skip
        got = self._call(lambda: col.get(where=where, include=["metadatas", "documents"]))
        return [_record(dict(m or {}), d) for m, d in zip(got["metadatas"], got["documents"], strict=True)]

    def live(self) -> list[SharedRecord]:
        return [r for r in self.changed_since(0) if not r.removed]

    def reset(self) -> None:
        self._collection()
        try:
            self._client.delete_collection(self.name)
        except Exception:  # a missing collection is fine
            pass
        self._col = None
