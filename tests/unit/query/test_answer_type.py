"""The kind of value a question asks for, and the relevance bonus of a sentence that states one."""

from __future__ import annotations

import pytest

from core.query.answer_type import expected_type, stating
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
        "What is the controller of the ArmX2?": None,
        # a word asking for one measure (core/query/measure.py): a value in it
        "What is the reach of the ArmX2?": "number",
        "How loud is the K7 on turbo?": "number",
        "What was celebrated at Mass?": None,  # no measure word asks for a value here
        "What was the heaviest tank of the war?": None,  # a superlative asks for a name
        "Why do the controllers run Linux?": None,
        "How do I export the controller log?": None,
        # the leading question word decides, not a "when" further on
        "How many errors occur when the arm is loaded?": "number",
        "Who was king when the abbey was founded?": "name",
        "What happens when the brake fails?": None,
    }
    for question, kind in cases.items():
        assert expected_type(question) == kind, question


def test_a_text_states_a_time_a_number_or_a_name() -> None:
    def says(kind: str, text: str, question: str = "") -> bool:
        return stating(kind, [text], question)[0]  # type: ignore[arg-type]

    for text in (
        "The abbey was founded in 1066.",
        "It opened in late March.",
        "Released 2024-05-20.",
        "in 476 AD",
    ):
        assert says("time", text), text
    for text in (
        "The abbey was founded by monks. It may have been earlier.",
        "May cause burns.",  # the verb, not the month
        "The NC-300 reaches 1,300 mm with firmware 4.1.0.",  # a model, a measure, a version
        "The reach is 850 mm.",
        "CE marking applies.",
    ):
        assert not says("time", text), text
    assert says("number", "Twelve kobolds attack.")
    assert says("number", "The brake releases within 15 ms.")
    assert not says("number", "The brake releases quickly.")
    assert not says(
        "number", "The ArmX2 and the NC-300 share a cable."
    )  # a model code's digits are no number
    question = "Who founded Northwind Robotics?"
    assert says("name", "The company was founded by Lena Vogt.", question)
    assert not says("name", "Northwind Robotics was founded in a garage.", question)  # only the asked names
    assert not says("name", "- Open the lid of the NorthEye kit.", question)  # a first word, a product


def test_relevance_prefers_the_sentence_that_can_answer(resources) -> None:  # noqa: ANN001
    """Two sentences alike but for the year: the dated one scores ANSWER_TYPE more, as far as the
    year's own word piece moves the rest; asked as a statement (grounding), no bonus."""
    scorer = SentenceScorer(resources.embedder)
    question = "When was the bridge over the river opened?"
    dated, undated = (
        "The bridge over the river opened in 1932.",
        "The bridge over the river opened in spring.",
    )
    typed = scorer.relevance([dated, undated], question)
    plain = scorer.relevance([dated, undated], question, typed=False)
    assert typed[1] == pytest.approx(plain[1], abs=1e-6)
    assert typed[0] - plain[0] == pytest.approx(ANSWER_TYPE, abs=1e-6)
    assert ANSWER_TYPE == pytest.approx(0.1)
    assert typed[0] > typed[1] and abs(plain[0] - plain[1]) < 0.05  # the bonus decides
