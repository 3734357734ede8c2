"""A sentence that gives each sibling model its own value, narrowed to the asked model's clauses.

"The control loop runs at 1 kHz on the NC-300 and at 500 Hz on the NC-200." answers "At what rate
does the control loop run on the NC-200?" only through its second clause; quoted whole, it also puts
the NC-300's 1 kHz in the answer, and a reader cannot tell which value is the one asked. The
sentence is cut where it coordinates clauses (";", "and", "while", "whereas", "but"; not "5 and
40", a range). It is narrowed only in two plain shapes, and shown whole otherwise:
- parallel clauses that each open with their model and verb: "The ArmX2 weighs 21 kg and the ArmX3
  weighs 33 kg." → "The ArmX3 weighs 33 kg." (not "… and the ArmX3 33 kg", whose verb is left out);
- clauses that each end on their model, after a lead naming none: "The control loop runs at 1 kHz
  on the NC-300 and at 500 Hz on the NC-200." → "The control loop runs … at 500 Hz on the NC-200."
  (the lead is the words before the first value).
A list of values each given its model is narrowed to the asked item, the words around it kept
(asked_value): "The figures (70 km for the Stride 3 and 120 km for the Stride 30) are …" →
"The figures (120 km for the Stride 30) are …".
A model named without a value of its own, a clause about "both"/"each"/"all" models, a pronoun in
the kept clause ("it is 200 ms"), or a lead or opening that names a model or sets a condition ("At
25 °C, …") leaves the sentence whole: a cut there could drop the answer or pin a value on the wrong
model. A reference value ("…, compared with 21 kg for the ArmX2") is no coordinated clause and is
never cut off.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.query.entities import entities, matches, siblings, written

_BOUNDARY = re.compile(r"\s*(?:;|,?\s+(?:and|while|whereas|but)\s+(?![\d$€£]))\s*", re.I)
# a number with its unit ("1 kHz", "15 ms", "12 kg", "80%")
_MEASURE = (
    r"(?<![\w.])\d[\d,.]*\s?(?:%|(?:[kMG]?Hz|[µmn]?s|min|h|hours?|minutes?|seconds?|days?"
    r"|weeks?|months?|years?|[mck]?m|kg|g|t|k?N|Nm|k?Wh?|V|mA|A|rpm|dB|°C?|m/s)\b)"
)
# a stated value: an amount of money, or a measure
_VALUE = re.compile(rf"[$€£]\s?\d|{_MEASURE}")
# words a lead cut before its value may end with ("The control loop runs at" → "… runs")
_DANGLING = re.compile(
    r"(?:[\s,(]+(?:at|of|is|are|was|were|to|up|by|about|around|approximately|roughly|a|an|the|with"
    r"|for|from|in|on|has|have|had|reaches|takes))+\s*$",
    re.I,
)
_SHARED = re.compile(r"(?:both|each|all|every|neither|either)\b", re.I)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|this|these|those)\b", re.I)
# what may stand between a clause's start and its model ("the ArmX3", "The Kestrel K3"), and what
# after the model shows its verb was left out ("the ArmX3 650 W", "the ArmX3 in 20 s")
_ARTICLE = re.compile(r"\s*(?:[Tt]he\s+)?(?:[A-Z][\w-]*\s+)?")
_GAPPED = re.compile(
    r"\W*(?:[$€£]?\d|(?:at|in|on|for|from|to|of|with|between|by|up|after|before|within|under|over)\b)", re.I
)


def _pieces(text: str) -> list[tuple[int, int]]:
    """The spans of the sentence's clauses, without the boundaries between them."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip(" ,.")]


def _opening_model(text: str, span: tuple[int, int]) -> tuple[set[str], int] | None:
    """The model a clause opens with ("the ArmX3 weighs …") and where its name ends, if it does."""
    a, b = span
    opening_end = _ARTICLE.match(text, a, b).end()  # the pattern is all optional: it always matches
    for m in re.finditer(r"\S+", text[a:b]):
        if a + m.start() > opening_end:
            return None
        found = entities(m.group())
        if found:
            return found, a + m.end()
    return None


