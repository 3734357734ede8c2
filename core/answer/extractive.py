"""The offline extractive answerer: evidence units of the injected context, chosen by query type.

Units (core/context/units.py) are sentences, list items and table rows, each under its heading
path. They are scored against the question (SentenceScorer.relevance on the unit with its headings)
and checked against the entities the question names (core/query/entities.py): a unit about
another named entity ("ArmX3" when the ArmX2 is asked) is never picked. Then, by query type:
factual → the best units; procedural → the best-matching list's steps, numbered, in document
order; comparison → one bullet per named entity with its values; analytical → the best units of
at least two sources. Every claim carries its (source); no source markup reaches the answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from core.answer import compose, superlative
from core.answer.absent import FRAMING, missing_attribute
from core.answer.draft import Draft
from core.answer.evidence import Evidence, Scored, fact_key, same_key, score_units, shown_key
from core.answer.refusal import WordCounts, rarity
from core.context.dedupe import jaccard, word_set
from core.query.attribute import names
from core.query.classify import asked_action, asks_how_to
from core.query.entities import (
    entities,
    family,
    matches,
    one_per_model,
    siblings,
    without_entities,
    written_at,
)
from core.query.unknown_names import unknown_names
from core.scoring import SentenceScorer
from core.stems import STEMMER
from core.text import ATTRIBUTE_OF, NUMBER, STOP_WORDS, content_words, words
from core.types import LedgerEntry

EXAMPLE_MOST = 4  # the sentences of an example a factual answer quotes when the example leads
FACTUAL_FOLLOW = 0.6  # a factual answer's further units score at least this share of the best
ELSEWHERE = 0.75  # … and, from another document than the best unit's, at least this share
PROSE_END = 0.4  # a how-to's passage neither opens nor ends with a unit under this share of its best
REFERS_BACK = 2  # the sentences before a lead that names the asked thing only as "these hours" it comes after


def extractive_answer(
    question: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    refusal: str,
    min_score: float,
    query_type: str = "factual",
    may_refuse: bool = True,
    counts: WordCounts | None = None,
) -> Draft:
    """The answer for the query type from the injected units, each claim followed by its (source);
    counts: the store's passage count and how many passages hold each of the question's words."""
    draft = answer_from_scored(
        evidence_for(question, entries, scorer, query_type, counts),
        refusal,
        min_score,
        may_refuse,
        counts,
    )
    held = sum(1 for e in entries if e.included and e.suspicious)
    if draft.refused and held:  # say why the evidence that was there could not be used
        note = f"{held} injected passage{'s' if held > 1 else ''} quarantined by the injection shield, not quoted"
        return dataclasses.replace(draft, reason=f"{draft.reason}; {note}")
    return draft


def evidence_for(
    question: str,
    entries: Sequence[LedgerEntry],
    scorer: SentenceScorer,
    query_type: str,
    counts: WordCounts | None = None,
) -> Evidence:
    """The injected units scored as this answerer reads them: a factual answer may also quote a
    list's lead-in with its list (evidence._leads); no other reader sees lead-ins."""
    return score_units(
        question, entries, scorer, query_type, rarity(question, counts), query_type == "factual"
    )


