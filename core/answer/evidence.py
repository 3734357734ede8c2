"""The injected evidence as scored units: each sentence, list item and table row with its
relevance to the question, its scope (the entities it stands under) and its conflicts (the other
entities it is about when the question names one)."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.answer.clauses import asked_clauses
from core.answer.qualified import asked_part
from core.context.columns import asked_columns
from core.context.knowledge import citation_label
from core.context.units import Unit, parse
from core.query.answer_type import expected_type, stating
from core.query.attribute import asks_attribute
from core.query.entities import (
    conflicts,
    entities,
    family,
    family_named,
    heading_entities,
    matches,
    question_entities,
    question_family_names,
    siblings,
    small_names,
    spans,
    subject_entities,
    written,
    written_in,
)
from core.query.measure import measured
from core.query.parts import parts_for
from core.scoring import SentenceScorer, acronyms_of, spelled_out
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, CONDITION_OPENERS, STOP_WORDS, content_words
from core.types import Fate, LedgerEntry

SHORT_WORDS = 5  # a sentence this short ("Released 2024-08-05.") is shown with its heading, like an item
_DIGIT = re.compile(r"\d")
# a question that asks which one ("Which firmware release added …?"): the answer is the name a
# unit stands under, so the unit is shown with that heading (unless the question names it)
_SEEKS_NAME = re.compile(
    r"^\W*(?:(?:in|on|with|from|since|by) )?(?:which|what (?:version|release|model|revision|edition))\b", re.I
)
PART_WEIGHT = 0.6  # a part's own relevance in its score (the rest: the whole question's)
ILLUSTRATION = 0.1  # a sentence of an example ranks below the rule it illustrates (units.Unit.illustrative)


@dataclass(frozen=True)
class Scored:
    """One evidence unit scored for the question."""

    unit: Unit
    text: str  # as the answer shows it (a row narrowed to the asked columns)
    source: str
    label: str  # its citation
    score: float
    order: int  # document order across the injected entries
    scope: frozenset[str]  # the entities it stands under
    conflict: frozenset[str]  # the other entities it is about (empty: usable)
    condensed: bool = False  # its chunk was injected in part (summarised or truncated)
    parts: tuple[float, ...] = ()  # its score for each part of a question that asks several things
    lead: str = ""  # a list item's lead-in sentence ("…, provided that:"), which is no unit of its own
    listed: int = 0  # a list item's list: how many items it has in its chunk
    place: int = 0  # its place in its document's text as injected: consecutive units differ by one,
    # across two consecutive chunks too when the first ends with a list's lead-in (_starts)
    around: frozenset[str] = frozenset()  # the entities of every heading above it and of its title
    closes: bool = False  # a row ending a chunk injected whole whose table ingest says ends there

    @property
    def best(self) -> float:
        """Its score for the question or, if higher, for one of its parts."""
        return max(self.score, *self.parts) if self.parts else self.score


@dataclass(frozen=True)
class Evidence:
    """The question's scored units; the eval replays answer thresholds on one scoring."""

    question: str
    query_type: str
    wanted: frozenset[str]
    units: tuple[Scored, ...]
    parts: tuple[str, ...] = ()  # the question's parts when it asks several things (Scored.parts)
    own: bool = False  # it asks for an attribute of what it names (core/query/attribute.py)


