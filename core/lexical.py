"""The lexical index (SQLite FTS5, Porter stemming, bm25 ranking) and the ingest manifest.

Both live in one local SQLite file so a file's chunks and its manifest row change in one
transaction. Chroma has no sparse index in local mode; FTS5 is transactional, incremental and
ships with Python, so the lexical side survives restarts and crashes without extra services.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"\w+", re.UNICODE)

_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_fts_rowid ON chunks(fts_rowid);
CREATE TABLE IF NOT EXISTS files (
    root TEXT NOT NULL, source TEXT NOT NULL, file_hash TEXT NOT NULL, chunk_ids TEXT NOT NULL,
    PRIMARY KEY (root, source)
);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class FileRecord:
    """What the manifest remembers of one ingested file."""

    root: str
    source: str
    file_hash: str
    chunk_ids: tuple[str, ...]


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the text's words (quoted, so user text is never FTS syntax)."""
    words: list[str] = []
    seen: set[str] = set()
    for w in _WORD.findall(text.lower()):
        if w in ENGLISH_STOP_WORDS or w in seen or (len(w) < 2 and not w.isdigit()):
            continue
        seen.add(w)
        words.append('"' + w.replace('"', '""') + '"')
    return " OR ".join(words)


class LexicalIndex:
    """FTS5 chunk index plus the file manifest, kept in step with Chroma by ingest."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self._conn().conn.executescript(_SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return _Tx(conn)  # type: ignore[return-value]

    # -- search -------------------------------------------------------------------------------
    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        """Up to k (chunk id, bm25 score) pairs, best first (higher score is better)."""
        q = fts_query(text)
        if not q:
            return []
        conn = self._conn().conn
        # rank inside FTS5 first, then map only the top k rowids to chunk ids: joining before the
        # LIMIT looked up a chunk row for every match (a full scan of chunks each, without the index)
        top = conn.execute(
            "SELECT rowid, -bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?", (q, k)
        ).fetchall()
        if not top:
            return []
        marks = ",".join("?" * len(top))
        ids = dict(
            conn.execute(
                f"SELECT fts_rowid, id FROM chunks WHERE fts_rowid IN ({marks})", [r[0] for r in top]
            ).fetchall()
        )
        return [(ids[r[0]], float(r[1])) for r in top if r[0] in ids]

    def count(self) -> int:
        return int(self._conn().conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def ids(self) -> set[str]:
        return {r[0] for r in self._conn().conn.execute("SELECT id FROM chunks")}

    # -- manifest -----------------------------------------------------------------------------
    def files(self, root: str | None = None) -> dict[str, FileRecord]:
        """Manifest rows (of one root, or all), keyed by source."""
        conn = self._conn().conn
        sql = "SELECT root, source, file_hash, chunk_ids FROM files"
        rows = conn.execute(sql + " WHERE root = ?", (root,)) if root is not None else conn.execute(sql)
        return {r[1]: FileRecord(r[0], r[1], r[2], tuple(json.loads(r[3]))) for r in rows}

    def all_files(self) -> list[FileRecord]:
        conn = self._conn().conn
        rows = conn.execute("SELECT root, source, file_hash, chunk_ids FROM files ORDER BY source")
        return [FileRecord(r[0], r[1], r[2], tuple(json.loads(r[3]))) for r in rows]

    def ids_owned_elsewhere(self, ids: set[str], root: str, source: str) -> set[str]:
        """Those of ids that a manifest row other than (root, source) also lists."""
        if not ids:
            return set()
        owned: set[str] = set()
        rows = self._conn().conn.execute(
            "SELECT chunk_ids FROM files WHERE NOT (root = ? AND source = ?)", (root, source)
        )
        for (chunk_ids,) in rows:
            owned.update(ids.intersection(json.loads(chunk_ids)))
        return owned

    def commit_file(
        self,
        root: str,
        source: str,
        file_hash: str,
        chunks: Sequence[tuple[str, str]],
        stale_ids: Iterable[str],
    ) -> None:
        """In one transaction: drop stale chunk ids, add (id, text) chunks, record the file."""
        with self._conn() as c:
            self._delete_ids(c.conn, stale_ids)
            for cid, text in chunks:
                if c.conn.execute("SELECT 1 FROM chunks WHERE id = ?", (cid,)).fetchone():
                    continue
                cur = c.conn.execute("INSERT INTO fts(text) VALUES (?)", (text,))
                c.conn.execute(
                    "INSERT INTO chunks(id, fts_rowid, source) VALUES (?, ?, ?)",
                    (cid, cur.lastrowid, source),
                )
            c.conn.execute(
                "INSERT OR REPLACE INTO files(root, source, file_hash, chunk_ids) VALUES (?, ?, ?, ?)",
                (root, source, file_hash, json.dumps([cid for cid, _ in chunks])),
            )

    def forget_file(self, root: str, source: str, ids: Iterable[str]) -> None:
        """In one transaction: drop a removed file's chunks and its manifest row."""
        with self._conn() as c:
            self._delete_ids(c.conn, ids)
            c.conn.execute("DELETE FROM files WHERE root = ? AND source = ?", (root, source))

    def delete_ids(self, ids: Iterable[str]) -> None:
        with self._conn() as c:
            self._delete_ids(c.conn, ids)

    @staticmethod
    def _delete_ids(conn: sqlite3.Connection, ids: Iterable[str]) -> None:
        for cid in ids:
            row = conn.execute("SELECT fts_rowid FROM chunks WHERE id = ?", (cid,)).fetchone()
            if row is None:
                continue
            conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
            conn.execute("DELETE FROM chunks WHERE id = ?", (cid,))

    def get_state(self, key: str) -> str | None:
        row = self._conn().conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_state(self, key: str, value: str | None) -> None:
        with self._conn() as c:
            if value is None:
                c.conn.execute("DELETE FROM state WHERE key = ?", (key,))
            else:
                c.conn.execute("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)", (key, value))

    def reset(self) -> None:
        with self._conn() as c:
            for table in ("fts", "chunks", "files"):
                c.conn.execute(f"DELETE FROM {table}")


class _Tx:
    """`with` → BEGIN IMMEDIATE … COMMIT/ROLLBACK on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> _Tx:
        self.conn.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