def answer_from_scored(
    ev: Evidence,
    refusal: str,
    min_score: float,
    may_refuse: bool = True,
    counts: WordCounts | None = None,
) -> Draft:
    """The extractive answer from already scored units."""
    usable = [x for x in ev.units if not x.conflict]
    others = _only_siblings(ev) if may_refuse else []
    if others:  # "Rover M2" asked, only "Rover M1" in the evidence: its facts are not the M2's
        why = f"the injected evidence names {', '.join(one_per_model(others))}, never what the question names"
        return Draft(refusal, (), True, why)
    if may_refuse and _never_named(ev):  # "How long does the iPhone 15 battery last?" of headphones
        why = f"no injected passage names {' or '.join(names(ev.question)) or 'what the question names'}"
        return Draft(refusal, (), True, why)
    unknown = unknown_names(ev.question, counts[1]) if may_refuse and counts else []
    if unknown:  # "Is the Kestrel Pro better than a Roborock S8?": the store never names a Roborock
        return Draft(refusal, (), True, f"no passage of the store holds “{' '.join(unknown)}”")
    if not usable:
        why = "no usable sentence in the injected context"
        if ev.units:
            others = sorted({o for x in ev.units for o in x.conflict})
            why = f"the injected evidence is about {', '.join(one_per_model(others))}, not what the question names"
        return Draft(refusal, (), True, why)
    best = max(x.score for x in usable)
    if may_refuse and best < min_score:
        return Draft(refusal, (), True, f"best sentence score {best:.3f} < {min_score:.2f}", best)
    # "Which model has the longest range?": the table row and the one holding the extreme
    top = superlative.answer(ev.question, usable) if ev.query_type in ("factual", "comparison") else None
    if top is None and ev.query_type in ("factual", "comparison"):  # no table's values answer it: a
        said = superlative.stated(ev.question, usable)  # sentence saying which one is, if any
        top = compose.units([said]) if said is not None else None
    other = superlative.unknown_kind(ev.question, counts, usable, top) if may_refuse and top else ""
    if other:  # "Which is the cheapest car?" of e-bike documents: no row of theirs answers it
        return Draft(refusal, (), True, other, best)
    missing = missing_attribute(ev, usable, counts) if may_refuse else ""
    if missing:  # "What is the battery capacity of the ArmX2?": nothing about it says "capacity"
        shown = names(ev.question) or sorted(
            {ev.question[a:b] for a, b, _ in written_at(ev.question, ev.wanted)}
        )
        why = f"no injected passage about the {' or the '.join(shown)} mentions “{missing}”"
        return Draft(refusal, (), True, why, best)
    floor = min_score if may_refuse else 0.0
    text, labels = top or _by_type(ev, usable, floor)
    return Draft(text, labels, False, "", best)


def _only_siblings(ev: Evidence) -> list[str]:
    """The sibling entities the evidence is about when it never names an asked one (empty: it
    does, or it names no sibling)."""
    if not ev.wanted or any(matches(ev.wanted, set(x.scope) | entities(x.text)) for x in ev.units):
        return []
    # only siblings: a product of another family named in passing ("a loaner ArmX2") does not make
    # general evidence about a G5 repair someone else's
    return sorted(siblings(ev.wanted, {o for x in ev.units for o in x.conflict}))


def _never_named(ev: Evidence) -> bool:
    """The question names a thing (a model code, "iPhone 15") that no injected unit names, stands
    under or is titled by, and whose name's letters (its family, "iphone") no unit writes either:
    the evidence is about something else, however close its words ("Android 13" asked, "Android 14
    or later" stated, is answered)."""
    if not ev.wanted or any(matches(ev.wanted, _names(x) | x.around) for x in ev.units):
        return False
    written = {w for x in ev.units for w in words(" ".join((*x.unit.path, x.text)))}
    written |= {family(e) for x in ev.units for e in _names(x) | x.around}
    return all(family(w) and family(w) not in written for w in ev.wanted)


