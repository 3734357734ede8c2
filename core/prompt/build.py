"""Building one question's prompt: the fixed sections first, then history, memory and evidence
fitted into what the model window leaves, assembled in the fixed injection order."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from core.answer.refusal import WordCounts, overlaps, rarity, unheld_names
from core.answer.related import RELATED_SENTENCE
from core.config import Settings
from core.context.budget import Context
from core.context.fit import fit_evidence
from core.context.memory import fit_history, memory_snippets
from core.errors import ContextLensError
from core.prompt.assemble import REPLY_PRIMING, Prompt, assemble, message_tokens
from core.prompt.templates import Templates
from core.resources import Models
from core.text import content_words
from core.types import Candidate, Turn


@dataclass(frozen=True)
class BuiltPrompt:
    """The prompt step's result: the evidence context, the messages and what went into them."""

    context: Context
    prompt: Prompt
    snippets: list[str]
    history_msgs: list[tuple[str, str]]
    knowledge_budget: int | None  # None for the blind baseline
    overlap: float  # share of the query's content words in one injected entry, the smaller of
    # its plain and rarity-weighted readings (the refusal rule's; core/answer/refusal.py)
    overlap_plain: float = 0.0  # the same share counted plainly
    counts: WordCounts | None = None  # the store's passage count and each query word's (None: unknown)
    unheld: tuple[str, ...] = ()  # the query's names no injected entry holds (the refusal rule's)


@dataclass(frozen=True)
class _Fixed:
    system: str
    procedure: str
    user: str
    tokens: int
    refusal: str  # what {refusal} stands for: the refusal sentence, or the related-sources sentence
    counted: dict[str, int]  # each fixed text's own count (assembling does not count them again)


class PromptBuilder:
    """Fits history, memory and evidence around the fixed sections for one settings object."""

    def __init__(
        self,
        settings: Settings,
        models: Models,
        templates: Templates,
        frequencies: Callable[[Iterable[str]], tuple[int, dict[str, int]]] | None = None,
    ) -> None:
        """frequencies: the store's passage count and each word's (Index.frequencies), which
        weight the evidence overlap by rarity; None: the overlap is counted plainly."""
        self.settings = settings
        self.models = models
        self.templates = templates
        self.frequencies = frequencies
        # the system prompt and the procedures are the same texts for every question: counted once
        self._count_fixed = functools.lru_cache(maxsize=64)(models.counter.count)

    def build(
        self,
        question: str,
        query: str,
        qvec: np.ndarray,
        candidates: Sequence[Candidate],
        history: Sequence[Turn],
        query_type: str,
        baseline: bool,
    ) -> BuiltPrompt:
        s, counter = self.settings, self.models.counter
        fixed = self._fixed(question, query_type)
        history_msgs, left_out = ([], 0)
        if history and not baseline:
            history_msgs, left_out = fit_history(
                history, min(s.history_budget, s.prompt_limit - fixed.tokens), counter
            )
        history_tokens = sum(message_tokens(counter, c) for _, c in history_msgs)
        snippets = memory_snippets(
            list(history[:left_out]) if not baseline else [], qvec, self.models.scorer, counter,
            min(s.memory_budget, s.prompt_limit - fixed.tokens - history_tokens),
        )  # fmt: skip
        memory = self.templates.memory_message("\n\n".join(snippets), question) if snippets else ""
        memory_tokens = message_tokens(counter, memory) if memory else 0
        wrapper = self._wrapper(question, fixed.refusal)
        room = s.prompt_limit - fixed.tokens - history_tokens - memory_tokens - wrapper
        budget = max(0, min(s.knowledge_budget, room))
        counts = self.word_counts(query)  # the answerer weighs the question's words by them, for both setups
        weights = None if baseline else rarity(query, counts)
        context = fit_evidence(
            candidates, question, query, s, budget, counter, self.models.scorer, baseline, query_type, weights
        )
        prompt = self._assemble(question, fixed, context, memory, history_msgs)
        # the blind baseline applies no refusal rule: its overlap is recorded plain
        plain, weighted = overlaps(query, [e.injected_text for e in context.included], weights)
        # the names the user wrote (not a follow-up's added terms), held by a passage or its headings
        shown = [f"{e.title} › {e.heading_path}\n{e.injected_text}" for e in context.included]
        return BuiltPrompt(
            context, prompt, snippets, history_msgs, None if baseline else budget, min(plain, weighted), plain,
            counts, () if baseline else tuple(unheld_names(question, shown)),
        )  # fmt: skip

    def word_counts(self, query: str) -> WordCounts | None:
        """The store's passage count and how many passages hold each of the query's content words
        (None: unknown, or an empty store)."""
        if self.frequencies is None:
            return None
        n, counts = self.frequencies(content_words(query))
        return (n, counts) if n else None

    def _wrapper(self, question: str, refusal: str) -> int:
        """What the knowledge message costs around the block (0 when the block rides inside the
        system or user message, whose text around {context} is already in the fixed sections)."""
        if self.templates.context_in != "knowledge":
            return 0
        return message_tokens(self.models.counter, self.templates.knowledge_message("", question, refusal))

    def _assemble(
        self,
        question: str,
        fixed: _Fixed,
        block: Context,
        memory: str,
        history_msgs: list[tuple[str, str]],
    ) -> Prompt:
        """The messages with the block where the templates place it; its tokens are counted in
        the knowledge section wherever it rides (the host message's own text stays in its section)."""
        t, counter, host = self.templates, self.models.counter, self.templates.context_in
        context = block.text
        knowledge = t.knowledge_message(context, question, fixed.refusal) if context else ""
        system, user = fixed.system, fixed.user
        if context and host == "system":
            system = t.system_prompt(fixed.refusal, question, context, related=self._related)
        if context and host == "user":
            user = t.user_message(question, context, fixed.refusal)
        # what is counted already: the fixed texts, and the block (the whole knowledge message by default)
        known = {**fixed.counted, context: block.tokens} if context else fixed.counted
        prompt = assemble(counter, system, fixed.procedure, knowledge, memory, history_msgs, user, known)
        if context and host != "knowledge":
            bare = fixed.system if host == "system" else fixed.user
            prompt = prompt.carrying(host, prompt.sections[host] - message_tokens(counter, bare, known))
        return prompt

    @property
    def _related(self) -> bool:
        return self.settings.missing_context == "related"

    def _fixed(self, question: str, query_type: str) -> _Fixed:
        """The sections that are always sent whole (an embedded {context} left empty); an error
        when they alone overflow the window."""
        counter, t = self.models.counter, self.templates
        refusal = RELATED_SENTENCE if self._related else self.settings.refusal_sentence
        system, procedure, user = (
            t.system_prompt(refusal, question, related=self._related),
            t.procedure(query_type),
            t.user_message(question, refusal=refusal),
        )
        counted = {text: self._count_fixed(text) for text in (system, procedure) if text}
        counted[user] = counter.count(user)
        tokens = (
            message_tokens(counter, system, counted)
            + (message_tokens(counter, procedure, counted) if procedure else 0)
            + message_tokens(counter, user, counted)
            + REPLY_PRIMING
        )
        if tokens > self.settings.prompt_limit:
            raise ContextLensError(
                f"The question is too long: the prompt needs {tokens} tokens, the model window "
                f"leaves {self.settings.prompt_limit}."
            )
        return _Fixed(system, procedure, user, tokens, refusal, counted)
