"""The one entry point the UI, CLI and eval call: Pipeline.ask(question, history) -> Answer.

question → understand (rewrite, classify) → retrieve → build the prompt (history, memory,
evidence fitted into the budget) → decide (refusal rule) → answer (LLM or extractive, with
fallback) → ground → trace. Each step returns a typed result (core/steps.py); the TraceRecord is
built from those (core/record.py)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.answer import refusal, superlative
from core.answer.citations import resolve
from core.answer.draft import Draft
from core.answer.extractive import extractive_answer
from core.answer.grounding import check as grounding_check
from core.answer.llm import draft_from_reply, llm_answer, make_backend
from core.answer.related import related_answer
from core.config import Settings
from core.context.budget import Context
from core.context.focus import with_asked_pages
from core.errors import BackendError, ContextLensError
from core.prompt.assemble import Prompt
from core.prompt.build import BuiltPrompt, PromptBuilder
from core.prompt.templates import load_templates
from core.query.classify import classify
from core.query.entities import question_entities, recased
from core.query.rewrite import rewrite
from core.query.rows import reads_rows
from core.record import build_record
from core.resources import Resources
from core.steps import AnswerStep, QueryStep, RetrievalStep
from core.trace import Citation, TraceRecord, append_trace
from core.types import Candidate, Turn


@dataclass
class Answer:
    """What a question produced: the answer, its citations, and the full trace record."""

    text: str
    refused: bool
    refusal_reason: str
    citations: list[Citation]
    fallback: bool
    backend_error: str
    trace: TraceRecord
    context: Context | None = field(default=None, repr=False)
    prompt: Prompt | None = field(default=None, repr=False)


class Pipeline:
    """understand → retrieve → build → decide → answer → ground → trace."""

    def __init__(self, settings: Settings, resources: Resources, backend: Any = "auto") -> None:
        self.settings = settings
        self.resources = resources
        self.templates = load_templates(settings.templates_path)
        self.backend = make_backend(settings) if backend == "auto" else backend
        self.builder = PromptBuilder(settings, resources.models, self.templates, resources.index.frequencies)

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
        t_start = time.perf_counter()
        q = self.understand(question, history, baseline)
        found = self.retrieve(q.query, baseline)
        if not baseline and (cased := recased(q.query, (c.chunk.text for c in found.candidates))) != q.query:
            # "the nib 30" is the documents' "Nib 30": the model is asked, searched for again by name
            q = dataclasses.replace(q, query=cased)
            found = self.retrieve(cased, baseline)
        t1 = time.perf_counter()
        q, built, decision = self.build_and_decide(q, found, history, baseline)
        budgeting_ms = (time.perf_counter() - t1) * 1000
        answer = self.answer(q, built, decision, baseline, on_token)
        included = built.context.included
        grounding = (
            None
            if answer.draft.refused
            else grounding_check(answer.draft.text, included, self.resources.scorer, q.asked)
        )
        citations = resolve(answer.draft.citations, included)
        trace = build_record(
            self.settings, q, history, found, built, budgeting_ms, decision, answer, grounding, citations,
            self.resources.counter.count(answer.draft.text), (time.perf_counter() - t_start) * 1000, baseline,
        )  # fmt: skip
        if record and self.settings.trace_enabled:
            append_trace(self.settings.trace_path, trace)
        d = answer.draft
        return Answer(d.text, d.refused, trace["refusal_reason"], citations, answer.fallback,
                      answer.backend_error, trace, built.context, built.prompt)  # fmt: skip

    def understand(self, question: str, history: Sequence[Turn], baseline: bool) -> QueryStep:
        """The standalone query (follow-ups rewritten) and the offline query type: a question the
        rule refuses must cost no LLM call at all."""
        question = question.strip()
        if not question:
            raise ContextLensError("Please type a question.")
        query, method = (question, "none") if baseline else rewrite(question, history, self.backend)
        cls = classify(question, None)
        return QueryStep(question, query, method, cls.query_type, cls.method)

    def retrieve(self, query: str, baseline: bool = False) -> RetrievalStep:
        t0 = time.perf_counter()
        candidates = self.search(query, baseline)
        qvec = self.resources.retriever.embed_query(query)  # cached by the search
        return RetrievalStep(
            candidates, qvec, self.settings.retrieval_mode, (time.perf_counter() - t0) * 1000
        )

    def search(self, query: str, baseline: bool = False) -> list[Candidate]:
        """The candidates in the configured retrieval mode: the top k, or, for unit packing, the
        wider pack_candidates (the blind baseline always takes the top k). A question naming a
        model ("the Stride 30") looks twice as deep: for each chunk of the top k about only a sibling
        ("Stride 3"), the next chunk standing under the asked model joins them (focus.with_asked_pages).
        A question reading across a table's rows brings the other parts of a table split between
        chunks (core/retrieval/tables.py)."""
        s = self.settings
        k = s.top_k if baseline or s.packing != "units" else max(s.top_k, s.pack_candidates)
        retriever, named = self.resources.retriever, question_entities(query)
        if baseline or s.packing == "units" or not named:
            found = retriever.search(query, k, s.retrieval_mode, s.rrf_k)
        else:
            found = with_asked_pages(
                retriever.search(query, 2 * k, s.retrieval_mode, s.rrf_k), query, k,
                lambda: retriever.search(query, 3 * k, s.retrieval_mode, s.rrf_k),
            )  # fmt: skip
        if baseline or not reads_rows(query, superlative.asked(query) is not None, named):
            return found
        return retriever.with_table_parts(found, query)  # a table split between chunks is read whole

    def build_and_decide(
        self, q: QueryStep, found: RetrievalStep, history: Sequence[Turn], baseline: bool
    ) -> tuple[QueryStep, BuiltPrompt, refusal.Decision]:
        """The prompt and the refusal decision; with an LLM, a question that is answered is
        classified again by the model and rebuilt when its type changes."""
        built = self._build(q, found, history, baseline)
        decision = self._decide(found, built, baseline)
        if decision.refused or self.backend is None or baseline:
            return q, built, decision
        llm_cls = classify(q.question, self.backend)
        changed = llm_cls.query_type != q.query_type
        q = QueryStep(q.question, q.query, q.rewrite_method, llm_cls.query_type, llm_cls.method)
        if changed:
            built = self._build(q, found, history, baseline)
            decision = self._decide(found, built, baseline)
        return q, built, decision

    def _build(
        self, q: QueryStep, found: RetrievalStep, history: Sequence[Turn], baseline: bool
    ) -> BuiltPrompt:
        return self.builder.build(
            q.question, q.query, found.query_vector, found.candidates, history, q.query_type, baseline
        )

    def _decide(self, found: RetrievalStep, built: BuiltPrompt, baseline: bool) -> refusal.Decision:
        if baseline:
            return refusal.NOT_APPLIED
        s = self.settings
        return refusal.decide(
            found.top_score, built.context.tokens, s.refusal_tau, s.min_context_tokens,
            built.overlap, s.refusal_min_overlap, s.min_score, built.overlap_plain, built.unheld,
        )  # fmt: skip

    def answer(
        self,
        q: QueryStep,
        built: BuiltPrompt,
        decision: refusal.Decision,
        baseline: bool,
        on_token: Callable[[str], None] | None,
    ) -> AnswerStep:
        """A refused question gets the refusal sentence (no LLM call) or, in related mode, the
        related answer — from the LLM when there is one (its system prompt says how), else offline;
        an answered one the LLM's answer or the extractive one (also the LLM's fallback)."""
        t0 = time.perf_counter()
        s = self.settings
        related = s.missing_context == "related" and not baseline
        fallback, error, called = False, "", False
        if decision.refused and (self.backend is None or not related):
            draft = self.not_answered(q, built, decision.reason)
        elif self.backend is not None:
            called = True
            try:
                reply = llm_answer(
                    self.backend, built.prompt.as_openai(), s.response_reserve, on_token=on_token
                )
                draft = draft_from_reply(reply, s.refusal_sentence, related)
            except BackendError as e:
                error, fallback = str(e), True
                draft = (
                    self.not_answered(q, built, decision.reason)
                    if decision.refused
                    else self.extract(q, built, baseline)
                )
            if decision.refused:  # the rule's flag and reason stand, whatever the model said
                draft = dataclasses.replace(draft, refused=True, reason=decision.reason, related=True)
        else:
            draft = self.extract(q, built, baseline)
            if on_token is not None:
                on_token(draft.text)
        # a strict refusal sends nothing: the built prompt is what an LLM call would have cost
        saved = built.prompt.total_tokens if decision.refused and not related else 0
        ms = (time.perf_counter() - t0) * 1000
        return AnswerStep(draft, self.backend_name, called, fallback, error, ms, saved)

    def not_answered(self, q: QueryStep, built: BuiltPrompt, reason: str) -> Draft:
        """The refusal as the missing-context mode writes it: the exact sentence, or the related
        answer from the injected evidence (both refused, with the reason)."""
        s = self.settings
        if s.missing_context != "related":
            return Draft(s.refusal_sentence, (), True, reason)
        return related_answer(
            q.asked, built.context.included, self.resources.scorer, q.query_type,
            s.answer_min_similarity, reason,
        )  # fmt: skip

    def extract(self, q: QueryStep, built: BuiltPrompt, baseline: bool) -> Draft:
        """The extractive answer; in related mode its own refusal becomes the related answer."""
        s = self.settings
        draft = extractive_answer(
            q.asked, built.context.included, self.resources.scorer, s.refusal_sentence,
            s.answer_min_similarity, q.query_type, may_refuse=not baseline, counts=built.counts,
        )  # fmt: skip
        if draft.refused and s.missing_context == "related":
            return self.not_answered(q, built, draft.reason)
        return draft