def score_units(
    question: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    query_type: str = "factual",
    weights: Mapping[str, float] | None = None,
    lead_ins: bool = False,
) -> Evidence:
    """Every usable unit of the injected evidence, scored for the question (weights: its words'
    rarity; lead_ins: a list's lead-in that says something of its own is a unit too, see _leads)."""
    asked = parts_for(question, query_type)
    pool: list[tuple[Unit, str, LedgerEntry, frozenset[str], int]] = []
    arounds: list[frozenset[str]] = []  # pool index → Scored.around
    leads: dict[int, tuple[str, int]] = {}  # pool index → the lead-in of its list and its items
    places: list[tuple[int, bool]] = []  # pool index → Scored.place, Scored.closes
    referents: list[Referent] = []  # pool index → what its opening pronoun refers to
    named_leads: list[str] = []  # pool index → its list's lead-in when that names the asked thing
    seeks = bool(_SEEKS_NAME.search(question))  # "Which release added …?"
    parsed_of = {n: _parsed(e) for n, e in enumerate(entries) if not e.suspicious}
    wanted = _wanted(question, entries, parsed_of)
    own = asks_attribute(question, wanted)
    starts = _starts(entries, parsed_of)
    known, labels = _identities(entries, parsed_of)
    for n, e in enumerate(entries):
        if n not in parsed_of:  # quarantined: none of a flagged passage's sentences is ever quoted
            continue
        title_scope = _title_scope(e, parsed_of[n], wanted)
        parsed = [*(before := starts[n][1]), *parsed_of[n]]  # before: the lead-in it goes on from
        for i, u in enumerate(parsed[len(before) :], len(before)):
            usable = _usable(u, question) or (lead_ins and _leads(parsed, i, question))
            if not usable or (own and matches(wanted, labels.get((n, u.position), set()))):
                continue
            text, scope = _narrow(u, wanted, title_scope, seeks, question, query_type)
            lead = _lead_in(parsed, i) if u.kind == "item" else ""
            # a list stands under the models its lead-in names as under a heading ("For the M30 and
            # M5:"; not "Compared with the Nib 3:"): the M3's winter steps are not the M30's
            under = heading_entities(lead) if wanted else set()
            pool.append((u, text, e, frozenset(scope | under), n * 100000 + u.position))
            named_leads.append(lead if under and matches(wanted, under) else "")
            from_start = e.fate in (Fate.KEPT, Fate.TRUNCATED)
            referents.append(_antecedent(parsed, i, e.title, from_start) if wanted else Referent())
            arounds.append(
                frozenset(title_scope.union(known[e.source], under, *(_names_in(h, wanted) for h in u.path)))
            )
            places.append((starts[n][0] + u.position, _closes(e, u, parsed)))
            if u.kind == "item":
                leads[len(pool) - 1] = (lead, _list_size(parsed, u))
    if not pool:
        return Evidence(question, query_type, wanted, (), asked, own)
    clashes = _clashes(pool, arounds, wanted, own, referents, question)
    bare = [u.text if u.kind == "item" else text for u, text, *_ in pool]
    contexts = _contexts(pool, bare, arounds, wanted, named_leads, referents)
    sims, by_part = _relevance(contexts, pool, bare, question, asked, wanted, scorer, weights)
    units = tuple(
        Scored(u, text, e.source, citation_label(e.source, e.page), float(sims[i]), order, scope, clashes[i],
               e.fate != Fate.KEPT, tuple(float(p[i]) for p in by_part), *leads.get(i, ("", 0)), places[i][0], arounds[i],
               places[i][1])
        for i, (u, text, e, scope, order) in enumerate(pool)
    )  # fmt: skip
    return Evidence(question, query_type, wanted, units, asked, own)


def _relevance(
    contexts: Sequence[str],
    pool: Sequence[tuple[Unit, str, LedgerEntry, frozenset[str], int]],
    bare: Sequence[str],
    question: str,
    asked: Sequence[str],
    wanted: frozenset[str],
    scorer: SentenceScorer,
    weights: Mapping[str, float] | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each unit's relevance to the question, and to each part it asks (read with the whole
    question, which carries the subject "… prevent it" leans on)."""
    plain = [u for u, *_ in pool]
    shows = ILLUSTRATION * np.array(_illustrations(pool, question), dtype=np.float32)

    def relevance(query: str) -> np.ndarray:
        sims = 0.75 * scorer.relevance(contexts, query) + 0.25 * _stem_overlap(contexts, query, weights)
        return sims + _lookup_bonus(plain, bare, query, wanted) - shows

    sims = relevance(question)
    return sims, [PART_WEIGHT * relevance(part) + (1 - PART_WEIGHT) * sims for part in asked]


_FIGURE = re.compile(r"(?<!\w)\d+(?:[.,]\d+)*")  # a figure, not a model code's digit ("ArmX2")
_NAME = re.compile(r"\b[A-Z][\w-]*")


def _illustrations(
    pool: Sequence[tuple[Unit, str, LedgerEntry, frozenset[str], int]], question: str
) -> list[bool]:
    """Which units illustrate a rule with a case the question does not ask about: a sentence of an
    example (units.Unit.illustrative) whose paragraph shares no figure with the question (one
    quoting "$1,000" or "1000" asks about the case that uses it; a model code's digits are no
    figure) and names nothing the question names that only the document's examples name ("the
    Premium plan", asked, where the rule speaks of the Standard plan)."""
    figures = {f.replace(",", "") for f in _FIGURE.findall(question)}
    # the question's capitalised words, but for a first word that is only capitalised ("How", "Which")
    names = {w for w in _NAME.findall(question) if not question.startswith(w) or w.lower() not in STOP_WORDS}
    plain: dict[str, set[str]] = {}  # per source: the names its units that are no example name
    for u, _, e, *_ in pool:
        if not u.illustrative:
            plain.setdefault(e.source, set()).update(_NAME.findall(u.text))
    lines: dict[int, list[str]] = {}  # per entry: its injected text's lines, split once
    out = []
    for u, _, e, *_ in pool:
        if not u.illustrative:
            out.append(False)
            continue
        if id(e) not in lines:
            lines[id(e)] = e.injected_text.split("\n")
        line = lines[id(e)][u.line] if u.line >= 0 else ""
        case = {f.replace(",", "") for f in _FIGURE.findall(line)} & figures or (
            names & set(_NAME.findall(line)) - plain.get(e.source, set())
        )
        out.append(not case)
    return out


