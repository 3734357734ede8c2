"""The local lexical index as a cache that follows Chroma (server mode, issue 22).

The local SQLite file's manifest table mirrors the shared manifest in Chroma (core/index/shared.py)
and its FTS5 rows follow it. `check()` is the cheap step before a query: one filtered get of the
manifest records stamped since the last check (minus a look-back for writes still in flight);
`sync_all()` compares every record (a fresh instance's build, and the first check of a process).
Only changed files cost anything: their new chunk texts are fetched from Chroma by id and added,
their dropped ids deleted, all through LexicalIndex.add/delete in one local transaction (which
bump the generation the in-memory lexical engine follows). A file's record is the winner among its
records in Chroma (core.index.shared.winners), so a late-landing write of an older writer never
undoes a newer one here."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

from core.index.db import LocalDB
from core.index.lexical import LexicalIndex
from core.index.manifest import Manifest
from core.index.shared import SharedManifest, SharedRecord, winners
from core.index.vectors import StoredVector, VectorStore

LOOKBACK_MS = 30_000  # a write whose stamp is older than this when it lands is caught by sync_all
FETCH_BATCH = 1000

Progress = Callable[[int, int], None]  # (chunks fetched, chunks to fetch)


class Follower:
    def __init__(self, db: LocalDB, vectors: VectorStore, shared: SharedManifest, interval_s: float = 1.0):
        self.db = db
        self.vectors = vectors
        self.shared = shared
        self.manifest = Manifest(db)
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._cursor = 0  # 0: nothing read yet in this process → the first check is a full sync
        self._last = 0.0
        self._seen: set[str] = set()  # ids of the records applied in the current look-back window

    def check(self, force: bool = False) -> int:
        """Catch up on records changed since the last check; returns the chunks added."""
        if not force and self._cursor and time.monotonic() - self._last < self.interval_s:
            return 0
        if not self._cursor:
            return self.sync_all()
        with self._lock:
            since = self._cursor - LOOKBACK_MS
            window = self.shared.ids_changed_since(since)  # ids only: no documents, no metadata
            if window <= self._seen:  # only records already applied (the look-back re-reads them)
                self._seen = window
                self._last = time.monotonic()
                return 0
            records = self.shared.changed_since(since)
            window = {r.rid for r in records}
            n = self._apply(records, complete=False, progress=None)
            self._seen = window
            return n

    def sync_all(self, progress: Progress | None = None) -> int:
        """Compare every shared record with the local mirror (rows Chroma no longer has go too)."""
        with self._lock:
            records = self.shared.changed_since(0)
            n = self._apply(records, complete=True, progress=progress)
            self._seen = {r.rid for r in records if r.stamp >= self._cursor - LOOKBACK_MS}
            return n

    def _apply(self, records: list[SharedRecord], complete: bool, progress: Progress | None) -> int:
        started = time.monotonic()
        local = {(r.root, r.source): r for r in self.manifest.all_files()}
        if not complete and records:  # the window holds some records of a file: judge it by all of them
            records = self.shared.records_of(sorted({r.key for r in records}))
        latest = {(r.root, r.source): r for r in winners(records).values()}
        changed = []
        for key, rec in latest.items():
            old = local.get(key)
            if rec.removed:
                if old is not None:
                    changed.append(rec)
            elif old is None or old.file_hash != rec.file_hash or old.chunk_ids != rec.chunk_ids:
                changed.append(rec)
        dropped = [k for k in local if complete and (k not in latest or latest[k].removed)]
        # every chunk of a changed file is fetched: an unchanged chunk keeps its id while its
        # metadata (file hash, the page's shield flags) changes, and the local record copy follows
        need = [c for rec in changed if not rec.removed for c in rec.chunk_ids]
        texts: dict[str, tuple[str, str]] = {}
        stored: dict[str, StoredVector] = {}  # the records, for the local copies beside the rows
        for i in range(0, len(need), FETCH_BATCH):
            for v in self.vectors.get(need[i : i + FETCH_BATCH]):
                header = str(v.chunk.metadata.get("header") or "")
                texts[v.chunk.id] = (v.chunk.source, f"{header}\n{v.chunk.text}" if header else v.chunk.text)
                stored[v.chunk.id] = v
            if progress:
                progress(min(i + FETCH_BATCH, len(need)), len(need))
        gone: set[str] = set()
        with self.db.transaction() as conn:
            for rec in changed:
                key = (rec.root, rec.source)
                if key in local:
                    gone.update(local[key].chunk_ids)
                if rec.removed:
                    Manifest.drop(conn, rec.root, rec.source)
                    continue
                Manifest.put(conn, rec.root, rec.source, rec.file_hash, list(rec.chunk_ids), rec.indexed_at)
                LexicalIndex.add(
                    conn, rec.source, [(c, texts[c][1]) for c in rec.chunk_ids if c in texts], stored
                )
            for key in dropped:
                gone.update(local[key].chunk_ids)
                Manifest.drop(conn, *key)
            if gone:
                owned: set[str] = set()
                for (ids,) in conn.execute("SELECT chunk_ids FROM files"):
                    owned.update(json.loads(ids))
                LexicalIndex.delete(conn, gone - owned)
        if records:
            self._cursor = max(self._cursor, max(r.stamp for r in records))
            if progress:
                progress(len(need), len(need))
        elif not self._cursor:
            self._cursor = 1
        self._last = time.monotonic()
        self.last_ms = (time.monotonic() - started) * 1000
        return len(texts)
