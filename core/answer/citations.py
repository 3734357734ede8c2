"""Citations: "(source)" after each claim, read back from an answer and matched to the ledger."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.context.knowledge import citation_label
from core.trace import Citation
from core.types import LedgerEntry


def cite(sentence: str, label: str) -> str:
    """The sentence with its citation before the final punctuation: "… 12 kg (a.md).", and a
    list item's clause "…; (a.md)." as "… (a.md);" and a lead-in "…, provided that (a.md):"."""
    body = sentence.rstrip()
    end = ""
    if body and body[-1] in ".!?;,:":
        body, end = body[:-1].rstrip(), body[-1]
    return f"{body} ({label}){end or '.'}"


_CITE = re.compile(r"\(([^()]+?\.(?:md|markdown|txt|pdf|html?)(?: p\.\d+)?)\)", re.I)
_CITE_SPACED = re.compile(r"\s*" + _CITE.pattern, re.I)  # with the space before it ("unused (a.md);")


def strip_citations(text: str) -> str:
    """The text without its (source) citations."""
    return re.sub(r"\s+([.!?])", r"\1", _CITE_SPACED.sub("", text)).strip()


def cited_labels(text: str) -> list[str]:
    """The (source) citations that appear in an answer text."""
    return list(dict.fromkeys(m.group(1).strip() for m in _CITE.finditer(text)))


def resolve(labels: Sequence[str], included: Sequence[LedgerEntry]) -> list[Citation]:
    """Each cited label with the injected chunk it names (injected False: it names none)."""
    out: list[Citation] = []
    for label in labels:
        match = next(
            (e for e in included if citation_label(e.source, e.page) == label or e.source == label), None
        )
        out.append(
            {
                "label": label,
                "source": match.source if match else label,
                "chunk_id": match.chunk_id if match else None,
                "injected": match is not None,
            }
        )
    return out