def _clashes(
    pool: Sequence[tuple[Unit, str, LedgerEntry, frozenset[str], int]],
    arounds: Sequence[frozenset[str]],
    wanted: frozenset[str],
    own: bool,
    referents: Sequence[Referent],
    question: str,
) -> list[frozenset[str]]:
    """Each unit's conflicts (core/query/entities.conflicts). The things the evidence stands under
    are its subjects: a unit naming one of them ("Batteries in the Rover M1 …") is about it, where a
    code it names that heads nothing ("IP66") is a value. A sentence naming nothing and opening with
    a pronoun names what it refers to ("The M5 weighs 13.6 kg. Its wheels …": the M5's wheels). Asked
    for an attribute of what it names, a table row about another thing is that thing's (_other_subject)."""
    subjects = frozenset().union(*(scope for _, _, _, scope, _ in pool))
    said = STEMMER.stem_set(content_words(question)) if own and wanted else None
    return [
        frozenset(
            conflicts(
                set(wanted),
                scope,
                subject_entities(text) | written_in(text, wanted) | referent.names,
                around,
                own,
                subjects,
            )
        )
        | (_other_subject(u, wanted, said) if said is not None else frozenset())
        for (u, text, _, scope, _), around, referent in zip(pool, arounds, referents, strict=True)
    ]


def _other_subject(u: Unit, wanted: frozenset[str], said: frozenset[str]) -> frozenset[str]:
    """A table row about another thing that names the asked one only as a value: asked the price
    of the Verda M3 Pro, "Razor blade set | BL-9 | Fits: M3, M3 Pro, M30 | €19.90" is the blade
    set's price (its subject, returned), where "Battery 3.0 Ah | … | M3 Pro | €99" answers "the
    price of the M3 Pro battery", whose words (said: the question's stems) name it."""
    if u.kind != "row" or len(u.cells) < 2 or not (subject := u.cells[0].strip()):
        return frozenset()
    if matches(wanted, entities(subject)) or not matches(wanted, entities(" ".join(u.cells[1:]))):
        return frozenset()
    if STEMMER.stem_set(content_words(subject)) & said:
        return frozenset()
    return frozenset({subject})


# a sentence whose subject is a pronoun: it speaks of what the sentence before it named
_PRONOUN_SUBJECT = re.compile(r"(?:It|Its|They|Their|This|These|He|She|His|Her)\b")


@dataclass(frozen=True)
class Referent:
    """What a sentence opening with a pronoun is about: the entities and their names as written."""

    names: frozenset[str] = frozenset()
    written: str = ""


def _antecedent(parsed: Sequence[Unit], i: int, title: str, from_start: bool) -> Referent:
    """What a sentence opening with a pronoun refers to: the entities the nearest sentence before it
    names that does not open with a pronoun itself (one that does, "It needs a C-wire; unlike the
    T4 Pro, it …", speaks of the same thing). A sentence naming something itself is about that
    ("Its successor, the T4 Pro, …"), unless it names it after a contrast ("unlike the T4 Pro, it
    …"). In a chunk injected from its start, a paragraph opening with a pronoun goes on about the
    paragraph before it; one that opens a chunk of a page without headings (from_start: injected
    from its start), about what the page's title names ("t40" of t40.txt, whose first paragraph
    named it)."""
    u = parsed[i]
    if u.kind != "sentence" or not _PRONOUN_SUBJECT.match(u.text):
        return Referent()
    last = u
    for prev in reversed(parsed[:i]):
        if prev.kind != "sentence" or prev.path != u.path:
            return Referent()
        if prev.line != last.line and not (from_start and _PRONOUN_SUBJECT.match(last.text)):
            return Referent()
        last = prev
        if not _PRONOUN_SUBJECT.match(prev.text) and (found := written(prev.text)):
            return _unless_another(u.text, _referent(found))
    if from_start and not u.path and last is parsed[0] and _PRONOUN_SUBJECT.match(last.text):
        return _unless_another(u.text, _referent(written(title)))
    return Referent()


