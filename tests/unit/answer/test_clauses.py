"""A sentence that gives each sibling model its value is narrowed to the asked model's clauses."""

from __future__ import annotations

import pytest

from core.answer.clauses import asked_clauses
from core.query.entities import question_entities

LOOP = "The pump loop runs at 2 kHz on the HX-40 and at 800 Hz on the HX-20."


@pytest.mark.parametrize(
    ("sentence", "question", "shown"),
    [
        # the asked model's clause second: the sentence's lead before its first value, then the clause
        (LOOP, "How fast does the loop run on the HX-20?", "The pump loop runs … at 800 Hz on the HX-20."),
        # first: the clause alone
        (LOOP, "How fast does the loop run on the HX-40?", "The pump loop runs at 2 kHz on the HX-40."),
        # a clause naming no model goes with the model named before it
        (
            "The Kestrel K2 weighs 12 kg and draws 300 W, while the Kestrel K3 weighs 18 kg.",
            "What does the Kestrel K2 draw?",
            "The Kestrel K2 weighs 12 kg and draws 300 W.",
        ),
        # a clause opening with its own model needs no lead; one about "both" is kept
        (
            "The Kestrel K2 weighs 12 kg and the Kestrel K3 weighs 18 kg, and both are rated IP54.",
            "How heavy is the Kestrel K3?",
            "The Kestrel K3 weighs 18 kg, and both are rated IP54.",
        ),
        (
            "The Kestrel K2 weighs 12 kg and the Kestrel K3 weighs 18 kg, and both are rated IP54.",
            "What is the IP rating of the Kestrel K2?",
            "The Kestrel K2 weighs 12 kg … both are rated IP54.",
        ),
        # a parenthesis the cut opens or closes is not left dangling
        (
            "Only the K3 stalled because its brake is larger (up to 28 ms when warm, compared to 15 ms on the K2).",
            "How long does the brake take to release on a K2?",
            "Only the K3 stalled because its brake is larger … 15 ms on the K2.",
        ),
    ],
)
def test_the_asked_models_clauses_are_shown(sentence: str, question: str, shown: str) -> None:
    assert asked_clauses(sentence, question_entities(question)) == shown


@pytest.mark.parametrize(
    ("sentence", "question"),
    [
        ("The HX-20 and the HX-40 share one flange.", "Which flange does the HX-20 use?"),  # no values
        (
            "The HX-20 replaced the HX-10 in 2021 at a price of $900.",
            "When did the HX-20 ship?",
        ),  # one clause
        ("The loop runs at 800 Hz and the fan at 40%.", "How fast is the HX-20 loop?"),  # no model named
        (LOOP, "How fast does the loop run?"),  # no model asked
        (LOOP, "Is the loop faster on the HX-40 or the HX-20?"),  # both asked: a comparison's sides
        ("Loop rate: 2 kHz (HX-40), 800 Hz (HX-20)", "Loop rate of the HX-20?"),  # a label after its value
    ],
)
def test_a_sentence_that_does_not_give_each_model_its_value_is_shown_whole(
    sentence: str, question: str
) -> None:
    assert asked_clauses(sentence, question_entities(question)) is None
