"""The one entry point the UI, CLI and eval call: Pipeline.ask(question, history) -> Answer."""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core import refusal
from core.answer import Draft, extractive_answer, llm_answer
from core.budget import BudgetParams, Context, build_context, in_evidence_order
from core.classify import classify
from core.config import Settings
from core.embed import Embedder
from core.errors import BackendError, ContextLensError
from core.grounding import check as grounding_check
from core.injection import nonce
from core.knowledge import KnowledgeFormat, citation_label
from core.memory import Turn, fit_history, memory_snippets, rewrite
from core.prompt import REPLY_PRIMING, Prompt, assemble, message_tokens
from core.resources import get_index, get_resources
from core.retrieve import Retriever
from core.scoring import SentenceScorer
from core.telemetry import append_trace
from core.templates import load_templates
from core.types import Candidate, Fate

log = logging.getLogger(__name__)

TRACE_VERSION = 1


@functools.lru_cache(maxsize=4)
def _scorer(embedder: Embedder) -> SentenceScorer:
    return SentenceScorer(embedder)


@dataclass
class Answer:
    """What a question produced: the answer, its citations, and the full trace record."""

    text: str
    refused: bool
    refusal_reason: str
    citations: list[dict[str, Any]]
    fallback: bool
    backend_error: str
    trace: dict[str, Any]
    context: Context | None = field(default=None, repr=False)
    prompt: Prompt | None = field(default=None, repr=False)


