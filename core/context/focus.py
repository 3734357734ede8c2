"""Evidence about the entity the question names goes first.

When the question names a model ("ArmX2", "K7", "v2.1"), a chunk that stands under a heading (or
title) naming only a sibling ("ArmX3 › Key specifications"), and not about the asked one too (see
_about_asked_too), is walked after the others, so it cannot crowd the asked model's own evidence
out of the budget; and, for a factual or comparison question, a chunk standing under the asked
model (any chunk, when no model is asked) that holds a "Key: value" field on the question's topic
is walked before the others (a spec list scores low on similarity, and an overview that only names
the model would fill the budget first), and so is a table's row naming the asked model under a
column on the topic (a comparison table with a row per model). The order stays deterministic: a
stable partition of the ranking, recorded in the ledger's order."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.answer import superlative
from core.answer.absent import FRAMING
from core.context.columns import cells
from core.query.entities import (
    conflicts,
    entities,
    heading_entities,
    matches,
    question_entities,
    without_entities,
)
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, content_words, split_sentences
from core.types import Candidate


def chunk_scope(c: Candidate) -> set[str]:
    """The entities a chunk stands under: its nearest heading that names any, else its title."""
    for heading in reversed([h for h in str(c.chunk.metadata.get("heading_path", "")).split(" › ") if h]):
        found = heading_entities(heading)
        if found:
            return found
    return title_entities(c)


def title_entities(c: Candidate) -> set[str]:
    """The entities of the chunk's document title; none when the title is only the file's name."""
    title = str(c.chunk.metadata.get("title", ""))
    stem = c.chunk.source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return entities(title) if title and title != stem else set()


def with_asked_pages(
    wider: Sequence[Candidate],
    question: str,
    k: int,
    deeper: Callable[[], Sequence[Candidate]] | None = None,
) -> list[Candidate]:
    """The top k of a deeper ranking, and for each chunk among them about only a sibling of the
    asked model, a chunk below k that stands under the asked model (its heading or title names it):
    a sibling's pages cannot keep the asked model's own out of the candidates. When no such chunk
    exists (a model the store does not document) the top k stay as they are, so the refusal still
    reads the siblings' evidence. deeper: a still deeper ranking, read only when fewer of wider's
    chunks under the asked model hold what is asked than there are sibling chunks to answer, whose
    chunks under the asked model join those of wider (its top k may differ from wider's: a fused
    ranking's order depends on its depth, so it only adds to the choice)."""
    top = list(wider[:k])
    wanted = question_entities(question)
    if not wanted:
        return top
    topic = _topic(question)
    away = sum(1 for c in top if _elsewhere(c, wanted, topic))
    if not away:
        return top
    # those holding more of what is asked first ("Weight: 31 kg" of the asked pump's page for "How
    # much does the DX-200 weigh?", before its service guide), and when some hold any of it, only
    # those (not the returns policy's "the 30-day test ride does not apply to the Vela 30" for how
    # long the Vela 30 takes to charge); in the ranking's order else
    asked, aliases = _topic(question, FRAMING), _aliases(question)

    def holds(c: Candidate) -> int:  # the topic words its headings and text hold, each once
        stems = STEMMER.stem_set(content_words(f"{c.chunk.metadata.get('heading_path', '')}\n{c.chunk.text}"))
        return sum(1 for t in asked if t in stems or aliases.get(t, frozenset()) & stems)

    seen, own, held = {c.chunk.id for c in top}, [], {}

    def take(pool: Sequence[Candidate]) -> None:
        for c in pool:
            if c.chunk.id not in seen and matches(wanted, chunk_scope(c)):
                seen.add(c.chunk.id)
                own.append(c)
                held[c.chunk.id] = holds(c)

    take(wider[k:])
    if deeper is not None and sum(1 for n in held.values() if n) < away:  # the deeper search only when needed
        take(deeper())
    if any(held.values()):
        own = [c for c in own if held[c.chunk.id]]
    return top + sorted(own, key=lambda c: -held[c.chunk.id])[:away]


def _topic(question: str, framing: frozenset[str] = frozenset()) -> frozenset[str]:
    """The stems of the question's words, its entities' pieces left out (not "nc", "300" of "NC-300"),
    and these framing words ("How long does it take")."""
    return STEMMER.stem_set(content_words(without_entities(question)) - framing)


def _aliases(question: str) -> dict[str, frozenset[str]]:
    """Each stem of a question word asking for an attribute by another name → the attribute's stem
    ("cheapest" → "price", core.text.ATTRIBUTE_OF): a key naming either meets the word."""
    return {
        next(iter(STEMMER.stem_set([w]))): STEMMER.stem_set([ATTRIBUTE_OF[w]])
        for w in content_words(question)
        if w in ATTRIBUTE_OF and STEMMER.stem_set([w])
    }


def _elsewhere(c: Candidate, wanted: set[str], topic: frozenset[str]) -> bool:
    """The chunk stands under a sibling of the asked entity and is not about the asked one too."""
    return bool(conflicts(wanted, chunk_scope(c), set())) and not _about_asked_too(c, wanted, topic)


_HEADING_LINE = re.compile(r"^#{1,6}\s+(.+)$", re.MULTILINE)
ON_TOPIC = 0.5  # share of the question's other words a sentence naming the asked entity holds


def _about_asked_too(c: Candidate, wanted: set[str], topic: frozenset[str]) -> bool:
    """The chunk, under a sibling's heading, is about the asked entity too: it holds a section
    headed by it (it starts under "Firmware 4.2.0" and goes on into "## Firmware 4.1.3"), or a
    sentence that names it and holds at least ON_TOPIC of the question's other words (by stem:
    "… a longer release time (28 ms, compared to 15 ms on the ArmX2)" for "How long does the
    brake take to release on an ArmX2?"; not "The ArmX3 carries the same warranty as the ArmX2"
    for its IP rating)."""
    if any(matches(wanted, entities(h)) for h in _HEADING_LINE.findall(c.chunk.text)):
        return True
    need = max(1.0, ON_TOPIC * len(topic))  # no other word asked ("What is the ArmX2?"): headings decide
    return any(
        matches(wanted, entities(s)) and len(topic & STEMMER.stem_set(content_words(s))) >= need
        for s in split_sentences(c.chunk.text)
    )


def about_asked_first(
    candidates: Sequence[Candidate], question: str, fields: bool = False
) -> list[Candidate]:
    """The candidates with those about another entity than the question's moved last (stable);
    fields: also those standing under the asked entity (any, when the question names none) with a
    field on the question's topic moved first (its page's "Gears: Shimano Nexus 7-speed hub" for
    "What gears does the Stride 3 have?", "Phone support: … 09:00 to 17:30" for "What are the phone
    support hours?"); a question asking which one holds the most or least of it ("Which is the
    heaviest bike?") reads a table's row first, where every one's value stands, not one model's list."""
    wanted = question_entities(question)
    # a field is named by the question's words that can name one, not by the words framing a value
    asked = _topic(question, FRAMING) if fields else frozenset()
    if not wanted and not asked:
        return list(candidates)
    topic = _topic(question)
    rows_only = bool(asked) and not wanted and superlative.asked(question) is not None
    aliases = _aliases(question) if fields else {}
    group = [
        2
        if wanted and _elsewhere(c, wanted, topic)
        else 0
        if _own_field(c, wanted, asked, rows_only, aliases)
        else 1
        for c in candidates
    ]
    return [c for g in (0, 1, 2) for c, h in zip(candidates, group, strict=True) if h == g]


# a "Key: value" line (a spec list's item, a field of a page), its key captured: a short label, no
# clause of a sentence ("In 1271, Kublai Khan imposed the name Great Yuan (Chinese: …")
_FIELD = re.compile(r"^[ \t]*(?:[-*•+][ \t]+)?([A-Za-z][^:\n|#(),.;]{0,38}?):[ \t]+\S", re.MULTILINE)


def _own_field(
    c: Candidate,
    wanted: set[str],
    topic: frozenset[str],
    rows_only: bool = False,
    aliases: dict[str, frozenset[str]] | None = None,
) -> bool:
    """The chunk stands under the asked entity (its heading or title names it; none asked: any chunk)
    and holds a "Key: value" line whose key has at least ON_TOPIC of the topic's words (none: no), or
    it holds a table whose header names the asked entity (none asked: any table) with a row whose
    first cell is such a key (rows_only: only that) ("| Range (Eco) | 70 km | 90 km |" under "| | Stride 3 | Stride 3 Plus
    |"), or a row whose first cell names the asked entity under a header with such a column. A
    field, not any sentence: a passing mention on the model's page ("Heavy riders should …") is no
    answer."""
    if not topic:
        return False
    need = max(1.0, ON_TOPIC * len(topic))

    def on_topic(key: str) -> bool:  # a topic word met by itself or by the attribute it asks for
        stems = STEMMER.stem_set(content_words(key))
        return sum(1 for t in topic if t in stems or (aliases or {}).get(t, frozenset()) & stems) >= need

    for head, key in _row_keys(c.chunk.text):
        if (not wanted or matches(wanted, entities(head))) and on_topic(key):
            return True
        # a row per model: the row is the asked one's (its first cell names it and nothing else,
        # not "Aria 7 case"), a column is on the topic ("| Aria 7 | $199 |" under "| Model | Price
        # (USD) |" for "How much does the Aria 7 cost?")
        if (
            wanted
            and matches(wanted, entities(key))
            and not content_words(without_entities(key))
            and any(map(on_topic, cells(head)[1:]))
        ):
            return True
    if rows_only or (wanted and not matches(wanted, chunk_scope(c))):
        return False
    return ":" in c.chunk.text and any(on_topic(key) for key in _FIELD.findall(c.chunk.text))


_TABLE = re.compile(r"(?:^\|[^\n]*\|[ \t]*(?:\n|$))+", re.MULTILINE)  # consecutive "| … |" lines
_RULE = re.compile(r"^\|[\s:|-]*-[\s:|-]*\|$")  # a header's separator line ("|---|:---:|")


def _row_keys(text: str) -> list[tuple[str, str]]:
    """Each table row's (header line, first cell): the rows below a table's first line (and its
    separator line, which the loaders leave out of stored text)."""
    out: list[tuple[str, str]] = []
    if "|" not in text:  # no table (the pattern's scan of every line costs more than this test)
        return out
    for block in _TABLE.findall(text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        rows = lines[2:] if len(lines) > 1 and _RULE.match(lines[1]) else lines[1:]
        out.extend((lines[0], row.strip("|").split("|", 1)[0].strip()) for row in rows)
    return out


_STEP = re.compile(r"(\d{1,3})[.)] ")
_FIRST_STEP = re.compile(r"^(?:#{1,6} [^\n]*\n+|\|[^\n]*\n)?(\d{1,3})[.)] ")


def _continuation(c: Candidate, out: Sequence[Candidate], tables: bool) -> Candidate | None:
    """The candidate that goes on with the numbered list c ends with (same document, the next
    chunk, starting at most one step further), or (tables) with the table ingest split after c, if
    any."""
    text = c.chunk.text
    end = _STEP.match(text, text.rstrip().rfind("\n") + 1)  # its last line that is not blank
    index = c.chunk.metadata.get("chunk_index")
    table = tables and c.chunk.metadata.get("table_goes_on") is True
    if (end is None and not table) or index is None:
        return None
    return next(
        (
            d for d in out
            if d.chunk.source == c.chunk.source and d.chunk.metadata.get("chunk_index") == int(index) + 1
            and (table or ((m := _FIRST_STEP.match(d.chunk.text)) is not None
                           and end is not None and int(m.group(1)) <= int(end.group(1)) + 1))
        ),
        None,
    )  # fmt: skip


def continuations_follow(
    candidates: Sequence[Candidate], tables: bool = False
) -> tuple[list[Candidate], frozenset[str]]:
    """The candidates with each chunk that goes on with another's numbered list (tables: or table)
    walked right after it, so a procedure or a table is not cut between two chunks by chunks ranked
    in between; and the ids of those continuations (the budget fits them without the overflow cap).
    Only a question reading across a table's rows walks a table's parts together: the rest of a
    long table is no evidence for one of its rows (core/retrieval/tables.py)."""
    out = list(candidates)
    continuing: set[str] = set()
    for c in list(out):
        nxt = _continuation(c, out, tables)
        if nxt is None:
            continue
        continuing.add(nxt.chunk.id)
        if out.index(nxt) > out.index(c) + 1:
            out.remove(nxt)
            out.insert(out.index(c) + 1, nxt)
    return out, frozenset(continuing)
