"""Which one holds the most or the least: read off a comparison table, named, and checked."""

from __future__ import annotations

import pytest

from core.answer.extractive import extractive_answer
from core.answer.grounding import check
from core.answer.superlative import asked, verify
from core.scoring import SentenceScorer
from tests.unit.answer.test_extractive import REFUSAL, entry

LINEUP = """# Kestrel drones: which one is right for you?

## Comparison table

| Spec | Kestrel K5 | Kestrel K7 | Kestrel K9 |
|---|---|---|---|
| Flight time | 28 minutes | 41 minutes | 35 minutes |
| Weight | 1.9 kg | 2.6 kg | 3.4 kg |
| Price | $899 | $1,499 | $2,299 |
| Camera | 12 MP | 20 MP | 20 MP |
| Obstacle sensing | Front | Front and rear | All sides |"""


@pytest.fixture(scope="module")
def scorer(resources) -> SentenceScorer:  # noqa: ANN001
    return SentenceScorer(resources.embedder)


def test_which_one_holds_the_extreme_is_named_after_its_row(scorer: SentenceScorer) -> None:
    e = [entry("drones/lineup.md", LINEUP)]
    draft = extractive_answer("Which drone has the longest flight time?", e, scorer, REFUSAL, 0.1)
    assert draft.text.splitlines() == [
        "- Flight time — Kestrel K5: 28 minutes; Kestrel K7: 41 minutes; Kestrel K9: 35 minutes (drones/lineup.md).",
        "- **Longest**: Kestrel K7 (41 minutes) (drones/lineup.md).",
    ]
    grounding = check(draft.text, e, scorer, "Which drone has the longest flight time?")
    assert grounding is not None and grounding.score == 1.0
    cheap = extractive_answer("Which is the cheapest drone?", e, scorer, REFUSAL, 0.1)
    assert "**Cheapest**: Kestrel K5 ($899)" in cheap.text, cheap.text
    pricey = extractive_answer("Which drone is the most expensive?", e, scorer, REFUSAL, 0.1)
    assert "**Most expensive**: Kestrel K9 ($2,299)" in pricey.text, pricey.text
    # a tie names no one, values that are no single quantity neither
    for q in (
        "Which drone has the highest camera resolution?",
        "Which drone has the widest obstacle sensing?",
    ):
        assert "**" not in extractive_answer(q, e, scorer, REFUSAL, 0.1).text
    # a question about one named model is no question of which one
    one = extractive_answer("Is the Kestrel K5 the lightest drone?", e, scorer, REFUSAL, 0.1)
    assert "**Lightest**" not in one.text


def test_the_superlative_and_its_attribute_are_read_from_the_wording() -> None:
    longest = asked("Which model has the longest range?")
    assert longest is not None and (longest.word, longest.direction) == ("Longest", "max")
    assert longest.attribute == {"range"}
    cheapest = asked("What is the cheapest Stride?")  # a name after it is no attribute
    assert cheapest is not None and cheapest.attribute == frozenset() and cheapest.own == {"price"}
    least = asked("Which is the least expensive model?")
    assert least is not None and (least.word, least.direction, least.own) == (
        "Least expensive",
        "min",
        {"price"},
    )
    for q in (
        "Which model is best for commuting?",
        "Which has at least 90 km range?",
        "What is the latest firmware?",
    ):
        assert asked(q) is None


def test_a_superlative_line_is_checked_against_the_row_the_answer_quotes() -> None:
    row = "Weight — Kestrel K5: 1.9 kg; Kestrel K7: 2.6 kg; Kestrel K9: 3.4 kg"
    assert verify("Lightest: Kestrel K5 (1.9 kg)", [row]) is True
    assert verify("Heaviest: Kestrel K9 (3.4 kg)", [row]) is True
    assert verify("Lightest: Kestrel K7 (2.6 kg)", [row]) is False  # not the least
    assert verify("Lightest: Kestrel K5 (1.8 kg)", [row]) is False  # not the value the row gives
    assert verify("Weight: 1.9 kg", [row]) is None  # no superlative line
