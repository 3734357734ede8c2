"""The whole index: Chroma vectors plus the local lexical index/manifest, written as one."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from core.config import Settings
from core.lexical import LexicalIndex
from core.store import VectorStore

log = logging.getLogger(__name__)


class Index:
    """Vectors and lexical rows of one collection; `version` bumps after every write."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.vectors = VectorStore(settings)
        self.lexical = LexicalIndex(settings.lexical_path)
        self._write_lock = threading.RLock()
        self.version = 0

    def changed(self) -> None:
        self.version += 1

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One writer at a time; a run that did not finish cleanly is reconciled by the next."""
        with self._write_lock:
            if self.lexical.get_state("dirty"):
                self.reconcile()
            self.lexical.set_state("dirty", "1")
            yield
            self.lexical.set_state("dirty", None)

    def reconcile(self) -> int:
        """Bring the two stores back in step after a run that did not finish; returns the number
        of orphaned vectors deleted.

        Files whose chunks are missing from Chroma (a crash after a removal's or a reset's vector
        delete) are forgotten so this run re-indexes them; then vectors the manifest does not own
        (a crash between the Chroma upsert and the manifest commit) are deleted.
        """
        vector_ids = set(self.vectors.all_ids())
        missing = self.lexical.ids() - vector_ids
        if missing:
            forgotten = 0
            for rec in self.lexical.all_files():
                if missing.intersection(rec.chunk_ids):
                    self.lexical.forget_file(rec.root, rec.source, rec.chunk_ids)
                    forgotten += 1
            self.lexical.delete_ids(missing)  # rows no manifest entry owns
            log.info("reconcile: %d files lost vectors and will be re-indexed", forgotten)
        orphans = sorted(vector_ids - self.lexical.ids())
        if orphans:
            log.info("reconcile: deleting %d orphaned vectors", len(orphans))
            self.vectors.delete(orphans)
            self.changed()
        return len(orphans)

    def count(self) -> int:
        return self.vectors.count()

    def stats(self) -> dict[str, int]:
        """Documents and chunks in the index."""
        return {"documents": len(self.lexical.all_files()), "chunks": self.vectors.count()}

    def reset(self) -> None:
        with self._write_lock:
            self.lexical.set_state("dirty", "1")  # killed between the two resets → reconciled
            self.vectors.reset()
            self.lexical.reset()
            self.lexical.set_state("dirty", None)
            self.changed()
