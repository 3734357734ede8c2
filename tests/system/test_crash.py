"""Crash-safe ingest (issue 7): SIGKILL a real `python -m ingest` mid-run, re-run it, and the index
converges to exactly what a clean run produces (same Chroma ids, same count, lexical == Chroma, no
duplicates). Also while re-ingesting changed files, and the reconcile of a half-done removal.

The subprocess runs with tiny chunks (CONTEXTLENS_CHUNK_SIZE=24) so a modest corpus makes several
embed-and-write batches (a batch is at least 256 chunks) and takes several seconds; the kill is
triggered by watching the store's manifest grow, so it lands between writes whatever the machine's
speed. Chunk ids do not depend on the batch size, so the clean reference run is done in-process.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.resources import Models as Resources
from ingest.sync import ingest_paths
from tests.support.stores import ROOT, make_settings, resources_for
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index

pytestmark = pytest.mark.slow

CHUNKING = {"chunk_size": 24, "chunk_overlap": 4}
N_FILES = 70
WORDS = (
    "robot joint motor brake sensor camera firmware release calibration gripper torque payload "
    "controller safety warranty rover battery encoder servo vision arm wrist elbow shoulder cable "
    "bracket housing bearing gearbox clutch spindle pallet conveyor fixture weld paint inspection"
).split()


def write_corpus(root: Path, version: int, n: int = N_FILES) -> None:
    """n deterministic documents; version 2 edits the tail of every third file, rewrites every
    seventh, removes every eleventh and adds a few new ones."""
    for i in range(n):
        f = root / f"group{i % 7}" / f"doc{i:03d}.txt"
        if version == 2 and i % 11 == 5:
            f.unlink(missing_ok=True)
            continue
        rng = random.Random(i * 1000 + (7 if version == 2 and i % 7 == 3 else 0))
        paras = []
        for p in range(4):
            sents = []
            for s in range(3):
                words = " ".join(rng.choice(WORDS) for _ in range(9))
                sents.append(f"{words.capitalize()} in unit {i} section {p}.{s}.")
            paras.append(" ".join(sents))
        if version == 2 and i % 3 == 0:
            paras[-1] = f"Revised in version two: unit {i} now ships with a longer warranty and new brakes."
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("\n\n".join(paras), encoding="utf-8")
    if version == 2:
        for j in range(3):
            f = root / "added" / f"new{j}.txt"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(
                f"A new document number {j} about the conveyor fixture and pallets. " * 6, encoding="utf-8"
            )


def _env(store: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTEXTLENS_")}
    env.update(
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        CONTEXTLENS_STORE_PATH=str(store),
        CONTEXTLENS_CHUNK_SIZE=str(CHUNKING["chunk_size"]),
        CONTEXTLENS_CHUNK_OVERLAP=str(CHUNKING["chunk_overlap"]),
        CONTEXTLENS_EMBEDDING_BATCH_SIZE="16",  # flush every 256 chunks: several write batches
    )
    return env


def _spawn(corpus: Path, store: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ingest", str(corpus), "--json"],
        cwd=ROOT,
        env=_env(store),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _manifest(store: Path) -> dict[str, str]:
    """source → file hash, read from the live lexical SQLite file (WAL: never blocks the writer)."""
    db = store / "lexical-contextlens.sqlite3"
    if not db.exists():
        return {}
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            return dict(conn.execute("SELECT source, file_hash FROM files").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return {}  # schema not created yet


def _chroma_count(uri: str, timeout: float) -> int:
    conn = sqlite3.connect(uri, uri=True, timeout=timeout)
    try:
        return int(conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
    finally:
        conn.close()


def _counts(store: Path, timeout: float) -> tuple[int, int, object]:
    """(vectors in Chroma's own SQLite, chunks in the lexical index, the lexical dirty flag row)."""
    try:
        vectors = _chroma_count(f"file:{store / 'chroma.sqlite3'}?mode=ro", timeout)
    except sqlite3.OperationalError as e:
        if "readonly" not in str(e):
            raise
        # a writer killed mid-transaction left a WAL that needs recovering, which a read-only
        # connection cannot do; the next process to open the store (ingest, the app) recovers it
        vectors = _chroma_count(f"file:{store / 'chroma.sqlite3'}", timeout)
    conn = sqlite3.connect(store / "lexical-contextlens.sqlite3", timeout=timeout)
    try:
        chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        dirty = conn.execute("SELECT value FROM state WHERE key = 'dirty'").fetchone()
    finally:
        conn.close()
    return vectors, chunks, dirty


def _live_counts(store: Path) -> tuple[int, int]:
    """(vectors, chunks) of a store being written, or -1s."""
    try:
        vectors, chunks, _ = _counts(store, 0.05)
    except sqlite3.Error:
        return -1, -1  # not created yet, or busy this instant
    return vectors, chunks


def _kill_when(proc: subprocess.Popen[str], store: Path, ready: Any, timeout: float = 900) -> dict[str, str]:
    """SIGKILL the process as soon as ready(manifest) holds; return the manifest seen then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = _manifest(store)
        if ready(m, store):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            return m
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"ingest finished before the kill point (rc={proc.returncode}): {err[-2000:]}")
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail("the kill point was never reached")


def _complete(corpus: Path, store: Path) -> dict[str, Any]:
    proc = _spawn(corpus, store)
    out, err = proc.communicate(timeout=1800)
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    return json.loads(out.strip().splitlines()[-1])


def _chroma_rows(store: Path) -> tuple[int, int]:
    """(vectors in Chroma's own SQLite, chunks in the lexical index), read after a kill."""
    vectors, chunks, dirty = _counts(store, 5)
    assert dirty is not None, "a killed run must leave the dirty flag for the next run"
    return vectors, chunks


def state(s: Settings) -> dict[str, Any]:
    """The whole index as comparable data."""
    index = get_index(s)
    got = index.vectors.collection.get(include=["documents", "metadatas"])
    ids = list(got["ids"])
    manifest = [cid for rec in index.manifest.all_files() for cid in rec.chunk_ids]
    positions = Counter((m["source"], m["chunk_index"]) for m in got["metadatas"])
    return {
        "ids": set(ids),
        "count": index.count(),
        "n_ids": len(ids),
        "docs": dict(zip(ids, got["documents"], strict=True)),
        "lexical": index.lexical.ids(),
        "lexical_count": index.lexical.count(),
        "manifest": manifest,
        "files": {r.source: r.file_hash for r in index.manifest.all_files()},
        "dup_positions": [k for k, v in positions.items() if v > 1],
        "dirty": index.state.get("dirty"),
    }


def assert_converged(got: dict[str, Any], clean: dict[str, Any]) -> None:
    assert got["dirty"] is None
    assert got["n_ids"] == len(got["ids"]) == got["count"], "duplicate ids in Chroma"
    assert not got["dup_positions"], f"duplicate chunks: {got['dup_positions'][:5]}"
    assert got["lexical"] == got["ids"], (
        f"lexical vs Chroma: {len(got['lexical'] - got['ids'])} lexical-only, "
        f"{len(got['ids'] - got['lexical'])} Chroma-only"
    )
    assert got["lexical_count"] == got["count"]
    assert sorted(got["manifest"]) == sorted(got["ids"])
    assert got["ids"] == clean["ids"], (
        f"{len(got['ids'] - clean['ids'])} extra, {len(clean['ids'] - got['ids'])} missing vs a clean run"
    )
    assert got["count"] == clean["count"]
    assert got["docs"] == clean["docs"]
    assert got["files"] == clean["files"]


def _open(store: Path) -> Settings:
    forget_indexes()
    return make_settings(store.parent, store_path=store, **CHUNKING)


def _clean(corpus: Path, where: Path) -> dict[str, Any]:
    s = make_settings(where, **CHUNKING)
    report = ingest_paths(s, [corpus], resources=resources_for(s))
    assert report.errors == []
    out = state(s)
    forget_indexes()
    return out


LOG: list[str] = []


@pytest.fixture(scope="module")
def crashed_then_converged(tmp_path_factory: pytest.TempPathFactory, resources: Resources) -> dict[str, Any]:
    """Corpus v1 ingested by a subprocess that is SIGKILLed twice, then run to completion."""
    tmp = tmp_path_factory.mktemp("crash")
    corpus, store = tmp / "corpus", tmp / "store"
    write_corpus(corpus, 1)

    def in_write_window(m: dict[str, str], store: Path) -> bool:
        # the first batch's vectors are in Chroma but its manifest rows are not (all) committed;
        # if the poll misses that window, the first committed file is the fallback kill point
        vectors, chunks = _live_counts(store)
        return vectors > chunks >= 0 or len(m) >= 1

    proc = _spawn(corpus, store)
    seen_a = _kill_when(proc, store, in_write_window)
    vectors_a, chunks_a = _chroma_rows(store)

    proc = _spawn(corpus, store)
    seen_b = _kill_when(proc, store, lambda m, _: len(m) > len(seen_a) + 1)  # in a later batch
    vectors_b, chunks_b = _chroma_rows(store)

    summary = _complete(corpus, store)
    assert summary["errors"] == []
    LOG.append(
        f"v1: kill 1 at {len(seen_a)}/{N_FILES} files in the manifest (Chroma {vectors_a} vectors, "
        f"lexical {chunks_a} chunks); kill 2 at {len(seen_b)} files (Chroma {vectors_b}, lexical "
        f"{chunks_b}); re-run embedded {summary['embedded']}, {summary['files_unchanged']} files unchanged"
    )
    got = state(_open(store))
    forget_indexes()
    # the clean reference of v1, made now: a later test changes the corpus to v2
    clean = _clean(corpus, tmp / "clean-v1")
    return {"tmp": tmp, "corpus": corpus, "store": store, "state": got, "summary": summary, "clean": clean}


def test_killed_ingest_converges_to_a_clean_run(crashed_then_converged: dict[str, Any]) -> None:
    got = crashed_then_converged["state"]
    clean = crashed_then_converged["clean"]
    assert clean["count"] > 512, "the corpus must span several write batches"
    assert_converged(got, clean)
    # the re-run resumed: files finished before the kills were not embedded again
    assert crashed_then_converged["summary"]["files_unchanged"] > 0
    assert crashed_then_converged["summary"]["embedded"] < clean["count"]
    LOG.append(f"v1 converged: {got['count']} chunks == clean run, lexical == Chroma, no duplicates")
    print("\n" + "\n".join(LOG))


def test_killed_reingest_of_changed_files_converges(
    crashed_then_converged: dict[str, Any], resources: Resources
) -> None:
    tmp: Path = crashed_then_converged["tmp"]
    corpus: Path = crashed_then_converged["corpus"]
    store: Path = crashed_then_converged["store"]
    v1 = crashed_then_converged["state"]
    write_corpus(corpus, 2)
    v2_hashes = {
        f.relative_to(corpus).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in corpus.rglob("*.txt")
    }
    changed = {src for src, h in v2_hashes.items() if v1["files"].get(src) not in (None, h)}
    assert len(changed) > 20

    def some_changed_committed(m: dict[str, str], _: Path) -> bool:
        return sum(1 for src in changed if m.get(src) == v2_hashes[src]) >= 1

    proc = _spawn(corpus, store)
    seen = _kill_when(proc, store, some_changed_committed)
    vectors, chunks = _chroma_rows(store)
    done = sum(1 for src in changed if seen.get(src) == v2_hashes[src])
    summary = _complete(corpus, store)
    assert summary["errors"] == []
    got = state(_open(store))
    forget_indexes()
    clean = _clean(corpus, tmp / "clean-v2")
    assert_converged(got, clean)
    assert got["ids"] != v1["ids"]
    LOG.append(
        f"v2: kill at {done}/{len(changed)} changed files committed (Chroma {vectors} vectors, lexical "
        f"{chunks} chunks); re-run embedded {summary['embedded']}, removed {summary['files_removed']} "
        f"files; converged: {got['count']} chunks == clean run"
    )
    print("\n" + "\n".join(LOG))


def test_half_done_removal_then_file_restored(tmp_path: Path, resources: Resources) -> None:
    """A crash after a removed file's vectors were deleted but before its manifest row was: if the
    file comes back before the next run, the next run must re-index it, not trust the manifest."""
    corpus = tmp_path / "corpus"
    write_corpus(corpus, 1, n=6)
    s = make_settings(tmp_path, **CHUNKING)
    assert ingest_paths(s, [corpus], resources=resources_for(s)).errors == []
    clean = state(s)
    index = get_index(s)
    victim = index.manifest.all_files()[2]
    index.state.set("dirty", "1")  # what Index.writing() leaves behind after a kill
    index.vectors.delete(list(victim.chunk_ids))  # step 1 of _remove_missing; killed before step 2
    report = ingest_paths(s, [corpus], resources=resources_for(s))
    assert report.errors == []
    assert_converged(state(s), clean)
    forget_indexes()


def test_reset_interrupted_after_the_vectors(tmp_path: Path, resources: Resources) -> None:
    """--reset killed between emptying Chroma and emptying the manifest: the next plain run
    must still converge (the manifest must not claim chunks Chroma no longer has)."""
    corpus = tmp_path / "corpus"
    write_corpus(corpus, 1, n=4)
    s = make_settings(tmp_path, **CHUNKING)
    assert ingest_paths(s, [corpus], resources=resources_for(s)).errors == []
    clean = state(s)
    index = get_index(s)
    index.state.set("dirty", "1")
    index.vectors.reset()  # Index.reset's first step; the process dies before lexical.reset()
    report = ingest_paths(s, [corpus], resources=resources_for(s))
    assert report.errors == []
    assert_converged(state(s), clean)
    forget_indexes()
