"""The measure a question's words ask for, met by a value stated in it."""

from __future__ import annotations

import pytest

from core.answer.extractive import extractive_answer
from core.query.measure import asked_measures, measured
from core.scoring import SentenceScorer
from tests.unit.answer.test_extractive import REFUSAL, entry


@pytest.fixture(scope="module")
def scorer(resources) -> SentenceScorer:  # noqa: ANN001
    return SentenceScorer(resources.embedder)


def test_a_word_asking_for_a_measure_is_met_by_a_value_in_its_units() -> None:
    cases = {
        "What's the wattage of the K7?": ("Power: 1700 W, 220-240 V", "Weight: 11.2 kg"),
        "How heavy is the K7?": ("Takeoff mass: 0.9 kg", "Power: 1700 W"),
        "How loud is the K7 on its highest setting?": ("Noise: 52 dB(A)", "Fan speeds: 1, 2, 3"),
        "How often do I swap the K7's filter?": ("Replace it every 90 days.", "Install it before first use."),
        "How much does the K7 cost?": ("Launch offer: USD 599", "Battery: 2,600 mAh"),
        "How much is the K7?": ("Price: USD 599", "Battery: 2,600 mAh"),  # its price
        "How big is the K7's screen?": ("Display: 2.4-inch LCD", "Display: backlit LCD"),
        "How precise is the K7's thermometer?": ("Accuracy: ±0.5 °C", "Sensor: digital"),
        "How long does the K7 take to charge?": ("Charging time: 4 hours", "Charger: 65 W"),
        # a duration counted in a kind of day or hour
        "How long does a K7 repair take?": ("Repairs take 14 business days.", "Repairs are free."),
        "How long does K7 shipping take?": ("It ships in 3 working-days.", "It ships by courier."),
        # a printer's or a screen's resolution in dots or pixels per inch
        "What's the resolution of the K7?": (
            "The print engine is direct thermal at 203 dpi.",
            "It prints at 60 mm/s.",
        ),
        # a compound whose head only says "how much": "suction power" is a suction, in Pa
        "What's the suction power of the K7?": ("Suction: 3,000 Pa", "Motor: 40 W"),
    }
    for question, (stating, other) in cases.items():
        got = measured(question, [stating, other])
        assert got[0] and not got[1], (question, got)
    # the units stand after a number: "5 in the box" is no length, "K7" no weight
    assert measured("How big is it?", ["There are 5 in the box."]) == [frozenset()]
    assert asked_measures("What is the K7?") == {} and asked_measures("Who makes the K7?") == {}
    assert asked_measures("How much time is left?") == {}
    # "how long … take" asks for a duration only; "how long is" for a duration or a length
    assert asked_measures("How long does the K7 take to charge?")["long"][1] == 1
    assert asked_measures("How long is the K7's cable?")["long"][1] == 2
    assert asked_measures("How long do I have to wait before the K7 is ready?")["long"][1] == 1
    # a battery's size is its capacity; the K7's size is its dimensions
    assert measured("How big is the K7's battery?", ["Battery: 77 Wh", "Size: 38 x 32 cm"]) == [
        frozenset({"big"}),
        frozenset({"big"}),
    ]
    assert measured("How big is the K7?", ["Battery: 77 Wh", "Size: 38 x 32 cm"]) == [
        frozenset(),
        frozenset({"big"}),
    ]
    assert asked_measures("If I order a K7 today, how long until it ships?")["long"][1] == 1
    assert asked_measures("How long is the stretch of the river that runs through Paris?")["long"][1] == 2


def test_a_word_the_evidence_writes_is_met_by_that_word_only() -> None:
    """Beside "Vehicle weight: 118 kg" a payload in kg does not meet "weigh"; "heavy" asks for the
    weight by another name (core.text.ATTRIBUTE_OF) and is met by its word too."""
    texts = ["Vehicle weight: 118 kg", "Payload capacity: 300 kg"]
    assert measured("How much does the M1 weigh?", texts) == [frozenset(), frozenset()]
    assert measured("How heavy is the M1?", texts) == [frozenset(), frozenset()]
    assert measured("How heavy is the M1?", texts[1:]) == [frozenset({"heavy"})]


