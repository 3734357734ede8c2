"""Near-duplicate detection on candidates: word-set Jaccard, stored-embedding cosine, and
same-document repeats that add no new sentence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.text import WORD, split_sentences
from core.types import Candidate


def word_set(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.lower()))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _norm_sentence(s: str) -> str:
    return " ".join(WORD.findall(s.lower()))


@dataclass
class _Kept:
    id: str
    source: str
    words: frozenset[str]
    vector: np.ndarray | None


class Deduper:
    """Remembers kept candidates and tells whether a new one duplicates one of them."""

    def __init__(self, jaccard_min: float = 0.9, cosine_min: float = 0.95) -> None:
        self.jaccard_min = jaccard_min
        self.cosine_min = cosine_min
        self._kept: list[_Kept] = []
        self._sentences: dict[str, set[str]] = {}  # source → normalised kept sentences

    def duplicate_of(self, c: Candidate) -> str | None:
        """The id of the kept chunk c duplicates, or None."""
        words = word_set(c.chunk.text)
        vec = np.asarray(c.embedding, dtype=np.float32) if c.embedding is not None else None
        for k in self._kept:
            if vec is not None and k.vector is not None and float(vec @ k.vector) >= self.cosine_min:
                return k.id
            if jaccard(words, k.words) >= self.jaccard_min:
                return k.id
        seen = self._sentences.get(c.chunk.source)
        if seen:
            sents = {_norm_sentence(s) for s in split_sentences(c.chunk.text)} - {""}
            if sents and sents <= seen:
                for k in self._kept:
                    if k.source == c.chunk.source:
                        return k.id
        return None

    def keep(self, c: Candidate) -> None:
        """Record c as kept (its words, vector and sentences)."""
        vec = np.asarray(c.embedding, dtype=np.float32) if c.embedding is not None else None
        self._kept.append(_Kept(c.chunk.id, c.chunk.source, word_set(c.chunk.text), vec))
        bucket = self._sentences.setdefault(c.chunk.source, set())
        bucket.update(_norm_sentence(s) for s in split_sentences(c.chunk.text))
