"""A field that gives one value per qualifier, narrowed to the qualifier the question asks.

"Price: €2,499 (EU, incl. VAT) · $2,699 (US) · £2,199 (UK)" answers "What's the UK price of the C2?"
only through its last value; quoted whole, the answer also holds two prices nobody asked for and a
reader has to find the right one. Such a field is cut when its value is a list (separated by "·",
";" or "|") of at least two parts, each a value with its qualifier in brackets, and the question
names the qualifier of exactly one part: "Price: £2,199 (UK)". A short upper-case qualifier ("US",
"UK", "EU") is matched in its case only ("us" in "tell us" is no region, nor "US" in a question
written all in capitals), a capitalised one in any case ("Eco" by "eco mode"); lower-case words
("(continuous use)", "(2 years)", "(high)") name no part, so "How much is the 2-year plan?" is not
narrowed to the part that says "year". Anything else stays whole: a part without a value or
without a bracket, a question that names two parts' qualifiers or none; a comparison is never
narrowed (core/answer/evidence.py): it asks for both sides.
"""

from __future__ import annotations

import re

from core.text import content_words

_SEPARATOR = re.compile(r"\s+[·|]\s+|;\s+")
_FIELD = re.compile(r"^(?P<key>[^:]{1,60}):\s+(?P<value>.+)$")
_QUALIFIER = re.compile(r"\(([^()]+)\)")
_VALUE = re.compile(r"\d")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+-]*")


def _qualifier(text: str) -> set[str]:
    """What names a part: its short upper-case codes as written ("UK"), its capitalised words by
    their first five letters ("Turbo"); lower-case words ("continuous use", "2 years") name none."""
    out = set()
    for w in _WORD.findall(text):
        if w.isupper() and len(w) <= 3:
            out.add(w)
        elif w[0].isupper() and content_words(w):
            out.add(w.lower()[:5])
    return out


def _asked(question: str) -> set[str]:
    """The question's words as a qualifier must name them: short upper-case codes as written (none
    when the whole question is in capitals), every content word by its first five letters."""
    codes = (
        set() if question.isupper() else {w for w in _WORD.findall(question) if w.isupper() and len(w) <= 3}
    )
    return codes | {w[:5] for w in content_words(question)}


def asked_part(text: str, question: str) -> str | None:
    """The field narrowed to the one part whose qualifier the question names, or None: shown whole."""
    field = _FIELD.match(text.strip())
    if field is None:
        return None
    parts = [p.strip() for p in _SEPARATOR.split(field["value"]) if p.strip()]
    if len(parts) < 2:
        return None
    qualifiers = []
    for part in parts:
        brackets = _QUALIFIER.findall(part)
        if not brackets or not _VALUE.search(_QUALIFIER.sub("", part)):
            return None  # every part must be a value with its qualifier
        qualifiers.append(set().union(*(_qualifier(b) for b in brackets)))
    asked = _asked(question)
    named = [i for i, q in enumerate(qualifiers) if q & asked]
    if len(named) != 1:
        return None
    return f"{field['key']}: {parts[named[0]]}"
