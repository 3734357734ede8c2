"""A comparison's difference, computed and checked.

"How much more suction does the D6 have than the D3?" asks for a number no passage states: the
answer gives each side's value (core/answer/compose.py) and then the difference, written so a
reader sees how it was reached: "Difference: 1,800 Pa (Dustwise D6 4,000 Pa − Dustwise D3 2,200 Pa)".
It is written only when the question asks how much more or less (or by how much, or the difference
in something) and each side states exactly one quantity, in the same unit or currency; no unit is
converted. The grounding check (core/answer/grounding.py) does not take such a line on trust: it
reads both quantities back, finds them in the evidence and redoes the subtraction (verify).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_COMPARATIVE = (
    "more|less|fewer|longer|shorter|heavier|lighter|bigger|smaller|larger|cheaper|dearer|faster|"
    "slower|higher|lower|quieter|louder|further|farther|wider|narrower|taller|stronger|weaker"
)
ASKS = re.compile(
    rf"\bhow\s+(?:much|many)\s+(?:[\w-]+\s+){{0,3}}?(?:{_COMPARATIVE})\b"
    r"|\bby\s+how\s+(?:much|many)\b|\b(?:the\s+)?difference\s+in\b",
    re.I,
)
# a quantity: a currency sign or code, a number (thousands grouped by commas), and a unit word or sign
_QUANTITY = re.compile(
    r"(?:(?P<sign>[$€£¥])|\b(?P<code>USD|EUR|GBP|CHF|JPY|CAD|AUD)\s?)?"
    r"(?<![\w.,])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<unit>%|°\s?[CF]\b|[A-Za-zµΩ]+(?:/[A-Za-z]+)?))?"
)
LABEL = "Difference"
_LINE = re.compile(rf"^{LABEL}: (?P<result>.+?) \((?P<a>.+?) − (?P<b>.+?)\)\W*$")


@dataclass(frozen=True)
class Quantity:
    text: str  # as written: "2,200 Pa", "$79", "USD 599"
    value: float
    decimals: int
    grouped: bool  # written with thousands commas
    before: str  # the currency sign or code before the number ("" for none)
    unit: str  # the unit after it ("" for none)


def quantities(text: str) -> list[Quantity]:
    """The quantities a text states: numbers with a currency or a unit (a bare number is none)."""
    out = []
    for m in _QUANTITY.finditer(text):
        before = m.group("sign") or m.group("code") or ""
        unit = "" if before else (m.group("unit") or "").replace(" ", "")  # "$79 per year": $
        if not before and not unit:
            continue
        num = m.group("num")
        decimals = len(num.split(".")[1]) if "." in num else 0
        text = m.group() if unit else m.group()[: m.end("num") - m.start()]
        out.append(Quantity(text.strip(), float(num.replace(",", "")), decimals, "," in num, before, unit))
    return out


def _written(value: float, like: Sequence[Quantity]) -> str:
    decimals = max(q.decimals for q in like)
    number = f"{value:,.{decimals}f}" if any(q.grouped for q in like) else f"{value:.{decimals}f}"
    q = like[0]
    if q.before:
        return f"{q.before}{' ' if q.before.isalpha() else ''}{number}{' ' + q.unit if q.unit else ''}"
    return f"{number}{'' if q.unit in ('%',) or q.unit.startswith('°') else ' '}{q.unit}"


def line(question: str, sides: Sequence[tuple[str, str]]) -> str:
    """The difference line for two (name, value text) sides, larger first ("" when the question
    asks for no difference, there are not two sides, or they do not state one quantity each in
    one unit)."""
    if len(sides) != 2 or not ASKS.search(question):
        return ""
    found = [quantities(text) for _, text in sides]
    if any(len(qs) != 1 for qs in found):
        return ""
    (a,), (b,) = found
    if (a.before, a.unit) != (b.before, b.unit):
        return ""
    (big_name, big), (small_name, small) = sorted(
        zip((name for name, _ in sides), (a, b), strict=True), key=lambda p: -p[1].value
    )
    result = _written(big.value - small.value, [big, small])
    return f"{LABEL}: {result} ({big_name} {big.text} − {small_name} {small.text})"


def bullet(question: str, sides: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> str:
    """The difference as a comparison's last bullet, citing where both values are stated; sides:
    each compared name with its (value text, source label) pairs ("" unless each has one value
    and line() writes one)."""
    if any(len(pairs) != 1 for _, pairs in sides):
        return ""
    computed = line(question, [(name, pairs[0][0]) for name, pairs in sides])
    if not computed:
        return ""
    sources = " ".join(f"({label})" for label in dict.fromkeys(pairs[0][1] for _, pairs in sides))
    return f"- **{LABEL}**:{computed[len(LABEL) + 1 :]} {sources}."


def verify(text: str, evidence: str) -> bool | None:
    """Whether a difference line holds: both quantities are in the evidence and the result is
    their difference (None: text is not a difference line)."""
    m = _LINE.match(text.strip())
    if m is None:
        return None
    result, a, b = (quantities(m.group(k)) for k in ("result", "a", "b"))
    if not (result and a and b):
        return False
    pool = evidence.replace(",", "")
    stated = all(f"{q.value:.{q.decimals}f}" in pool for q in (a[-1], b[-1]))
    return stated and abs(a[-1].value - b[-1].value - result[0].value) < 10 ** -(result[0].decimals + 1) * 5
