"""Issue 22, the building blocks only: two followers' local lexical indexes follow the manifest in
a real `chroma run` (the writes go through SharedManifest + VectorStore directly; Index and ingest
are not wired to them yet, and the two instances here share one process)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.config import settings_in
from core.index import lexical, manifest, state
from core.index.db import LocalDB
from core.index.follow import Follower
from core.index.lexical import LexicalIndex
from core.index.manifest import Manifest
from core.index.shared import SharedManifest, SharedRecord
from core.index.vectors import VectorStore
from tests.support.chroma_server import ChromaServer, running
from tests.support.records import assert_records_match

pytestmark = pytest.mark.slow


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    with running(tmp_path) as server:
        yield server


def _follower(tmp: Path, name: str, port: int) -> tuple[Follower, LocalDB]:
    s = settings_in(tmp / name, chroma_host="127.0.0.1", chroma_port=port)
    db = LocalDB(tmp / name / "lex.sqlite3", lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
    return Follower(db, VectorStore(s), SharedManifest(s), interval_s=0), db


def _write(s_port: int, tmp: Path, source: str, texts: list[str], version: str) -> list[str]:
    s = settings_in(tmp / "writer", chroma_host="127.0.0.1", chroma_port=s_port)
    vs, sm = VectorStore(s), SharedManifest(s)
    ids = [f"{source}-{version}-{i}" for i in range(len(texts))]
    vecs = np.random.default_rng(0).standard_normal((len(ids), 8)).astype(np.float32)
    vs.upsert(ids, vecs, texts, [{"source": source, "header": source} for _ in ids])
    old = sm.get("root", source)
    sm.put(SharedRecord("root", source, version, tuple(ids), sm.now()))
    if old:
        vs.delete([c for c in old.chunk_ids if c not in ids])
    return ids


def test_replica_followers_converge_on_add_change_remove(tmp_path: Path, chroma_server: ChromaServer) -> None:
    port = chroma_server.port
    a, db_a = _follower(tmp_path, "a", port)
    b, db_b = _follower(tmp_path, "b", port)
    a.check(), b.check()
    ids = _write(port, tmp_path, "rover.txt", ["The rover brakes need torque calibration."], "v1")
    for f, db in ((a, db_a), (b, db_b)):
        assert f.check() == 1
        assert [cid for cid, _ in LexicalIndex(db).search("calibration", 3)] == ids
    new = _write(port, tmp_path, "rover.txt", ["The rover warranty lasts three years."], "v2")
    assert b.check() == 1
    assert LexicalIndex(db_b).ids() == set(new) and LexicalIndex(db_b).search("calibration", 3) == []
    sm = SharedManifest(settings_in(tmp_path / "w", chroma_host="127.0.0.1", chroma_port=port))
    sm.put(SharedRecord("root", "rover.txt", "", (), sm.now(), removed=True))
    for f, db in ((a, db_a), (b, db_b)):
        f.check()
        assert LexicalIndex(db).ids() == set() and Manifest(db).all_files() == []
    third, db_c = _follower(tmp_path, "c", port)  # a fresh instance builds from Chroma
    _write(port, tmp_path, "arm.txt", ["Gripper payload limits."], "v1")
    assert third.check() == 1 and {r.source for r in Manifest(db_c).all_files()} == {"arm.txt"}


@pytest.mark.parametrize("engine", ["memory", "fts5"])
def test_replica_two_indexes_share_ingest_and_removal(
    tmp_path: Path, chroma_server: ChromaServer, engine: str
) -> None:
    """Two Index instances (separate local stores, one process) on one Chroma server, with either
    lexical engine (the in-memory one follows the rows the catch-up writes through its generation
    counter): ingest through A, B finds it lexically; remove through B, A's lexical index and
    listing drop it."""
    from ingest.documents import remove_documents
    from ingest.sync import ingest_paths
    from tests.support.stores import SAMPLE, close_stores, make_settings, resources_for

    src = tmp_path / "docs" / "policies"
    src.mkdir(parents=True)
    (src / "returns-and-refunds.txt").write_bytes((SAMPLE / "policies/returns-and-refunds.txt").read_bytes())
    sa, sb = (
        make_settings(
            tmp_path / n, chroma_host="127.0.0.1", chroma_port=chroma_server.port, lexical_engine=engine
        )
        for n in ("a", "b")
    )
    try:
        assert ingest_paths(sa, [tmp_path / "docs"], resources=resources_for(sa)).errors == []
        a, b = resources_for(sa).index, resources_for(sb).index
        chroma_ids = set(a.vectors.all_ids())
        hits = b.search_lexical("restocking fee refund", 5)
        assert hits and hits[0][0] in chroma_ids
        assert b.lexical.ids() == chroma_ids == a.lexical.ids()
        assert [r.source for r in b.all_files()] == ["policies/returns-and-refunds.txt"]
        assert_records_match(b)  # B's local copies of the records, read by its queries
        # a changed file: its unchanged chunks keep their ids but not their metadata (file hash)
        doc = src / "returns-and-refunds.txt"
        doc.write_text(
            doc.read_text(encoding="utf-8") + "\n\nGift cards are not refundable.\n", encoding="utf-8"
        )
        assert ingest_paths(sa, [tmp_path / "docs"], resources=resources_for(sa)).errors == []
        kept = chroma_ids & set(a.vectors.all_ids())
        assert kept
        # B's dense query, before any lexical search there, reads current copies (the new file hash)
        q = resources_for(sb).retriever.embed_query("Are gift cards refundable?")
        mine, chromas = b.query(q, 8), b.vectors.query(q, 8)
        assert [v.chunk.id for v in mine] == [v.chunk.id for v in chromas]
        assert [dict(v.chunk.metadata) for v in mine] == [dict(v.chunk.metadata) for v in chromas]
        assert b.search_lexical("gift cards refundable", 5)
        assert_records_match(a)
        assert_records_match(b)
        chroma_ids = set(a.vectors.all_ids())
        assert a.search_lexical("restocking fee refund", 5)  # A's in-memory postings are loaded now
        removed, n = remove_documents(b, sb, ["policies/returns-and-refunds.txt"])
        assert n == len(chroma_ids) and a.vectors.count() == 0
        assert a.search_lexical("restocking fee refund", 5) == [] and a.all_files() == []
    finally:
        close_stores()


def test_replica_background_timer_follows_without_a_query(
    tmp_path: Path, chroma_server: ChromaServer
) -> None:
    """follow_interval_s: an idle instance's local rows catch up on their own (no search, no listing)."""
    from ingest.sync import ingest_paths
    from tests.support.stores import SAMPLE, close_stores, make_settings, resources_for

    src = tmp_path / "docs" / "policies"
    src.mkdir(parents=True)
    (src / "warranty-policy.md").write_bytes((SAMPLE / "policies/warranty-policy.md").read_bytes())
    sa, sb = (
        make_settings(
            tmp_path / n, chroma_host="127.0.0.1", chroma_port=chroma_server.port, follow_interval_s=0.2
        )
        for n in ("a", "b")
    )
    try:
        b = resources_for(sb).index
        assert b.start_following() == 0 and b.lexical.ids() == set()
        assert ingest_paths(sa, [tmp_path / "docs"], resources=resources_for(sa)).errors == []
        want = set(resources_for(sa).index.vectors.all_ids())
        deadline = time.monotonic() + 10
        while b.lexical.ids() != want and time.monotonic() < deadline:
            time.sleep(0.05)
        assert want and b.lexical.ids() == want
        b.stop_following()
    finally:
        close_stores()


