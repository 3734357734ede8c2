"""Which one holds the most or the least: read off a comparison table, named, and checked."""

from __future__ import annotations

import dataclasses

import pytest

from core.answer.extractive import extractive_answer
from core.answer.grounding import check
from core.answer.superlative import asked, quotes_table, verify
from core.context.units import parse
from core.scoring import SentenceScorer
from core.types import Fate, LedgerEntry
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
    # a wrong line is caught: K9's 35 minutes is not the longest
    wrong = draft.text.replace("Kestrel K7 (41 minutes)", "Kestrel K9 (35 minutes)")
    caught = check(wrong, e, scorer, "Which drone has the longest flight time?")
    assert caught is not None and caught.score == 0.5
    assert caught.sentences[1].problem == "a computed extreme that the evidence does not give"
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
    # metres and a unit word's plural compare ("1 year" and "2 years")
    more = LINEUP.replace(
        "| Camera |", "| Range | 8 m | 12 m | 10 m |\n| Warranty | 1 year | 2 years | 2 years |\n| Camera |"
    )
    m = [entry("drones/lineup.md", more)]
    assert (
        "**Longest**: Kestrel K7 (12 m)"
        in extractive_answer("Which drone has the longest range?", m, scorer, REFUSAL, 0.1).text
    )
    assert (
        "**Shortest**: Kestrel K5 (1 year)"
        in extractive_answer("Which drone has the shortest warranty?", m, scorer, REFUSAL, 0.1).text
    )
    # a question about one named model is no question of which one
    one = extractive_answer("Is the Kestrel K5 the lightest drone?", e, scorer, REFUSAL, 0.1)
    assert "**Lightest**" not in one.text


def test_the_row_must_name_the_superlatives_own_attribute(scorer: SentenceScorer) -> None:
    """Found by a review: "fastest" asks for a speed, not the charging time a row states (the
    shortest time would be the fastest); "cheapest drone" asks for the price, not the "Drone weight"
    row its noun meets; "Max payload weight" is no weight of the drone; a rate stays in the value."""
    table = """# Kestrel drones

## Comparison table

| Spec | Kestrel K5 | Kestrel K7 | Kestrel K9 |
|---|---|---|---|
| Charging time | 60 minutes | 90 minutes | 45 minutes |
| Drone weight | 1.9 kg | 2.6 kg | 3.4 kg |
| Max payload weight | 0.5 kg | 2.5 kg | 1.5 kg |
| Price | $899 | $1,499 | $2,299 |
| Top speed | 58 km/h | 72 km/h | 65 km/h |"""
    e = [entry("drones/table.md", table)]

    def line(q: str) -> str:
        return next(
            (x for x in extractive_answer(q, e, scorer, REFUSAL, 0.1).text.splitlines() if "**" in x), ""
        )

    assert line("Which drone charges fastest?") == ""
    assert line("Which drone has the fastest charging time?") == ""
    assert line("Which is the cheapest drone?").startswith("- **Cheapest**: Kestrel K5 ($899)")
    assert line("Which is the most expensive drone?").startswith("- **Most expensive**: Kestrel K9 ($2,299)")
    assert line("Which drone is the lightest?").startswith("- **Lightest**: Kestrel K5 (1.9 kg)")
    assert line("Which drone is the fastest?").startswith("- **Fastest**: Kestrel K7 (72 km/h)")
    assert line("What is the charging time of the lightest drone?") == ""  # it qualifies what is asked


