"""One question's evidence context: the dispatch between the whole-chunk walk
(core/context/budget.py, the default) and unit packing (core/context/pack.py), after the evidence
order (rerank.py, then focus.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from core.answer import superlative
from core.config import Settings
from core.context.budget import BudgetParams, Context, build_context, in_evidence_order, ledger_entry
from core.context.focus import about_asked_first, continuations_follow
from core.context.knowledge import KnowledgeFormat, nonce
from core.context.pack import pack_context
from core.context.rerank import walk_order
from core.query.entities import question_entities
from core.query.rows import reads_rows
from core.scoring import SentenceScorer
from core.shield.quarantine import chunk_flags
from core.tokens import TiktokenCounter
from core.types import Candidate, Fate


def fit_evidence(
    candidates: Sequence[Candidate],
    question: str,
    query: str,
    settings: Settings,
    budget: int,
    counter: TiktokenCounter,
    scorer: SentenceScorer,
    baseline: bool = False,
    query_type: str = "factual",
    weights: Mapping[str, float] | None = None,
) -> Context:
    """One question's knowledge context: the candidates fenced with the question's nonce, in
    evidence order and fitted into budget (baseline: every candidate, in rank order, unbudgeted);
    settings.packing chooses unit packing (core/context/pack.py) or the whole-chunk walk; weights:
    the query's content words weighted by rarity (core/answer/refusal.py), None: counted plainly."""
    fmt = KnowledgeFormat(nonce(question, [c.chunk.id for c in candidates]), settings.separator)
    if baseline:
        return build_context(candidates, query, BudgetParams(10**9, dedupe=False), fmt, counter, scorer)
    params = BudgetParams.from_settings(settings, budget)
    held: list[Candidate] = []
    if settings.quarantine == "exclude":
        held = [c for c in candidates if chunk_flags(c.chunk)]
        candidates = [c for c in candidates if c not in held]
    order = walk_order(settings.evidence_order, settings.packing)
    ranked, continuing = continuations_follow(
        # a factual or comparison question about a model reads its fields first; a procedure does not
        about_asked_first(
            in_evidence_order(candidates, order, query, scorer, weights),
            query,
            query_type in ("factual", "comparison"),
        ),
        reads_rows(query, superlative.asked(query) is not None, question_entities(query)),
    )
    if settings.packing == "units":
        context = pack_context(ranked, query, query_type, params, fmt, counter, scorer, continuing, weights)
    else:
        # the top k and the asked model's pages that joined them (Pipeline.search), siblings' last
        context = build_context(ranked, query, params, fmt, counter, scorer, continuing)
    return quarantined(context, held, counter)


def quarantined(context: Context, held: Sequence[Candidate], counter: TiktokenCounter) -> Context:
    """The context with the candidates the shield kept out on its ledger (fate "quarantined")."""
    if not held:
        return context
    rows = tuple(ledger_entry(c, counter, Fate.QUARANTINED) for c in held)
    return dataclasses.replace(context, ledger=context.ledger + rows)
