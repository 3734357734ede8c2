"""The lexical index: SQLite FTS5 with Porter stemming, ranked by bm25.

Chroma has no sparse index in local mode; FTS5 is transactional, incremental and ships with
Python, so the lexical side survives restarts and crashes without extra services."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from core.index.db import LocalDB
from core.text import SEARCH_STOP_WORDS

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_fts_rowid ON chunks(fts_rowid);
"""


# a version or code ("4.1.3", "E-330") is one term: a phrase of its parts, not three loose numbers
_TERM = re.compile(r"\w+(?:[.\-/]\w+)+|\w+")


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the text's words (quoted, so user text is never FTS syntax)."""
    words: list[str] = []
    seen: set[str] = set()
    for w in _TERM.findall(text.lower()):
        if w in SEARCH_STOP_WORDS or w in seen or (len(w) < 2 and not w.isdigit()):
            continue
        seen.add(w)
        words.append('"' + w.replace('"', '""') + '"')
    return " OR ".join(words)


class LexicalIndex:
    """FTS5 rows of the chunks, kept in step with Chroma by the Index."""

    def __init__(self, db: LocalDB) -> None:
        self.db = db

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        """Up to k (chunk id, bm25 score) pairs, best first (higher score is better)."""
        q = fts_query(text)
        if not q:
            return []
        conn = self.db.read()
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
        return int(self.db.read().execute("SELECT count(*) FROM chunks").fetchone()[0])

    def ids(self) -> set[str]:
        return {r[0] for r in self.db.read().execute("SELECT id FROM chunks")}

    @staticmethod
    def add(conn: sqlite3.Connection, source: str, chunks: Sequence[tuple[str, str]]) -> None:
        """Inside a transaction: add (id, text) chunks not already indexed."""
        for cid, text in chunks:
            if conn.execute("SELECT 1 FROM chunks WHERE id = ?", (cid,)).fetchone():
                continue
            cur = conn.execute("INSERT INTO fts(text) VALUES (?)", (text,))
            conn.execute(
                "INSERT INTO chunks(id, fts_rowid, source) VALUES (?, ?, ?)", (cid, cur.lastrowid, source)
            )

    @staticmethod
    def delete(conn: sqlite3.Connection, ids: Iterable[str]) -> None:
        """Inside a transaction: drop the rows of these chunk ids."""
        for cid in ids:
            row = conn.execute("SELECT fts_rowid FROM chunks WHERE id = ?", (cid,)).fetchone()
            if row is None:
                continue
            conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
            conn.execute("DELETE FROM chunks WHERE id = ?", (cid,))

    @staticmethod
    def clear(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM fts")
        conn.execute("DELETE FROM chunks")
