"""The typed result of each pipeline step; the trace record is built from these alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.answer.draft import Draft
from core.types import Candidate


@dataclass(frozen=True)
class QueryStep:
    """What the question was taken to mean: the standalone query and its type."""

    question: str
    query: str
    rewrite_method: str  # none | resolved | offline | llm
    query_type: str
    classifier: str  # rules | llm

    @property
    def asked(self) -> str:
        """The question as the answer reads it: a follow-up resolved to a question of its own ("What
        is the ArmX2's battery capacity?"), else the user's words."""
        return self.query if self.rewrite_method == "resolved" else self.question


@dataclass(frozen=True)
class RetrievalStep:
    candidates: list[Candidate]
    query_vector: np.ndarray
    mode: str
    ms: float

    @property
    def top_score(self) -> float | None:
        return max((c.score for c in self.candidates), default=None)


@dataclass(frozen=True)
class AnswerStep:
    """The answer as drafted, and how: the backend asked, whether it failed over to extractive."""

    draft: Draft
    backend: str
    llm_called: bool
    fallback: bool
    backend_error: str
    ms: float
    # prompt tokens a strict refusal did not send (the built prompt's total; 0 when answered, or in
    # related mode, where a configured LLM is sent the prompt)
    tokens_saved: int = 0