def test_the_superlative_and_its_attribute_are_read_from_the_wording() -> None:
    longest = asked("Which model has the longest range?")
    assert longest is not None and (longest.word, longest.direction) == ("Longest", "max")
    assert longest.attribute == {"range"}
    cheapest = asked("What is the cheapest Stride?")  # a name after it is no attribute; its own decides
    assert cheapest is not None and cheapest.attribute == {"price"}
    yours = asked("Which is your cheapest thermostat?")  # "your", "our" stand where "the" does
    assert yours is not None and yours.attribute == {"price"} and yours.noun == {"thermostat"}
    ours = asked("What is our cheapest thermostat?")
    assert ours is not None and ours.attribute == {"price"}
    least = asked("Which is the least expensive model?")
    assert least is not None and (least.word, least.direction, least.attribute) == (
        "Least expensive",
        "min",
        {"price"},
    )
    for q in (
        "Which model is best for commuting?",
        "Which has at least 90 km range?",
        "What is the latest firmware?",
        "Which is the lightest and cheapest model?",  # two asked
        "What is the battery life of the lightest model?",  # it qualifies what is asked
        "How much does the lightest model cost?",
    ):
        assert asked(q) is None, q


def test_a_superlative_line_is_checked_against_the_row_the_answer_quotes() -> None:
    row = "Weight — Kestrel K5: 1.9 kg; Kestrel K7: 2.6 kg; Kestrel K9: 3.4 kg"
    assert verify("- **Lightest**: Kestrel K5 (1.9 kg) (a.md).", [row]) is True
    assert verify("- **Heaviest**: Kestrel K9 (3.4 kg) (a.md).", [row]) is True
    assert verify("- **Lightest**: Kestrel K7 (2.6 kg) (a.md).", [row]) is False  # not the least
    assert (
        verify("- **Lightest**: Kestrel K5 (1.8 kg) (a.md).", [row]) is False
    )  # not the value the row gives
    assert (
        verify("- **Least expensive**: Kestrel K5 (1.9 kg) (a.md).", [row]) is False
    )  # a weight is no price
    # a line the answerer did not write (no bold label) is read as any sentence
    assert verify("- Lowest latency: Game mode (60 ms) (a.md).", [row]) is None
    assert verify("- Weight: 1.9 kg (a.md).", [row]) is None


def test_a_superlative_about_things_the_documents_do_not_cover_is_refused(scorer: SentenceScorer) -> None:
    """ "Which is the cheapest car?" asked of drone documents would get the drones' price row and a
    confident "Cheapest" line: the word naming what is compared ("car") must be the store's and held
    by the evidence about its models, not only in passing ("carry it inside the car")."""
    tip = "# Transport tips\n\nCarry the batteries inside the car, never in the boot."
    e = [entry("drones/lineup.md", LINEUP), entry("tips.md", tip)]
    n = 40
    counts = (n, {"cheapest": 0, "car": 0, "drone": 12, "model": 9})
    draft = extractive_answer("Which is the cheapest car?", e, scorer, REFUSAL, 0.1, counts=counts)
    assert draft.refused and draft.reason == "no passage of the store mentions “car”"
    in_passing = (n, counts[1] | {"car": 1})  # the store holds it, only in a tip about no model
    passing = extractive_answer("Which is the cheapest car?", e, scorer, REFUSAL, 0.1, counts=in_passing)
    assert passing.refused and passing.reason == "the evidence about the compared ones never mentions “car”"
    for q in ("Which is the cheapest drone?", "Which is the cheapest model?"):  # the documents' own
        kept = extractive_answer(q, e, scorer, REFUSAL, 0.1, counts=counts)
        assert "**Cheapest**: Kestrel K5 ($899)" in kept.text, (q, kept.text)
    # without the store's counts, or for a named model, the rule does not apply
    assert not extractive_answer("Which is the cheapest car?", e, scorer, REFUSAL, 0.1).refused


SHOP = """# Talon accessories

## Workshop accessories

| Spec | Drill stand DS-1 | Carry case CC-2 | Wall rack WR-3 |
|---|---|---|---|
| Weight | 3.2 kg | 1.1 kg | 0.6 kg |
| Price | $59 | $29 | $19 |

## Batteries

| Battery | Capacity | Weight | Price |
|---|---|---|---|
| B20 | 2.0 Ah | 0.3 kg | $39 |
| B40 | 4.0 Ah | 0.55 kg | $69 |
| B60 | 6.0 Ah | 0.75 kg | $99 |

B20 fits the D12 only."""
DRILLS = """# Talon drill comparison

| Spec | Talon D12 | Talon D18 | Talon D24 |
|---|---|---|---|
| Weight (with battery) | 1.1 kg | 1.45 kg | 2.1 kg |
| Price (tool only) | $89 | $119 | $199 |"""