def asked_clauses(text: str, wanted: Iterable[str]) -> str | None:
    """The sentence narrowed to its clauses about an asked model, or None: shown whole."""
    wanted = set(wanted)
    if not wanted:  # most questions name no model: no clause splitting for them
        return None
    listed = asked_value(text, wanted)
    if listed is not None:
        return listed
    pieces = _pieces(text)
    if len(pieces) < 2 or any(_SHARED.match(text, a) for a, _ in pieces):
        return None
    subjects: list[str | None] = []  # "asked", "sibling", or None (no model named yet)
    current: str | None = None
    for a, b in pieces:
        found = entities(text[a:b])
        asked, sibling = matches(wanted, found), bool(siblings(wanted, found))
        if asked and sibling:
            return None  # one clause about both: nothing to cut
        if (asked or sibling) and not _VALUE.search(text, a, b):
            return None  # a model named without a value of its own ("The NC-200 and NC-300 both …")
        current = "asked" if asked else "sibling" if sibling else current
        subjects.append(current)
    if "asked" not in subjects or "sibling" not in subjects or subjects[0] is None:
        return None
    kept = [i for i, s in enumerate(subjects) if s == "asked"]
    if any(_PRONOUN.search(text, *pieces[i]) for i in kept):
        return None  # "in 4.2.0 it is 200 ms": what "it" is stays behind
    opening = _opening_model(text, pieces[kept[0]])
    shown: list[str] = []
    if opening is not None:  # parallel clauses: each opens with its model and its own verb
        first = _opening_model(text, pieces[0])
        if kept[0] and (first is None or not siblings(wanted, first[0])):
            return None  # the first clause opens otherwise: a condition or label ("At 25 °C, …")
        if _GAPPED.match(text, opening[1], pieces[kept[0]][1]):
            return None  # "the ArmX3 650 W": the verb is in the other model's clause
    elif kept[0]:  # the clause ends on its model: it leans on the sentence's lead for its verb
        a, b = pieces[0]
        value = _VALUE.search(text, a, b)
        lead = _DANGLING.sub("", text[a : value.start() if value else b]).strip(" ,(")
        if not lead or entities(lead):
            return None  # a lead naming a model would pin the asked value on it
        shown.append(lead)
    run_start = kept[0]
    for j, i in enumerate(kept):  # consecutive clauses keep the words between them
        if j + 1 == len(kept) or kept[j + 1] != i + 1:
            shown.append(text[pieces[run_start][0] : pieces[i][1]].strip(" ,;.").rstrip(" ,;"))
            if j + 1 < len(kept):
                run_start = kept[j + 1]
    out = " … ".join(_balanced(piece) for piece in shown)
    out = out[:1].upper() + out[1:]  # "the ArmX3 weighs …" opens the answer
    return out + "." if text.rstrip().endswith(".") and not out.endswith((".", "!", "?")) else out


# a list of values each given its model: "70 km for the Stride 3, 90 km for the Stride 3 Plus and
# 120 km for the Stride 30"; an item is a value, "for"/"on", maybe "the", and a model's name, nothing more
_FOR = re.compile(r"\s+(?:for|on)\s+(?:the\s+)?")
_AMOUNT = re.compile(rf"[$€£]\s?\d{{1,3}}(?:,\d{{3}})*(?:\.\d+)?\b|{_MEASURE}")  # a whole amount ("€1,799")
# the run must open the sentence, a bracket, a colon or follow a word: after "1 hour," the value
# before the comma would belong to the first item ("1 hour, 30 minutes for the Stride 3")
_OPENS = re.compile(r"(?:^|[(:]|[A-Za-z])\s*$")
# and end the sentence or its bracket: words after the last item may be that item's alone
_CLOSED = re.compile(r"\s*(?:\)|[.;]?\s*$)")
_NEXT = re.compile(r",\s+and\s+|,\s+|\s+and\s+")


def _item(text: str, at: int) -> tuple[int, set[str]] | None:
    """Where the item starting at `at` ends and the model it names, if a value-for-model item starts there."""
    value = _AMOUNT.match(text, at)
    joint = _FOR.match(text, value.end()) if value else None
    if joint is None:
        return None
    named = written(text[joint.end() :])
    if not named or not text.startswith(named[0][0], joint.end()):
        return None
    return joint.end() + len(named[0][0]), {named[0][1]}


def asked_value(text: str, wanted: set[str]) -> str | None:
    """The sentence with its list of values per model narrowed to the asked model's item ("The range
    figures (120 km for the Stride 30) are measured in Eco mode …"), or None. Only a run of two or
    more items each exactly a value and its own model, one of them the asked model's and the others
    its siblings', ending the sentence or its bracket, is narrowed: the words before the run and after
    its bracket, which speak of every item, stay."""
    for start in (m.start() for m in _AMOUNT.finditer(text)):
        if not _OPENS.search(text[:start]) or any(ch.isdigit() for ch in " ".join(text[:start].split()[-2:])):
            continue  # "3 to 5 h for …", "2 x 500 Wh for …": the value begins before the run
        items: list[tuple[int, int, set[str]]] = []
        at = start
        while (found := _item(text, at)) is not None:
            items.append((at, found[0], found[1]))
            joint = _NEXT.match(text, found[0])
            if joint is None:
                break
            at = joint.end()
        if len(items) < 2:
            continue
        asked = [(a, b) for a, b, named in items if matches(wanted, named)]
        if len(asked) != 1 or not all(matches(wanted, n) or siblings(wanted, n) for _, _, n in items):
            return None
        a, b = asked[0]
        before, after = text[:start], text[items[-1][1] :]
        if siblings(wanted, entities(before)) or not _CLOSED.match(after):
            return None  # words about another model, or after the last item ("… for the Stride 30 (with two batteries)")
        return before + text[a:b] + after
    return None


def _balanced(piece: str) -> str:
    """A kept piece without the bracket its cut left open or closed ("15 ms on the ArmX2)")."""
    if piece.count("(") < piece.count(")"):
        piece = piece.rstrip(")").rstrip()
    if piece.count("(") > piece.count(")"):
        piece = piece[: piece.rfind("(")].rstrip(" ,") if piece.rstrip().endswith("(") else piece + ")"
    return piece
