"""The refusal rule: weak evidence → the exact refusal sentence, no LLM call, and the reason."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    refused: bool
    reason: str = ""


def decide(top_score: float | None, context_tokens: int, tau: float, min_tokens: int) -> Decision:
    """Refuse when nothing survived, the best score is under τ, or the context is too thin."""
    if top_score is None or context_tokens == 0:
        return Decision(True, "no evidence survived retrieval and budgeting")
    if top_score < tau:
        return Decision(True, f"top score {top_score:.3f} < τ {tau:.2f}")
    if context_tokens < min_tokens:
        return Decision(True, f"context {context_tokens} tokens < minimum {min_tokens}")
    return Decision(False, "")
