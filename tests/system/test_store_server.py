"""Server mode against a real `chroma run` process on a free loopback port, started and stopped here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.errors import StoreUnavailable
from core.resources import Models as Resources
from core.retrieval.retriever import Retriever
from ingest.sync import ingest_paths
from tests.support.chroma_server import ChromaServer, running
from tests.support.fake_openai import closed_port
from tests.support.stores import SAMPLE, make_settings, resources_for
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index

pytestmark = pytest.mark.slow


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    try:
        with running(tmp_path) as server:
            yield server
    finally:
        forget_indexes()


def _server_settings(tmp_path: Path, server: ChromaServer, **extra: object) -> Settings:
    return make_settings(
        tmp_path, chroma_host="127.0.0.1", chroma_port=server.port, store_path=tmp_path / "local", **extra
    )


def _small_corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for rel in (
        "products/rover-m1.txt",
        "policies/returns-and-refunds.txt",
        "engineering/safety-certification.pdf",
        "policies/data-privacy.html",
    ):
        dst = root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((SAMPLE / rel).read_bytes())
    return root


def test_ingest_and_retrieve_through_a_chroma_server(
    tmp_path: Path, chroma_server: ChromaServer, resources: Resources
) -> None:
    s = _server_settings(tmp_path, chroma_server)
    assert s.server_mode
    docs = _small_corpus(tmp_path)

    first = ingest_paths(s, [docs], resources=resources_for(s))
    assert first.errors == [] and first.embedded > 0
    index = get_index(s)
    count = index.count()
    assert index.stats() == {"documents": 4, "chunks": count}
    assert first.chunks_added == count
    assert set(index.vectors.all_ids()) == index.lexical.ids()
    # the lexical side lives locally, per server, never in the embedded store's place
    assert s.lexical_path.is_file()
    assert f"server-127.0.0.1-{chroma_server.port}" in str(s.lexical_path)
    assert not (tmp_path / "local" / "chroma.sqlite3").exists()

    second = ingest_paths(s, [docs], resources=resources_for(s))
    assert second.embedded == 0 and second.chunks_unchanged == count

    retriever = Retriever(index, resources.embedder)
    for mode in ("dense", "hybrid"):
        top = retriever.search("What restocking fee is deducted from a refund?", 3, mode=mode)
        assert top[0].chunk.source == "policies/returns-and-refunds.txt"
        assert "15%" in top[0].chunk.text
        assert 0.0 < top[0].score <= 1.0

    # the collection really is on the server, in cosine space, with our vectors
    import chromadb

    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_server.port)
    col = client.get_collection(s.collection)
    assert col.count() == count
    assert (col.metadata or {}).get("hnsw:space") == "cosine" or (
        col.configuration_json.get("hnsw", {}) or {}
    ).get("space") == "cosine"


def test_server_down_is_store_unavailable_then_recovers(
    tmp_path: Path, chroma_server: ChromaServer, resources: Resources
) -> None:
    s = _server_settings(tmp_path, chroma_server)
    docs = _small_corpus(tmp_path)
    ingest_paths(s, [docs], resources=resources_for(s))
    index = get_index(s)
    count = index.count()

    chroma_server.stop()
    with pytest.raises(StoreUnavailable) as err:
        index.count()
    message = str(err.value)
    assert f"127.0.0.1:{chroma_server.port}" in message and "\n" not in message

    chroma_server.start()  # same data directory, same port
    assert index.count() == count  # the handle reconnects; data persisted on the server
    assert ingest_paths(s, [docs], resources=resources_for(s)).embedded == 0


def test_unreachable_server_is_store_unavailable(tmp_path: Path, resources: Resources) -> None:
    s = make_settings(tmp_path, chroma_host="127.0.0.1", chroma_port=closed_port())
    forget_indexes()
    try:
        with pytest.raises(StoreUnavailable, match="Chroma server at 127.0.0.1"):
            ingest_paths(s, [_small_corpus(tmp_path)], resources=resources_for(s))
    finally:
        forget_indexes()


def test_cli_against_the_server(
    tmp_path: Path,
    chroma_server: ChromaServer,
    resources: Resources,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from ingest.__main__ import main

    monkeypatch.chdir(tmp_path)  # no developer .env
    monkeypatch.setenv("CONTEXTLENS_TRACE_PATH", str(tmp_path / "traces.jsonl"))
    docs = _small_corpus(tmp_path)
    argv = [
        str(docs), "--store", str(tmp_path / "cli-store"), "--chroma-host", "127.0.0.1",
        "--chroma-port", str(chroma_server.port), "--collection", "cli_test", "--json",
    ]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["files"] == 4 and report["embedded"] > 0 and report["errors"] == []
    import chromadb

    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_server.port)
    assert client.get_collection("cli_test").count() == report["chunks_added"]
