"""The record columns are added to a lexical store made before them, once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.index import lexical, manifest, records, state
from core.index.db import LocalDB
from core.index.lexical import LexicalIndex

OLD_CHUNKS = "CREATE TABLE chunks (id TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL, source TEXT NOT NULL);"


def test_an_old_store_gets_the_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "lex.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_CHUNKS + "INSERT INTO chunks VALUES ('a', 1, 's.txt');")
    conn.close()
    db = LocalDB(path, lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
    lex = LexicalIndex(db)
    cols = [row[1] for row in db.read().execute("PRAGMA table_info(chunks)")]
    assert cols[-len(records.COLUMNS) :] == list(records.COLUMNS)
    assert lex.ids() == {"a"} and lex.records(["a"]) == {}  # a row without a copy
    records.migrate(db.read())  # again: nothing to add, no error
    assert [row[1] for row in db.read().execute("PRAGMA table_info(chunks)")] == cols
