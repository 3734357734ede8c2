"""Fitting evidence into the knowledge budget, with a fate for every candidate (the ledger).

The loop is deliberately simple (after canopy's StuffingContextBuilder): walk the candidates in
rank order, drop low scores and duplicates, add each entry while it fits. A candidate that
overflows is summarised (high score: its sentences most relevant to the question) or truncated at
a sentence boundary, into at most `tail_cap` tokens, and the walk goes on down the ranking while
room is left, so a long first overflow cannot crowd out every later candidate; room the rest of
the walk leaves unused is then given back to the capped extracts in rank order (tail_cap None: the
first overflow takes all the room left and the rest are over budget). Token counts include the
block header and separators, and the final text is counted once more, so the budget is never
exceeded.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.config import Settings
from core.context.dedupe import Deduper
from core.context.knowledge import KnowledgeFormat
from core.context.summarize import ranked_extract, truncate_sentences
from core.scoring import SentenceScorer
from core.shield.quarantine import chunk_flags, defused_text
from core.tokens import TiktokenCounter
from core.types import Candidate, Fate, LedgerEntry


@dataclass(frozen=True)
class BudgetParams:
    budget: int
    min_score: float = 0.0
    summary_min_score: float = 0.45
    jaccard_min: float = 0.9
    cosine_min: float = 0.95
    dedupe: bool = True
    # an overflowing candidate's extract gets at most this many tokens and later candidates still
    # get theirs while room is left (None: the first overflow takes all the room and ends the walk)
    tail_cap: int | None = None

    @classmethod
    def from_settings(cls, s: Settings, budget: int | None = None) -> BudgetParams:
        """The engineered pipeline's budgeting parameters (budget: the settings' unless given)."""
        return cls(
            budget=s.knowledge_budget if budget is None else budget,
            min_score=s.min_score,
            summary_min_score=s.summary_min_score,
            jaccard_min=s.dedupe_jaccard,
            cosine_min=s.dedupe_cosine,
            tail_cap=s.overflow_extract_tokens or None,
        )


@dataclass(frozen=True)
class Context:
    """The knowledge block as injected and the ledger of how it was made."""

    text: str
    tokens: int
    budget: int
    ledger: tuple[LedgerEntry, ...]

    @property
    def included(self) -> list[LedgerEntry]:
        return [e for e in self.ledger if e.included]

    def count(self, fate: Fate) -> int:
        return sum(1 for e in self.ledger if e.fate == fate)


def in_evidence_order(candidates: Sequence[Candidate], order: str) -> list[Candidate]:
    """The candidates in the order the budget walks them: retrieval rank ("rank") or similarity."""
    return list(candidates) if order == "rank" else sorted(candidates, key=lambda c: -c.score)


def render_entry(fmt: KnowledgeFormat, n: int, c: Candidate, text: str, defused: bool = False) -> str:
    meta = c.chunk.metadata
    page = int(meta["page"]) if "page" in meta else None
    return fmt.entry(
        n,
        c.chunk.source,
        c.chunk.category,
        c.score,
        text,
        page,
        str(meta.get("heading_path", "")),
        chunk_flags(c.chunk),
        defused,
    )


def ledger_entry(
    c: Candidate,
    counter: TiktokenCounter,
    fate: Fate,
    text: str = "",
    injected: int = 0,
    dup: str | None = None,
) -> LedgerEntry:
    """The ledger line of a candidate: its fate, its own token count and what was injected."""
    meta = c.chunk.metadata
    return LedgerEntry(
        chunk_id=c.chunk.id, source=c.chunk.source, score=round(c.score, 4), fate=fate,
        tokens=c.chunk.tokens if c.chunk.tokens is not None else counter.count(c.chunk.text),
        injected_text=text, injected_tokens=injected, duplicate_of=dup,
        dense_rank=c.dense_rank, lexical_rank=c.lexical_rank,
        flags=chunk_flags(c.chunk), category=c.chunk.category,
        page=int(meta["page"]) if "page" in meta else None,
        title=str(meta.get("title", "")), heading_path=str(meta.get("heading_path", "")),
        heading_levels=str(meta.get("heading_levels", "")), notes=str(meta.get("notes", "")),
    )  # fmt: skip


def _fit(
    c: Candidate,
    question: str,
    params: BudgetParams,
    render: Callable[..., str],
    counter: TiktokenCounter,
    scorer: SentenceScorer,
    room: int,
) -> tuple[Fate, str, str, int] | None:
    """An overflowing candidate fitted into room tokens: (fate, text, rendered entry, its tokens).

    High scores get their sentences most relevant to the question, the rest a sentence-boundary
    truncation; None when not even one sentence fits. The chunk is defused once and its extracts
    cut from that text (defusing is idempotent and keeps sentences), so the many trial renders
    need not scan for markers again."""
    text = defused_text(c.chunk)
    # the entry's fields cost the same whatever the text: counted once; the text starts and ends
    # at a line break, where cl100k never merges tokens, so the sum is the entry's count
    shell = counter.count(render("", defused=True))

    def fits(t: str) -> bool:
        return shell + counter.count(t) <= room

    def fits_exactly(t: str) -> bool:
        return counter.count(render(t, defused=True)) <= room

    for check in (fits, fits_exactly):  # the exact check only if the sum was ever wrong
        fitted = None
        fate = Fate.TRUNCATED
        if c.score >= params.summary_min_score:
            fitted, fate = ranked_extract(text, question, scorer, check), Fate.SUMMARISED
        if fitted is None:
            fitted, fate = truncate_sentences(text, check), Fate.TRUNCATED
        if fitted is None:
            return None
        full = render(fitted[0], defused=True)
        cost = counter.count(full)
        if cost <= room:
            return fate, fitted[0], full, cost
    return None


def build_context(
    candidates: Sequence[Candidate],
    question: str,
    params: BudgetParams,
    fmt: KnowledgeFormat,
    counter: TiktokenCounter,
    scorer: SentenceScorer,
    uncapped: frozenset[str] = frozenset(),
) -> Context:
    """Choose and format the evidence for one question within params.budget tokens (uncapped:
    ids whose overflow extract may take all the room left, e.g. a procedure's continuation)."""
    walk = _Walk(candidates, question, params, fmt, counter, scorer, uncapped)
    for i, c in enumerate(candidates):
        walk.visit(i, c)
    walk.grow_back()
    knowledge, total = walk.enforce_bound()
    ledger = tuple(f for f in walk.fates if f is not None)
    return Context(text=knowledge, tokens=total, budget=params.budget, ledger=ledger)


@dataclass
class _Walk:
    """The state of one walk down the ranking: rendered entries, fates, tokens used."""

    candidates: Sequence[Candidate]
    question: str
    params: BudgetParams
    fmt: KnowledgeFormat
    counter: TiktokenCounter
    scorer: SentenceScorer
    uncapped: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.deduper = Deduper(self.params.jaccard_min, self.params.cosine_min)
        self.fates: list[LedgerEntry | None] = [None] * len(self.candidates)
        self.entries: list[str] = []
        self.header = self.counter.count(self.fmt.header + "\n")
        self.sep = self.counter.count(self.fmt.joiner)
        self.used = 0
        self.overflowed = False
        self.capped: list[tuple[int, int, Callable[[str], str]]] = []  # (candidate, entry, render)

    def visit(self, i: int, c: Candidate) -> None:
        """Record candidate i's fate: below min score, duplicate, kept whole, fitted, or over budget."""
        params, counter = self.params, self.counter
        if c.score < params.min_score:
            self.fates[i] = ledger_entry(c, counter, Fate.BELOW_MIN_SCORE)
            return
        if params.dedupe:
            dup = self.deduper.duplicate_of(c)
            if dup is not None:
                self.fates[i] = ledger_entry(c, counter, Fate.DUPLICATE, dup=dup)
                return
        render = functools.partial(render_entry, self.fmt, len(self.entries) + 1, c)
        fixed = self.header if not self.entries else self.sep
        room = params.budget - self.used - fixed
        if self.overflowed and (params.tail_cap is None or room <= 0):
            self.fates[i] = ledger_entry(c, counter, Fate.OVER_BUDGET)
            return
        full = render(defused_text(c.chunk), defused=True)
        cost = counter.count(full)
        fate, text = Fate.KEPT, c.chunk.text
        if cost > room:
            self.overflowed = True
            cap = (
                room if params.tail_cap is None or c.chunk.id in self.uncapped else min(room, params.tail_cap)
            )
            fitted = _fit(c, self.question, params, render, counter, self.scorer, cap)
            if fitted is None:
                self.fates[i] = ledger_entry(c, counter, Fate.OVER_BUDGET)
                return
            fate, text, full, cost = fitted
            if cap < room:
                self.capped.append((i, len(self.entries), render))
        self.entries.append(full)
        self.used += fixed + cost
        self.deduper.keep(c)
        self.fates[i] = ledger_entry(c, counter, fate, text, cost)

    def grow_back(self) -> None:
        """Room nothing ranked after a capped extract used goes back to the capped extracts, best first."""
        for i, pos, render in self.capped:
            left = self.params.budget - self.used
            old = self.fates[i]
            assert old is not None  # set when the extract was capped
            if left <= 0:
                break
            c = self.candidates[i]
            full = render(defused_text(c.chunk), defused=True)
            cost = self.counter.count(full)
            grown: tuple[Fate, str, str, int] | None = (Fate.KEPT, c.chunk.text, full, cost)
            if cost > old.injected_tokens + left:
                room = old.injected_tokens + left
                grown = _fit(c, self.question, self.params, render, self.counter, self.scorer, room)
            if grown is None or grown[3] <= old.injected_tokens:
                continue
            fate, text, full, cost = grown
            self.used += cost - old.injected_tokens
            self.entries[pos] = full
            self.fates[i] = dataclasses.replace(old, fate=fate, injected_text=text, injected_tokens=cost)

    def enforce_bound(self) -> tuple[str, int]:
        """The block and its exact count: BPE merges across entry boundaries could shift the
        count by a token, so the last entries go until the bound holds."""
        knowledge = self.fmt.block(self.entries)
        total = self.counter.count(knowledge)
        while total > self.params.budget and self.entries:
            self.entries.pop()
            dropped = max(j for j, f in enumerate(self.fates) if f is not None and f.included)
            old = self.fates[dropped]
            assert old is not None
            self.fates[dropped] = dataclasses.replace(
                old, fate=Fate.OVER_BUDGET, injected_text="", injected_tokens=0, duplicate_of=None
            )
            knowledge = self.fmt.block(self.entries)
            total = self.counter.count(knowledge)
        return knowledge, total