def _bold(q: str, e: list, scorer: SentenceScorer) -> list[str]:  # noqa: ANN001
    lines = extractive_answer(q, e, scorer, REFUSAL, 0.1).text.splitlines()
    return lines if any("**" in x for x in lines) else []


def test_a_table_with_a_row_per_compared_one_is_read_by_its_column(scorer: SentenceScorer) -> None:
    """Found on a drill corpus: "Which battery is the heaviest?" named a drill (the drills' "Weight
    (with battery)" row); the batteries' own table has a row per battery."""
    e = [entry("products/accessories.md", SHOP), entry("products/comparison.md", DRILLS)]
    q = "Which battery is the heaviest?"
    assert _bold(q, e, scorer) == [
        "- Weight — B20: 0.3 kg; B40: 0.55 kg; B60: 0.75 kg (products/accessories.md).",
        "- **Heaviest**: B60 (0.75 kg) (products/accessories.md).",
    ]
    assert (
        "**Cheapest**: B20 ($39)"
        in extractive_answer("Which is the cheapest battery?", e, scorer, REFUSAL, 0.1).text
    )
    draft = extractive_answer(q, e, scorer, REFUSAL, 0.1)
    grounding = check(draft.text, e, scorer, q)
    assert grounding is not None and grounding.score == 1.0
    # a value the table does not give is caught
    wrong = draft.text.replace("B40: 0.55 kg", "B40: 0.45 kg")
    caught = check(wrong, e, scorer, q)
    assert caught is not None and not caught.sentences[0].ok
    # what grounding falls back on when no one row reads like the quote: the cells, row by row
    rows = parse(SHOP)
    assert quotes_table("Weight — B20: 0.3 kg; B40: 0.55 kg; B60: 0.75 kg", rows)
    assert quotes_table("Price — Carry case CC-2: $29; Wall rack WR-3: $19", rows)  # part of a row
    assert not quotes_table("Weight — B20: 0.3 kg; B40: 0.45 kg", rows)
    assert not quotes_table("Price — B20: 0.3 kg", rows)  # a cell of another column


def test_what_the_question_compares_chooses_the_table(scorer: SentenceScorer) -> None:
    """Found on a drill corpus: "What is the lightest drill?" named the wall rack (an accessories
    table, one of whose names says "Drill"), "What is the cheapest carry case?" too."""
    e = [entry("products/accessories.md", SHOP), entry("products/comparison.md", DRILLS)]
    assert "**Lightest**: Talon D12 (1.1 kg)" in "\n".join(_bold("What is the lightest drill?", e, scorer))
    assert "**Cheapest**: Talon D12 ($89)" in "\n".join(_bold("Which is the cheapest drill?", e, scorer))
    # only one of a table's names says it, and the drills' table says nothing of it: no line
    assert _bold("What is the cheapest carry case?", e, scorer) == []
    assert _bold("What is the cheapest drill stand?", e, scorer) == []
    # a question that names no kind compares what the best table compares
    assert "**Heaviest**" in "\n".join(_bold("Which model is the heaviest?", e, scorer))


