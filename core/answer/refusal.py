"""The refusal rule: weak evidence → the exact refusal sentence, no LLM call, and the reason.

Evidence is weak when nothing survived budgeting, when the context is thinner than the minimum,
or when the best chunk is semantically far from the question (top score under τ) *and* the
evidence shares few of the question's words (overlap under the minimum). The second condition is
there because the small bundled embedder scores some in-domain questions low although the
evidence names exactly what they ask about, while off-topic questions are low on both.

The Decision carries every check with its values, so the inspector shows the rule as decided and
never re-derives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from core.text import content_words


@dataclass(frozen=True)
class Check:
    """One condition of the rule as evaluated: its name, whether it passed, and why in words."""

    name: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class Decision:
    refused: bool
    reason: str = ""
    checks: tuple[Check, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"refused": self.refused, "reason": self.reason, "checks": [asdict(c) for c in self.checks]}


NOT_APPLIED = Decision(False, "", (Check("rule", True, "blind top-k run (no refusal rule)"),))


def evidence_overlap(question: str, texts: Iterable[str]) -> float:
    """The largest share of the question's content words that appear in one evidence text."""
    q = content_words(question)
    if not q:
        return 0.0
    return max((len(q & content_words(t)) / len(q) for t in texts), default=0.0)


def _similarity_check(top_score: float | None, tau: float, overlap: float, min_overlap: float) -> Check:
    score_ok = top_score is not None and top_score >= tau
    overlap_ok = overlap >= min_overlap
    shown = "none" if top_score is None else f"{top_score:.3f}"
    detail = (
        f"top score {shown} {'≥' if score_ok else '<'} τ {tau:.2f} · query-word overlap "
        f"{overlap:.2f} {'≥' if overlap_ok else '<'} {min_overlap:.2f}"
    )
    if overlap_ok and not score_ok:
        detail += " (the overlap lets it through)"
    return Check("similarity", score_ok or overlap_ok, detail)


def decide(
    top_score: float | None,
    context_tokens: int,
    tau: float,
    min_tokens: int,
    overlap: float = 0.0,
    min_overlap: float = 1.0,
    min_score: float = 0.0,
) -> Decision:
    """Refuse when nothing survived, the context is too thin, or the best score is under τ while
    the word overlap is under min_overlap (min_overlap 1.0: only a full match is let through).
    min_score: the budget's score floor, named in the reason when no candidate reached it."""
    # nothing reached the budget's score floor: the question is far from every passage
    far = (
        f"best score {top_score:.3f} < minimum {min_score:.2f}"
        if top_score is not None and top_score < min_score
        else ""
    )
    evidence = Check(
        "evidence",
        top_score is not None and context_tokens > 0,
        f"{context_tokens} context tokens injected"
        if context_tokens
        else f"no evidence injected (0 context tokens{'; ' + far if far else ''})",
    )
    similarity = _similarity_check(top_score, tau, overlap, min_overlap)
    thin = Check(
        "min_context",
        context_tokens >= min_tokens,
        f"context tokens {context_tokens} {'≥' if context_tokens >= min_tokens else '<'} min {min_tokens}"
        if min_tokens
        else "no minimum context set",
    )
    checks = (evidence, similarity, thin)
    if not evidence.passed:
        if far:
            return Decision(True, f"no passage is close to the question: {far}", checks)
        return Decision(True, "no evidence survived retrieval and budgeting", checks)
    if not similarity.passed:
        reason = (
            f"top score {top_score:.3f} < τ {tau:.2f} and query-word overlap "
            f"{overlap:.2f} < {min_overlap:.2f}"
        )
        return Decision(True, reason, checks)
    if not thin.passed:
        return Decision(True, f"context {context_tokens} tokens < minimum {min_tokens}", checks)
    return Decision(False, "", checks)
