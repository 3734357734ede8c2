"""Fitting an overflowing chunk: a ranked-sentence extract, or a sentence-boundary truncation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from core.scoring import SentenceScorer
from core.text import split_sentences


def ranked_extract(
    text: str,
    question: str,
    scorer: SentenceScorer,
    fits: Callable[[str], bool],
) -> tuple[str, int] | None:
    """The chunk's sentences most similar to the question, as many as fit, in original order.

    Returns (extract, sentences used) or None when not even one sentence fits."""
    sentences = list(split_sentences(text))
    if not sentences:
        return None
    sims = scorer.relevance(sentences, question)
    chosen: list[int] = []
    for i in np.argsort(-sims, kind="stable"):
        trial = sorted([*chosen, int(i)])
        if fits(_join(sentences, trial)):
            chosen = trial
    if not chosen:
        return None
    return _join(sentences, chosen), len(chosen)


def truncate_sentences(text: str, fits: Callable[[str], bool]) -> tuple[str, int] | None:
    """The longest run of leading sentences that fits, or None when the first does not."""
    sentences = list(split_sentences(text))
    used = 0
    for n in range(1, len(sentences) + 1):
        if not fits(_join(sentences, list(range(n)))):
            break
        used = n
    if used == 0:
        return None
    return _join(sentences, list(range(used))), used


def _join(sentences: list[str], idx: list[int]) -> str:
    """Sentences in order; a gap between non-adjacent ones is marked with an ellipsis."""
    parts: list[str] = []
    prev = None
    for i in idx:
        if prev is not None and i != prev + 1:
            parts.append("…")
        parts.append(sentences[i])
        prev = i
    return " ".join(parts)