def _unless_another(text: str, ref: Referent) -> Referent:
    """No referent for a sentence that names another of the referent's family before any contrast
    ("Its successor, the T4 Pro, adds …" after the T4: about the T4 Pro), where one naming it after
    a contrast ("unlike the T4 Pro, it …") or naming only things of other families ("It supports
    10 RV-1 valves") is still about the referent."""
    families = {family(n) for n in ref.names}
    others = [at for at, _, norm in spans(text) if norm not in ref.names and family(norm) in families]
    if others and not _CONTRAST.search(text[: others[0]]):
        return Referent()
    return ref


# what a sentence names after one of these is set against its subject ("unlike the T4 Pro, it …")
_CONTRAST = re.compile(r"\b(?:unlike|than|like|compared\s+(?:with|to)|versus|vs\.?|instead\s+of)\b", re.I)


def _referent(found: Sequence[tuple[str, str]]) -> Referent:
    return Referent(frozenset(norm for _, norm in found), " ".join(dict.fromkeys(w for w, _ in found)))


def _contexts(
    pool: Sequence[tuple[Unit, str, LedgerEntry, frozenset[str], int]],
    bare: Sequence[str],
    arounds: Sequence[frozenset[str]],
    wanted: frozenset[str],
    named_leads: Sequence[str],
    referents: Sequence[Referent],
) -> list[str]:
    """Each unit as it is scored: under its last two headings, and the one naming the asked thing
    (a list item: under its lead-in too when that names it; a sentence opening with a pronoun: under
    the names it refers to when they are the asked thing's)."""
    return [
        " › ".join((*_named(e, u, around, wanted), *u.path[-2:], *((lead,) if lead else ()),
                    *((ref.written,) if matches(wanted, ref.names) and not entities(b) else ()), b))
        for (u, _, e, *_), b, around, lead, ref in zip(pool, bare, arounds, named_leads, referents, strict=True)
    ]  # fmt: skip


def _named(e: LedgerEntry, u: Unit, around: frozenset[str], wanted: frozenset[str]) -> tuple[str, ...]:
    """The title or heading that names the asked thing, for a unit that stands under it below the two
    headings it is read with ("Vehicle weight: 118 kg" under "SPECIFICATIONS" of the Rover M1's sheet)."""
    if not wanted or not matches(wanted, around) or matches(wanted, entities(" ".join(u.path[-2:]))):
        return ()
    named = [h for h in (e.title, *u.path[:-2]) if h and matches(wanted, entities(h))]
    return (named[-1],) if named else ()


def _parsed(e: LedgerEntry) -> list[Unit]:
    """The units of an entry's injected text, under its heading path."""
    base = tuple(p for p in e.heading_path.split(" › ") if p) if e.heading_path else ()
    levels = tuple(int(v) for v in e.heading_levels.split(",") if v.isdigit())
    return parse(e.injected_text, base, levels)


# words a title names a document by, not a model ("Kestrel FAQ", "Lumo Guide")
_DOCUMENT_WORDS = frozenset(
    "guide guides faq faqs manual manuals support help handbook overview accessories parts care plans plan "
    "service services warranty setup troubleshooting notes specifications specs range family lineup line series "
    "models products comparison compare app apps store news blog policy policies".split()
)
_TITLE_END = re.compile(r"[ \u00a0]+[-–—:|][ \u00a0]+|:")


def _title_scope(e: LedgerEntry, units: Sequence[Unit], wanted: frozenset[str] = frozenset()) -> set[str]:
    """The entities of the entry's document title (none when the title is only the file's name) and
    the asked names without a digit it writes; for a title naming a model without a digit, the model
    when a heading of the page compares it with one of its family ("KESTREL PET - PRODUCT SHEET"
    under "What is different from the Kestrel 5": the Kestrel Pet)."""
    title = e.title if e.title and e.title != _stem(e.source) else ""
    found = _names_in(title, wanted)
    if found or not title:
        return found
    name = _TITLE_END.split(title, 1)[0].split()
    if len(name) != 2 or name[1].lower() in _DOCUMENT_WORDS:  # "Kestrel Care Guide", "KESTREL FAQ"
        return set()
    compared = {x for u in units for h in u.path for x in entities(h) - heading_entities(h)}
    return family_named(" ".join(name), compared) if compared else set()