def _by_type(ev: Evidence, usable: list[Scored], floor: float) -> tuple[str, tuple[str, ...]]:
    # a how-to by an action verb alone whose best unit is a field ("What replacement filter does
    # the K7 take?", a spec row) asks for that fact: answered as factual, not with steps
    best = max(usable, key=lambda x: x.score)
    if ev.query_type == "procedural" and (asks_how_to(ev.question) or not compose.is_field(best.unit)):
        action = asked_action(ev.question)
        if action:  # what says how to do the asked thing comes before what follows from it
            usable = [
                dataclasses.replace(x, score=x.score + compose.action_bonus(x, action, ev.wanted))
                for x in usable
            ]
            best = max(usable, key=lambda x: x.score)
        steps = compose.procedure(usable, ev.question, action)
        if steps is not None:
            return steps
        run = compose.passage(usable)  # no list answers it: the instructions around the best unit
        if run and best in run:
            return compose.units(compose.trimmed(run, PROSE_END))
    if ev.query_type == "comparison":
        table = compose.comparison(usable, ev.question, ev.wanted)
        if table is not None:
            return table
        sides = compose.sides(usable, ev.parts)
        if sides is not None:
            return sides
        return compose.units(pick(usable, floor, most=4))  # both sides, from the best units
    if ev.query_type == "analytical":
        if ev.parts:  # "what caused it, and how is it prevented?": a passage for each part
            return compose.units(compose.passages(usable, len(ev.parts)))
        if compose.asks_reason(ev.question):  # a section headed "Why …" is where the reasons are
            usable = [dataclasses.replace(x, score=x.score + compose.reason_bonus(x.unit)) for x in usable]
        run = compose.passage(usable)
        best = max(usable, key=lambda x: x.score)
        if run and best in run:
            other = next(
                (x for x in pick(usable, floor, most=4, per_source=True) if x.source != best.source), None
            )
            return compose.units([*run, *([other] if other is not None else [])])
        return compose.units(pick(usable, floor, most=4, per_source=True))
    announced = _announced(ev, usable, best)
    if announced is not None:  # "What conditions …?": the list of them, with its lead-in
        return _written([announced], ev, usable)
    rows = _column_of(ev, usable, best)
    if rows:  # "Which models are waterproof?": every model's "Waterproof" cell, in the table's order
        return compose.units(rows)
    return _factual(ev, usable, floor, best)


TABLE_MOST = 8  # the rows a question asking which things of a table's column gets at most
ROWS_OVER_PROSE = 0.9  # …when its best row scores at least this share of the best unit
# "Which models …", "Which Lumo models …", "What e-readers …", "Which file formats …" (a name or a
# word may stand before the plural)
_NO_NOUN = r"(?!(?:has|have|does|do|did|is|are|was|were|this|these|those|its|yours|ours|theirs)\b)"
_ASKS_ROWS = re.compile(
    rf"^\W*(?:[Ww]hat|[Ww]hich)\s+(?:[A-Z][\w-]*\s+|{_NO_NOUN}[a-z][\w-]*\s+(?=[a-z][a-z-]+[^su]s\b))?"
    rf"{_NO_NOUN}([a-z][a-z-]+[^su]s)\b"
)  # (not a word ending in "ss" or "us": "What ingress protection …", "What status …")


def _column_of(ev: Evidence, usable: Sequence[Scored], best: Scored) -> list[Scored]:
    """For a question asking which things (_ASKS_ROWS) whose best row, shown with the asked columns
    only, scores at least ROWS_OVER_PROSE of the best unit: that table's rows so shown, in its
    order (TABLE_MOST at most), not the few whose scores came first. The question names no model
    ("Which Lumo models are waterproof?": a wide table's asked column), or names the model a column
    is for ("Which file formats does the Lumo 6 support?": a row per format, a column per model)."""
    rows = [x for x in usable if x.unit.kind == "row"]
    things = _ASKS_ROWS.match(ev.question)
    if not rows or not things:
        return []
    row = max(rows, key=lambda x: x.score)
    if row.score < ROWS_OVER_PROSE * best.score or row.text == row.unit.text:
        return []
    # a question naming a model asks which rows of its column: the rows are the things asked for
    # ("Format" for "Which file formats …"; not "Spec" for "What rated speeds …")
    named = any(entities(h) for h in row.unit.header[1:]) and bool(
        STEMMER.stem_set([things.group(1)]) & STEMMER.stem_set(words(row.unit.header[0]))
    )
    if ev.wanted and not named:
        return []
    entry = row.order // 100000
    rows = [
        x
        for x in rows
        if x.order // 100000 == entry and x.unit.header == row.unit.header and x.text != x.unit.text
    ]
    return sorted(rows, key=lambda x: x.unit.position)[:TABLE_MOST] if len(rows) > 1 else []


