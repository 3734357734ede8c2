"""A sentence that gives each sibling model its value is narrowed to the asked model's clauses,
in two plain shapes only; anything else is shown whole."""

from __future__ import annotations

import pytest

from core.answer.clauses import asked_clauses
from core.query.entities import question_entities

LOOP = "The pump loop runs at 2 kHz on the HX-40 and at 800 Hz on the HX-20."
WEIGHS = "The Kestrel K2 weighs 12 kg and the Kestrel K3 weighs 18 kg."
RANGES = "The range figures (70 km for the Stride 3, 90 km for the Stride 3 Plus and 120 km for the Stride 30) are measured in Eco mode."


@pytest.mark.parametrize(
    ("sentence", "question", "shown"),
    [
        # clauses ending on their model: the sentence's lead before its first value, then the clause
        (LOOP, "How fast does the loop run on the HX-20?", "The pump loop runs … at 800 Hz on the HX-20."),
        (LOOP, "How fast does the loop run on the HX-40?", "The pump loop runs at 2 kHz on the HX-40."),
        # parallel clauses opening with their model: the asked one alone
        (WEIGHS, "How heavy is the Kestrel K3?", "The Kestrel K3 weighs 18 kg."),
        (WEIGHS, "How heavy is the Kestrel K2?", "The Kestrel K2 weighs 12 kg."),
        # a list of values each given its model: only the asked item, the words around the list kept
        (
            RANGES,
            "What range does the Stride 30 have?",
            RANGES.replace("70 km for the Stride 3, 90 km for the Stride 3 Plus and ", ""),
        ),
        (
            RANGES,
            "What is the range of the Stride 3 Plus?",
            "The range figures (90 km for the Stride 3 Plus) are measured in Eco mode.",
        ),
        (
            "Prices: €1,799 for the Stride 3 and €2,249 for the Stride 3 Plus.",
            "Price of the Stride 3?",
            "Prices: €1,799 for the Stride 3.",
        ),
        # a clause naming no model goes with the model named before it
        (
            "The Kestrel K2 weighs 12 kg and draws 300 W, while the Kestrel K3 weighs 18 kg.",
            "What does the Kestrel K2 draw?",
            "The Kestrel K2 weighs 12 kg and draws 300 W.",
        ),
    ],
)
def test_the_asked_models_clauses_are_shown(sentence: str, question: str, shown: str) -> None:
    assert asked_clauses(sentence, question_entities(question)) == shown


@pytest.mark.parametrize(
    ("sentence", "question"),
    [
        ("The HX-20 and the HX-40 share one flange.", "Which flange does the HX-20 use?"),  # no values
        ("The HX-20 replaced the HX-10 in 2021 at $900.", "When did the HX-20 ship?"),  # one clause
        ("The loop runs at 800 Hz and the fan at 40%.", "How fast is the HX-20 loop?"),  # no model named
        (LOOP, "How fast does the loop run?"),  # no model asked
        (LOOP, "Is the loop faster on the HX-40 or the HX-20?"),  # both asked: a comparison's sides
        ("Loop rate: 2 kHz (HX-40), 800 Hz (HX-20)", "Loop rate of the HX-20?"),  # a label after its value
        # a reference value is no coordinated clause
        (
            "The Kestrel K3 weighs 18 kg, compared with 12 kg for the Kestrel K2.",
            "How heavy is the Kestrel K2?",
        ),
        # the lead names the other model: its words would pin the asked value on it
        ("The loop runs on the HX-40 at 2 kHz and at 800 Hz on the HX-20.", "Loop rate of the HX-20?"),
        # the asked clause leaves its verb in the other one's
        ("The Kestrel K2 draws 300 W and the Kestrel K3 450 W.", "What does the Kestrel K3 draw?"),
        (
            "Since firmware 4.2.0, the Kestrel K2 boots in 12 s and the Kestrel K3 in 20 s.",
            "Kestrel K3 boot?",
        ),
        # a condition or label the first clause opens with would be lost
        ("At 25 °C, the Kestrel K2 draws 300 W and the Kestrel K3 draws 450 W.", "Kestrel K3 power?"),
        # "both" and a pronoun refer across the cut
        ("Both arms run at 24 V, but the Kestrel K2 draws 3 A and the Kestrel K3 draws 5 A.", "K3 voltage?"),
        ("In 4.1.3 the timeout was 500 ms and in 4.2.0 it is 200 ms.", "What is the timeout in 4.2.0?"),
        # a range's "and" is no clause boundary; a model named without its own value is no side
        ("The Kestrel K2 works between 0 and 45 °C.", "Kestrel K2 temperature range?"),
        ("The HX-20 and HX-40 both run at 24 V, but the HX-40 draws 3 A.", "HX-20 current?"),
        # a value list: a value without its own model, a first value cut off by a comma, a condition
        # or another model before it, a name that is no model, a model it does not list, both asked
        (
            "It takes 1 hour, 30 minutes for the Stride 3 and 2 hours for the Stride 30.",
            "Stride 30 charging?",
        ),
        ("Range: 70 km, 90 km for the Stride 3 Plus and 120 km for the Stride 30.", "Stride 30 range?"),
        ("In Eco mode, 70 km for the Stride 3 and 120 km for the Stride 30.", "Stride 30 range?"),
        (
            "The Stride 3 does 70 km and 90 km for the Stride 3 Plus and 120 km for the Stride 30.",
            "Stride 30 range?",
        ),
        ("Allow 70 km for the LTSC and 120 km for the Stride 30.", "Stride 30 range?"),
        (RANGES, "What range does the Stride 5 have?"),
        # a value that begins before the run, words after the last item that may be its own
        (
            "Charging takes 3 to 5 h for the Stride 3, 6 h for the Stride 3 Plus and 8 h for the Stride 30.",
            "Stride 30?",
        ),
        ("Battery: 2 x 500 Wh for the Stride 30 and 625 Wh for the Stride 3.", "Stride 3 battery?"),
        (
            "Range: 70 km for the Stride 3 and 120 km for the Stride 30 (90 km with the small battery).",
            "Stride 3?",
        ),
        (
            "Range: 70 km for the Stride 3 and 120 km for the Stride 30, the longest in the range.",
            "Stride 3?",
        ),
        (
            "Prices are €1,799 for the Stride 3 and €2,249 for the Stride 3 Plus (incl. VAT).",
            "Stride 3 price?",
        ),
        (RANGES, "Compare the range of the Stride 3 and the Stride 30."),
    ],
)
def test_a_sentence_that_does_not_give_each_model_its_value_plainly_is_shown_whole(
    sentence: str, question: str
) -> None:
    assert asked_clauses(sentence, question_entities(question)) is None