def _wanted(
    question: str, entries: Sequence[LedgerEntry], parsed_of: dict[int, list[Unit]]
) -> frozenset[str]:
    """The entities the question names: as the name rule reads them, else those it writes in lower
    case that the injected evidence names ("the nib 30": in its titles, headings and units), else
    the names without a digit it writes that the evidence gives as models of a family it names
    (_given_models: "the Vela Cargo" beside the Vela 3)."""
    named = question_entities(question)
    if named:
        return frozenset(named)

    @functools.cache
    def known() -> set[str]:
        texts = [e.title for e in entries] + [
            " › ".join((*u.path, u.text)) for us in parsed_of.values() for u in us
        ]
        return set().union(*map(entities, texts))

    small = small_names(question, known)
    if small:
        return frozenset(small)
    asked = question_family_names(question, known)
    return frozenset(asked & _given_models(asked, entries, parsed_of)) if asked else frozenset()


def _given_models(
    asked: set[str], entries: Sequence[LedgerEntry], parsed_of: dict[int, list[Unit]]
) -> set[str]:
    """Those of the asked names without a digit the evidence gives as a model: a document titled by
    the name alone ("Vela Cargo", "KESTREL PET - PRODUCT SHEET"), or a table's column or row headed
    by it (a lineup: "| | Vela 3 | Vela Cargo |"); not a name written only in passing or as part of
    another ("Kestrel Care Plans", "Kestrel Guard subscription")."""
    cells = {_TITLE_END.split(e.title, 1)[0] for e in entries if e.title}
    cells |= {
        c for us in parsed_of.values() for u in us if u.kind == "row" for c in (*u.header, *u.cells[:1])
    }
    return {n for c in cells if c.strip() for n in family_named(c, asked) & asked}


def _names_in(text: str, wanted: frozenset[str]) -> set[str]:
    """The text's entities and the asked names without a digit it writes (entities.written_in)."""
    return entities(text) | written_in(text, wanted)


def _same_table(before: Sequence[Unit], after: Sequence[Unit]) -> bool:
    """The units of a chunk end with a table's row and the next chunk's begin with a row under the
    same header: one table split between them."""
    return (
        bool(before and after)
        and before[-1].kind == after[0].kind == "row"
        and before[-1].header == after[0].header
    )


def _closes(e: LedgerEntry, u: Unit, parsed: Sequence[Unit]) -> bool:
    """The unit is a table row that ends its chunk, injected whole, and ingest says the table does
    not go on in the next chunk: nothing of the table is left out after it."""
    return u.kind == "row" and e.fate == Fate.KEPT and e.table_goes_on is False and u is parsed[-1]


def _identities(
    entries: Sequence[LedgerEntry], parsed_of: dict[int, list[Unit]]
) -> tuple[dict[str, set[str]], dict[tuple[int, int], set[str]]]:
    """What each source says it is besides its title, and the fields that say it (entry, position →
    names): the names its preamble (the items its first chunk opens with, under the title alone)
    gives as an identifying field's whole value ("Incident ID: INC-2024-0193", "Model: ArmX2"), so a
    postmortem titled by the arm it is about is also about the incident. For a question asking what
    that thing has, such a field is the document's label, as a heading is, and no answer. A name
    inside a longer value ("250 W at 48 V (for an ArmX2)") is a mention, not what the document is."""
    known: dict[str, set[str]] = {e.source: set() for e in entries}
    labels: dict[tuple[int, int], set[str]] = {}
    for n, units in parsed_of.items():
        if entries[n].chunk_index != 0:
            continue
        for u in itertools.takewhile(lambda u: u.kind == "item" and len(u.path) <= 1, units):
            if found := _identity(u):
                labels[n, u.position] = found
                known[entries[n].source] |= found
    return known, labels


# a field whose key's every word says it identifies the document ("Incident ID", "Model No.", "Part
# number"), not one that relates it to something else ("Compatible model: ArmX2", "Replaces: ArmX1")
_IDENTIFYING = frozenset(
    "id identifier number no code name model sku reference ref part serial document incident ticket case".split()
)


