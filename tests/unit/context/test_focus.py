"""Evidence order: chunks about the asked entity first, a procedure's continuation right after."""

from __future__ import annotations

from core.context.focus import about_asked_first, continuations_follow, with_asked_pages
from core.types import Candidate, Chunk


def cand(
    cid: str, text: str, source: str = "guide.md", index: int = 0, path: str = "", title: str = ""
) -> Candidate:
    meta = {"chunk_index": index, "heading_path": path, "title": title, "category": "t"}
    return Candidate(Chunk(cid, text, source, meta), 0.5)


def test_chunks_under_a_sibling_heading_go_last() -> None:
    k5 = cand("a", "- Weight: 1.9 kg", "k5.md", path="Kestrel K5 Drone › Specifications")
    k7 = cand("b", "- Weight: 2.6 kg", "k7.md", path="Kestrel K7 Drone › Specifications")
    neutral = cand("c", "Drones must be registered.", "rules.md", path="Registration")
    order = about_asked_first([k7, neutral, k5], "How heavy is the K5?")
    assert [c.chunk.id for c in order] == ["c", "a", "b"]
    assert about_asked_first([k7, k5], "How heavy are drones?") == [k7, k5]  # no entity asked: unchanged


def ids(candidates: list[Candidate]) -> list[str]:
    return [c.chunk.id for c in candidates]


def test_the_asked_models_pages_join_a_top_k_of_its_siblings_on_the_topic_first() -> None:
    k5 = cand("k5", "- Weight: 1.9 kg", "k5.md", path="Kestrel K5 Drone › Specifications")
    k3 = cand("k3", "- Weight: 1.1 kg", "k3.md", path="Kestrel K3 Drone › Specifications")
    care = cand("care", "Register the K7 before its first flight.", "k7-care.md", title="Kestrel K7 care")
    spec = cand("spec", "- Weight: 2.6 kg", "k7.md", 1, path="Kestrel K7 Drone › Mechanical")
    other = cand("other", "Drones must be registered.", "rules.md")
    asked = "How much does the K7 weigh?"
    # two chunks of the top 2 are a sibling's: two of the asked model's join, those holding the
    # asked word ("weigh" or the attribute it asks for, "weight") first and only those
    assert ids(with_asked_pages([k5, k3, care, other, spec], asked, 2)) == ["k5", "k3", "spec"]
    # a deeper ranking is read only when a sibling's chunk is in the top k, and adds to the choice
    calls: list[int] = []

    def deeper() -> list[Candidate]:
        calls.append(1)
        return [spec, k5]

    assert ids(with_asked_pages([k5, k3, care, other], asked, 2, deeper)) == ["k5", "k3", "spec"]
    assert ids(with_asked_pages([other, care, k5], asked, 2, deeper)) == ["other", "care"]
    assert len(calls) == 1
    # a heading holding the asked word counts as the text does ("### Weight" over "2.6 kg")
    bare = cand("bare", "2.6 kg without the battery", "k7.md", 2, path="Kestrel K7 Drone › Weight")
    assert ids(with_asked_pages([k5, k3, care, other, bare], asked, 2)) == ["k5", "k3", "bare"]
    # none of them holds the asked word: the asked model's chunks join in the ranking's order
    assert ids(with_asked_pages([k5, k3, other, care], "Where is the K7 made?", 2)) == ["k5", "k3", "care"]


def test_a_chunk_that_goes_on_into_the_asked_entitys_section_is_not_moved_last() -> None:
    notes = cand(
        "a",
        "- Dropped TP-5 support.\n\n## Firmware 4.1.3\n\nReleased 2024-08-05.",
        path="Notes › Firmware 4.2.0",
    )
    other = cand("b", "Firmware 4.1.0 adds a profile.", path="Notes › Firmware 4.1.0")
    order = about_asked_first([notes, other], "When did firmware 4.1.3 come out?")
    assert [c.chunk.id for c in order] == ["a", "b"]


