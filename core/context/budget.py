"""Fitting evidence into the knowledge budget, with a fate for every candidate (the ledger).

The loop is deliberately simple (after canopy's StuffingContextBuilder): walk the candidates in
evidence order (core/context/rerank.py; fit.py chooses it), drop low scores and duplicates, add each
entry while it fits. A candidate that overflows is summarised (high score, or a table row or "Key:
value" item or a section title that holds the question's words: its sentences most relevant to the
question) or truncated at a sentence boundary, into at most `tail_cap` tokens, and the walk goes on
down the ranking while room is left, so a long first overflow cannot crowd out every later
candidate; room the rest of the walk leaves unused is then given back to the capped extracts in walk
order (tail_cap None: the first overflow takes all the room left and the rest are over budget).
Token counts include the block header and separators. With cl100k they are exact sums of counts
stored at ingest (core/prepared.py); with another encoding the final block is counted, and the last
entries go until it fits, so the budget is never exceeded.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.config import Settings
from core.context.columns import project
from core.context.dedupe import Deduper
from core.context.focus import chunk_scope
from core.context.knowledge import KnowledgeFormat
from core.context.rerank import by_relevance
from core.context.shape import Shape
from core.context.summarize import extract_tokens, join, leading_pick, ranked_pick
from core.prepared import Prepared, Preparer
from core.query.entities import matches, question_entities, without_entities
from core.query.measure import states_measure
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


def in_evidence_order(
    candidates: Sequence[Candidate],
    order: str,
    question: str,
    scorer: SentenceScorer,
    weights: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """The candidates in the order the budget walks them: retrieval rank ("rank"), dense
    similarity ("score"), or best sentence + similarity ("relevance", core/context/rerank.py)."""
    if order == "relevance":
        return by_relevance(candidates, question, scorer, weights)
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


def head_lines(fmt: KnowledgeFormat, n: int, c: Candidate) -> tuple[str, ...]:
    """Entry n's lines before its text (render_entry = their join + text + "\n" + fmt.tail)."""
    meta = c.chunk.metadata
    page = int(meta["page"]) if "page" in meta else None
    section = str(meta.get("heading_path", ""))
    return fmt.head_lines(n, c.chunk.source, c.chunk.category, c.score, page, section, chunk_flags(c.chunk))


_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def line_tokens(counter: TiktokenCounter, line: str) -> int:
    """A head line's count. With cl100k an ASCII line counts as the same line with every digit
    written 0: its pre-tokeniser cuts a run of digits into pieces of their own, three digits at
    most, and every such piece is one token whatever its digits, so every question's score and
    entry-number lines share one count (the unit tests check the premise and the sums)."""
    if counter.name.startswith("cl100k") and line.isascii():
        line = line.encode("ascii").translate(_ZEROS).decode("ascii")
    return _line_tokens(counter, line)


def _fixed_parts(counter: TiktokenCounter, fmt: KnowledgeFormat) -> tuple[int, int, int, int]:
    """The counts of the block's header line, an entry's opening fence up to its number, its
    closing fence, and a joint: the separator with what cl100k merges where one entry's closing
    fence meets the next one's opening (">" and "\n---\n" become ">\n" and "---\n"), the same
    at every joint. With cl100k only the question's tag ("-" + nonce) is counted per question: no
    piece runs on from "doc" into the "-" nor from the tag into the ">", so a fence counts as its
    fixed parts plus the tag (the unit tests check it for random tags and every separator)."""
    if not counter.name.startswith("cl100k"):
        tail = counter.count(fmt.tail)
        joint = counter.count(fmt.tail + fmt.joiner + "<doc") - tail - counter.count("<doc")
        return counter.count(fmt.header + "\n"), counter.count(fmt.opening), tail, joint
    header, opening, closing, gt, merged = _format_counts(counter, fmt.header, fmt.joiner)
    tag = counter.count(fmt.tag)
    return header, opening + tag, closing + tag + gt, merged - gt - opening


@functools.lru_cache(maxsize=64)  # a format's fixed strings: no question in them
def _format_counts(counter: TiktokenCounter, header: str, joiner: str) -> tuple[int, ...]:
    return tuple(counter.count(x) for x in (header + "\n", "<doc", "</doc", ">", ">" + joiner + "<doc"))


@functools.lru_cache(maxsize=4096)  # source, section and category lines recur across questions
def _line_tokens(counter: TiktokenCounter, line: str) -> int:
    return counter.count(line)


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
        chunk_index=int(meta["chunk_index"]) if str(meta.get("chunk_index", "")).isdigit() else None,
        table_goes_on=goes_on if isinstance(goes_on := meta.get("table_goes_on"), bool) else None,
    )  # fmt: skip


