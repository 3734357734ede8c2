"""The refusal rule: weak evidence → the exact refusal sentence, no LLM call, and the reason.

Evidence is weak when nothing survived budgeting, when the context is thinner than the minimum,
or when the best chunk is semantically far from the question (top score under τ) *and* the
evidence shares few of the question's words (overlap under the minimum). The second condition is
there because the small bundled embedder scores some in-domain questions low although the
evidence names exactly what they ask about, while off-topic questions are low on both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.scoring import content_words


@dataclass(frozen=True)
class Decision:
    refused: bool
    reason: str = ""


def evidence_overlap(question: str, texts: Iterable[str]) -> float:
    """The largest share of the question's content words that appear in one evidence text."""
    q = content_words(question)
    if not q:
        return 0.0
    return max((len(q & content_words(t)) / len(q) for t in texts), default=0.0)


def decide(
    top_score: float | None,
    context_tokens: int,
    tau: float,
    min_tokens: int,
    overlap: float = 0.0,
    min_overlap: float = 1.0,
) -> Decision:
    """Refuse when nothing survived, the context is too thin, or the best score is under τ while
    the word overlap is under min_overlap (min_overlap 1.0: only a full match is let through)."""
    if top_score is None or context_tokens == 0:
        return Decision(True, "no evidence survived retrieval and budgeting")
    if top_score < tau and overlap < min_overlap:
        return Decision(
            True,
            f"top score {top_score:.3f} < τ {tau:.2f} and query-word overlap "
            f"{overlap:.2f} < {min_overlap:.2f}",
        )
    if context_tokens < min_tokens:
        return Decision(True, f"context {context_tokens} tokens < minimum {min_tokens}")
    return Decision(False, "")
