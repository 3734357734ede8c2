"""The record columns are added to a lexical store made before them, once."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from core import prepared
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


def test_rows_prepared_before_the_key_column_get_their_key_from_the_prepared_text(tmp_path: Path) -> None:
    """A store whose rows hold a Prepared but no key column: opening it fills the column from each
    row's Prepared, so the next sync does not prepare them again, and finds the stale one."""
    path = tmp_path / "lex.sqlite3"
    conn = sqlite3.connect(path)
    old = OLD_CHUNKS.replace(
        "source TEXT NOT NULL",
        "source TEXT NOT NULL, document TEXT, metadata TEXT, vector BLOB, prepared TEXT",
    )
    p = prepared.Prepared("1|enc|pieces", ("One.",), ((2, 2, 2, 2),), 3, ((7,),))
    conn.executescript(old)
    conn.executemany(
        "INSERT INTO chunks VALUES (?, ?, 's.txt', 'One.', '{}', NULL, ?)",
        [
            ("a", 1, prepared.dumps(p)),
            ("b", 2, prepared.dumps(dataclasses.replace(p, key="0|old"))),
            ("c", 3, None),
            ("d", 4, "{not json"),
        ],
    )
    conn.commit()
    conn.close()
    db = LocalDB(path, lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
    LexicalIndex(db)
    keys = dict(db.read().execute("SELECT id, prepared_key FROM chunks"))
    assert keys == {"a": "1|enc|pieces", "b": "0|old", "c": None, "d": ""}  # "d" is prepared again
    assert records.unprepared(db.read(), "1|enc|pieces", "", 10) == ["b", "c", "d"]
    with db.transaction() as tx:
        written = records.write_prepared(
            tx,
            {"b": p, "c": p, "d": p, "a": dataclasses.replace(p, whole=99)},
            {"b": "One.", "c": "One.", "d": "One.", "a": "Two."},
        )
    # "a" was read as another text than it holds now: its Prepared is not written over
    assert written == 3
    assert dict(db.read().execute("SELECT id, prepared FROM chunks"))["a"] == prepared.dumps(p)
    assert not records.any_unprepared(db.read(), "1|enc|pieces")
    assert records.unprepared(db.read(), "1|enc|pieces", "", 10) == []
    assert records.unprepared(db.read(), "2|other", "", 10) == ["a", "b", "c", "d"]


def test_a_migrated_store_opens_while_another_process_writes(tmp_path: Path) -> None:
    """Opening a store that has every column and the key index writes nothing, so it does not
    wait for (or time out behind) another connection's write transaction."""
    path = tmp_path / "lex.sqlite3"
    LexicalIndex(LocalDB(path, lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        opener = sqlite3.connect(path, timeout=0.2, isolation_level=None)
        records.migrate(opener)  # would raise "database is locked" if it wrote
        assert records.unprepared(opener, "1|enc|pieces", "", 10) == []
    finally:
        writer.execute("ROLLBACK")
