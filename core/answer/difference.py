"""A comparison's difference, computed and checked.

"How much more suction does the D6 have than the D3?" asks for a number no passage states: the
answer gives each side's value (core/answer/compose.py) and then the difference, written so a
reader sees how it was reached: "Difference: 1,800 Pa (Dustwise D6: 4,000 Pa − Dustwise D3: 2,200
Pa)". It is written only when the question asks how much more or less, by how much, or the
difference in something ("the price difference" too), and each side's value text holds exactly one
number: a quantity with a unit (also joined by a hyphen, "3.5-inch") or a currency, not negative, not
a range, a size "30 × 20 cm" or a date. Both must be in the same unit or currency, at the same
rate ("$8/month" is no "$79/year") and with the same bracketed qualifier ("$1,199 (US)" is no
"$1,599 (AU)"); no unit is converted. The grounding check
(core/answer/grounding.py) does not take such a line on trust (verify): it reads both quantities
back, finds each in the evidence and, with its name, in another sentence of the answer, and redoes
the subtraction to the written precision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from core.query.entities import without_entities
from core.text import ATTRIBUTE_OF, NUMBER, STOP_WORDS, content_words

_COMPARATIVE = (
    "longer|shorter|heavier|lighter|bigger|smaller|larger|cheaper|dearer|faster|slower|higher|lower|"
    "quieter|louder|further|farther|wider|narrower|taller|stronger|weaker"
)
ASKS = re.compile(
    rf"\bhow\s+(?:much\s+(?:more|less|{_COMPARATIVE})|many\s+(?:more|fewer|less))\b"
    r"|\bby\s+how\s+(?:much|many)\b|\bdifference\s+in\b",
    re.I,
)
# "the price difference between …" names what differs; "the main difference between …" does not
_NOUN_DIFFERENCE = re.compile(r"\b([a-z]+)\s+difference\b", re.I)
_ANY_DIFFERENCE = (
    frozenset(
        "main key big biggest major real only important significant overall practical general actual "
        "fundamental chief basic whole exact any much little".split()
    )
    | STOP_WORDS
)


def asks(question: str) -> bool:
    """Whether the question asks how much more or less, by how much, the difference in something
    ("the difference in price", "the price difference"), or which of two is more so ("Which is
    lighter, the DX-20 or the DX-20e?": the difference shows it, with the verdict, premise_note)."""
    return bool(ASKS.search(question) or _WHICH.search(question)) or any(
        m.group(1).lower() not in _ANY_DIFFERENCE for m in _NOUN_DIFFERENCE.finditer(question)
    )


_CURRENCY = r"(?:(?P<sign>[$€£¥])|\b(?P<code>USD|EUR|GBP|CHF|JPY|CAD|AUD)\s?)"
_QUANTITY = re.compile(
    rf"{_CURRENCY}?(?<![A-Za-z0-9.,])(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+,\d{{1,2}}|\d+(?:\.\d+)?)(?![\d,.]*\d)"
    r"(?:(?:\s?|-(?=[A-Za-z]))(?!(?:per|an?|each)\b)(?P<unit>%|°\s?[CF]\b|[A-Za-zµΩ]+))?"
    r"(?:\s*(?:/\s*|\bper\s+|\ban?\s+|\beach\s+)(?P<rate>[A-Za-z]+))?"
    r"(?:\s*\((?P<qualifier>[^()]*)\))?"
)
_NEGATIVE = re.compile(r"[-−]$|\bminus\s+$", re.I)  # "-20 °C" (a dash after a space is a separator)
_DOT_GROUPED = re.compile(r"^\d{1,3}(?:\.\d{3})+$")  # "2.499": a thousand, or a fraction?
_DECIMAL_COMMA = re.compile(r"^\d+,\d{1,2}$")  # "24,9 kg": a comma before one or two digits is no grouping
_SHORT_UNITS = frozenset({"m", "s", "t"})
LABEL = "Difference"
# a comparative's direction: the asked side holds the larger (UP) or the smaller (DOWN) value
_ANTONYM = {
    "more": "less", "longer": "shorter", "heavier": "lighter", "bigger": "smaller", "larger": "smaller",
    "dearer": "cheaper", "faster": "slower", "higher": "lower", "louder": "quieter", "wider": "narrower",
    "taller": "shorter", "stronger": "weaker", "fewer": "more", "less": "more", "shorter": "longer",
    "lighter": "heavier", "smaller": "larger", "cheaper": "dearer", "slower": "faster", "lower": "higher",
    "quieter": "louder", "narrower": "wider", "weaker": "stronger",
}  # fmt: skip
_DOWN = frozenset("less fewer shorter lighter smaller cheaper slower lower quieter narrower weaker".split())
_DIRECTED = re.compile(rf"\b({'|'.join(_ANTONYM)})\b", re.I)
_OBJECT = re.compile(r"\b(?:than|compared\s+(?:with|to)|versus|vs\.?)\s", re.I)
_NOTE = re.compile(
    r"^(?:(?P<who>.+?) (?:is|has) (?P<word>[a-z]+), not (?P<asked>[a-z]+)|(?P<which>[a-z]+): (?P<one>.+))$"
)
# "Which is lighter, the DX-20 or the DX-20e?", "Which one has more storage, A or B?"
_COMPARING_WORDS = frozenset("one has have handles offers gives more less".split()) | frozenset(_ANTONYM)
_WHICH = re.compile(rf"\bwhich\b[^?]*?\b({'|'.join(_ANTONYM)})\b[^?]*\bor\b", re.I)
_ARTICLE = re.compile(r"(?:the\s+|an?\s+)?")
_LINE = re.compile(
    rf"^{LABEL}: (?P<result>[^;]+?) \((?P<a>[^;]+?): (?P<qa>[^;]+?) − (?P<b>[^;]+?): (?P<qb>[^;]+?)\)"
    r"(?:; (?P<note>[^;]+?))?\W*$"
)


@dataclass(frozen=True)
class Quantity:
    text: str  # as written: "2,200 Pa", "$79", "USD 599"
    value: Decimal
    decimals: int
    grouped: bool  # written with thousands commas
    before: str  # the currency sign or code ("" for none)
    unit: str  # the unit after the number ("" for none)
    rate: str = ""  # "month" of "$8/month", "$8 per month"
    qualifier: str = ""  # "US" of "$1,199 (US)"
    comma: bool = False  # written with a decimal comma ("24,9 kg")

    @property
    def kind(self) -> tuple[str, str, str, str]:
        """What must match for two quantities to be subtracted."""
        return self.before, self.unit, self.rate.lower(), self.qualifier.strip().lower()


def _quantity(m: re.Match[str], text: str) -> Quantity | None:
    before = m.group("sign") or m.group("code") or ""
    unit = "" if before else (m.group("unit") or "").replace(" ", "")
    # "Step 3 of the guide": no unit; but "m", "s" and "t" are metres, seconds and tonnes, not what
    # is left of a contraction
    unit = "" if unit.lower() in STOP_WORDS and unit not in _SHORT_UNITS else unit
    num = m.group("num")
    if (not before and not unit) or _DOT_GROUPED.match(num) or _NEGATIVE.search(text[: m.start()]):
        return None
    shown = m.group()[: (m.end("unit") if unit else m.end("num")) - m.start()].strip()
    comma = bool(_DECIMAL_COMMA.match(num))
    point = num.replace(",", ".") if comma else num.replace(",", "")
    decimals = len(point.split(".")[1]) if "." in point else 0
    rate, qualifier = m.group("rate") or "", m.group("qualifier") or ""
    return Quantity(
        shown, Decimal(point), decimals, "," in num and not comma, before, unit, rate, qualifier, comma
    )


def quantities(text: str) -> list[tuple[int, Quantity]]:
    """Every quantity the text states ("18 V", "$150", "13 mm") and where it starts, in order."""
    return [(m.start(), q) for m in _QUANTITY.finditer(text) if (q := _quantity(m, text)) is not None]


def sole_quantity(text: str) -> Quantity | None:
    """The one quantity a text states, when it holds exactly one number and that number is a
    quantity (None for two numbers, a bare number, a negative or dot-grouped one)."""
    if len(NUMBER.findall(text)) != 1:
        return None
    m = _QUANTITY.search(text)
    return _quantity(m, text) if m else None


def _written(value: Decimal, like: Sequence[Quantity]) -> str:
    decimals = max(q.decimals for q in like)
    number = f"{value:,.{decimals}f}" if any(q.grouped for q in like) else f"{value:.{decimals}f}"
    if all(q.comma for q in like):  # written as the values are ("17,1 kg")
        number = number.replace(".", ",")
    q = like[0]
    per = f" per {q.rate}" if q.rate else ""
    if q.before:
        return f"{q.before}{' ' if q.before.isalpha() else ''}{number}{per}"
    unit = (
        q.unit[:-1]
        if value == 1 and q.unit.islower() and len(q.unit) > 2 and q.unit.endswith("s")
        else q.unit
    )
    return f"{number}{'' if unit == '%' or unit.startswith('°') else ' '}{unit}{per}"


def line(question: str, sides: Sequence[tuple[str, str]]) -> str:
    """The difference line for two (name, value text) sides, larger first ("" when the question
    asks for no difference, there are not two sides, or they do not state one quantity each of
    one kind)."""
    if len(sides) != 2 or not asks(question):
        return ""
    a, b = (sole_quantity(_value(text)) for _, text in sides)
    if a is None or b is None or a.kind != b.kind:
        return ""
    if not ASKS.search(question) and _WHICH.search(question) and not _on_topic(question, sides, a, b):
        return ""
    (big_name, big), (small_name, small) = sorted(
        zip((name for name, _ in sides), (a, b), strict=True), key=lambda p: -p[1].value
    )
    result = _written(big.value - small.value, [big, small])
    note = premise_note(question, [name for name, _ in sides], big_name if big.value != small.value else "")
    return f"{LABEL}: {result} ({big_name}: {big.text} − {small_name}: {small.text}){note}"


def _spans(asked: str, name: str) -> list[tuple[int, int]]:
    """Where the (lower-cased, unhyphenated) question names an entity, whole or by its last word
    (its model code: "the d6" for "Dustwise D6"), as whole words."""
    out = []
    for form in dict.fromkeys((name, name.split()[-1] if name.split() else name)):
        pattern = rf"(?<!\w){re.escape(form.lower().replace('-', ''))}(?!\w)"
        out.extend(m.span() for m in re.finditer(pattern, asked))
    return out


def _own(spans: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A name's mentions that are not inside another name's longer mention ("K5" in "K5 Pro")."""
    return [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] and o != s for o in others)]


def _direction(asked: str) -> re.Match[str] | None:
    """The comparative whose amount is asked: the word of "how much heavier", "how many fewer", or
    the first after "by how much" ("By how much is the K7 heavier …"); None for "the difference in"."""
    ask = ASKS.search(asked)
    if ask is None or ask.group().startswith("difference"):
        return None
    return _DIRECTED.search(asked, ask.start(), ask.end()) or _DIRECTED.search(asked, ask.end())


def premise_note(question: str, names: Sequence[str], larger: str) -> str:
    """ "; the K5 is lighter, not heavier" when the question asks how much more (heavier, …) one
    side is than the other and that side holds the smaller value (or less, lighter, … and the
    larger); "" when the values are equal, the question does not say which side it compares with
    (one named right after "than", "compared with/to" or "versus"), or the premise holds."""
    asked = question.lower().replace("-", "")
    which = _WHICH.search(asked)
    if which and not ASKS.search(asked) and larger and len(names) == 2:  # which of the two is more so
        more = which.group(1) not in _DOWN
        return f"; {which.group(1)}: {larger if more else next(n for n in names if n != larger)}"
    word = _direction(asked)
    if not larger or word is None or len(names) != 2:
        return ""
    # the compared-with side follows the comparative ("… heavier is the K7 than the K5"), or
    # opens the question ("Compared with the D6, how much more …")
    marker = _OBJECT.search(asked, word.end()) or _OBJECT.search(asked, 0, word.start())
    if marker is None:
        return ""
    spans = {n: _spans(asked, n) for n in names}
    own = {n: _own(spans[n], [o for m in names if m != n for o in spans[m]]) for n in names}
    objects = [
        n
        for n in names
        if any(s[0] >= marker.end() and _ARTICLE.fullmatch(asked[marker.end() : s[0]]) for s in own[n])
    ]
    if len(objects) != 1:
        return ""
    subject = next(n for n in names if n != objects[0])
    if not own[subject] or (subject == larger) == (word.group(1) not in _DOWN):
        return ""
    verb = "has" if word.group(1) in ("more", "less", "fewer") else "is"
    return f"; {subject} {verb} {_ANTONYM[word.group(1)]}, not {word.group(1)}"


def bullet(question: str, sides: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> str:
    """The difference as a comparison's last bullet, citing where both values are stated; sides:
    each compared name with its (value text, source label) pairs ("" unless each side states one
    value, _agreed, and line() writes one)."""
    values = [_agreed(pairs) for _, pairs in sides]
    if any(v is None for v in values):
        return ""
    computed = line(question, [(name, v[0]) for (name, _), v in zip(sides, values, strict=True) if v])
    if not computed:
        return ""
    sources = " ".join(f"({label})" for label in dict.fromkeys(v[1] for v in values if v))
    return f"- **{LABEL}**:{computed[len(LABEL) + 1 :]} {sources}."


def _agreed(pairs: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """A side's one value: its only pair, or, of several (the spec list's "Battery life: Up to 10
    weeks" and a sentence saying "up to ten weeks … set to 12"), the first that states one
    quantity when every quantity of that kind its texts state has that value (None for "$229.99
    (32 GB), $259.99 (64 GB)")."""
    if len(pairs) == 1:
        return pairs[0]
    first = next(((text, label, q) for text, label in pairs if (q := sole_quantity(_value(text)))), None)
    if first is None:
        return None
    # (its qualifier aside: "$259.99 (64 GB)" is another price of the side)
    stated = [q for text, _ in pairs for _, q in quantities(text) if q.kind[:3] == first[2].kind[:3]]
    return first[:2] if all(q.value == first[2].value for q in stated) else None


def _on_topic(question: str, sides: Sequence[tuple[str, str]], a: Quantity, b: Quantity) -> bool:
    """For "Which … faster, A or B?": the two values differ and each side's text names what is
    compared (a word of the question's besides the names, or the attribute its comparative asks
    for: "lighter" → weight), not the first spec row found ("Driver 40 mm" for "charges faster")."""
    asked = {w[:5] for w in content_words(without_entities(question)) - _COMPARING_WORDS}
    asked |= {ATTRIBUTE_OF[w][:5] for w in content_words(question) if w in ATTRIBUTE_OF}
    return a.value != b.value and all(asked & {w[:5] for w in content_words(text)} for _, text in sides)


def _value(text: str) -> str:
    """A row's values without the name it opens with ("DX-20e — Weight: 6.5 kg" → "Weight: 6.5 kg":
    the model's number is no second quantity)."""
    return text.split(" — ", 1)[1] if " — " in text else text


def _stated(q: Quantity, text: str) -> bool:
    """text states q: a quantity of the same value and kind."""
    found = (_quantity(m, text) for m in _QUANTITY.finditer(text))
    return any(x is not None and (x.value, x.before, x.unit) == (q.value, q.before, q.unit) for x in found)


def verify(text: str, evidence: str, answer: Sequence[str] = (), question: str = "") -> bool | None:
    """Whether a difference line holds (None: text is not one): both inputs are of one kind, the
    evidence states each, another sentence of the answer states each with its name (so the pairing
    of name and value is the one the grounded bullets give), and the result is the larger less the
    smaller, written to the inputs' precision; a premise note names the side holding the value it
    says and, when the question is given, is the one the question calls for."""
    m = _LINE.match(text.strip())
    if m is None:
        return None
    result, a, b = (sole_quantity(m.group(k)) for k in ("result", "qa", "qb"))
    if result is None or a is None or b is None or a.kind != b.kind or result.kind[:2] != a.kind[:2]:
        return False
    if (
        a.value < b.value
        or result.decimals != max(a.decimals, b.decimals)
        or result.value != a.value - b.value
    ):
        return False
    named = [(m.group("a"), a), (m.group("b"), b)]
    note = m.group("note")
    if note is not None and not (
        _note_holds(note, m.group("a"), m.group("b"), a, b)
        and (
            not question or f"; {note}" == premise_note(question, [m.group("a"), m.group("b")], m.group("a"))
        )
    ):
        return False
    return all(_stated(q, evidence) for _, q in named) and all(
        any(name in s and _stated(q, s) for s in answer if s.strip() != text.strip()) for name, q in named
    )


def _note_holds(note: str, big: str, small: str, a: Quantity, b: Quantity) -> bool:
    """A premise note names one side and says it holds the other value than asked: "X is lighter,
    not heavier" of the side with the smaller value (the larger for "heavier, not lighter")."""
    m = _NOTE.match(note)
    if m is None or a.value == b.value:
        return False
    if m.group("which"):  # "lighter: DX-20e": the side holding the smaller value (the larger for "heavier")
        return m.group("which") in _ANTONYM and m.group("one") == (
            small if m.group("which") in _DOWN else big
        )
    if _ANTONYM.get(m.group("asked")) != m.group("word"):
        return False
    return m.group("who") == (small if m.group("word") in _DOWN else big)