def test_replica_instance_fills_record_copies_on_start(tmp_path: Path, chroma_server: ChromaServer) -> None:
    """An instance whose local rows predate the record copies gets them when it starts following
    (it may never ingest, and would otherwise read every candidate from Chroma)."""
    from ingest.sync import ingest_paths
    from tests.support.stores import SAMPLE, close_stores, make_settings, resources_for

    src = tmp_path / "docs" / "policies"
    src.mkdir(parents=True)
    (src / "warranty-policy.md").write_bytes((SAMPLE / "policies/warranty-policy.md").read_bytes())
    sa, sb = (
        make_settings(
            tmp_path / n, chroma_host="127.0.0.1", chroma_port=chroma_server.port, follow_interval_s=0
        )
        for n in ("a", "b")
    )
    try:
        assert ingest_paths(sa, [tmp_path / "docs"], resources=resources_for(sa)).errors == []
        b = resources_for(sb).index
        assert b.start_following() > 0
        assert_records_match(b)
        with b.db.transaction() as conn:  # as a store cached before the copies existed
            conn.execute("UPDATE chunks SET document = NULL, metadata = NULL, vector = NULL")
        assert b.lexical.records(b.vectors.all_ids()) == {}
        b.start_following()
        assert_records_match(b)
    finally:
        close_stores()


@pytest.mark.parametrize("order", ["interleaved", "one_after_the_other"])
def test_replica_writers_stamping_in_one_millisecond_keep_one_set_of_vectors(
    tmp_path: Path, chroma_server: ChromaServer, order: str
) -> None:
    """Two instances write one file with the same stamp (the same millisecond on the server's
    clock): the tie goes by writer id, for the records and their vectors alike, so Chroma keeps
    the winner's chunks only (it kept both sets when only the records broke the tie)."""
    from tests.support.stores import close_stores, make_settings, resources_for

    sa, sb = (
        make_settings(
            tmp_path / n, chroma_host="127.0.0.1", chroma_port=chroma_server.port, follow_interval_s=0
        )
        for n in ("a", "b")
    )
    try:
        a, b = resources_for(sa).index, resources_for(sb).index
        for ix in (a, b):
            ix.shared.now = lambda: 1_700_000_000_000  # type: ignore[method-assign]
        rng = np.random.default_rng(0)

        def upsert(ix: Any, who: str) -> list[tuple[str, str]]:
            chunks = [(f"{who}-{i}", f"Shared page by {who}, part {i}.") for i in range(3)]
            ix.upsert_vectors(
                [c for c, _ in chunks], rng.standard_normal((3, 384)).astype(np.float32),
                [t for _, t in chunks], [{"source": "shared.md", "header": "Shared"} for _ in chunks],
            )  # fmt: skip
            return chunks

        def commit(ix: Any, chunks: list[tuple[str, str]]) -> None:
            ix.commit_file("root", "shared.md", chunks[0][0], chunks, [])

        if order == "interleaved":
            ca, cb = upsert(a, "a"), upsert(b, "b")
            commit(a, ca), commit(b, cb)
        else:
            ca = upsert(a, "a")
            commit(a, ca)
            cb = upsert(b, "b")
            commit(b, cb)
        win = a.shared.get("root", "shared.md")
        assert win is not None and win.stamp == 1_700_000_000_000
        assert sorted(a.vectors.all_ids()) == sorted(win.chunk_ids)
        assert len(a.shared.records_of([win.key])) == 1
        winner = ca if max(a._writer, b._writer) == a._writer else cb
        assert list(win.chunk_ids) == [c for c, _ in winner]
    finally:
        close_stores()
