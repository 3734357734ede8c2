"""The kind of value a question asks for, read from its wording, and whether a text states one.

"When was …", "What year …" ask for a time; "How many …", "How long …", "What percentage …" for
a number; "Who …" for a name. A sentence that states no such value can hold the topic but not the
answer ("The Broncos won Super Bowl 50." does not say when), so sentence relevance
(core/scoring.py) gives a small bonus to the sentences that state one. The rules read the
question's wording only, in plain English; a question they do not recognise gets no bonus.
Measured in README (Evaluation: the answer type).
"""

from __future__ import annotations

import re
from typing import Literal

AnswerType = Literal["time", "number", "name"]

_ASKS_TIME = re.compile(
    r"\bwhen\b|\b(what|which|in what) (year|years|century|centuries|decade|date|day|month|era|period)\b", re.I
)
_ASKS_NUMBER = re.compile(
    r"\bhow (many|much|long|far|old|large|big|tall|high|wide|deep|heavy|fast|often|frequently)\b"
    r"|\bwhat (percentage|percent|proportion|fraction|number|amount)\b",
    re.I,
)
_ASKS_NAME = re.compile(r"^\W*(who|whom|whose)\b|\b(by|to|for|with|from) whom\b", re.I)

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_TIME = re.compile(
    # a year stands alone: not the "300" of "NC-300" or "1,300 mm", nor a version's "2.1"
    rf"(?<![\w.,\-])\d{{3,4}}s?\b(?!\.\d)|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(st|nd|rd|th)\b"
    rf"|\b({_MONTHS}|{_DAYS})\b|\b(?i:centur(y|ies)|decades?)\b|\b(BC|AD|BCE|CE)\b",  # "May", not "may"
)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundreds?|thousands?|millions?|billions?|dozens?|half|twice|once|single|double|triple)\b",
    re.I,
)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+")
_WORD = re.compile(r"\w+")


def expected_type(question: str) -> AnswerType | None:
    """What the question asks for: a time, a number, a name, or None (anything else)."""
    if _ASKS_TIME.search(question):
        return "time"
    if _ASKS_NUMBER.search(question):
        return "number"
    if _ASKS_NAME.search(question):
        return "name"
    return None


def states(kind: AnswerType, text: str, question: str) -> bool:
    """Whether text states a value of the kind: a year, date, month or century; a digit or a
    number word; a capitalised word past the text's first that the question does not hold."""
    if kind == "time":
        return bool(_TIME.search(text))
    if kind == "number":
        return bool(_NUMBER.search(text))
    asked = {w.lower() for w in _WORD.findall(question)}
    return any(m.start() > 0 and m.group().lower() not in asked for m in _CAPITALISED.finditer(text))
