"""Every knowledge-block separator (blank, rule, numbered, space, newline): entries are joined by
it, and the budget's token count of the block is exact and within budget, chunks and units alike."""

from __future__ import annotations

import dataclasses

import pytest

from core.config import SEPARATORS
from core.context.budget import BudgetParams, build_context
from core.context.knowledge import HEADER, KnowledgeFormat
from core.context.pack import pack_context
from core.prepared import Preparer
from core.scoring import SentenceScorer
from core.types import Candidate, Chunk

JOINERS = {"blank": "\n\n", "rule": "\n---\n", "numbered": "\n\n", "space": " ", "newline": "\n"}
QUESTION = "What is the payload and reach of the arm?"


def cand(i: int, text: str) -> Candidate:
    return Candidate(Chunk(f"c{i}", text, f"doc{i}.md", {"category": "test"}), 0.6 - i * 0.01, None)


CANDS = [
    cand(i, f"The arm model {i} has a payload of {i + 3} kg. Its reach is {i + 7}00 mm at full extension. "
            f"It was tested for {i + 2} thousand hours.")
    for i in range(6)
]  # fmt: skip


@pytest.fixture(scope="module")
def scorer(resources):  # noqa: ANN001, ANN201
    return SentenceScorer(resources.embedder)


def test_the_settings_offer_every_separator() -> None:
    assert set(SEPARATORS) == set(JOINERS)


@pytest.mark.parametrize("separator", sorted(JOINERS))
@pytest.mark.parametrize("budget", [130, 260, 2000])
def test_whole_chunks_are_joined_by_the_separator_and_counted_exactly(
    resources,
    scorer,
    separator: str,
    budget: int,  # noqa: ANN001
) -> None:
    fmt = KnowledgeFormat("n0nce", separator)
    ctx = build_context(CANDS, QUESTION, BudgetParams(budget=budget), fmt, resources.counter, scorer)
    entries = [fmt.entry(n, e.source, "test", e.score, e.injected_text, None) for n, e in
               enumerate(ctx.included, 1)]  # fmt: skip
    assert entries, "at least one entry fits"
    assert ctx.text == HEADER + "\n" + JOINERS[separator].join(entries)
    assert ctx.tokens == resources.counter.count(ctx.text) <= budget
    # with each chunk's Prepared stored (core/prepared.py) the walk sums counts instead of counting:
    # the same block, ledger and count
    prepare = Preparer.of(resources.counter, resources.embedder)
    ready = [
        dataclasses.replace(c, chunk=dataclasses.replace(c.chunk, prepared=prepare(c.chunk.text)))
        for c in CANDS
    ]
    summed = build_context(ready, QUESTION, BudgetParams(budget=budget), fmt, resources.counter, scorer)
    assert (summed.text, summed.ledger, summed.tokens) == (ctx.text, ctx.ledger, ctx.tokens)
    if separator == "numbered":
        assert all(f"{n}. Source: doc" in e for n, e in enumerate(entries, 1))
    else:
        assert "1. Source:" not in ctx.text
    if budget == 2000:
        assert len(entries) == len(CANDS)


@pytest.mark.parametrize("separator", sorted(JOINERS))
def test_packed_units_are_joined_by_the_separator_and_counted_exactly(
    resources,
    scorer,
    separator: str,  # noqa: ANN001
) -> None:
    fmt = KnowledgeFormat("n0nce", separator)
    ctx = pack_context(CANDS, QUESTION, "factual", BudgetParams(budget=300), fmt, resources.counter, scorer)
    assert len(ctx.included) >= 2
    assert f"</doc-n0nce>{JOINERS[separator]}<doc-n0nce n=2>" in ctx.text
    assert ctx.tokens == resources.counter.count(ctx.text) <= 300


@pytest.mark.parametrize("separator", sorted(JOINERS))
def test_the_fences_and_joints_count_as_their_fixed_parts_plus_the_tag(resources, separator) -> None:  # noqa: ANN001
    """The block's fixed parts are counted once per process and only the question's tag per
    question (budget._fixed_parts): equal to counting each whole, for random nonces."""
    import random

    from core.context.budget import _fixed_parts

    counter = resources.counter
    rng = random.Random(5)
    nonces = ["abc", "000000", "ffffff", "a1b2c3", "9z"] + [f"{rng.getrandbits(24):06x}" for _ in range(200)]
    for nonce in nonces:
        fmt = KnowledgeFormat(nonce, separator)
        tail = counter.count(fmt.tail)
        joint = counter.count(fmt.tail + fmt.joiner + "<doc") - tail - counter.count("<doc")
        expected = (counter.count(fmt.header + "\n"), counter.count(fmt.opening), tail, joint)
        assert _fixed_parts(counter, fmt) == expected, nonce
