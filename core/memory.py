"""Conversation memory: the recent turns that fit the history budget, relevant snippets of older
turns, and the rewrite of a follow-up into a standalone retrieval query."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import BackendError
from core.scoring import SentenceScorer
from core.tokens import TiktokenCounter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Turn:
    """One earlier exchange; `query` is the standalone query it was retrieved with."""

    question: str
    answer: str
    query: str = ""


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


_FOLLOW_UP = re.compile(
    r"^\s*(and|but|also|so|then|what about|how about|and what about)\b|"
    r"\b(it|its|it's|they|them|their|theirs|this|that|these|those|he|she|him|his|her|one|ones|"
    r"former|latter|same|other|second|first|third|last|previous|above)\b",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][\w.\-]*\d[\w.\-]*|[A-Z][\w\-]+|\w+")
_STOP = frozenset(
    "a an the and or but of to in on at for with by from is are was were be been do does did what "
    "which who whom whose when where why how much many about it its this that these those they them "
    "their he she his her one ones i we you me my our your can could should would will shall may "
    "might must has have had not no yes also so then than as if there here any some all more most "
    "other second first third last previous above same former latter tell please".split()
)


def is_follow_up(question: str) -> bool:
    """A question that leans on earlier turns (pronouns, "what about …", very short)."""
    return bool(_FOLLOW_UP.search(question)) or len(question.split()) <= 3


def key_terms(text: str, limit: int = 8) -> list[str]:
    """Content words of text, names and model numbers first."""
    words = [w for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 1]
    ranked = sorted(dict.fromkeys(words), key=lambda w: not (w[0].isupper() or any(ch.isdigit() for ch in w)))
    return ranked[:limit]


def rewrite_offline(question: str, turns: Sequence[Turn]) -> str:
    """Standalone query: the follow-up plus the previous turn's key terms not already in it."""
    if not turns or not is_follow_up(question):
        return question
    prev = turns[-1].query or turns[-1].question
    have = {w.lower() for w in _WORD.findall(question)}
    extra = [w for w in key_terms(prev) if w.lower() not in have]
    return f"{question} ({' '.join(extra)})" if extra else question


_REWRITE_PROMPT = (
    "Rewrite the user's last question as a standalone search query, resolving pronouns and "
    "references from the conversation. Reply with the query only."
)


def rewrite(question: str, turns: Sequence[Turn], backend: object | None = None) -> tuple[str, str]:
    """(standalone query, method): the LLM when configured and the question is a follow-up."""
    if not turns or not is_follow_up(question):
        return question, "none"
    if backend is not None:
        convo = "\n".join(f"User: {t.question}\nAssistant: {t.answer}" for t in turns[-3:])
        try:
            out = backend.complete(  # type: ignore[attr-defined]
                [
                    {"role": "system", "content": _REWRITE_PROMPT},
                    {"role": "user", "content": f"{convo}\nUser: {question}"},
                ],
                max_tokens=60,
            ).strip()
            if out:
                return out.splitlines()[0][:500], "llm"
        except BackendError as e:
            log.info("LLM rewrite failed, using offline rewrite: %s", e)
    return rewrite_offline(question, turns), "offline"
