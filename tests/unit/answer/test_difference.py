"""A comparison's difference: written only when asked and computable, and checked by recomputing it."""

from __future__ import annotations

import pytest

from core.answer.difference import line, quantities, verify

SUCTION = [("Dustwise D3", "Suction power 2,200 Pa"), ("Dustwise D6", "Suction power 4,000 Pa")]


def test_quantities_need_a_unit_or_a_currency() -> None:
    assert [q.text for q in quantities("Suction power 2,200 Pa at 3 levels, 1,700W")] == [
        "2,200 Pa",
        "3 levels",
        "1,700W",
    ]
    assert [q.text for q in quantities("Price: USD 599 or $79 per year")] == ["USD 599", "$79"]
    # a model's digits, a version and a bare number are no quantity
    assert quantities("The D6 runs firmware v2.4.1; step 3") == []


@pytest.mark.parametrize(
    ("question", "sides", "expected"),
    [
        ("How much more suction does the D6 have compared with the D3?", SUCTION,
         "Difference: 1,800 Pa (Dustwise D6 4,000 Pa − Dustwise D3 2,200 Pa)"),
        ("How much cheaper is the D3 than the D6?", [("D3", "Price: USD 249"), ("D6", "Price: USD 599")],
         "Difference: USD 350 (D6 USD 599 − D3 USD 249)"),
        ("By how much is the K7 heavier than the K5?", [("K5", "Weight: 1.9 kg"), ("K7", "Weight: 2.45 kg")],
         "Difference: 0.55 kg (K7 2.45 kg − K5 1.9 kg)"),
        ("What's the difference in price between the plans?", [("Basic", "$79"), ("Plus", "$129")],
         "Difference: $50 (Plus $129 − Basic $79)"),
    ],
)  # fmt: skip
def test_a_difference_asked_for_is_computed_larger_first(question: str, sides: list, expected: str) -> None:
    assert line(question, sides) == expected


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Which has more suction, the D3 or the D6?", SUCTION),  # which one, not how much
        ("How much faster must a SEV1 be acknowledged than a SEV3?",
         [("SEV1", "Acknowledge within: 15 minutes"), ("SEV3", "Acknowledge within: 4 hours")]),  # units differ
        ("How much more does the D6 cost?", [("D3", "€249 (EU) · $269 (US)"), ("D6", "€599 (EU) · $649 (US)")]),
        ("What's the difference in how they detect collisions?",
         [("ArmX2", "wrist force-torque sensor"), ("ArmX3", "torque sensors in all six joints")]),
        ("How much more suction does the D6 have?", SUCTION[:1]),
    ],
)  # fmt: skip
def test_no_difference_unless_asked_and_each_side_states_one_quantity_in_one_unit(
    question: str, sides: list
) -> None:
    assert line(question, sides) == ""


def test_the_check_redoes_the_subtraction_and_finds_both_values_in_the_evidence() -> None:
    written = line("How much more suction does the D6 have than the D3?", SUCTION)
    evidence = "| Suction power | 2,200 Pa | 4,000 Pa |"
    assert verify(written, evidence) is True
    assert verify(written.replace("1,800", "1,700"), evidence) is False  # wrong arithmetic
    assert verify(written, "| Suction power | 2,200 Pa |") is False  # a value the evidence lacks
    assert verify("The D6 has 4,000 Pa of suction.", evidence) is None  # not a difference line
