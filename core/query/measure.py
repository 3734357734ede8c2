"""The measure a question's words ask for, and whether a text states a value in it.

"What's the wattage of …" asks for a power, which a text states as "1700 W"; "How heavy …" for a
weight ("11.2 kg"), "How loud …" for a sound level ("52 dB"), "How often …" for a repetition
("every 90 days"), "How long does it take …" for a duration, "How long is …" for a duration or a
length. A question word that asks for a measure is met by a value in that measure's units, as it
would be by its own word: "Power: 1700 W" answers the wattage without the word (core/scoring.py,
core/answer/evidence.py). The words and units are plain English and SI/imperial units, no corpus's
vocabulary; a word that asks for no measure gets none, and a measure no text states changes nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from core.text import ATTRIBUTE_OF

# a number, then its unit (not a letter or digit straight after: "12 kg", "2.4-inch", "1,700W")
_NUM = r"(?<![\w.])\d[\d,.]*\s*-?\s*"
_END = r"(?![\w/²³])"


def _units(alternatives: str) -> str:
    return rf"{_NUM}(?:{alternatives}){_END}"


_MEASURE = {
    "weight": _units(r"kg|g|mg|t|tonnes?|tons?|kgs|kilo(?:gram)?s?|grams?|lbs?|pounds?|oz|ounces?"),
    "power": _units(r"[kmM]?W|watts?|kilowatts?|hp|horsepower"),
    "energy": _units(r"m?Ah|[kM]?Wh|kJ|J|joules?|kcal|calories"),
    "sound": _units(r"dB\(?A?\)?|decibels?"),
    "duration": _units(
        r"s|secs?|seconds?|ms|min|mins|minutes?|h|hrs?|yrs?|(?:(?:business|working|calendar|school|banking|"
        r"consecutive|full|clear|man|person)[ -])?(?:hours?|days?|weeks?|months?|years?)"  # "14 business days"
    ),
    "length": _units(
        r"[nµμmck]?m|inch(?:es)?|\"|ft|feet|foot|yards?|yd|mi|miles?|(?:kilo|centi|milli)?met(?:re|er)s?"
    ),
    "area": _units(r"[mck]?m²|sq\.?\s?(?:m|ft|feet)|square (?:met(?:re|er)s?|feet)|acres?|hectares?|ha"),
    "volume": _units(r"[mcd]?[lL]|litres?|liters?|gal|gallons?|fl\.?\s?oz|cups?|m³"),
    "money": r"(?:[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD)\s?)\d|\d[\d,.]*\s*(?:USD|EUR|GBP|dollars?|euros?|cents?|pounds?)\b",
    "speed": _units(r"m/s|km/h|kmh|kph|mph|knots?|rpm|[kMG]?bps|[kMG]bit/s|[KMG]B/s"),
    "temperature": r"\d\s*°\s*[CF]?|\d\s*(?:degrees?|deg|K|kelvin)\b",
    "pressure": _units(r"k?Pa|m?bar|psi|atm"),
    "torque": _units(r"N\s?m|N·m|newton[- ]met(?:re|er)s?|lb[- ]?ft"),
    "frequency": _units(r"[kMG]?Hz"),
    "voltage": _units(r"[km]?V|volts?"),
    "current": _units(r"m?A|amps?|amperes?"),
    "data": _units(r"[KMGT]i?B|[kMGT]b|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?"),
    "brightness": _units(r"lm|lumens?|nits?|lux|cd/m²"),
    "resolution": _units(r"MP|megapixels?|px|pixels|p|K|dpi|ppi"),
    "share": r"\d\s*%|\d\s*(?:percent|per cent)\b",
    "tolerance": r"±|\+/-|\+-",
    "repetition": r"(?i:\bevery\b|\b(?:once|twice|\d+ times) (?:a|an|per|every)\b|\bper (?:day|week|month|year|hour|use)\b"
    r"|\b(?:hourly|daily|weekly|monthly|yearly|annually)\b)",
}
# a question word → the measures a value answering it is stated in
_ASKS: dict[str, tuple[str, ...]] = {}
for _measure, _words in {
    "weight": "heavy heavier lighter weigh weighs weight weights payload",
    "power": "wattage watt watts power consumption horsepower",
    "energy": "capacity energy",
    "torque": "torque",
    "sound": "loud louder loudness noise noisy quiet quieter decibel decibels",
    "duration": "duration runtime lifetime long longer wait",
    "length": "tall taller height wide wider width deep deeper depth long longer length thick thickness "
    "diameter far distance reach clearance dimensions size big bigger large larger small smaller",
    "area": "area coverage size big bigger large larger",
    "volume": "capacity volume litres liters size big bigger large larger",
    "money": "cost costs price priced pricier cheaper expensive fee fees msrp",
    "speed": "fast faster speed speeds throughput bandwidth",
    "temperature": "temperature temperatures hot hotter cold colder warm warmer",
    "pressure": "suction",
    "frequency": "frequency",
    "voltage": "voltage volts",
    "current": "amps amperage",
    "resolution": "resolution megapixels megapixel pixels",
    "data": "storage ram",
    "brightness": "bright brighter brightness lumens",
    "share": "percent percentage efficiency humidity",
    "tolerance": "precise precision accurate accuracy tolerance repeatability",
    "repetition": "often frequently",
}.items():
    for _w in _words.split():
        _ASKS[_w] = (*_ASKS.get(_w, ()), _measure)
_WORD = re.compile(r"[a-z]+")


# "How long does it take / last / run …" (the verb within a few words): a duration, not a length
_HOW_LONG_VERB = re.compile(
    r"\bhow long (?:[\w-]+ ){0,4}?(take|takes|took|last|lasts|lasted|run|runs|stay|stays|keep|keeps|wait|until)\b"
)

_BATTERY = re.compile(r"\bbatter(?:y|ies)\b")
# a noun that only says "how much of it" after a word asking a measure ("suction power", "noise
# level"): the compound asks that word's measure, not a power in watts
_HEAD_OF_A_MEASURE = re.compile(r"\b([a-z]+)\s+(power|strength|force|level|rating)\b")
_SIZE = frozenset("size big bigger large larger".split())
_HOW_MUCH_IS = re.compile(
    r"\bhow much (?:is|are|was|were|would|will) (?:a|an|the|one|it|they|this|that|these|those)\b"
)


def measure_heads(question: str) -> dict[str, str]:
    """The nouns that only say "how much" after a word asking a measure → that word ("suction
    power" → "suction"): the compound asks the word's measure, and the noun names no attribute."""
    return {
        m.group(2): m.group(1) for m in _HEAD_OF_A_MEASURE.finditer(question.lower()) if m.group(1) in _ASKS
    }


def unit_pattern(measure: str) -> str:
    """The pattern of a value stated in the measure ("energy": "3,850 mAh", "1.9 kWh")."""
    return _MEASURE[measure]


@functools.lru_cache(maxsize=512)
def asked_measures(question: str) -> dict[str, tuple[re.Pattern[str], int]]:
    """Each word of the question that asks for a measure → a pattern of the values stated in it,
    and how many measures it may ask for ("long": a duration or a length, 2)."""
    lowered = question.lower()
    found = {w: _ASKS[w] for w in _WORD.findall(lowered) if w in _ASKS}
    if verb := _HOW_LONG_VERB.search(lowered):
        found |= {"long": ("duration",), verb.group(1): ("duration",)}
    if _BATTERY.search(lowered):  # a battery's size is its capacity ("How big is the battery?")
        found |= {w: (*found[w], "energy") for w in found.keys() & _SIZE}
    for head, word in measure_heads(question).items():  # "suction power": a suction, stated in Pa
        found[head] = _ASKS[word]
    if not found and _HOW_MUCH_IS.search(lowered):  # "How much is the H7?": its price
        found = {"much": ("money",)}
    return {w: (re.compile("|".join(_MEASURE[m] for m in ms)), len(ms)) for w, ms in found.items()}


def measured(question: str, texts: Sequence[str], sole: bool = False) -> list[frozenset[str]]:
    """For each text, the question's measure words it states a value for ("wattage" in "Power:
    1700 W"). A word some text writes, itself or by its attribute's name ("weigh" or "heavy" by
    "Vehicle weight"), is met by that word only, so "Payload: 300 kg" does not meet it beside
    "Vehicle weight: 118 kg". sole: only the words that ask for one measure ("wattage", not "long",
    a duration or a length). All empty when no word of the question asks for a measure."""
    asked = {w: p for w, (p, n) in asked_measures(question).items() if n == 1 or not sole}
    if asked:
        written = {w for t in texts for w in _WORD.findall(t.lower())}
        asked = {w: p for w, p in asked.items() if not _writes(written, w)}
    if not asked:
        return [frozenset()] * len(texts)
    return [frozenset(w for w, p in asked.items() if p.search(t)) for t in texts]


def states_measure(question: str, text: str) -> bool:
    """The text is on a measure the question asks for: it writes the asking word or its attribute
    (by their first five letters: "weighs" for "How heavy"), or states a value in the one measure a
    word asks for ("4.6 kg" for "heavy"; not "3 hours" for "long", a duration or a length)."""
    asked = asked_measures(question)
    if not asked:
        return False
    written = _WORD.findall(text.lower())
    return any(_writes(written, w) or (n == 1 and p.search(text)) for w, (p, n) in asked.items())


def _writes(written: Iterable[str], word: str) -> bool:
    """Some written word is the asking word or its attribute, by their first five letters ("weighs"
    for "heavy", whose attribute is "weight")."""
    return any(x.startswith((word[:5], ATTRIBUTE_OF.get(word, word)[:5])) for x in written)
