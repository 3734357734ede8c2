"""Entities a question names, and evidence that is about another one."""

from __future__ import annotations

from core.query.entities import (
    conflicts,
    entities,
    family_named,
    heading_entities,
    is_entity,
    matches,
    question_entities,
    question_family_names,
    recased,
    siblings,
    small_names,
    subject_entities,
    without_entities,
    written_in,
)


def test_model_codes_versions_and_camel_case_names_are_entities() -> None:
    for token in ("ArmX2", "K7", "E-211", "NC-300", "v2.1", "4.0.0", "NorthEye", "SEV1"):
        assert is_entity(token), token
    for token in ("payload", "1973", "5", "1990s", "12kg", "3rd", "Key", "2.5"):
        assert not is_entity(token), token


def test_question_entities_join_a_name_split_by_a_space() -> None:
    assert question_entities("What is the range of the Kestrel K7?") >= {"k7", "kestrelk7", "kestrel k7"}
    assert question_entities("Who won the war in 1973?") == set()
    # a code after a capitalised word is also a model of that word's family ("kestrel k7"), so the
    # Nib X3 is a sibling of the Nib 30 (its code alone, "x3", is of another family)
    assert entities("Kestrel K7 vs K5") == {"k7", "kestrel k7", "k5"}
    assert siblings({"nib30"}, entities("Nib X3: 300 dpi")) == {"nib x3"}
    assert siblings(question_entities("How heavy is the Nib X3?"), entities("Nib 30: 1.2 kg")) == {"nib30"}
    assert matches({"x3"}, {"nib x3"}) and matches({"nibx3"}, {"x3"})
    # not after a framing word, a sentence's article or a word that labels a code, nor a part's
    # code after its brand ("Kestrel BP-20", "Kestrel F10 filter")
    assert entities("The X3, Model X3, Table A2 and Press X3") == {"x3", "a2"}
    assert entities("With the Kestrel BP-20 battery and the Kestrel F10 filter") == {"bp20", "f10"}


def test_a_name_and_its_number_written_apart_are_one_model() -> None:
    assert entities("Brio 5, Brio 50 and the Brio 5 Pro") == {"brio5", "brio50", "brio5pro"}
    assert question_entities("How much does the Brio 50 weigh?") == {"brio50"}
    assert siblings({"brio5"}, {"brio50", "brio5pro", "brio5"}) == {"brio50", "brio5pro"}
    assert entities("Apollo 11 landed; the Boeing 747 flew") == {"apollo11", "boeing747"}
    # a label, a month, a quantity word, a unit, a decimal, a range or a four-digit year: no model
    for text in (
        "Step 3 of the guide", "see Table 2", "on May 12", "Over 40 people came", "Wait 5 minutes",
        "Rated 5 kg", "Firmware 2.5 adds", "Pages 3-5", "Since 2019 the Brio", "Nearly 300 riders",
    ):  # fmt: skip
        assert entities(text) == set(), text
    assert entities("The Brio 5. The Brio 5: 22 kg") == {"brio5"}  # a sentence's end or a label's colon
    # an order, a count or a limit before a number, a range after it ("14 or later" is many releases)
    for text in ("Press 2 for service", "Give 2 reasons", "Serves 4", "Maximum 10 riders", "Android 14 or later",
                 "Windows 11+ only", "a Stride 3-speed hub"):  # fmt: skip
        assert not {e for e in entities(text) if e.startswith(("press", "give", "serves", "maximum", "android",
                                                                 "windows", "stride"))}, text  # fmt: skip
    # a letter written onto the number names another model; capitals and "iPhone" are names too
    assert entities("Brio 5S, Brio 5e, BRIO 5 and the iPhone 15") == {"brio5s", "brio5e", "brio5", "iphone15"}
    assert entities("two Boeing 747s") == {"boeing747"}  # a plural


def test_a_variant_written_after_a_code_is_another_model() -> None:
    assert entities("Vela C3 Plus, Vela C3 and the C2+") == {
        "c3plus",
        "c3",
        "c2plus",
        "vela c3plus",
        "vela c3",
    }
    assert question_entities("How heavy is the Vela C3 Plus?") == {"c3plus", "velac3plus", "vela c3plus"}
    assert siblings({"c3"}, {"c3plus"}) == {"c3plus"} and siblings({"c3plus"}, {"c3"}) == {"c3"}
    assert conflicts({"c3"}, {"c3plus"}, set()) == {"c3plus"}  # under the C3 Plus's heading
    assert entities("Kestrel K7 Pro User Manual") == {"k7pro", "kestrel k7pro"}
    assert entities("K7 PRO Max") == {"k7promax"}
    # a lower-case word, a line break, "Max" opening a label, a compound, a version's "or later": no variant
    assert entities("the K7 max speed") == {"k7"}
    assert entities("| Harrier H9 |\nMax speed") == {"h9", "harrier h9"}
    assert entities("- K7 Max speed: 72 km/h") == {"k7"} and entities("K7 Mini-USB port") == {"k7"}
    assert entities("needs firmware 4.2.0+ on the K7+K5") == {"4.2.0", "k7", "k5"}


