"""The manifest in Chroma (server mode): one record per ingested file, so every app instance on the
same Chroma server sees the same truth (issue 22).

A record lives in a sibling collection `<collection>-manifest`: its id is derived from (root,
source), the writer's stamp and a nonce, so concurrent writers of one file never overwrite each
other's record; the file's record is the one with the highest (stamp, writer, id) — the last
writer to start wins, whatever order the writes land in; two writers stamping in one millisecond
are ordered by their writer ids, which their vectors carry too — and superseded ones are pruned.
Its metadata holds the file hash, category, indexed time, the writer's stamp (the Chroma server's
clock, in ms) and id, and a `removed` flag (a removal is a tombstone, so followers see it), its
document the JSON list of the file's chunk ids. The embedding is a constant 1-d vector: Chroma
requires one, nothing ever queries it. The stamp is what followers read changes by
(`changed_since`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
import uuid
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
    rid: str = ""  # the record's id in Chroma ("" until it is put)
    writer: str = ""  # the writing instance's id, also on the vectors it stamps

    @property
    def rank(self) -> tuple[int, str, str]:
        """The order of a file's records: the highest wins (a stamp tie goes by writer, then id)."""
        return (self.stamp, self.writer, self.rid)

    @property
    def key(self) -> str:
        return record_key(self.root, self.source)


def record_key(root: str, source: str) -> str:
    return "f-" + hashlib.sha256(f"{root}\x00{source}".encode()).hexdigest()[:40]


def winners(records: list[SharedRecord]) -> dict[str, SharedRecord]:
    """Each file's record: the highest ranked among its records (last writer wins)."""
    out: dict[str, SharedRecord] = {}
    for rec in records:
        old = out.get(rec.key)
        if old is None or rec.rank > old.rank:
            out[rec.key] = rec
    return out


def _record(rid: str, meta: dict[str, Any], doc: str | None) -> SharedRecord:
    return SharedRecord(
        root=str(meta.get("root", "")),
        source=str(meta.get("source", "")),
        file_hash=str(meta.get("file_hash", "")),
        chunk_ids=tuple(json.loads(doc or "[]")),
        stamp=int(meta.get("stamp", 0)),
        indexed_at=str(meta.get("indexed_at", "")),
        category=str(meta.get("category", "")),
        removed=bool(meta.get("removed", False)),
        rid=rid,
        writer=str(meta.get("writer", "")),
    )


def _rows(got: dict[str, Any]) -> list[SharedRecord]:
    return [
        _record(rid, dict(m or {}), d)
        for rid, m, d in zip(got["ids"], got["metadatas"], got["documents"], strict=True)
    ]


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

    def put(self, rec: SharedRecord) -> SharedRecord:
        """Add a record of this file (never overwriting another writer's); returns it with its id."""
        rid = f"{rec.key}-{rec.stamp:014d}-{uuid.uuid4().hex[:8]}"
        meta = {
            "kind": "file", "key": rec.key, "root": rec.root, "source": rec.source, "file_hash": rec.file_hash,
            "stamp": rec.stamp, "indexed_at": rec.indexed_at, "category": rec.category,
            "removed": rec.removed, "chunks": len(rec.chunk_ids), "writer": rec.writer,
        }  # fmt: skip
        col = self._collection()
        self._call(
            lambda: col.upsert(
                ids=[rid], embeddings=_DUMMY,
                documents=[json.dumps(list(rec.chunk_ids))], metadatas=[meta],
            )
        )  # fmt: skip
        return dataclasses.replace(rec, rid=rid)

    def records_of(self, keys: list[str]) -> list[SharedRecord]:
        """Every record (superseded ones not yet pruned included) of these files."""
        col = self._collection()
        out: list[SharedRecord] = []
        for i in range(0, len(keys), 100):
            part = keys[i : i + 100]
            where = {"$and": [{"kind": "file"}, {"key": {"$in": part}}]}
            got = self._call(lambda where=where: col.get(where=where, include=["metadatas", "documents"]))
            out.extend(_rows(got))
        return out

    def get(self, root: str, source: str) -> SharedRecord | None:
        """The file's winning record (a tombstone included), or None."""
        return winners(self.records_of([record_key(root, source)])).get(record_key(root, source))

    def prune(self, winner: SharedRecord, records: list[SharedRecord]) -> None:
        """Delete the file's records the winner supersedes."""
        old = [r.rid for r in records if r.key == winner.key and r.rank < winner.rank]
        if old:
            col = self._collection()
            self._call(lambda: col.delete(ids=old))

    def changed_since(self, stamp: int) -> list[SharedRecord]:
        """Records (tombstones included) stamped at or after this stamp; 0 → all of them."""
        col = self._collection()
        where: dict[str, Any] = {"kind": "file"} if stamp <= 0 else {
            "$and": [{"kind": "file"}, {"stamp": {"$gte": stamp}}]
        }  # fmt: skip
        got = self._call(lambda: col.get(where=where, include=["metadatas", "documents"]))
        return _rows(got)

    def ids_changed_since(self, stamp: int) -> set[str]:
        """The ids of the records changed_since(stamp) would return (the cheap half of a check)."""
        col = self._collection()
        where = {"$and": [{"kind": "file"}, {"stamp": {"$gte": stamp}}]}
        return set(self._call(lambda: col.get(where=where, include=[]))["ids"])

    def live(self) -> list[SharedRecord]:
        """Each file's winning record, tombstones left out."""
        return [r for r in winners(self.changed_since(0)).values() if not r.removed]

    def reset(self) -> None:
        self._collection()
        try:
            self._client.delete_collection(self.name)
        except Exception:  # a missing collection is fine
            pass
        self._col = None
