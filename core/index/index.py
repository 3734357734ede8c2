"""The whole index: Chroma vectors plus the local lexical index, manifest and state, written as one.

Order of writes for a file: vectors into Chroma first (idempotent upsert of content-derived ids),
then, in one SQLite transaction, the lexical rows and the manifest row, and only then the stale
vectors are deleted. A run killed in between leaves the "dirty" flag set and the next writer
reconciles the two stores.

Server mode (issue 22): Chroma's manifest collection is the truth (core/index/shared.py) and the
local rows a cache that follows it (core/index/follow.py). A write stamps its vectors and its
record with one stamp on the server's clock and this instance's writer id, adds the record (never
overwriting another writer's), then settles the file: the winning record (the last writer to start;
a tie in the millisecond goes by writer id) stays, the file's vectors it does not list and that a
lower-ranked write stamped are deleted (a killed or beaten writer's leftovers
included), superseded records are pruned, and the local rows mirror the winner."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from core.config import Settings
from core.errors import StoreUnavailable
from core.index import lexical, manifest, records, state
from core.index.db import LocalDB
from core.index.exact import ExactVectors
from core.index.follow import Follower, Progress
from core.index.lexical import LexicalIndex
from core.index.manifest import FileRecord, Manifest
from core.index.shared import SharedManifest, SharedRecord, winners
from core.index.state import IndexState
from core.index.vectors import StoredVector, VectorStore
from core.prepared import Prepared, Preparer
from core.shield.quarantine import defused_text
from core.types import Chunk

log = logging.getLogger(__name__)


class Index:
    """Vectors, lexical rows and the manifest of one collection."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.vectors = VectorStore(settings)
        self.db = LocalDB(settings.lexical_path, lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
        self.lexical = LexicalIndex(self.db, settings.lexical_engine)
        self.manifest = Manifest(self.db)
        self.state = IndexState(self.db)
        # a small collection is searched exactly from the local vector copies (core/index/exact.py);
        # server mode reads Chroma, which the local rows only follow
        self.exact = (
            ExactVectors(settings.exact_search_max)
            if settings.exact_search_max and not settings.server_mode
            else None
        )
        self._write_lock = threading.RLock()
        # server mode: the manifest lives in Chroma and the local rows follow it (issue 22)
        self.shared = SharedManifest(settings) if settings.server_mode else None
        self.follower = Follower(self.db, self.vectors, self.shared, interval_s=0.0) if self.shared else None
        self._timer: threading.Thread | None = None
        self._stop = threading.Event()
        self._stamps: dict[str, int] = {}  # server mode: chunk id → stamp of this process's upsert
        self._writer = uuid.uuid4().hex[:12]  # server mode: orders writes stamped in one millisecond
        self._pending: dict[str, StoredVector] = {}  # upserted records awaiting their file's commit

    def start_following(self, progress: Progress | None = None) -> int:
        """Server mode, on start: build or refresh the local lexical rows from Chroma (a fresh
        instance fetches every chunk's text, reported through progress and a log line), then check
        again every follow_interval_s in the background. Returns the chunks fetched."""
        if self.follower is None:
            return 0
        t0 = time.perf_counter()
        n = 0
        try:
            n = self.follower.sync_all(progress)
            log.info(
                "lexical index caught up with Chroma: %d chunks fetched in %.2f s",
                n,
                time.perf_counter() - t0,
            )
            # rows cached before the record copies existed get theirs once (an instance that
            # never ingests would otherwise read them from Chroma on every query)
            filled = self.fill_records()
            if filled:
                log.info("copied %d chunk records from Chroma beside their lexical rows", filled)
        except StoreUnavailable as e:  # the next search or the timer tries again
            log.warning("lexical catch-up on start skipped: %s", e)
        interval = self.settings.follow_interval_s
        if interval > 0 and self._timer is None:
            self._timer = threading.Thread(target=self._follow_every, args=(interval,), daemon=True)
            self._timer.start()
        return n

    def _follow_every(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.catch_up()
            except Exception as e:  # an outage or a transient error: the next round tries again
                log.warning("background catch-up skipped: %s", e)

    def stop_following(self) -> None:
        self._stop.set()

    def catch_up(self, force: bool = True) -> None:
        """Server mode: bring the local lexical rows and manifest mirror in step with Chroma."""
        if self.follower is not None:
            self.follower.check(force=force)

    # -- reads ----------------------------------------------------------------------------------
    def query(self, embedding: np.ndarray, k: int, follow: bool = True) -> list[StoredVector]:
        """The k nearest chunks, nearest first: Chroma finds the ids and distances (or, for a
        small collection, the exact search of the local vector copies), the records come from
        their local copies (core/index/records.py) or, without one, from Chroma.
        follow: server mode, catch up first so the copies of files another instance changed are
        current (False when the question's lexical search, beside it, already does)."""
        near = self.nearest(embedding, k)
        if follow:
            self._follow()
        got = self._records([cid for cid, _ in near])
        return [dataclasses.replace(got[cid], distance=dist) for cid, dist in near if cid in got]

    def nearest(self, embedding: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The k nearest chunks' ids with their cosine distances, nearest first, without their
        records (a hybrid search reads only the records of the ids fusion keeps): exact for a
        collection of at most settings.exact_search_max rows (core/index/exact.py), else Chroma's."""
        if self.exact is not None:
            conn = self.db.read()
            near = self.exact.nearest(conn, LexicalIndex.generation(conn), embedding, k)
            if near is not None:
                return near
        return self.vectors.nearest(embedding, k)

    def get(self, ids: Sequence[str]) -> list[StoredVector]:
        """The stored chunks with these ids, in that order (missing ids are left out)."""
        got = self._records(ids)
        return [got[cid] for cid in dict.fromkeys(ids) if cid in got]

    def _records(self, ids: Sequence[str]) -> dict[str, StoredVector]:
        got = self.lexical.records(ids)
        rest = [cid for cid in ids if cid not in got]
        if rest:
            got.update((v.chunk.id, v) for v in self.vectors.get(rest))
        return got

    def fill_records(self, batch: int = 1000) -> int:
        """Copy Chroma's record of every local row that has none (rows written before the copies
        existed; a row whose chunk Chroma lacks keeps none); returns how many were filled."""
        filled, after = 0, ""
        while ids := records.missing(self.db.read(), after, batch):
            stored = {v.chunk.id: v for v in self.vectors.get(ids)}
            with self.db.transaction() as conn:
                records.write(conn, stored, only_missing=True)
                LexicalIndex.bump(conn)  # the exact search loads the new copies
            filled += len(stored)
            after = ids[-1]
        return filled

    def fill_prepared(self, prepare: Preparer, batch: int = 1000) -> int:
        """Store what the budget needs of every chunk whose record copy has none made with this
        preparer's key (rows from before it, a follower's or a fill's rows; core/prepared.py).
        Returns how many were filled."""
        filled, after = 0, ""
        while ids := records.unprepared(self.db.read(), prepare.key, after, batch):
            got = records.read(self.db.read(), ids)
            done = {cid: prepare(defused_text(v.chunk)) for cid, v in got.items()}
            with self.db.transaction() as conn:
                filled += records.write_prepared(conn, done, {cid: v.chunk.text for cid, v in got.items()})
            after = ids[-1]
        return filled

    def frequencies(self, words: Iterable[str]) -> tuple[int, dict[str, int]]:
        """How many chunks there are, and how many hold each word (core/index/lexical.py)."""
        return self.lexical.frequencies(words)

    def search_lexical(self, text: str, k: int) -> list[tuple[str, float]]:
        self._follow()
        return self.lexical.search(text, k)

    def _follow(self) -> None:
        """Server mode, before a read of the local rows: catch up with Chroma (an outage is
        reported by the dense side; the rows here are read as they are)."""
        try:
            self.catch_up(force=False)
        except StoreUnavailable as e:
            log.warning("catch-up with Chroma skipped: %s", e)

    def files(self, root: str | None = None) -> dict[str, FileRecord]:
        self.catch_up()
        return self.manifest.files(root)

    def all_files(self) -> list[FileRecord]:
        self.catch_up()
        return self.manifest.all_files()

    def document_ids(self, source: str, chunk_id: str) -> tuple[str, ...]:
        """The chunk ids of the document holding this chunk, in its order."""
        self._follow()
        return self.manifest.document_ids(source, chunk_id)

    def ids_owned_elsewhere(self, ids: set[str], root: str, source: str) -> set[str]:
        return self.manifest.ids_owned_elsewhere(ids, root, source)

    def count(self) -> int:
        return self.vectors.count()

    def stats(self) -> dict[str, int]:
        """Documents and chunks in the index."""
        return {"documents": len(self.all_files()), "chunks": self.vectors.count()}

    # -- writes ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One writer at a time; a run that did not finish cleanly is reconciled by the next."""
        with self._write_lock:
            if self.state.get("dirty"):
                self.reconcile()
            self.state.set("dirty", "1")
            self.catch_up()
            try:
                yield
            finally:
                self._pending.clear()  # a failed file's records are not kept past its run
            self.state.set("dirty", None)

    def upsert_vectors(
        self,
        ids: Sequence[str],
        embeddings: np.ndarray,
        documents: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]],
        prepared: Sequence[Prepared | None] | None = None,
    ) -> None:
        """Step 1 of a file's write: its vectors (idempotent; server mode stamps them); prepared:
        what the budget needs of each chunk (core/prepared.py), kept beside its record copy."""
        if self.shared is not None:
            stamp = self.shared.now()
            metadatas = [{**m, "stamp": stamp, "writer": self._writer} for m in metadatas]
            self._stamps.update(dict.fromkeys(ids, stamp))
        self.vectors.upsert(ids, embeddings, documents, metadatas)
        # the records as stored, for the local copies the file's commit writes
        for n, cid in enumerate(ids):
            meta = dict(metadatas[n])
            prep = prepared[n] if prepared is not None else None
            chunk = Chunk(cid, documents[n], str(meta.get("source", "")), meta, prep)
            self._pending[cid] = StoredVector(chunk, np.asarray(embeddings[n], dtype=np.float32))

    def _take_pending(self, chunks: Sequence[tuple[str, str]]) -> dict[str, StoredVector]:
        """The upserted records of these chunks (taken: a commit writes each once)."""
        return {cid: v for cid, _ in chunks if (v := self._pending.pop(cid, None)) is not None}

    def commit_file(
        self,
        root: str,
        source: str,
        file_hash: str,
        chunks: Sequence[tuple[str, str]],
        stale: Sequence[str],
        category: str = "",
    ) -> None:
        """Step 2: in one transaction, the lexical rows of (id, text) chunks and the manifest row;
        then step 3, the stale vectors. Server mode records the file in Chroma's manifest and
        settles it instead."""
        if self.shared is not None:
            now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            ids = tuple(cid for cid, _ in chunks)
            stamps = [self._stamps.pop(cid) for cid in ids if cid in self._stamps]
            stamp = max(stamps) if stamps else self.shared.now()
            rec = SharedRecord(root, source, file_hash, ids, stamp, now, category, writer=self._writer)
            mine = self.shared.put(rec)
            self._settle(mine, chunks, self._take_pending(chunks))
            return
        stored = self._take_pending(chunks)
        with self.db.transaction() as conn:
            LexicalIndex.delete(conn, stale)
            LexicalIndex.add(conn, source, chunks, stored)
            Manifest.put(conn, root, source, file_hash, [cid for cid, _ in chunks])
        if stale:
            self.vectors.delete(stale)

    def forget_file(self, root: str, source: str, ids: Sequence[str]) -> None:
        """A removed file: its vectors, then its lexical rows and manifest row in one transaction
        (server mode: a tombstone in Chroma's manifest, then the file is settled)."""
        if self.shared is not None:
            tomb = SharedRecord(root, source, "", (), self.shared.now(), removed=True, writer=self._writer)
            mine = self.shared.put(tomb)
            self._settle(mine, (), {})
            return
        self.vectors.delete(ids)
        with self.db.transaction() as conn:
            LexicalIndex.delete(conn, ids)
            Manifest.drop(conn, root, source)

    def _settle(
        self, mine: SharedRecord, chunks: Sequence[tuple[str, str]], stored: Mapping[str, StoredVector]
    ) -> None:
        """Server mode, after adding a record: keep the file's winning record only, delete the
        file's vectors it does not list that a lower-ranked write stamped (a newer writer still in
        flight stamped its own later, or in the same millisecond with a higher writer id, so they
        stay), and mirror the winner locally."""
        records = self.shared.records_of([mine.key])
        win = winners(records).get(mine.key, mine)
        stamped = self.vectors.stamps_of(mine.source)
        keep = set(win.chunk_ids) | self.manifest.ids_owned_elsewhere(set(stamped), mine.root, mine.source)
        stale = [cid for cid, st in stamped.items() if cid not in keep and st < (win.stamp, win.writer)]
        if stale:
            self.vectors.delete(stale)
        self.shared.prune(win, records)
        if win.rid != mine.rid:  # another writer won: the follower brings its rows
            self.catch_up()
            return
        old = self.manifest.files(mine.root).get(mine.source)
        with self.db.transaction() as conn:
            if old is not None:
                gone = set(old.chunk_ids) - set(win.chunk_ids)
                LexicalIndex.delete(
                    conn, gone - self.manifest.ids_owned_elsewhere(gone, mine.root, mine.source)
                )
            if mine.removed:
                Manifest.drop(conn, mine.root, mine.source)
            else:
                LexicalIndex.add(conn, mine.source, chunks, stored)
                Manifest.put(
                    conn, mine.root, mine.source, mine.file_hash, list(mine.chunk_ids), mine.indexed_at
                )

    def reconcile(self) -> int:
        """Bring the two stores back in step after a run that did not finish; returns the number
        of orphaned vectors deleted.

        Files whose chunks are missing from Chroma (a crash after a removal's or a reset's vector
        delete) are forgotten so this run re-indexes them; then vectors the manifest does not own
        (a crash between the Chroma upsert and the manifest commit) are deleted.
        """
        if self.follower is not None:
            # server mode: the local rows are a cache of Chroma's manifest (rebuilt, never the judge
            # of which vectors are orphans: another instance may be between its upsert and its
            # record); a killed write's leftovers go when their file is next settled
            self.follower.sync_all()
            return 0
        vector_ids = set(self.vectors.all_ids())
        missing = self.lexical.ids() - vector_ids
        if missing:
            lost = [rec for rec in self.manifest.all_files() if missing.intersection(rec.chunk_ids)]
            with self.db.transaction() as conn:
                for rec in lost:
                    LexicalIndex.delete(conn, rec.chunk_ids)
                    Manifest.drop(conn, rec.root, rec.source)
                LexicalIndex.delete(conn, missing)  # rows no manifest entry owns
            log.info("reconcile: %d files lost vectors and will be re-indexed", len(lost))
        orphans = sorted(vector_ids - self.lexical.ids())
        if orphans:
            log.info("reconcile: deleting %d orphaned vectors", len(orphans))
            self.vectors.delete(orphans)
        return len(orphans)

    def reset(self) -> None:
        with self._write_lock:
            self.state.set("dirty", "1")  # killed between the two resets → reconciled
            self.vectors.reset()
            if self.shared is not None:
                self.shared.reset()
            with self.db.transaction() as conn:
                LexicalIndex.clear(conn)
                Manifest.clear(conn)
            self.state.set("dirty", None)
