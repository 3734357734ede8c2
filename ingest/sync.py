"""Incremental, crash-safe sync of files into Chroma and the lexical index.

Order of writes for a file: vectors into Chroma first (idempotent upsert of content-derived ids),
then — in one SQLite transaction — the lexical rows and the manifest row, and only then the
stale vectors are deleted. A crash at any point leaves the manifest saying "redo this file",
and the redo converges to the same ids a clean run produces.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.config import Settings
from core.embed import Embedder
from core.embed.memo import PieceMemo
from core.errors import IngestError
from core.prepared import Preparer
from core.resources import Resources
from core.shield.quarantine import defused_text, ingest_metadata, page_flags
from core.types import Chunk
from ingest.chunker import Chunker
from ingest.isolate import ParseLimits, ParsePool
from ingest.loaders import SUPPORTED, Document

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
HEADER_PIECES = 32  # word-pieces kept for a chunk's contextual header in the embedder's window  # (done files, total files, current file)


@dataclass
class SyncReport:
    """What one ingest run did (the CLI's JSON summary)."""

    files: int = 0
    files_changed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_unchanged: int = 0
    chunks_removed: int = 0
    embedded: int = 0
    seconds: float = 0.0
    errors: list[dict[str, str]] = field(default_factory=list)
    added_sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "files_changed": self.files_changed,
            "files_unchanged": self.files_unchanged,
            "files_removed": self.files_removed,
            "chunks_added": self.chunks_added,
            "chunks_unchanged": self.chunks_unchanged,
            "chunks_removed": self.chunks_removed,
            "embedded": self.embedded,
            "seconds": round(self.seconds, 3),
            "errors": list(self.errors),
            "added_sources": list(self.added_sources),
        }


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest: where it is, its id-bearing name, and the root it belongs to."""

    path: Path
    source: str
    root: str


@dataclass
class _Pending:
    file: SourceFile
    file_hash: str
    ids: list[str]
    texts: list[str]  # what is embedded and indexed lexically: the contextual header, then the chunk
    documents: list[str]  # what is stored and injected: the chunk itself
    metas: list[dict[str, Any]]
    stale: list[str]
    unchanged: int
    page: str = ""  # the whole text, as the shield checks it (when the chunks are embedded)


PARSE_WINDOW = 16  # files read, hashed and parsed together (the pool parses them in parallel)


def file_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(source: str, index: int, text: str) -> str:
    """Deterministic id from the source name, the chunk's position and its content hash."""
    content = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256(f"{source}\x00{index}\x00{content}".encode()).hexdigest()[:32]


def discover(paths: Iterable[Path]) -> tuple[list[SourceFile], list[str], list[dict[str, str]]]:
    """Files under the given paths, the roots they sync, and errors for paths that don't exist."""
    files: list[SourceFile] = []
    roots: list[str] = []
    errors: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()  # the same path given twice is synced once

    def add(f: SourceFile) -> None:
        if (f.root, f.source) not in seen:
            seen.add((f.root, f.source))
            files.append(f)

    for given in paths:
        path = given.expanduser()
        try:
            exists = path.exists()
            path = path.resolve() if exists else path
        except (OSError, ValueError) as e:  # e.g. a name longer than the file system allows
            reason = getattr(e, "strerror", None) or "invalid path"
            errors.append({"file": str(given), "message": f"cannot use this path: {reason}"})
            continue
        if not exists:
            errors.append({"file": str(given), "message": "no such file or directory"})
            continue
        if path.is_dir():
            if str(path) not in roots:
                roots.append(str(path))
            for f in sorted(path.rglob("*")):
                rel = f.relative_to(path)
                if any(part.startswith(".") for part in rel.parts) or not f.is_file():
                    continue
                if f.suffix.lower() not in SUPPORTED:
                    continue
                add(SourceFile(f, rel.as_posix(), str(path)))
        else:
            # a single file: its own name is the source; it never removes siblings
            add(SourceFile(path, path.name, f"file:{path}"))
    return files, roots, errors


