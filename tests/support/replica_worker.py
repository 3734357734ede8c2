"""One app instance for the replica tests (issue 22), as its own process:
`python -m tests.support.replica_worker STORE_DIR CHROMA_PORT COLLECTION`.

It opens what the UI opens (Settings → Resources → Pipeline; ingest through ingest/) with its own
store folder, pointed at the Chroma server on 127.0.0.1:PORT, then reads one JSON command per stdin
line and prints one JSON reply line on stdout:
  {"op": "ingest", "paths": [...]}     → the sync report
  {"op": "ingest_as", "path": P, "root": R, "source": S}
                                        → the report of ingesting the file at P as (R, S): two
                                          instances reading one shared file at different moments
  {"op": "remove", "sources": [...]}   → the sources and the chunks removed
  {"op": "ask", "question": "..."}     → the answer, its cited sources, and the hybrid search's
                                          candidates (id, source, dense and lexical rank)
  {"op": "state"}                       → after a catch-up: the local lexical ids and manifest
A command that fails replies {"error": "..."}; once the store is open and caught up with Chroma
(Index.start_following), "ready" is printed with the chunks fetched and the last progress report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from core.config import settings_in
from core.pipeline import Pipeline
from core.resources import Resources


def _reply(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(store: str, port: int, collection: str) -> None:
    from ingest.documents import remove_documents
    from ingest.sync import Ingestor, SourceFile, ingest_paths

    settings = settings_in(Path(store), chroma_host="127.0.0.1", chroma_port=port, collection=collection)
    resources = Resources.open(settings)
    pipeline = Pipeline(settings, resources, backend=None)  # the extractive answer: no LLM needed
    index = resources.index
    seen: list[tuple[int, int]] = []
    fetched = index.start_following(lambda done, total: seen.append((done, total)))
    _reply({"ready": True, "fetched": fetched, "progress": seen[-1] if seen else None})
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        try:
            op = cmd["op"]
            if op == "ingest":
                report = ingest_paths(settings, [Path(p) for p in cmd["paths"]], resources=resources)
                _reply(report.as_dict())
            elif op == "ingest_as":
                f = SourceFile(Path(cmd["path"]), cmd["source"], cmd["root"])
                _reply(Ingestor(settings, resources).sync_files([f]).as_dict())
            elif op == "remove":
                sources, n = remove_documents(index, settings, cmd["sources"])
                _reply({"sources": sources, "chunks": n})
            elif op == "ask":
                found = pipeline.search(cmd["question"])  # the next hybrid query: it catches up first
                answer = pipeline.ask(cmd["question"], record=False)
                _reply({
                    "text": answer.text,
                    "refused": answer.refused,
                    "cited": sorted({c["source"] for c in answer.citations}),
                    "cited_ids": sorted({c["chunk_id"] for c in answer.citations if c["chunk_id"]}),
                    "candidates": [
                        {"id": c.chunk.id, "source": c.chunk.source,
                         "dense": c.dense_rank, "lexical": c.lexical_rank}
                        for c in found
                    ],
                })  # fmt: skip
            elif op == "state":
                index.catch_up()
                _reply({
                    "lexical": sorted(index.lexical.ids()),
                    "manifest": {r.source: list(r.chunk_ids) for r in index.manifest.all_files()},
                })  # fmt: skip
            else:
                _reply({"error": f"unknown op {op!r}"})
        except Exception as e:  # the test reads the failure; the worker stays up
            _reply({"error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
