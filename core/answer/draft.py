"""An answer before tracing, whichever answerer wrote it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Draft:
    """An answer before tracing: text, the sources it cites, and whether it refused."""

    text: str
    citations: tuple[str, ...]
    refused: bool = False
    reason: str = ""
    best_score: float = 0.0
    related: bool = False  # the related-sources answer of `related` mode (still a refusal)