# "What conditions does a return have to meet?", "What are the documents …", "Which accessories …":
# a question asking for things of one kind, named in the plural after its question word
_ASKS_THINGS = re.compile(r"^\W*(?:what|which)\s+(?:are\s+(?:the\s+)?)?([a-z]+s)\b", re.I)


def _announced(ev: Evidence, usable: Sequence[Scored], best: Scored) -> Scored | None:
    """The lead-in of the list the question asks for: it names the asked things ("A return is
    accepted on the following conditions:" for "What conditions …?") and scores at least
    FACTUAL_FOLLOW of the best unit (a sentence sharing more of the question's words, "Returns that
    do not meet condition 3 are refused", states one consequence, not the conditions); None when
    the question asks for no things or no such lead-in was injected with its list."""
    m = _ASKS_THINGS.match(ev.question)
    if m is None or ev.query_type != "factual" or m.group(1).lower() in STOP_WORDS:
        return None
    things = STEMMER.stem_set([m.group(1).lower()])
    leads = [
        x
        for x in usable
        if compose.is_lead(x)
        and x.score >= FACTUAL_FOLLOW * best.score
        and things & STEMMER.stem_set(content_words(x.text))
        and _list_of(x, ev.units)
    ]
    return max(leads, key=lambda x: x.score, default=None)


def _factual(ev: Evidence, usable: list[Scored], floor: float, best: Scored) -> tuple[str, tuple[str, ...]]:
    """The best unit and its close followers: from its own document unless another's is nearly as
    relevant, about the asked entity alone, and a fact's close neighbours rather than prose."""
    if not compose.is_lead(best):  # a list's lead-in answers as the best unit only, with its list
        usable = [x for x in usable if not compose.is_lead(x)]
    picked = pick(usable, floor, follow=FACTUAL_FOLLOW)
    # a unit of another document joins only when nearly as relevant: the best one's document answers;
    # a sentence of an example only with the example it belongs to
    picked = [
        picked[0],
        *(
            x
            for x in picked[1:]
            if (x.source == picked[0].source or x.score >= ELSEWHERE * picked[0].score)
            and not _stray_example(x, picked[0])
        ),
    ]
    if ev.wanted and matches(ev.wanted, _names(picked[0])):
        # the best unit is about the asked entity: the same fact standing under another one
        # ("Gripper G5 — Ingress protection: IP54" after the ArmX3's IP66) is no further answer;
        # another fact may be (the stroke of "the gripper that fits the ArmX3")
        picked = [picked[0], *(x for x in picked[1:] if not _same_fact_elsewhere(x, picked[0], ev.wanted))]
        if not siblings(ev.wanted, _names(picked[0])):  # and about it alone: a further unit standing
            # under a sibling (its heading or row names one, not the asked one) would set the sibling's
            # value beside it ("Choose the D3 if… At USD 249 the D3 costs under half the price of the D6")
            picked = [picked[0], *(x for x in picked[1:] if not _under_sibling(x, ev.wanted))]
    if picked[0].unit.kind != "sentence":
        # a fact from a spec list or table: the other close facts, not prose that mentions them
        picked = [x for x in picked if x.score >= 0.75 * picked[0].score]
        # (a sentence holding a word of the question no fact picked holds says what the facts do
        # not: "… the fast charger … charges the Stride 3 in about 2.5 hours" after "Stride 3 (418 Wh,
        # 2 A charger): 4.5 hours" for "… with the fast charger?")
        picked = _with_what_facts_miss(picked, ev.question)
        if _has_value(picked[0].unit.text):  # a value was found: the others must state one too,
            picked = [picked[0], *(x for x in picked[1:] if _has_value(x.unit.text))]  # not only name it
    return _written(_fewer_followers(picked, ev.question), ev, usable)


