"""Fitting an overflowing chunk: a ranked-sentence extract, or a sentence-boundary truncation."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from core.context.shape import Shape
from core.prepared import Prepared
from core.tokens import TokenCounter


def ranked_pick(
    sentences: Sequence[str], sims: np.ndarray, fits: Callable[[list[int]], bool], shape: Shape | None = None
) -> list[int] | None:
    """The indices of the most relevant sentences (by sims) whose extract fits, or None. A table's
    header row is not picked for itself (it names the columns, often the very entities asked
    about, but states nothing): it comes with the rows picked under it."""
    shape = shape or Shape.of(sentences)
    runs = shape.numbered_runs()
    chosen: list[int] = []
    for i in np.argsort(-sims, kind="stable"):
        if shape.says_nothing(int(i)):
            continue
        # a step brings its whole numbered list when that fits: a procedure is not cut to its
        # most "relevant" steps
        for trial in (sorted({*chosen, *runs.get(int(i), (int(i),))}), sorted({*chosen, int(i)})):
            if fits(trial):
                chosen = trial
                break
    return chosen or None


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


def layout(shape: Shape, idx: list[int]) -> list[tuple[int, str]]:
    """An extract as (sentence index, what joins it to the one before) in order. A gap between
    non-adjacent sentences is marked with an ellipsis. Structure survives: list items, headings
    and table rows stay on their own lines, and a table row brings its table's header row."""
    headers = shape.headers
    idx = sorted(set(idx) | {headers[i] for i in idx if i in headers})
    out: list[tuple[int, str]] = []
    prev = None
    for i in idx:
        joint = ""
        if prev is not None:
            gap = i != prev + 1
            if shape.structural(i) or shape.structural(prev):
                joint = "\n…\n" if gap else "\n"
            else:
                joint = " … " if gap else " "
        out.append((i, joint))
        prev = i
    return out


def join(sentences: Sequence[str], idx: list[int], shape: Shape | None = None) -> str:
    """The extract of these sentences (see layout)."""
    return "".join(joint + sentences[i] for i, joint in layout(shape or Shape.of(sentences), idx))


def extract_tokens(p: Prepared, idx: list[int], counter: TokenCounter, shape: Shape) -> int:
    """The tokens of join(p.sentences, idx) + "\n" (an entry's text before its closing line)
    summed from the stored per-sentence counts: exact, as every part starts at a space after a
    non-space character or at a non-space character after a line break (core/prepared.py)."""
    planned = layout(shape, idx)
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
