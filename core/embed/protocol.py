"""What every embedder provides, and the static (word-piece mean) embedding both backends share."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np


class WordPieces(Protocol):
    """What tokenises texts into a model's word pieces."""

    pieces_id: str  # the word-piece vocabulary (stored pieces are keyed by it)

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]: ...


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors."""

    name: str
    dim: int
    max_tokens: int
    pieces_id: str  # the word-piece vocabulary (stored pieces are keyed by it)

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def static_embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]: ...

    def static_rows(self, rows: Sequence[Sequence[int]]) -> np.ndarray: ...


def pieces_id(model_dir: str | Path) -> str:
    """What a model's word pieces depend on: a hash of its tokenizer file (stored pieces are keyed
    by it, so another model's vocabulary is never read against this model's table)."""
    folder = Path(model_dir)
    for name in ("tokenizer.json", "vocab.txt"):
        f = folder / name
        if f.is_file():
            return f"{name}:{hashlib.sha256(f.read_bytes()).hexdigest()[:16]}"
    return f"path:{folder.resolve()}"


def mean_rows(table: np.ndarray, rows: Sequence[Sequence[int]], dim: int) -> np.ndarray:
    """Per row of word-piece ids, the normalised mean of those rows of the embedding table
    (a zero vector for an empty row): the static embedding both backends share."""
    out = np.zeros((len(rows), dim), dtype=np.float32)
    for i, ids in enumerate(rows):
        if ids:
            # the sum over the rows divided by their count: what .mean(axis=0) computes, to the
            # bit, without its per-call overhead (half the time on a question's ~40 sentences)
            out[i] = table[list(ids)].sum(axis=0) / len(ids)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms
