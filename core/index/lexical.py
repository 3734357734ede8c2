"""The lexical index: SQLite FTS5 with Porter stemming, ranked by bm25.

Chroma has no sparse index in local mode; FTS5 is transactional, incremental and ships with
Python, so the lexical side survives restarts and crashes without extra services. The rows live
in FTS5; a search is answered by default from an in-memory copy of its postings with the same
terms and the same bm25 (`core.index.sparse`: FTS5 itself scores every row matching a common word,
~22 ms at 100k chunks), which follows the rows through a generation counter that add, delete and
clear bump in their transaction, so a sync by another process is seen by the next search."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from core.index import records
from core.index.db import LocalDB
from core.index.sparse import MemoryBM25
from core.index.vectors import StoredVector
from core.stems import STEMMER
from core.text import SEARCH_STOP_WORDS

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL, source TEXT NOT NULL,
                                   document TEXT, metadata TEXT, vector BLOB, prepared TEXT,
                                   prepared_key TEXT);
CREATE INDEX IF NOT EXISTS chunks_by_fts_rowid ON chunks(fts_rowid);
CREATE TABLE IF NOT EXISTS lexical_generation (n INTEGER NOT NULL);
INSERT INTO lexical_generation SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM lexical_generation);
"""

LexicalEngine = Literal["memory", "fts5"]

# a version or code ("4.1.3", "E-330") is one term: a phrase of its parts, not three loose numbers
_TERM = re.compile(r"\w+(?:[.\-/]\w+)+|\w+")


def search_words(text: str) -> list[str]:
    """The text's distinct search words (lower case, stop words and single letters dropped)."""
    words: list[str] = []
    seen: set[str] = set()
    for w in _TERM.findall(text.lower()):
        if w in SEARCH_STOP_WORDS or w in seen or (len(w) < 2 and not w.isdigit()):
            continue
        seen.add(w)
        words.append(w)
    return words


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the text's words (quoted, so user text is never FTS syntax)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in search_words(text))


def _phrase_rows(conn: sqlite3.Connection, word: str) -> list[tuple[int, float]]:
    """FTS5's (rowid, bm25) of every row holding the word as a phrase."""
    q = '"' + word.replace('"', '""') + '"'
    return conn.execute("SELECT rowid, -bm25(fts) FROM fts WHERE fts MATCH ?", (q,)).fetchall()


class LexicalIndex:
    """FTS5 rows of the chunks, kept in step with Chroma by the Index; searched in memory
    (engine "memory", the default) or by FTS5 itself (engine "fts5")."""

    def __init__(self, db: LocalDB, engine: LexicalEngine = "memory") -> None:
        self.db = db
        self.engine = engine
        self._memory = MemoryBM25() if engine == "memory" else None
        records.migrate(db.read())

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        """Up to k (chunk id, bm25 score) pairs, best first (higher score is better)."""
        if self._memory is not None:
            words = search_words(text)
            if not words:
                return []
            conn = self.db.read()
            self._memory.sync(conn, self.generation(conn))
            return self._memory.search(words, k, lambda w: _phrase_rows(conn, w))
        return self._search_fts5(text, k)

    def frequencies(self, words: Iterable[str]) -> tuple[int, dict[str, int]]:
        """The number of rows and, per word, how many rows hold it (by its stemmed terms, as the
        search matches it; a word of several terms counts its rarest term's rows)."""
        stems = STEMMER.terms(words)
        terms = sorted({t for ts in stems.values() for t in ts})
        conn = self.db.read()
        if self._memory is not None:
            self._memory.sync(conn, self.generation(conn))
            n, rows = self._memory.term_rows(terms)
        else:
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_rows USING fts5vocab(main, fts, row)")
            marks = ",".join("?" * len(terms))
            query = f"SELECT term, doc FROM temp.fts_rows WHERE term IN ({marks})"
            n, rows = self.count(), dict(conn.execute(query, terms)) if terms else {}
        return n, {w: min((int(rows.get(t, 0)) for t in ts), default=0) for w, ts in stems.items()}

    @staticmethod
    def generation(conn: sqlite3.Connection) -> int:
        """The counter add, delete, clear and a fill of the record copies bump: a changed value
        means changed rows (the in-memory lexical engine and the exact vector search follow it)."""
        row = conn.execute("SELECT n FROM lexical_generation").fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def bump(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE lexical_generation SET n = n + 1")

    def _search_fts5(self, text: str, k: int) -> list[tuple[str, float]]:
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

    def records(self, ids: Iterable[str]) -> dict[str, StoredVector]:
        """The local copies of these chunks' Chroma records (core/index/records.py)."""
        return records.read(self.db.read(), ids)

    @staticmethod
    def add(
        conn: sqlite3.Connection,
        source: str,
        chunks: Sequence[tuple[str, str]],
        stored: Mapping[str, StoredVector] | None = None,
    ) -> None:
        """Inside a transaction: add (id, text) chunks not already indexed, and write the copy of
        each chunk's Chroma record that stored has (an existing row's copy is replaced)."""
        if chunks:
            LexicalIndex.bump(conn)
        for cid, text in chunks:
            if conn.execute("SELECT 1 FROM chunks WHERE id = ?", (cid,)).fetchone():
                continue
            cur = conn.execute("INSERT INTO fts(text) VALUES (?)", (text,))
            conn.execute(
                "INSERT INTO chunks(id, fts_rowid, source) VALUES (?, ?, ?)", (cid, cur.lastrowid, source)
            )
        if stored:
            records.write(conn, {cid: stored[cid] for cid, _ in chunks if cid in stored})

    @staticmethod
    def delete(conn: sqlite3.Connection, ids: Iterable[str]) -> None:
        """Inside a transaction: drop the rows of these chunk ids."""
        ids = list(ids)
        if ids:
            LexicalIndex.bump(conn)
        for cid in ids:
            row = conn.execute("SELECT fts_rowid FROM chunks WHERE id = ?", (cid,)).fetchone()
            if row is None:
                continue
            conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
            conn.execute("DELETE FROM chunks WHERE id = ?", (cid,))

    @staticmethod
    def clear(conn: sqlite3.Connection) -> None:
        LexicalIndex.bump(conn)
        conn.execute("DELETE FROM fts")
        conn.execute("DELETE FROM chunks")