FACT_OVERLAP = 0.5  # share of the question's words (its model codes aside) a fact's key holds
# a row's first cell ("| Payload | 5 kg |") or an item's key ("- Payload: 5 kg")
_FACT_KEY = re.compile(r"^\s*(?:\|\s*([^|\n]+?)\s*\||[-*+•]\s+([^:\n]{1,60}):)")


def _states_asked_fact(c: Candidate, p: Prepared, question: str, scorer: SentenceScorer) -> bool:
    """The chunk holds a structured fact about what the question asks: a table row whose first
    cell, a "Key: value" list item whose key, or a section title ("## Pricing and lead time")
    holds at least FACT_OVERLAP of the question's words (by stem; the model codes it names are
    left to the focus step). Such a chunk is summarised by relevance whatever its score, so the row
    or the section's sentence reaches the context ("| Default max. transient contact force | 110 N
    | 150 N |" of a certification summary whose prose scores low), not the page's first lines."""
    keys, facts = [], []
    for i, sentence in enumerate(p.sentences):
        m = _FACT_KEY.match(sentence)
        first_row = (
            m is not None
            and m.group(1) is not None
            and not (i and p.sentences[i - 1].lstrip().startswith("|"))
        )
        if m is not None and not first_row:  # a table's first row names its columns: no fact
            keys.append(m.group(1) or m.group(2))
            facts.append(sentence)
        elif sentence.lstrip().startswith("#"):  # a section's title: "## Pricing and lead time"
            keys.append(sentence.lstrip("# \t"))
    if not keys:
        return False
    if (scorer.overlap(keys, without_entities(question)) >= FACT_OVERLAP).any():
        return True
    # or, on the asked model's own page, a field on a measure the question asks for ("Height: 10.3
    # cm; the robot weighs 4.6 kg" for "How heavy is the Kestrel 50?", core/query/measure.py)
    if not any(states_measure(question, f) for f in facts):
        return False
    wanted = question_entities(question)
    return bool(wanted) and matches(wanted, chunk_scope(c))


