from core.query.unknown_names import unknown_names

# how many passages of a store about robot vacuums hold each word (a word left out is not counted)
DF = {
    "kestrel": 40, "pro": 12, "better": 3, "roborock": 0, "s8": 0, "philips": 0, "hue": 0, "bridge": 0,
    "control": 5, "ship": 4, "brazil": 0, "uk": 0, "minis": 6, "mini": 6, "reset": 9, "kobo": 0,
    "clara": 0, "price": 7, "ps5": 0, "use": 9, "celeron": 0, "expedition": 0,
}  # fmt: skip


def test_a_thing_named_after_an_article_a_possessive_or_than_that_no_passage_holds() -> None:
    assert unknown_names("Is the Kestrel Pro better than a Roborock S8?", DF) == ["Roborock", "S8"]
    assert unknown_names("Is the Kestrel Pro better than Roborock?", DF) == ["Roborock"]
    assert unknown_names("Can I control my Kestrel Pro from a Philips Hue bridge?", DF) == ["Philips", "Hue"]
    assert unknown_names("how do I factory reset a Kobo Clara", DF) == ["Kobo", "Clara"]
    assert unknown_names("Can I use the Kestrel Pro with my PS5?", DF) == ["PS5"]
    # the same words written small are no names; a name the store holds is none either
    assert unknown_names("is the kestrel pro better than a roborock s8?", DF) == []
    assert unknown_names("Is the Kestrel Pro better than a Kestrel Mini?", DF) == []
    # a word the store holds by its stem ("Minis": the counts are the lexical index's, stemmed)
    assert unknown_names("How many Minis could I buy for the price of a Kestrel Pro?", DF) == []


def test_a_name_elsewhere_a_place_a_shout_or_title_case_is_not_read() -> None:
    # a person or a place the documents may write another way ("Céloron")
    assert unknown_names("Who was on Celeron's expedition?", DF) == []
    assert unknown_names("Do you ship to Brazil?", DF) == []
    assert unknown_names("Can you ship a Kestrel to me in the UK?", DF) == []
    assert unknown_names("Roborock or Kestrel: which is better?", DF) == []
    assert unknown_names("IS THE KESTREL PRO BETTER THAN A ROBOROCK S8?", DF) == []
    assert unknown_names("Is The Kestrel Pro Better Than A Roborock S8?", DF) == []
    # a run of names ends at a mark: "Sadly" opens a sentence
    assert (
        unknown_names("I have a Kestrel 5. Sadly the battery died, is it replaceable?", DF | {"sadly": 0})
        == []
    )


def test_a_name_written_with_a_small_first_letter_before_capitals_is_a_name() -> None:
    assert unknown_names("How do I reset my iPhone?", DF | {"iphone": 0, "reset": 5}) == ["iPhone"]
    assert unknown_names("How do I reset my phone?", DF | {"phone": 0, "reset": 5}) == []
    assert unknown_names("Does it take a 5000 mAh battery?", DF | {"mah": 0}) == []  # a unit


def test_a_name_after_a_comparison_and_a_determiner_is_read() -> None:
    """Found on an e-bike corpus: "How does the Vela 3 compare to the VanMoof S5?" quoted the Vela 3's
    lineup rows as if they compared it."""
    df = DF | {"vanmoof": 0, "s5": 0, "vela": 5}
    assert unknown_names("How does the Vela 3 compare to the VanMoof S5?", df) == ["VanMoof", "S5"]
    assert unknown_names("Is the Kestrel Pro better than the Roborock S8?", df) == ["Roborock", "S8"]
    assert unknown_names("Compared with the VanMoof, is the Vela lighter?", df) == ["VanMoof"]
    assert unknown_names("Is it heavier than the Vela 3?", df) == []  # held
    assert (
        unknown_names("Did the Normans fight the Byzantines?", DF | {"byzantines": 0}) == []
    )  # no comparison