def test_a_chunk_under_a_sibling_that_names_the_asked_entity_is_not_moved_last() -> None:
    """A postmortem about the K7 that gives the K5's figure beside it answers a K5 question; a K7
    chunk that names the K5 in a sentence about something else still goes last."""
    k7_only = cand("a", "The K7 rotor brake takes 28 ms.", "k7.md", path="Kestrel K7 Drone › Brakes")
    both = cand(
        "b", "The K7 brake takes 28 ms, compared to 15 ms on the K5.", "pm.md", path="Postmortem: K7 brake"
    )
    passing = cand(
        "d", "The K7 has the same warranty as the K5.", "k7.md", path="Kestrel K7 Drone › Warranty"
    )
    neutral = cand("c", "Brakes are checked yearly.", "rules.md", path="Maintenance")
    order = about_asked_first([k7_only, passing, both, neutral], "How long does the K5 brake take?")
    assert [c.chunk.id for c in order] == ["b", "c", "a", "d"]  # naming the K5 in passing is not enough
    # a code's pieces ("nc", "300") are no topic words, and a question with none besides the code
    # keeps only the heading rule
    nc200 = cand("e", "The NC-200 brake is slower than the NC-300's.", "nc.md", path="NC-200 › Brakes")
    assert about_asked_first([nc200, neutral], "How long does the NC-300 brake take?") == [neutral, nc200]
    nc_both = cand("f", "The NC-200 brake takes 40 ms, the NC-300's 25 ms.", "nc.md", path="NC-200 › Brakes")
    assert about_asked_first([nc_both, neutral], "How long does the NC-300 brake take?") == [nc_both, neutral]
    assert about_asked_first([passing, neutral], "What is the K5?") == [neutral, passing]


def test_a_procedures_continuation_is_walked_next_and_marked() -> None:
    first = cand("p1", "## Steps\n\n1. Open the lid.\n2. Lift the tray.", index=3)
    other = cand("x", "Unrelated text about warranty.", "warranty.md")
    rest = cand("p2", "3. Clean the tray.\n4. Close the lid.", index=4)
    order, continuing = continuations_follow([first, other, rest])
    assert [c.chunk.id for c in order] == ["p1", "p2", "x"] and continuing == {"p2"}
    unrelated = cand("p9", "7. Something else.", index=4)  # starts far past step 2: not a continuation
    assert continuations_follow([first, other, unrelated]) == ([first, other, unrelated], frozenset())


def test_the_asked_models_own_field_on_the_topic_goes_first() -> None:
    """A chunk standing under the asked model's page with a "Key: value" field on the question's
    topic is walked before chunks that only name the model (fields: factual and comparison
    questions); a sentence that only mentions a topic word does not count, nor does a question's
    framing word ("take"), and the variant word of a sibling's name ("Plus") is no topic word."""
    title = "Velora Stride 3 City E-Bike"
    overview = cand(
        "m", "Velora sells three models. The Stride 3 and the Stride 3 Plus are city bikes.", "cmp.md"
    )
    intro = cand(
        "i",
        "The Stride 3 has a light frame. Heavy riders should take the Stride 30.",
        "s3.md",
        path=title,
        title=title,
    )
    specs = cand(
        "s", "- Motor: 250 W hub motor\n- Gears: Shimano Nexus 7-speed hub\n- Weight: 22.4 kg", "s3.md",
        path=f"{title} › Key specifications", title=title,
    )  # fmt: skip
    plus = cand("p", "- Gears: Enviolo stepless hub", "s3p.md", path="Stride 3 Plus › Specifications")
    gears = "What gears does the Stride 3 have?"
    order = about_asked_first([overview, intro, plus, specs], gears, fields=True)
    assert [c.chunk.id for c in order] == ["s", "m", "i", "p"]
    assert about_asked_first([overview, intro, plus, specs], gears) == [
        overview,
        intro,
        specs,
        plus,
    ]  # a procedure's
    # a passing mention of the topic on the model's page is no field: "heavy" stays in its place
    assert about_asked_first([overview, intro], "Is the Stride 3 heavy?", fields=True) == [overview, intro]
    # no word asked besides the name and framing words: only a sibling's chunk moves
    assert about_asked_first([overview, intro, plus, specs], "What is the Stride 3?", fields=True) == [
        overview, intro, specs, plus,
    ]  # fmt: skip
    belt = cand("b", "- Drive: belt", "s3p.md", path="Stride 3 Plus › Drive")
    order = about_asked_first([belt, overview, plus], "What gears does the Stride 3 Plus take?", fields=True)
    assert [c.chunk.id for c in order] == ["p", "b", "m"]


def test_a_field_on_the_topic_goes_first_when_no_model_is_asked() -> None:
    """ "What are the phone support hours?" names no model: the About page's "Phone support: …, Monday
    to Friday 09:00 to 17:30" field goes before pages that only share a word ("phone" in a firmware
    note); framing words ("support") are no topic, and a procedure keeps the order it was given."""
    notes = cand("n", "Keep the phone within 2 metres during the update.", "firmware.md", path="Firmware")
    about = cand("a", "- Phone support: +31 30 555 0142, Monday to Friday 09:00 to 17:30 CET", "about.html")
    question = "What are the phone support hours?"
    assert about_asked_first([notes, about], question, fields=True) == [about, notes]
    assert about_asked_first([notes, about], question) == [notes, about]
    assert about_asked_first([notes, about], "What support is there?", fields=True) == [notes, about]