def test_a_quantity_in_the_question_narrows_the_compared_ones(scorer: SentenceScorer) -> None:
    """Found on a drill corpus: "Which of the 18 V drills is the lightest?" named the 12 V Talon D12;
    "Which drill with a 13 mm chuck is the cheapest?" the D12 too (a 10 mm chuck)."""
    table = (
        DRILLS.replace(
            "| Weight (with battery) |",
            "| Voltage | 12 V | 18 V | 18 V |\n| Chuck size | 10 mm | 13 mm | 13 mm |\n"
            "| Weight (with battery) |",
        )
        .replace("| Talon D24 |", "| Talon D18 Pro |")
        .replace("2.1 kg", "1,6 kg")
    )
    e = [entry("products/comparison.md", table)]
    assert _bold("Which of the 18 V drills is the lightest?", e, scorer) == [
        "- Voltage — Talon D12: 12 V; Talon D18: 18 V; Talon D18 Pro: 18 V (products/comparison.md).",
        "- Weight (with battery) — Talon D18: 1.45 kg; Talon D18 Pro: 1,6 kg (products/comparison.md).",
        "- **Lightest**: Talon D18 (1.45 kg) (products/comparison.md).",
    ]
    q = "Which drill with a 13 mm chuck is the cheapest?"
    assert "**Cheapest**: Talon D18 ($119)" in "\n".join(_bold(q, e, scorer))
    grounding = check(extractive_answer(q, e, scorer, REFUSAL, 0.1).text, e, scorer, q)
    assert grounding is not None and grounding.score == 1.0
    # a quantity no row of the table states cannot be read: no line over all of them
    assert _bold("Which drill under $150 is the lightest?", e, scorer) == []
    assert _bold("Which of the 36 V drills is the lightest?", e, scorer) == []
    # a bound is no value, even one a row states ("up to 18 V": the 12 V drill too)
    assert _bold("Which drill of up to 18 V is the lightest?", e, scorer) == []


def test_a_review_on_an_air_purifier_corpus(scorer: SentenceScorer) -> None:
    """Found by a review of the column reading: a fan-speed table on a model's page named "Sleep"
    the quietest model; "the cheapest shipping option" was refused for "option" (a word that only
    says "which one"); "the cheapest to run" read the purchase price; a name with brackets of its
    own failed the check."""
    page = """# Brisa 30 Pro

The Brisa 30 Pro is the quietest Brisa purifier.

## Fan speeds

| Fan speed | Noise | Power |
|---|---|---|
| Sleep | 21 dB | 4 W |
| Turbo | 47 dB | 35 W |

Sleep mode turns the display off."""
    shipping = """# Shipping

| Method | Price | Max parcel weight |
|---|---|---|
| Standard | $6.95 | 20 kg |
| Express | $14.95 | 20 kg |
| Pallet (Brisa 60 with stand) | $49.00 | 60 kg |

Orders ship from Denver."""
    e = [entry("brisa-30-pro.md", page), entry("shipping.md", shipping), entry("compare.md", DRILLS)]
    assert (
        "**Quietest**: Sleep"
        not in extractive_answer("Which model is the quietest?", e, scorer, REFUSAL, 0.1).text
    )
    assert "**Quietest**: Sleep (21 dB)" in "\n".join(_bold("Which fan speed is the quietest?", e, scorer))
    counts = (40, {"cheapest": 0, "shipping": 3, "option": 0})
    option = extractive_answer(
        "What is the cheapest shipping option?", e, scorer, REFUSAL, 0.1, counts=counts
    )
    assert "**Cheapest**: Standard ($6.95)" in option.text, option.text
    assert "**" not in extractive_answer("Which model is the cheapest to run?", e, scorer, REFUSAL, 0.1).text
    pallet = extractive_answer("Which shipping method is the most expensive?", e, scorer, REFUSAL, 0.1).text
    assert "**Most expensive**: Pallet (Brisa 60 with stand) ($49.00)" in pallet, pallet
    grounding = check(pallet, e, scorer, "Which shipping method is the most expensive?")
    assert grounding is not None and grounding.score == 1.0
    # an attribute written as an acronym is no name ("the highest CADR" got no line)
    cadr = [
        entry(
            "compare.md",
            "# Brisa purifiers\n\n| Spec | Brisa 20 | Brisa 60 |\n|---|---|---|\n| CADR | 150 m³/h | 450 m³/h |",
        )
    ]
    assert "**Highest**: Brisa 60 (450 m³/h)" in "\n".join(
        _bold("Which model has the highest CADR?", cadr, scorer)
    )


