"""Issue 22: app instances as separate processes (tests/support/replica_worker.py, each with its own
store folder) on one real `chroma run` on a loopback port. Chroma holds the truth; each instance's
lexical index follows it."""

from __future__ import annotations

import collections
import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest

from tests.support.chroma_server import ChromaServer, running
from tests.support.stores import ROOT, SAMPLE

pytestmark = pytest.mark.slow

ZEPHYR = """# Zephyr pump ZP-9

The Zephyr pump ZP-9 moves coolant through the arm's joint housings.

## Impeller

The ZP-9 impeller must be tightened to a torque of 42 newton metres with the blue hex key.
An impeller tightened below that torque rattles at high flow.
"""
QUESTION = "What torque must the Zephyr pump impeller be tightened to?"


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    with running(tmp_path_factory.mktemp("replica-chroma")) as server:
        yield server


class Instance:
    """One app instance: a worker process with its own store, spoken to in JSON lines."""

    def __init__(self, store: Path, port: int, collection: str) -> None:
        store.mkdir(parents=True, exist_ok=True)
        self.log = store / "worker.log"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.replica_worker", str(store), str(port), collection],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log.open("ab"),
            cwd=ROOT, env=env, text=True,
        )  # fmt: skip
        self.ready = self._read(120)
        assert self.ready["ready"] is True

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            pytest.fail(
                f"the instance did not answer (exit {self.proc.poll()}):\n{self.log.read_text()[-3000:]}"
            )
        return json.loads(line)

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def call(self, timeout: float = 300, **cmd: Any) -> dict[str, Any]:
        self.send(**cmd)
        reply = self._read(timeout)
        assert "error" not in reply, reply["error"]
        return reply

    def sigkill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture()
def cluster(tmp_path: Path, chroma_server: ChromaServer) -> Iterator[Any]:
    """Starts instances on this test's own collection; stops them all at the end."""
    collection = "replica-" + uuid.uuid4().hex[:8]
    started: list[Instance] = []

    def start(name: str) -> Instance:
        inst = Instance(tmp_path / name, chroma_server.port, collection)
        started.append(inst)
        return inst

    start.collection = collection  # type: ignore[attr-defined]
    start.port = chroma_server.port  # type: ignore[attr-defined]
    try:
        yield start
    finally:
        for inst in started:
            inst.close()


def _chroma(port: int, collection: str) -> Any:
    return chromadb.HttpClient(host="127.0.0.1", port=port).get_collection(collection)


def _docs(tmp: Path) -> Path:
    docs = tmp / "docs"
    for rel in ("policies/returns-and-refunds.txt", "products/gripper-g5.md"):
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_bytes((SAMPLE / rel).read_bytes())
    return docs


def _from(answer: dict[str, Any], source: str) -> list[dict[str, Any]]:
    return [c for c in answer["candidates"] if c["source"] == source]


def _ids_by_source(col: Any) -> dict[str, list[str]]:
    got = col.get(include=["metadatas"])
    out: dict[str, list[str]] = collections.defaultdict(list)
    for cid, meta in zip(got["ids"], got["metadatas"], strict=True):
        out[str(meta["source"])].append(cid)
    return out


def test_replica_ingest_through_a_is_found_and_cited_by_b(tmp_path: Path, cluster: Any) -> None:
    docs = _docs(tmp_path)
    a, b = cluster("a"), cluster("b")
    assert a.call(op="ingest", paths=[str(docs)])["errors"] == []
    before = b.call(op="ask", question=QUESTION)  # B is warm: its lexical index is loaded
    assert not _from(before, "products/zephyr-pump.md")
    (docs / "products" / "zephyr-pump.md").write_text(ZEPHYR)
    assert a.call(op="ingest", paths=[str(docs)])["added_sources"] == ["products/zephyr-pump.md"]

    answer = b.call(op="ask", question=QUESTION)
    hits = _from(answer, "products/zephyr-pump.md")
    assert any(h["lexical"] is not None for h in hits), answer["candidates"]
    assert any(h["dense"] is not None for h in hits), answer["candidates"]
    assert "products/zephyr-pump.md" in answer["cited"] and "42" in answer["text"]
    chroma = _ids_by_source(_chroma(cluster.port, cluster.collection))
    assert {h["id"] for h in hits} <= set(chroma["products/zephyr-pump.md"])


def test_replica_removal_through_b_stops_a_citing(tmp_path: Path, cluster: Any) -> None:
    docs = _docs(tmp_path)
    (docs / "products" / "zephyr-pump.md").write_text(ZEPHYR)
    a, b = cluster("a"), cluster("b")
    a.call(op="ingest", paths=[str(docs)])
    first = a.call(op="ask", question=QUESTION)
    ids = {h["id"] for h in _from(first, "products/zephyr-pump.md")}
    assert ids and "products/zephyr-pump.md" in first["cited"]

    assert b.call(op="remove", sources=["products/zephyr-pump.md"])["chunks"] > 0
    after = a.call(op="ask", question=QUESTION)
    assert "products/zephyr-pump.md" not in after["cited"]
    assert not _from(after, "products/zephyr-pump.md") and not ids & {c["id"] for c in after["candidates"]}
    state = a.call(op="state")
    assert "products/zephyr-pump.md" not in state["manifest"] and not ids & set(state["lexical"])
    assert "products/zephyr-pump.md" not in _ids_by_source(_chroma(cluster.port, cluster.collection))


