"""The local copies of the chunks' Chroma records: a query reads them instead of asking Chroma for
documents, metadata and vectors, and gets exactly what Chroma would have returned."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.config import Settings
from core.index import Index, records
from core.index.vectors import StoredVector
from ingest.documents import remove_documents
from ingest.sync import ingest_paths
from tests.support.records import assert_records_match
from tests.support.stores import SAMPLE, index_for, resources_for

QUESTIONS = [
    "What is the payload of the ArmX2?",
    "How do I return a product for a refund?",
    "Which stop categories does the safety function support?",
    "firmware 4.1.3 release date",
]


@pytest.fixture()
def store(settings: Settings, tmp_path: Path) -> Settings:
    docs = tmp_path / "docs"
    for folder in ("products", "policies"):
        shutil.copytree(SAMPLE / folder, docs / folder)
    assert ingest_paths(settings, [docs], resources=resources_for(settings)).errors == []
    return settings


def _same(a: list[StoredVector], b: list[StoredVector]) -> None:
    assert [v.chunk.id for v in a] == [v.chunk.id for v in b]
    for x, y in zip(a, b, strict=True):
        assert x.chunk.text == y.chunk.text and x.chunk.source == y.chunk.source
        assert dict(x.chunk.metadata) == dict(y.chunk.metadata)
        if y.distance is None:
            assert x.distance is None
        else:
            assert x.distance == pytest.approx(y.distance, abs=1e-6)
        assert x.embedding is not None and y.embedding is not None
        assert np.allclose(x.embedding, y.embedding, atol=1e-6)


def _vectors(s: Settings) -> list[np.ndarray]:
    encoder = resources_for(s).retriever
    return [encoder.embed_query(q) for q in QUESTIONS]


def test_a_query_reads_the_local_copies_and_gets_what_chroma_returns(store: Settings) -> None:
    index = index_for(store)
    assert_records_match(index)
    for q in _vectors(store):
        _same(index.query(q, 8), index.vectors.query(q, 8))
    ids = index.vectors.all_ids()[:5]
    _same(index.get(ids), index.vectors.get(ids))


def test_rows_without_copies_are_read_from_chroma_and_filled_by_the_next_sync(
    store: Settings, tmp_path: Path
) -> None:
    """A store indexed before the copies existed: queries fall back to Chroma, a sync fills them."""
    index = index_for(store)
    want = [index.vectors.query(q, 8) for q in _vectors(store)]
    with index.db.transaction() as conn:
        conn.execute("UPDATE chunks SET document = NULL, metadata = NULL, vector = NULL")
    assert index.lexical.records(index.vectors.all_ids()) == {}
    for q, expected in zip(_vectors(store), want, strict=True):
        _same(index.query(q, 8), expected)
    report = ingest_paths(store, [tmp_path / "docs"], resources=resources_for(store))
    assert report.embedded == 0  # nothing re-embedded: only the copies were filled
    assert_records_match(index)


def test_a_removed_document_takes_its_copies_with_it(store: Settings) -> None:
    index: Index = index_for(store)
    source = "products/arm-x2.md"
    ids = [cid for rec in index.all_files() if rec.source == source for cid in rec.chunk_ids]
    assert ids and set(index.lexical.records(ids)) == set(ids)
    remove_documents(index, store, [source])
    assert index.lexical.records(ids) == {}
    assert_records_match(index)


def test_rows_without_a_prepared_copy_get_one_from_the_next_sync(store: Settings, tmp_path: Path) -> None:
    """What the budget needs of a chunk (core/prepared.py) is stored at ingest; rows from before it,
    or made with another key, get it from the next sync without re-embedding anything."""
    index = index_for(store)
    models = resources_for(store).models
    ids = index.vectors.all_ids()
    fresh = {v.chunk.id: v.chunk.prepared for v in index.get(ids)}
    assert all(models.preparer.usable(p) for p in fresh.values())
    stale = fresh[ids[0]]
    assert stale is not None
    with index.db.transaction() as conn:
        conn.execute("UPDATE chunks SET prepared = NULL, prepared_key = NULL WHERE id != ?", (ids[0],))
        first = index.get(ids[:1])[0].chunk.text
        records.write_prepared(conn, {ids[0]: dataclasses.replace(stale, key="0|old")}, {ids[0]: first})
    assert not any(models.preparer.usable(v.chunk.prepared) for v in index.get(ids))
    assert records.any_unprepared(index.db.read(), models.preparer.key)
    report = ingest_paths(store, [tmp_path / "docs"], resources=resources_for(store))
    assert report.embedded == 0
    assert {v.chunk.id: v.chunk.prepared for v in index.get(ids)} == fresh
    assert index.fill_prepared(models.preparer) == 0  # nothing left to do
    assert not records.any_unprepared(index.db.read(), models.preparer.key)
