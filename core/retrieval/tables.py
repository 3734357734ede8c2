"""The other parts of a table ingest split between chunks, for a question that reads a table's rows.

A comparison table of six models and eleven columns does not fit one 256-token chunk: ingest goes
on with it in the next chunk under its header row again and records on the chunk before that the
table goes on (chunk metadata "table_goes_on", ingest/chunker.py). "Which Kestrel is the quietest?"
retrieves the part holding the noise column's words best, but the quietest may stand in the other
part; "Which is cheaper, the Pet or the 5 Plus?" may find the Pet's row and not the 5 Plus's. So for
a question that reads across a table's rows (core/query/rows.py), each candidate that is part of a split table brings the table's other parts, placed
beside it in document order; the budget walks a part's continuation right after it
(core/context/focus.py) and the answer reads the parts as one table (core/answer/evidence.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.index.vectors import StoredVector
from core.types import Candidate

MAX_PARTS = 4  # the most parts of one table brought in (a longer table is no comparison to read whole)
MAX_TABLES = 2  # the most split tables completed for one question
MAX_LOOKS = 6  # the most candidates looked up as a table's part, best ranked first (a lookup each)


def with_table_parts(
    candidates: Sequence[Candidate],
    document_ids: Callable[[str, str], Sequence[str]],
    fetch: Callable[[Sequence[str]], list[StoredVector]],
    score: Callable[[list[StoredVector]], list[Candidate]],
) -> list[Candidate]:
    """The candidates with the missing parts of up to MAX_TABLES split tables placed around the
    part found, in document order. document_ids(source, chunk_id): a document's chunk ids in order;
    fetch: the stored chunks of ids; score: stored chunks → candidates scored for the question."""
    out = list(candidates)
    have = {c.chunk.id for c in out}
    done = looks = 0
    seen: set[str] = set()  # the parts of the tables looked up
    for c in candidates:
        if done >= MAX_TABLES or looks >= MAX_LOOKS:
            break
        if not _may_be_split(c) or c.chunk.id in seen:
            continue
        looks += 1
        ids = list(document_ids(c.chunk.source, c.chunk.id))
        before, after = _parts(c, ids, fetch)
        seen |= {p.chunk.id for p in (*before, *after)}
        new = [p for p in (*before, *after) if p.chunk.id not in have]
        if not new:
            continue
        done += 1
        scored = {x.chunk.id: x for x in score(new)}
        at = out.index(c)
        chain = [scored[p.chunk.id] for p in before if p.chunk.id in scored]
        chain += [c] + [scored[p.chunk.id] for p in after if p.chunk.id in scored]
        out[at : at + 1] = chain
        have |= set(scored)
    return out


def _may_be_split(c: Candidate) -> bool:
    """The chunk's table goes on in the next chunk, or the chunk opens with a table row (it may go
    on from the one before)."""
    return c.chunk.metadata.get("table_goes_on") is True or c.chunk.text.lstrip().startswith("|")


def _parts(
    c: Candidate, ids: list[str], fetch: Callable[[Sequence[str]], list[StoredVector]]
) -> tuple[list[StoredVector], list[StoredVector]]:
    """The stored parts of c's table before it and after it, each list in document order."""
    if c.chunk.id not in ids:
        return [], []
    at = ids.index(c.chunk.id)
    before: list[StoredVector] = []
    first = c.chunk.text
    while at - len(before) > 0 and first.lstrip().startswith("|") and len(before) + 1 < MAX_PARTS:
        got = fetch([ids[at - len(before) - 1]])
        if not got or got[0].chunk.metadata.get("table_goes_on") is not True:
            break
        before.insert(0, got[0])
        first = got[0].chunk.text
    after: list[StoredVector] = []
    goes_on = c.chunk.metadata.get("table_goes_on") is True
    while goes_on and at + len(after) + 1 < len(ids) and len(before) + len(after) + 1 < MAX_PARTS:
        got = fetch([ids[at + len(after) + 1]])
        if not got:
            break
        after.append(got[0])
        goes_on = got[0].chunk.metadata.get("table_goes_on") is True
    return before, after
