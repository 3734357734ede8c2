"""The parts of a table ingest split between chunks brought beside the part a search found."""

from __future__ import annotations

from collections.abc import Sequence

from core.index.vectors import StoredVector
from core.query.entities import question_entities
from core.query.rows import reads_rows
from core.retrieval.tables import with_table_parts
from core.types import Candidate, Chunk

HEADER = "| Model | Price | Noise |"


def _chunk(i: int, text: str, goes_on: bool) -> Chunk:
    return Chunk(f"c{i}", text, "compare.md", {"chunk_index": i, "table_goes_on": goes_on})


# a page: prose, a table in three parts, the prose after it; another page
PAGE = [
    _chunk(0, "# Compare\n\nEvery model.", False),
    _chunk(1, f"## Table\n\n{HEADER}\n| A1 | $1 | 70 dB |", True),
    _chunk(2, f"{HEADER}\n| A2 | $2 | 60 dB |", True),
    _chunk(3, f"{HEADER}\n| A3 | $3 | 65 dB |", False),
    _chunk(4, "## Advice\n\nBuy the A1.", False),
]
OTHER = Chunk("o1", "# Other page\n\nNothing of tables.", "other.md", {"chunk_index": 0})
STORE = {c.id: c for c in [*PAGE, OTHER]}


def _ids(source: str, chunk_id: str) -> Sequence[str]:
    return [c.id for c in PAGE] if source == "compare.md" else [OTHER.id]


def _fetch(ids: Sequence[str]) -> list[StoredVector]:
    return [StoredVector(STORE[i]) for i in ids if i in STORE]


def _score(rows: list[StoredVector]) -> list[Candidate]:
    return [Candidate(r.chunk, 0.1) for r in rows]


def _with_parts(found: list[Chunk]) -> list[str]:
    return [c.chunk.id for c in with_table_parts([Candidate(c, 0.5) for c in found], _ids, _fetch, _score)]


def test_the_other_parts_of_a_split_table_are_placed_around_the_part_found() -> None:
    # the middle part found: the first before it, the last after it, in document order
    assert _with_parts([OTHER, PAGE[2]]) == ["o1", "c1", "c2", "c3"]
    # the first part: the two after it; the last: the two before it
    assert _with_parts([PAGE[1]]) == ["c1", "c2", "c3"]
    assert _with_parts([PAGE[3], OTHER]) == ["c1", "c2", "c3", "o1"]
    # a part already found stays where the search ranked it
    assert _with_parts([PAGE[3], OTHER, PAGE[1]]) == ["c2", "c3", "o1", "c1"]
    # the prose around the table, and chunks of no table, bring nothing
    assert _with_parts([PAGE[0], PAGE[4], OTHER]) == ["c0", "c4", "o1"]


def test_a_question_reads_a_tables_rows_when_it_compares_or_asks_which() -> None:
    assert reads_rows("Which grinder is the quietest?", True, set())
    assert reads_rows("Which models have a burr grinder?", False, set())
    q = "Is the Brio 3 louder than the Kestrel K5?"
    assert reads_rows(q, False, question_entities(q))
    # one model, however many ways its name is read ("k7", "kestrelk7", "kestrel k7")
    for q in ("How loud is the Brio 3?", "What is the range of the Kestrel K7?"):
        assert not reads_rows(q, False, question_entities(q)), q


def test_a_part_already_looked_up_is_not_looked_up_again() -> None:
    looked: list[str] = []

    def ids(source: str, chunk_id: str) -> Sequence[str]:
        looked.append(chunk_id)
        return _ids(source, chunk_id)

    found = [Candidate(c, 0.5) for c in (PAGE[1], PAGE[2], PAGE[3])]
    assert [c.chunk.id for c in with_table_parts(found, ids, _fetch, _score)] == ["c1", "c2", "c3"]
    assert looked == ["c1"]
