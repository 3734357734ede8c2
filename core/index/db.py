"""The local SQLite file beside Chroma: one connection per thread and explicit transactions.

The lexical index, the ingest manifest and the index state live in this one file, so a
document's lexical rows and its manifest row change in one transaction."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class LocalDB:
    """A SQLite file in WAL mode; `read()` for queries, `with db.transaction() as conn:` for writes."""

    def __init__(self, path: Path, schema: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._local = threading.local()
        self.read().executescript(schema)

    def read(self) -> sqlite3.Connection:
        """This thread's connection (autocommit)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def transaction(self) -> _Tx:
        return immediate(self.read())


def immediate(conn: sqlite3.Connection) -> _Tx:
    """`with immediate(conn):` → BEGIN IMMEDIATE … COMMIT/ROLLBACK on an autocommit connection."""
    return _Tx(conn)


class _Tx:
    """`with` → BEGIN IMMEDIATE … COMMIT/ROLLBACK on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
