"""An in-memory BM25 index over the FTS5 rows: FTS5's own ranking, without scoring every match.

FTS5 computes bm25() for every row that matches any query word, so a common word makes a search
scan a large share of the index (~22 ms at 100k chunks). This index holds the same rows as
postings in numpy arrays (term → documents and term frequencies) and scores a question with a few
vectorised passes over the postings of its terms (a few ms at 100k).

It reproduces FTS5's ranking rather than approximating it:
- terms are FTS5's own: the texts are split into \\w+ runs and every distinct piece is run once
  through an in-memory FTS5 table with the same tokenizer (porter, unicode61, diacritics removed),
  whose fts5vocab gives its terms, so stemming, case and diacritic folding and token boundaries are
  the index's;
- the score is FTS5's bm25 (k1 1.2, b 0.75, idf log((N - n + 0.5) / (n + 0.5)) floored at 1e-6,
  document length in tokens), summed over the query's words (a word that stems like another counts
  twice, as in FTS5's OR query).

The rows are loaded from the SQLite file on first search and followed through a generation counter
that `LexicalIndex.add/delete/clear` bump in the same transaction: a search that sees a new
generation (a sync in this or another process) applies the difference of the (chunk id, rowid)
pairs — new rows tokenised and appended, removed rows masked out and their document frequencies
taken back — and rebuilds the arrays when the appended or removed rows grow past a share of the
whole.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.stems import STEMMER

K1 = 1.2
B = 0.75
_REBUILD_SHARE = 0.2  # rebuild when appended + removed rows exceed this share of the base
_PIECE = re.compile(r"\w+")


@dataclass
class _Postings:
    """Documents (positions) and term frequencies per term id, in compressed-column form."""

    indptr: np.ndarray  # term id → slice of docs/tfs
    docs: np.ndarray
    tfs: np.ndarray

    def of(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        if term >= len(self.indptr) - 1:
            return _EMPTY_I, _EMPTY_F
        a, b = self.indptr[term], self.indptr[term + 1]
        return self.docs[a:b], self.tfs[a:b]


_EMPTY_I = np.zeros(0, dtype=np.int32)
_EMPTY_F = np.zeros(0, dtype=np.float32)


@dataclass
class _State:
    """One loaded generation: documents, term ids, the base postings and the appended rows."""

    generation: int = -1
    ids: list[str] = field(default_factory=list)  # position → chunk id
    rowids: list[int] = field(default_factory=list)  # position → fts rowid
    pos: dict[tuple[str, int], int] = field(default_factory=dict)  # (chunk id, rowid) → position
    by_rowid: dict[int, int] = field(default_factory=dict)  # fts rowid → position of a live row
    length: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    alive: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    df: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    term_id: dict[str, int] = field(default_factory=dict)
    base: _Postings | None = None
    base_docs: int = 0
    doc_terms: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # appended rows
    extra: dict[int, list[tuple[int, float]]] = field(default_factory=dict)  # term → appended postings
    removed: int = 0

    @property
    def n_alive(self) -> int:
        return len(self.ids) - self.removed


class MemoryBM25:
    """FTS5's bm25 ranking of the lexical rows, held in memory (see the module docstring)."""

    def __init__(self) -> None:
        self._stemmer = STEMMER
        self._state = _State()
        self._lock = threading.Lock()

    # -- keeping up with the SQLite rows --------------------------------------------------------
    def sync(self, conn: sqlite3.Connection, generation: int) -> None:
        """Bring the arrays to the rows of this generation (no-op when already there)."""
        with self._lock:
            st = self._state
            if st.generation == generation:
                return
            pairs = conn.execute("SELECT id, fts_rowid FROM chunks").fetchall()
            if st.base is None:
                self._state = self._build(conn, pairs, generation)
                return
            want = {(cid, int(r)) for cid, r in pairs}
            have = {k for k, p in st.pos.items() if st.alive[p]}
            gone, new = have - want, want - have
            if (st.removed + len(gone) + len(st.ids) - st.base_docs + len(new)) > _REBUILD_SHARE * max(
                1, st.base_docs
            ):
                self._state = self._build(conn, pairs, generation)
                return
            for key in gone:
                self._remove(st, st.pos[key])
            if new:
                self._append(st, conn, sorted(new, key=lambda k: k[1]))
            st.generation = generation

    def _texts(self, conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" * len(part))
            out.update(conn.execute(f"SELECT rowid, text FROM fts WHERE rowid IN ({marks})", part))
        return out

    def _tokenise(self, st: _State, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every token of the texts as (term id, text position) arrays, and each text's length in
        tokens; new terms get ids. Pieces are \\w+ runs; FTS5 turns each into its terms (an
        underscore splits one piece into two terms, punctuation alone into none)."""
        split = [_PIECE.findall(t.lower()) for t in texts]
        index: dict[str, int] = {}
        piece_ids = np.fromiter(
            (index.setdefault(p, len(index)) for s in split for p in s), dtype=np.int64
        )  # fmt: skip
        per_text = np.fromiter((len(s) for s in split), dtype=np.int64, count=len(split))
        stems = self._stemmer.terms(index)
        flat: list[int] = []
        lens = np.zeros(len(index), dtype=np.int64)
        for piece, i in index.items():
            terms = stems[piece]
            lens[i] = len(terms)
            for term in terms:
                tid = st.term_id.get(term)
                if tid is None:
                    tid = st.term_id[term] = len(st.term_id)
                flat.append(tid)
        starts = np.zeros(len(index) + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        cnt = lens[piece_ids]
        total = int(cnt.sum())
        offsets = np.repeat(starts[piece_ids] - (np.cumsum(cnt) - cnt), cnt) + np.arange(total)
        terms_arr = np.asarray(flat, dtype=np.int64)[offsets] if total else np.zeros(0, dtype=np.int64)
        text_of_piece = np.repeat(np.arange(len(texts), dtype=np.int64), per_text)
        text_arr = np.repeat(text_of_piece, cnt)
        lengths = np.bincount(text_arr, minlength=len(texts)).astype(np.float32)
        return terms_arr, text_arr, lengths

    def _build(self, conn: sqlite3.Connection, pairs: Sequence[tuple[str, int]], generation: int) -> _State:
        st = _State(generation=generation)
        pairs = sorted(((cid, int(r)) for cid, r in pairs), key=lambda p: p[1])
        texts = dict(conn.execute("SELECT rowid, text FROM fts").fetchall())
        pairs = [p for p in pairs if p[1] in texts]
        st.ids = [cid for cid, _ in pairs]
        st.rowids = [r for _, r in pairs]
        st.pos = {p: i for i, p in enumerate(pairs)}
        st.by_rowid = {r: i for i, (_, r) in enumerate(pairs)}
        terms, docs, st.length = self._tokenise(st, [texts[r] for r in st.rowids])
        n_docs, n_terms = len(pairs), len(st.term_id)
        key = terms * max(1, n_docs) + docs  # sorted: by term, then document
        uniq, tf = np.unique(key, return_counts=True)
        u_terms = uniq // max(1, n_docs)
        u_docs = (uniq % max(1, n_docs)).astype(np.int32)
        st.df = np.bincount(u_terms, minlength=n_terms).astype(np.int64)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(st.df, out=indptr[1:])
        st.base = _Postings(indptr, u_docs, tf.astype(np.float32))
        st.base_docs = n_docs
        st.alive = np.ones(n_docs, dtype=bool)
        self._doc_index = None
        return st

    def _append(self, st: _State, conn: sqlite3.Connection, new: Sequence[tuple[str, int]]) -> None:
        texts = self._texts(conn, [r for _, r in new])
        new = [p for p in new if p[1] in texts]
        terms, docs, lengths = self._tokenise(st, [texts[r] for _, r in new])
        if len(st.df) < len(st.term_id):
            st.df = np.concatenate([st.df, np.zeros(len(st.term_id) - len(st.df), dtype=np.int64)])
        order = np.argsort(docs, kind="stable")
        bounds = np.searchsorted(docs[order], np.arange(len(new) + 1))
        for j, (cid, r) in enumerate(new):
            p = len(st.ids)
            st.ids.append(cid)
            st.rowids.append(r)
            st.pos[(cid, r)] = p
            st.by_rowid[r] = p
            row_terms, tf = np.unique(terms[order[bounds[j] : bounds[j + 1]]], return_counts=True)
            st.doc_terms[p] = (row_terms, tf.astype(np.float32))
            st.df[row_terms] += 1
            for t, f in zip(row_terms.tolist(), tf.tolist(), strict=True):
                st.extra.setdefault(t, []).append((p, float(f)))
        st.length = np.concatenate([st.length, lengths])
        st.alive = np.concatenate([st.alive, np.ones(len(new), dtype=bool)])

    def _remove(self, st: _State, p: int) -> None:
        if not st.alive[p]:
            return
        st.alive[p] = False
        st.removed += 1
        if p in st.doc_terms:
            terms = st.doc_terms[p][0]
        else:
            assert st.base is not None
            terms = self._base_terms_of(st, p)
        st.df[terms] -= 1
        del st.pos[(st.ids[p], st.rowids[p])]
        if st.by_rowid.get(st.rowids[p]) == p:
            del st.by_rowid[st.rowids[p]]

    def _base_terms_of(self, st: _State, p: int) -> np.ndarray:
        """The term ids of a base document (the postings are by term: inverted once, on demand)."""
        assert st.base is not None
        if self._doc_index is None:
            order = np.argsort(st.base.docs, kind="stable")
            term_of = np.repeat(np.arange(len(st.base.indptr) - 1), np.diff(st.base.indptr))
            bounds = np.searchsorted(st.base.docs[order], np.arange(st.base_docs + 1))
            self._doc_index = (term_of[order], bounds)
        terms, bounds = self._doc_index
        return terms[bounds[p] : bounds[p + 1]]

    _doc_index: tuple[np.ndarray, np.ndarray] | None = None

    # -- searching ------------------------------------------------------------------------------
    def search(
        self, words: Sequence[str], k: int, phrase: Callable[[str], Iterable[tuple[int, float]]] | None = None
    ) -> list[tuple[str, float]]:
        """Up to k (chunk id, bm25) pairs for the query words (each already a search word), best
        first; only rows matching at least one word. A word of several terms ("4.1.3", "e_mail")
        is a phrase: `phrase(word)` gives its (rowid, bm25) pairs (FTS5 has the positions; the
        rows holding a phrase are few), else its terms count one by one."""
        stems = self._stemmer.terms(words)
        with self._lock:
            st = self._state
            n = st.n_alive
            if n == 0 or st.base is None:
                return []
            avgdl = float(st.length[st.alive].sum()) / n
            norm = K1 * (1.0 - B + B * st.length / max(avgdl, 1e-9))
            scores = np.zeros(len(st.ids), dtype=np.float64)
            hit = False
            for w in words:
                if len(stems[w]) > 1 and phrase is not None:
                    for rowid, score in phrase(w):
                        p = st.by_rowid.get(int(rowid))
                        if p is not None:
                            scores[p] += score
                            hit = True
                    continue
                for term in stems[w]:
                    tid = st.term_id.get(term)
                    if tid is None:
                        continue
                    df = int(st.df[tid])
                    if df <= 0:
                        continue
                    idf = float(np.log((n - df + 0.5) / (df + 0.5)))
                    idf = idf if idf > 0 else 1e-6
                    docs, tfs = st.base.of(tid)
                    extra = st.extra.get(tid)
                    if extra:
                        docs = np.concatenate([docs, np.asarray([d for d, _ in extra], dtype=np.int32)])
                        tfs = np.concatenate([tfs, np.asarray([f for _, f in extra], dtype=np.float32)])
                    if not len(docs):
                        continue
                    scores[docs] += idf * (tfs * (K1 + 1.0)) / (tfs + norm[docs])
                    hit = True
            if not hit:
                return []
            if st.removed:
                scores[~st.alive] = 0.0
            matched = int(np.count_nonzero(scores))
            if matched == 0:
                return []
            take = min(k, matched)
            top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
            top = top[np.lexsort((top, -scores[top]))][:take]
            return [(st.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def term_rows(self, terms: Iterable[str]) -> tuple[int, dict[str, int]]:
        """The live rows and, per term, how many of them hold it."""
        with self._lock:
            st = self._state
            ids = {t: st.term_id.get(t) for t in terms}
            return st.n_alive, {
                t: int(st.df[i]) if i is not None and i < len(st.df) else 0 for t, i in ids.items()
            }

    def size(self) -> int:
        with self._lock:
            return self._state.n_alive
