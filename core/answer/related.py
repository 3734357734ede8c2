"""The `related` missing-context answer: when the question is not answered from the sources, say
so and show the most relevant partial evidence instead of only "I don't know.".

The refusal decision (flag and reason) is the caller's and stays as decided; only the text
differs. The evidence units are scored by the extractive answerer's own scoring
(core/answer/evidence.py) and chosen by its `pick`; a unit is related when it scores at least the
answerer's minimum similarity and shares a content word with the question. Each unit carries its
(source) like every extractive answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.answer.citations import cite
from core.answer.draft import Draft
from core.answer.evidence import Scored, score_units, shares_words
from core.answer.extractive import pick
from core.scoring import SentenceScorer
from core.types import LedgerEntry

RELATED_SENTENCE = (
    "The available sources do not contain information about this topic. "
    "Here is what I found that may be related:"
)
NOTHING_RELATED = (
    "The available sources do not contain information about this topic, and nothing in them seems related."
)
# the clause both sentences open with: an LLM reply opening with it did not answer from the sources
NOT_IN_SOURCES = "The available sources do not contain information about this topic"
RELATED_UNITS = 3  # at most this many related units are shown


def related_units(
    question: str, entries: Sequence[LedgerEntry], scorer: SentenceScorer, query_type: str, min_score: float
) -> list[Scored]:
    """The best related units of the injected evidence, best first (empty: nothing related)."""
    ev = score_units(question, entries, scorer, query_type)
    related = [x for x in ev.units if x.score >= min_score and shares_words(x, question)]
    if not related:
        return []
    return pick(related, min_score, most=RELATED_UNITS, per_source=True)


def related_answer(
    question: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    query_type: str,
    min_score: float,
    reason: str,
) -> Draft:
    """The related-sources sentence and the related units as cited bullets; still a refusal
    (refused, with the caller's reason), marked related."""
    picked = related_units(question, entries, scorer, query_type, min_score)
    if not picked:
        return Draft(NOTHING_RELATED, (), True, reason, 0.0, related=True)
    body = "\n".join(f"- {cite(x.text, x.label)}" for x in picked)
    labels = tuple(dict.fromkeys(x.label for x in picked))
    return Draft(f"{RELATED_SENTENCE}\n\n{body}", labels, True, reason, picked[0].score, related=True)


def says_not_in_sources(text: str) -> bool:
    """The reply opens with the not-in-the-sources clause (a model following the related instruction)."""
    norm = " ".join(text.split()).lower()
    return norm.startswith(NOT_IN_SOURCES.lower())