def _bulk(folder: Path, version: str, n: int = 400) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"note-{i:04d}.txt").write_text(
            f"Maintenance note {i} revision {version}. Unit {i * 7919 % 10007} was serviced on bay "
            f"{i % 13}; the technician logged torque {i % 97} and firmware build {version}-{i}.\n"
        )


def _assert_agree(col: Any, *states: dict[str, Any]) -> None:
    """Chroma's chunk ids, every instance's manifest and lexical ids are one set; no source holds
    a chunk twice (by id or by text) or a chunk its record does not list."""
    got = col.get(include=["metadatas", "documents"])
    chroma = set(got["ids"])
    assert len(chroma) == len(got["ids"])
    texts: dict[str, list[str]] = collections.defaultdict(list)
    for meta, doc in zip(got["metadatas"], got["documents"], strict=True):
        texts[str(meta["source"])].append(doc)
    for source, docs in texts.items():
        assert len(docs) == len(set(docs)), f"{source} holds a chunk text twice"
    for state in states:
        listed = [cid for ids in state["manifest"].values() for cid in ids]
        assert len(listed) == len(set(listed)) and set(listed) == chroma == set(state["lexical"])


def test_replica_sigkill_mid_ingest_then_rerun_through_b_converges(tmp_path: Path, cluster: Any) -> None:
    bulk = tmp_path / "docs" / "notes"
    _bulk(bulk, "v1")
    a, b = cluster("a"), cluster("b")
    assert a.call(op="ingest", paths=[str(tmp_path / "docs")])["errors"] == []
    col = _chroma(cluster.port, cluster.collection)
    v1 = set(col.get(include=[])["ids"])
    _bulk(bulk, "v2")  # every file changes: A's killed run leaves v2 vectors beside v1 ones
    a.send(op="ingest", paths=[str(tmp_path / "docs")])
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not set(col.get(include=[])["ids"]) - v1:
        time.sleep(0.01)
    a.sigkill()  # as soon as Chroma holds some of the v2 chunks
    half = set(col.get(include=[])["ids"])
    assert half - v1 and v1 & half, "the kill should land mid-ingest (some v2 chunks, v1 still there)"

    report = b.call(op="ingest", paths=[str(tmp_path / "docs")])
    assert report["errors"] == [] and report["files_changed"] > 0
    a2 = cluster("a")  # A restarted on its own store (its last write was killed)
    _assert_agree(col, b.call(op="state"), a2.call(op="state"))
    assert not v1 & set(col.get(include=[])["ids"])  # no v1 chunk outlived the re-run
    docs = col.get(include=["documents"])["documents"]
    assert len(docs) == 400 and all("revision v2" in d for d in docs)


def test_replica_fresh_instance_catches_up(tmp_path: Path, cluster: Any) -> None:
    docs = _docs(tmp_path)
    (docs / "products" / "zephyr-pump.md").write_text(ZEPHYR)
    a = cluster("a")
    a.call(op="ingest", paths=[str(docs)])
    c = cluster("c")  # an empty store: it builds its lexical index from Chroma on start
    col = _chroma(cluster.port, cluster.collection)
    n = len(col.get(include=[])["ids"])
    assert c.ready["fetched"] == n and c.ready["progress"] == [n, n]
    state = c.call(op="state")
    assert set(state["lexical"]) == set(col.get(include=[])["ids"]) and len(state["manifest"]) == 3
    answer = c.call(op="ask", question=QUESTION)
    assert any(h["lexical"] is not None for h in _from(answer, "products/zephyr-pump.md"))
    assert "products/zephyr-pump.md" in answer["cited"]


def test_replica_concurrent_writers_of_one_source_converge(tmp_path: Path, cluster: Any) -> None:
    """Two instances ingest one shared file, read at different moments, at the same time, several
    rounds: the last writer to start wins, Chroma keeps only its chunks, both instances agree."""
    a, b = cluster("a"), cluster("b")
    root = str(tmp_path / "shared")
    col = None
    for rnd in range(4):
        paths = []
        for who in ("a", "b"):
            p = tmp_path / f"{who}-{rnd}.md"
            paragraphs = [
                f"Shared page round {rnd} by {who}, paragraph {j}. " + "word " * 120 for j in range(6)
            ]
            p.write_text("# Shared page\n\n" + "\n\n".join(paragraphs))
            paths.append(str(p))
        a.send(op="ingest_as", path=paths[0], root=root, source="shared.md")
        b.send(op="ingest_as", path=paths[1], root=root, source="shared.md")
        ra, rb = a._read(300), b._read(300)
        assert "error" not in ra and "error" not in rb, (ra, rb)
        col = col or _chroma(cluster.port, cluster.collection)
        sa, sb = a.call(op="state"), b.call(op="state")
        _assert_agree(col, sa, sb)
        docs = col.get(include=["documents"])["documents"]
        writers = {d.split(" by ")[1].split(",")[0] for d in docs if f"round {rnd} by" in d}
        assert len(writers) == 1 and len(docs) == len(sa["manifest"]["shared.md"]), docs