def test_the_value_in_the_asked_measure_answers(scorer: SentenceScorer) -> None:
    """A spec list that never writes "wattage": its power line is the answer, not the overview
    sentences that only share the product's name (the question's other words)."""
    sheet = (
        "# K7 espresso machine\n\nThe K7 is our flagship espresso machine. The K7 connects to the "
        "app, where you can adjust the brew temperature.\n\n## Technical data\n\n- Weight: 11.2 kg\n"
        "- Water tank: 2.5 L\n- Power: 1700 W, 220-240 V\n- Cup clearance: 14 cm\n"
    )
    d = extractive_answer("What's the wattage of the K7?", [entry("k7.txt", sheet)], scorer, REFUSAL, 0.25)
    assert not d.refused and d.text.split("\n")[0].startswith("- Power: 1700 W"), d.text


def test_a_fact_in_the_asked_measure_outranks_prose_sharing_more_words(scorer: SentenceScorer) -> None:
    """ "How loud … highest fan setting?": the fan sentences share more of its words, the noise
    field states the decibels it asks for."""
    sheet = (
        "# K7 air purifier\n\nIn Auto mode the K7 raises or lowers its fan speed to match the air. "
        "Sleep mode runs the fan at its lowest setting.\n\n## Specifications\n\n"
        "- Fan speeds: Sleep, 1, 2, 3, Turbo\n- Noise level: 24 dB (Sleep) to 52 dB (Turbo)\n"
        "- Weight: 6.4 kg\n"
    )
    question = "How loud does the K7 get on its highest fan setting?"
    d = extractive_answer(question, [entry("k7.html", sheet)], scorer, REFUSAL, 0.25)
    assert not d.refused and d.text.split("\n")[0].startswith("- Noise level: 24 dB"), d.text


def test_a_measure_no_unit_states_is_missing_even_in_words_the_store_never_uses(
    scorer: SentenceScorer,
) -> None:
    """ "heavy" is in no passage of the store (so the absence check could not weigh it), but it asks
    for a weight: evidence about the dock with no weight in it does not answer it; a weight does."""
    dock = "# K7 dock\n\nThe K7 dock (sold separately, USD 199) empties the bin into a 2.5 L bag.\n"
    counts = (40, {"dock": 3, "k7": 9})
    question = "How heavy is the K7 dock?"
    d = extractive_answer(question, [entry("dock.md", dock)], scorer, REFUSAL, 0.25, counts=counts)
    assert d.refused and "heavy" in d.reason, d.text
    with_weight = dock + "\n## Specifications\n\n- Weight: 3.8 kg\n"
    d = extractive_answer(question, [entry("dock.md", with_weight)], scorer, REFUSAL, 0.25, counts=counts)
    assert not d.refused and "3.8 kg" in d.text, d.reason


def test_a_value_in_the_asked_measure_stands_for_its_word_only_beside_the_other_words(
    scorer: SentenceScorer,
) -> None:
    """ "size" is met by "54 mm" in the unit that names the portafilter; "diameter" alone is not met
    by a height, nor "often" by a monthly check of another part."""
    sheet = (
        "# K7 espresso machine\n\n## Specifications\n\n- Portafilter: 54 mm, pressurised\n"
        "- Height: 31 cm\n- Side brush: check monthly and replace the brush when it frays.\n"
        "- Filter: tap it clean after each use.\n"
    )
    counts = (
        40,
        {"portafilter": 8, "size": 2, "diameter": 3, "often": 2, "replace": 9, "filter": 12, "k7": 9},
    )
    ask = lambda q: extractive_answer(q, [entry("k7.md", sheet)], scorer, REFUSAL, 0.25, counts=counts)  # noqa: E731
    d = ask("What portafilter size does the K7 take?")
    assert not d.refused and "54 mm" in d.text, d.reason
    d = ask("What's the diameter of the K7?")
    assert d.refused and "diameter" in d.reason, d.text
    d = ask("How often do I need to replace the filter in the K7?")
    assert d.refused and "often" in d.reason, d.text


def test_a_text_on_the_asked_measure_writes_its_word_or_a_value_in_its_one_measure() -> None:
    """ "weighs" is on the weight "How heavy" asks for (its attribute's first five letters), and so
    is "4.6 kg"; "3 hours" is not for "How long is it?" (a duration or a length)."""
    from core.query.measure import states_measure

    assert states_measure("How heavy is the K5?", "Height: 10.3 cm; the robot weighs 4.6 kg")
    assert states_measure("How heavy is the K5?", "Mass: 4.6 kg")
    assert not states_measure("How heavy is the K5?", "Price: $1,199")
    assert states_measure("How long does the K5 take to charge?", "Charging time: 4.5 hours")
    assert not states_measure("How long is the K5?", "Charging time: 4.5 hours")
    assert not states_measure("What is the K5?", "Weight: 4.6 kg")
