"""A small key-value table of index state (the "dirty" flag of an unfinished write)."""

from __future__ import annotations

from core.index.db import LocalDB

SCHEMA = "CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);"


class IndexState:
    def __init__(self, db: LocalDB) -> None:
        self.db = db

    def get(self, key: str) -> str | None:
        row = self.db.read().execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set(self, key: str, value: str | None) -> None:
        with self.db.transaction() as conn:
            if value is None:
                conn.execute("DELETE FROM state WHERE key = ?", (key,))
            else:
                conn.execute("INSERT OR REPLACE INTO state(key, value) VALUES (?, ?)", (key, value))
