"""Issue 22, the building blocks only: two followers' local lexical indexes follow the manifest in
a real `chroma run` (the writes go through SharedManifest + VectorStore directly; Index and ingest
are not wired to them yet, and the two instances here share one process)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
from tests.support.chroma_server import ChromaServer
from tests.support.fake_openai import closed_port

pytestmark = pytest.mark.slow


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path / "chroma-data", closed_port(), tmp_path / "chroma.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


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
