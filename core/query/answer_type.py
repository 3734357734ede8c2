"""The kind of value a question asks for, read from its wording, and whether a text states one.

"When was …", "What year …" ask for a time; "How many …", "How long …", "What percentage …" and a
word asking for one measure ("How loud …", "the wattage") for a number; "Who …" for a name. A
sentence that states no such value can hold the topic but not the answer ("The Broncos won Super
Bowl 50." does not say when), so sentence relevance (core/scoring.py) gives a small bonus to the
sentences that state one. The rules read the question's wording only, in plain English; a question
they do not recognise gets no bonus. Model codes and versions ("NC-300", "4.1.0") are names, not
values: their digits state no number or year.
Measured in README (Evaluation: the answer type).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from core.query.entities import without_entities
from core.query.measure import asked_measures

AnswerType = Literal["time", "number", "name"]

# the question word leads ("When did …", "How many …"; "…, when did …"): "How many errors occur
# when the arm is loaded?" asks for a number, "What happens when it fails?" for neither
_LEAD = r"(?:^|[,;:]\s*)\W*"
_ASKS_TIME = re.compile(
    rf"{_LEAD}when\b|\b(since|until|till) when\b|\bwhat time\b"
    r"|\b(what|which|in what) (year|years|century|centuries|decade|date|day|month|era|period)\b",
    re.I,
)
_ASKS_NUMBER = re.compile(
    r"\bhow (many|much|long|far|old|large|big|tall|high|wide|deep|heavy|fast|often|frequently)\b"
    r"|\bwhat (percentage|percent|proportion|fraction|number|amount)\b",
    re.I,
)
_ASKS_NAME = re.compile(rf"{_LEAD}(who|whom|whose)\b|\b(by|to|for|with|from) whom\b", re.I)

_MONTHS = "January|February|March|April|June|July|August|September|October|November|December"
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_TIME = re.compile(
    # a year stands alone and is no measure ("850 mm"), nor part of "1,300" or a version's "2.1"
    r"(?<![\w.,$€£\-])\d{3,4}s?\b(?!\.\d|\s*(?:%|(?i:percent|mm|cm|km|kg|mg|kwh?|k?hz|mhz|ms|min|[mgt]b|nm"
    r"|lbs?|psi|rpm|ft|px|mp|[mgwv])\b))"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(st|nd|rd|th)\b"
    rf"|\b({_MONTHS}|{_DAYS})\b|\bMay(?=\s+\d)|(?<=\bin )May\b"  # "in May", "May 2024", not "May cause"
    r"|\b(?i:centur(y|ies)|decades?)\b|\d\s*(BC|AD|BCE|CE)\b|\b(AD|BC)\s*\d",
)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundreds?|thousands?|millions?|billions?|dozens?|half|twice|double|triple)\b",
    re.I,
)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")  # "Lena", "Vogt"; not "NorthEye" (a product) or "ArmX2"
_FIRST_WORD = re.compile(r"^\W*\w+")  # a sentence's or list item's first word is capitalised anyway
_WORD = re.compile(r"\w+")


def expected_type(question: str) -> AnswerType | None:
    """What the question asks for: a time, a number, a name, or None (anything else)."""
    if _ASKS_TIME.search(question):
        return "time"
    if _ASKS_NUMBER.search(question):
        return "number"
    if _ASKS_NAME.search(question):
        return "name"
    if set(_WORD.findall(question.lower())[:_MEASURE_LEAD]) & _sole(question):
        return "number"  # "How loud …", "What's the wattage …": a value in a measure (core/query/measure.py)
    return None


_MEASURE_LEAD = 6  # a measure word among a question's first words asks for it ("What's the wattage …")


def _sole(question: str) -> frozenset[str]:
    """The question's words that ask for one measure ("wattage", not "long")."""
    return frozenset(w for w, (_, n) in asked_measures(question).items() if n == 1)


def stating(kind: AnswerType, texts: Sequence[str], question: str) -> list[bool]:
    """Whether each text states a value of the kind: a year, date, month or century; a digit or a
    number word outside a model code, in a measure the question asks for when one of its words asks
    for one ("How heavy …": "3.8 kg", not "9.6 cm"); a capitalised word past the first that
    the question lacks."""
    if kind == "name":
        asked = {w.lower() for w in _WORD.findall(question)}
        return [_states_name(t, asked) for t in texts]
    measures = asked_measures(question) if kind == "number" and _sole(question) else {}
    if measures:  # "How long is the power cord?": a length or a duration as well as a power
        return [any(p.search(t) for p, _ in measures.values()) for t in texts]
    pattern = _TIME if kind == "time" else _NUMBER
    return [bool(pattern.search(without_entities(t))) for t in texts]


def _states_name(text: str, asked: set[str]) -> bool:
    first = _FIRST_WORD.match(text)
    start = first.end() if first else 0
    return any(m.group().lower() not in asked for m in _NAME.finditer(text, start))
