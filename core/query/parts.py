"""The parts of a question that asks several things at once.

"What caused the incident, and how does 4.2.0 prevent it?" asks for a cause and a fix; scored as a
whole, the sentences about the fix (they name "4.2.0") crowd out the cause. Each part is scored on
its own as well (blended with the whole question, which carries the subject a part like "… prevent
it" or "any downside?" leans on), so the evidence and the answer hold a unit for every part."""

from __future__ import annotations

import re

from core.text import content_words

_WH = r"(?:how|what|why|when|where|which|who|whom|whose|is|are|was|were|does|do|did|can|could|should|would|will|any)"
# a clause boundary: another question mark, ", and/but/or <wh>", "; <wh>", " - <wh>", " and <wh> …"
_SPLIT = re.compile(
    rf"\?\s+(?=\S)|,?\s+(?:and|but|or)\s+(?={_WH}\b)|[;:]\s+(?={_WH}\b)|\s+[-–—]\s+(?={_WH}\b)",
    re.IGNORECASE,
)
MIN_WORDS = 2  # the first part needs this many content words (later ones: any)


def question_parts(question: str) -> tuple[str, ...]:
    """The question's parts (two or more), or () when it asks one thing."""
    pieces = [p.strip(" ,;:?-–—") for p in _SPLIT.split(question.strip())]
    pieces = [p for p in pieces if p]
    if len(pieces) < 2:
        return ()
    if len(content_words(pieces[0])) < MIN_WORDS:
        return ()
    out = [pieces[0], *(p for p in pieces[1:] if content_words(p))]
    return tuple(out) if len(out) >= 2 else ()


# the two sides of a comparison, first pattern that matches wins
_SIDES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\bdistinguish(?:es|ing)?\s+(?P<a>.+?)\s+from\s+(?P<b>.+)",
        r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)",
        r"^(?P<a>.+?)\s+(?:compared?|comparing|measured?)\s+(?:with|to|against)\s+(?P<b>.+)",
        r"\bcompare\s+(?P<a>.+?)\s+(?:and|with|to|against)\s+(?P<b>.+)",
        r"^(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)",
        r"^(?P<a>.+?)\s+than\s+(?P<b>.+)",
        r"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+)",
    )
]


def comparison_sides(question: str) -> tuple[str, ...]:
    """The two things a comparison sets side by side ("security logs" / "incident tickets and
    postmortems"), each with the words of the question that only it has; () when the question's
    wording names no two sides."""
    text = question.strip().rstrip("?.! ")
    for pattern in _SIDES:
        m = pattern.search(text)
        if m is None:
            continue
        a, b = m.group("a").strip(" ,"), m.group("b").strip(" ,")
        if distinct_words(a, b) and distinct_words(b, a):
            return a, b
    return ()


def distinct_words(side: str, other: str) -> set[str]:
    """The content words of one side that the other side lacks."""
    return content_words(side) - content_words(other) - _GENERIC


_GENERIC = frozenset("one ones kind kinds type types way ways thing things".split())


def parts_for(question: str, query_type: str) -> tuple[str, ...]:
    """What a question's units are also scored against: a comparison's two sides, another
    question's clauses (both () when there is only one)."""
    if query_type == "comparison":
        return comparison_sides(question)
    return question_parts(question)
