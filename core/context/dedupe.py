"""Near-duplicate detection on candidates: Jaccard of their content words' stems, stored-embedding
cosine, and same-document repeats that add no new sentence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.prepared import text_current
from core.shield.quarantine import defused_text
from core.stems import STEMMER
from core.text import WORD, content_words, split_sentences
from core.types import Candidate


def word_set(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.lower()))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def sentences_of(c: Candidate) -> tuple[str, ...]:
    """The sentences of the candidate's text as injected (stored at ingest when it could be)."""
    p = c.chunk.prepared
    return p.sentences if p is not None and text_current(p) else split_sentences(defused_text(c.chunk))


def stems_of(c: Candidate) -> frozenset[str]:
    """The stems of the content words of the candidate's text as injected: the union of its
    sentences' stems stored at ingest (core/prepared.py), computed when there are none."""
    p = c.chunk.prepared
    if p is not None and text_current(p):
        return frozenset().union(*p.stems)
    return STEMMER.stem_set(content_words(defused_text(c.chunk)))


def _norm_sentence(s: str) -> str:
    return " ".join(WORD.findall(s.lower()))


@dataclass
class _Kept:
    id: str
    source: str
    words: frozenset[str]
    vector: np.ndarray | None


class Deduper:
    """Remembers kept candidates and tells whether a new one duplicates one of them (each text's
    words and sentences are read once, and only when a comparison needs them)."""

    def __init__(self, jaccard_min: float = 0.9, cosine_min: float = 0.95) -> None:
        self.jaccard_min = jaccard_min
        self.cosine_min = cosine_min
        self._kept: list[_Kept] = []
        self._stem_sets: dict[str, frozenset[str]] = {}  # chunk id → its stems (stems_of)
        self._by_source: dict[str, list[Candidate]] = {}  # source → kept candidates
        self._sentences: dict[str, set[str]] = {}  # source → normalised kept sentences

    def _stems(self, c: Candidate) -> frozenset[str]:
        words = self._stem_sets.get(c.chunk.id)
        if words is None:
            words = self._stem_sets[c.chunk.id] = stems_of(c)
        return words

    def duplicate_of(self, c: Candidate) -> str | None:
        """The id of the kept chunk c duplicates, or None."""
        vec = np.asarray(c.embedding, dtype=np.float32) if c.embedding is not None else None
        for k in self._kept:
            if vec is not None and k.vector is not None and float(vec @ k.vector) >= self.cosine_min:
                return k.id
            words = self._stems(c)
            if not words:  # nothing but function words and marks: nothing to compare
                continue
            # |a ∩ b| / |a ∪ b| ≤ min(|a|, |b|) / max(|a|, |b|): sizes too far apart cannot reach it
            # (compared as a quotient, as jaccard's is: rounding keeps the order of two quotients)
            larger = max(len(words), len(k.words))
            if min(len(words), len(k.words)) / larger < self.jaccard_min:
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
        self._kept.append(_Kept(c.chunk.id, c.chunk.source, self._stems(c), vec))
        self._by_source.setdefault(c.chunk.source, []).append(c)
        bucket = self._sentences.get(c.chunk.source)
        if bucket is not None:
            bucket.update(_norm_sentence(s) for s in sentences_of(c))
