"""Unit packing: the relevant units of many candidates fit where whole chunks did not, procedures
stay whole and in order, the ledger tells which units went in, and the budget always holds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.context.budget import BudgetParams
from core.context.knowledge import KnowledgeFormat
from core.context.pack import pack_context
from core.context.units import parse
from core.scoring import SentenceScorer
from core.types import Candidate, Chunk, Fate

FILLER = (
    "The cafeteria menu changes every Tuesday and Thursday. Parking permits are renewed each January. "
    "The office plants are watered by a contractor. Visitors sign in at the front desk. "
)


def cand(cid: str, text: str, score: float, source: str = "doc.md", **meta: object) -> Candidate:
    return Candidate(Chunk(cid, text, source, {"category": "test", **meta}), score, None)


@pytest.fixture(scope="module")
def scorer(resources):  # noqa: ANN001, ANN201
    return SentenceScorer(resources.embedder)


def pack(cands, question, budget, resources, scorer, query_type="factual", **kw):  # noqa: ANN001, ANN201
    params = BudgetParams(budget=budget, **kw)
    return pack_context(
        cands, question, query_type, params, KnowledgeFormat("abc"), resources.counter, scorer
    )


def test_the_relevant_sentence_of_a_low_ranked_chunk_fits_beside_the_top_ones(resources, scorer) -> None:  # noqa: ANN001
    cands = [cand(f"f{i}", FILLER * 2, 0.6 - i * 0.01, source=f"filler{i}.md") for i in range(4)]
    cands.append(
        cand("key", FILLER + "The rated payload of the Kestrel arm is 7 kg. " + FILLER, 0.4, "kestrel.md")
    )
    ctx = pack(cands, "What is the rated payload of the Kestrel arm?", 300, resources, scorer)
    key = next(e for e in ctx.ledger if e.chunk_id == "key")
    assert key.fate == Fate.CONDENSED
    assert "7 kg" in key.injected_text and "7 kg" in ctx.text
    assert key.units_kept is not None and key.units_total is not None and key.units_kept < key.units_total
    assert any("cafeteria" in u for u in key.dropped_units)
    assert ctx.tokens <= 300 and resources.counter.count(ctx.text) == ctx.tokens


def test_a_step_brings_its_whole_procedure_in_order_across_chunks(resources, scorer) -> None:  # noqa: ANN001
    first = "## Replacing the filter\n\nTo replace the filter:\n\n1. Switch the pump off.\n2. Open the cover.\n3. Pull the old filter out."
    second = "4. Insert the new filter.\n5. Close the cover and switch the pump on."
    cands = [
        cand("a", FILLER * 3, 0.7, "other.md"),
        cand("p1", first, 0.5, "pump.md", chunk_index=0),
        cand("p2", second, 0.45, "pump.md", chunk_index=1),
    ]
    ctx = pack(cands, "How do I replace the pump filter?", 400, resources, scorer, "procedural")
    steps = [ln for ln in ctx.text.splitlines() if ln[:2] in {f"{i}." for i in range(1, 6)}]
    assert [s[:2] for s in steps] == ["1.", "2.", "3.", "4.", "5."]
    assert ctx.text.index("1. Switch") < ctx.text.index("5. Close")
    # one entry for the document, its chunks in document order
    assert ctx.text.count("Source: pump.md") == 1


def test_a_table_row_brings_its_header_and_a_list_its_lead_in(resources, scorer) -> None:  # noqa: ANN001
    table = "| Model | Price | Weight |\n| --- | --- | --- |\n" + "\n".join(
        f"| Unit {i} | ${i}00 | {i} kg |" for i in range(1, 30)
    )
    ctx = pack([cand("t", table, 0.6)], "What is the price of Unit 17?", 120, resources, scorer)
    entry = ctx.ledger[0]
    assert entry.fate == Fate.CONDENSED
    assert entry.injected_text.startswith("| Model | Price | Weight |")
    assert "| Unit 17 | $1700 | 17 kg |" in entry.injected_text


def test_filters_come_first_and_nothing_is_lost_from_the_ledger(resources, scorer) -> None:  # noqa: ANN001
    text = "The arm payload is 5 kg and its reach is 850 mm."
    cands = [cand("a", text, 0.6), cand("b", text, 0.55), cand("low", "Payload is 9 kg.", 0.01)]
    ctx = pack(cands, "What is the arm payload?", 300, resources, scorer, min_score=0.1)
    fates = {e.chunk_id: e for e in ctx.ledger}
    assert fates["a"].fate == Fate.KEPT and fates["a"].injected_text == text
    assert fates["b"].fate == Fate.DUPLICATE and fates["b"].duplicate_of == "a"
    assert fates["low"].fate == Fate.BELOW_MIN_SCORE
    assert [e.chunk_id for e in ctx.ledger] == ["a", "b", "low"]


def test_a_unit_about_another_model_is_packed_after_the_asked_ones(resources, scorer) -> None:  # noqa: ANN001
    x2 = "# Kestrel K2\n\n## Specifications\n\n- Payload: 5 kg\n- Reach: 850 mm"
    x3 = "# Kestrel K3\n\n## Specifications\n\n- Payload: 12 kg\n- Reach: 1,300 mm"
    cands = [
        cand("k3", x3, 0.7, "k3.md", title="Kestrel K3"),
        cand("k2", x2, 0.5, "k2.md", title="Kestrel K2"),
    ]
    ctx = pack(cands, "What is the payload of the Kestrel K2?", 90, resources, scorer)
    assert "5 kg" in ctx.text
    assert "12 kg" not in ctx.text


def test_condensed_text_parses_to_the_chosen_units(resources, scorer) -> None:  # noqa: ANN001
    text = "## Battery\n\n" + FILLER + "The battery lasts 8 hours on one charge. " + FILLER
    ctx = pack([cand("b", text, 0.6)], "How long does the battery last?", 70, resources, scorer)
    entry = ctx.ledger[0]
    units = parse(entry.injected_text)
    assert any("8 hours" in u.text for u in units)
    assert entry.injected_text.startswith("## Battery")
    assert "…" in entry.injected_text or entry.injected_text.count(".") <= 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=8),
    st.integers(min_value=40, max_value=500),
)
def test_the_budget_is_never_exceeded(resources, scorer, sizes, budget) -> None:  # noqa: ANN001
    cands = [
        cand(
            f"c{i}",
            "\n".join(f"- Item {j} of list {i}: the arm reach is {j}00 mm." for j in range(n)),
            0.5,
            f"d{i}.md",
        )
        for i, n in enumerate(sizes)
    ]
    ctx = pack(cands, "What is the arm reach?", budget, resources, scorer)
    assert ctx.tokens <= budget
    assert resources.counter.count(ctx.text) == ctx.tokens
    assert len(ctx.ledger) == len(cands)


def test_candidates_without_any_unit_pack_nothing(resources, scorer) -> None:  # noqa: ANN001
    ctx = pack(
        [cand("h", "# Release notes", 0.6), cand("t", "| Version | Date |", 0.5)],
        "Release notes?",
        300,
        resources,
        scorer,
    )
    assert ctx.text == "" and ctx.tokens == 0
    assert [e.fate for e in ctx.ledger] == [Fate.OVER_BUDGET, Fate.OVER_BUDGET]