class Pipeline:
    """classify → retrieve → dedupe/budget → refuse? → assemble → answer → ground → trace."""

    def __init__(self, settings: Settings, backend: Any = "auto") -> None:
        self.settings = settings
        res = get_resources(settings)
        self.embedder = res.embedder
        self.counter = res.counter
        self.index = get_index(settings)
        self.retriever = _retriever(self.index, res.embedder, settings)
        self.scorer = _scorer(res.embedder)
        self.templates = load_templates(settings.templates_path)
        if backend == "auto":
            from core.llm import make_backend

            backend = make_backend(settings)
        self.backend = backend

    @property
    def backend_name(self) -> str:
        return getattr(self.backend, "name", "extractive") if self.backend else "extractive"

    def ask(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        baseline: bool = False,
        on_token: Callable[[str], None] | None = None,
        record: bool = True,
    ) -> Answer:
        """Answer one question; baseline=True concatenates the top-k blindly (no budget, dedupe
        or refusal) for comparison."""
        s = self.settings
        question = question.strip()
        if not question:
            raise ContextLensError("Please type a question.")
        t_start = time.perf_counter()

        query, rewrite_method = (question, "none") if baseline else rewrite(question, history, self.backend)
        # offline type first: a refused question must cost no LLM call at all
        cls = classify(question, None)

        t0 = time.perf_counter()
        candidates = self.retriever.search(query, s.top_k)  # embeds the query beside the lexical search
        qvec = self.retriever.embed_query(query)  # cached by the search
        retrieval_ms = (time.perf_counter() - t0) * 1000

        t1 = time.perf_counter()
        built = self._build(question, query, candidates, history, cls.query_type, baseline)
        budgeting_ms = (time.perf_counter() - t1) * 1000
        # rounded as traced, so the eval's replay of the refusal rule sees the value decided on
        top_score = max((round(c.score, 4) for c in candidates), default=None)

        def decide(b: _Built) -> refusal.Decision:
            if baseline:
                return refusal.Decision(False, "")
            return refusal.decide(
                top_score, b.context.tokens, s.refusal_tau, s.min_context_tokens,
                b.overlap, s.refusal_min_overlap,
            )  # fmt: skip

        decision = decide(built)
        if not decision.refused and self.backend is not None and not baseline:
            llm_cls = classify(question, self.backend)
            if llm_cls.query_type != cls.query_type:
                t1 = time.perf_counter()
                built = self._build(question, query, candidates, history, llm_cls.query_type, baseline)
                budgeting_ms += (time.perf_counter() - t1) * 1000
                decision = decide(built)
            cls = llm_cls
        context, prompt, snippets, history_msgs, params = (
            built.context,
            built.prompt,
            built.snippets,
            built.history_msgs,
            built.params,
        )

        t2 = time.perf_counter()
        fallback, backend_error, llm_called = False, "", False
        included = context.included
        if decision.refused:
            draft = Draft(s.refusal_sentence, (), True, decision.reason)
        elif self.backend is not None:
            llm_called = True
            try:
                text = llm_answer(self.backend, prompt.as_openai(), s.response_reserve, on_token=on_token)
                draft = _llm_draft(text, s.refusal_sentence)
            except BackendError as e:
                backend_error, fallback = str(e), True
                draft = self._extract(question, qvec, included, baseline)
        else:
            draft = self._extract(question, qvec, included, baseline)
            if on_token is not None:
                on_token(draft.text)
        answer_ms = (time.perf_counter() - t2) * 1000

        grounding = None if draft.refused else grounding_check(draft.text, included, self.scorer)
        answer_tokens = self.counter.count(draft.text)
        citations = _citations(draft.citations, included)
        record_id = uuid.uuid4().hex[:12]
        trace: dict[str, Any] = {
            "id": record_id,
            "version": TRACE_VERSION,
            "ts": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "question": question,
            "rewritten_query": query,
            "rewrite_method": rewrite_method,
            "history": [{"question": t.question, "answer": t.answer, "query": t.query} for t in history],
            "history_turns": len(history),
            "history_turns_included": len(history_msgs) // 2,
            "memory_snippets": snippets,
            "setup": "baseline" if baseline else "engineered",
            "query_type": cls.query_type,
            "classifier": cls.method,
            "retrieval_mode": s.retrieval_mode,
            "retrieval_ms": round(retrieval_ms, 3),
            "budgeting_ms": round(budgeting_ms, 3),
            "answer_ms": round(answer_ms, 3),
            "total_ms": round((time.perf_counter() - t_start) * 1000, 3),
            "top_score": top_score,
            "evidence_overlap": built.overlap,
            "knowledge_budget": params.budget if not baseline else None,
            "prompt_limit": s.prompt_limit,
            "context_tokens": context.tokens,
            "prompt_tokens": prompt.total_tokens,
            "answer_tokens": answer_tokens,
            "total_tokens": prompt.total_tokens + answer_tokens,
            "sections": prompt.sections,
            "num_candidates": len(candidates),
            "num_chunks_included": len(included),
            "num_deduped": context.count(Fate.DUPLICATE),
            "num_summarized": context.count(Fate.SUMMARISED),
            "num_truncated": context.count(Fate.TRUNCATED),
            "num_suspicious": sum(1 for e in context.ledger if e.suspicious),
            "refused": draft.refused,
            "refusal_reason": draft.reason if draft.refused else "",
            "refusal_rule": {
                "tau": s.refusal_tau,
                "min_overlap": s.refusal_min_overlap,
                "min_context_tokens": s.min_context_tokens,
            },
            "backend": self.backend_name,
            "llm_called": llm_called,
            "fallback": fallback,
            "backend_error": backend_error,
            "answer": draft.text,
            "citations": citations,
            "grounding": grounding.as_dict() if grounding else None,
            "chunks": [_ledger_dict(e) for e in context.ledger],
            "messages": prompt.as_openai(),
            "message_sections": [m.section for m in prompt.messages],
            "settings": settings_snapshot(s),
        }
        if record and s.trace_enabled:
            append_trace(s.trace_path, trace)
        return Answer(
            text=draft.text,
            refused=draft.refused,
            refusal_reason=trace["refusal_reason"],
            citations=citations,
            fallback=fallback,
            backend_error=backend_error,
            trace=trace,
            context=context,
            prompt=prompt,
        )

    def _build(
        self,
        question: str,
        query: str,
        candidates: list[Candidate],
        history: Sequence[Turn],
        query_type: str,
        baseline: bool,
    ) -> _Built:
        """Fit memory, history and evidence around the fixed sections; assemble the messages."""
        s = self.settings
        qvec = self.retriever.embed_query(query)
        system = self.templates.system_prompt(s.refusal_sentence)
        procedure = self.templates.procedure(query_type)
        user = self.templates.user_message(question)
        fixed = (
            message_tokens(self.counter, system)
            + (message_tokens(self.counter, procedure) if procedure else 0)
            + message_tokens(self.counter, user)
            + REPLY_PRIMING
        )
        if fixed > s.prompt_limit:
            raise ContextLensError(
                f"The question is too long: the prompt needs {fixed} tokens, the model window "
                f"leaves {s.prompt_limit}."
            )
        history_msgs: list[tuple[str, str]] = []
        left_out = 0
        if history and not baseline:
            history_msgs, left_out = fit_history(
                history, min(s.history_budget, s.prompt_limit - fixed), self.counter
            )
        history_tokens = sum(message_tokens(self.counter, c) for _, c in history_msgs)
        snippets = memory_snippets(
            list(history[:left_out]) if not baseline else [], qvec, self.scorer, self.counter,
            min(s.memory_budget, s.prompt_limit - fixed - history_tokens),
        )  # fmt: skip
        memory = self.templates.memory_message("\n\n".join(snippets)) if snippets else ""
        memory_tokens = message_tokens(self.counter, memory) if memory else 0
        wrapper = message_tokens(self.counter, self.templates.knowledge_message("", question))
        room = s.prompt_limit - fixed - history_tokens - memory_tokens - wrapper
        fmt = KnowledgeFormat(nonce(question, [c.chunk.id for c in candidates]), s.separator)
        if baseline:
            params = BudgetParams(budget=10**9, min_score=0.0, dedupe=False)
        else:
            params = BudgetParams.from_settings(s, max(0, min(s.knowledge_budget, room)))
        ranked = candidates if baseline else in_evidence_order(candidates, s.evidence_order)
        context = build_context(ranked, query, params, fmt, self.counter, self.scorer)
        knowledge = self.templates.knowledge_message(context.text, question) if context.text else ""
        prompt = assemble(self.counter, system, procedure, knowledge, memory, history_msgs, user)
        # the refusal rule's word overlap, rounded as traced so the eval's replay of the rule
        # sees exactly the value the decision used
        overlap = round(refusal.evidence_overlap(query, (e.injected_text for e in context.included)), 4)
        return _Built(context, prompt, snippets, history_msgs, params, overlap)

    def _extract(self, question: str, qvec: Any, included: list[Any], baseline: bool) -> Draft:
        s = self.settings
        return extractive_answer(
            question, included, self.scorer, s.refusal_sentence, s.answer_min_similarity,
            may_refuse=not baseline,
        )  # fmt: skip


