"""Fitting an overflowing chunk: a ranked-sentence extract, or a sentence-boundary truncation."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from core.scoring import SentenceScorer
from core.text import is_structural, split_sentences


def ranked_extract(
    text: str,
    question: str,
    scorer: SentenceScorer,
    fits: Callable[[str], bool],
) -> tuple[str, int] | None:
    """The chunk's sentences most similar to the question, as many as fit, in original order.

    Returns (extract, sentences used) or None when not even one sentence fits."""
    sentences = list(split_sentences(text))
    if not sentences:
        return None
    sims = scorer.relevance(sentences, question)
    runs = _numbered_runs(sentences)
    chosen: list[int] = []
    for i in np.argsort(-sims, kind="stable"):
        # a step brings its whole numbered list when that fits: a procedure is not cut to its
        # most "relevant" steps
        for trial in (sorted({*chosen, *runs.get(int(i), (int(i),))}), sorted({*chosen, int(i)})):
            if fits(_join(sentences, trial)):
                chosen = trial
                break
    if not chosen:
        return None
    return _join(sentences, chosen), len(chosen)


def truncate_sentences(text: str, fits: Callable[[str], bool]) -> tuple[str, int] | None:
    """The longest run of leading sentences that fits, or None when the first does not (found by
    bisection: a longer run never costs fewer tokens)."""
    sentences = list(split_sentences(text))
    used, hi = 0, len(sentences)  # the run of `used` fits; one of hi + 1 would not
    while used < hi:
        mid = (used + hi + 1) // 2
        if fits(_join(sentences, list(range(mid)))):
            used = mid
        else:
            hi = mid - 1
    if used == 0:
        return None
    return _join(sentences, list(range(used))), used


def _join(sentences: list[str], idx: list[int]) -> str:
    """Sentences in order; a gap between non-adjacent ones is marked with an ellipsis. Structure
    survives: list items, headings and table rows stay on their own lines, and a table row brings
    its table's header row."""
    headers = _table_headers(sentences)
    idx = sorted(set(idx) | {headers[i] for i in idx if i in headers})
    parts: list[str] = []
    prev = None
    for i in idx:
        if prev is not None:
            gap = i != prev + 1
            if is_structural(sentences[i]) or is_structural(sentences[prev]):
                parts.append("\n…\n" if gap else "\n")
            else:
                parts.append(" … " if gap else " ")
        parts.append(sentences[i])
        prev = i
    return "".join(parts)


def _numbered_runs(sentences: list[str]) -> dict[int, tuple[int, ...]]:
    """For each numbered list item, the indices of the consecutive numbered items around it."""
    out: dict[int, tuple[int, ...]] = {}
    run: list[int] = []
    for i, s in enumerate([*sentences, ""]):
        if _STEP.match(s):
            run.append(i)
            continue
        for j in run:
            out[j] = tuple(run)
        run = []
    return out


_STEP = re.compile(r"^\d{1,3}[.)]\s")


def _table_headers(sentences: list[str]) -> dict[int, int]:
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