def _identity(u: Unit) -> set[str]:
    """The names a field gives as its whole value (≤ 3 words) when its key identifies."""
    key = fact_key(u).lower().replace(".", " ").split()
    value = u.text.split(":", 1)[1] if key and _IDENTIFYING.issuperset(key) else ""
    return entities(value) if 0 < len(value.split()) <= 3 else set()


def _starts(
    entries: Sequence[LedgerEntry], parsed_of: dict[int, list[Unit]]
) -> dict[int, tuple[int, list[Unit]]]:
    """Each entry's first place and the last unit of the chunk it goes on from: an entry injected
    from its start (kept or truncated) that is the next chunk of an entry kept whole, which ends
    with a list's lead-in ("The main reasons:"), goes on from there, so the list is read with its
    lead-in and the passage before it; any other starts a place of its own (entry n at n × 100000).
    A table goes on the same way in the next chunk when ingest split it there (under its header
    row again): both injected, its rows are read as one table. No other text joins two chunks:
    prose would run on into whatever the next chunk holds (a page's footer)."""
    at = {
        (e.source, e.chunk_index): n
        for n, e in enumerate(entries)
        if n in parsed_of and e.chunk_index is not None
    }
    out: dict[int, tuple[int, list[Unit]]] = {}

    def start(n: int) -> tuple[int, list[Unit]]:
        if n not in out:
            e = entries[n]
            prev = at.get((e.source, e.chunk_index - 1)) if e.chunk_index else None
            out[n] = (n * 100000, [])
            if prev is not None and entries[prev].fate == Fate.KEPT and e.fate in (Fate.KEPT, Fate.TRUNCATED):
                units = parsed_of[prev]
                if units and units[-1].kind == "sentence" and units[-1].text.endswith(":"):
                    out[n] = (start(prev)[0] + units[-1].position + 1, units[-1:])
                elif entries[prev].table_goes_on and _same_table(units, parsed_of[n]):
                    out[n] = (start(prev)[0] + units[-1].position + 1, [])
        return out[n]

    for n in parsed_of:
        start(n)
    return out


def _lead_in(parsed: Sequence[Unit], i: int) -> str:
    """The sentence ending with ":" right before the list that item i belongs to ("" when none)."""
    first = i
    while first > 0 and parsed[first - 1].kind == "item" and parsed[first - 1].block == parsed[i].block:
        first -= 1
    before = parsed[first - 1] if first > 0 else None
    if before is None or before.kind != "sentence" or not before.text.endswith(":"):
        return ""
    if before.path != parsed[i].path:  # the last line of the section before is not this list's
        return ""
    return before.text


LEAD_WORDS = 8  # a lead-in this long is a clause of its own, not a title ("To clear it:")


def _leads(parsed: Sequence[Unit], i: int, question: str) -> bool:
    """Unit i is a list's lead-in that says something of its own ("Customers may return any
    product within 30 days of delivery for a refund, provided that:"), and every item of the list
    it introduces can be quoted with it (one-word items are no conditions to show)."""
    items = _list_after(parsed, i)
    return (
        len(parsed[i].text.split()) >= LEAD_WORDS and bool(items) and all(_usable(v, question) for v in items)
    )


def _list_after(parsed: Sequence[Unit], i: int) -> list[Unit]:
    """The items of the list that sentence i introduces: it ends with a colon and the list's first
    item follows it under the same headings (empty: it introduces none)."""
    u = parsed[i]
    if u.kind != "sentence" or not u.text.endswith(":"):
        return []
    items: list[Unit] = []
    for v in parsed[i + 1 :]:
        if v.kind != "item" or v.path != u.path or (items and v.block != items[0].block):
            break
        items.append(v)
    return items


def _list_size(parsed: Sequence[Unit], item: Unit) -> int:
    """How many items the list of this item has in its chunk."""
    return sum(v.kind == "item" and v.block == item.block for v in parsed)


def _stem(source: str) -> str:
    return source.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _usable(u: Unit, question: str = "") -> bool:
    """A unit that can answer (the question, when given: _aside)."""
    if question and _aside(u, question):
        return False
    words = len(u.text.split())
    if u.kind == "sentence" and ((words < 3 and not _DIGIT.search(u.text)) or u.text.endswith(":")):
        return False  # a fragment; "Released 2024-08-05." is a fact
    return words >= 2  # a flagged chunk is skipped whole (score_units): no unit is checked again here


