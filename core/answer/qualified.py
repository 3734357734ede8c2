"""A field that gives one value per qualifier, narrowed to the qualifier the question asks.

"Price: €2,499 (EU, incl. VAT) · $2,699 (US) · £2,199 (UK)" answers "What's the UK price of the C2?"
only through its last value; quoted whole, the answer also holds two prices nobody asked for and a
reader has to find the right one. Such a field is cut when its value is a list (separated by "·",
";" or "|") of at least two parts, each a value with its qualifier in brackets, and the question
names the qualifier of exactly one part: "Price: £2,199 (UK)". A short upper-case qualifier ("US",
"UK", "EU") is matched in its case only ("us" in "tell us" is no region); a longer one in any case
("Eco", "turbo"). Anything else stays whole: a part without a value or without a bracket, a question
that names two parts' qualifiers or none.
"""

from __future__ import annotations

import re

from core.text import content_words

_SEPARATOR = re.compile(r"\s+[·|]\s+|;\s+")
_FIELD = re.compile(r"^(?P<key>[^:]{1,60}):\s+(?P<value>.+)$")
_QUALIFIER = re.compile(r"\(([^()]+)\)")
_VALUE = re.compile(r"\d")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+-]*")


def _words(text: str) -> set[str]:
    """A qualifier's words as the question must name them: short upper-case ones as written."""
    out = set()
    for w in _WORD.findall(text):
        if w.isupper() and len(w) <= 3:
            out.add(w)
        elif w.lower() in content_words(w):
            out.add(w.lower())
    return out


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
        qualifiers.append(set().union(*(_words(b) for b in brackets)))
    asked = _words(question)
    named = [i for i, q in enumerate(qualifiers) if q & asked]
    if len(named) != 1:
        return None
    return f"{field['key']}: {parts[named[0]]}"
