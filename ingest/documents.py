"""What is indexed, per document, and removing documents: the Documents page and `python -m ingest
--list / --remove` both call these.

A document is a manifest row (root, source) with its chunks' metadata from Chroma (category,
tokens). Removal takes the ingest lock, then deletes the document's vectors and, in one SQLite
transaction, its lexical rows and manifest row (Index.forget_file); a chunk another document still
owns (the same file under two roots) stays."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.config import Settings
from core.errors import IngestError
from core.index import Index
from core.types import Chunk


@dataclass(frozen=True)
class IndexedDocument:
    source: str
    root: str
    origin: str  # "upload" (saved through the app) or "corpus" (ingested from a folder)
    category: str
    chunks: int
    tokens: int
    indexed_at: str  # UTC ISO time of its last (re-)indexing; "" when the store predates it

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_documents(index: Index, settings: Settings) -> list[IndexedDocument]:
    """Every indexed document, by source."""
    meta = index.vectors.metadata()
    out = []
    for rec in index.all_files():
        metas = [meta[cid] for cid in rec.chunk_ids if cid in meta]
        category = str(metas[0].get("category", "")) if metas else ""
        tokens = sum(int(m.get("tokens") or 0) for m in metas)
        origin = "upload" if _uploaded(rec.root, settings) else "corpus"
        out.append(
            IndexedDocument(
                rec.source, rec.root, origin, category, len(rec.chunk_ids), tokens, rec.indexed_at
            )
        )
    return out


def document_chunks(index: Index, source: str) -> list[Chunk]:
    """A document's chunks as stored, in document order (an unknown source is an IngestError)."""
    recs = [rec for rec in index.all_files() if rec.source == source]
    if not recs:
        raise IngestError(f"no indexed document named {source!r}")
    stored = index.vectors.get(recs[0].chunk_ids, with_embeddings=False)
    return sorted((s.chunk for s in stored), key=lambda c: int(c.metadata.get("chunk_index", 0)))


def remove_documents(index: Index, settings: Settings, sources: Sequence[str]) -> tuple[list[str], int]:
    """Remove these documents (every root they are indexed under): (sources removed, chunks removed).
    An uploaded document's saved copy is deleted too, so no later sync brings it back. Nothing is
    removed when one of them is not indexed."""
    removed = 0
    with index.writing():  # read under the lock: a sync between reading and removing would orphan its chunks
        records = index.all_files()
        known = {rec.source for rec in records}
        unknown = [s for s in sources if s not in known]
        if unknown:
            raise IngestError(f"not indexed: {', '.join(unknown)}")
        for rec in records:
            if rec.source not in sources:
                continue
            shared = index.ids_owned_elsewhere(set(rec.chunk_ids), rec.root, rec.source)
            gone = [cid for cid in rec.chunk_ids if cid not in shared]
            index.forget_file(rec.root, rec.source, gone)
            removed += len(gone)
            if _uploaded(rec.root, settings):  # the app's own copy of an upload
                (Path(rec.root) / rec.source).unlink(missing_ok=True)
    return list(dict.fromkeys(sources)), removed


def _uploaded(root: str, settings: Settings) -> bool:
    """Files saved through the app are indexed under the store folder as their root (ingest/uploads.py)."""
    return root == str(settings.store_path.resolve())
