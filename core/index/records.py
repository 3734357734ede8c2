"""The local copy of each chunk's Chroma record (document, metadata, vector) beside its lexical row.

A query asks Chroma only for the nearest ids and their distances (1.4 ms at 100k chunks against
3.7 ms with documents, metadata and vectors) and reads the rest here by primary key, as it reads
the fused ids the dense list lacks. Every write of a file's vectors writes their copies in the
same transaction as the file's lexical rows (the only way Chroma's records change is that upsert),
and a row's copy is dropped with the row.
A row written before this copy existed (or by a path that had no record at hand) has none, and
its record is read from Chroma instead (`Index.fill_records` fills them in).
Beside the copy, a row keeps what the budget needs of the chunk (core/prepared.py) when the write
had it at hand (ingest does; a follower's or a fill's rows get it computed at query time), and
the key it was made with in its own indexed column, so a sync finds the rows to prepare again
without reading every row (a sync of an unchanged 100k-chunk store: 0.5 ms, 0.64 s before)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping

import numpy as np

from core import prepared
from core.index.db import immediate
from core.index.vectors import StoredVector
from core.types import Chunk

COLUMNS = ("document", "metadata", "vector", "prepared", "prepared_key")
KINDS = ("TEXT", "TEXT", "BLOB", "TEXT", "TEXT")
KEY_INDEX = "chunks_by_prepared_key"  # rows with a record copy, by the key of their Prepared
BACKFILL_ROWS = 5000  # rows given their key per transaction when a store gets the key column


def migrate(conn: sqlite3.Connection) -> None:
    """Add the record columns and the key index to a chunks table made before them. A migrated
    store is opened without a write; otherwise the change is made under the write lock (another
    process opening the same store at the same moment waits, then finds it done), and rows
    prepared before the key had its column get it from their Prepared (_backfill_keys)."""
    if _columns(conn) >= set(COLUMNS) and _has_key_index(conn):
        return
    with immediate(conn):
        for col, kind in zip(COLUMNS, KINDS, strict=True):
            if col not in _columns(conn):
                conn.execute(f"ALTER TABLE chunks ADD COLUMN {col} {kind}")
        fresh = not _has_key_index(conn)
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {KEY_INDEX} ON chunks(prepared_key, id) WHERE metadata IS NOT NULL"
        )
    if fresh:
        _backfill_keys(conn)


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}


def _has_key_index(conn: sqlite3.Connection) -> bool:
    return bool(
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (KEY_INDEX,)).fetchone()
    )


def _backfill_keys(conn: sqlite3.Connection) -> None:
    """Each prepared row's key from its Prepared, a batch per transaction so other writers are not
    held up for long (6.7 s in all at 100k chunks). A Prepared that is not JSON gets the key "", so
    the next sync prepares it again, as it does the rows an interrupted fill leaves without a key."""
    while True:
        with immediate(conn):
            done = conn.execute(
                "UPDATE chunks SET prepared_key = CASE WHEN json_valid(prepared) "
                "THEN coalesce(CAST(json_extract(prepared, '$.k') AS TEXT), '') ELSE '' END "
                f"WHERE rowid IN (SELECT rowid FROM chunks INDEXED BY {KEY_INDEX} WHERE metadata IS NOT NULL "
                "AND prepared_key IS NULL AND prepared IS NOT NULL LIMIT ?)",
                (BACKFILL_ROWS,),
            ).rowcount
        if done < BACKFILL_ROWS:
            return


def encode(v: StoredVector) -> tuple[str, str, bytes | None, str | None, str | None]:
    """A record as the column values (the vector as float32 bytes, exactly as stored)."""
    vec = None if v.embedding is None else np.asarray(v.embedding, dtype=np.float32).tobytes()
    p = v.chunk.prepared
    prep, key = (None, None) if p is None else (prepared.dumps(p), p.key)
    return v.chunk.text, json.dumps(dict(v.chunk.metadata), separators=(",", ":")), vec, prep, key


def decode(
    cid: str, document: str, metadata: str, vector: bytes | None, prep: str | None = None
) -> StoredVector:
    meta = json.loads(metadata)
    emb = None if vector is None else np.frombuffer(vector, dtype=np.float32)
    chunk = Chunk(
        id=cid,
        text=document,
        source=str(meta.get("source", "")),
        metadata=meta,
        prepared=prepared.loads(prep),
    )
    return StoredVector(chunk, emb)


def read(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, StoredVector]:
    """The local records of these ids (ids without one are left out)."""
    ids = list(dict.fromkeys(ids))
    out: dict[str, StoredVector] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT id, document, metadata, vector, prepared FROM chunks WHERE id IN ({marks}) "
            "AND metadata IS NOT NULL",
            part,
        )
        for cid, doc, meta, vec, prep in rows:
            out[cid] = decode(cid, doc, meta, vec, prep)
    return out


def write(conn: sqlite3.Connection, records: Mapping[str, StoredVector], only_missing: bool = False) -> None:
    """Inside a transaction: the rows' copies of these records (only_missing: only rows that
    have none). A write replaces a copy: an unchanged chunk of a changed file keeps its id while
    its metadata (file hash, the page's shield flags) changes with the file."""
    where = "id = ? AND metadata IS NULL" if only_missing else "id = ?"
    for cid, v in records.items():
        conn.execute(
            f"UPDATE chunks SET document = ?, metadata = ?, vector = ?, prepared = ?, prepared_key = ? "
            f"WHERE {where}",
            (*encode(v), cid),
        )


def missing(conn: sqlite3.Connection, after: str, limit: int) -> list[str]:
    """Up to limit ids after `after` (in id order) whose row has no record yet."""
    rows = conn.execute(
        "SELECT id FROM chunks WHERE metadata IS NULL AND id > ? ORDER BY id LIMIT ?", (after, limit)
    )
    return [r[0] for r in rows]


def unprepared(conn: sqlite3.Connection, key: str, after: str, limit: int) -> list[str]:
    """Up to limit ids after `after` (in id order) whose row has a record copy but no Prepared
    made with this key (none yet, or one from another encoding, vocabulary or version); an
    unchanged store answers from the key index without reading a row."""
    if not after and not any_unprepared(conn, key):
        return []
    rows = conn.execute(
        "SELECT id FROM chunks WHERE metadata IS NOT NULL AND id > ? AND prepared_key IS NOT ? "
        "ORDER BY id LIMIT ?",
        (after, key, limit),
    )
    return [r[0] for r in rows]


def any_unprepared(conn: sqlite3.Connection, key: str) -> bool:
    """Whether some row with a record copy has no Prepared made with this key (three searches
    of the key index, pinned so statistics from an ANALYZE cannot turn one into a table scan:
    no key, a lower key, a higher one)."""
    rows = f"SELECT 1 FROM chunks INDEXED BY {KEY_INDEX} WHERE metadata IS NOT NULL AND prepared_key"
    row = conn.execute(
        f"SELECT EXISTS({rows} IS NULL) OR EXISTS({rows} < ?) OR EXISTS({rows} > ?)", (key, key)
    ).fetchone()
    return bool(row[0])


def write_prepared(
    conn: sqlite3.Connection, done: Mapping[str, prepared.Prepared], documents: Mapping[str, str]
) -> int:
    """Inside a transaction: these rows' Prepared, each made from the document text `documents`
    gives for its id; a row whose document changed since it was read (a server-mode follower
    rewrote it) is left as it is, for the next sync. Returns how many rows were written."""
    return conn.executemany(
        "UPDATE chunks SET prepared = ?, prepared_key = ? WHERE id = ? AND document IS ?",
        [(prepared.dumps(p), p.key, cid, documents[cid]) for cid, p in done.items()],
    ).rowcount
