"""An embedder's word pieces, remembered for texts already tokenised.

Ingest tokenises each sentence twice: the chunker counts its word pieces to keep a chunk inside
the model's window, and the budget's preparation stores them (core/prepared.py); nearly every
sentence the preparation splits is one the chunker counted (1,673 of 1,679 on the SQuAD subset,
all 935 on data/). Ingest holds one memo for the texts it has cut and not yet stored, and empties
it when they are stored."""

from __future__ import annotations

from collections.abc import Sequence

from core.embed.protocol import WordPieces


class PieceMemo:
    """word_pieces and count_tokens of an embedder, each text tokenised once until clear()."""

    def __init__(self, embedder: WordPieces) -> None:
        self.embedder = embedder
        self.pieces_id = embedder.pieces_id
        self._known: dict[str, list[int]] = {}

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        known = self._known
        new = [t for t in dict.fromkeys(texts) if t not in known]
        if new:
            known.update(zip(new, self.embedder.word_pieces(new), strict=True))
        return [known[t] for t in texts]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.word_pieces(texts)]

    def clear(self) -> None:
        self._known.clear()
