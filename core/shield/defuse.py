"""Structure a passage must not forge, made inert: role markers, chat tokens, block openers and
closers of any knowledge-block syntax, and our own entry fields, each broken by word joiners so a
reader still sees it and no parser or model takes it for structure. Matched on the text as a model
reads it (normalize.py), so invisible characters or full-width and look-alike letters cannot hide one.
"""

from __future__ import annotations

import re

from core.shield.detect import PATTERNS
from core.shield.normalize import invisible, reading
from core.shield.vocab import ROLES

DEFUSE_VERSION = 1  # bump when this module changes what it breaks (stored defused texts are redone)

_FIELDS = re.compile(
    rf"^[#>*\- \t]{{0,12}}(?:source|section|category|relevance score|{ROLES}|human)\**[ \t]*:"
    r"|\[\s{0,5}retrieved\s{1,5}knowledge\s{0,5}\]",
    re.IGNORECASE | re.MULTILINE,
)
_MARKERS = (PATTERNS["forges a chat role"], PATTERNS["forges the knowledge block"], _FIELDS)


def defuse(text: str) -> str:
    """Text with block/role markers made inert (visible to a reader, not a parser or model)."""
    read = reading(text)
    spans = sorted(
        (read.where[m.start()], read.where[m.end() - 1] + 1)
        for rx in _MARKERS
        for m in rx.finditer(read.text)
        if m.end() > m.start()
    )
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        start = max(start, last)
        if start >= end:
            continue
        piece = "".join(ch for ch in text[start:end] if not invisible(ch))
        out.append(text[last:start])
        out.append("\u2060".join(piece))
        last = end
    out.append(text[last:])
    return "".join(out)
