"""Which one has the most or the least of something, read off a comparison table and checked.

"Which model has the longest range?", "What is the cheapest Stride?", "Which is the most powerful
drone?" ask which of several things holds the largest or the smallest value. A comparison table
states each one's value in a row ("Range (Eco) | 70 km | 90 km | 120 km" under "| Spec | Stride 3 |
Stride 3 Plus | Stride 30 |"), but no sentence says which is largest. The answer quotes the row and
then names the one, written so a reader sees how it was reached: "Longest: Stride 30 (120 km)".

It is written only when the question asks the superlative (not "the battery life of the lightest
model") and it names a direction ("longest", "cheapest", "most expensive", "least noisy"; not
"best", "latest", "at least") and an attribute (the adjective's own, "lightest" → weight, "cheapest"
→ price, else the noun after it, "longest *range*"), the best table row whose key names that
attribute gives every column one quantity of one kind (core/answer/
difference.py: same unit or currency, rate and qualifier; no range, no bare number) and the extreme
value is held by one column only. A table with one row per compared thing ("| Battery | Weight |
Price |", a row per battery) gives the attribute as a column: its rows, all injected whole, are read
the same way and quoted as one line ("Weight — B20: 0.3 kg; B40: 0.55 kg").

What the question compares ("the heaviest *battery*", "Which *drill* …") chooses the table: one whose
heading or first header cell names it, or whose compared names all do, before one that says nothing
of it; never a table where only some names do ("Drill stand DS-1" beside "Wall rack WR-3" for "the
lightest drill"), and none that says nothing of it when another table's names do ("Carry case CC-2"
for "the cheapest carry case": the drills' price row does not answer it). A quantity the question
names narrows the compared ones to those the same table gives it ("Which of the 18 V drills …").

The grounding check (core/answer/grounding.py) reads the line back (verify): the named one's value
stands in the quoted row, and it is the extreme of that row's values.
Plain English words only, no corpus's vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from core.answer.absent import FRAMING
from core.answer.citations import cite
from core.answer.difference import Quantity, quantities, sole_quantity
from core.answer.evidence import Scored
from core.answer.refusal import WordCounts
from core.context.units import Unit
from core.query.entities import entities, question_entities
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, content_words

# a superlative adjective → (its direction, the attribute it names on its own, "" for none: the
# noun after it names one, "longest range")
_ADJECTIVES = {
    "lightest": ("min", "weight"), "heaviest": ("max", "weight"), "cheapest": ("min", "price"),
    "priciest": ("max", "price"), "dearest": ("max", "price"), "fastest": ("max", "speed"),
    "slowest": ("min", "speed"), "quietest": ("min", "noise"), "loudest": ("max", "noise"),
    "longest": ("max", ""), "shortest": ("min", ""), "highest": ("max", ""), "lowest": ("min", ""),
    "biggest": ("max", ""), "largest": ("max", ""), "smallest": ("min", ""),
    "widest": ("max", "width"), "narrowest": ("min", "width"), "tallest": ("max", "height"),
    "strongest": ("max", ""), "weakest": ("min", ""),
}  # fmt: skip
# "most/least" and an adjective → the attribute it names
_MOST_OF = {
    "expensive": "price",
    "affordable": "price",
    "powerful": "power",
    "efficient": "efficiency",
    "noisy": "noise",
    "quiet": "noise",
}
_UP = {"expensive": "max", "affordable": "min", "quiet": "min"}  # the direction "most" gives, if not "max"
_SUPERLATIVE = re.compile(
    rf"(?<!\bat )\b(?:(?:the|your|our)\s+)?(?:(?P<adj>{'|'.join(_ADJECTIVES)})|(?P<most>most|least)\s+(?P<what>[a-z]+))"
    r"(?:\s+(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*)?))?",
    re.I,
)
_ONE = re.compile(
    rf"\b(?:{'|'.join(_ADJECTIVES)}|(?:most|least)\s+(?:{'|'.join(_MOST_OF)}))\b", re.I
)  # (to count them)
# the superlative is what the question asks: "Which … longest …?", "What is the cheapest …?" (not
# "What is the battery life of the lightest model?", "How much does the lightest model cost?")
_ASKS = re.compile(
    r"^\W*(?:which\b|what(?:'s|\s+(?:is|are))\s+(?:the|your|our)\s+(?:(?:most|least)\s+[a-z]+|[a-z]+est)\b)",
    re.I,
)
_LINKING = frozenset("is are was were be".split())  # "Which drone is fastest?"
_DETERMINERS = frozenset({"the", "your", "our"})  # "Which is your cheapest thermostat?"
_BOUND = re.compile(
    r"\b(?:under|over|below|above|within|up\s+to|at\s+(?:least|most)|(?:less|more|fewer)\s+than|"
    r"no\s+(?:more|less)\s+than|max(?:imum)?|min(?:imum)?|beyond|exceeding)\s*$",
    re.I,
)
# the noun after "Which" ("Which laptop …", "Which of the 18 V drills …")
_WHICH = re.compile(
    r"^\W*which\s+(?:of\s+(?:the|these|those|our|your|its)\s+)?(?:\d[\d.,]*(?:\s?[a-z]+)?\s+)?([a-z][\w-]*)",
    re.I,
)
# words that only say "which one" (the generic nouns too: "the cheapest shipping option")
_QUESTION_WORDS = frozenset(
    "model models one ones version versions product products is are has have option options choice choices "
    "method methods way ways type types kind kinds variant variants item items thing things".split()
)
# words a row's key may hold beside the attribute's ("Battery capacity" for "the biggest battery",
# "Top speed" for "the fastest")
_MEASURE_WORDS = frozenset(
    "capacity size time level rating life length amount value volume top max maximum min minimum "
    "rated nominal typical average peak total list retail base starting standard".split()
)
_BRACKET = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class Asked:
    word: str  # the superlative as the answer labels it: "Longest", "Most expensive"
    direction: str  # "max" or "min"
    attribute: frozenset[str]  # the words of the attribute asked: the adjective's own, else the noun's
    noun: frozenset[str] = frozenset()  # the words of the noun after it ("charging time" of "the fastest …")


def asked(question: str) -> Asked | None:
    """The superlative the question asks and the attribute it asks it of, or None (none asked, two
    asked, or one that qualifies what the question asks for)."""
    m = _SUPERLATIVE.search(question)
    if m is None or len(_ONE.findall(question)) != 1 or not _ASKS.search(question):
        return None
    before = question[: m.start()].split()
    if m.group().lower().split()[0] not in _DETERMINERS and before and before[-1].lower() not in _LINKING:
        return None  # an adverb of another verb ("Which drone charges fastest?"), not the asked value
    if m.group("adj"):
        word = m.group("adj").lower()
        direction, own = _ADJECTIVES[word]
    elif m.group("what").lower() in _MOST_OF:
        what = m.group("what").lower()
        word, own = f"{m.group('most').lower()} {what}", _MOST_OF[what]
        direction = _direction_of(word)
    else:
        return None
    if (m.group("noun") or "").lower().split()[:1] == ["to"]:
        return None  # "the cheapest to run": a cost of doing something, not the price
    # the noun after it, but for a name ("the cheapest Stride") and words that only say "which one"
    noun = [w for w in (m.group("noun") or "").split() if _common(w) and w not in _QUESTION_WORDS]
    named = frozenset(content_words(" ".join(noun)))
    words = frozenset({own}) if own else named  # the adjective's own decides
    if not words:
        return None
    return Asked(word[:1].upper() + word[1:], direction, words, named)


def _common(word: str) -> bool:
    """A word of the noun after the superlative, not a name: lower-case, or an acronym in capitals
    ("the highest CADR", "the biggest SSD"), not "the cheapest Stride" nor a model's code ("B20")."""
    return word[:1].islower() or (word.isalpha() and word.isupper() and len(word) > 1)


def unknown_kind(
    question: str, counts: WordCounts | None, usable: Sequence[Scored], line: tuple[str, tuple[str, ...]]
) -> str:
    """For the superlative line answer() wrote, why it is refused when a word naming what the question
    compares is held by no passage of the store, or by no usable unit about a model or of the
    table's document ("car" of "Which is the cheapest car?" asked of e-bike documents); "" when the
    evidence holds every such word or when the counts are unknown. Such a question is about other
    things than the documents: the table row of the store's own models would answer it with a
    confident, wrong line."""
    ask = asked(question)
    if ask is None or counts is None:
        return ""
    kind = _compared(question, ask)
    # …in a unit about one of the store's models ("City E-Bike" in the Stride 3's headings) or of the
    # table's own document ("parcels" beside a shipping table), not a word in passing elsewhere
    # ("carry it inside the car" in a maintenance tip)
    about = [x for x in usable if x.scope or entities(x.text) or x.label in line[1]]
    held = STEMMER.stem_set(
        set().union(*(content_words(" ".join((*x.unit.path, *x.unit.header, x.text))) for x in about))
    )
    unknown = sorted(
        w
        for w in kind
        if not any(c.isdigit() for c in w) and (not counts[1].get(w) or not STEMMER.stem_set([w]) <= held)
    )
    if not unknown:
        return ""
    written = re.search(rf"\b{re.escape(unknown[0])}\b", question, re.I)
    word = written.group() if written else unknown[0]
    if counts[1].get(unknown[0]):  # the store says it, in passing ("carry it inside the car")
        return f"the evidence about the compared ones never mentions “{word}”"
    return f"no passage of the store mentions “{word}”"


