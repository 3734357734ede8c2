"""Text primitives every stage shares: words, stop words and sentences.

Sentences are split with BlingFire (a compiled, well-tested splitter; ~100x faster than pure
Python). Document structure the splitter cannot see is respected first: paragraph breaks, and
lines that are headings, list items or table rows, always end a sentence."""

from __future__ import annotations

import functools
import re
import unicodedata
import zlib

import blingfire
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

WORD = re.compile(r"\w+")
# names and model numbers ("ArmX2", "v2.4.1") stay whole for key terms
TERM = re.compile(r"[A-Za-z][\w.\-]*\d[\w.\-]*|[A-Z][\w\-]+|\w+")
# a number of its own ("12 kg", "2,200 Pa", "released 2024"), not a name's digits ("D6", "v2")
NUMBER = re.compile(r"(?<![A-Za-z0-9.,])\d(?:[\d,.]*\d)?")

# function words: left out of word overlap (relevance, refusal, grounding)
STOP_WORDS = frozenset(
    "a an the and or but of to in on at for with by from is are was were be been do does did what "
    "which who whom whose when where why how much many it its this that these those they them "
    "there their i we you can could should would will may might must has have had as if than "
    # what is left of a contraction or possessive once split at its apostrophe ("what's", "G5's", "isn't")
    "s t d ll re ve m don doesn didn isn aren wasn weren couldn shouldn wouldn hasn haven hadn "
    # the asker's and the reader's pronouns: a question's "my" is no word a passage must hold (and a
    # store of "your …" pages holds it rarely, so by rarity it weighed as much as the asked model)
    "my myself your yours yourself our ours".split()
)
# function words plus the conversational words a follow-up question carries ("tell me about the other one")
QUERY_NOISE = STOP_WORDS | frozenset(
    "about he she his her one ones me shall not no yes also so then here any some all "
    "more most other second first third last previous above same former latter tell please".split()
)
# words that ask for an attribute by another name → that attribute (plain English, no corpus's vocabulary)
# the words that open a condition ("… when it is folded", "… as soon as it beeps")
CONDITION_OPENERS = r"\b(?:when|whenever|if|after|before|during|while|once|until|as soon as)"
ATTRIBUTE_OF = {
    "lighter": "weight", "heavier": "weight", "faster": "speed", "slower": "speed", "quicker": "speed",
    "cheaper": "price", "pricier": "price", "expensive": "price", "costlier": "price", "cost": "price",
    "bigger": "size", "larger": "size", "smaller": "size", "longer": "length", "shorter": "length",
    "newer": "release", "older": "release", "precise": "repeatability", "accurate": "accuracy",
    "heavy": "weight", "costs": "price", "priced": "price", "fast": "speed", "weigh": "weight",
    "weighs": "weight", "fly": "flight", "flies": "flight", "tall": "height", "wide": "width", "deep": "depth",
    "screen": "display", "colour": "color", "colours": "colors", "color": "colour", "colors": "colours",
    "recharge": "charge", "recharging": "charging", "tyre": "tire", "tyres": "tires", "tire": "tyre", "tires": "tyres",
    "cheapest": "price", "priciest": "price", "lightest": "weight", "heaviest": "weight",
    "fastest": "speed", "slowest": "speed", "tallest": "height", "widest": "width",
}  # fmt: skip

# a wider list for lexical search (scikit-learn's English list)
SEARCH_STOP_WORDS = ENGLISH_STOP_WORDS | STOP_WORDS  # (its list lacks "did", "does")


def words(text: str) -> list[str]:
    """Lower-cased words of text, in order."""
    return WORD.findall(text.lower())


def hashed_words(text: str) -> frozenset[int]:
    """The text's distinct lower-cased words, each as the CRC-32 of its UTF-8: the word set
    dedupe compares, compact enough to store with every chunk (core/prepared.py)."""
    return frozenset(zlib.crc32(w.encode("utf-8")) for w in set(words(text)))


def content_words(text: str) -> set[str]:
    """Lower-cased words of text without function words, accents folded ("Yesün" is "yesun", as
    the lexical index's tokenizer reads it: remove_diacritics)."""
    return {w for w in WORD.findall(fold(text.lower())) if w not in STOP_WORDS}


def fold(text: str) -> str:
    """The text without the accents of its Latin letters ("Zürich" → "Zurich"; other scripts'
    marks, such as a kana's dakuten, stay, and so do ligatures and superscripts: the canonical
    decomposition only); ASCII text as it is."""
    if text.isascii():
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if not (unicodedata.combining(ch) and out and out[-1].isascii()):
            out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def key_terms(text: str, limit: int = 8) -> list[str]:
    """Content words of text, names and model numbers first."""
    found = [w for w in TERM.findall(text) if w.lower() not in QUERY_NOISE and len(w) > 1]
    ranked = sorted(dict.fromkeys(found), key=lambda w: not (w[0].isupper() or any(ch.isdigit() for ch in w)))
    return ranked[:limit]


_STRUCTURAL = re.compile(r"^\s*(#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|\|)")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_DEL_NOT_ALPHA = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122))
_DEL_NOT_UPPER = bytes(b for b in range(256) if not 65 <= b <= 90)


@functools.lru_cache(maxsize=8192)
def split_sentences(text: str) -> tuple[str, ...]:
    """The sentences of text, in order, whitespace-trimmed."""
    out: list[str] = []
    for para in text.split("\n\n"):
        for block in _blocks(para):
            if is_structural(block):  # (a heading included)
                out.append(block)
                continue
            for line in blingfire.text_to_sentences(block).split("\n"):
                line = line.strip()
                if line:
                    out.append(line)
    return tuple(out)


def _blocks(para: str) -> list[str]:
    """Lines of a paragraph grouped so that structural lines stand alone."""
    blocks: list[str] = []
    current: list[str] = []
    for line in para.split("\n"):
        if not line.strip():
            continue
        if _STRUCTURAL.match(line) or is_heading(line):
            if current:
                blocks.append(" ".join(current))
                current = []
            blocks.append(line.strip())
        else:
            current.append(line.strip())
    if current:
        blocks.append(" ".join(current))
    return blocks


def is_structural(line: str) -> bool:
    """A heading, list item or table row (it stands on its own line)."""
    return bool(_STRUCTURAL.match(line)) or is_heading(line)


def is_heading(sentence: str) -> bool:
    """A markdown heading or an all-caps title line: not an answer by itself."""
    s = sentence.strip()
    if s.startswith("#"):
        return True
    # letters and upper-case letters counted with C-level byte deletes for the ASCII part and in
    # Python only for the few non-ASCII chars (same counts as str.isalpha/isupper; ~6x faster)
    raw = s.encode("ascii", "ignore")
    n_letters = len(raw.translate(None, _DEL_NOT_ALPHA))
    n_upper = len(raw.translate(None, _DEL_NOT_UPPER))
    for ch in _NON_ASCII.findall(s):
        if ch.isalpha():
            n_letters += 1
            n_upper += ch.isupper()
    return n_letters >= 4 and n_upper / n_letters > 0.8


_EMPHASIS = re.compile(r"(\*\*|__|\*|`)(?=\S)(.+?)(?<=\S)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def strip_markup(text: str) -> str:
    """Inline Markdown removed: **bold**, *em*, `code` and [links](url) become their text."""
    return _EMPHASIS.sub(r"\2", _LINK.sub(r"\1", text)).strip()
