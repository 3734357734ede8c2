"""A field giving one value per qualifier is narrowed to the asked qualifier's value."""

from __future__ import annotations

import pytest

from core.answer.qualified import asked_part

PRICE = "Price: €2,499 (EU, incl. VAT) · $2,699 (US) · £2,199 (UK)"
LIMIT = "Assist speed limit: 25 km/h (EU); 20 mph (US version, Class 1)"


@pytest.mark.parametrize(
    ("text", "question", "shown"),
    [
        (PRICE, "what's the UK price for a vela c2", "Price: £2,199 (UK)"),
        (PRICE, "How much is it in the US?", "Price: $2,699 (US)"),
        (
            LIMIT,
            "What's the top assisted speed of the US version of the C2?",
            "Assist speed limit: 20 mph (US version, Class 1)",
        ),
        ("Range: 120 km (Eco) | 60 km (Turbo)", "What range do I get in turbo mode?", "Range: 60 km (Turbo)"),
    ],
)
def test_the_part_whose_qualifier_the_question_names_is_kept(text: str, question: str, shown: str) -> None:
    assert asked_part(text, question) == shown


@pytest.mark.parametrize(
    ("text", "question"),
    [
        (PRICE, "How much does the C2 cost?"),  # no qualifier asked: every price
        (PRICE, "Can you tell us the price?"),  # "us" is no region
        (PRICE, "Is the EU price or the UK price lower?"),  # two parts asked
        ("Noise level: 24 dB (Sleep) to 52 dB (Turbo)", "How loud is it in turbo?"),  # a range, not a list
        ("Ports: 2 × USB-C (front); HDMI (rear)", "What is on the rear?"),  # a part without a value
        ("Weight: 21.5 kg (size M)", "What does a size M weigh?"),  # one part
        (
            "Price: $99 (1 year) · $179 (2 years) · $249 (3 years)",
            "How much is the 2-year plan?",
        ),  # lower case
        ("Runtime: 2 h (continuous use) · 5 h (standby)", "Can I use it while charging?"),
        ("Noise: 40 dB (low) · 52 dB (high)", "What is the noise level at high altitude?"),
        (PRICE, "TELL US THE PRICE"),  # all in capitals: "US" may be the pronoun
    ],
)
def test_a_field_stays_whole_unless_one_parts_qualifier_is_asked(text: str, question: str) -> None:
    assert asked_part(text, question) is None