def answer(question: str, usable: Sequence[Scored]) -> tuple[str, tuple[str, ...]] | None:
    """The table row (or column) holding the asked attribute's values and the one with the extreme
    value, as two bullets, or None (no superlative asked, no such row, values of different kinds, a
    tie)."""
    ask = asked(question)
    if ask is None or question_entities(question):  # "Is the Stride 3 the lightest?" is about one
        return None
    also = frozenset(content_words(question))  # a key may name what the question names ("Drone weight")
    every = _series(usable)
    # the noun names another row's attribute ("the fastest charging time": a time, not the speed row)
    if ask.noun and ask.noun != ask.attribute and any(_keyed([x.key], ask.noun) for x in every):
        return None
    keyed = [x for x in every if _keyed([x.key], ask.attribute, also)]
    kind = STEMMER.stem_set(_compared(question, ask))
    named = bool(kind) and any(kind <= _stems(n) for x in keyed for n in x.names)
    # a table or a comparison headed by what the question compares and by no one model ("Compare
    # Lumo e-readers", not "Verda M3 — robot lawn mower" nor a "Robot vacuum buying guide") says
    # where its values stand, injected in part or not: a table that does not say it (the
    # accessories) is then no answer
    said = bool(kind) and any(
        kind <= _stems(" ".join(x.unit.path))
        and not any(map(entities, x.unit.path))
        and (x.unit.kind == "row" or _COMPARING.search(" ".join(x.unit.path)))
        for x in usable
    )
    # a series of one name compares nothing (a model's own spec table, whose heading may well say
    # "mower"): it must not win over the comparison table for "Which mower has the longest run time?"
    fits = [
        (f, x)
        for x in keyed
        if x.whole and len(x.names) > 1 and _items(x, kind) and (f := _fit(x, kind, named)) > int(said)
    ]
    if not fits:
        return None
    x = max(fits, key=lambda fx: (fx[0], fx[1].score))[1]  # the best on it: unusable, no line
    # another table that says it compares what the question does, injected only in part, may hold
    # the extreme ("the cheapest accessory" with the covers' table a chunk of its own): no line
    if kind and any(
        not y.whole and y.table != x.table and _items(y, kind) and _fit(y, kind, named) == 2 for y in keyed
    ):
        return None
    qualified = _qualified(question, x, every)
    if qualified is None:
        return None
    by, kept = qualified
    values = [(n, c, sole_quantity(c)) for n, c in zip(x.names, x.cells, strict=True) if n in kept]
    best = _extreme([(n, c, q) for n, c, q in values if q is not None], ask.direction)
    if len(values) < 2 or any(q is None for *_, q in values) or best is None:
        return None
    quote = (
        x.quote
        if len(values) == len(x.names)
        else f"{x.key} — " + "; ".join(f"{n}: {c}" for n, c, _ in values)
    )
    lines = [*(f"- {cite(s.quote, s.label)}" for s in by), f"- {cite(quote, x.label)}"]
    return "\n".join([*lines, f"- **{ask.word}**: {cite(f'{best[0]} ({best[1]})', x.label)}"]), (x.label,)


# a heading that compares ("Compare Lumo e-readers", "Kestrel range at a glance")
_COMPARING = re.compile(r"\b(?:compar\w*|vs\.?|versus|line-?up|at a glance)\b", re.I)
_TableKey = tuple[str, int, tuple[str, ...], tuple[int, ...]]