def test_blanking_the_entities_blanks_a_variant_with_its_code() -> None:
    """Their pieces are no words of the question: "plus" of "Stride 3 Plus" is no topic."""
    assert without_entities("Is the Stride 3 Plus heavier than the Stride 3?").split() == [
        "Is", "the", "heavier", "than", "the", "?",
    ]  # fmt: skip
    assert without_entities("the NC-300 brake").split() == ["the", "brake"]
    assert without_entities("- K7 Max speed: 72 km/h").split() == ["-", "Max", "speed:", "72", "km/h"]
    assert without_entities("needs 4.2.0+ and a C2+ unit").split() == ["needs", "+", "and", "a", "unit"]


def test_evidence_about_a_sibling_conflicts() -> None:
    assert conflicts({"k7"}, {"k5"}, set()) == {"k5"}  # under the K5's heading
    assert conflicts({"k7"}, set(), {"k5"}) == {"k5"}  # names only the sibling
    assert conflicts({"k7"}, {"k5"}, {"k7"}) == set()  # names the one asked about too
    assert conflicts({"k7"}, set(), {"e211"}) == set()  # another family: not a sibling
    assert conflicts({"ip66"}, {"armx3"}, set()) == set()  # an attribute value asked about, not a model
    assert conflicts(set(), {"k5"}, set()) == set()  # the question names nothing
    assert conflicts({"x2"}, {"armx2"}, set()) == set()  # "Arm X2" written apart


def test_a_unit_naming_one_asked_thing_and_only_a_sibling_of_another_is_the_siblings() -> None:
    """ "CarePlus for Harrier H7" names the asked CarePlus, but of the asked H9's family only the H7."""
    wanted = set(question_entities("How much does CarePlus cost per year for the Harrier H9?"))
    row = entities("CarePlus for Harrier H7 — Price per year: $79")
    assert conflicts(wanted, row, row) == {"h7", "harrier h7"}
    row = entities("CarePlus for Harrier H9 — Price per year: $129")
    assert conflicts(wanted, row, row) == set()
    both = entities("CarePlus costs $79 for the H7 and $129 for the H9")
    assert conflicts(wanted, set(), both) == set()  # it names the asked one too
    wanted = set(question_entities("Is the Harrier H9 rated IP68?"))
    rated = entities("The Harrier H9 is rated IP67 for dust and water.")
    assert conflicts(wanted, entities("Harrier H9"), rated) == set()  # IP67 is its value, not its subject


def test_plurals_times_and_eras_are_not_new_models() -> None:
    from core.query.entities import entities

    assert entities("Two gunners carry AK-47s; one AK-47 is silver.") == {"ak47"}
    assert entities("pre-1975 trains leave at 2.30pm for a 40-minute ride") == set()
    assert entities("The G5s and the SEV1s") == {"g5", "sev1"}


def test_a_question_asking_for_what_the_named_thing_has_conflicts_with_any_other_named_thing() -> None:
    k7 = {"k7"}
    # a charging dock's spec is no sibling of the K7: read plainly, it is an attribute, not a subject
    assert conflicts(k7, {"h2"}, set()) == set()
    # asked for the K7's own value, the dock's section is about another thing
    assert conflicts(k7, {"h2"}, set(), around={"h2"}, own=True) == {"h2"}
    # unless a heading above it or its title names the K7 ("Kestrel K7 › Accessories › Harbor H2")
    assert conflicts(k7, {"h2"}, set(), around={"k7", "h2"}, own=True) == set()
    # a release is no other thing, and a code the unit names is a value unless it heads other evidence
    assert conflicts(k7, {"2.3.0"}, set(), around={"2.3.0"}, own=True) == set()
    assert conflicts(k7, set(), {"ip54"}, own=True, subjects={"h2"}) == set()
    assert conflicts(k7, set(), {"h2"}, own=True, subjects={"h2"}) == {"h2"}
    # a unit naming the K7 itself is about it, whatever else it names
    assert conflicts(k7, {"h2"}, {"k7"}, around={"h2"}, own=True) == set()


