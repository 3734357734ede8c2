"""Which one has the most or the least of something, read off a comparison table and checked.

"Which model has the longest range?", "What is the cheapest Stride?", "Which is the most powerful
drone?" ask which of several things holds the largest or the smallest value. A comparison table
states each one's value in a row ("Range (Eco) | 70 km | 90 km | 120 km" under "| Spec | Stride 3 |
Stride 3 Plus | Stride 30 |"), but no sentence says which is largest. The answer quotes the row and
then names the one, written so a reader sees how it was reached: "Longest: Stride 30 (120 km)".

It is written only when the question's superlative names a direction ("longest", "cheapest",
"most expensive", "least noisy"; not "best", "latest", "at least") and an attribute (the noun after
it, "longest *range*", or the adjective's own, "lightest" → weight, "cheapest" → price), a table row
whose key names that attribute gives every column one quantity of one kind (core/answer/
difference.py: same unit or currency, rate and qualifier; no range, no bare number) and the extreme
value is held by one column only. The grounding check (core/answer/grounding.py) reads the line back
(verify): the named one's value stands in the quoted row, and it is the extreme of that row's values.
Plain English words only, no corpus's vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answer.citations import cite
from core.answer.difference import Quantity, sole_quantity
from core.answer.evidence import Scored
from core.query.entities import question_entities
from core.text import ATTRIBUTE_OF, content_words

# a superlative adjective → (its direction, the attribute it names on its own, "" for none)
_ADJECTIVES = {
    "lightest": ("min", "weight"), "heaviest": ("max", "weight"), "cheapest": ("min", "price"),
    "priciest": ("max", "price"), "dearest": ("max", "price"), "fastest": ("max", "speed"),
    "slowest": ("min", "speed"), "quietest": ("min", "noise"), "loudest": ("max", "noise"),
    "longest": ("max", ""), "shortest": ("min", ""), "highest": ("max", ""), "lowest": ("min", ""),
    "biggest": ("max", "size"), "largest": ("max", "size"), "smallest": ("min", "size"),
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
    "compact": "size",
    "quiet": "noise",
}
_UP = {"expensive": "max", "affordable": "min", "quiet": "min"}  # the direction "most" gives, if not "max"
_SUPERLATIVE = re.compile(
    rf"(?<!\bat )\b(?:the\s+)?(?:(?P<adj>{'|'.join(_ADJECTIVES)})|(?P<most>most|least)\s+(?P<what>[a-z]+))"
    r"(?:\s+(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*)?))?",
    re.I,
)
_QUESTION_WORDS = frozenset("model models one ones version versions product products is are has have".split())


@dataclass(frozen=True)
class Asked:
    word: str  # the superlative as the answer labels it: "Longest", "Most expensive"
    direction: str  # "max" or "min"
    attribute: frozenset[str]  # the stems (five letters) of the attribute's words
    own: frozenset[str] = frozenset()  # … of the adjective's own attribute ("cheapest" → price)


def asked(question: str) -> Asked | None:
    """The superlative the question asks and the attribute it asks it of, or None."""
    m = _SUPERLATIVE.search(question)
    if m is None:
        return None
    if m.group("adj"):
        word = m.group("adj").lower()
        direction, own = _ADJECTIVES[word]
    elif m.group("what").lower() in _MOST_OF:
        what = m.group("what").lower()
        word, own = f"{m.group('most').lower()} {what}", _MOST_OF[what]
        direction = _direction_of(word)
    else:
        return None
    # the noun after it, but for a name ("the cheapest Stride") and words that only say "which one"
    noun = [w for w in (m.group("noun") or "").split() if w[:1].islower() and w not in _QUESTION_WORDS]
    words = content_words(" ".join(noun))
    if not words and not own:
        return None
    return Asked(word[:1].upper() + word[1:], direction, _stems(words), _stems({own} if own else set()))


def _stems(words: set[str]) -> frozenset[str]:
    """The words and the attributes they name (ATTRIBUTE_OF), cut to five letters."""
    return frozenset(w[:5] for w in words | {ATTRIBUTE_OF[w] for w in words if w in ATTRIBUTE_OF})


def answer(question: str, usable: Sequence[Scored]) -> tuple[str, tuple[str, ...]] | None:
    """The table row holding the asked attribute's values and the one with the extreme value, as
    two bullets, or None (no superlative asked, no such row, values of different kinds, a tie)."""
    ask = asked(question)
    if ask is None or question_entities(question):  # "Is the Stride 3 the lightest?" is about one
        return None
    rows = [x for x in usable if _keyed(x, ask.attribute)] or [x for x in usable if _keyed(x, ask.own)]
    for x in sorted(rows, key=lambda x: -x.score):
        values = [
            (name, sole_quantity(cell))
            for name, cell in zip(x.unit.header[1:], x.unit.cells[1:], strict=False)
        ]
        if len(values) < 2 or any(q is None for _, q in values):
            continue
        best = _extreme([(n, q) for n, q in values if q is not None], ask.direction)
        if best is None:
            continue
        name, q = best
        row = x.unit.row_text()
        return f"- {cite(row, x.label)}\n- **{ask.word}**: {cite(f'{name} ({q.text})', x.label)}", (x.label,)
    return None


def _keyed(x: Scored, attribute: frozenset[str]) -> bool:
    """x is a table row whose key (its first cell) names the attribute (stems)."""
    if x.unit.kind != "row" or not x.unit.cells:
        return False
    return bool(_stems(content_words(x.unit.cells[0])) & attribute)


def _extreme(values: Sequence[tuple[str, Quantity]], direction: str) -> tuple[str, Quantity] | None:
    """The one (name, quantity) with the largest or smallest value, when all are of one kind and
    no other holds the same value."""
    if len({q.kind for _, q in values}) != 1:
        return None
    pick = max if direction == "max" else min
    top = pick(q.value for _, q in values)
    held = [(n, q) for n, q in values if q.value == top]
    return held[0] if len(held) == 1 else None


_LINE = re.compile(r"^(?P<word>[A-Z][a-z]+(?: [a-z]+)?): (?P<name>.+?) \((?P<qty>[^()]+)\)\W*$")


def verify(text: str, answer: Sequence[str]) -> bool | None:
    """Whether a superlative line holds (None: text is not one): another sentence of the answer
    quotes a row whose "name: value" pairs hold the named one's value, every value is of one kind,
    and the named one's is the extreme the word asks for."""
    m = _LINE.match(text.strip())
    if m is None or m.group("word").split()[0].lower() not in {*_ADJECTIVES, "most", "least"}:
        return None
    word, name, qty = m.group("word").lower(), m.group("name"), m.group("qty")
    direction = _ADJECTIVES[word][0] if word in _ADJECTIVES else _direction_of(word)
    for sentence in answer:
        pairs = [
            (n.strip(), sole_quantity(v)) for n, v in re.findall(r"(?:—|;)\s*([^:;—]+):\s*([^;]+)", sentence)
        ]
        if (name, qty) not in {(n, q.text) for n, q in pairs if q is not None}:
            continue
        if any(q is None for _, q in pairs):
            continue
        best = _extreme([(n, q) for n, q in pairs if q is not None], direction)
        return best is not None and best[0] == name
    return False


def _direction_of(word: str) -> str:
    """The direction of "most expensive", "least noisy"."""
    most, what = word.split(" ", 1)
    up = _UP.get(what, "max")
    return up if most == "most" else ("min" if up == "max" else "max")
