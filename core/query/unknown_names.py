"""The names of things a question asks about that no passage of the store holds.

"Is the Kestrel Pro better than a Roborock S8?", "How do I factory reset a Kobo Clara?", "Can I
control it from a Philips Hue bridge?", "Can I use it with my PS5?", "How do I reset my iPhone?",
"How does it compare to the VanMoof S5?": a run of capitalised words (or of words like "iPhone")
after an indefinite article, a possessive or a comparison ("a", "my", "than", "vs", "compared to
the") names a product, a brand or a service the question asks about, and when one of its words is
held by not one passage of the store (by the lexical index's stemmed terms, so "Minis" is held by
"Mini"), the documents say nothing about that thing, however close their other words are. The
extractive answer refuses such a question and names the word (core/answer/extractive.py) rather
than quoting the store's own products as if they answered it.

Only such a run: a name elsewhere in a question is as often a person, a people or a place written
another way than the documents write it ("Who was on Celeron's expedition?" of an article that
writes "Céloron", "Jewish" of one that writes "Jews"): read anywhere, such names refused 75 of
../shared/eval's SQuAD questions, 32 of them answerable, and none stands after such a word. A
question about shipping "to Brazil" is answered by the store's list of where it ships. Nor is a question
written in capitals or in title case read. Plain English words only, no corpus's vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.text import content_words

# a word starting with a letter, not inside a code or a number ("WH" of "WH-1000XM5" is one)
_TOKEN = re.compile(r"(?<![\w])[A-Za-z][\w]*")
_IN_A_NAME = re.compile(r"[ \u00a0]+(?:\d(?:[\d.,]*\d)?[ \u00a0]+)?$")  # "Kobo Clara", "DDA 7.5 dosing"
# the words before a name of a thing of a kind, one of several or compared ("a Kobo Clara", "my
# PS5", "than a Roborock S8", "vs Roborock")
_BEFORE_A_THING = frozenset("a an my our your his her their than vs versus".split())
# or a determiner after a comparison ("than the Roborock S8", "compared to the VanMoof S5")
_COMPARED = re.compile(
    r"\b(?:than|vs\.?|versus|compared?\s+(?:to|with)|comparison\s+(?:to|with))\s+(?:the|an?)\s+$", re.I
)
_CAMEL = re.compile(r"^[a-z]+[A-Z][a-z]{2,}")
_SENTENCE_END = re.compile(r"[.!?:;]\s")  # what ends a sentence (or opens a new one) between two words


def _capital(token: str) -> bool:
    """A word written as a name: capitalised, or a lower-case prefix before a capitalised word
    ("iPhone", "eBay"; not a unit: "mAh", "kWh", "dB", "mL")."""
    return token[0].isupper() or _CAMEL.match(token) is not None


def _cased(question: str) -> list[re.Match[str]]:
    """The question's words when its capitals mark names (none when it is written in capitals or
    in title case)."""
    matches = list(_TOKEN.finditer(question))
    tokens = [m.group() for m in matches]
    letters = [c for c in question if c.isalpha()]
    if not tokens or sum(c.isupper() for c in letters) > len(letters) / 2:
        return []  # "WHAT IS THE PRICE"
    inner = tokens[1:]
    if len(inner) >= 3 and sum(t[0].isupper() for t in inner) > len(inner) / 2:
        return []  # "How Do I Reset My Kestrel"
    return matches


def written_names(question: str) -> list[str]:
    """The capitalised words of a question other than the first of a sentence ("Switzerland",
    "Spirited", "Away"), as it writes them; none when its capitals do not mark names."""
    matches = _cased(question)
    return [
        m.group()
        for i, m in enumerate(matches)
        if i > 0 and _capital(m.group()) and m.group() != "I"
        and not _SENTENCE_END.search(question, matches[i - 1].end(), m.start())
    ]  # fmt: skip


def unknown_names(question: str, df: Mapping[str, int]) -> list[str]:
    """The words, as the question writes them, of its names of things (a run of capitalised words
    after one of _BEFORE_A_THING) that no passage of the store holds: df, how many passages hold
    each of the question's content words (a word it does not count is held)."""
    matches = _cased(question)
    if not matches:
        return []
    tokens = [m.group() for m in matches]
    found: list[str] = []
    thing = False  # inside a run of capitalised words after a word before a thing
    for i, token in enumerate(tokens):
        # two words of one phrase: only spaces or a number between them (not "a Kestrel 5. Sadly")
        joined = i > 0 and _IN_A_NAME.match(question, matches[i - 1].end(), matches[i].start()) is not None
        if not _capital(token):
            thing = False
            continue
        if not (joined and _capital(tokens[i - 1])):  # a new run of capitalised words
            thing = joined and (
                tokens[i - 1].lower() in _BEFORE_A_THING
                or _COMPARED.search(question, 0, matches[i].start()) is not None
            )
        if thing and any(df.get(w, 1) == 0 for w in content_words(token)):
            found.append(token)
    return found
