"""Evidence units parsed from a chunk's canonical text: sentences, list items, table rows."""

from __future__ import annotations

from core.context.units import field, parse

TEXT = """# Kestrel K7 Drone

The Kestrel K7 is a **survey** drone. It maps [fields](https://example.com) quickly.

## Specifications

- Flight time: 41 minutes
- Top speed: 68 km/h

## K7 vs K5

| Feature | K5 | K7 |
|---|---|---|
| Flight time | 28 minutes | 41 minutes |
| Camera | 12 MP | 20 MP |

## Pairing

3. Hold the pairing button.
4. Wait for the green light."""


def test_units_carry_kind_path_and_clean_text() -> None:
    units = parse(TEXT)
    kinds = [u.kind for u in units]
    assert kinds == ["sentence", "sentence", "item", "item", "row", "row", "item", "item"]
    first, second = units[0], units[1]
    assert first.text == "The Kestrel K7 is a survey drone." and first.path == ("Kestrel K7 Drone",)
    assert second.text == "It maps fields quickly."  # link markup gone
    assert units[2].text == "Flight time: 41 minutes" and units[2].path == (
        "Kestrel K7 Drone",
        "Specifications",
    )
    assert all("|" not in u.text and "#" not in u.text and "**" not in u.text for u in units)


def test_table_rows_read_subject_column_value() -> None:
    rows = [u for u in parse(TEXT) if u.kind == "row"]
    assert rows[0].text == "Flight time — K5: 28 minutes; K7: 41 minutes"
    assert rows[0].row_text([2]) == "Flight time — K7: 41 minutes"
    assert rows[0].header == ("Feature", "K5", "K7") and rows[0].path[-1] == "K7 vs K5"


def test_numbered_items_keep_their_ordinals_and_list() -> None:
    steps = [u for u in parse(TEXT) if u.ordinal is not None]
    assert [(u.ordinal, u.text) for u in steps] == [
        (3, "Hold the pairing button."),
        (4, "Wait for the green light."),
    ]
    assert len({u.block for u in steps}) == 1
    specs = [u for u in parse(TEXT) if u.kind == "item" and u.ordinal is None]
    assert specs[0].block != steps[0].block


def test_base_path_applies_until_a_heading_replaces_it() -> None:
    units = parse(
        "- Battery: 5 Ah\n\n## Charging\n\nCharge it overnight.", ("Kestrel K7 Drone", "Specifications")
    )
    assert units[0].path == ("Kestrel K7 Drone", "Specifications")
    assert units[1].path == ("Kestrel K7 Drone", "Charging")


def test_an_elided_table_keeps_its_header() -> None:
    from core.context.units import parse

    text = "| Property | K5 | K7 |\n…\n| Max wind | 30 km/h | 45 km/h |\n| Range | 4 km | 7 km |"
    rows = [u for u in parse(text) if u.kind == "row"]
    assert [u.cells[0] for u in rows] == ["Max wind", "Range"]
    assert rows[0].text == "Max wind — K5: 30 km/h; K7: 45 km/h"


def test_the_sentences_of_a_worked_example_are_marked_illustrative() -> None:
    text = (
        "A late fee of 2% of the invoice is charged each month.\n\n"
        "Example: an invoice of $1,000 paid a month late. The late fee is $20.\n\n"
        "The fee is waived for the first late payment. For instance, a new customer pays none. "
        "Fees are billed quarterly.\n\n"
        "- Example: a list item is not a paragraph's illustration"
    )
    units = parse(text)
    assert [(u.kind, u.illustrative) for u in units] == [
        ("sentence", False),
        ("sentence", True),  # the paragraph opens as an example: its every sentence is one
        ("sentence", True),
        ("sentence", False),
        ("sentence", False),  # "For instance, …" in prose states a fact
        ("sentence", False),
        ("item", False),
    ]
    assert not any(
        u.illustrative
        for u in parse(
            "Examples of good practice are rare. Example-based tests help. For example purposes only, no."
        )
    )


def test_a_column_headings_unit_is_written_after_a_bare_number() -> None:
    """ "Weight (kg)" over "8.8" reads "Weight: 8.8 kg" (and "List price (USD)" over "2,180" "List
    price: USD 2,180"), so a comparison can subtract it; a cell with words, or a heading whose
    parentheses are no unit, is shown as written."""
    table = "| Model | Weight (kg) | List price (USD) | Battery life (ANC on) |\n| DX-25 | 8.8 | 2,180 | 30 hours |"
    (row,) = [u for u in parse(table) if u.kind == "row"]
    assert row.text == "DX-25 — Weight: 8.8 kg; List price: USD 2,180; Battery life (ANC on): 30 hours"
    assert field("Weight (kg)", "8.8 (with pump head)") == "Weight (kg): 8.8 (with pump head)"
    assert field("Efficiency (%)", "92") == "Efficiency: 92%"
    assert field("Noise dB(A)", "54") == "Noise dB(A): 54"  # "(A)" belongs to "dB"


def test_a_faq_question_opening_its_answer_is_the_answers_heading_not_a_unit() -> None:
    """Found on three review corpora: "**Is there a Nib 3 Pro or Nib 30 Plus?**" over its answer is
    one paragraph, and its question sentence was quoted as the answer ("Is there a Nib 3 Pro or
    Nib 30 Plus (help/faq.md)?")."""
    units = parse(
        "## General\n\nIs there a K3 Pro? No. The current models are the K3 and K5.\n\nWhy? Because."
    )
    # (a one-word "No." goes with the sentence it opens: alone it is a fragment no answer quotes)
    assert [u.text for u in units] == ["No. The current models are the K3 and K5.", "Because."]
    assert units[0].path == ("General", "Is there a K3 Pro?")
    # a question alone is a sentence as before
    assert [u.text for u in parse("Is there a K3 Pro?")] == ["Is there a K3 Pro?"]
