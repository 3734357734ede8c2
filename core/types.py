"""The project's data model: chunks, candidates and the fates the budget gives them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from core.prepared import Prepared

MetaValue = str | int | float | bool


@dataclass(frozen=True)
class Chunk:
    """A stored piece of a document."""

    id: str
    text: str
    source: str
    metadata: Mapping[str, MetaValue] = field(default_factory=dict)
    # what the budget needs of it, computed when it was stored (core/prepared.py); None: not yet
    prepared: Prepared | None = field(default=None, compare=False, repr=False)

    @property
    def category(self) -> str:
        return str(self.metadata.get("category", ""))

    @property
    def tokens(self) -> int | None:
        value = self.metadata.get("tokens")
        return int(value) if value is not None else None


@dataclass(frozen=True)
class Candidate:
    """A retrieved chunk with its similarity to the question (in [0, 1], higher is better)."""

    chunk: Chunk
    score: float
    # the stored vector as read (float32); not part of equality: candidates compare by chunk and ranks
    embedding: np.ndarray | tuple[float, ...] | None = field(default=None, compare=False)
    dense_rank: int | None = None
    lexical_rank: int | None = None


class Fate(StrEnum):
    """What the context builder did with a candidate."""

    KEPT = "kept"
    SUMMARISED = "summarised"
    TRUNCATED = "truncated"
    CONDENSED = "condensed"  # some of its units packed (unit packing)
    DUPLICATE = "duplicate"
    OVER_BUDGET = "over_budget"
    QUARANTINED = "quarantined"  # flagged by the injection shield and left out (quarantine=exclude)
    BELOW_MIN_SCORE = "below_min_score"


INCLUDED_FATES = frozenset(
    {Fate.KEPT, Fate.SUMMARISED, Fate.TRUNCATED, Fate.CONDENSED}
)  # the fates that inject text


@dataclass(frozen=True)
class LedgerEntry:
    """One candidate's fate, its token cost and the text as injected (if any)."""

    chunk_id: str
    source: str
    score: float
    fate: Fate
    tokens: int
    injected_text: str = ""
    injected_tokens: int = 0
    duplicate_of: str | None = None
    dense_rank: int | None = None
    lexical_rank: int | None = None
    flags: tuple[str, ...] = ()  # why the shield quarantined it ("" when it did not)
    category: str = ""
    page: int | None = None
    title: str = ""  # the document's title
    heading_path: str = ""  # the headings the chunk starts under, " › "-joined
    heading_levels: str = ""  # their levels, ","-joined ("1,2")
    units_kept: int | None = None  # unit packing: how many of its evidence units were injected …
    units_total: int | None = None  # … of how many
    dropped_units: tuple[str, ...] = ()  # the units left out, as the answer would show them
    notes: str = ""  # what parsing left out of its document (hidden HTML text), from ingest
    chunk_index: int | None = None  # its place among its document's chunks (from ingest), when known
    table_goes_on: bool | None = None  # its last table goes on in the next chunk (from ingest; None: unknown)

    @property
    def included(self) -> bool:
        return self.fate in INCLUDED_FATES

    @property
    def suspicious(self) -> bool:
        """Flagged by the injection shield: quarantined (never quoted, fenced with a warning)."""
        return bool(self.flags)

    def as_row(self) -> dict[str, object]:
        """The ledger line as the trace records it."""
        return {
            "chunk_id": self.chunk_id, "source": self.source, "category": self.category, "page": self.page,
            "score": self.score, "tokens": self.tokens, "fate": self.fate.value, "duplicate_of": self.duplicate_of,
            "injected_tokens": self.injected_tokens, "injected_text": self.injected_text,
            "dense_rank": self.dense_rank, "lexical_rank": self.lexical_rank, "suspicious": self.suspicious, "flags": list(self.flags),
            "title": self.title, "heading_path": self.heading_path, "heading_levels": self.heading_levels,
            "units_kept": self.units_kept, "units_total": self.units_total, "dropped_units": list(self.dropped_units), "notes": self.notes,
        }  # fmt: skip


@dataclass(frozen=True)
class Turn:
    """One earlier exchange; `query` is the standalone query it was retrieved with."""

    question: str
    answer: str
    query: str = ""
