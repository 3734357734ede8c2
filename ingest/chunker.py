"""Token-aware chunking with overlap that prefers paragraph, then sentence boundaries.

Each piece is measured twice: in cl100k tokens (the prompt budget's unit) and in the
embedder's word-pieces (the embedder silently drops anything past its window), and a chunk
must fit both limits, so no chunk is ever truncated by the embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.text import is_structural, split_sentences
from core.tokens import TiktokenCounter

# joining pieces with spaces/newlines can add a word-piece or two; keep a little slack
_JOIN_SLACK = 4


@dataclass(frozen=True)
class Piece:
    text: str
    tokens: int  # cl100k
    pieces: int  # embedder word-pieces
    para_start: bool


@dataclass(frozen=True)
class TextChunk:
    """A chunk's text with its cl100k token count."""

    text: str
    tokens: int


class Chunker:
    """Splits text into chunks of at most `size` cl100k tokens and `max_pieces` embedder tokens."""

    def __init__(
        self,
        counter: TiktokenCounter,
        size: int,
        overlap: int,
        max_pieces: int,
        count_pieces: Callable[[Sequence[str]], list[int]],
    ) -> None:
        self.counter = counter
        self.size = size
        self.overlap = overlap
        self.max_pieces = max_pieces - _JOIN_SLACK
        self.count_pieces = count_pieces

    def chunk(self, text: str) -> list[TextChunk]:
        """Chunks of text, in order, consecutive ones sharing up to `overlap` tokens of sentences."""
        pieces = self._pieces(text)
        chunks: list[list[Piece]] = []
        current: list[Piece] = []
        tok = wp = 0
        i = 0
        while i < len(pieces):
            p = pieces[i]
            fits = tok + p.tokens <= self.size and wp + p.pieces <= self.max_pieces
            if current and p.para_start and fits and not self._para_fits(pieces, i, tok, wp):
                # the paragraph would straddle a boundary: end here if this chunk is half full
                fits = tok < self.size // 2
            if fits or not current:
                current.append(p)
                tok += p.tokens
                wp += p.pieces
                i += 1
                continue
            chunks.append(current)
            current = self._overlap_tail(current, p)
            tok = sum(x.tokens for x in current)
            wp = sum(x.pieces for x in current)
        if current and (not chunks or current is not chunks[-1]):
            chunks.append(current)
        out = []
        for group in chunks:
            body = _join(group)
            out.append(TextChunk(body, self.counter.count(body)))
        return out

    def _para_fits(self, pieces: list[Piece], i: int, tok: int, wp: int) -> bool:
        j = i
        while j < len(pieces) and (j == i or not pieces[j].para_start):
            tok += pieces[j].tokens
            wp += pieces[j].pieces
            j += 1
        return tok <= self.size and wp <= self.max_pieces

    def _overlap_tail(self, group: list[Piece], nxt: Piece) -> list[Piece]:
        """The trailing sentences of group worth at most `overlap` tokens that leave room for nxt."""
        tail: list[Piece] = []
        tok = wp = 0
        for p in reversed(group):
            if tok + p.tokens > self.overlap:
                break
            tok += p.tokens
            wp += p.pieces
            tail.insert(0, p)
        while tail and (tok + nxt.tokens > self.size or wp + nxt.pieces > self.max_pieces):
            dropped = tail.pop(0)
            tok -= dropped.tokens
            wp -= dropped.pieces
        return tail

    def _pieces(self, text: str) -> list[Piece]:
        units: list[tuple[str, bool]] = []
        for para in text.split("\n\n"):
            sentences = split_sentences(para)
            for n, s in enumerate(sentences):
                units.append((s, n == 0))
        if not units:
            return []
        texts = [u[0] for u in units]
        seps = [_separator(texts[n - 1] if n else None, s, start) for n, (s, start) in enumerate(units)]
        toks = self._costs(texts, seps)
        wps = self.count_pieces(texts)
        out: list[Piece] = []
        for (s, start), sep, t, w in zip(units, seps, toks, wps, strict=True):
            if t <= self.size and w <= self.max_pieces:
                out.append(Piece(s, t, w, start))
            else:
                out.extend(self._split_long(s, start, sep))
        return out

    def _split_long(self, sentence: str, para_start: bool, sep: str) -> list[Piece]:
        """Cut an over-long sentence into token windows that fit both limits."""
        ids = self.counter.encode(sentence)
        window = max(8, min(self.size, self.max_pieces) * 3 // 4)
        out: list[Piece] = []
        start = 0
        while start < len(ids):
            step = _word_boundary(self.counter, ids, start, window)
            while True:
                text = self.counter.decode(ids[start : start + step]).strip()
                w = self.count_pieces([text])[0] if text else 0
                if w <= self.max_pieces or step <= 1:
                    break
                step = _word_boundary(self.counter, ids, start, max(1, step * 3 // 4))
            if text:
                first = para_start and not out
                join = _separator(out[-1].text, text, False) if out else sep
                out.append(Piece(text, self._costs([text], [join])[0], w, first))
            start += step
        return out

    def _costs(self, texts: list[str], seps: list[str]) -> list[int]:
        """cl100k tokens of each text as it will appear in a chunk, separator included.

        Joining adds tokens ("\n\n" and "\n" are tokens of their own), so a sum of bare counts
        could overshoot `size`; the max of bare and joined counts bounds the chunk from above.
        """
        bare = self.counter.count_many(texts)
        joined = self.counter.count_many([sep + t for t, sep in zip(texts, seps, strict=True)])
        return [max(a, b) for a, b in zip(bare, joined, strict=True)]


def _word_boundary(counter: TiktokenCounter, ids: list[int], start: int, step: int) -> int:
    """`step`, shortened (by at most half) so the cut falls before a token that starts a word."""
    if start + step >= len(ids):
        return step
    for k in range(step, max(1, step // 2), -1):
        if counter.decode(ids[start + k : start + k + 1])[:1].isspace():
            return k
    return step


def _separator(prev: str | None, text: str, para_start: bool) -> str:
    """What _join puts between prev and text (the costs above must match _join)."""
    if prev is None or para_start:
        return "\n\n"
    if is_structural(text) or is_structural(prev):
        return "\n"
    return " "


def _join(group: list[Piece]) -> str:
    """Pieces joined as in the source: blank lines between paragraphs, a line break around
    headings, list items and table rows, a space between sentences."""
    parts: list[str] = []
    for n, p in enumerate(group):
        if n and p.para_start:
            parts.append("\n\n")
        elif n and (is_structural(p.text) or is_structural(group[n - 1].text)):
            parts.append("\n")
        elif n:
            parts.append(" ")
        parts.append(p.text)
    return "".join(parts)
