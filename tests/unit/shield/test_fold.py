"""The shield's fast search (core/shield/detect.py): the alternatives that can be read case-folded
run without IGNORECASE over the folded text, and must match exactly where the patterns as written
match the text itself."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from re import _parser
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.shield.detect import (
    _CHECKS,
    _PARTS,
    FOLDED_LETTERS,
    PATTERNS,
    _plain_reasons,
    _search,
    fold,
    foldable,
)

SUITES = Path(__file__).parents[2] / "support"
EVERY = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
SECRETS = "asks for the model's secrets"  # searched as written (its negation check reads positions)


def _plain_parts() -> list[str]:
    return [p for rx in PATTERNS.values() for p in _PARTS[rx.pattern] if foldable(p)]


def _named(items: Any) -> set[int]:
    """Every character a parsed pattern names: literals, class members, every member of a range."""
    out: set[int] = set()
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            out.add(av)
        elif name == "RANGE":
            out.update(range(av[0], av[1] + 1))
        elif name == "IN":
            out |= _named(av)
        elif name == "BRANCH":
            out = out.union(*(_named(p) for p in av[1]))
        elif name == "SUBPATTERN":
            out |= _named(av[3])
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            out |= _named(av[2])
        elif name in ("ASSERT", "ASSERT_NOT"):
            out |= _named(av[1])
    return out


def _classes(source: str) -> list[str]:
    """The character classes of a pattern's source ("[^.!?\\n]", "[\\w./-]", …)."""
    out, i = [], 0
    while i < len(source):
        if source[i] == "\\":
            i += 2
        elif source[i] == "[":
            j = i + 1 + (source[i + 1 : i + 2] == "^")
            j += source[j : j + 1] == "]"
            while source[j] != "]":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i : j + 1])
            i = j + 1
        else:
            i += 1
    return out


def test_fold_keeps_every_character_s_length_and_kind() -> None:
    folded = fold(EVERY)
    assert len(folded) == len(EVERY)
    changed = [(a, b) for a, b in zip(EVERY, folded, strict=True) if a != b]
    assert changed  # the capitals, at least
    for a, b in changed:
        assert (a.isalnum(), a.isspace(), a.isdigit(), a.isdecimal()) == (
            b.isalnum(), b.isspace(), b.isdigit(), b.isdecimal()
        ), (a, b)  # fmt: skip
        assert a != "_" and a not in "\n.!?,:;()[]<>/=&$%{}" and b not in "\n.!?,:;()[]<>/=&$%{}"


def test_every_character_the_fast_alternatives_name_matches_where_ignorecase_matches() -> None:
    """Over every Unicode character: each FOLDED_LETTER, each character a fast alternative names
    (its literals, escapes decoded, and every member of its classes and ranges) and each of its
    classes matches the folded character exactly where, with IGNORECASE, it matches the character."""
    folded = fold(EVERY)
    named = {chr(c) for p in _plain_parts() for c in _named(_parser.parse(p, re.IGNORECASE))}
    classes = {c for p in _plain_parts() for c in _classes(p)}
    assert len(named) > 60 and len(classes) > 20  # the patterns' letters, punctuation and classes
    for atom in [re.escape(c) for c in sorted(named | FOLDED_LETTERS)] + sorted(classes):
        ignorecase = [m.start() for m in re.finditer(atom, EVERY, re.IGNORECASE)]
        plain = [m.start() for m in re.finditer(atom, folded)]
        assert ignorecase == plain, atom


@pytest.mark.parametrize(
    "part",
    [
        r"\b(\w)\1{3}\b",  # a backreference compares cases its own way
        r"(?P<x>a)(?P=x)",
        "(?-i:[A-Z][a-z]+)",
        "(?m-i:note)",
        "Note to the model",  # an upper-case letter
        "τεχνητή νοημοσύνη",  # σ's cases include ς
        r"\u03c3\u03bf\u03c6\u03b9\u03b1",  # the same, as escapes
        "5 \u00b5m",  # the micro sign's cases include μ
        r"[@-\]]",  # a range holding capitals only
        "\u2160",  # a Roman numeral has cases
    ],
)
def test_an_alternative_that_cannot_be_read_folded_runs_as_written(part: str) -> None:
    assert not foldable(part)


@pytest.mark.parametrize(
    "part",
    [r"\bignore\s{1,5}all\b", r"[^.!?\n]{0,30}", "für|olá|à", r"[,:;\u2014\u2013-]", r"(?=\s{0,3}[,:])"],
)
def test_an_alternative_of_folded_letters_and_caseless_characters_runs_folded(part: str) -> None:
    assert foldable(part)


def _texts() -> list[str]:
    out: list[str] = []
    for path in sorted((SUITES / "shield").glob("*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            out += [str(v) for v in item.values() if isinstance(v, str) and len(v) > 20]
    out += [p.read_text(encoding="utf-8", errors="replace") for p in sorted((SUITES / "attacks").iterdir())]
    return out


TRICKY = str.maketrans({"i": "\u0130", "s": "\u017f", "k": "\u212a", "I": "\u0131"})


def _variants(text: str) -> list[str]:
    return [
        text,
        text.upper(),
        text.title(),
        text.swapcase(),
        text.translate(TRICKY),
        text.upper().translate(TRICKY),
    ]


def _reference(text: str) -> list[str]:
    """The reasons as the patterns find them when searched as written (the code before the fast search)."""
    found = [
        r for r, rx in PATTERNS.items() if (_search(r, text, fold(text)) if r == SECRETS else rx.search(text))
    ]
    return found + [r for check in _CHECKS if (r := check(text))]


def _same(text: str) -> None:
    folded = fold(text)
    for reason, rx in PATTERNS.items():
        if reason != SECRETS:
            assert _search(reason, text, folded) == (rx.search(text) is not None), (reason, text[:120])
    assert _plain_reasons(text) == _reference(text)


def test_the_fast_search_finds_what_the_patterns_find_on_the_suites() -> None:
    texts = _texts()
    assert len(texts) > 200
    hits = 0
    for text in texts:
        for variant in _variants(text):
            _same(variant)
            hits += bool(_reference(variant))
    assert hits > 100  # the suites' attacks are found, in every case and spelling


FRAGMENTS = [
    "Ignore", "previous", "instructions", "AI", "assistant", "You are now", "DAN", "mode", "System:",
    "<doc", "note to the", "LLM", "please", "must", "tell", "user", "decode", "and follow", "http://x.io/?q=",
    "[end of context]", "ſ", "İ", "ı", "K", "ß", "ẞ", "É", "ς", "Σ", "µ", "μ", "ᲀ", "ẛ", "ǅ", "\u0301",
    "\n", ". ", ", ", " ", "’", "für", "KI", "the model",
]  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=30))
def test_the_fast_search_finds_what_the_patterns_find_on_random_text(parts: list[str]) -> None:
    _same(" ".join(parts))
    _same("".join(parts))
