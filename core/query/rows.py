"""Whether a question reads across a table's rows rather than one row.

"Which Kestrel is the quietest?", "Which models have a camera?", "Which is cheaper, the Pet or the
5 Plus?": the answer stands in several rows of a comparison table, maybe in both parts of a table
ingest split between chunks, so the retrieval brings the other parts (core/retrieval/tables.py) and
the budget walks them together (core/context/focus.py). "What is the Pet's noise level?" reads one
row: the rest of the table is no evidence for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.query.entities import one_per_model

_WHICH = re.compile(r"^\W*which\b", re.I)


def reads_rows(question: str, superlative: bool, named: Iterable[str]) -> bool:
    """The question asks a superlative (superlative: core/answer/superlative.asked found one),
    starts with "which", or names two or more things (named: the entities it names, a model's
    spellings counted once: "k7", "kestrelk7" and "kestrel k7" are one)."""
    return superlative or bool(_WHICH.search(question)) or len(one_per_model(named)) >= 2
