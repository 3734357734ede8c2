"""Questions that ask several things, and comparisons of two things named in words."""

from __future__ import annotations

import pytest

from core.query.parts import comparison_sides, distinct_words, parts_for, question_parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "What caused the pump failure, and how does version 2 prevent it?",
            ("What caused the pump failure", "how does version 2 prevent it"),
        ),
        ("Why is the canal closed in winter? When does it open again?",
         ("Why is the canal closed in winter", "When does it open again")),
        ("what happens if I turn off sync - any downside?", ("what happens if I turn off sync", "any downside")),
    ],
)  # fmt: skip
def test_a_question_of_several_parts_is_split(question: str, parts: tuple[str, ...]) -> None:
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "What is the flight time of the K7?",
        "How do I pair and update the controller?",
        "What is bread and butter?",
    ],
)
def test_a_question_asking_one_thing_is_not_split(question: str) -> None:
    assert question_parts(question) == ()


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("How long are audit logs kept compared to invoices?", ("How long are audit logs kept", "invoices")),
        ("What distinguishes a soft reset from a hard reset?", ("a soft reset", "a hard reset")),
        (
            "What is the difference between the day rate and the night rate?",
            ("the day rate", "the night rate"),
        ),
        ("Is rail travel cheaper than flying?", ("Is rail travel cheaper", "flying")),
    ],
)
def test_comparison_sides(question: str, sides: tuple[str, str]) -> None:
    assert comparison_sides(question) == sides
    assert parts_for(question, "comparison") == sides


def test_sides_need_words_of_their_own() -> None:
    assert comparison_sides("How do the two pumps differ?") == ()
    assert distinct_words("the one on a boat", "the price of a car") == {"boat"}
