"""The structure of a chunk's sentences, as an extract lays them out: which stand on a line of
their own (headings, list items, table rows), which are headings, which state nothing (a rule
row, a table's header row holding no number), which are numbered steps, and each table row's
header row. Ingest stores the per-sentence flags with the chunk (core/prepared.py), so a question
reads them instead of matching every sentence again."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.text import NUMBER, is_heading, is_structural

STRUCTURAL, HEADING, NOTHING, STEP = 1, 2, 4, 8

_RULE_ROW = re.compile(r"^\|[\s:|-]*$")
_STEP = re.compile(r"^\d{1,3}[.)]\s")


def flags(sentences: Sequence[str]) -> tuple[int, ...]:
    """Per sentence, its STRUCTURAL, HEADING, NOTHING and STEP bits. A table's first row that
    other rows stand under states nothing when it holds no number (column names: "| Feature |
    Dustwise D3 | Dustwise D6 |"; "| Rated payload | 12 kg |" or "| ArmX3 (released 2024) |"
    states a value)."""
    headers = set(table_headers(sentences).values())
    return tuple(
        (STRUCTURAL if is_structural(s) else 0)
        | (HEADING if is_heading(s) else 0)
        | (NOTHING if _RULE_ROW.match(s) or (i in headers and not NUMBER.search(s)) else 0)
        | (STEP if _STEP.match(s) else 0)
        for i, s in enumerate(sentences)
    )


def table_headers(sentences: Sequence[str]) -> dict[int, int]:
    """For each table row after the first of its table, the index of that table's header row."""
    out: dict[int, int] = {}
    header = None
    for i, s in enumerate(sentences):
        if not s.startswith("|"):
            header = None
        elif header is None:
            header = i
        else:
            out[i] = header
    return out


@dataclass(frozen=True)
class Shape:
    """One chunk's sentence structure, read once per fitting (see flags)."""

    flags: tuple[int, ...]
    headers: dict[int, int]

    @classmethod
    def of(cls, sentences: Sequence[str], stored: Sequence[int] = ()) -> Shape:
        """The shape of these sentences (stored: their flags as ingest computed them, when it did)."""
        known = tuple(stored) if len(stored) == len(sentences) else flags(sentences)
        return cls(known, table_headers(sentences))

    def structural(self, i: int) -> bool:
        return bool(self.flags[i] & STRUCTURAL)

    def says_nothing(self, i: int) -> bool:
        return bool(self.flags[i] & NOTHING)

    def factless(self, idx: Sequence[int]) -> bool:
        """Only headings, table header rows and rules ("|---|---|"): the extract states nothing."""
        return all(self.flags[i] & (NOTHING | HEADING) for i in idx)

    def numbered_runs(self) -> dict[int, tuple[int, ...]]:
        """For each numbered list item, the indices of the consecutive numbered items around it."""
        out: dict[int, tuple[int, ...]] = {}
        run: list[int] = []
        for i, f in enumerate([*self.flags, 0]):
            if f & STEP:
                run.append(i)
                continue
            for j in run:
                out[j] = tuple(run)
            run = []
        return out