def test_a_models_own_spec_table_does_not_stand_in_for_the_comparison(scorer: SentenceScorer) -> None:
    """Found on a robot-mower corpus: "Which mower has the longest run time?" quoted the M3's own
    spec table (its heading says "mower", the comparison's does not) and named nobody; a table of
    one model compares nothing."""
    own = """# Verda M3 — robot lawn mower for small gardens

## Specifications

| Specification | Verda M3 |
|---|---|
| Run time | 50 min |
| Weight | 7.4 kg |

The M3 docks itself when the battery runs low."""
    compare = """# Compare the Verda models

| Specification | Verda M3 | Verda M30 | Verda M5 |
|---|---|---|---|
| Run time | 50 min | 120 min | 180 min |
| Weight | 7.4 kg | 10.8 kg | 13.6 kg |

Run times are measured on a flat, dry lawn."""
    e = [entry("verda-m3.md", own, 0.85), entry("compare.md", compare, 0.8)]
    lines = _bold("Which mower has the longest run time?", e, scorer)
    assert "- **Longest**: Verda M5 (180 min) (compare.md)." in lines, lines


def test_without_a_table_a_sentence_saying_which_one_is_answers(scorer: SentenceScorer) -> None:
    """Found on a thermostat corpus: "Which is your cheapest thermostat?" (the comparison table's
    price row not among the candidates) listed the sensor rows of every model, while the best
    passage said which one is cheapest."""
    compare = """# Compare Solvane thermostats

| Feature | Solvane T6 | Solvane T4 | Solvane T40 |
|---|---|---|---|
| Remote room sensors | None | Up to 2 | Up to 16 |
| Humidity sensor | No | No | Yes |

## How to choose

If your home is heated only by a boiler, the T6 is the simplest and cheapest choice. The T40 is \
for homes with a heat pump and a furnace."""
    e = [entry("compare.md", compare, 0.8)]
    d = extractive_answer("Which is your cheapest thermostat?", e, scorer, REFUSAL, 0.25, "comparison")
    assert d.text.startswith(
        "If your home is heated only by a boiler, the T6 is the simplest and cheapest"
    ), d.text
    assert "Remote room sensors" not in d.text
    # a table that gives the values still answers with them
    priced = compare.replace("| Humidity sensor | No | No | Yes |", "| Price | $99 | $129 | $249 |")
    lines = _bold("Which is your cheapest thermostat?", [entry("compare.md", priced, 0.8)], scorer)
    assert any(line.startswith("- **Cheapest**: Solvane T6 ($99)") for line in lines), lines


GRINDERS_1 = """# Compare the Brio grinders

Every Brio grinder at a glance.

| Model | Price | Noise |
|---|---|---|
| Brio 1 | $149 | 72 dB |
| Brio 2 | $199 | 66 dB |"""
GRINDERS_2 = """| Model | Price | Noise |
|---|---|---|
| Brio 3 | $249 | 70 dB |
| Brio 50 | $299 | 64 dB |"""


def _part(text: str, index: int, goes_on: bool | None, fate: Fate = Fate.KEPT) -> LedgerEntry:
    return dataclasses.replace(
        entry("compare.md", text, fate=fate),
        chunk_id=f"compare-{index}",
        chunk_index=index,
        table_goes_on=goes_on,
    )


def test_a_table_split_between_two_chunks_is_read_as_one(scorer: SentenceScorer) -> None:
    """Ingest split the table after the Brio 2 and repeated its header row in the next chunk: with
    both parts injected whole, the quietest is read across them (the Brio 50, in the second part)."""
    both = [_part(GRINDERS_1, 0, True), _part(GRINDERS_2, 1, False)]
    assert "**Quietest**: Brio 50 (64 dB)" in "\n".join(_bold("Which grinder is the quietest?", both, scorer))
    # the first part alone, or the second cut short, is no whole table: no one is named
    assert _bold("Which grinder is the quietest?", both[:1], scorer) == []
    cut = [both[0], _part(GRINDERS_2, 1, False, Fate.TRUNCATED)]
    assert _bold("Which grinder is the quietest?", cut, scorer) == []
    # a table ending its chunk is whole only when ingest says it does not go on
    assert _bold("Which grinder is the quietest?", [_part(GRINDERS_1, 0, None)], scorer) == []
    alone = [_part(GRINDERS_1, 0, False)]
    assert "**Quietest**: Brio 2 (66 dB)" in "\n".join(_bold("Which grinder is the quietest?", alone, scorer))


