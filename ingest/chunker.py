"""Token-aware chunking with overlap that prefers paragraph, then sentence boundaries.

Each piece is measured twice: in cl100k tokens (the prompt budget's unit) and in the
embedder's word-pieces (the embedder silently drops anything past its window), and a chunk
must fit both limits, so no chunk is ever truncated by the embedder.
"""

from __future__ import annotations

import re
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
    """A chunk's text with its cl100k token count and the headings it starts under."""

    text: str
    tokens: int
    heading_path: tuple[str, ...] = ()
    heading_levels: tuple[int, ...] = ()  # each heading's level (1 for "#", 2 for "##", …)
    table_goes_on: bool = False  # its last table goes on in the next chunk (under its header row again)


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

    def chunk(self, text: str, base_path: tuple[str, ...] = ()) -> list[TextChunk]:
        """Chunks of text, in order, consecutive ones sharing up to `overlap` tokens of sentences.

        A list or table is kept in one chunk when it fits one; a table that goes on in the next
        chunk repeats its header row there; each chunk records the heading path it starts under."""
        pieces = self._pieces(text)
        headers = _table_headers(pieces)
        chunks: list[list[Piece]] = []
        goes_on: set[int] = set()  # the chunks whose table the next chunk goes on with
        current: list[Piece] = []
        tok = wp = 0
        i = 0
        while i < len(pieces):
            p = pieces[i]
            fits = tok + p.tokens <= self.size and wp + p.pieces <= self.max_pieces
            if current and p.para_start and fits:
                end = _block_end(pieces, i)  # a heading goes with the block under it
                if not self._span_fits(pieces, i, end, tok, wp):
                    # the block would straddle a boundary: end here if this chunk is half full,
                    # always for a heading, list or table, or a lead-in with the list it introduces
                    # ("…, provided that:"), that fits a chunk of its own, and before a heading
                    # whose block's first line does not fit here
                    lead_in = _introduces(pieces, i, _para_end(pieces, i))
                    whole = (is_structural(p.text) or lead_in) and self._span_fits(pieces, i, end, 0, 0)
                    dangling = _is_heading(p) and not self._span_fits(pieces, i, min(i + 2, end), tok, wp)
                    fits = tok < self.size // 2 and not whole and not dangling
            if fits or not current:
                current.append(p)
                tok += p.tokens
                wp += p.pieces
                i += 1
                continue
            chunks.append(current)
            current = self._overlap_tail(current, p)
            header = headers.get(id(p))
            if header is not None and header is not p:  # the table goes on in the next chunk
                goes_on.add(len(chunks) - 1)
                fits = header.tokens + p.tokens <= self.size and header.pieces + p.pieces <= self.max_pieces
                if header not in current and fits:
                    current = [header]  # its header row comes first
            tok = sum(x.tokens for x in current)
            wp = sum(x.pieces for x in current)
        if current and (not chunks or current is not chunks[-1]):
            chunks.append(current)
        paths = _heading_paths(pieces, base_path)
        out = []
        for n, group in enumerate(chunks):
            body = _join(group)
            path = paths[id(group[0])]
            out.append(
                TextChunk(
                    body,
                    self.counter.count(body),
                    tuple(h for _, h in path),
                    tuple(lv for lv, _ in path),
                    n in goes_on,
                )
            )
        return out

    def _span_fits(self, pieces: list[Piece], i: int, j: int, tok: int, wp: int) -> bool:
        """pieces[i:j] fit after tok tokens and wp word-pieces."""
        tok += sum(p.tokens for p in pieces[i:j])
        wp += sum(p.pieces for p in pieces[i:j])
        return tok <= self.size and wp <= self.max_pieces

    def _overlap_tail(self, group: list[Piece], nxt: Piece) -> list[Piece]:
        """The trailing sentences of group worth at most `overlap` tokens that leave room for nxt
        (none before a heading, list or table: overlap carries prose context only)."""
        tail: list[Piece] = []
        if nxt.para_start and is_structural(nxt.text):
            return tail
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


_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def _is_heading(p: Piece) -> bool:
    return bool(_HEADING.match(p.text))


def _block_end(pieces: list[Piece], i: int) -> int:
    """The index after the block starting at i (a heading's block includes the block under it, and
    a paragraph ending with a colon the list or table it introduces)."""
    j = _para_end(pieces, i)
    if _is_heading(pieces[i]) and j < len(pieces) and not _is_heading(pieces[j]):
        return _block_end(pieces, j)
    if _introduces(pieces, i, j):
        return _block_end(pieces, j)
    return j


def _para_end(pieces: list[Piece], i: int) -> int:
    """The index after the paragraph starting at i."""
    j = i + 1
    while j < len(pieces) and not pieces[j].para_start:
        j += 1
    return j


def _introduces(pieces: list[Piece], i: int, j: int) -> bool:
    """The paragraph pieces[i:j] is a lead-in ("…, provided that:") to the list or table at j."""
    return (
        j < len(pieces)
        and not _is_heading(pieces[i])
        and pieces[j - 1].text.rstrip().endswith(":")
        and is_structural(pieces[j].text)
        and not _is_heading(pieces[j])
    )


def _heading_paths(pieces: list[Piece], base: tuple[str, ...]) -> dict[int, tuple[tuple[int, str], ...]]:
    """For each piece, the (level, heading) pairs it stands under; a heading stands under itself,
    so a chunk that starts with its heading still records it (an extract of the chunk may drop
    the heading line, never its path)."""
    path: list[tuple[int, str]] = [(n, h) for n, h in enumerate(base, 1)]
    out: dict[int, tuple[tuple[int, str], ...]] = {}
    for p in pieces:
        m = _HEADING.match(p.text)
        if m:
            level = len(m.group(1))
            path = [(lv, h) for lv, h in path if lv < level] + [(level, m.group(2).strip())]
        out.setdefault(id(p), tuple(path))
    return out


def _table_headers(pieces: list[Piece]) -> dict[int, Piece]:
    """For each table row piece after the first of its table, the table's header row piece."""
    out: dict[int, Piece] = {}
    header: Piece | None = None
    for p in pieces:
        if not p.text.startswith("|"):
            header = None
        elif header is None or p.para_start:
            header = p
        else:
            out[id(p)] = header
    return out
