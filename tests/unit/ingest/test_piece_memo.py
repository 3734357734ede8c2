"""Ingest tokenises a sentence once: the chunker's count and the budget's preparation share it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.embed.memo import PieceMemo
from core.prepared import Preparer
from core.resources import Models

TEXT = (
    "The Talon D18 weighs 1.45 kg. Its chuck takes bits up to 13 mm.\n\n"
    "- Charge the battery fully before first use.\n- Fit the side handle.\n\n"
    "The Talon D18 weighs 1.45 kg."
)


class _Counting:
    """An embedder's word pieces, with each text it is asked to tokenise recorded."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.pieces_id = embedder.pieces_id
        self.asked: list[str] = []

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        self.asked.extend(texts)
        return self.embedder.word_pieces(texts)


def test_each_text_is_tokenised_once_until_cleared(resources: Models) -> None:
    embedder = resources.embedder
    counting = _Counting(embedder)
    memo = PieceMemo(counting)
    sentences = ["The Talon D18 weighs 1.45 kg.", "Fit the side handle.", "The Talon D18 weighs 1.45 kg."]
    assert memo.count_tokens(sentences) == embedder.count_tokens(sentences)
    assert counting.asked == sentences[:2]  # the repeated sentence asked once
    assert memo.word_pieces(sentences[::-1]) == embedder.word_pieces(sentences[::-1])
    assert counting.asked == sentences[:2]  # nothing asked again
    memo.clear()
    memo.word_pieces(sentences[:1])
    assert counting.asked == [*sentences[:2], sentences[0]]


def test_a_preparation_through_the_memo_is_the_embedders_own(resources: Models) -> None:
    embedder = resources.embedder
    memo = PieceMemo(embedder)
    memo.count_tokens(["The Talon D18 weighs 1.45 kg.", "an unrelated sentence"])  # as the chunker would
    through_memo = Preparer.of(resources.counter, memo)(TEXT)
    assert through_memo == Preparer.of(resources.counter, embedder)(TEXT)
    assert through_memo.key == resources.preparer.key