def _joined(tables: dict[_TableKey, list[Scored]]) -> dict[_TableKey, list[Scored]]:
    """The tables' rows in document order, a table split between two chunks as one: the rows of
    the next part under the same header go on at the next place (core/answer/evidence.py _starts)."""
    out: dict[_TableKey, list[Scored]] = {}
    last: dict[tuple[str, tuple[str, ...]], _TableKey] = {}
    for key, rows in sorted(tables.items(), key=lambda kv: min(x.place for x in kv[1])):
        rows = sorted(rows, key=lambda x: x.place)
        before = last.get((key[0], key[2]))
        # only across two chunks (two tables of one chunk under one header stay two: "Manual
        # grinders", "Electric grinders"); a row both parts hold is read once
        if (
            before is not None
            and out[before][-1].place + 1 == rows[0].place
            and _chunk(out[before][-1]) != _chunk(rows[0])
        ):
            held = {x.unit.cells for x in out[before]}
            out[before] += [x for x in rows if x.unit.cells not in held]
            continue
        out[key] = rows
        last[key[0], key[2]] = key
    return out


def _chunk(x: Scored) -> int:
    """Which injected entry the unit is of (Scored.order is the entry's index × 100000 + its place)."""
    return x.order // 100000


STATED_SHARE = 0.8  # a sentence stating the superlative answers when it scores this share of the best


def stated(question: str, usable: Sequence[Scored]) -> Scored | None:
    """The sentence that says which one is the asked superlative, for a question no table's values
    answer ("Which is your cheapest thermostat?" when the price row was not retrieved: "…, the T6 is
    the simplest and cheapest choice"): it holds the superlative's word, names something, stands
    among what the question compares (its words or headings say "thermostat": a purifier's "It is
    also the heaviest" is no filter's) and scores at least STATED_SHARE of the best unit; None when
    none does."""
    ask = asked(question)
    if ask is None or not usable:
        return None
    said = re.compile(rf"\b{re.escape(ask.word.lower())}\b", re.I)
    kind = _stems(" ".join(_compared(question, ask)))
    best = max(x.score for x in usable)
    hits = [
        x
        for x in usable
        if x.unit.kind == "sentence"
        and x.score >= STATED_SHARE * best
        and said.search(x.text)
        and entities(x.text)
        and kind <= _stems(" ".join((*x.unit.path, x.text)))
    ]
    return max(hits, key=lambda x: x.score, default=None)


def _qualified(question: str, x: _Series, every: Sequence[_Series]) -> tuple[list[_Series], set[str]] | None:
    """The compared ones a quantity of the question leaves ("Which of the 18 V drills …": those whose
    voltage row says 18 V) and the rows (or columns) of x's table that say so; None when a quantity
    of the question is no value of that table (the qualifier cannot be read: a line over all of them
    would answer another question)."""
    kept, by = set(x.names), []
    for at, q in quantities(question):
        if _BOUND.search(question[:at]):
            return None  # "up to 20 kg", "under $150": a bound, not a value a row must state
        for s in every:
            if s.table != x.table or s is x or s.names != x.names:
                continue
            holds = {
                n for n, c in zip(s.names, s.cells, strict=True)
                if (v := sole_quantity(c)) is not None and _kind(v) == _kind(q) and _scaled(v) == _scaled(q)
            }  # fmt: skip
            if holds:
                kept &= holds
                by.append(s)
                break
        else:
            return None
    return by, kept


@dataclass(frozen=True)
class _Series:
    """One attribute's values across the compared ones, as a table row or column gives them."""

    key: str  # the attribute as the table names it: a row's first cell, a column's header
    names: tuple[str, ...]  # the compared ones
    cells: tuple[str, ...]  # their values, as written
    quote: str  # "key — name: value; …"
    label: str
    score: float
    about: str  # what the table says the compared ones are: its headings (and a column's first header)
    table: tuple[object, ...] = ()  # which table of the evidence it is from
    whole: bool = True  # every value of the table is in the evidence (a column: the table begun and ended)
    head: str = ""  # a column's table: its first header cell, what its rows are ("Battery")


