"""The ingest manifest: per ingested file, its content hash and the ids of its chunks."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import dataclass

from core.index.db import LocalDB

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    root TEXT NOT NULL, source TEXT NOT NULL, file_hash TEXT NOT NULL, chunk_ids TEXT NOT NULL,
    indexed_at TEXT NOT NULL DEFAULT '', PRIMARY KEY (root, source)
);
-- a document's chunks are looked up by its source per question (core/retrieval/tables.py)
CREATE INDEX IF NOT EXISTS files_source ON files(source);
"""


@dataclass(frozen=True)
class FileRecord:
    """What the manifest remembers of one ingested file."""

    root: str
    source: str
    file_hash: str
    chunk_ids: tuple[str, ...]
    indexed_at: str = ""  # UTC, ISO 8601, seconds ("" for rows written before it was recorded)


def _record(row: tuple[str, str, str, str, str]) -> FileRecord:
    return FileRecord(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4])


class Manifest:
    """The files table of the local database."""

    def __init__(self, db: LocalDB) -> None:
        self.db = db
        columns = {r[1] for r in db.read().execute("PRAGMA table_info(files)")}
        if "indexed_at" not in columns:  # a store written before the column existed
            try:
                with db.transaction() as conn:
                    conn.execute("ALTER TABLE files ADD COLUMN indexed_at TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError as e:  # another process migrated it meanwhile
                if "duplicate column" not in str(e):
                    raise

    def files(self, root: str | None = None) -> dict[str, FileRecord]:
        """Manifest rows (of one root, or all), keyed by source."""
        sql = "SELECT root, source, file_hash, chunk_ids, indexed_at FROM files"
        conn = self.db.read()
        rows = conn.execute(sql + " WHERE root = ?", (root,)) if root is not None else conn.execute(sql)
        return {r[1]: _record(r) for r in rows}

    def all_files(self) -> list[FileRecord]:
        rows = self.db.read().execute(
            "SELECT root, source, file_hash, chunk_ids, indexed_at FROM files ORDER BY source"
        )
        return [_record(r) for r in rows]

    def document_ids(self, source: str, chunk_id: str) -> tuple[str, ...]:
        """The chunk ids, in document order, of the file of this source that holds chunk_id (none:
        no such file)."""
        rows = self.db.read().execute("SELECT chunk_ids FROM files WHERE source = ?", (source,))
        return next((ids for (text,) in rows if chunk_id in (ids := tuple(json.loads(text)))), ())

    def ids(self) -> set[str]:
        """Every chunk id some file owns."""
        return {cid for rec in self.all_files() for cid in rec.chunk_ids}

    def ids_owned_elsewhere(self, ids: set[str], root: str, source: str) -> set[str]:
        """Those of ids that a manifest row other than (root, source) also lists."""
        if not ids:
            return set()
        owned: set[str] = set()
        rows = self.db.read().execute(
            "SELECT chunk_ids FROM files WHERE NOT (root = ? AND source = ?)", (root, source)
        )
        for (chunk_ids,) in rows:
            owned.update(ids.intersection(json.loads(chunk_ids)))
        return owned

    @staticmethod
    def put(
        conn: sqlite3.Connection, root: str, source: str, file_hash: str, ids: list[str], indexed_at: str = ""
    ) -> None:
        """Inside a transaction: record a file and its chunk ids (indexed now, unless a follower
        copies another instance's time)."""
        now = indexed_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        conn.execute(
            "INSERT OR REPLACE INTO files(root, source, file_hash, chunk_ids, indexed_at) VALUES (?, ?, ?, ?, ?)",
            (root, source, file_hash, json.dumps(ids), now),
        )

    @staticmethod
    def drop(conn: sqlite3.Connection, root: str, source: str) -> None:
        conn.execute("DELETE FROM files WHERE root = ? AND source = ?", (root, source))

    @staticmethod
    def clear(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM files")