def _fewer_followers(picked: list[Scored], question: str) -> list[Scored]:
    """The picked units without the facts that add nothing: one stating a picked fact again
    ("Ingress protection — ArmX3: IP66" from the comparison table after the page's "Ingress
    protection: IP66 (washdown-capable)"), and, once a picked fact's key is on the question's topic,
    a further table row whose key is not (the table's "Drivetrain" row after its "Range (Eco)" row,
    every row standing under a title that says "range")."""
    picked = [x for n, x in enumerate(picked) if not any(_repeats(x, y) for y in picked[:n])]
    topic = _topic_of(question) | {ATTRIBUTE_OF[w][:5] for w in content_words(question) if w in ATTRIBUTE_OF}

    def on_topic(x: Scored) -> bool:  # a row's key read with its table's column names (not models)
        columns = [h for h in x.unit.header[1:] if not entities(h)] if x.unit.kind == "row" else []
        key = " ".join((fact_key(x.unit), *columns))
        return bool(topic & {w[:5] for w in content_words(key)})

    if not any(on_topic(x) for x in picked):
        return picked
    # (only rows: an item of the list the answer quotes may qualify it, "Saturday: 09:00 to 13:00")
    return [picked[0], *(x for x in picked[1:] if x.unit.kind != "row" or on_topic(x))]


def _written(picked: list[Scored], ev: Evidence, usable: Sequence[Scored]) -> tuple[str, tuple[str, ...]]:
    """The factual answer from its picked units: a lead-in with its list, an example whole, or the units."""
    if compose.is_lead(picked[0]):
        items = _list_of(picked[0], ev.units)
        quoted = {x.text for x in items}  # an overlap's copy of an item is another unit, the same text
        rest = [
            x
            for x in picked[1:]
            if x.text not in quoted and not x.unit.illustrative and not compose.is_lead(x)
        ]
        return compose.listed(picked[0], items, rest)
    return compose.units(_with_what_it_refers_to(_with_its_example(picked, usable), ev.question, usable))


