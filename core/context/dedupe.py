"""Near-duplicate detection on candidates: word-set Jaccard, stored-embedding cosine, and
same-document repeats that add no new sentence."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from core.prepared import stored_words, text_current
from core.shield.quarantine import defused_text
from core.text import WORD, hashed_words, split_sentences
from core.types import Candidate


def word_set(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.lower()))


def jaccard(a: AbstractSet[object], b: AbstractSet[object]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def sentences_of(c: Candidate) -> tuple[str, ...]:
    """The sentences of the candidate's text as injected (stored at ingest when it could be)."""
    p = c.chunk.prepared
    return p.sentences if p is not None and text_current(p) else split_sentences(defused_text(c.chunk))


def words_of(c: Candidate) -> frozenset[int]:
    """The word set of the candidate's text as injected (core.text.hashed_words): stored at
    ingest (core/prepared.py), computed when it is not."""
    stored = stored_words(c.chunk.prepared)
    return stored if stored is not None else hashed_words(defused_text(c.chunk))


def _norm_sentence(s: str) -> str:
    return " ".join(WORD.findall(s.lower()))


@dataclass
class _Kept:
    id: str
    source: str
    words: frozenset[int]
    vector: np.ndarray | None


class Deduper:
    """Remembers kept candidates and tells whether a new one duplicates one of them (each text's
    words and sentences are read once, and only when a comparison needs them)."""

    def __init__(self, jaccard_min: float = 0.9, cosine_min: float = 0.95) -> None:
        self.jaccard_min = jaccard_min
        self.cosine_min = cosine_min
        self._kept: list[_Kept] = []
        self._word_sets: dict[str, frozenset[int]] = {}  # chunk id → its word set (words_of)
        self._by_source: dict[str, list[Candidate]] = {}  # source → kept candidates
        self._sentences: dict[str, set[str]] = {}  # source → normalised kept sentences

    def _words(self, c: Candidate) -> frozenset[int]:
        words = self._word_sets.get(c.chunk.id)
        if words is None:
            words = self._word_sets[c.chunk.id] = words_of(c)
        return words

    def duplicate_of(self, c: Candidate) -> str | None:
        """The id of the kept chunk c duplicates, or None."""
        vec = np.asarray(c.embedding, dtype=np.float32) if c.embedding is not None else None
        for k in self._kept:
            if vec is not None and k.vector is not None and float(vec @ k.vector) >= self.cosine_min:
                return k.id
            words = self._words(c)
            # |a ∩ b| / |a ∪ b| ≤ min(|a|, |b|) / max(|a|, |b|): sizes too far apart cannot reach it
            # (compared as a quotient, as jaccard's is: rounding keeps the order of two quotients)
            larger = max(len(words), len(k.words))
            if larger and min(len(words), len(k.words)) / larger < self.jaccard_min:
                continue
            if jaccard(words, k.words) >= self.jaccard_min:
                return k.id
        same = self._by_source.get(c.chunk.source)
        if same:
            seen = self._sentences.get(c.chunk.source)
            if seen is None:
                seen = self._sentences[c.chunk.source] = {
                    _norm_sentence(s) for k in same for s in sentences_of(k)
                }
            sents = {_norm_sentence(s) for s in sentences_of(c)} - {""}
            if sents and sents <= seen:
                return same[0].chunk.id
        return None

    def keep(self, c: Candidate) -> None:
        """Record c as kept (its words and vector; its sentences when a later one needs them)."""
        vec = np.asarray(c.embedding, dtype=np.float32) if c.embedding is not None else None
        self._kept.append(_Kept(c.chunk.id, c.chunk.source, self._words(c), vec))
        self._by_source.setdefault(c.chunk.source, []).append(c)
        bucket = self._sentences.get(c.chunk.source)
        if bucket is not None:
            bucket.update(_norm_sentence(s) for s in sentences_of(c))
