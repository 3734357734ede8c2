"""Evidence about the entity the question names goes first.

When the question names a model ("ArmX2", "K7", "v2.1"), a chunk that stands under a heading (or
title) naming only a sibling ("ArmX3 › Key specifications") is walked after the others, so it
cannot crowd the asked model's own evidence out of the budget. The order stays deterministic: a
stable partition of the ranking, recorded in the ledger's order."""

from __future__ import annotations

from collections.abc import Sequence

from core.query.entities import conflicts, entities, question_entities
from core.types import Candidate


def chunk_scope(c: Candidate) -> set[str]:
    """The entities a chunk stands under: its nearest heading that names any, else its title."""
    meta = c.chunk.metadata
    for heading in reversed([h for h in str(meta.get("heading_path", "")).split(" › ") if h]):
        found = entities(heading)
        if found:
            return found
    title = str(meta.get("title", ""))
    stem = c.chunk.source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return entities(title) if title and title != stem else set()


def about_asked_first(candidates: Sequence[Candidate], question: str) -> list[Candidate]:
    """The candidates with those about another entity than the question's moved last (stable)."""
    wanted = question_entities(question)
    if not wanted:
        return list(candidates)
    elsewhere = [bool(conflicts(wanted, chunk_scope(c), set())) for c in candidates]
    return [c for c, away in zip(candidates, elsewhere, strict=True) if not away] + [
        c for c, away in zip(candidates, elsewhere, strict=True) if away
    ]
