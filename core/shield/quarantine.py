"""Which chunks the shield quarantines: a chunk whose own text is addressed to the model, and every
chunk of a page that is (found at ingest on the whole page, kept in the chunk's "shield" metadata):
an injection's payload often sits in the sentences around the order, and a chunk boundary can fall
between them, so a page that carries one is untrusted as a whole."""

from __future__ import annotations

from core.shield.defuse import DEFUSE_VERSION, defuse
from core.shield.detect import inspect
from core.types import Chunk

PAGE_KEY = "shield"  # chunk metadata: the page's mechanisms, "; "-joined ("" or absent: none)
OWN_KEY = "shield_own"  # … the chunk's own, as checked at ingest by detector VERSION_KEY
VERSION_KEY = "shield_v"
VERSION = 2  # bump when detect.py changes what it flags: chunks checked by another version are checked again


def page_flags(text: str) -> str:
    """The metadata value ingest records for a whole page's text."""
    return "; ".join(inspect(text))


INERT_KEY = "shield_inert"  # … DEFUSE_VERSION when defusing leaves the chunk's text as it is (else 0)


def ingest_metadata(page: str, chunk_text: str) -> dict[str, str | int]:
    """What ingest records on a chunk, so a question does not run the detector again, nor defuse
    a text that holds nothing to defuse."""
    meta: dict[str, str | int] = {
        VERSION_KEY: VERSION,
        OWN_KEY: "; ".join(inspect(chunk_text)),
        INERT_KEY: DEFUSE_VERSION if defuse(chunk_text) == chunk_text else 0,
    }
    if page:
        meta[PAGE_KEY] = page
    return meta


def chunk_flags(chunk: Chunk) -> tuple[str, ...]:
    """Why the chunk is quarantined (empty: it is not): from ingest's record when this detector
    version made it, else checked now."""
    meta = chunk.metadata
    if meta.get(VERSION_KEY) == VERSION:
        own = tuple(why for why in str(meta.get(OWN_KEY, "")).split("; ") if why)
    else:
        own = inspect(chunk.text)
    if own:
        return own
    page = str(chunk.metadata.get(PAGE_KEY, ""))
    return tuple(f"is on a page that {why}" for why in page.split("; ") if why)


def defused_text(chunk: Chunk) -> str:
    """The chunk's text as injected: defused, unless ingest found nothing in it to defuse."""
    if chunk.metadata.get(INERT_KEY) == DEFUSE_VERSION:
        return chunk.text
    return defuse(chunk.text)