def test_a_name_without_a_digit_of_an_asked_models_family_is_another_model() -> None:
    """ "Lumo Kids" set against the asked "Lumo 6": a model of the Lumo family, not the Lumo 6; a
    name of another family, a lower-case phrase, a name with a number, a one-letter family or a
    capitalised phrase the question sets against nothing is no such name."""
    assert question_entities("Which is heavier, the Lumo 6 Plus or the Lumo Kids?") == {
        "lumo6plus",
        "lumo kids",
    }
    assert question_entities("Is the Lumo Kids heavier than the Lumo 6?") == {"lumo6", "lumo kids"}
    assert (
        family_named("Aria Buds Pro", {"aria7"})
        == family_named("Aria Buds-Pro.", {"aria7"})
        == {"aria budspro"}
    )
    assert siblings({"lumo6"}, {"lumo kids"}) == {"lumo kids"} and not matches({"lumo6"}, {"lumo kids"})
    for name in ("Kestrel Kids", "Lumo accessories", "Lumo 60", "Monthly"):
        assert family_named(name, {"lumo6"}) == set()
    assert family_named("G Suite", {"g5"}) == set()
    assert question_entities("How heavy is the Lumo Kids?") == set()  # no family asked: unknown
    assert question_entities("How do I contact Lumo Support about my Lumo 6?") == {"lumo6"}
    assert "aria buds" not in question_entities("Is the Aria 7 better than the Aria Buds Pro 2?")


def test_a_family_and_a_variant_word_name_a_model_without_a_digit() -> None:
    """ "Kestrel Mini", "Kestrel Pro": a family's word and a variant word name a model, a sibling of
    the Kestrel 50 and the one a question asks about; another word after the family may name a plan
    or a service ("Kestrel Care"), and a framing word or a longer name is none ("Which Pro",
    "Max Planck")."""
    assert entities("Setting up the Kestrel Mini") == {"kestrel mini"}
    assert entities("The DX Mini Plus pump") == {"dx miniplus"}
    assert question_entities("What filter goes in the Kestrel Pro?") == {"kestrel pro"}
    for text in ("Kestrel Care", "Kestrel 5 Plus", "Kestrel Mini 2", "Kestrel Pro-level", "Which Pro is best?",
                 "Which Max Planck institute is oldest?", "the ArmX Pro"):  # fmt: skip
        assert not {e for e in entities(text) if " " in e}, text
    assert entities("Kestrel 5 Plus") == {"kestrel5plus"} and entities("the ArmX Pro") == {"armxpro"}
    assert siblings({"kestrel50"}, {"kestrel pro"}) == {"kestrel pro"}
    assert conflicts({"kestrel50"}, entities("Kestrel Mini"), set()) == {"kestrel mini"}
    assert without_entities("How heavy is the Kestrel Pro?") == "How heavy is the  ?"
    # an order, a size, a label, a mode or a plan is no model
    for text in (
        "Tap Max to boost",
        "Large XL",
        "Kestrel Max speed: 72 km/h",
        "Eco Plus mode",
        "Kestrel Plus membership",
    ):
        assert entities(text) == set(), text
    # beside a model named with a digit, a question's name without one is of that model's family
    assert question_entities("How do I enable Turbo Max on the Kestrel 50?") == {"kestrel50"}
    assert question_entities("Is the DX Mini lighter than the DX-20?") == {"dx mini", "dx20"}


def test_a_list_going_on_after_a_name_and_its_number_names_that_familys_models() -> None:
    """ "Kestrel 5, 5 Plus and Pet": the family is written once, and "5 Plus" is the Kestrel 5 Plus;
    a variant word alone in such a list is a model of the family too; a list of quantities is not."""
    assert entities("Kestrel 5, 5 Plus and Pet: hold Spot") == {"kestrel5", "kestrel5plus"}
    assert entities("the LiDAR models (Kestrel 5, 5 Plus, Pet, Pro and 50), which") >= {
        "kestrel5", "kestrel5plus", "kestrel pro", "kestrel50",
    }  # fmt: skip
    assert entities("Brio 5, 50 or 5 Pro.") == {"brio5", "brio50", "brio5pro"}
    for text in (
        "Kestrel 5, 30 and 40 minutes",
        "Kestrel 5, 30 and 40 Minutes",
        "Kestrel 5, 2.5 L",
        "Kestrel 5, 3 kg",
    ):
        assert entities(text) == {"kestrel5"}, text
    assert entities("Figure 3, 4 and 5") == set()
    # a count after the name, a number that is no item, a unit: no list of models
    for text in ("On the Kestrel 5, 3 modes are available.", "Kestrel 5 and 2 AA batteries", "Kestrel 5, 30 and 2.5 L",
                 "Kestrel 5, 10 and 15-minute runs", "Kestrel 5, 10 and 15 lbs", "On the Kestrel 5, 3."):  # fmt: skip
        assert entities(text) == {"kestrel5"}, text
    assert without_entities("Kestrel 5, 5 Plus and Pet") == " ,   and Pet"
    assert question_entities("How do I pair a Kestrel 5 Plus?") == {"kestrel5plus"}