def _series(usable: Sequence[Scored]) -> list[_Series]:
    """Every row of a comparison table (a column per compared one) and every column of a table
    with a row per compared one (whole when all its rows were injected, the table begun and ended in
    its chunk; a part still says what its rows are)."""
    out: list[_Series] = []
    tables: dict[_TableKey, list[Scored]] = {}
    for x in usable:
        if x.unit.kind != "row":
            continue
        u = x.unit
        pairs = list(zip(u.header[1:], (c.strip() for c in u.cells[1:]), strict=False))
        table = (x.label, u.block, u.header, u.heads)
        out.append(
            _Series(u.cells[0] if u.cells else "", tuple(n for n, _ in pairs), tuple(c for _, c in pairs),
                    u.row_text(), x.label, x.score, " ".join(u.path), table)
        )  # fmt: skip
        tables.setdefault(table, []).append(x)
    places = {(x.label, x.place) for x in usable}
    for table, rows in _joined(tables).items():
        first, label = rows[0].unit, rows[0].label
        if len(rows) < 2:
            continue
        # the whole table: every row injected, and it starts and ends in its chunk (a long table
        # goes on in the next chunk, under its header row again, and is whole when that chunk is
        # injected too), so a passage or its heading stands before it, and one after or the end
        # of a chunk where ingest says the table ends
        starts = (label, rows[0].place - 1) in places or len(first.heads) > 1
        ends = (label, rows[-1].place + 1) in places or rows[-1].closes
        together = rows[-1].place - rows[0].place == len(rows) - 1 and not any(x.condensed for x in rows)
        names = tuple(x.unit.cells[0].strip() for x in rows)
        about = " ".join((*first.path, first.header[0]))
        score = max(x.score for x in rows)
        for j in range(1, len(first.header)):
            cells = tuple(x.unit.cells[j].strip() if j < len(x.unit.cells) else "" for x in rows)
            quote = f"{first.header[j]} — " + "; ".join(
                f"{n}: {c}" for n, c in zip(names, cells, strict=True)
            )
            out.append(
                _Series(first.header[j], names, cells, quote, label, score, about, ("column", *table),
                        together and starts and ends, first.header[0])
            )  # fmt: skip
    return out


def _items(x: _Series, kind: frozenset[str]) -> bool:
    """x compares things: a comparison table's columns, or a column's rows when they name products
    ("B20", "Dustwise V5", "Pallet (Brisa 60 with stand)" among "Standard" and "Express") or its
    first header cell names what the question compares ("Kit"); not a table of fan speeds ("Sleep",
    "Turbo") asked which model is quietest."""
    if not x.head:
        return True
    return any(entities(n) for n in x.names) or (bool(kind) and kind <= _stems(x.head))


def _fit(x: _Series, kind: frozenset[str], named: bool) -> int:
    """How well what x compares is what the question compares (kind: its stems): 2 said so (the
    table's headings, or every name), 1 not said (allowed only when no table's names say it),
    0 only some of x's names say it."""
    if not kind:
        return 2
    says = [kind <= _stems(n) for n in x.names]
    if all(says) or kind <= _stems(x.about):
        return 2
    return 0 if any(says) or named else 1


def _stems(text: str) -> frozenset[str]:
    return STEMMER.stem_set(content_words(text))


def _compared(question: str, ask: Asked) -> set[str]:
    """The words naming what the question compares: the noun after the superlative ("the cheapest
    car") and the one after "Which" ("Which laptop has …"), not the question's other words ("What
    is the heaviest parcel you can send?"), nor the attribute, nor words that only say "which one"."""
    which = _WHICH.match(question)
    return (
        (ask.noun | content_words(which.group(1) if which else ""))
        - ask.attribute
        - content_words(ask.word)
        - _QUESTION_WORDS
        - FRAMING
        - ATTRIBUTE_OF.keys()
    )


def _keyed(key: Sequence[str], attribute: frozenset[str], also: frozenset[str] = frozenset()) -> bool:
    """The key names the attribute and nothing else (brackets, measure words and the words also
    given aside): "Range (Eco)" and "Battery capacity" name range and battery, "Max payload weight"
    is no weight."""
    words = content_words(_BRACKET.sub(" ", " ".join(key)))
    named = {ATTRIBUTE_OF.get(w, w)[:5] for w in words}
    asked = {a[:5] for a in attribute}
    return bool(named & asked) and all(w[:5] in asked or w in _MEASURE_WORDS or w in also for w in words)


def _extreme(values: Sequence[tuple[str, str, Quantity]], direction: str) -> tuple[str, str] | None:
    """The one (name, value as written) with the largest or smallest value, when all are of one
    kind and no other holds the same value."""
    if len({_kind(q) for *_, q in values}) != 1:
        return None
    pick = max if direction == "max" else min
    top = pick(_scaled(q) for *_, q in values)
    held = [(n, c) for n, c, q in values if _scaled(q) == top]
    return held[0] if len(held) == 1 else None


# units of one measure written at another scale ("185 g" and "1.2 kg" in one weight row): each unit's
# measure and how many of its base unit it is
_SCALES = {
    unit: (base, Decimal(factor))
    for base, units in {
        "g": {"mg": "0.001", "g": "1", "kg": "1000", "t": "1000000"},
        "m": {"mm": "0.001", "cm": "0.01", "m": "1", "km": "1000"},
        "l": {"ml": "0.001", "mL": "0.001", "cl": "0.01", "l": "1", "L": "1"},
        "wh": {"Wh": "1", "kWh": "1000"},
        "ah": {"mAh": "0.001", "Ah": "1"},
        "w": {"W": "1", "kW": "1000"},
        "b": {"KB": "1", "kB": "1", "MB": "1000", "GB": "1000000", "TB": "1000000000"},
    }.items()
    for unit, factor in units.items()
}


