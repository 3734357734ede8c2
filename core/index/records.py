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
from core.index.vectors import StoredVector
from core.types import Chunk

COLUMNS = ("document", "metadata", "vector", "prepared", "prepared_key")


def migrate(conn: sqlite3.Connection) -> None:
    """Add the record columns to a chunks table made before them, and the index of the rows'
    Prepared keys (idempotent, and safe when another process opening the same store adds them at
    the same moment); a row prepared before the key had its column gets it from its Prepared."""
    for col, kind in zip(COLUMNS, ("TEXT", "TEXT", "BLOB", "TEXT", "TEXT"), strict=True):
        if col in {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}:
            continue
        try:
            conn.execute(f"ALTER TABLE chunks ADD COLUMN {col} {kind}")
        except sqlite3.OperationalError as e:
            if "duplicate column" not in str(e):
                raise
    conn.execute(
        "CREATE INDEX IF NOT EXISTS chunks_by_prepared_key ON chunks(prepared_key, id) "
        "WHERE metadata IS NOT NULL"
    )
    conn.execute(
        "UPDATE chunks SET prepared_key = json_extract(prepared, '$.k') "
        "WHERE metadata IS NOT NULL AND prepared_key IS NULL AND prepared IS NOT NULL"
    )


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
        "SELECT id FROM chunks WHERE metadata IS NOT NULL AND id > ? "
        "AND (prepared_key IS NULL OR prepared_key IS NOT ?) ORDER BY id LIMIT ?",
        (after, key, limit),
    )
    return [r[0] for r in rows]


def any_unprepared(conn: sqlite3.Connection, key: str) -> bool:
    """Whether some row with a record copy has no Prepared made with this key (three searches
    of the key index: none, a lower key, a higher one)."""
    row = conn.execute(
        "SELECT EXISTS(SELECT 1 FROM chunks WHERE metadata IS NOT NULL AND prepared_key IS NULL) "
        "OR EXISTS(SELECT 1 FROM chunks WHERE metadata IS NOT NULL AND prepared_key < ?) "
        "OR EXISTS(SELECT 1 FROM chunks WHERE metadata IS NOT NULL AND prepared_key > ?)",
        (key, key),
    ).fetchone()
    return bool(row[0])


def write_prepared(conn: sqlite3.Connection, done: Mapping[str, prepared.Prepared]) -> None:
    """Inside a transaction: these rows' Prepared."""
    conn.executemany(
        "UPDATE chunks SET prepared = ?, prepared_key = ? WHERE id = ?",
        [(prepared.dumps(p), p.key, cid) for cid, p in done.items()],
    )