# a sentence about its own document that lists what it tells ("This policy explains when customers
# can return products …, how much is refunded, and how long it takes"): a table of contents, no value
_ABOUT_ITSELF = re.compile(
    r"^(?:this|the present) (?:[\w-]+ ){0,2}?(?:policy|document|guide|page|section|article|manual|chapter|faq|"
    r"procedure|notice|report|handbook|standard|agreement|guideline|specification|sheet|datasheet|overview|note)s? "
    r"(?:explains|describes|covers|sets out|outlines|defines|summari[sz]es|details|lists|tells|shows) "
    r"(?:when|how|what|which|why|where|whether|who)\b",
    re.IGNORECASE,
)
# a condition after that object says when ("… how to shut down line 4 when a fire alarm sounds")
_CONDITION = re.compile(rf"{CONDITION_OPENERS}\b", re.IGNORECASE)


def _aside(u: Unit, question: str) -> bool:
    """A sentence listing what its document tells, for a question asking for a number or a time it
    does not state ("How long does a refund take?"): no answer to it. A question about what the
    document covers asks for no value, and one asking who may be answered by a role it names
    ("… explains who approves …" is not read as a name), so both still get it."""
    head = _ABOUT_ITSELF.match(u.text) if u.kind == "sentence" else None
    kind = expected_type(question) if head else None
    if kind not in ("number", "time"):
        return False
    if kind == "time" and _CONDITION.search(u.text, head.end()):  # type: ignore[union-attr]
        return False
    return not stating(kind, [u.text], question)[0]


def _narrow(
    u: Unit,
    wanted: frozenset[str],
    title_scope: set[str],
    seeks: bool = False,
    question: str = "",
    query_type: str = "factual",
) -> tuple[str, set[str]]:
    """The unit's text as shown and its scope entities: a row whose columns are entities keeps
    only the asked columns, a wide row only the columns whose headings the question names
    (core/context/columns.py), a sentence giving each model its value only the asked model's
    clauses (core/answer/clauses.py), a field giving a value per qualifier only the asked qualifier's
    ("Price: … (EU) · … (UK)" asked for the UK, unless the question compares;
    core/answer/qualified.py); the scope is the nearest heading (or the title) that names entities.
    A list item or short sentence right under that heading is shown with it ("Firmware 4.1.3 — …");
    so is any unit that does not name its heading's model itself when the question seeks a name
    (seeks: it asks "which …") and that model is not one the question names ("Firmware 4.2.0 — Fixed
    … on the ArmX3" for "Which firmware fixed the ArmX3's brake?")."""
    if u.kind == "row":
        columns = {i: found for i, h in enumerate(u.header) if i and (found := _names_in(h, wanted))}
        if columns:
            asked = [i for i, ents in columns.items() if matches(wanted, ents)]
            if asked:
                return u.row_text(asked), set().union(*(columns[i] for i in asked))
            return u.text, set().union(*columns.values())
        subject = entities(u.cells[0]) if u.cells else set()
        if not subject and u.cells and not matches(wanted, title_scope.union(*map(entities, u.path))):
            # a lineup's model named without a digit ("Lumo Kids" beside the asked "Lumo 6"); not a
            # row under the asked model's own page or heading ("Lumo Care" of the Lumo 6's plans)
            subject = family_named(u.cells[0], wanted)
        wide = asked_columns(u.header, question) if len(u.cells) == len(u.header) else []
        narrowed = u.row_text(wide) if wide else None
        if subject:
            return narrowed or u.text, subject
    else:
        narrowed = asked_clauses(u.text, wanted)
        if narrowed is None and query_type != "comparison":  # a comparison asks for both
            narrowed = asked_part(u.text, question)
    text = narrowed or u.text
    for heading in reversed(u.path):
        found = heading_entities(heading, wanted)  # not "Differences from the Nib 3": the page's model
        if found:
            # a list item (or a short sentence) under "Firmware 4.1.3" says which version only through its heading
            # and any unit under a named heading answers a question that seeks the name
            qualified = (
                (seeks and not matches(wanted, found) and not siblings(found, entities(u.text)))
                or (u.kind == "item" or len(u.text.split()) <= SHORT_WORDS)
                and heading == u.path[-1]
            ) and not matches(found, entities(u.text))
            return (f"{heading} — {text}" if qualified else text), found
    return text, set(title_scope)


def initials(key: str) -> str:
    """The initials of a key's words ("Ingress protection" → "ip"), for acronyms in the question."""
    words = re.findall(r"[A-Za-z]+", key)
    return "".join(w[0] for w in words).lower() if len(words) >= 2 else ""


