"""Which chunks the shield quarantines: a chunk whose own text is addressed to the model, and every
chunk of a page that is (found at ingest on the whole page, kept in the chunk's "shield" metadata):
an injection's payload often sits in the sentences around the order, and a chunk boundary can fall
between them, so a page that carries one is untrusted as a whole."""

from __future__ import annotations

from core.shield.detect import inspect
from core.types import Chunk

PAGE_KEY = "shield"  # chunk metadata: the page's mechanisms, "; "-joined ("" or absent: none)


def page_flags(text: str) -> str:
    """The metadata value ingest records for a whole page's text."""
    return "; ".join(inspect(text))


def chunk_flags(chunk: Chunk) -> tuple[str, ...]:
    """Why the chunk is quarantined (empty: it is not)."""
    own = inspect(chunk.text)
    if own:
        return own
    page = str(chunk.metadata.get(PAGE_KEY, ""))
    return tuple(f"is on a page that {why}" for why in page.split("; ") if why)