@dataclass(frozen=True)
class _Built:
    context: Context
    prompt: Prompt
    snippets: list[str]
    history_msgs: list[tuple[str, str]]
    params: BudgetParams
    overlap: float  # share of the query's content words in one injected entry (refusal rule)


_retrievers: dict[tuple[int, int, str, str, int], Retriever] = {}


def _retriever(index: Any, embedder: Embedder, settings: Settings) -> Retriever:
    """Retrievers (and their query-embedding caches) are shared per index and embedder."""
    key = (id(index), id(embedder), settings.retrieval_mode, str(settings.min_score), settings.rrf_k)
    r = _retrievers.get(key)
    if r is None:
        r = _retrievers[key] = Retriever(settings, index, embedder)
    return r


def _llm_draft(text: str, refusal_sentence: str) -> Draft:
    from core.answer import cited_labels

    text = text.strip()
    refused = text.rstrip(".").strip().lower() == refusal_sentence.rstrip(".").strip().lower()
    return Draft(
        text, tuple(cited_labels(text)), refused, "the model said it does not know" if refused else ""
    )


def _citations(labels: Sequence[str], included: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for label in labels:
        match = next(
            (e for e in included if citation_label(e.source, e.page) == label or e.source == label), None
        )
        out.append(
            {
                "label": label,
                "source": match.source if match else label,
                "chunk_id": match.chunk_id if match else None,
                "injected": match is not None,
            }
        )
    return out


def _ledger_dict(e: Any) -> dict[str, Any]:
    return {
        "chunk_id": e.chunk_id,
        "source": e.source,
        "category": e.category,
        "page": e.page,
        "score": e.score,
        "tokens": e.tokens,
        "fate": e.fate.value,
        "duplicate_of": e.duplicate_of,
        "injected_tokens": e.injected_tokens,
        "injected_text": e.injected_text,
        "dense_rank": e.dense_rank,
        "lexical_rank": e.lexical_rank,
        "suspicious": e.suspicious,
    }


def settings_snapshot(s: Settings) -> dict[str, Any]:
    """The settings that shaped this answer (for replay); never the API key."""
    return {
        "top_k": s.top_k,
        "knowledge_budget": s.knowledge_budget,
        "refusal_tau": s.refusal_tau,
        "min_context_tokens": s.min_context_tokens,
        "refusal_min_overlap": s.refusal_min_overlap,
        "answer_min_similarity": s.answer_min_similarity,
        "min_score": s.min_score,
        "separator": s.separator,
        "retrieval_mode": s.retrieval_mode,
        "evidence_order": s.evidence_order,
        "summary_min_score": s.summary_min_score,
        "overflow_extract_tokens": s.overflow_extract_tokens,
        "model_window": s.model_window,
        "response_reserve": s.response_reserve,
        "history_budget": s.history_budget,
        "templates_path": str(s.templates_path),
        "collection": s.collection,
        "llm_model": s.llm_model if s.uses_llm else None,
    }