def _fit(
    c: Candidate,
    p: Prepared,
    question: str,
    params: BudgetParams,
    render: Callable[..., str],
    fixed: int,
    counter: TiktokenCounter,
    scorer: SentenceScorer,
    room: int,
) -> tuple[Fate, str, str, int] | None:
    """An overflowing candidate fitted into room tokens: (fate, text, rendered entry, its tokens).

    High scores, and chunks stating a fact the question asks about (_states_asked_fact), get
    their sentences most relevant to the question, the rest a sentence-boundary truncation; None
    when not even one sentence beyond the headings fits (a heading alone would spend an entry's
    head and fence on no evidence, room a later candidate can use). p holds the sentences of the
    defused chunk with their token counts and word pieces, so a trial extract costs a sum, not a
    count; fixed is the entry's own lines (its head and closing fence)."""

    shape = Shape.of(p.sentences, p.shape)
    p = project(p, shape, question, counter)  # a wide table: only the columns the question names

    def fits(idx: list[int]) -> bool:
        return fixed + extract_tokens(p, idx, counter, shape) <= room

    chosen, fate = None, Fate.TRUNCATED
    if c.score >= params.summary_min_score or _states_asked_fact(c, p, question, scorer):
        sims = scorer.relevance(p.sentences, question, p.pieces, p.stems or None)
        chosen, fate = ranked_pick(p.sentences, sims, fits, shape), Fate.SUMMARISED
    if chosen is None or shape.factless(chosen):
        used = leading_pick(p.sentences, fits)
        chosen, fate = list(range(used)), Fate.TRUNCATED
    if shape.factless(chosen):
        return None
    text = join(p.sentences, chosen, shape)
    return fate, text, render(text, defused=True), fixed + extract_tokens(p, chosen, counter, shape)


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
        self.prep = Preparer.of(self.counter, self.scorer.embedder)
        self.header, self.opening, self.tail, self.joint = _fixed_parts(self.counter, self.fmt)
        self.heads: dict[tuple[int, int], tuple[str, int]] = {}  # (candidate, entry n) → head, tokens
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
        n = len(self.entries) + 1
        render = functools.partial(render_entry, self.fmt, n, c)
        # the block header, or the joint with the entry before (the separator and what cl100k merges
        # across it), so `used` is the exact count of the block so far (see total)
        fixed = self.header if not self.entries else self.joint
        room = params.budget - self.used - fixed
        if self.overflowed and (params.tail_cap is None or room <= 0):
            self.fates[i] = ledger_entry(c, counter, Fate.OVER_BUDGET)
            return
        full, cost = self.whole(c, n)
        fate, text = Fate.KEPT, c.chunk.text
        if cost > room:
            self.overflowed = True
            cap = (
                room if params.tail_cap is None or c.chunk.id in self.uncapped else min(room, params.tail_cap)
            )
            fitted = self.fit(c, n, render, cap)
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

    def prepared(self, c: Candidate) -> Prepared:
        """What the budget needs of c's defused text: stored at ingest, else computed now."""
        stored = c.chunk.prepared
        return stored if stored is not None and self.prep.usable(stored) else self.prep(defused_text(c.chunk))

    def head(self, c: Candidate, n: int) -> tuple[str, int]:
        """c's head as entry n and its tokens (counted once)."""
        key = (id(c), n)
        if key not in self.heads:
            # each line ends with a line break and the next starts with a non-space character,
            # so the head's count is the sum of its lines' (core/prepared.py)
            fence, *lines = head_lines(self.fmt, n, c)
            # the opening fence splits before the space after the nonce: the nonce's part is
            # counted once per question, the rest (" n=3>") shares every question's count
            tokens = self.opening + line_tokens(self.counter, fence[len(self.fmt.opening) :])
            self.heads[key] = (
                fence + "".join(lines),
                tokens + sum(line_tokens(self.counter, x) for x in lines),
            )
        return self.heads[key]

    def whole(self, c: Candidate, n: int) -> tuple[str, int]:
        """c as entry n, whole, and its tokens (from the stored count when there is one)."""
        text = defused_text(c.chunk)
        head, head_tokens = self.head(c, n)
        full = f"{head}{text}\n{self.fmt.tail}"
        stored = c.chunk.prepared
        if stored is None or not self.prep.usable(stored) or not text[:1] or text[0].isspace():
            return full, self.counter.count(full)
        # the text starts after a line break and ends before one: its count adds up (prepared.py)
        return full, head_tokens + stored.whole + self.tail

    def fit(
        self, c: Candidate, n: int, render: Callable[..., str], room: int
    ) -> tuple[Fate, str, str, int] | None:
        """c as entry n, fitted into room tokens (see _fit)."""
        fixed = self.head(c, n)[1] + self.tail
        return _fit(
            c, self.prepared(c), self.question, self.params, render, fixed, self.counter, self.scorer, room
        )

    def grow_back(self) -> None:
        """Room nothing ranked after a capped extract used goes back to the capped extracts, best first."""
        for i, pos, render in self.capped:
            left = self.params.budget - self.used
            old = self.fates[i]
            assert old is not None  # set when the extract was capped
            if left <= 0:
                break
            c = self.candidates[i]
            full, cost = self.whole(c, pos + 1)
            grown: tuple[Fate, str, str, int] | None = (Fate.KEPT, c.chunk.text, full, cost)
            if cost > old.injected_tokens + left:
                grown = self.fit(c, pos + 1, render, old.injected_tokens + left)
            if grown is None or grown[3] <= old.injected_tokens:
                continue
            fate, text, full, cost = grown
            self.used += cost - old.injected_tokens
            self.entries[pos] = full
            self.fates[i] = dataclasses.replace(old, fate=fate, injected_text=text, injected_tokens=cost)

    def enforce_bound(self) -> tuple[str, int]:
        """The block and its exact count: the entries' own counts, the block header, and each
        joint between two entries (a separator, with what cl100k merges across it); the last
        entries go until the bound holds (a separator that merges into more tokens could break
        it, which no shipped one does)."""
        total = self.total()
        while total > self.params.budget and self.entries:
            self.entries.pop()
            dropped = max(j for j, f in enumerate(self.fates) if f is not None and f.included)
            old = self.fates[dropped]
            assert old is not None
            self.fates[dropped] = dataclasses.replace(
                old, fate=Fate.OVER_BUDGET, injected_text="", injected_tokens=0, duplicate_of=None
            )
            total = self.total()
        return self.fmt.block(self.entries), total

    def total(self) -> int:
        """The exact count of the block the included entries make (summed for cl100k, whose
        pre-tokeniser the sums are proven for; counted for any other encoding)."""
        if not self.counter.name.startswith("cl100k"):
            return self.counter.count(self.fmt.block(self.entries))
        costs = [f.injected_tokens for f in self.fates if f is not None and f.included]
        return self.header + sum(costs) + (len(costs) - 1) * self.joint if costs else 0
