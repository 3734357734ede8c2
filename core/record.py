"""The TraceRecord of one question, built from the typed step results (the only place it is)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.answer.grounding import Grounding
from core.answer.refusal import Decision
from core.config import Settings
from core.prompt.build import BuiltPrompt
from core.steps import AnswerStep, QueryStep, RetrievalStep
from core.trace import TRACE_VERSION, Citation, TraceRecord, new_record_id, now_iso
from core.types import Fate, Turn


def build_record(
    s: Settings,
    q: QueryStep,
    history: Sequence[Turn],
    found: RetrievalStep,
    built: BuiltPrompt,
    budgeting_ms: float,
    decision: Decision,
    answer: AnswerStep,
    grounding: Grounding | None,
    citations: list[Citation],
    answer_tokens: int,
    total_ms: float,
    baseline: bool,
) -> TraceRecord:
    record: dict[str, Any] = {
        "id": new_record_id(),
        "version": TRACE_VERSION,
        "ts": now_iso(),
        **_query_part(q, history, built, baseline),
        "retrieval_mode": found.mode,
        "retrieval_ms": round(found.ms, 3),
        "budgeting_ms": round(budgeting_ms, 3),
        "answer_ms": round(answer.ms, 3),
        "total_ms": round(total_ms, 3),
        **_context_part(s, found, built, answer_tokens),
        **_answer_part(s, decision, answer, grounding, citations),
        "messages": built.prompt.as_openai(),
        "message_sections": [m.section for m in built.prompt.messages],
        "settings": s.snapshot(),
    }
    return record  # type: ignore[return-value]


def _query_part(q: QueryStep, history: Sequence[Turn], built: BuiltPrompt, baseline: bool) -> dict[str, Any]:
    return {
        "question": q.question,
        "rewritten_query": q.query,
        "rewrite_method": q.rewrite_method,
        "history": [{"question": t.question, "answer": t.answer, "query": t.query} for t in history],
        "history_turns": len(history),
        "history_turns_included": len(built.history_msgs) // 2,
        "memory_snippets": built.snippets,
        "setup": "baseline" if baseline else "engineered",
        "query_type": q.query_type,
        "classifier": q.classifier,
    }


def _context_part(
    s: Settings, found: RetrievalStep, built: BuiltPrompt, answer_tokens: int
) -> dict[str, Any]:
    context, prompt = built.context, built.prompt
    return {
        "top_score": found.top_score,
        "evidence_overlap": built.overlap,
        "evidence_overlap_plain": built.overlap_plain,
        "evidence_unheld": list(built.unheld),
        "knowledge_budget": built.knowledge_budget,
        "prompt_limit": s.prompt_limit,
        "context_tokens": context.tokens,
        "prompt_tokens": prompt.total_tokens,
        "answer_tokens": answer_tokens,
        "total_tokens": prompt.total_tokens + answer_tokens,
        "sections": prompt.sections,
        "num_candidates": len(found.candidates),
        "num_chunks_included": len(context.included),
        "num_deduped": context.count(Fate.DUPLICATE),
        "num_condensed": context.count(Fate.CONDENSED),
        "num_summarized": context.count(Fate.SUMMARISED),
        "num_truncated": context.count(Fate.TRUNCATED),
        "num_suspicious": sum(1 for e in context.ledger if e.suspicious),
        "chunks": [e.as_row() for e in context.ledger],
    }


def _answer_part(
    s: Settings,
    decision: Decision,
    answer: AnswerStep,
    grounding: Grounding | None,
    citations: list[Citation],
) -> dict[str, Any]:
    draft = answer.draft
    return {
        "refused": draft.refused,
        "refusal_reason": draft.reason if draft.refused else "",
        "refusal_rule": {
            "tau": s.refusal_tau,
            "min_overlap": s.refusal_min_overlap,
            "min_context_tokens": s.min_context_tokens,
        },
        "decision": decision.as_dict(),
        "missing_context": s.missing_context,
        "related": draft.related,
        "tokens_saved": answer.tokens_saved,
        "backend": answer.backend,
        "llm_called": answer.llm_called,
        "fallback": answer.fallback,
        "backend_error": answer.backend_error,
        "answer": draft.text,
        "citations": citations,
        "grounding": grounding.as_dict() if grounding else None,
    }
