r"""What the budget needs of a chunk, computed once when the chunk is stored (issue 21).

Per chunk, of its text as injected (defused): the sentences as `split_sentences` gives them; each
sentence's cl100k count in the four ways an extract can join it (alone, after a space, before a
line break, both); the whole text's count before the entry's closing line break; and each
sentence's word pieces (the static vectors relevance ranks an overflowing chunk's sentences by),
its content words' stems (the word overlap relevance and the evidence order read) and its
structure flags (core/context/shape.py: what an extract's layout reads); and the text's word set
(hashed: what dedupe compares).
Ingest attaches it to the chunks it embeds and the record copy keeps it (core/index/records.py);
a chunk read without one (a store indexed before it, a follower's copy) gets it computed here.

The sums are exact for cl100k: its pre-tokeniser (checked against the pattern tiktoken ships,
`\s++$` and the possessive forms included) never lets a piece run on across a space that follows
a non-space character, nor past a line break that a non-space character follows, so an extract
cut at those points counts as the sum of its parts (checked on real text by the unit tests). With
another encoding the budget counts the block itself (core/context/budget.py).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.context import shape
from core.embed.protocol import WordPieces
from core.shield.defuse import DEFUSE_VERSION
from core.stems import STEMMER
from core.text import content_words, hashed_words, split_sentences
from core.tokens import TiktokenCounter

# 2: the sentences' stems; 3: their structure flags and the text's word set (bump when core.text's
# words, content words, NUMBER, is_heading or is_structural, the stemmer or core/context/shape.py
# change)
VERSION = 3
# what the stored text-derived parts depend on: this module and the defusing of the text
TEXT_VERSION = f"{VERSION}.{DEFUSE_VERSION}"


@dataclass(frozen=True)
class Prepared:
    key: str  # what it was computed with (VERSION, the token encoding, the word-piece vocabulary)
    sentences: tuple[str, ...]
    # per sentence: count(s), count(" " + s), count(s + "\n"), count(" " + s + "\n")
    counts: tuple[tuple[int, int, int, int], ...]
    whole: int  # count(text + "\n")
    pieces: tuple[tuple[int, ...], ...]  # per sentence: the embedder's word-piece ids
    stems: tuple[frozenset[str], ...] = ()  # per sentence: its content words' stems (core/stems.py)
    shape: tuple[int, ...] = ()  # per sentence: its structure flags (core/context/shape.py)
    words: bytes = b""  # the text's word set as sorted little-endian uint32 (core.text.hashed_words)

    def cost(self, i: int, spaced: bool, broken: bool) -> int:
        """Sentence i's tokens after a space (spaced) and before a line break (broken)."""
        return self.counts[i][spaced + 2 * broken]


class Preparer:
    """Computes Prepared for texts with one token counter and one embedder's word pieces (the
    embedder is asked for only when a text is prepared: a sync with nothing to prepare never
    loads it)."""

    def __init__(self, counter: TiktokenCounter, pieces_id: str, embedder: Callable[[], WordPieces]) -> None:
        self.counter = counter
        self._embedder = embedder
        self.key = f"{TEXT_VERSION}|{counter.name}|{pieces_id}"

    @classmethod
    def of(cls, counter: TiktokenCounter, embedder: WordPieces) -> Preparer:
        return cls(counter, embedder.pieces_id, lambda: embedder)

    def __call__(self, text: str) -> Prepared:
        sentences = tuple(split_sentences(text))
        forms = [v for s in sentences for v in (s, " " + s, s + "\n", " " + s + "\n")]
        n = self.counter.count_many([*forms, text + "\n"])
        counts = tuple(tuple(n[i : i + 4]) for i in range(0, len(forms), 4))
        pieces = tuple(tuple(p) for p in self._embedder().word_pieces(sentences))
        stems = tuple(STEMMER.stem_set(content_words(s)) for s in sentences)
        words = np.array(sorted(hashed_words(text)), dtype="<u4").tobytes()
        return Prepared(self.key, sentences, counts, n[-1], pieces, stems, shape.flags(sentences), words)  # type: ignore[arg-type]

    def usable(self, p: Prepared | None) -> bool:
        return p is not None and p.key == self.key


def stored_words(p: Prepared | None) -> frozenset[int] | None:
    """The stored word set of p's text (core.text.hashed_words), or None when p has none for
    today's text."""
    if p is None or not text_current(p) or not p.words or len(p.words) % 4:
        return None
    return frozenset(np.frombuffer(p.words, dtype="<u4").tolist())


def text_current(p: Prepared | None) -> bool:
    """p's sentences (and their stems) are those of the text as injected today (same version,
    same defusing)."""
    return p is not None and p.key.split("|", 1)[0] == TEXT_VERSION and len(p.stems) == len(p.sentences)


def dumps(p: Prepared) -> str:
    """A compact JSON text (the word pieces as little-endian uint32, base64)."""
    flat = np.fromiter((t for row in p.pieces for t in row), dtype="<u4")
    return json.dumps(
        {
            "k": p.key,
            "s": p.sentences,
            "c": p.counts,
            "w": p.whole,
            "n": [len(row) for row in p.pieces],
            "p": base64.b64encode(flat.tobytes()).decode("ascii"),
            "t": [sorted(x) for x in p.stems],
            "f": p.shape,
            "u": base64.b64encode(p.words).decode("ascii"),
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def loads(text: str | None) -> Prepared | None:
    """The Prepared a dumps() text holds, or None (no text, or not one)."""
    if not text:
        return None
    try:
        d = json.loads(text)
        flat = np.frombuffer(base64.b64decode(d["p"]), dtype="<u4").tolist()
        pieces, at = [], 0
        for n in d["n"]:
            pieces.append(tuple(flat[at : at + n]))
            at += n
        return Prepared(
            str(d["k"]),
            tuple(d["s"]),
            tuple(tuple(c) for c in d["c"]),
            int(d["w"]),
            tuple(pieces),
            # stems that do not match the sentences one to one are not used (text_current)
            tuple(frozenset(x) for x in d.get("t", ())) if len(d.get("t", ())) == len(d["s"]) else (),
            # flags that do not match the sentences one to one are computed again (Shape.of)
            tuple(int(f) for f in d.get("f", ())) if len(d.get("f", ())) == len(d["s"]) else (),
            base64.b64decode(d.get("u", "")),
        )
    except (ValueError, KeyError, TypeError):
        return None