def _stems(text: str) -> set[str]:
    """Content words cut to five letters: "weigh" meets "weight", "rated" meets "rating"."""
    return {w[:5] for w in content_words(text)}


def shares_words(x: Scored, question: str) -> bool:
    """The unit (with its headings) shares a content-word stem with the question."""
    return bool(_stems(question) & _stems(" ".join((*x.unit.path, x.text))))


def fact_key(u: Unit) -> str:
    """What a structured fact is about: a row's subject cell, a list item's "Key" of "Key: value"
    ("" for anything else)."""
    if u.kind == "row":
        return u.cells[0] if u.cells else ""
    if u.kind == "item" and ":" in u.text[:60]:
        return u.text.split(":", 1)[0]
    return ""


def same_key(a: str, b: str) -> bool:
    """Two facts' keys name the same kind of fact: they share at least half their words ("Arm
    weight" and "Weight"; "Ingress protection" twice)."""
    x, y = _stems(a), _stems(b)
    return bool(x and y) and len(x & y) / len(x | y) >= 0.5


def shown_key(x: Scored) -> str:
    """A fact's key as its unit is shown: a wide row narrowed to one column ("Lumo 60 — Weight:
    214 g") states that column's fact, as the spec list's "Weight: 214 g" does."""
    if x.unit.kind == "row" and x.text != x.unit.text:
        pairs = x.text.split(" — ", 1)[-1].split("; ")
        key = pairs[0].split(":", 1)[0] if len(pairs) == 1 and ":" in pairs[0] else ""
        if key and not entities(key):  # (not a model's column: "Camera — Kestrel K7: 20 MP")
            return key
    return fact_key(x.unit)


def _stem_overlap(
    texts: Sequence[str], question: str, weights: Mapping[str, float] | None = None
) -> np.ndarray:
    """Share of the question's word stems found in each text (a measure word by a value in it),
    each stem weighing as its word's weight (weights: by word; a word without one, or no weights,
    weighs 1)."""
    q = _stems(question)
    if not q:
        return np.zeros(len(texts), dtype=np.float32)
    weight = dict.fromkeys(q, 1.0)
    if weights:
        top = max(weights.values())
        weight = {k: 0.0 for k in q}
        for w in content_words(question):
            weight[w[:5]] = max(weight[w[:5]], weights.get(w, top))
    total = sum(weight.values()) or 1.0
    acronyms = acronyms_of(question) & q  # "EU" asked, "European Union" written
    values = measured(question, texts)  # "wattage" met by "1700 W"
    return np.array(
        [
            sum(weight[k] for k in q & (_stems(t) | spelled_out(acronyms, t) | {w[:5] for w in v})) / total
            for t, v in zip(texts, values, strict=True)
        ],
        dtype=np.float32,
    )


MEASURED_FACT = 0.15


def _lookup_bonus(
    units: Sequence[Unit], texts: Sequence[str], question: str, wanted: frozenset[str]
) -> np.ndarray:
    """Structured facts answer lookups: a list item or row whose key ("Arm weight" of "Arm weight:
    33 kg", a row's subject and column names) shares the question's word stems gains up to 0.2;
    a fact whose value is in the one measure a question word asks for and no passage writes (core/
    query/measure.py: "Noise level: 52 dB" for "How loud …") gains MEASURED_FACT; a unit that names an
    asked entity in its own text or row (not only in a heading) gains 0.1."""
    words = content_words(question)
    q = {w[:5] for w in words | {ATTRIBUTE_OF[w] for w in words if w in ATTRIBUTE_OF}}
    acronyms = acronyms_of(question)
    values = measured(question, texts, sole=True)
    out = np.zeros(len(units), dtype=np.float32)
    for i, (u, text) in enumerate(zip(units, texts, strict=True)):
        key = " ".join((fact_key(u), *u.header[1:])) if u.kind == "row" else fact_key(u)
        stems = _stems(key)
        if stems and q:
            out[i] += 0.2 * len(stems & q) / len(stems)
        if key and values[i]:  # "Noise level: 52 dB" for "How loud …": the value says what it is
            out[i] += MEASURED_FACT
        if key and initials(key) in acronyms:  # "IP rating" asks for "Ingress protection: IP54"
            out[i] += 0.2
        own = entities(text if u.kind != "row" else " ".join(u.cells[:1]))
        if wanted and matches(wanted, own) and not siblings(wanted, own):  # about the asked one alone
            out[i] += 0.1
    return out
