"""Overflow handling: ranked extract keeps question-relevant sentences in order; truncation."""

from __future__ import annotations

from core.context.summarize import ranked_extract, truncate_sentences
from core.scoring import SentenceScorer


def test_ranked_extract_prefers_question_sentences_in_original_order(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    text = (
        "The office has a blue door. The ArmX3 has a payload of 12 kg. Lunch is served at noon. "
        "The ArmX3 reach is 1,300 millimetres. Parking is free on weekends."
    )
    out = ranked_extract(text, "What are the payload and reach of the ArmX3?", scorer, lambda t: len(t) < 80)
    assert out is not None
    extract, n = out
    assert "12 kg" in extract and "1,300 millimetres" in extract
    assert extract.index("12 kg") < extract.index("1,300 millimetres")
    assert "Lunch" not in extract and n == 2


def test_nothing_fits_returns_none(resources) -> None:  # noqa: ANN001
    scorer = SentenceScorer(resources.embedder)
    assert ranked_extract("One long sentence here.", "q?", scorer, lambda t: False) is None
    assert truncate_sentences("One. Two.", lambda t: False) is None


def test_truncate_at_sentence_boundary() -> None:
    text = "Alpha is first. Beta is second. Gamma is third."
    out = truncate_sentences(text, lambda t: len(t) <= 32)
    assert out == ("Alpha is first. Beta is second.", 2)
