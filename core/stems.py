"""Words → the lexical index's terms (FTS5's porter tokenizer), so "invented" meets "invention".

The stems are FTS5's own, made by running each new word once through an in-memory FTS5 table
with the index's tokenizer, and remembered: the sentence scorer matches a question's words to a
sentence's by stem, as the lexical search matches them to a chunk's."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable

TOKENIZER = "porter unicode61 remove_diacritics 2"  # must match core.index.lexical.SCHEMA


class Stemmer:
    """Whitespace-separated pieces of text → FTS5 terms, through an in-memory FTS5 table."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(w, tokenize='{TOKENIZER}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        self._known: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def terms(self, pieces: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each piece's FTS5 terms in order (empty for punctuation alone)."""
        wanted = list(dict.fromkeys(pieces))
        known = self._known
        if all(p in known for p in wanted):  # the usual case: no lock, no SQL
            return {p: known[p] for p in wanted}
        with self._lock:
            new = [p for p in wanted if p not in known]
            if new:
                self._conn.execute("DELETE FROM t")
                self._conn.executemany("INSERT INTO t(rowid, w) VALUES (?, ?)", enumerate(new))
                found: dict[int, list[tuple[int, str]]] = {}
                for doc, offset, term in self._conn.execute("SELECT doc, offset, term FROM v"):
                    found.setdefault(doc, []).append((offset, term))
                for i, p in enumerate(new):
                    known[p] = tuple(t for _, t in sorted(found.get(i, ())))
            return {p: known[p] for p in wanted}

    def stem_set(self, words: Iterable[str]) -> frozenset[str]:
        """The terms of these words, as one set."""
        words = list(words)
        known = self._known
        try:  # the usual case: every word seen before
            return frozenset(t for w in words for t in known[w])
        except KeyError:
            return frozenset(t for ts in self.terms(words).values() for t in ts)


STEMMER = Stemmer()  # one per process: a word's stem never changes
