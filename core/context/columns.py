"""A wide table cut to the columns a question names: an overflowing chunk's comparison table (a
row per model, a column per attribute) keeps every model's asked value in a few tokens ("| Model |
Weight |" of a ten-column table), and the answer shows a wide row's asked cells only."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from core.context.shape import Shape
from core.prepared import Prepared
from core.query.entities import without_entities
from core.text import ATTRIBUTE_OF, content_words
from core.tokens import TiktokenCounter

WIDE = 3  # a table of more value columns than this is cut to the asked ones


def asked_columns(header: Sequence[str], question: str) -> list[int]:
    """The value columns (after the first, which names the row) whose heading shares a word with
    the question by 5-letter stem, read first as the attribute a word asks for ("heavy" and
    "lighter" → "weight"), then as written ("screen"); none for a table of few columns, or when
    the question names none of them or all of them."""
    if len(header) < WIDE + 2:
        return []
    words = content_words(without_entities(question))
    named = [{w[:5] for w in content_words(h)} if i else set() for i, h in enumerate(header)]
    # the attribute a word asks for first ("lighter" asks for "Weight", not for "Warm light")
    for asked in ({ATTRIBUTE_OF.get(w, w)[:5] for w in words}, {w[:5] for w in words}):
        found = [i for i, stems in enumerate(named) if stems & asked]
        if found:
            return found if len(found) < len(header) - 1 else []
    return []


def cells(row: str) -> list[str]:
    """A Markdown table row's cells ("| Lumo 6 | 158 g |" → ["Lumo 6", "158 g"])."""
    return [c.strip() for c in row.strip().strip("|").split("|")]


def project(p: Prepared, shape: Shape, question: str, counter: TiktokenCounter) -> Prepared:
    """p with each wide table's rows (its header and rule rows too) cut to the first column and the
    asked ones, their token counts counted again; p itself when no table has asked columns. The
    word pieces and stems stay the whole rows': a row is ranked by all it says."""
    headers = shape.headers  # a row's index → its table's header row
    keep: dict[int, list[int]] = {}
    for h in set(headers.values()):
        asked = asked_columns(cells(p.sentences[h]), question)
        if asked:
            keep[h] = [0, *asked]
    if not keep:
        return p
    sentences = list(p.sentences)
    changed = sorted({*keep, *(i for i, h in headers.items() if h in keep)})
    for i in changed:
        row = cells(sentences[i])
        sentences[i] = (
            "| " + " | ".join(row[k] if k < len(row) else "" for k in keep[headers.get(i, i)]) + " |"
        )
    forms = [
        v
        for i in changed
        for v in (sentences[i], " " + sentences[i], sentences[i] + "\n", " " + sentences[i] + "\n")
    ]
    n = counter.count_many(forms)
    counts = list(p.counts)
    for j, i in enumerate(changed):
        counts[i] = (n[4 * j], n[4 * j + 1], n[4 * j + 2], n[4 * j + 3])
    return dataclasses.replace(p, sentences=tuple(sentences), counts=tuple(counts))
