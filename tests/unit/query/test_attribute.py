"""Whether a question asks for an attribute of the thing it names, or for another thing related to it."""

from __future__ import annotations

import pytest

from core.query.attribute import asks_attribute, names


@pytest.mark.parametrize(
    "question",
    [
        "What is the battery capacity of the Kestrel K7?",
        "What's the warranty for an HX-200?",
        "What's the lead time on a Vela V5?",
        "How long is the cable supplied with the Vela V3?",
        "What is the K7's top speed?",
        "What is the K7 flight time?",
        "How much does the Harbor H2 dock weigh?",
        "How many waypoints can the Kestrel K5 store?",
        "How fast is the K7?",
        "How quickly does the K7 stop after it detects an obstacle?",
        "Does the Kestrel K5 have a camera?",
        "Is the K5 waterproof?",
        "What IP rating does the HX-200 controller have?",
        "How much does the old Vela V1 weigh?",
        "What does the Kestrel K7 weigh?",
        "How noisy is the Vela V5?",  # any word after "How"
        "How well does the K7 handle wind?",
        "How long does the battery in a Vela V5 last?",  # a part of the named thing
        "How often do I need to replace the filter in the HX-200?",
        "What processor does the Vela V5 use?",  # any verb
        "What colours is the Kestrel K7 available in?",
        "What temperatures can the K7 operate in?",
        "What colours can I get the Kestrel K7 in?",
    ],
)
def test_questions_asking_for_what_the_named_thing_has(question: str) -> None:
    assert asks_attribute(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which charger fits the Kestrel K7?",  # another thing, related to it
        "What camera can I add to my K5?",
        "Which firmware fixed the E-17 error?",
        "What should I have ready when I call support about E-17?",
        "What is compatible with the HX-200?",
        "Does the K5 work with the Harbor dock?",
        "What is the Kestrel K7?",  # what it is, not one of its values
        "What is the flight time?",  # names nothing
        "What is the difference between the K5 and the K7?",
        "What is the best charger for the Kestrel K7?",  # another thing chosen for it
        "Why does the K7's gimbal drift?",  # its part, in a question about something else
        "Which dock does the K7 work with?",  # a verb relating another thing
        "What charger does the K7 come with?",
        "How do I reset the K7?",
        "How can I tell if the K7 is charging?",
        "How many types of X.25 networks were there originally",  # kinds of it, not a value
        "How exactly does the K7 pair with the controller?",  # how to, not a value
        "What lens does the K7 accept?",  # another thing it takes
    ],
)
def test_questions_asking_for_something_else(question: str) -> None:
    assert not asks_attribute(question)


def test_names_are_written_with_the_capitalised_words_around_their_codes() -> None:
    assert names("What is the power draw of the Harbor H2 Charging Dock?") == ["Harbor H2 Charging Dock"]
    assert names("How long is the Kestrel K7's flight time?") == ["Kestrel K7"]
    assert names("Compare the K5, K7 and PowerDock PD-2.") == ["K5", "K7", "PowerDock PD-2"]
    assert names("Kestrel K7 weight?") == ["Kestrel K7"]  # a first word that is part of the name


def test_a_name_without_a_digit_the_evidence_gives_as_a_model_is_read_as_the_named_thing() -> None:
    # "Vela Mini" holds no entity token: read only when the evidence makes it a model (named)
    assert not asks_attribute("What is the IP rating of the Vela Mini?")
    assert asks_attribute("What is the IP rating of the Vela Mini?", {"vela mini"})
    assert asks_attribute("How heavy is the vela mini?", {"vela mini"})
    assert not asks_attribute("Which lock fits the Vela Mini?", {"vela mini"})  # another thing
