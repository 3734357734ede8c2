"""Fitting an overflowing chunk: a ranked-sentence extract, or a sentence-boundary truncation."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

import numpy as np

from core.prepared import Prepared
from core.text import NUMBER, is_heading, is_structural
from core.tokens import TokenCounter


def ranked_pick(
    sentences: Sequence[str], sims: np.ndarray, fits: Callable[[list[int]], bool]
) -> list[int] | None:
    """The indices of the most relevant sentences (by sims) whose extract fits, or None. A table's
    header row is not picked for itself (it names the columns, often the very entities asked
    about, but states nothing): it comes with the rows picked under it."""
    runs = _numbered_runs(sentences)
    nothing = _states_nothing(tuple(sentences))
    chosen: list[int] = []
    for i in np.argsort(-sims, kind="stable"):
        if nothing[i]:
            continue
        # a step brings its whole numbered list when that fits: a procedure is not cut to its
        # most "relevant" steps
        for trial in (sorted({*chosen, *runs.get(int(i), (int(i),))}), sorted({*chosen, int(i)})):
            if fits(trial):
                chosen = trial
                break
    return chosen or None


def factless(sentences: Sequence[str], idx: Sequence[int]) -> bool:
    """An extract of only headings, table header rows and rules ("|---|---|"): it states nothing."""
    nothing = _states_nothing(tuple(sentences))
    return all(nothing[i] or is_heading(sentences[i]) for i in idx)


_RULE_ROW = re.compile(r"^\|[\s:|-]*$")


@functools.lru_cache(maxsize=256)
def _states_nothing(sentences: tuple[str, ...]) -> tuple[bool, ...]:
    """Which sentences are a rule row, or a table's first row that other rows stand under and that
    holds no number (column names: "| Feature | Dustwise D3 | Dustwise D6 |"; a first row such as
    "| Rated payload | 12 kg |" or "| ArmX3 (released 2024) |" states a value)."""
    headers = set(_shape(sentences)[1].values())
    return tuple(
        bool(_RULE_ROW.match(s)) or (i in headers and not NUMBER.search(s)) for i, s in enumerate(sentences)
    )


def leading_pick(sentences: Sequence[str], fits: Callable[[list[int]], bool]) -> int:
    """How many leading sentences fit (found by bisection: a longer run never costs fewer tokens)."""
    used, hi = 0, len(sentences)  # the run of `used` fits; one of hi + 1 would not
    while used < hi:
        mid = (used + hi + 1) // 2
        if fits(list(range(mid))):
            used = mid
        else:
            hi = mid - 1
    return used


def layout(sentences: Sequence[str], idx: list[int]) -> list[tuple[int, str]]:
    """An extract as (sentence index, what joins it to the one before) in order. A gap between
    non-adjacent sentences is marked with an ellipsis. Structure survives: list items, headings
    and table rows stay on their own lines, and a table row brings its table's header row."""
    structural, headers = _shape(tuple(sentences))
    idx = sorted(set(idx) | {headers[i] for i in idx if i in headers})
    out: list[tuple[int, str]] = []
    prev = None
    for i in idx:
        joint = ""
        if prev is not None:
            gap = i != prev + 1
            if structural[i] or structural[prev]:
                joint = "\n…\n" if gap else "\n"
            else:
                joint = " … " if gap else " "
        out.append((i, joint))
        prev = i
    return out


@functools.lru_cache(maxsize=256)  # the budget lays out one chunk's sentences many times
def _shape(sentences: tuple[str, ...]) -> tuple[tuple[bool, ...], dict[int, int]]:
    """Which sentences stand on a line of their own, and each table row's header row."""
    return tuple(is_structural(s) for s in sentences), _table_headers(sentences)


def join(sentences: Sequence[str], idx: list[int]) -> str:
    """The extract of these sentences (see layout)."""
    return "".join(joint + sentences[i] for i, joint in layout(sentences, idx))


def extract_tokens(p: Prepared, idx: list[int], counter: TokenCounter) -> int:
    """The tokens of join(p.sentences, idx) + "\n" (an entry's text before its closing line)
    summed from the stored per-sentence counts: exact, as every part starts at a space after a
    non-space character or at a non-space character after a line break (core/prepared.py)."""
    planned = layout(p.sentences, idx)
    total = 0
    for n, (i, joint) in enumerate(planned):
        after = planned[n + 1][1] if n + 1 < len(planned) else "\n"
        total += p.cost(i, joint.startswith(" "), after.startswith("\n"))
        if joint in _MARKS:
            total += _mark_tokens(counter, _MARKS[joint])
    return total


# an elision's own part: " … " is cut into " …" and the next sentence's leading space, "\n…\n"
# into the line break ending the sentence before and "…\n"
_MARKS = {" … ": " …", "\n…\n": "…\n"}


@functools.lru_cache(maxsize=16)
def _mark_tokens(counter: TokenCounter, mark: str) -> int:
    return counter.count(mark)


def _numbered_runs(sentences: Sequence[str]) -> dict[int, tuple[int, ...]]:
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


def _table_headers(sentences: Sequence[str]) -> dict[int, int]:
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
