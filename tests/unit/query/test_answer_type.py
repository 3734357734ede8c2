"""The kind of value a question asks for, and the relevance bonus of a sentence that states one."""

from __future__ import annotations

import pytest

from core.query.answer_type import expected_type, states
from core.scoring import ANSWER_TYPE, SentenceScorer


def test_the_wording_says_what_kind_of_value_is_asked_for() -> None:
    cases = {
        "When did the Normans conquer England?": "time",
        "In what year was firmware 4.1.0 released?": "time",
        "Which century saw the first printed books?": "time",
        "How many kobolds are in the second encounter?": "number",
        "How long does the brake take to release?": "number",
        "What percentage of the budget goes to research?": "number",
        "Who wrote 'Divine Rivals'?": "name",
        "The treaty was signed by whom?": "name",
        "What is the reach of the ArmX2?": None,
        "Why do the controllers run Linux?": None,
        "How do I export the controller log?": None,
    }
    for question, kind in cases.items():
        assert expected_type(question) == kind, question


def test_a_text_states_a_time_a_number_or_a_name() -> None:
    assert states("time", "The abbey was founded in 1066.", "")
    assert states("time", "It opened in late March.", "")
    assert states("time", "Released 2024-05-20.", "")
    assert not states("time", "The abbey was founded by monks. It may have been earlier.", "")
    assert not states("time", "The NC-300 reaches 1,300 mm with firmware 4.210.", "")  # no year there
    assert states("number", "Twelve kobolds attack.", "")
    assert states("number", "The brake releases within 15 ms.", "")
    assert not states("number", "The brake releases quickly.", "")
    question = "Who founded Northwind Robotics?"
    assert states("name", "The company was founded by Lena Vogt.", question)
    assert not states("name", "Northwind Robotics was founded in a garage.", question)  # only the asked names


def test_relevance_prefers_the_sentence_that_can_answer(resources) -> None:  # noqa: ANN001
    """Two sentences on the topic, one stating when: it gains ANSWER_TYPE, the other nothing."""
    scorer = SentenceScorer(resources.embedder)
    question = "When was the bridge over the river opened?"
    dated, undated = (
        "The bridge over the river opened in 1932.",
        "The bridge over the river opened to traffic.",
    )
    got = scorer.relevance([dated, undated], question)
    base = 0.5 * scorer.overlap([dated, undated], question)
    emb = resources.embedder
    qv, *sv = emb.static_rows(emb.word_pieces([question, dated, undated]))
    cos = [float(v @ qv) for v in sv]
    assert got[0] == pytest.approx(0.5 * cos[0] + base[0] + ANSWER_TYPE, abs=1e-5)
    assert got[1] == pytest.approx(0.5 * cos[1] + base[1], abs=1e-5)
    assert got[0] > got[1]