def _list_of(lead: Scored, units: Sequence[Scored]) -> list[Scored]:
    """The items of the list a lead-in introduces, in order: by structure, the list whose first
    item stands right after it in its chunk (evidence._list_after)."""
    entry = lead.order // 100000
    same = {x.unit.position: x for x in units if x.order // 100000 == entry and x.unit.kind == "item"}
    first = same.get(lead.unit.position + 1)
    if first is None:
        return []
    return sorted(
        (x for x in same.values() if x.unit.block == first.unit.block), key=lambda x: x.unit.position
    )


def _with_its_example(picked: list[Scored], usable: Sequence[Scored]) -> list[Scored]:
    """A lead that is a sentence of an example comes with the rest of the example (a long one with
    its opening and its sentences most relevant to the question), in its order ("Example: a
    customer returns an unused ArmX2 bought at $24,500." then "The restocking fee is $3,675 and the
    refund is $20,825."): its setup alone answers nothing, its result alone misleads."""
    lead = picked[0]
    if not lead.unit.illustrative:
        return picked
    whole = sorted((x for x in usable if _same_paragraph(x, lead)), key=lambda x: x.unit.position)
    # its opening and the lead, then its sentences most relevant to the question, in its order
    ranked = [whole[0], lead, *sorted(whole[1:], key=lambda x: -x.score)]
    chosen = list(dict.fromkeys(ranked))[:EXAMPLE_MOST]
    example = [x for x in whole if x in chosen]
    rest = [x for x in picked[1:] if not _same_paragraph(x, lead)]
    return [*example, *rest][: max(3, len(example))]


def _with_what_it_refers_to(picked: list[Scored], question: str, usable: Sequence[Scored]) -> list[Scored]:
    """A picked sentence that names the asked thing only by referring back to it ("Cases opened
    outside these hours …" for "What are the support hours?") comes after the sentences of its
    paragraph before it (REFERS_BACK at most) that share another of the question's words, where the
    thing is stated ("Standard support is available from 7:00 to 19:00 …"): alone it answers with
    what follows from the thing. One whose subject is the sentence before it ("That is four weeks
    longer than the Lumo 6.") comes after that sentence."""
    asked = STEMMER.stem_set(content_words(question))
    out: list[Scored] = []
    for x in picked:
        sentence = x.unit.kind == "sentence" and not x.unit.illustrative
        pointed = _refers_back(x.text, asked) if sentence else set()
        if sentence and _SAYS_OF_THE_LAST.match(x.text):  # "That is four weeks longer than …"
            before = [y for y in usable if _same_paragraph(y, x) and y.unit.position == x.unit.position - 1]
            out.extend(y for y in before if y not in out)
        elif pointed:
            before = sorted(
                (
                    y
                    for y in usable
                    if _same_paragraph(y, x)
                    and y.unit.position < x.unit.position
                    and STEMMER.stem_set(content_words(y.text)) & (asked - pointed)
                ),
                key=lambda y: y.unit.position,
            )[-REFERS_BACK:]
            out.extend(y for y in before if y not in out)  # (one picked later moves up)
        if x not in out:
            out.append(x)
    return out


# a sentence whose subject is the one before it ("That is four weeks longer than the Lumo 6.",
# "This means …"): alone it says nothing of what it compares or explains
_SAYS_OF_THE_LAST = re.compile(
    r"^(?:that|this)(?:'s|\s+(?:is|was|means|meant|makes|made|gives|adds|comes\s+to|works\s+out))\b", re.I
)
# "this/these/those/such" and up to two words (not "that": mostly a conjunction)
_BACK = re.compile(r"\b(?:this|these|those|such)\s+(\w+)(?:\s+(\w+))?", re.I)
# nouns a demonstrative points at without pointing back to a stated thing ("this year", "this guide")
_DEICTIC = frozenset(
    "year years month months week weeks day days time times page pages section sections guide "
    "document article chapter".split()
)


def _refers_back(text: str, asked: frozenset[str]) -> frozenset[str]:
    """The stems of the question's words (asked) the text names only after a demonstrative ("these
    hours", "these opening hours"), if it names every one it holds that way; empty otherwise, and
    when the phrase introduces what follows ("note these hours: …") or is deictic ("this year")."""
    held = STEMMER.stem_set(content_words(text)) & asked
    if not held:
        return frozenset()
    pointed: set[str] = set()
    for m in _BACK.finditer(text):
        for g in (1, 2):
            word = (m.group(g) or "").lower()
            if word and STEMMER.stem_set([word]) & held:
                if word in _DEICTIC or text[m.end(g) :].lstrip().startswith(":"):
                    return frozenset()
                pointed |= STEMMER.stem_set([word])
                break
    plain = STEMMER.stem_set(content_words(_BACK.sub(" ", text))) & held
    return frozenset(pointed) if pointed and not plain else frozenset()


def _same_paragraph(x: Scored, lead: Scored) -> bool:
    """x stands in the lead's paragraph (same entry, same line)."""
    return x.order // 100000 == lead.order // 100000 and x.unit.line == lead.unit.line


def _stray_example(x: Scored, lead: Scored) -> bool:
    """x is a sentence of an example the lead does not belong to: without its opening it reads as
    the rule ("The restocking fee is $3,675" after "A restocking fee of 15% …")."""
    return x.unit.illustrative and not _same_paragraph(x, lead)


def _same_fact_elsewhere(x: Scored, best: Scored, wanted: frozenset[str]) -> bool:
    """x states best's kind of fact, standing under another entity than the asked ones."""
    return bool(x.scope) and not matches(wanted, _names(x)) and same_key(shown_key(x), shown_key(best))


def _under_sibling(x: Scored, wanted: frozenset[str]) -> bool:
    """x stands under a sibling of an asked entity and not under the asked one."""
    return bool(siblings(wanted, x.scope)) and not matches(wanted, x.scope)


def _with_what_facts_miss(picked: list[Scored], question: str) -> list[Scored]:
    """The facts picked, and the sentences nearly as relevant as the best (0.95×) or holding the
    words of a qualifier the question adds ("with the fast charger", "in Eco mode") that no fact
    and no sentence kept before them holds."""
    held = set().union(*(_topic_of(x.text) for x in picked if x.unit.kind != "sentence"))
    more = set().union(*(_topic_of(m.group(1)) for m in _QUALIFIER.finditer(question))) - held
    out = []
    for x in picked:
        if (
            x.unit.kind != "sentence"
            or x.score >= 0.95 * picked[0].score
            or (more and more <= _topic_of(x.text))
        ):
            out.append(x)
            if x.unit.kind == "sentence":
                more -= _topic_of(x.text)
    return out


# a qualifier a question adds to what it asks: a preposition and up to three words ("with the fast
# charger", "in Eco mode", "using the app")
_QUALIFIER = re.compile(r"\b(?:with|using|via|in|on|at|under|without)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)


def _topic_of(text: str) -> set[str]:
    """The text's words cut to five letters, but for the names it holds and the words framing a
    question ("How long does it take")."""
    return {w[:5] for w in content_words(without_entities(text)) - FRAMING}


def _repeats(x: Scored, y: Scored) -> bool:
    """x states y's kind of fact (evidence.same_key, as shown) with the same value: its value's
    (after its key's colon) numbers, read without their separators ("24,9" is "24.9", "1,899" is not "899"),
    are a run of y's in order, and its other words are all y's ("08:00 to 12:00" is no repeat of
    "07:00 to 20:00", nor "9.24 kg" of "24.9 kg")."""
    if not same_key(shown_key(x), shown_key(y)):
        return False
    value = x.text.split(":", 1)[-1]
    mine, theirs = _figures(value), _figures(y.text)
    run = any(theirs[i : i + len(mine)] == mine for i in range(len(theirs) - len(mine) + 1))
    rest = {w for w in words(value) if not w.isdigit()}
    return bool(words(value)) and run and rest <= set(words(y.text))


def _figures(text: str) -> list[str]:
    """The text's numbers in order (core.text.NUMBER), their separators left out ("1,899" → "1899",
    "24.9" → "249")."""
    return [re.sub(r"[.,]", "", f) for f in NUMBER.findall(text)]


def _names(x: Scored) -> set[str]:
    """The entities a unit stands under and those its own text names (codes such as "IP66" too)."""
    return set(x.scope) | entities(x.text)


def _has_value(text: str) -> bool:
    """A unit's own text (not its headings) states a value: it holds a digit ("5 kg", "IP67",
    "2024-08-05"; a model code's digit counts too, which only keeps more followers)."""
    return any(ch.isdigit() for ch in text)


def pick(
    usable: Sequence[Scored], floor: float, most: int = 3, per_source: bool = False, follow: float = 0.6
) -> list[Scored]:
    """The best units (near-repeats skipped, followers under `follow`× the best dropped);
    per_source: when they all come from one source, the best unit of another source joins them if
    it is nearly as relevant (0.75× the best), so two sources speak."""
    ranked = sorted(usable, key=lambda x: -x.score)
    cut = max(floor, ranked[0].score * follow)
    picked: list[Scored] = []
    seen: list[frozenset[str]] = []
    for x in ranked:
        words = word_set(x.text)
        if any(jaccard(words, other) >= 0.8 for other in seen):
            continue  # the same sentence again (copied or lightly edited passages)
        if picked and x.score < cut:
            break
        seen.append(words)
        picked.append(x)
        if len(picked) == most:
            break
    if per_source and len({x.source for x in picked}) == 1:
        other = next((x for x in ranked if x.source != picked[0].source), None)
        if other is not None and other.score >= max(floor, 0.75 * ranked[0].score):
            picked = [*picked[: most - 1], other]
    return picked
