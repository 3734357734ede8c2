"""The offline extractive answerer: the best-supported sentences of the injected evidence, cited."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.answer.citations import cite
from core.answer.draft import Draft
from core.context.dedupe import jaccard, word_set
from core.context.injection import is_instruction_like
from core.context.knowledge import citation_label
from core.scoring import SentenceScorer
from core.text import is_heading, split_sentences
from core.types import LedgerEntry


@dataclass(frozen=True)
class Scored:
    sentence: str
    label: str
    score: float
    order: int


def score_sentences(question: str, entries: Sequence[LedgerEntry], scorer: SentenceScorer) -> list[Scored]:
    """Every usable sentence of the injected evidence, scored against the question
    (SentenceScorer.relevance: static-embedding cosine plus question-word overlap)."""
    pool: list[tuple[str, str]] = []
    for e in entries:
        label = citation_label(e.source, e.page)
        for s in split_sentences(e.injected_text):
            s = s.strip(" …")
            if len(s.split()) < 3 or s.endswith(":") or is_heading(s) or is_instruction_like(s):
                continue
            pool.append((s, label))
    if not pool:
        return []
    sims = scorer.relevance([s for s, _ in pool], question)
    return [Scored(s, label, float(sims[i]), i) for i, (s, label) in enumerate(pool)]


def extractive_answer(
    question: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    refusal: str,
    min_score: float,
    max_sentences: int = 3,
    may_refuse: bool = True,
) -> Draft:
    """Up to max_sentences best-supported sentences, each followed by its (source)."""
    return answer_from_scored(
        score_sentences(question, entries, scorer), refusal, min_score, max_sentences, may_refuse
    )


def answer_from_scored(
    scored: Sequence[Scored], refusal: str, min_score: float, max_sentences: int = 3, may_refuse: bool = True
) -> Draft:
    """The extractive answer from already scored sentences (the eval replays thresholds on one
    scoring)."""
    if not scored:
        return Draft(refusal, (), True, "no usable sentence in the injected context")
    picked, best = select_sentences(scored, min_score, max_sentences, may_refuse)
    if not picked:
        return Draft(refusal, (), True, f"best sentence score {best:.3f} < {min_score:.2f}", best)
    text = " ".join(cite(x.sentence, x.label) for x in picked)
    return Draft(text, tuple(dict.fromkeys(x.label for x in picked)), False, "", best)


def select_sentences(
    scored: Sequence[Scored], min_score: float, max_sentences: int = 3, may_refuse: bool = True
) -> tuple[list[Scored], float]:
    """The answer's sentences (best first, near-repeats skipped, followers under the floor
    dropped) and the best score; none when may_refuse and the best is under min_score."""
    ranked = sorted(scored, key=lambda x: -x.score)
    best = ranked[0].score if ranked else 0.0
    if not ranked or (may_refuse and best < min_score):
        return [], best
    floor = max(min_score, best * 0.6)
    picked: list[Scored] = []
    seen: list[frozenset[str]] = []
    for x in ranked:
        words = word_set(x.sentence)
        if any(jaccard(words, other) >= 0.8 for other in seen):
            continue  # the same sentence again (copied or lightly edited passages)
        if picked and x.score < floor:
            break
        seen.append(words)
        picked.append(x)
        if len(picked) == max_sentences:
            break
    return picked, best