def _scaled(q: Quantity) -> Decimal:
    """The quantity's value in its measure's base unit (as written when its unit has no scale)."""
    return q.value * _SCALES[q.unit][1] if q.unit in _SCALES else q.value


def _kind(q: Quantity) -> tuple[str, str, str, str]:
    """What must match for two quantities to be compared: their kind, a unit word's plural read as
    its singular ("1 year" and "2 years"), a unit of one measure at any scale ("g" and "kg")."""
    before, unit, rate, qualifier = q.kind
    unit = _SCALES[unit][0] if unit in _SCALES else unit
    return before, unit[:-1] if len(unit) > 3 and unit.endswith("s") else unit, rate, qualifier


_LINE = re.compile(r"^\W*\*\*(?P<word>[A-Z][a-z]+(?: [a-z]+)?)\*\*: (?P<rest>.+)")
_PARENS = re.compile(r" \(([^()]+)\)")
_PAIR = re.compile(r"(?:—|;)\s*([^:;—]+):\s*([^;]+)")


def verify(raw: str, answer: Sequence[str]) -> bool | None:
    """Whether a superlative line the answerer wrote holds (None: raw, the sentence as written with
    its **bold** label, is not one): another sentence of the answer quotes a row whose key names the
    label's own attribute (when it has one), whose "name: value" pairs hold the named one's value,
    every value of one kind, and the named one's is the extreme the label asks for."""
    m = _LINE.match(raw.strip())
    word = m.group("word").lower() if m else ""
    if m is None or word.split()[0] not in {*_ADJECTIVES, "most", "least"}:
        return None
    # "Name (value)": the value in the first brackets that close a quoted pair ("Pallet (Brisa 60
    # with stand) ($49.00)" names a pallet with brackets of its own)
    rest = m.group("rest")
    named = [(rest[: b.start()].strip(), b.group(1).strip()) for b in _PARENS.finditer(rest)]
    own = _ADJECTIVES[word][1] if word in _ADJECTIVES else _MOST_OF.get(word.split(" ", 1)[-1], "")
    direction = _ADJECTIVES[word][0] if word in _ADJECTIVES else _direction_of(word)
    for sentence in answer:
        key, pairs = _quoted(sentence)
        pair = next((p for p in named if p in pairs), None)
        if pair is None or (own and not _keyed([key], frozenset({own}))):
            continue
        values = [(n, v, sole_quantity(v)) for n, v in pairs]
        if any(q is None for *_, q in values):
            return False
        return _extreme([(n, v, q) for n, v, q in values if q is not None], direction) == pair
    return False


def quotes_table(sentence: str, rows: Sequence[Unit]) -> bool:
    """The sentence, read without its citation, quotes a table as answer() writes it, "key — name:
    value; …": a row's key and its cells under their column headers ("Weight — Talon D18: 1.45 kg;
    Talon D24: 2.1 kg", some of them), or a column's header and its cells beside each row's name
    ("Weight — B20: 0.3 kg; B40: 0.55 kg"); each value is the one rows give."""
    key, pairs = _quoted(sentence)
    held: set[tuple[str, str, str]] = set()
    for u in rows:
        if u.kind != "row" or not u.cells:
            continue
        for j in range(1, min(len(u.cells), len(u.header))):
            name, head, cell = u.cells[0].strip(), u.header[j].strip(), u.cells[j].strip()
            held |= {(name, head, cell), (head, name, cell)}
    return len(pairs) >= 1 and all((key.strip(), n, v) in held for n, v in pairs)


def _quoted(sentence: str) -> tuple[str, list[tuple[str, str]]]:
    """A quoted row or column, "key — name: value; …", as its key and its (name, value) pairs."""
    key, _, rest = sentence.partition(" — ")
    return key, [(n.strip(), v.strip().rstrip(".")) for n, v in _PAIR.findall(" — " + rest)] if rest else []


def _direction_of(word: str) -> str:
    """The direction of "most expensive", "least noisy"."""
    most, what = word.split(" ", 1)
    up = _UP.get(what, "max")
    return up if most == "most" else ("min" if up == "max" else "max")
