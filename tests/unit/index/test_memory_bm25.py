"""The in-memory BM25 index: FTS5's ranking from memory, following the SQLite rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Settings
from core.index import lexical, manifest, state
from core.index.db import LocalDB
from core.index.lexical import LexicalIndex
from tests.support.stores import index_for

QUERIES = [
    "What restocking fee is deducted when a product is returned?",
    "hotel limit per night in London",
    "encoder mismatch error E-211 re-home the arm",
    "How many robots can a single FleetView server manage?",
    "running runs ran",
    "the of and",  # stop words only: no search at all
]

DOCS = [
    ("a", "The river runs through the old town; runners run along it."),
    ("b", "A café serves coffee near the river bank."),
    ("c", "Engines were running hot: the engine_block overheated twice."),
    ("d", "Nothing about water here, only mountains and snow."),
]


def _db(path: Path) -> LocalDB:
    return LocalDB(path, lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)


def _same_ranking(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> None:
    """Equal scores in the same order (ids may differ only between rows of equal score)."""
    assert [round(s, 4) for _, s in a] == pytest.approx([round(s, 4) for _, s in b], abs=1e-3)
    for (ia, sa), (ib, _) in zip(a, b, strict=True):
        if ia != ib:
            assert sum(1 for _, s in a if abs(s - sa) < 1e-6) > 1, (ia, ib)


@pytest.mark.parametrize("query", QUERIES)
def test_memory_ranks_as_fts5_on_the_sample_store(sample_store: Settings, query: str) -> None:
    db = index_for(sample_store).db
    mem, fts = LexicalIndex(db, "memory"), LexicalIndex(db, "fts5")
    _same_ranking(mem.search(query, 10), fts.search(query, 10))


def test_stemming_and_splitting_are_fts5s(tmp_path: Path) -> None:
    db = _db(tmp_path / "lex.sqlite3")
    with db.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", DOCS)
    mem, fts = LexicalIndex(db, "memory"), LexicalIndex(db, "fts5")
    for q in ["running", "cafe", "engine block", "rivers", "snowy mountain"]:
        got = mem.search(q, 4)
        assert got, q
        _same_ranking(got, fts.search(q, 4))
    assert {cid for cid, _ in mem.search("cafe", 4)} == {"b"}  # diacritics folded


def test_follows_adds_deletes_and_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "lex.sqlite3"
    db = _db(path)
    with db.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", DOCS[:2])
    mem, fts = LexicalIndex(db, "memory"), LexicalIndex(db, "fts5")
    assert [c for c, _ in mem.search("river", 5)] == [c for c, _ in fts.search("river", 5)]
    assert mem.search("engine", 5) == []

    other = _db(path)  # another process's writer: its commits reach this index through the file
    with other.transaction() as conn:
        LexicalIndex.add(conn, "t.txt", DOCS[2:])
    _same_ranking(mem.search("engine river water", 5), fts.search("engine river water", 5))
    assert {c for c, _ in mem.search("engine", 5)} == {"c"}

    with db.transaction() as conn:
        LexicalIndex.delete(conn, ["a"])
    got = mem.search("river runs", 5)
    assert "a" not in {c for c, _ in got}
    _same_ranking(got, fts.search("river runs", 5))

    with other.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", [("a2", DOCS[0][1])])  # a changed file: a new id
    _same_ranking(mem.search("river runs", 5), fts.search("river runs", 5))

    with db.transaction() as conn:
        LexicalIndex.clear(conn)
    assert mem.search("river", 5) == []


def test_many_small_changes_match_a_fresh_index(tmp_path: Path) -> None:
    """Appended and removed rows (and the rebuild past a share of them) give a fresh index's scores."""
    db = _db(tmp_path / "lex.sqlite3")
    texts = [(f"id{i}", f"{DOCS[i % 4][1]} item {i} number{i % 7}") for i in range(40)]
    with db.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", texts[:30])
    mem = LexicalIndex(db, "memory")
    mem.search("river", 3)
    for i in range(30, 40):
        with db.transaction() as conn:
            LexicalIndex.add(conn, "s.txt", [texts[i]])
            LexicalIndex.delete(conn, [f"id{i - 30}"])
        q = f"river engine number{i % 7} item"
        _same_ranking(mem.search(q, 8), LexicalIndex(db, "memory").search(q, 8))
        _same_ranking(mem.search(q, 8), LexicalIndex(db, "fts5").search(q, 8))


def test_a_word_of_several_terms_is_a_phrase(tmp_path: Path) -> None:
    db = _db(tmp_path / "lex.sqlite3")
    docs = [("v", "Firmware 4.1.3 fixed the brake."), ("w", "Version 4 had 1 fix and 3 bugs."),
            ("x", "The engine_block and the engine block.")]  # fmt: skip
    with db.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", docs)
    mem = LexicalIndex(db, "memory")
    assert mem.search("brake", 5)  # loads the rows
    for words in (["4.1.3"], ["engine_block", "brake"]):
        got = mem._memory.search(words, 5, lambda w: fts_phrase(db, w))
        _same_ranking(got, fts_rank(db, words))
    assert [c for c, _ in got][:1] == ["x"]


def fts_phrase(db: LocalDB, word: str) -> list[tuple[int, float]]:
    from core.index.lexical import _phrase_rows

    return _phrase_rows(db.read(), word)


def fts_rank(db: LocalDB, words: list[str]) -> list[tuple[str, float]]:
    q = " OR ".join(f'"{w}"' for w in words)
    rows = (
        db.read()
        .execute(
            "SELECT c.id, -bm25(fts) FROM fts JOIN chunks c ON c.fts_rowid = fts.rowid WHERE fts MATCH ? "
            "ORDER BY bm25(fts)",
            (q,),
        )
        .fetchall()
    )
    return [(cid, float(s)) for cid, s in rows]


def test_word_frequencies_are_the_rows_holding_each_stem_in_both_engines(tmp_path: Path) -> None:
    db = _db(tmp_path / "lex.sqlite3")
    with db.transaction() as conn:
        LexicalIndex.add(conn, "s.txt", DOCS)
    mem, fts = LexicalIndex(db, "memory"), LexicalIndex(db, "fts5")
    # "river" and "rivers" stem alike (a, b); "running" meets "runs"/"run" (a) and "running" (c);
    # "café" folds to "cafe" (b); "zebra" is in no row; "engine_block" is a phrase of two terms
    words = ["river", "rivers", "running", "café", "zebra", "engine_block"]
    want = {"river": 2, "rivers": 2, "running": 2, "café": 1, "zebra": 0, "engine_block": 1}
    assert mem.frequencies(words) == (4, want)
    assert fts.frequencies(words) == (4, want)
    with db.transaction() as conn:  # a deleted row no longer counts
        LexicalIndex.delete(conn, ["b"])
    assert mem.frequencies(["river"]) == fts.frequencies(["river"]) == (3, {"river": 1})
