"""Unit packing: the budget holds the best evidence units of many candidates, not a few whole chunks.

Every unit (sentence, list item, table row; core/context/units.py) of the candidates that pass the
score floor and the duplicate check is scored for the question with the answerer's relevance
(static vectors + word overlap + the asked entity; core/answer/evidence.py) plus a prior for its
chunk's rank. Units are then chosen by marginal gain (MMR: value minus similarity to what is
already chosen; near-duplicates skipped) while they fit. A chosen unit brings what it cannot be read
without: a numbered step its whole procedure (and the chunk that goes on with it), a list its
lead-in line, a sentence opening with a pronoun or connective the one before it, a table row its
header, any unit the headings it stands under. Each chunk's chosen units are rendered in document
order with "…" where units were left out, under its [doc, score] header; a chunk whose every unit is
chosen is injected whole. The walk order (rank) decides the order of the entries, so the evidence
order stays deterministic, and the final text is counted once more so the budget is never exceeded.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.answer.compose import step_bonus
from core.answer.evidence import score_units
from core.context.budget import BudgetParams, Context, ledger_entry, render_entry
from core.context.dedupe import Deduper, jaccard, word_set
from core.context.knowledge import KnowledgeFormat
from core.context.units import Unit, parse
from core.scoring import SentenceScorer
from core.shield.quarantine import chunk_flags
from core.tokens import TiktokenCounter
from core.types import Candidate, Fate, LedgerEntry

RANK_PRIOR = 0.6  # the top chunk's units gain this much, the n-th's RANK_PRIOR / n
DIVERSITY = 0.3  # MMR: a unit loses this share of its cosine to the closest unit already chosen
CONFLICT = 1.0  # a unit about another entity than the one asked is walked after all others
_LEANS_BACK = re.compile(
    r"^(?:it|its|this|these|that|those|they|their|them|he|she|his|her|such|also|however|then|there|"
    r"thus|therefore|otherwise|instead|both|each)\b",
    re.IGNORECASE,
)


@dataclass
class _Chunk:
    """One eligible candidate: its walk position, lines, units and what is chosen of it."""

    walk: int
    candidate: Candidate
    lines: list[str]
    units: list[Unit]
    chosen: set[int] = dataclasses.field(default_factory=set)
    heads: set[int] = dataclasses.field(default_factory=set)  # heading / header lines already paid for


def pack_context(
    candidates: Sequence[Candidate],
    question: str,
    query_type: str,
    params: BudgetParams,
    fmt: KnowledgeFormat,
    counter: TiktokenCounter,
    scorer: SentenceScorer,
    continuing: frozenset[str] = frozenset(),
    weights: Mapping[str, float] | None = None,
) -> Context:
    """The question's evidence packed unit by unit into params.budget tokens, with its ledger
    (weights: the question's words weighted by rarity, for the units' relevance)."""
    fates: list[LedgerEntry | None] = [None] * len(candidates)
    chunks = _eligible(candidates, params, counter, fates)
    if chunks:
        _Packer(chunks, question, query_type, params, fmt, counter, scorer, continuing, weights).run()
    return _assemble(chunks, candidates, fates, params, fmt, counter)


def _eligible(
    candidates: Sequence[Candidate],
    params: BudgetParams,
    counter: TiktokenCounter,
    fates: list[LedgerEntry | None],
) -> list[_Chunk]:
    """The candidates above the score floor that duplicate no earlier one (the others get their fate)."""
    deduper = Deduper(params.jaccard_min, params.cosine_min)
    out: list[_Chunk] = []
    for i, c in enumerate(candidates):
        if c.score < params.min_score:
            fates[i] = ledger_entry(c, counter, Fate.BELOW_MIN_SCORE)
            continue
        dup = deduper.duplicate_of(c) if params.dedupe else None
        if dup is not None:
            fates[i] = ledger_entry(c, counter, Fate.DUPLICATE, dup=dup)
            continue
        deduper.keep(c)
        meta = c.chunk.metadata
        base = tuple(p for p in str(meta.get("heading_path", "")).split(" › ") if p)
        levels = tuple(int(v) for v in str(meta.get("heading_levels", "")).split(",") if v.isdigit())
        out.append(_Chunk(i, c, c.chunk.text.split("\n"), parse(c.chunk.text, base, levels)))
    return out


@dataclass
class _Packer:
    chunks: list[_Chunk]
    question: str
    query_type: str
    params: BudgetParams
    fmt: KnowledgeFormat
    counter: TiktokenCounter
    scorer: SentenceScorer
    continuing: frozenset[str]
    weights: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        self.keys = [(k, p) for k, ch in enumerate(self.chunks) for p in range(len(ch.units))]
        self.index = {key: n for n, key in enumerate(self.keys)}
        self.value = self._values()
        texts = [self.chunks[k].units[p].text for k, p in self.keys]
        self.vectors = self.scorer.embedder.static_embed(texts) if texts else np.zeros((0, 1), np.float32)
        self.words = [word_set(t) for t in texts]
        self.closest = np.zeros(len(self.keys), dtype=np.float32)  # cosine to the nearest chosen unit
        self.cost = [self.counter.count(self._raw(k, p)) + 1 for k, p in self.keys]
        header = self.counter.count(self.fmt.header + "\n")
        self.left = self.params.budget - header
        self.entry_cost = [
            self.counter.count(render_entry(self.fmt, len(self.chunks), ch.candidate, "")) + self.counter.count(self.fmt.joiner)
            for ch in self.chunks
        ]  # fmt: skip
        self.chosen_keys: list[int] = []
        labels = list(dict.fromkeys(_label(ch) for ch in self.chunks))
        self.label_index = [labels.index(_label(ch)) for ch in self.chunks]
        self.opened: set[int] = set()  # the sources (citation labels) with an entry already

    def _values(self) -> np.ndarray:
        """Each unit's relevance as the answerer scores it (for the question or the part of it the
        unit answers best), plus its chunk's rank prior; a unit the
        answerer would not use (too short, a heading-like line) is only taken as another's context."""
        entries = [
            ledger_entry(ch.candidate, self.counter, Fate.KEPT, ch.candidate.chunk.text) for ch in self.chunks
        ]
        evidence = score_units(self.question, entries, self.scorer, self.query_type, self.weights)
        value = np.full(len(self.keys), -np.inf, dtype=np.float32)
        steps = self.query_type == "procedural"
        for s in evidence.units:
            k, p = divmod(s.order, 100000)
            bonus = step_bonus(s.unit) if steps and s.unit.kind == "item" else 0.0
            value[self.index[(k, p)]] = (
                s.best + bonus + RANK_PRIOR / (k + 1) - (CONFLICT if s.conflict else 0.0)
            )
        return value

    def _raw(self, k: int, p: int) -> str:
        u = self.chunks[k].units[p]
        return u.text if u.kind == "sentence" else self.chunks[k].lines[u.line].strip()

    def run(self) -> None:
        if not self.keys:  # no candidate holds a unit (e.g. heading-only chunks)
            return
        dead = ~np.isfinite(self.value)
        while self.left > 0:
            gain = np.where(dead, -np.inf, self.value - DIVERSITY * self.closest)
            n = int(np.argmax(gain))
            if not np.isfinite(gain[n]):
                return
            dead[n] = True
            if self._near_duplicate(n):
                continue
            for group in self._groups(n):
                group = [m for m in group if m not in self.chosen_keys]
                cost = self._cost(group)
                if cost <= self.left:
                    self._take(group, cost)
                    dead[group] = True
                    break

    def _near_duplicate(self, n: int) -> bool:
        return any(jaccard(self.words[n], self.words[m]) >= self.params.jaccard_min for m in self.chosen_keys)

    def _groups(self, n: int) -> list[list[int]]:
        """What unit n brings, widest first: a step its whole procedure (across chunk boundaries),
        else the steps from the first as far as they fit; a list item its lead-in line; a sentence
        opening with a pronoun or connective the unit before it; at last, n alone."""
        k, p = self.keys[n]
        units = self.chunks[k].units
        u = units[p]
        lean = (
            [self.index[(k, p - 1)], n]
            if p > 0 and u.kind == "sentence" and _LEANS_BACK.match(u.text)
            else [n]
        )
        groups = [lean, [n]]
        if u.kind == "item":
            block = [
                self.index[(k, q)] for q, v in enumerate(units) if v.kind == "item" and v.block == u.block
            ]
            first = self.keys[block[0]][1]
            lead = self.index[(k, first - 1)] if first > 0 and units[first - 1].text.endswith(":") else None
            if u.ordinal is not None:
                steps = self._across(k, block)
                head = [lead] if lead is not None else []
                groups = [head + steps, *([head + self._fitting(steps, n)] if n in steps else []), *groups]
            elif lead is not None:
                groups.insert(0, [lead, n])
        return [g for i, g in enumerate(groups) if g and g not in groups[:i]]

    def _across(self, k: int, block: list[int]) -> list[int]:
        """A numbered list with the parts of it the chunks before and after hold (same document,
        adjacent chunk, the list running into or out of the boundary)."""
        out = list(block)
        ch = self.chunks[k]
        index = ch.candidate.chunk.metadata.get("chunk_index")
        if index is None:
            return out
        for step in (-1, 1):
            touches = (
                (self.keys[out[0]][1] == 0) if step < 0 else (self.keys[out[-1]][1] == len(ch.units) - 1)
            )
            other = self._neighbour(ch, int(index) + step) if touches else None
            if other is None or not self.chunks[other].units:
                continue
            units = self.chunks[other].units
            edge = units[-1] if step < 0 else units[0]
            if edge.kind != "item" or edge.ordinal is None:
                continue
            part = [
                self.index[(other, q)]
                for q, v in enumerate(units)
                if v.kind == "item" and v.block == edge.block
            ]
            out = part + out if step < 0 else out + part
        return out

    def _neighbour(self, ch: _Chunk, index: int) -> int | None:
        for j, other in enumerate(self.chunks):
            c = other.candidate.chunk
            if c.source == ch.candidate.chunk.source and c.metadata.get("chunk_index") == index:
                return j
        return None

    def _fitting(self, steps: list[int], n: int) -> list[int]:
        """The steps from the first as far as they fit the room left (at least up to n)."""
        out: list[int] = []
        for m in steps:
            if self._cost([*out, m]) > self.left and n in out:
                break
            out.append(m)
        return out

    def _cost(self, group: list[int]) -> int:
        """Tokens the group adds: its units, the heading and header lines not yet paid, a new entry."""
        total = 0
        heads: dict[int, set[int]] = {}
        opening: set[int] = set()
        for m in group:
            k, p = self.keys[m]
            ch = self.chunks[k]
            total += self.cost[m]
            label = self.label_index[k]
            if label not in self.opened and label not in opening:
                opening.add(label)
                total += self.entry_cost[k]
            for line in ch.units[p].heads:
                if line not in ch.heads and line not in heads.setdefault(k, set()):
                    heads[k].add(line)
                    total += self.counter.count(ch.lines[line]) + 1
        return total

    def _take(self, group: list[int], cost: int) -> None:
        for m in group:
            k, p = self.keys[m]
            ch = self.chunks[k]
            ch.chosen.add(p)
            ch.heads.update(ch.units[p].heads)
            self.opened.add(self.label_index[k])
            self.chosen_keys.append(m)
        self.left -= cost
        if len(self.vectors):
            sims = self.vectors @ self.vectors[group].T
            self.closest = np.maximum(self.closest, sims.max(axis=1))


