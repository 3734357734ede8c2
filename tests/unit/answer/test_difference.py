"""A comparison's difference: written only when asked and computable, and checked by recomputing it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.answer.difference import bullet, line, sole_quantity, verify

SUCTION = [("Dustwise D3", "Suction power 2,200 Pa"), ("Dustwise D6", "Suction power 4,000 Pa")]


def test_a_side_states_one_quantity_or_none() -> None:
    assert sole_quantity("Suction power 2,200 Pa").text == "2,200 Pa"
    assert sole_quantity("Runtime — Dustwise D3: up to 90 minutes").text == "90 minutes"  # "D3" is a name
    assert sole_quantity("Price (RRP): USD 599").text == "USD 599"
    # one-letter units that are also left of a contraction ("I'm", "it's") are units after a number
    assert [sole_quantity(t).text for t in ("10 m", "0.35 s", "2 t")] == ["10 m", "0.35 s", "2 t"]
    # a unit joined by a hyphen ("3.5-inch colour touchscreen", "a 5-year warranty"): a thermostat
    # review's display sizes gave no "Largest" line; a hyphen before a digit is a range, no unit
    assert [sole_quantity(t).text for t in ("3.5-inch colour touchscreen", "a 5-year warranty")] == [
        "3.5-inch",
        "5-year",
    ]
    assert sole_quantity("1.8-2.4 kg") is None and sole_quantity("model ZX-10R") is None
    for text in (
        "60–90 min",  # a range
        "30 × 20 × 10 cm",  # a size
        "22 February 2024",  # a date
        "Suction: 2 200 Pa",  # grouped by a space: two numbers
        "€2.499",  # grouped by a dot, or a fraction: not guessed
        "Minimum -20 °C",  # negative
        "firmware v2.4.1",  # a version is a name
        "Step 3 of the guide",  # a bare number is no quantity
        "1.234,5 kg",  # grouped by a dot
        "1,1234 kg",  # a comma before more than two digits that are not a thousands group
    ):
        assert sole_quantity(text) is None, text
    # a comma before one or two digits is a decimal comma, not a thousands separator
    assert [sole_quantity(t).value for t in ("24,9 kg", "0,25 mm", "1,550 EUR")] == [
        Decimal("24.9"), Decimal("0.25"), Decimal("1550"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "sides", "expected"),
    [
        ("How much more suction does the D6 have compared with the D3?", SUCTION,
         "Difference: 1,800 Pa (Dustwise D6: 4,000 Pa − Dustwise D3: 2,200 Pa)"),
        ("How much cheaper is the D3 than the D6?", [("D3", "Price: USD 249"), ("D6", "Price: USD 599")],
         "Difference: USD 350 (D6: USD 599 − D3: USD 249)"),
        ("By how much is the K7 heavier than the K5?", [("K5", "Weight: 1.9 kg"), ("K7", "Weight: 2.45 kg")],
         "Difference: 0.55 kg (K7: 2.45 kg − K5: 1.9 kg)"),
        ("What's the difference in price between the plans?", [("Basic", "$8 per month"), ("Plus", "$12 per month")],
         "Difference: $4 per month (Plus: $12 − Basic: $8)"),
        ("How much longer is the warranty on the E7?", [("E5", "2 years"), ("E7", "3 years")],
         "Difference: 1 year (E7: 3 years − E5: 2 years)"),
        # a decimal comma ("24,9 kg"), read beside a decimal point, and written as the values are
        ("How much heavier is the B50 than the B5?", [("B5", "Weight: 7.8 kg"), ("B50", "Weight: 24,9 kg")],
         "Difference: 17.1 kg (B50: 24,9 kg − B5: 7.8 kg)"),
        ("How much more water does the B50 hold?", [("B5", "1,2 L"), ("B50", "2,5 L")],
         "Difference: 1,3 L (B50: 2,5 L − B5: 1,2 L)"),
        # the attribute named before "difference" (a thermostat review: "the price difference
        # between the T4 and the T4 Pro" listed both prices without it)
        ("What's the price difference between the T4 and the T4 Pro?", [("T4", "$129"), ("T4 Pro", "$189")],
         "Difference: $60 (T4 Pro: $189 − T4: $129)"),
    ],
)  # fmt: skip
def test_a_difference_asked_for_is_computed_larger_first(question: str, sides: list, expected: str) -> None:
    assert line(question, sides) == expected


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("How much does the lighter model cost?", SUCTION),  # a comparative, but no amount between
        ("How many times faster is the K7?", [("K5", "54 km/h"), ("K7", "68 km/h")]),  # a ratio
        ("How much faster must a SEV1 be acknowledged than a SEV3?",
         [("SEV1", "Acknowledge within: 15 minutes"), ("SEV3", "Acknowledge within: 4 hours")]),  # units differ
        ("How much cheaper is the plan?", [("A", "$8/month"), ("B", "$79/year")]),  # rates differ
        ("How much cheaper is it?", [("A", "$1,199 (US)"), ("B", "$1,599 (AU)")]),  # regions differ
        ("How much more does the D6 cost?", [("D3", "€249 (EU) · $269 (US)"), ("D6", "€599 (EU) · $649 (US)")]),
        ("How much longer does it run?", [("A", "60–90 min"), ("B", "120 min")]),
        ("How much lower is its minimum?", [("F1", "Minimum 5 °C"), ("F2", "Minimum -20 °C")]),
        ("What's the difference in how they detect collisions?",
         [("ArmX2", "wrist force-torque sensor"), ("ArmX3", "torque sensors in all six joints")]),
        ("How much more suction does the D6 have?", SUCTION[:1]),
        # "the main difference" names no attribute: a generic comparison gets no subtraction
        ("What's the main difference between the D3 and the D6?", SUCTION),
        ("What is the difference between the D3 and the D6?", SUCTION),
        ("Is there any difference between the D3 and the D6?", SUCTION),
    ],
)  # fmt: skip
def test_no_difference_unless_asked_and_each_side_states_one_quantity_of_one_kind(
    question: str, sides: list
) -> None:
    assert line(question, sides) == ""


def test_the_check_finds_both_inputs_with_their_names_and_redoes_the_subtraction() -> None:
    written = line("How much more suction does the D6 have than the D3?", SUCTION)
    evidence = "| Suction power | 2,200 Pa | 4,000 Pa |"
    answer = [
        "Dustwise D3: Suction power 2,200 Pa (a.md).",
        "Dustwise D6: Suction power 4,000 Pa (a.md).",
        written,
    ]
    assert verify(written, evidence, answer) is True
    assert verify(written.replace("1,800", "1,700"), evidence, answer) is False  # wrong arithmetic
    assert verify(written, "| Suction power | 2,200 Pa |", answer) is False  # a value the evidence lacks
    assert verify(written, evidence, answer[1:]) is False  # the D3's value is stated nowhere in the answer
    swapped = "Difference: 1,800 Pa (Dustwise D3: 4,000 Pa − Dustwise D6: 2,200 Pa)"
    assert verify(swapped, evidence, answer) is False  # names and values paired otherwise than the answer
    assert (
        verify("Difference: 2 Pa (Dustwise D6: 4,000 Pa − Dustwise D3: 2,200 Pa)", evidence, answer) is False
    )
    assert (
        verify("Difference: 13 kg (K7: 41 km/h − K5: 28 MP)", "41 km/h, 28 MP", ["K7: 41 km/h", "K5: 28 MP"])
        is False
    )
    # "200" is not found inside "2,200": quantities are compared whole
    assert (
        verify(
            "Difference: 200 Pa (D6: 2,200 Pa − D3: 2,000 Pa)",
            "2,200 Pa; 2,100 Pa",
            ["D6: 2,200 Pa", "D3: 2,000 Pa"],
        )
        is False
    )
    assert verify("The D6 has 4,000 Pa of suction.", evidence, answer) is None  # not a difference line


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("How much more suction does the D3 have than the D6?", "; Dustwise D3 has less, not more"),
        ("Compared with the D6, how much more suction does the D3 have?", "; Dustwise D3 has less, not more"),
        ("How much less suction does the D6 have than the D3?", "; Dustwise D6 has more, not less"),
        ("By how much is the D3 stronger than the Dustwise D6?", "; Dustwise D3 is weaker, not stronger"),
        ("How much more suction does the D6 have than the D3?", ""),  # as asked
        ("Compared with the D3, how much more suction does the D6 have?", ""),
        ("How much more suction does the D3 have?", ""),  # which side it is compared with is not said
        ("What's the difference in suction between the D3 and the D6?", ""),  # no direction asked
    ],
)  # fmt: skip
def test_a_question_that_has_the_sides_the_wrong_way_round_gets_a_note(question: str, note: str) -> None:
    assert (
        line(question, SUCTION)
        == f"Difference: 1,800 Pa (Dustwise D6: 4,000 Pa − Dustwise D3: 2,200 Pa){note}"
    )


def test_a_premise_note_is_verified_against_the_values() -> None:
    evidence = "Suction power 2,200 Pa. Suction power 4,000 Pa."
    answer = ["Dustwise D3: Suction power 2,200 Pa", "Dustwise D6: Suction power 4,000 Pa"]
    head = "Difference: 1,800 Pa (Dustwise D6: 4,000 Pa − Dustwise D3: 2,200 Pa)"
    assert verify(f"{head}; Dustwise D3 has less, not more", evidence, answer) is True
    for wrong in (
        "Dustwise D6 has less, not more",
        "Dustwise D3 has more, not less",
        "Dustwise D3 is lighter, not more",
    ):
        assert verify(f"{head}; {wrong}", evidence, answer) is False, wrong


K = [("K5", "Weight: 1.9 kg"), ("K7", "Weight: 2.6 kg")]


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ("Which is cheaper, and how much heavier is the K7 than the K5?", ""),  # the asked word is "heavier"
        ("At a lower price, how much heavier is the K7 than the K5?", ""),
        ("For a longer flight, how much heavier is the K5 than the K7?", "; K5 is lighter, not heavier"),
        ("Other than the battery, how much heavier is the K7 than the K5?", ""),  # the "than" after the comparative
        ("Rather than guessing, how much lighter is the K7 than the K5?", "; K7 is heavier, not lighter"),
    ],
)  # fmt: skip
def test_the_note_reads_the_asked_comparative_and_the_than_after_it(question: str, note: str) -> None:
    assert line(question, K) == f"Difference: 0.7 kg (K7: 2.6 kg − K5: 1.9 kg){note}"


def test_a_name_inside_a_longer_name_is_not_its_mention() -> None:
    sides = [("K5 Pro", "Weight: 2.6 kg"), ("K5", "Weight: 1.9 kg")]
    assert (
        line("How much heavier is the K5 Pro than the K5?", sides)
        == "Difference: 0.7 kg (K5 Pro: 2.6 kg − K5: 1.9 kg)"
    )
    assert line("How much heavier is the K5 than the K5 Pro?", sides).endswith("; K5 is lighter, not heavier")


def test_a_note_is_checked_against_the_question_and_cannot_hide_in_a_value() -> None:
    evidence, answer = "Weight: 1.9 kg. Weight: 2.6 kg.", ["K5: Weight: 1.9 kg", "K7: Weight: 2.6 kg"]
    head, question = "Difference: 0.7 kg (K7: 2.6 kg − K5: 1.9 kg)", "How much heavier is the K5 than the K7?"
    assert verify(f"{head}; K5 is lighter, not heavier", evidence, answer, question) is True
    assert (
        verify(f"{head}; K5 is cheaper, not dearer", evidence, answer, question) is False
    )  # not the asked word
    assert (
        verify(f"{head}; K7 is lighter, not heavier (per spec)", evidence, answer) is False
    )  # not swallowed
    named = "Difference: 0.7 kg (K7: 2.6 kg − K5 (2024): 1.9 kg); K5 (2024) is lighter, not heavier"
    assert verify(named, evidence, ["K5 (2024): Weight: 1.9 kg", "K7: Weight: 2.6 kg"]) is True


def test_a_side_of_several_value_texts_that_agree_gives_the_difference() -> None:
    """A side shown with its spec item and a sentence saying the same value gives the difference;
    a side whose texts state two values of the kind (two editions' prices) gives none."""
    question = "How much more battery life does the Orla 4 Plus have than the Orla 4?"
    plus = [
        ("Battery life: Up to 10 weeks", "plus.md"),
        ("Battery life is up to 10 weeks with the light set to 12", "plus.md"),
    ]
    base = [("Battery life: Up to 6 weeks", "orla-4.md")]
    assert bullet(question, [("Orla 4 Plus", plus), ("Orla 4", base)]) == (
        "- **Difference**: 4 weeks (Orla 4 Plus: 10 weeks − Orla 4: 6 weeks) (plus.md) (orla-4.md)."
    )
    other = [("Battery life: Up to 10 weeks", "plus.md"), ("In eco mode it lasts 12 weeks", "plus.md")]
    assert bullet(question, [("Orla 4 Plus", other), ("Orla 4", base)]) == ""
    prices = [("Price: $229.99 (32 GB), $259.99 (64 GB)", "a.md"), ("Price: $229.99", "b.md")]
    assert bullet("What's the price difference between the Orla 40 and the Orla 4?",
                  [("Orla 40", prices), ("Orla 4", [("Price: $99.99", "c.md")])]) == ""  # fmt: skip


@pytest.mark.parametrize(
    ("question", "sides", "verdict"),
    [
        ("Which has more suction, the D3 or the D6?", SUCTION, "; more: Dustwise D6"),
        ("Which one is lighter, the DX-20 or the DX-20e?",
         [("DX-20", "DX-20 — Weight: 6.8 kg"), ("DX-20e", "DX-20e — Weight: 6.5 kg")], "; lighter: DX-20e"),
    ],
)  # fmt: skip
def test_which_of_two_is_more_so_gets_the_difference_and_the_verdict(
    question: str, sides: list, verdict: str
) -> None:
    """ "Which is lighter, A or B?" is answered by the difference and which side holds the smaller
    value (a row's name and its number are no second quantity); verify() checks the verdict and a
    wrong one fails."""
    computed = line(question, sides)
    assert computed.endswith(verdict), computed
    evidence = " ".join(text for _, text in sides)
    answer = [f"{name}: {text}" for name, text in sides]
    assert verify(computed, evidence, answer, question) is True
    (big, _), (small, _) = sorted(sides, key=lambda s: -float(s[1].split()[-2].replace(",", "")))
    wrong = computed.replace(
        verdict, f"; {verdict.split(': ')[0][2:]}: {big if 'lighter' in verdict else small}"
    )
    assert verify(wrong, evidence, answer, question) is False
