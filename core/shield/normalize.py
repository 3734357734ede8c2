"""Text as a model reads it: what a crafted document hides from a pattern is folded away.

NFKC (full-width, mathematical and circled letters, ligatures → plain letters), every default-
ignorable and format character dropped (zero-width spaces and joiners, U+034F, variation selectors,
bidi controls, tag characters, soft hyphens …), and homoglyphs folded to their Latin skeleton
(Unicode TR39 confusables, from `confusable_homoglyphs`) inside words that mix scripts or are made
only of look-alikes, so "ѕуѕtеm" reads "system" while a real Russian or Greek word stays itself.
Each character of the reading keeps the index of the original character it came from.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), besides the Cf category
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def invisible(ch: str) -> bool:
    """True for a character that changes nothing a reader sees (default-ignorable or format)."""
    cp = ord(ch)
    return unicodedata.category(ch) == "Cf" or any(lo <= cp <= hi for lo, hi in _IGNORABLE_RANGES)


@functools.cache
def _skeletons() -> dict[str, str]:
    """Non-Latin letters that look like one ASCII letter or digit → that character."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    folds: dict[str, str] = {}
    for ch, glyphs in data.items():
        if len(ch) != 1 or ch.isascii() or not ch.isalpha():
            continue
        ascii_like = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        if ascii_like:  # TR39 gives capital I's look-alikes the skeleton "l"
            folds[ch] = "I" if ascii_like[0] == "l" and ch.isupper() else ascii_like[0]
    return folds


@dataclass(frozen=True)
class Reading:
    """The text as read, and for each of its characters the index of the original character."""

    text: str
    where: Sequence[int]


_WORD = re.compile(r"\w+")
_PLAIN = re.compile(r"[\x00-\x7f\u00c0-\u024f\s]*")  # ASCII and Latin letters: nothing to fold


def reading(text: str) -> Reading:
    """The text as a model reads it (see the module docstring)."""
    if _PLAIN.fullmatch(text) and text.isprintable() or text.isascii():
        return Reading(text, range(len(text)))
    chars: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if invisible(ch):
            continue
        for out in unicodedata.normalize("NFKC", ch):
            chars.append(out)
            where.append(i)
    return Reading(_fold_homoglyphs("".join(chars)), where)


def _fold_homoglyphs(text: str) -> str:
    """Look-alike letters folded to Latin in words that mix scripts or consist only of look-alikes
    (the length never changes: one character for one)."""
    folds = _skeletons()
    if not any(ch in folds for ch in text):
        return text

    def fold(m: re.Match[str]) -> str:
        word = m.group(0)
        foldable = [ch in folds for ch in word if ch.isalpha()]
        mixed = any(ch.isascii() and ch.isalpha() for ch in word)
        if any(foldable) and (mixed or all(foldable)):
            return "".join(folds.get(ch, ch) for ch in word)
        return word

    return _WORD.sub(fold, text)