class Ingestor:
    """Loads, chunks, embeds and syncs files into an Index."""

    def __init__(self, settings: Settings, resources: Resources):
        self.settings = settings
        self.index = resources.index
        self.counter = resources.counter
        # the models load the embedder on first use, so a sync of an unchanged corpus never pays for it
        self._models = resources.models

    @property
    def embedder(self) -> Embedder:
        return self._models.embedder

    @functools.cached_property
    def pieces(self) -> PieceMemo:
        """The embedder's word pieces of the texts cut and not yet stored (emptied by _flush)."""
        return PieceMemo(self.embedder)

    @functools.cached_property
    def chunker(self) -> Chunker:
        # the contextual header is embedded in front of each chunk: keep room for it in the window
        window = self.embedder.max_tokens - (HEADER_PIECES if self.settings.contextual_headers else 0)
        return Chunker(
            self.counter,
            self.settings.chunk_size,
            self.settings.chunk_overlap,
            window,
            self.pieces.count_tokens,
        )

    def header(self, source: str, title: str, path: tuple[str, ...]) -> str:
        """The contextual header of a chunk ("folder › title › headings"), within HEADER_PIECES
        word-pieces (the outermost parts go first when it is too long); "" when the setting is off."""
        if not self.settings.contextual_headers:
            return ""
        parts = [*source.split("/")[:-1], title, *path]
        kept: list[str] = []
        for part in parts:
            part = " ".join(part.split())
            if part and (not kept or kept[-1].lower() != part.lower()):
                kept.append(part)
        while kept and self.pieces.count_tokens([" › ".join(kept)])[0] > HEADER_PIECES - 2:
            kept.pop(0)
        return " › ".join(kept)

    def sync_paths(
        self, paths: Sequence[Path], progress: Progress | None = None, remove_missing: bool = True
    ) -> SyncReport:
        """Ingest files and folders; a folder's files that disappeared are removed from the index."""
        files, roots, errors = discover(paths)
        with self.index.writing():
            report = self._sync_paths(files, roots, errors, progress, remove_missing)
            # rows indexed before the local record copies existed get theirs (once; cheap after)
            filled = self.index.fill_records()
            if filled:
                log.info("copied %d chunk records from Chroma beside their lexical rows", filled)
            # and what the budget needs of each chunk, for rows from before it was stored
            prepared = self.index.fill_prepared(self._models.preparer)
            if prepared:
                log.info("prepared %d chunks for the budget", prepared)
            return report

    def _sync_paths(
        self,
        files: list[SourceFile],
        roots: list[str],
        errors: list[dict[str, str]],
        progress: Progress | None,
        remove_missing: bool,
    ) -> SyncReport:
        report = self._sync_files(files, progress)
        report.errors[:0] = errors
        if remove_missing:
            t0 = time.perf_counter()
            present: dict[str, set[str]] = {}
            for f in files:
                present.setdefault(f.root, set()).add(f.source)
            for root in roots:
                self._remove_missing(root, present.get(root, set()), report)
            report.seconds += time.perf_counter() - t0
        return report

    def sync_files(self, files: Sequence[SourceFile], progress: Progress | None = None) -> SyncReport:
        """Ingest exactly these files (new or changed ones are re-embedded; others cost a hash)."""
        with self.index.writing():
            return self._sync_files(files, progress)

    def _sync_files(self, files: Sequence[SourceFile], progress: Progress | None) -> SyncReport:
        t0 = time.perf_counter()
        report = SyncReport(files=len(files))
        manifest: dict[tuple[str, str], Any] = {}
        for root in {f.root for f in files}:
            for source, rec in self.index.files(root).items():
                manifest[(root, source)] = rec
        self._batch: list[_Pending] = []
        self._batch_chunks = 0
        limits = ParseLimits.from_settings(self.settings)
        with ParsePool(limits, self.settings.parse_workers) as pool:
            for start in range(0, len(files), PARSE_WINDOW):
                window = files[start : start + PARSE_WINDOW]
                if progress:
                    progress(start, len(files), window[0].source)
                self._sync_window(window, manifest, pool, report)
        self._flush(self._batch, report)
        if progress:
            progress(len(files), len(files), "")
        report.seconds = time.perf_counter() - t0
        return report

    def _sync_window(
        self,
        window: Sequence[SourceFile],
        manifest: dict[tuple[str, str], Any],
        pool: ParsePool,
        report: SyncReport,
    ) -> None:
        """Read and hash a window of files, parse the changed ones in the pool, chunk and batch them."""
        changed: list[tuple[SourceFile, bytes, str]] = []
        for f in window:
            try:
                data = self._read(f)
            except IngestError as e:
                report.errors.append({"file": f.source, "message": str(e)})
                continue
            digest = file_sha(data)
            known = manifest.get((f.root, f.source))
            if known is not None and known.file_hash == digest:
                report.files_unchanged += 1
                report.chunks_unchanged += len(known.chunk_ids)
                continue
            changed.append((f, data, digest))
        docs = pool.parse([(f.source, data) for f, data, _ in changed])
        target = max(256, self.settings.embedding_batch_size * 8)
        for (f, _, digest), doc in zip(changed, docs, strict=True):
            try:
                if isinstance(doc, IngestError):
                    raise doc
                pending = self._prepare(f, digest, doc, manifest.get((f.root, f.source)))
            except IngestError as e:
                report.errors.append({"file": f.source, "message": str(e)})
                continue
            self._batch.append(pending)
            self._batch_chunks += len(pending.ids)
            if self._batch_chunks >= target:
                self._flush(self._batch, report)
                self._batch, self._batch_chunks = [], 0

    def _read(self, f: SourceFile) -> bytes:
        limit = int(self.settings.max_file_mb * 1024 * 1024)
        try:
            size = f.path.stat().st_size
            if size > limit:
                raise IngestError(
                    f"the file is {size / 1048576:.1f} MB, over the {self.settings.max_file_mb:g} MB "
                    "limit (CONTEXTLENS_MAX_FILE_MB)"
                )
            return f.path.read_bytes()
        except OSError as e:
            raise IngestError(f"cannot read the file: {e.strerror or e}") from e

    def _prepare(self, f: SourceFile, digest: str, doc: Document, known: Any) -> _Pending:
        """A parsed file's chunks with their contextual headers, ids and metadata."""
        category = doc.category or (f.source.split("/")[0] if "/" in f.source else "general")
        ids: list[str] = []
        texts: list[str] = []
        documents: list[str] = []
        metas: list[dict[str, Any]] = []
        title = doc.title or Path(f.source).stem
        for section in doc.sections:
            for piece in self.chunker.chunk(section.text):
                index = len(ids)
                header = self.header(f.source, doc.title, piece.heading_path)
                embedded = f"{header}\n{piece.text}" if header else piece.text
                meta: dict[str, Any] = {
                    "source": f.source,
                    "category": category,
                    "title": title,
                    "heading_path": " › ".join(piece.heading_path),
                    "heading_levels": ",".join(map(str, piece.heading_levels)),
                    "chunk_index": index,
                    "tokens": piece.tokens,
                    "table_goes_on": piece.table_goes_on,  # a table split here (core/retrieval/tables.py)
                    "content_hash": hashlib.sha256(piece.text.encode("utf-8")).hexdigest()[:16],
                    "file_hash": digest[:16],
                    "header": header,  # a follower rebuilds the lexical text from Chroma (issue 22)
                }
                if section.page is not None:
                    meta["page"] = section.page
                if doc.notes:
                    meta["notes"] = "; ".join(doc.notes)
                ids.append(chunk_id(f.source, index, embedded))  # a new header is a new chunk
                texts.append(embedded)
                documents.append(piece.text)
                metas.append(meta)
        if not ids:
            raise IngestError("no text found in the file")
        old = set(known.chunk_ids) if known is not None else set()
        unchanged = len(old & set(ids))
        # an id another file still owns (the same file under two roots) must survive
        stale = old - set(ids) - self.index.ids_owned_elsewhere(old - set(ids), f.root, f.source)
        page = "\n\n".join(s.text for s in doc.sections)
        return _Pending(f, digest, ids, texts, documents, metas, sorted(stale), unchanged, page)

    def _flush(self, batch: list[_Pending], report: SyncReport) -> None:
        if not batch:
            return
        ids = [i for p in batch for i in p.ids]
        texts = [t for p in batch for t in p.texts]
        documents = [d for p in batch for d in p.documents]
        metas = [m for p in batch for m in p.metas]
        # the encoder (torch, outside the GIL, on every core) runs beside what only Python computes,
        # which then costs about half its time (bench/ingest.py: 0.879 of the raw encoder against
        # 0.859, seven alternating runs each)
        with ThreadPoolExecutor(1, thread_name_prefix="embed") as encoder:
            embedding = encoder.submit(self.embedder.embed, texts)
            for p in batch:  # the shield's verdicts: on the whole page and on each chunk
                page = page_flags(p.page)
                for meta, text in zip(p.metas, p.documents, strict=True):
                    meta.update(ingest_metadata(page, text))
            # what the budget needs of each chunk, computed once here rather than per question (the
            # sentences' word pieces mostly as the chunker counted them)
            prepare = Preparer.of(self.counter, self.pieces)
            prepared = [
                prepare(defused_text(Chunk(i, d, "", m)))
                for i, d, m in zip(ids, documents, metas, strict=True)
            ]
            vectors = embedding.result()
        self.pieces.clear()
        report.embedded += len(texts)
        self.index.upsert_vectors(ids, vectors, documents, metas, prepared)
        for p in batch:
            self.index.commit_file(
                p.file.root,
                p.file.source,
                p.file_hash,
                list(zip(p.ids, p.texts, strict=True)),
                p.stale,
                str(p.metas[0].get("category", "")) if p.metas else "",
            )
            report.files_changed += 1
            report.chunks_added += len(p.ids) - p.unchanged
            report.chunks_unchanged += p.unchanged
            report.chunks_removed += len(p.stale)
            report.added_sources.append(p.file.source)

    def _remove_missing(self, root: str, present: set[str], report: SyncReport) -> None:
        for source, rec in self.index.files(root).items():
            if source in present:
                continue
            shared = self.index.ids_owned_elsewhere(set(rec.chunk_ids), root, source)
            gone = [cid for cid in rec.chunk_ids if cid not in shared]
            self.index.forget_file(root, source, gone)
            report.files_removed += 1
            report.chunks_removed += len(gone)


def ingest_paths(
    settings: Settings,
    paths: Sequence[Path],
    progress: Progress | None = None,
    reset: bool = False,
    resources: Resources | None = None,
) -> SyncReport:
    """Ingest files/folders into the store of these settings (its resources opened here unless
    the caller passes the ones it holds)."""
    resources = resources or Resources.open(settings)
    if reset:
        resources.index.reset()
    return Ingestor(settings, resources).sync_paths(paths, progress)