def render_units(ch: _Chunk) -> str:
    """A chunk's chosen units in document order, with their headings and table headers, "…" where
    units were left out; the chunk's own text when every unit is chosen."""
    if len(ch.chosen) == len(ch.units):
        return ch.candidate.chunk.text
    parts: list[str] = []
    emitted: set[int] = set()
    prev: Unit | None = None
    for p in sorted(ch.chosen):
        u = ch.units[p]
        gap = prev is not None and p != prev.position + 1
        new_heads = [line for line in u.heads if line not in emitted]
        if (
            prev is not None
            and u.kind == "sentence"
            and prev.kind == "sentence"
            and u.line == prev.line
            and not new_heads
        ):
            parts.append((" … " if gap else " ") + u.text)
        else:
            if prev is not None:
                parts.append("\n…\n" if gap else "\n")
            for line in new_heads:
                parts.append(ch.lines[line].strip() + "\n")
                emitted.add(line)
            parts.append(u.text if u.kind == "sentence" else ch.lines[u.line].strip())
        prev = u
    return "".join(parts)


def _assemble(
    chunks: list[_Chunk],
    candidates: Sequence[Candidate],
    fates: list[LedgerEntry | None],
    params: BudgetParams,
    fmt: KnowledgeFormat,
    counter: TiktokenCounter,
) -> Context:
    """One entry per cited source (document, and page for a PDF) in walk order, its chunks' parts in
    document order; the lowest-ranked chunks go while the exact count is over the budget."""
    used = [ch for ch in chunks if ch.chosen]
    while True:
        groups = _by_source(used)
        entries = [_source_entry(fmt, n + 1, g) for n, g in enumerate(groups)]
        knowledge = fmt.block([e for e, _ in entries])
        total = counter.count(knowledge)
        if total <= params.budget or not used:
            break
        used.pop()
    for g, (entry, parts) in zip(groups, entries, strict=True):
        shares = [counter.count(t) + 1 for t in parts]
        shares[0] = max(0, counter.count(entry) - sum(shares[1:]))
        for ch, text, cost in zip(g, parts, shares, strict=True):
            c = ch.candidate
            dropped = tuple(u.text for q, u in enumerate(ch.units) if q not in ch.chosen)
            fates[ch.walk] = dataclasses.replace(
                ledger_entry(c, counter, Fate.KEPT if text == c.chunk.text else Fate.CONDENSED, text, cost),
                units_kept=len(ch.chosen), units_total=len(ch.units), dropped_units=dropped,
            )  # fmt: skip
    for ch in chunks:
        if fates[ch.walk] is None:
            fates[ch.walk] = ledger_entry(ch.candidate, counter, Fate.OVER_BUDGET)
    ledger = tuple(f for f in fates if f is not None)
    return Context(text=knowledge, tokens=total, budget=params.budget, ledger=ledger)


