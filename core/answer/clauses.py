"""A sentence that gives one value per sibling model, narrowed to the asked model's clauses.

"The control loop runs at 1 kHz on the NC-300 and at 500 Hz on the NC-200." answers "At what rate
does the control loop run on the NC-200?" only through its second clause; quoted whole, it also puts
the NC-300's 1 kHz in the answer, and a reader cannot tell which value is the one asked. The
sentence is cut at its clause boundaries (";", "and", "while", "whereas", "but", "compared to",
"versus"). A clause that names no model goes with the model named before it, unless it opens with
"both", "each", "all", "every", "neither" or "either" (it is about every model, and is kept). When
some clauses state a value of an asked model and others one of a sibling (same family, another
model: core/query/entities.py), the sentence is shown as the asked clauses, led by the sentence's
lead (its words before its first value) when the first of them does not open with the asked model,
elisions marked "…": "The control loop runs … at 500 Hz on the NC-200." A sentence whose clauses do
not separate the models so is shown whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.query.entities import entities, family, matches

_BOUNDARY = re.compile(
    r"\s*(?:;|,?\s+(?:and|while|whereas|but)\s+|,?\s+(?:compared|as opposed) (?:to|with)\s+"
    r"|\s+(?:versus|vs\.?)\s+)\s*",
    re.I,
)
# a stated value: an amount of money, or a number with its unit ("1 kHz", "15 ms", "12 kg", "80%")
_VALUE = re.compile(
    r"[$€£]\s?\d|(?<![\w.])\d[\d,.]*\s?(?:%|(?:[kMG]?Hz|[µmn]?s|min|h|hours?|minutes?|seconds?|days?"
    r"|weeks?|months?|years?|[mck]?m|kg|g|t|k?N|Nm|k?Wh?|V|mA|A|rpm|dB|°C?|m/s)\b)"
)
# words a lead cut before its value may end with ("The control loop runs at" → "… runs")
_DANGLING = re.compile(
    r"(?:[\s,(]+(?:at|of|is|are|was|were|to|up|by|about|around|approximately|roughly|a|an|the|with"
    r"|for|from|in|on|has|have|had|reaches|takes))+\s*$",
    re.I,
)


_OPENING = re.compile(r"(?:the\s+)?(\S+(?:\s+\S+)?)", re.I)  # a clause's first two words after "the"
_SHARED = re.compile(r"(?:both|each|all|every|neither|either)\b", re.I)


def _pieces(text: str) -> list[tuple[int, int]]:
    """The spans of the sentence's clauses, without the boundaries between them."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip(" ,.")]


def asked_clauses(text: str, wanted: Iterable[str]) -> str | None:
    """The sentence narrowed to its clauses about an asked model, or None when it names no sibling
    model in a clause of its own (it is then shown whole)."""
    wanted = set(wanted)
    if not wanted:
        return None
    families = {family(w) for w in wanted}
    pieces = _pieces(text)
    if len(pieces) < 2:
        return None
    subjects: list[str | None] = []  # "asked", "sibling", or None (no model named yet)
    current: str | None = None
    for a, b in pieces:
        found = entities(text[a:b])
        asked = matches(wanted, found)
        sibling = any(family(t) in families and not matches(wanted, {t}) for t in found)
        if asked and sibling:
            return None  # one clause about both: nothing to cut
        if not asked and not sibling and _SHARED.match(text, a):  # "… and both are IP54": every model
            subjects.append("shared")
            continue
        current = "asked" if asked else "sibling" if sibling else current
        subjects.append(current)
    valued = {s for s, (a, b) in zip(subjects, pieces, strict=True) if _VALUE.search(text, a, b)}
    if not {"asked", "sibling"} <= valued:
        return None  # not one value per model ("The ArmX2 and the ArmX3 share a flange.")
    kept = [i for i, s in enumerate(subjects) if s == "asked" or (s == "shared" and i)]
    shown: list[str] = []
    opening = _OPENING.match(text, pieces[kept[0]][0])
    own_subject = opening is not None and matches(wanted, entities(opening.group(1)))  # "the ArmX3 weighs …"
    if kept[0] > 0 and not own_subject:  # the asked clause leans on the sentence's lead for its verb
        a, b = pieces[0]
        value = _VALUE.search(text, a, b)
        lead = _DANGLING.sub("", text[a : value.start() if value else b]).strip(" ,(")
        if lead:
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


def _balanced(piece: str) -> str:
    """A kept piece without the bracket its cut left open or closed ("15 ms on the ArmX2)")."""
    if piece.count("(") < piece.count(")"):
        piece = piece.rstrip(")").rstrip()
    if piece.count("(") > piece.count(")"):
        piece = piece[: piece.rfind("(")].rstrip(" ,") if piece.rstrip().endswith("(") else piece + ")"
    return piece