def test_a_heading_naming_a_model_to_compare_against_stands_for_none() -> None:
    """ "Differences from the Nib 3" on the Nib 3 Plus's page is about the Nib 3 Plus: the model it
    compares against is no subject of the units under it (the page's title gives their scope)."""
    for heading in ("Differences from the Nib 3", "WHAT IS DIFFERENT FROM THE KESTREL 5",
                    "How it differs from the K5", "Compared with the K5", "Faster than the K5"):  # fmt: skip
        assert heading_entities(heading) == set(), heading
    assert heading_entities("Kestrel 50 vs Kestrel 5") == {"kestrel50", "kestrel5"}  # about both
    assert heading_entities("Nib 30 and Nib 3 Plus") == {"nib30", "nib3plus"}


def test_a_model_written_in_lower_case_is_the_one_the_documents_name() -> None:
    known = {"nib30", "nib3plus", "kestrel5"}
    assert small_names("how heavy is the nib 30?", lambda: known) == {"nib30"}
    assert small_names("does the nib 3 plus have wifi", lambda: known) == {"nib3plus"}
    # a word and a number the documents name no model by: no name
    assert small_names("can i print 50 labels in 30 minutes", lambda: known) == set()
    texts = ["Resolution — Nib 30: 203 dpi", "The Nib 3 Plus adds Wi-Fi"]
    assert recased("what's the resolution of the nib 30", texts) == "what's the resolution of the Nib 30"
    assert recased("does the nib 3 plus have wifi", texts) == "does the Nib 3 Plus have wifi"
    assert recased("does the nib 4 have wifi", texts) == "does the nib 4 have wifi"
    # a question naming a model as the rule reads names is left as it is
    assert (
        recased("Is the Nib 30 lighter than the nib 3 plus?", texts)
        == "Is the Nib 30 lighter than the nib 3 plus?"
    )


def test_a_model_another_is_measured_against_is_no_subject_of_the_text() -> None:
    assert subject_entities("Print speed: 25 mm/s, 5 mm/s faster than the Nib 3") == set()
    assert subject_entities("Battery: twice the battery capacity of the Nib 3, good for 650 labels") == set()
    assert subject_entities("The K7 is lighter than the K5") == {"k7"}
    assert subject_entities("Charging: a full charge takes half an hour longer than on the Nib 3") == set()
    assert subject_entities("Unlike the K5, the K7 folds flat") == {"k7"}
    assert subject_entities("Fits: Kestrel 5, 5 Plus and 50") == {"kestrel5", "kestrel5plus", "kestrel50"}


def test_a_name_without_a_digit_of_a_known_family_and_where_texts_write_it() -> None:
    def known() -> set[str]:
        return {"vela3", "vela s3"}

    assert question_family_names("What tyre pressure should I use on the Vela Cargo?", known) == {
        "vela cargo"
    }
    assert question_family_names("Does the Cargo Bay fit the Vela Cargo?", known) == {"vela cargo"}
    assert question_family_names("Does Kestrel Cycles ship to Spain?", known) == set()  # no known family
    assert question_family_names("What is the weight of the Vela 3?", known) == set()  # a digit: entities()
    # written in any case, as one or several words, not inside a longer word
    assert written_in("VELA CARGO - PRODUCT SHEET", {"vela cargo"}) == {"vela cargo"}
    assert written_in("the Vela Cargo's rear rack", {"vela cargo", "vela3"}) == {"vela cargo"}
    assert written_in("Aria Buds-Pro case", {"aria budspro"}) == {"aria budspro"}
    assert written_in("Vela Cargoes and the Vela 3", {"vela cargo"}) == set()
    # nor the start of a longer name
    assert written_in("the Vela Cargo Plus and Kestrel Pro Max", {"vela cargo", "kestrel pro"}) == set()
    # a heading naming it as what another is compared against stands for another
    assert heading_entities("Differences from the Vela Cargo", {"vela cargo"}) == set()
    assert heading_entities("Vela Cargo specifications", {"vela cargo"}) == {"vela cargo"}
