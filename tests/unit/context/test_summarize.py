"""Overflow handling: a ranked extract keeps question-relevant sentences in order; truncation
keeps the longest run of leading sentences that fits."""

from __future__ import annotations

from core.context.shape import STRUCTURAL, Shape, flags
from core.context.summarize import join, leading_pick, ranked_pick
from core.scoring import SentenceScorer
from core.text import split_sentences


def test_ranked_pick_prefers_question_sentences_in_original_order(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    sentences = split_sentences(
        "The office has a blue door. The ArmX3 has a payload of 12 kg. Lunch is served at noon. "
        "The ArmX3 reach is 1,300 millimetres. Parking is free on weekends."
    )
    sims = scorer.relevance(sentences, "What are the payload and reach of the ArmX3?")
    chosen = ranked_pick(sentences, sims, lambda idx: len(join(sentences, idx)) < 80)
    assert chosen is not None and len(chosen) == 2
    extract = join(sentences, chosen)
    assert "12 kg" in extract and "1,300 millimetres" in extract
    assert extract.index("12 kg") < extract.index("1,300 millimetres")
    assert "Lunch" not in extract


def test_nothing_fits_returns_none_or_zero(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    one = ["One long sentence here."]
    assert ranked_pick(one, scorer.relevance(one, "q?"), lambda idx: False) is None
    assert leading_pick(["One.", "Two."], lambda idx: False) == 0


def test_truncate_at_sentence_boundary() -> None:
    sentences = split_sentences("Alpha is first. Beta is second. Gamma is third.")
    used = leading_pick(sentences, lambda idx: len(join(sentences, idx)) <= 32)
    assert used == 2 and join(sentences, list(range(used))) == "Alpha is first. Beta is second."


def test_an_extract_is_laid_out_by_the_stored_flags() -> None:
    """The flags ingest stored are what the layout reads (a sentence flagged as standing on its
    own line is joined by a line break), and without them the same flags are computed."""
    sentences = ("First fact.", "Second fact.", "- a list item")
    computed = Shape.of(sentences)
    assert computed.flags == flags(sentences) and computed.structural(2) and not computed.structural(1)
    assert join(sentences, [0, 1, 2]) == "First fact. Second fact.\n- a list item"
    stored = Shape.of(sentences, (STRUCTURAL, STRUCTURAL, STRUCTURAL))
    assert join(sentences, [0, 1, 2], stored) == "First fact.\nSecond fact.\n- a list item"
    assert Shape.of(sentences, (STRUCTURAL,)).flags == computed.flags  # not one per sentence: computed


def test_shape_flags_headings_rules_header_rows_and_steps() -> None:
    sentences = (
        "## Specs",
        "| Feature | D3 | D6 |",
        "|---|---|---|",
        "| Price | 199 | 249 |",
        "1. Open the lid.",
        "2. Empty the bin.",
        "Done.",
    )
    shape = Shape.of(sentences)
    assert [shape.says_nothing(i) for i in range(7)] == [False, True, True, False, False, False, False]
    assert shape.factless([0, 1, 2]) and not shape.factless([0, 3])
    assert shape.headers == {2: 1, 3: 1}
    assert shape.numbered_runs() == {4: (4, 5), 5: (4, 5)}
