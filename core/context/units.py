"""Evidence units: what an answer is made of, parsed from a chunk's canonical text.

Ingest writes every format as one light markup (headings "#…", list items "- x" / "N. x", table
rows "| a | b |" with the header row first, paragraphs). A unit is a sentence of a paragraph, a list
item (with its ordinal and list), or a table row (with its header), each under its heading path,
and rendered without any markup: a row reads "Payload — ArmX2: 5 kg; ArmX3: 12 kg"."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.text import is_heading, split_sentences, strip_markup

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^\s*(?:[-*+•]|(\d{1,3})[.)])\s+(.*)$")
_RULE_ROW = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")
_ELISION = frozenset({"…", "..."})
_UNDERLINE = re.compile(r"^\s*(=+|-{3,})\s*$")
# a worked example: a paragraph that opens as one ("Example: a customer returns …") or what stands
# under an "Examples" heading; its sentences state a case, not the rule. A sentence opening "For
# example, …" in prose is not one: there it states a fact like any other ("For example, people
# living in tropical environments were seen as …" answers a SQuAD question)
_EXAMPLE_BLOCK = re.compile(r"^(?:(?:an?|worked) )?examples?(?: \d+)?\s*(?::|\s[—–-]\s)", re.IGNORECASE)
_EXAMPLE_HEADING = re.compile(r"^(?:(?:an?|worked) )?examples?\b(?!-)", re.IGNORECASE)


@dataclass(frozen=True)
class Unit:
    kind: str  # "sentence" | "item" | "row"
    text: str  # as an answer shows it: no markup
    path: tuple[str, ...]  # headings it stands under, outermost first
    position: int  # order within its chunk
    ordinal: int | None = None  # a numbered item's number
    block: int = 0  # the list or table it belongs to (within its chunk)
    cells: tuple[str, ...] = ()  # a row's cells
    header: tuple[str, ...] = ()  # its table's header cells
    line: int = -1  # the line of the chunk's text it is on
    heads: tuple[int, ...] = ()  # the lines of the chunk's own headings on its path (and a row's header line)
    illustrative: bool = False  # a sentence of a worked example (_EXAMPLE_BLOCK, _EXAMPLE_HEADING)

    @property
    def context(self) -> str:
        """The unit with the headings it stands under, as relevance scoring reads it."""
        return " › ".join((*self.path[-2:], self.text)) if self.path else self.text

    def row_text(self, columns: Sequence[int] | None = None) -> str:
        """A row as "subject — column: value; …" (only the given value columns, when given)."""
        subject = self.cells[0] if self.cells else ""
        idx = [i for i in range(1, len(self.cells)) if columns is None or i in columns]
        pairs = [
            field(self.header[i], self.cells[i]) if i < len(self.header) and self.header[i] else self.cells[i]
            for i in idx
            if self.cells[i]
        ]
        return f"{subject} — {'; '.join(pairs)}" if pairs else subject


# a column heading's unit ("Weight (kg)", "List price (USD)") and a cell holding a bare number
_HEADER_UNIT = re.compile(r"^(?P<name>.*\S)\s+\((?P<unit>[A-Za-z%°$€£][A-Za-z%°/²³]{0,4})\)$")
_BARE_NUMBER = re.compile(r"^\d[\d,.]*$")
_CURRENCY_CODES = frozenset("USD EUR GBP CAD AUD CHF JPY NZD SEK NOK DKK".split())


def field(heading: str, cell: str) -> str:
    """A cell under its column's heading, the heading's unit written after a bare number as a
    sentence writes it ("Weight (kg)" and "8.8" → "Weight: 8.8 kg", "List price (USD)" and "2,180"
    → "List price: USD 2,180"), so the value reads, compares and is checked as a quantity."""
    m = _HEADER_UNIT.match(heading)
    if m is None or not _BARE_NUMBER.match(cell):
        return f"{heading}: {cell}"
    unit = m.group("unit")
    if unit in _CURRENCY_CODES or unit in "$€£":
        value = f"{unit} {cell}" if unit.isalpha() else f"{unit}{cell}"
    else:
        value = f"{cell}{'' if unit in ('%', '°') else ' '}{unit}"
    return f"{m.group('name')}: {value}"


def parse(text: str, base_path: Sequence[str] = (), base_levels: Sequence[int] = ()) -> list[Unit]:
    """The units of one chunk's text, in order; base_path: the headings in effect at its start
    (base_levels: their levels, when known)."""
    units: list[Unit] = []
    path = list(base_path)
    levels = list(base_levels) if len(base_levels) == len(path) else list(range(1, len(path) + 1))
    lines_of = [-1] * len(path)  # where each heading on the path stands in this chunk (-1: before it)
    block = 0
    header: tuple[str, ...] | None = None
    header_line = -1
    in_list = False
    for ln, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if stripped in _ELISION:  # an extract left lines out here: the table or list goes on
            continue
        if not stripped or _decoration(stripped):
            if not stripped:
                header, in_list = None, False
            continue
        found = _heading(stripped, levels)
        if found:
            level, title = found
            keep = [i for i, lv in enumerate(levels) if lv < level]
            path = [path[i] for i in keep] + [title]
            levels = [levels[i] for i in keep] + [level]
            lines_of = [lines_of[i] for i in keep] + [ln]
            header, in_list = None, False
            continue
        n = len(units)
        heads = tuple(v for v in lines_of if v >= 0)
        if stripped.startswith("|"):
            cells = tuple(strip_markup(c) for c in stripped.strip("|").split("|"))
            if header is None:
                header, header_line, block = cells, ln, block + 1
                continue
            row = Unit("row", "", tuple(path), n, None, block, cells, header, ln, (*heads, header_line))
            units.append(dataclasses.replace(row, text=row.row_text()))
            continue
        item = _ITEM.match(line)
        if item:
            if not in_list:
                block += 1
                in_list = True
            ordinal = int(item.group(1)) if item.group(1) else None
            text_ = strip_markup(item.group(2))
            units.append(Unit("item", text_, tuple(path), n, ordinal, block, line=ln, heads=heads))
            continue
        header, in_list = None, False
        example = bool(_EXAMPLE_BLOCK.match(strip_markup(stripped))) or bool(
            path and _EXAMPLE_HEADING.match(path[-1])
        )
        under, sentences = _under_question(stripped, tuple(path))
        for s in sentences:
            units.append(Unit("sentence", s, under, len(units), line=ln, heads=heads, illustrative=example))
    return units


def _decoration(stripped: str) -> bool:
    """A setext underline or a table's rule row: no content of its own."""
    return bool(
        _UNDERLINE.match(stripped) or (_RULE_ROW.match(stripped) and "-" in stripped and "|" in stripped)
    )


def _under_question(paragraph: str, path: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """A paragraph's path and sentences: a FAQ's question opening its answer ("Is there a Nib 3 Pro?
    No. …") is the answer's heading, as a heading would be, and no sentence an answer quotes (a
    one-word "No." goes with the sentence after it)."""
    sentences = [t for t in (strip_markup(s.strip(" …")) for s in split_sentences(paragraph)) if t]
    if len(sentences) < 2 or not sentences[0].endswith("?"):
        return path, sentences
    answer = sentences[1:]
    if len(answer) > 1 and len(answer[0].split()) <= 2:
        answer = [f"{answer[0]} {answer[1]}", *answer[2:]]
    return (*path, sentences[0]), answer


def _heading(stripped: str, levels: Sequence[int]) -> tuple[int, str] | None:
    """(level, title) of a heading line ("## x", or a short capitalised line), else None."""
    heading = _HEADING.match(stripped)
    if heading:
        return len(heading.group(1)), strip_markup(heading.group(2))
    if is_heading(stripped) and len(stripped.split()) <= 12 and not stripped.startswith("|"):
        return (levels[-1] + 1 if levels else 1), strip_markup(stripped.title())
    return None
