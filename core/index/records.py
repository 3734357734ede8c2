"""The local copy of each chunk's Chroma record (document, metadata, vector) beside its lexical row.

A query asks Chroma only for the nearest ids and their distances (1.4 ms at 100k chunks against
3.7 ms with documents, metadata and vectors) and reads the rest here by primary key, as it reads
the fused ids the dense list lacks. Every write of a file's vectors writes their copies in the
same transaction as the file's lexical rows (the only way Chroma's records change is that upsert),
and a row's copy is dropped with the row.
A row written before this copy existed (or by a path that had no record at hand) has none, and
its record is read from Chroma instead (`Index.fill_records` fills them in).
Beside the copy, a row keeps what the budget needs of the chunk (core/prepared.py) when the write
had it at hand (ingest does; a follower's or a fill's rows get it computed at query time)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping

import numpy as np

from core import prepared
from core.index.vectors import StoredVector
from core.types import Chunk

COLUMNS = ("document", "metadata", "vector", "prepared")


def migrate(conn: sqlite3.Connection) -> None:
    """Add the record columns to a chunks table made before them (idempotent, and safe when
    another process opening the same store adds them at the same moment)."""
    for col, kind in zip(COLUMNS, ("TEXT", "TEXT", "BLOB", "TEXT"), strict=True):
        if col in {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}:
            continue
        try:
            conn.execute(f"ALTER TABLE chunks ADD COLUMN {col} {kind}")
        except sqlite3.OperationalError as e:
            if "duplicate column" not in str(e):
                raise


def encode(v: StoredVector) -> tuple[str, str, bytes | None, str | None]:
    """A record as the column values (the vector as float32 bytes, exactly as stored)."""
    vec = None if v.embedding is None else np.asarray(v.embedding, dtype=np.float32).tobytes()
    prep = None if v.chunk.prepared is None else prepared.dumps(v.chunk.prepared)
    return v.chunk.text, json.dumps(dict(v.chunk.metadata), separators=(",", ":")), vec, prep


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
            f"UPDATE chunks SET document = ?, metadata = ?, vector = ?, prepared = ? WHERE {where}",
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
    made with this key (none yet, or one from another encoding, vocabulary or version)."""
    rows = conn.execute(
        "SELECT id FROM chunks WHERE metadata IS NOT NULL AND id > ? "
        "AND (prepared IS NULL OR json_extract(prepared, '$.k') IS NOT ?) ORDER BY id LIMIT ?",
        (after, key, limit),
    )
    return [r[0] for r in rows]


def write_prepared(conn: sqlite3.Connection, done: Mapping[str, prepared.Prepared]) -> None:
    """Inside a transaction: these rows' Prepared."""
    conn.executemany(
        "UPDATE chunks SET prepared = ? WHERE id = ?", [(prepared.dumps(p), cid) for cid, p in done.items()]
    )