def test_a_table_that_does_not_say_what_is_compared_is_no_answer_beside_a_passage_that_does(
    scorer: SentenceScorer,
) -> None:
    """Found on an e-reader corpus: "What is the cheapest Lumo e-reader?" named a screen protector,
    the cheapest of an accessories table, beside a comparison of the e-readers whose price row was
    not injected."""
    shop = (
        "# Accessories\n\n| Accessory | Price |\n|---|---|\n| Sleep Cover | $29.99 |\n"
        "| 9 W USB-C Power Adapter | $19.99 |\n| Screen Protector (2-pack) | $12.99 |\n\nAll prices in US dollars."
    )
    readers = "# Compare Lumo e-readers\n\nAll four Lumo readers use glare-free E Ink screens."
    e = [entry("accessories.md", shop), entry("compare.md", readers)]
    assert _bold("What is the cheapest Lumo e-reader?", e, scorer) == []
    assert "**Cheapest**: Screen Protector (2-pack) ($12.99)" in "\n".join(
        _bold("What is the cheapest accessory?", e, scorer)
    )
    # with no table saying what is compared, the table that does not say it still answers, beside
    # a guide's prose headed by it too
    assert "**Cheapest**" in "\n".join(_bold("What is the cheapest Lumo e-reader?", e[:1], scorer))
    guide = entry("guide.md", "# Lumo e-reader buying guide\n\nA good e-reader lasts for years.")
    assert "**Cheapest**" in "\n".join(_bold("What is the cheapest Lumo e-reader?", [e[0], guide], scorer))


def test_values_of_one_measure_at_another_scale_are_compared(scorer: SentenceScorer) -> None:
    """Found on a label-printer corpus: "Which Nib model is the heaviest?" quoted the weight row
    ("185 g" … "1.2 kg" … "1.45 kg") and named nobody: grams and kilograms are one measure."""
    table = (
        "# Compare the Nib printers\n\n| Spec | Nib Go | Nib 3 | Nib 30 | Nib X3 |\n|---|---|---|---|---|\n"
        "| Weight | 185 g | 410 g | 1.2 kg | 1.45 kg |\n| Capacity | 400 mL | 0.5 L | 2 L | 750 mL |"
    )
    e = [entry("compare.md", table)]
    assert "**Heaviest**: Nib X3 (1.45 kg)" in "\n".join(_bold("Which Nib model is the heaviest?", e, scorer))
    assert "**Lightest**: Nib Go (185 g)" in "\n".join(_bold("Which Nib model is the lightest?", e, scorer))
    draft = extractive_answer("Which Nib model is the heaviest?", e, scorer, REFUSAL, 0.1)
    grounding = check(draft.text, e, scorer, "Which Nib model is the heaviest?")
    assert grounding is not None and grounding.score == 1.0
    # a unit of another measure is no comparison ("2 L" of a volume beside grams)
    mixed = table.replace("| 1.2 kg |", "| 2 L |")
    assert _bold("Which Nib model is the heaviest?", [entry("compare.md", mixed)], scorer) == []


def test_two_tables_of_one_chunk_under_one_header_stay_two(scorer: SentenceScorer) -> None:
    """A review's case: manual and electric grinders, two tables with the same header in one chunk,
    read as one table named an electric grinder the most expensive manual one."""
    text = (
        "# Grinders\n\n## Manual grinders\n\n| Model | Price |\n|---|---|\n| Brio Hand 1 | $39 |\n| Brio Hand 2 | $59 |\n\n"
        "## Electric grinders\n\n| Model | Price |\n|---|---|\n| Brio 5 | $149 |\n| Brio 50 | $199 |\n\nPrices in US dollars."
    )
    lines = "\n".join(
        _bold("Which manual grinder is the most expensive?", [entry("grinders.md", text)], scorer)
    )
    assert "Brio 50" not in lines, lines
