"""Conversation memory: the recent turns that fit the history budget, and relevant snippets of
older turns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.scoring import SentenceScorer
from core.tokens import TiktokenCounter
from core.types import Turn


def fit_history(
    turns: Sequence[Turn], budget: int, counter: TiktokenCounter, overhead: int = 4
) -> tuple[list[tuple[str, str]], int]:
    """The most recent whole turns whose messages fit budget, in chronological order, and how
    many turns (from the start) were left out."""
    kept: list[tuple[str, str]] = []
    used = 0
    n_kept = 0
    for turn in reversed(turns):
        cost = counter.count(turn.question) + counter.count(turn.answer) + 2 * overhead
        if used + cost > budget:
            break
        kept[:0] = [("user", turn.question), ("assistant", turn.answer)]
        used += cost
        n_kept += 1
    return kept, len(turns) - n_kept


def memory_snippets(
    older: Sequence[Turn],
    query: np.ndarray,
    scorer: SentenceScorer,
    counter: TiktokenCounter,
    budget: int,
    min_similarity: float = 0.35,
) -> list[str]:
    """Older turns most related to the query, as "Q: … / A: …" snippets within budget."""
    if not older or budget <= 0:
        return []
    texts = [f"Q: {t.question}\nA: {t.answer}" for t in older]
    sims = scorer.similarities(texts, query)
    out: list[str] = []
    used = 0
    for i in np.argsort(-sims, kind="stable"):
        if sims[i] < min_similarity:
            break
        cost = counter.count(texts[i]) + 1
        if used + cost > budget:
            continue
        out.append(texts[i])
        used += cost
    return out
