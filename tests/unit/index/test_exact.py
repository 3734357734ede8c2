"""A small collection's dense search is exact, from the local vector copies, and follows writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.config import Settings
from core.index import lexical, manifest, records, state
from core.index.db import LocalDB
from core.index.exact import ExactVectors
from core.index.index import Index
from core.index.lexical import LexicalIndex
from core.index.vectors import StoredVector
from core.types import Chunk
from tests.support.stores import index_for, resources_for

QUESTIONS = (
    "What is the ArmX2 payload?",
    "How do I reset the controller?",
    "Which warranty applies to the arm?",
    "What happens when the emergency stop is pressed?",
    "weather in Paris",
)


def test_the_sample_store_is_searched_exactly(sample_copy: Settings) -> None:
    """The neighbours are those of a brute-force search over the vectors Chroma itself holds, with
    the same distances, and they come from the exact search (Chroma's HNSW is not asked)."""
    index = index_for(sample_copy)
    assert index.exact is not None
    got = index.vectors.collection.get(include=["embeddings"])
    ids, vecs = list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    encode = resources_for(sample_copy).retriever._encode
    for question in QUESTIONS:
        q = encode(question)
        sims = vecs @ (q / np.linalg.norm(q))
        truth = sorted(range(len(ids)), key=lambda i: (-float(sims[i]), ids[i]))[:8]
        near = index.nearest(q, 8)
        assert [cid for cid, _ in near] == [ids[i] for i in truth], question
        assert np.allclose([d for _, d in near], [1 - sims[i] for i in truth], atol=1e-5)
        conn = index.db.read()
        assert index.exact.nearest(conn, LexicalIndex.generation(conn), q, 8) == near
    assert [v.chunk.id for v in index.query(encode(QUESTIONS[0]), 3)] == [
        c for c, _ in index.nearest(encode(QUESTIONS[0]), 3)
    ]


def _db(tmp_path: Path) -> LocalDB:
    db = LocalDB(tmp_path / "lex.sqlite3", lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
    LexicalIndex(db)  # adds the record columns
    return db


def _add(db: LocalDB, rows: dict[str, list[float]], with_vectors: bool = True) -> None:
    stored = {
        cid: StoredVector(
            Chunk(cid, f"text of {cid}", "s.txt", {"source": "s.txt"}), np.asarray(v, dtype=np.float32)
        )
        for cid, v in rows.items()
    }
    with db.transaction() as conn:
        LexicalIndex.add(
            conn, "s.txt", [(cid, f"text of {cid}") for cid in rows], stored if with_vectors else None
        )


def _nearest(exact: ExactVectors, db: LocalDB, v: list[float], k: int) -> list[tuple[str, float]] | None:
    conn = db.read()
    return exact.nearest(conn, LexicalIndex.generation(conn), np.asarray(v, dtype=np.float32), k)


def test_ties_go_to_the_smaller_id_and_writes_are_followed(tmp_path: Path) -> None:
    db = _db(tmp_path)
    # "a" and "c" point the same way ("c" stored unnormalised): a tie, whichever length is stored
    _add(db, {"c": [5, 0, 0], "b": [0, 1, 0], "a": [1, 0, 0]})
    exact = ExactVectors(10)
    got = _nearest(exact, db, [2, 0, 0], 3)  # an unnormalised query: cosine all the same
    assert got is not None and [c for c, _ in got] == ["a", "c", "b"]
    assert got[0][1] == pytest.approx(0.0, abs=1e-6) and got[2][1] == pytest.approx(1.0, abs=1e-6)
    assert [c for c, _ in _nearest(exact, db, [0.1, 1, 0], 1) or []] == ["b"]
    assert [c for c, _ in _nearest(exact, db, [1, 0, 0], 1) or []] == ["a"]  # a tie at the cut too
    assert len(_nearest(exact, db, [1, 0, 0], 50) or []) == 3  # k beyond the rows: every row
    assert _nearest(exact, db, [1, 0], 1) is None  # a vector of another width: Chroma's error
    assert _nearest(exact, db, [float("nan"), 0, 0], 1) is None  # Chroma's NaN distances
    _add(db, {"d": [0, 0, 1]})  # a write: a new generation
    assert [c for c, _ in _nearest(exact, db, [0, 0.2, 1], 1) or []] == ["d"]
    with db.transaction() as conn:
        LexicalIndex.delete(conn, ["d"])
    assert [c for c, _ in _nearest(exact, db, [0, 0.2, 1], 1) or []] == ["b"]


def test_many_ties_come_in_id_order(tmp_path: Path) -> None:
    """Half of 200 rows share one vector, written in a shuffled order: the nearest are the
    smallest ids of that half, in order, wherever the cut falls."""
    db = _db(tmp_path)
    rng = np.random.default_rng(3)
    rows = {
        f"d{i:03d}": ([1.0, 0.0, 0.0] if i % 2 == 0 else list(rng.uniform(-1, 0.5, 3))) for i in range(200)
    }
    _add(db, dict(sorted(rows.items(), key=lambda kv: rng.random())))
    for k in (1, 5, 37, 100):
        got = _nearest(ExactVectors(1000), db, [1, 0, 0], k) or []
        assert [c for c, _ in got] == [f"d{i:03d}" for i in range(0, 2 * k, 2)]


def test_a_large_collection_or_one_without_every_copy_is_left_to_chroma(tmp_path: Path) -> None:
    db = _db(tmp_path)
    assert _nearest(ExactVectors(10), db, [1, 0], 1) is None  # empty
    _add(db, {"a": [1, 0], "b": [0, 1]})
    assert _nearest(ExactVectors(1), db, [1, 0], 1) is None  # more rows than the maximum
    _add(db, {"c": [1, 1]}, with_vectors=False)  # a row written without its record copy
    exact = ExactVectors(10)
    assert _nearest(exact, db, [1, 0], 1) is None
    with db.transaction() as conn:  # what Index.fill_records does: the copy, and a new generation
        records.write(
            conn, {"c": StoredVector(Chunk("c", "text of c", "s.txt", {}), np.ones(2, np.float32))}, True
        )
        LexicalIndex.bump(conn)
    assert [c for c, _ in _nearest(exact, db, [1, 1.1], 1) or []] == ["c"]


def test_the_setting_turns_it_off(sample_copy: Settings) -> None:
    """exact_search_max 0: Chroma answers every search."""
    index = Index(sample_copy.model_copy(update={"exact_search_max": 0}))
    assert index.exact is None
    first = np.asarray(index.vectors.collection.get(limit=1, include=["embeddings"])["embeddings"][0])
    assert [cid for cid, _ in index.nearest(first, 2)] == [cid for cid, _ in index.vectors.nearest(first, 2)]


def test_filled_copies_are_searched_exactly(sample_copy: Settings) -> None:
    """A store whose rows lack their record copies is searched by Chroma; Index.fill_records
    copies them and the next search is exact."""
    index = index_for(sample_copy)
    with index.db.transaction() as conn:
        conn.execute("UPDATE chunks SET document = NULL, metadata = NULL, vector = NULL WHERE rowid % 3 = 0")
    q = resources_for(sample_copy).retriever._encode(QUESTIONS[0])
    conn = index.db.read()
    assert index.exact is not None and index.exact.nearest(conn, LexicalIndex.generation(conn), q, 4) is None
    assert len(index.nearest(q, 4)) == 4  # Chroma's answer
    assert index.fill_records() > 0
    conn = index.db.read()
    assert index.exact.nearest(conn, LexicalIndex.generation(conn), q, 4) == index.nearest(q, 4)