def test_a_table_row_on_the_topic_under_a_header_naming_the_asked_model_goes_first() -> None:
    """A comparison table's "Range (Eco)" row, its header naming the asked models, is walked before
    a page whose title only shares the word ("Stride range: which model is right for you?"); the
    words framing a comparison ("difference", "between") are no topic. A table whose header names
    only a sibling, or a row off the topic, does not count; stored tables have no separator line."""
    overview = cand(
        "o", "# Stride range: which model is right for you?\n\nVelora sells three Stride models.", "cmp.md",
        path="Stride range: which model is right for you?",
    )  # fmt: skip
    header = "| Spec | Stride 3 | Stride 3 Plus | Stride 30 |"
    table = cand("t", f"## Comparison table\n\n{header}\n| Weight | 22.4 kg | 23.6 kg | 24.9 kg |\n"
                 "| Range (Eco) | 70 km | 90 km | 120 km |", "cmp.md", index=1, path="Comparison table")  # fmt: skip
    question = "What is the difference in range between the Stride 3 and the Stride 30?"
    assert about_asked_first([overview, table], question, fields=True) == [table, overview]
    assert about_asked_first([overview, table], question) == [overview, table]  # fields only
    # a header separator line, as written in Markdown, is read past too
    ruled = cand("r", table.chunk.text.replace(header, header + "\n|---|---|---|---|"), "cmp.md", index=1)
    assert about_asked_first([overview, ruled], question, fields=True) == [ruled, overview]
    # under a header naming only a sibling, or no row on the topic: in its place
    other = cand("k", "| Spec | Kestrel K5 |\n| Range | 8 km |", "k5.md", path="Kestrel K5")
    assert about_asked_first([overview, other], "What is the range of the Stride 30?", fields=True) == [
        overview, other,
    ]  # fmt: skip
    rows = cand("w", f"{header}\n| Weight | 22.4 kg | 23.6 kg | 24.9 kg |", "cmp.md", index=1)
    assert about_asked_first([overview, rows], "What is the range of the Stride 30?", fields=True) == [
        overview, rows,
    ]  # fmt: skip


def test_a_field_key_meets_a_question_word_or_the_attribute_it_asks_for() -> None:
    """ "cost" asks for the price and "Price: $299" answers it; a word with an alias of its own
    ("colour", "color") still meets its own spelling (a review found "Colour options" left in place
    when the topic was replaced by the alias)."""
    intro = cand(
        "o", "The Halo H5 is the flagship of the Halo line.", "h5.md", path="Halo H5", title="Halo H5"
    )
    colours = cand(
        "c", "- Colour options: black, sand", "h5.md", path="Halo H5 › Specifications", title="Halo H5"
    )
    price = cand("p", "- Price: $299", "h5.md", path="Halo H5 › Buying", title="Halo H5")
    question = "What colour options does the Halo H5 come in?"
    assert about_asked_first([intro, colours], question, fields=True) == [colours, intro]
    assert about_asked_first([intro, price], "How much does the Halo H5 cost?", fields=True) == [price, intro]


def test_a_row_naming_the_asked_model_under_a_column_on_the_topic_goes_first() -> None:
    """A comparison table with a row per model: the asked model's row under a "Price (USD)" column
    is the answer to "How much does the Stride 3 cost?" ("cost" asks for a price), walked before the
    model's page that only names it; a row of a sibling, or a table with no column on the topic, is
    not."""
    page = cand("p", "# Stride 3\n\nThe Stride 3 is our city bike.", "stride-3.md", path="Stride 3")
    header = "| Model | Frame | Price (USD) |"
    table = cand("t", f"{header}\n| Stride 3 | Steel | $899 |\n| Stride 30 | Carbon | $1,899 |", "cmp.md")
    question = "How much does the Stride 3 cost?"
    assert about_asked_first([page, table], question, fields=True) == [table, page]
    sibling = cand("s", f"{header}\n| Stride 30 | Carbon | $1,899 |", "cmp.md")
    assert about_asked_first([page, sibling], question, fields=True) == [page, sibling]
    frames = cand("f", "| Model | Frame |\n| Stride 3 | Steel |", "cmp.md")
    assert about_asked_first([page, frames], question, fields=True) == [page, frames]
