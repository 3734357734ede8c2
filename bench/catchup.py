"""Catch-up cost of a follower (issue 22): a writer puts N chunks (random unit-norm vectors, no
embedding cost; synthetic texts) in F files into a real `chroma run` server plus their shared
manifest records; a fresh follower builds its lexical index from Chroma (full sync), then the
writer changes every file (N new chunk ids) and the follower catches up with one check.

python -m bench.catchup --chunks 10000 --port 18731 --json   (starts and stops its own server)"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from core.config import settings_in
from core.index import lexical, manifest, state
from core.index.db import LocalDB
from core.index.follow import Follower
from core.index.lexical import LexicalIndex
from core.index.shared import SharedManifest, SharedRecord
from core.index.vectors import VectorStore

WORDS = "robot joint motor brake sensor camera firmware release calibration gripper torque payload".split()


def write(vs: VectorStore, sm: SharedManifest, files: int, per_file: int, version: int) -> None:
    rng = np.random.default_rng(version)
    for f in range(files):
        ids = [f"v{version}-f{f}-c{c}" for c in range(per_file)]
        vecs = rng.standard_normal((per_file, 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        texts = [" ".join(random.choice(WORDS) for _ in range(40)) + f" unit{f}x{c}" for c in range(per_file)]
        stamp = sm.now()  # as Index writes: vectors and record share one stamp, then the file settles
        metas = [{"source": f"doc{f}.txt", "header": f"doc{f}", "stamp": stamp} for _ in ids]
        vs.upsert(ids, vecs, texts, metas)
        mine = sm.put(SharedRecord("root", f"doc{f}.txt", f"h{version}-{f}", tuple(ids), stamp))
        if version > 1:
            sm.prune(mine, sm.records_of([mine.key]))
            vs.delete([f"v{version - 1}-f{f}-c{c}" for c in range(per_file)])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--chunks", type=int, default=10000)
    p.add_argument("--per-file", type=int, default=20)
    p.add_argument("--port", type=int, default=18731)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="catchup-"))
    chroma = Path(sys.executable).parent / "chroma"
    server = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp / "data"), "--host", "127.0.0.1", "--port", str(a.port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(300):
            try:
                if httpx.get(f"http://127.0.0.1:{a.port}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        s = settings_in(tmp, chroma_host="127.0.0.1", chroma_port=a.port)
        vs, sm = VectorStore(s), SharedManifest(s)
        files = a.chunks // a.per_file
        t0 = time.perf_counter()
        write(vs, sm, files, a.per_file, 1)
        write_s = time.perf_counter() - t0
        db = LocalDB(tmp / "follower.sqlite3", lexical.SCHEMA + manifest.SCHEMA + state.SCHEMA)
        fol = Follower(db, vs, sm, interval_s=0)
        t0 = time.perf_counter()
        built = fol.sync_all()
        build_s = time.perf_counter() - t0
        checks = []
        for _ in range(20):  # nothing changed: the cost a query pays
            t0 = time.perf_counter()
            fol.check(force=True)
            checks.append((time.perf_counter() - t0) * 1000)
        write(vs, sm, files, a.per_file, 2)  # every file changed: N new ids, N old ones dropped
        t0 = time.perf_counter()
        caught = fol.check(force=True)
        catch_s = time.perf_counter() - t0
        lex = LexicalIndex(db)
        assert lex.count() == a.chunks, lex.count()
        out = {
            "chunks": a.chunks, "files": files, "writer_s": round(write_s, 2),
            "fresh_build_s": round(build_s, 2), "fresh_build_chunks": built,
            "catchup_changed_chunks": caught, "catchup_s": round(catch_s, 2),
            "idle_check_ms_median": round(statistics.median(checks), 1),
        }  # fmt: skip
        print(f"fresh build of {built} chunks: {build_s:.2f} s; catch-up of {caught} changed chunks: "
              f"{catch_s:.2f} s; idle check {out['idle_check_ms_median']} ms")  # fmt: skip
        if a.json:
            print(json.dumps(out))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