def _label(ch: _Chunk) -> tuple[str, object]:
    return ch.candidate.chunk.source, ch.candidate.chunk.metadata.get("page")


def _by_source(used: list[_Chunk]) -> list[list[_Chunk]]:
    """The chosen chunks grouped by what they are cited as, groups in walk order, each in document order."""
    groups: dict[tuple[str, object], list[_Chunk]] = {}
    for ch in used:
        groups.setdefault(_label(ch), []).append(ch)
    return [
        sorted(g, key=lambda ch: (int(ch.candidate.chunk.metadata.get("chunk_index", 0)), ch.walk))
        for g in groups.values()
    ]


def _source_entry(fmt: KnowledgeFormat, n: int, group: list[_Chunk]) -> tuple[str, list[str]]:
    """A source's entry (under its first part's section, with its best score) and each chunk's part;
    a later part under another section says which."""
    parts = [render_units(ch) for ch in group]
    pieces = [parts[0]]
    paths = [str(ch.candidate.chunk.metadata.get("heading_path", "")) for ch in group]
    for prev, path, part in zip(paths, paths[1:], parts[1:], strict=False):
        pieces.append(f"…\nSection: {path}\n{part}" if path and path != prev else f"…\n{part}")
    best = max(group, key=lambda ch: ch.candidate.score).candidate
    first = group[0].candidate
    meta = first.chunk.metadata
    page = int(meta["page"]) if "page" in meta else None
    text = "\n".join(pieces)
    flags = tuple(dict.fromkeys(f for ch in group for f in chunk_flags(ch.candidate.chunk)))
    return fmt.entry(
        n, first.chunk.source, first.chunk.category, best.score, text, page, paths[0], flags
    ), parts
