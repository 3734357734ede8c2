"""The extractive answerer by query type, on fictional product pages with confusable models."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.answer import compose, evidence
from core.answer.compose import title_of
from core.answer.evidence import score_units
from core.answer.extractive import _ASKS_ROWS, extractive_answer
from core.answer.grounding import check
from core.context.units import parse
from core.scoring import SentenceScorer
from core.types import Fate, LedgerEntry

REFUSAL = "I don't know."

K5 = """# Kestrel K5 Drone

The Kestrel K5 is the entry model of the Kestrel survey drones.

## Specifications

- Flight time: 28 minutes
- Top speed: 54 km/h
- Weight: 1.9 kg"""

K7 = """# Kestrel K7 Drone

The Kestrel K7 replaces the K5 for long survey missions.

## Specifications

- Flight time: 41 minutes
- Top speed: 68 km/h
- Weight: 2.6 kg

## K7 vs K5

| Feature | K5 | K7 |
|---|---|---|
| Flight time | 28 minutes | 41 minutes |
| Weight | 1.9 kg | 2.6 kg |
| Camera | 12 MP | 20 MP |"""

PAIRING = """# Pairing a Kestrel controller

Pairing links the handheld controller to one drone.

## Steps

1. Switch on the drone and wait for the blue light.
2. Hold the pairing button on the controller for five seconds.
3. Select the drone's serial number on the controller screen.
4. Confirm the pairing code shown on both devices.
5. Wait until the light turns solid green.

## Troubleshooting

- A blinking red light means the battery is too low to pair.
- Pairing fails within two metres of a charging dock."""


def entry(source: str, text: str, score: float = 0.8, fate: Fate = Fate.KEPT) -> LedgerEntry:
    title = text.splitlines()[0].lstrip("# ")
    return LedgerEntry(
        f"id-{source}", source, score, fate, 120, injected_text=text, injected_tokens=120, title=title
    )


@pytest.fixture(scope="module")
def scorer(resources) -> SentenceScorer:  # noqa: ANN001
    return SentenceScorer(resources.embedder)


EVIDENCE = [
    entry("drones/k7.md", K7, 0.82),
    entry("drones/k5.md", K5, 0.78),
    entry("guides/pairing.md", PAIRING, 0.4),
]


def ask(question: str, qtype: str, scorer: SentenceScorer, evidence: list[LedgerEntry] = EVIDENCE) -> str:
    d = extractive_answer(question, evidence, scorer, REFUSAL, 0.25, qtype)
    assert not d.refused, d.reason
    return d.text


def test_factual_answer_is_about_the_model_asked(scorer: SentenceScorer) -> None:
    text = ask("What is the flight time of the K5?", "factual", scorer)
    assert "28 minutes" in text and "41 minutes" not in text
    text = ask("What is the top speed of the Kestrel K7?", "factual", scorer)
    assert "68 km/h" in text and "54 km/h" not in text
    assert "|" not in text and "#" not in text and "(drones/k7.md)" in text


def test_no_unit_about_a_sibling_is_ever_the_answer(scorer: SentenceScorer) -> None:
    only_k7 = [entry("drones/k7.md", K7.split("## K7 vs K5")[0])]
    d = extractive_answer("What is the weight of the K5?", only_k7, scorer, REFUSAL, 0.25, "factual")
    assert "2.6 kg" not in d.text  # the K7's weight is never the K5's answer
    specs_only = [entry("drones/k7.md", K7.split("## K7 vs K5")[0].split("## Specifications")[1])]
    specs_only = [LedgerEntry(**{**vars(specs_only[0]), "heading_path": "Kestrel K7 Drone › Specifications"})]
    d = extractive_answer("What is the weight of the K5?", specs_only, scorer, REFUSAL, 0.25, "factual")
    assert d.refused and "k7" in d.reason  # only the K7's specs: no answer rather than the K7's


def test_procedure_is_complete_numbered_and_in_order(scorer: SentenceScorer) -> None:
    text = ask("How do I pair the controller with a drone?", "procedural", scorer)
    lines = [ln for ln in text.splitlines() if ln[:1].isdigit()]
    assert [ln.split(".")[0] for ln in lines] == ["1", "2", "3", "4", "5"]
    assert "blue light" in lines[0] and "solid green" in lines[4]
    assert "blinking red" not in text  # the troubleshooting bullets are another list
    k7 = PAIRING.replace("## Steps", "## Pairing the K7").replace("the drone's serial", "the K7's serial")
    text = ask(
        "How do I pair the controller with a K7?", "procedural", scorer, [entry("guides/pairing.md", k7)]
    )
    assert text.startswith("Pairing the K7 (guides/pairing.md):") and text.count("Pairing the K7") == 1
    shouted = [entry("guides/pairing.md", PAIRING.replace("## Steps", "## 2. PAIRING STEPS"))]
    text = ask("How do I pair the controller with a drone?", "procedural", scorer, shouted)
    assert text.startswith("Pairing steps (guides/pairing.md):")  # "2. …" would render as a list
    assert title_of("2.4 GHz radio settings") == "2.4 GHz radio settings"  # a number, not a section's


MAINTENANCE = """# Kestrel controller maintenance

## Updating the controller firmware

1. Copy the firmware file to a microSD card.
2. Insert the card into the controller and hold the power button.
3. Wait until the progress bar on the controller screen is full.

## Contacting support

Contact support if a propeller cracks or a motor smells burnt. Have the serial number and a flight log \
export ready. To export the flight log, open Menu > Logs > Export on the controller and choose the \
microSD card."""


def test_a_how_to_answered_in_prose_is_not_given_another_procedures_steps(scorer: SentenceScorer) -> None:
    """The only list here is about the firmware; the section that says how to export a log is prose,
    given in document order without its opening sentence about something else."""
    evidence = [entry("guides/maintenance.md", MAINTENANCE)]
    text = ask("How do I export the flight log from the controller?", "procedural", scorer, evidence)
    assert "Menu > Logs > Export" in text and "firmware" not in text and "1." not in text
    assert text.index("Have the serial number") < text.index("To export")
    assert "propeller" not in text  # "Contact support if …" scores under 0.4× the best: not the opening


CALIBRATION = """# Compass calibration guide

For the Kestrel K5 and K7 drones, compass calibration guide KC-11, revision 2.

## Procedure

1. Take the drone outdoors, away from metal and parked cars.
2. Open the Compass screen on the controller.
3. Rotate the drone horizontally until the first ring turns green.
4. Rotate it nose-down until the second ring turns green."""


def test_a_title_line_naming_the_model_does_not_displace_the_procedure(scorer: SentenceScorer) -> None:
    """The subtitle names the asked model and the steps do not (a procedure rarely repeats the
    model): the names the question asks about do not count towards the prose's coverage."""
    evidence = [entry("guides/compass.md", CALIBRATION)]
    text = ask("How do I calibrate the compass of a K7?", "procedural", scorer, evidence)
    assert text.startswith("Procedure (guides/compass.md):") and "4. Rotate it nose-down" in text


RETURNS = """# Kestrel returns

## Return window

Customers may return a drone within 30 days of delivery, provided that:

- a) the drone has not been flown;
- b) it is returned in its original case.

Returns after 30 days are refused."""


def test_a_lettered_list_comes_with_its_lead_in_and_keeps_its_letters(scorer: SentenceScorer) -> None:
    evidence = [entry("policies/returns.md", RETURNS)]
    text = ask("How do I return a drone for a refund?", "procedural", scorer, evidence)
    lines = [ln for ln in text.splitlines() if ln]
    assert (
        lines[1]
        == "Customers may return a drone within 30 days of delivery, provided that (policies/returns.md):"
    )
    assert lines[2] == "- a) the drone has not been flown (policies/returns.md);"
    assert lines[3].startswith("- b) it is returned in its original case")
    # grounding reads the title line as framing, not as a claim, and finds the lead-in in the source
    g = check(text, evidence, scorer, "How do I return a drone for a refund?")
    assert g is not None and g.score == 1.0, [(c.sentence, c.problem) for c in g.sentences]
    assert [c.sentence.split()[0] for c in g.sentences] == ["Customers", "a)", "b)"]


def test_a_lead_in_belongs_to_its_own_list_only(scorer: SentenceScorer) -> None:
    """Two lists under one heading are not shown under the first one's lead-in, a lettered item
    under a heading naming the model keeps its letter, and the last line of the section before
    is no list's lead-in."""
    two = RETURNS.replace(
        "Returns after 30 days are refused.",
        "Returns are refused when:\n\n- c) the case is missing;\n- d) the drone was crashed.",
    )
    text = ask(
        "How do I return a drone for a refund?", "procedural", scorer, [entry("policies/returns.md", two)]
    )
    assert "provided that" not in text and "- a) the drone has not been flown" in text
    k7 = RETURNS.replace("## Return window", "## K7 return window")
    text = ask("How do I return a K7 for a refund?", "procedural", scorer, [entry("policies/returns.md", k7)])
    assert "- a) the drone has not been flown" in text and "1. a)" not in text
    before = (
        "# Kestrel returns\n\n## Shipping\n\nShip it to:\n\n## Conditions\n\n- a) unused;\n- b) in its case."
    )
    leads = {x.lead for x in score_units("How do I return it?", [entry("p/r.md", before)], scorer).units}
    assert leads == {""}


CONDITIONS = """# Returns

A return is accepted on the following conditions:

1. You have the order number or another proof of purchase.
2. The product is returned with all parts that came in the box.
3. The product has not been damaged by incorrect installation.

Returns that do not meet condition 2 are refunded minus the price of the missing parts. \
Returns that do not meet condition 3 are refused and sent back to you."""


def test_a_question_asking_for_things_gets_the_list_its_lead_in_announces(scorer: SentenceScorer) -> None:
    """Found on a thermostat corpus: "What conditions does a return have to meet?" was answered
    with the two sentences saying what happens to a return that fails one ("condition", "meet",
    "return": more of the question's words), not with the conditions."""
    evidence = [entry("policies/returns.md", CONDITIONS)]
    text = ask("What conditions does a return have to meet?", "factual", scorer, evidence)
    assert text.startswith("A return is accepted on the following conditions"), text
    assert "3. The product has not been damaged" in text
    # asked for one consequence, the sentence stating it still answers
    text = ask("What happens to a return that does not meet condition 3?", "factual", scorer, evidence)
    assert text.startswith("Returns that do not meet condition 3 are refused"), text


def test_missing_steps_are_marked(scorer: SentenceScorer) -> None:
    cut = PAIRING.replace("3. Select the drone's serial number on the controller screen.\n", "")
    text = ask(
        "How do I pair the controller with a drone?", "procedural", scorer, [entry("guides/pairing.md", cut)]
    )
    lines = [ln for ln in text.splitlines() if ln]
    assert lines[3] == "…" and lines[2].startswith("2.") and lines[4].startswith("4.")


def test_comparison_gives_one_bullet_per_model_with_the_asked_values(scorer: SentenceScorer) -> None:
    text = ask("Compare the K5 and the K7 in flight time and weight", "comparison", scorer)
    bullets = text.splitlines()
    assert len(bullets) == 2 and all(b.startswith("- ") for b in bullets)
    k5 = next(b for b in bullets if "K5" in b)
    k7 = next(b for b in bullets if "K7" in b)
    assert "28 minutes" in k5 and "1.9 kg" in k5 and "41 minutes" not in k5
    assert "41 minutes" in k7 and "2.6 kg" in k7 and "Camera" not in text


def test_comparative_adjective_finds_its_attribute(scorer: SentenceScorer) -> None:
    text = ask("Which is lighter, the K5 or the K7?", "comparison", scorer)
    assert "1.9 kg" in text and "2.6 kg" in text and "minutes" not in text
    assert text.index("K5") < text.index("K7")
    text = ask("Which is lighter, the K7 or the K5?", "comparison", scorer)  # the order asked
    assert text.index("**K7**") < text.index("**K5**")


def test_how_much_more_gets_both_values_and_their_difference_which_grounding_checks(
    scorer: SentenceScorer,
) -> None:
    question = "How much heavier is the K7 than the K5?"
    d = extractive_answer(question, EVIDENCE, scorer, REFUSAL, 0.25, "comparison")
    assert "1.9 kg" in d.text and "2.6 kg" in d.text
    assert d.text.splitlines()[-1] == "- **Difference**: 0.7 kg (K7: 2.6 kg − K5: 1.9 kg) (drones/k7.md)."
    g = check(d.text, EVIDENCE, scorer, question)
    assert (
        g is not None
        and g.sentences[-1].ok
        and g.sentences[-1].best_match == "computed from the compared values"
    )
    # which one is heavier: the difference with the verdict, which side holds the larger value
    assert "); heavier: K7 (" in ask("Which is heavier, the K5 or the K7?", "comparison", scorer)


def test_a_how_much_more_question_with_the_sides_swapped_says_so_and_grounding_checks_it(
    scorer: SentenceScorer,
) -> None:
    question = "How much heavier is the K5 than the K7?"  # the K5 is the lighter one
    d = extractive_answer(question, EVIDENCE, scorer, REFUSAL, 0.25, "comparison")
    last = d.text.splitlines()[-1]
    assert (
        last
        == "- **Difference**: 0.7 kg (K7: 2.6 kg − K5: 1.9 kg); K5 is lighter, not heavier (drones/k7.md)."
    )
    g = check(d.text, EVIDENCE, scorer, question)
    assert g is not None and g.sentences[-1].ok
    # a note that names the wrong side is not taken on trust
    forged = d.text.replace("K5 is lighter, not heavier", "K7 is lighter, not heavier")
    g = check(forged, EVIDENCE, scorer, question)
    assert g is not None and not g.sentences[-1].ok


def test_analytical_answer_draws_on_two_sources(scorer: SentenceScorer) -> None:
    d = extractive_answer(
        "Why would a survey team choose the K7 over the K5?", EVIDENCE, scorer, REFUSAL, 0.25, "analytical"
    )
    assert len(d.citations) >= 2


def test_a_why_question_gets_the_reasoning_around_the_best_sentence(scorer: SentenceScorer) -> None:
    policy = (
        "# Office policy\n\n## Why three office days\n\n"
        "The lab benches and test rigs cannot be taken home. "
        "Hardware work therefore needs people on site. "
        "Writing and review work benefits from quiet days at home. "
        "The three office days are a compromise between the two.\n\n"
        "## Parking\n\nThe car park opens at seven."
    )
    other = "# Cafeteria\n\nThe cafeteria serves lunch from noon. Office days have a larger menu."
    answer = ask(
        "Why does the company ask for three office days?",
        "analytical",
        scorer,
        [entry("policy.md", policy, 0.7), entry("food.md", other, 0.4)],
    )
    first, last = answer.index("lab benches"), answer.index("compromise")
    assert first < answer.index("quiet days") < last  # one run, in document order
    assert "car park" not in answer


def test_a_why_whose_reasons_list_goes_on_in_the_next_chunk_gets_the_reasons(scorer: SentenceScorer) -> None:
    def chunk(i: int, text: str, path: str) -> LedgerEntry:
        return LedgerEntry(f"arch-{i}", "arch.md", 0.6, Fate.KEPT, 90, injected_text=text,
                           injected_tokens=90, title="Pump controller", heading_path=path, chunk_index=i)  # fmt: skip

    first = (
        "## Why a hardware watchdog?\n\nThe pump controller uses a hardware watchdog rather than a "
        "software timer. The main reasons:"
    )
    reasons = (
        "- Independence. It resets the board even when the scheduler itself hangs.\n"
        "- Certification. Auditors accept it without reviewing the kernel.\n\n"
    )
    footer = "Copies of this page are not controlled documents. Printed 2025."
    question = "Why does the pump controller use a hardware watchdog rather than a software timer?"
    evidence = [
        chunk(0, first, "Pump controller"),
        chunk(1, reasons, "Pump controller › Why a hardware watchdog?"),
    ]
    answer = ask(question, "analytical", scorer, evidence)
    assert (
        answer.index("rather than a software timer") < answer.index("Independence") < answer.index("Auditors")
    )
    # the same list in one chunk: the run goes on over its lead-in
    answer = ask(question, "analytical", scorer, [chunk(0, f"{first}\n\n{reasons}", "Pump controller")])
    assert "Independence" in answer and "Auditors" in answer
    # a chunk ending in prose does not run on into the next one (here a page footer)
    ends = [chunk(0, first.replace(" The main reasons:", ""), "Pump controller"),
            chunk(1, footer, "Pump controller › Why a hardware watchdog?")]  # fmt: skip
    assert "Printed" not in ask(question, "analytical", scorer, ends)


def test_a_comparison_side_named_by_an_acronym_finds_the_spelled_out_fact(scorer: SentenceScorer) -> None:
    privacy = (
        "# Privacy\n\n## Where data is stored\n\n"
        "- Data from customers in the European Union is stored in a data center in Frankfurt.\n"
        "- Data from all other customers is stored in a data center in Columbus.\n"
        "- Raw telemetry is retained for 18 months and then deleted."
    )
    answer = ask(
        "Where is telemetry from EU customers stored compared with data from other customers?",
        "comparison",
        scorer,
        [entry("privacy.md", privacy, 0.6)],
    )
    assert "Frankfurt" in answer and "Columbus" in answer and "18 months" not in answer


def test_a_comparison_listing_attributes_takes_each_from_where_it_is_stated(scorer: SentenceScorer) -> None:
    # flight time and camera are in the comparison table; the charging time only in each model's
    # own list, and the K5's battery is stated nowhere: each listed attribute is looked up on its own
    k5 = K5 + "\n- Charging time: 55 minutes"
    k7 = K7.replace("- Weight: 2.6 kg", "- Weight: 2.6 kg\n- Charging time: 70 minutes")
    evidence = [entry("drones/k7.md", k7, 0.82), entry("drones/k5.md", k5, 0.78)]
    text = ask(
        "Compare the K5 and K7 in flight time, charging time and camera", "comparison", scorer, evidence
    )
    bullets = text.splitlines()
    assert len(bullets) == 2
    k5_line = next(b for b in bullets if "**K5**" in b)
    k7_line = next(b for b in bullets if "**K7**" in b)
    assert all(v in k5_line for v in ("28 minutes", "55 minutes", "12 MP")) and "70 minutes" not in k5_line
    assert all(v in k7_line for v in ("41 minutes", "70 minutes", "20 MP")) and "55 minutes" not in k7_line
    assert "Weight" not in text and "Top speed" not in text
    # an attribute stated for one of them only is shown for that one
    text = ask("Compare the K5 and K7 in weight and charging time", "comparison", scorer,
               [entry("drones/k7.md", k7, 0.82), entry("drones/k5.md", K5, 0.78)])  # fmt: skip
    k5_line = next(b for b in text.splitlines() if "**K5**" in b)
    assert "1.9 kg" in k5_line and "minutes" not in k5_line and "70 minutes" in text
    # a sentence that only mentions a listed attribute states no value of it
    k7_prose = k7 + "\n\nSee the warranty card in the box for details."
    text = ask("Compare the K5 and K7 in weight and warranty", "comparison", scorer,
               [entry("drones/k7.md", k7_prose, 0.82), entry("drones/k5.md", K5, 0.78)])  # fmt: skip
    assert "1.9 kg" in text and "2.6 kg" in text and "warranty card" not in text
    # an acronym names the row its initials spell
    table = "# Heron boats\n\n| Feature | H4 | H6 |\n|---|---|---|\n| Hull length | 2.1 m | 2.9 m |\n| Ingress protection | IP67 | IP68 |"
    text = ask(
        "Compare the IP rating of the H4 and the H6", "comparison", scorer, [entry("boats/h.md", table, 0.7)]
    )
    assert "IP67" in text and "IP68" in text and "Hull" not in text


def test_a_comparison_of_two_named_products_reads_each_ones_spec_table(scorer: SentenceScorer) -> None:
    # products of two families, each with its own two-column specification table; the question
    # writes their full names ("Heron Hull H4", "SkyEye Camera Kit"), whose words are no attributes
    hull = (
        "# Heron Hull H4\n\nThe Heron Hull H4 is a survey boat hull for calm water.\n\n## Specifications\n\n"
        "| Specification | Value |\n|---|---|\n| Weight | 14 kg |\n| List price | $2,400 |\n| Hull length | 2.1 m |"
    )
    kit = (
        "# SkyEye Camera Kit\n\nThe SkyEye Camera Kit adds a camera to a Heron hull or a Kestrel drone.\n\n"
        "## Specifications\n\n| Specification | Value |\n|---|---|\n| Weight | 340 g |\n| List price | $6,750 |"
    )
    evidence = [entry("boats/h4.md", hull, 0.7), entry("kits/skyeye.md", kit, 0.7)]
    text = ask(
        "Compare the Heron Hull H4 and the SkyEye Camera Kit in weight and price",
        "comparison",
        scorer,
        evidence,
    )
    lines = text.splitlines()
    assert len(lines) == 2 and lines[0].startswith("- **Hull H4**") and lines[1].startswith("- **SkyEye**")
    assert "14 kg" in lines[0] and "$2,400" in lines[0] and "length" not in lines[0]
    assert "340 g" in lines[1] and "$6,750" in lines[1] and "adds a camera" not in text


def test_a_comparison_reads_each_models_own_table_named_in_its_header(scorer: SentenceScorer) -> None:
    """Found on a thermostat corpus: each model's specification table names it in its header
    ("| Specification | Solvane T4 Pro |"), and those rows were left to the reading of one table
    whose columns are the models, so "How many more hours …" listed both rows and no difference."""
    pages = [
        entry(f"{slug}.md", f"# Solvane {name}\n\n## Specifications\n\n| Specification | Solvane {name} |\n"
              f"|---|---|\n| Price | {price} |\n| Battery backup | {hours} |", 0.7)
        for slug, name, price, hours in (("t4", "T4", "$129", "8 hours"), ("t4-pro", "T4 Pro", "$189", "20 hours"))
    ]  # fmt: skip
    text = ask("How many more hours of battery backup does the T4 Pro have than the T4?", "comparison",
               scorer, pages)  # fmt: skip
    assert "Difference**: 12 hours" in text and "$1" not in text, text
    # each bullet names its model once: the row's value, not "Battery backup — Solvane T4: 8 hours"
    assert "Battery backup 8 hours (t4.md)" in text and "— Solvane" not in text, text


def test_comparison_of_entities_that_are_table_rows(scorer: SentenceScorer) -> None:
    table = (
        "# Ticket priorities\n\n| Priority | Meaning | Answer within |\n| --- | --- | --- |\n"
        "| PR1 | Production is down | 30 minutes |\n| PR2 | A feature is broken | 4 hours |\n"
        "| PR3 | A question | 2 days |"
    )
    answer = ask("How much sooner must a PR1 be answered than a PR3?", "comparison", scorer,
                 [entry("support/priorities.md", table, 0.7)])  # fmt: skip
    lines = answer.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("- **PR1**") and "30 minutes" in lines[0] and "Production" not in lines[0]
    assert lines[1].startswith("- **PR3**") and "2 days" in lines[1]
    assert "4 hours" not in answer


def test_an_acronym_in_the_question_finds_the_key_it_abbreviates(scorer: SentenceScorer) -> None:
    spec = "# Heron H4 boat\n\n## Specifications\n\n- Rated speed: 6 knots\n- Ingress protection: IP67\n- Hull length: 2.1 m"
    answer = ask(
        "Is the Heron H4 rated for rain, what IP rating?",
        "factual",
        scorer,
        [entry("boats/h4.md", spec, 0.7)],
    )
    assert "Ingress protection: IP67" in answer


def test_a_fact_from_another_document_joins_only_when_nearly_as_relevant(scorer: SentenceScorer) -> None:
    spec = "# Heron H4 boat\n\n## Battery\n\nThe Heron H4 battery is rated for 3,000 full charge cycles before it fades."
    policy = "# Warranty\n\nEvery Heron battery is covered for 1,000 full charge cycles."  # 0.69× as relevant
    answer = ask(
        "How many full charge cycles is the Heron H4 battery rated for?", "factual", scorer,
        [entry("boats/h4.md", spec, 0.7), entry("policies/warranty.md", policy, 0.5)],
    )  # fmt: skip
    assert "3,000" in answer and "1,000" not in answer


def test_a_fact_standing_under_another_product_does_not_follow_the_asked_ones(scorer: SentenceScorer) -> None:
    catalogue = (
        "# Marine catalogue\n\n## Heron H4 boat\n\n- Rated speed: 6 knots\n- Ingress protection: IP67\n\n"
        "## Heron bilge pump BP2\n\n- Flow: 30 l/min\n- Ingress protection: IP68"
    )
    question = "What ingress protection does the Heron H4 have?"
    answer = ask(question, "factual", scorer, [entry("catalogue.md", catalogue, 0.7)])
    assert "IP67" in answer and "IP68" not in answer  # the pump's rating is no second answer
    # a fact standing under the asked one still follows
    notes = catalogue.replace("Heron bilge pump BP2", "Heron H4 boat, sealing").replace(
        "IP68", "IP67, salt spray"
    )
    assert "salt spray" in ask(question, "factual", scorer, [entry("catalogue.md", notes, 0.7)])
    # and so does another kind of fact about the product the question looks for through the asked one
    accessories = (
        "# Marine catalogue\n\n## Heron H4 boat\n\nThe Kite gripper fits the Heron H4 through its deck "
        "flange and carries parts up to 2 kg.\n\n## Kite gripper K2\n\n- Stroke: 80 mm\n- Grip force: 140 N"
    )
    stroke = "What is the stroke of the gripper that fits the Heron H4?"
    answer = ask(stroke, "factual", scorer, [entry("catalogue.md", accessories, 0.6)])
    assert "fits the Heron H4" in answer and "80 mm" in answer


def test_a_sentence_giving_each_model_its_value_answers_with_the_asked_ones(scorer: SentenceScorer) -> None:
    page = (
        "# Pump controllers\n\n## Control\n\nThe trajectory is executed by the pump controller. "
        "The control loop runs at 2 kHz on the HX-40 and at 800 Hz on the HX-20."
    )
    evidence = [entry("controllers.md", page, 0.7)]
    answer = ask("At what rate does the control loop run on the HX-20?", "factual", scorer, evidence)
    assert "800 Hz on the HX-20" in answer and "2 kHz" not in answer
    answer = ask("At what rate does the control loop run on the HX-40?", "factual", scorer, evidence)
    assert "2 kHz on the HX-40" in answer and "800 Hz" not in answer
    both = ask("Does the control loop run faster on the HX-40 or the HX-20?", "comparison", scorer, evidence)
    assert "2 kHz" in both and "800 Hz" in both


def test_a_question_seeking_which_release_gets_the_heading_that_names_it(scorer: SentenceScorer) -> None:
    notes = (
        "# Pump firmware release notes\n\n## Firmware 7.2.0\n\n### New features\n\n"
        "- **Modbus server.** The pump controller can expose its state through a built-in Modbus server.\n"
        "- **Dry-run guard.** The pump stops when it detects it is running dry.\n\n"
        "## Firmware 7.1.0\n\n### Fixes\n\n- The flow display no longer freezes after a restart."
    )
    evidence = [entry("release-notes.md", notes, 0.7)]
    answer = ask("Which firmware release added the Modbus server?", "factual", scorer, evidence)
    assert "7.2.0" in answer and "Modbus server" in answer
    # a question that names the release already is answered without it
    answer = ask("What server does firmware 7.2.0 add to the pump controller?", "factual", scorer, evidence)
    assert "Modbus server" in answer and "Firmware 7.2.0 —" not in answer


INCIDENT = """# Postmortem: pump P3 stopped

## Root cause

The valve and the pump were switched in the same cycle. A warm valve opened late, so the pump ran dry.

## Fix

Version 2 waits for the valve's open signal before it starts the pump, with a timeout of 50 ms.

## Timeline

- 3 May: first report.
- 9 May: fix released."""


def test_each_part_of_a_two_part_question_gets_its_passage(scorer: SentenceScorer) -> None:
    answer = ask(
        "What caused the pump P3 stop, and how does version 2 prevent it?",
        "analytical",
        scorer,
        [entry("eng/postmortem.md", INCIDENT, 0.7)],
    )
    assert "same cycle" in answer and "open signal" in answer
    assert answer.index("same cycle") < answer.index("open signal")  # the question's order


RETENTION = """# Records policy

## Retention

Audit logs from all servers are retained for 1 year. Invoices and contracts are retained for 10 years.
Backups are encrypted at rest."""


def test_a_comparison_of_two_things_named_in_words_gives_each_side(scorer: SentenceScorer) -> None:
    answer = ask(
        "How long are audit logs kept compared to invoices?",
        "comparison",
        scorer,
        [entry("policies/records.md", RETENTION, 0.7)],
    )
    lines = answer.splitlines()
    assert len(lines) == 2
    assert "1 year" in lines[0] and "10 years" in lines[1]


def test_a_short_dated_sentence_is_a_fact_shown_under_its_heading(scorer: SentenceScorer) -> None:
    notes = "# Release notes\n\n## Version 3.2.1\n\nReleased 2025-02-10. Bug fixes.\n\n- Fixed the export dialog.\n\n## Version 3.2.0\n\nReleased 2024-12-01."
    answer = ask("What date did version 3.2.1 come out?", "factual", scorer, [entry("notes.md", notes, 0.6)])
    assert "Version 3.2.1 — Released 2025-02-10" in answer
    assert "2024-12-01" not in answer


def test_a_model_the_evidence_never_names_is_refused_when_only_its_siblings_are_there(
    scorer: SentenceScorer,
) -> None:
    # the pairing guide names no model: before, its sentences answered a question about a K9
    d = extractive_answer("How long does a Kestrel K9 take to pair?", EVIDENCE, scorer, REFUSAL, 0.25)
    assert d.refused and "k5" in d.reason.lower() and "k7" in d.reason.lower()
    d = extractive_answer("What is the flight time of the Kestrel K7?", EVIDENCE, scorer, REFUSAL, 0.25)
    assert not d.refused and "41 minutes" in d.text


def test_a_value_asked_is_answered_with_values_not_with_a_step_that_names_the_key(
    scorer: SentenceScorer,
) -> None:
    guide = (
        "# Kestrel K5 survey checklist\n\n## Before take-off\n\n"
        "1. Check the flight time estimate on the controller before take-off.\n"
        "2. Clear the take-off area."
    )
    answer = ask(
        "What is the flight time of the K5?", "factual", scorer,
        [entry("drones/k5.md", K5, 0.8), entry("guides/k5-checklist.md", guide, 0.75)],
    )  # fmt: skip
    # the spec's value is the best unit; the step names the key but states no value
    assert answer.startswith("- Flight time: 28 minutes") or answer.startswith("Flight time: 28 minutes")
    assert "controller" not in answer


LEASE = """# Heron boat lease terms

## Damage deposit

A damage deposit of 400 euros is taken with every Heron lease. The deposit is returned within \
10 days after the boat passes its check-in inspection. The deposit is kept in full when the hull is holed.

## Why we take a damage deposit

Every returned boat is lifted out of the water and inspected by a shipwright, which takes most of a \
day. Without the deposit, repairs would be paid by all renters through higher daily rates."""


def test_a_why_question_is_answered_from_the_section_headed_why(scorer: SentenceScorer) -> None:
    for question in (
        "Why is there a damage deposit on Heron leases?",
        "What's the rationale for the damage deposit?",
    ):
        answer = ask(question, "analytical", scorer, [entry("boats/lease.md", LEASE, 0.6)])
        assert "shipwright" in answer and "higher daily rates" in answer, answer
        assert "400 euros" not in answer


DOCK = """# Harbor H2 Charging Dock

The Harbor H2 charges one Kestrel drone at a time and stores it between flights.

## Specifications

- Battery capacity: 5,000 mAh
- Charge time: 45 minutes
- Ingress protection: IP54"""

# the store's passage count and how many passages hold each word (Index.frequencies, read by the
# prompt step): "wingspan" is in a passage about another drone, "guarantee" in none
COUNTS = (40, {"battery": 6, "capacity": 1, "kestrel": 20, "k7": 5, "k5": 5, "wingspan": 1, "fly": 2})


def test_a_value_stated_only_for_another_product_is_not_the_asked_ones(scorer: SentenceScorer) -> None:
    evidence = [entry("drones/k7.md", K7.split("## K7 vs K5")[0], 0.7), entry("docks/h2.md", DOCK, 0.6)]
    question = "What is the battery capacity of the Kestrel K7?"
    d = extractive_answer(question, evidence, scorer, REFUSAL, 0.25, counts=COUNTS)
    # the dock's battery is no sibling of the K7, but it is another named thing's value
    assert d.refused and "capacity" in d.reason and "K7" in d.reason
    d = extractive_answer(question, evidence, scorer, REFUSAL, 0.25)  # counts unknown: no such check
    assert "5,000 mAh" not in d.text
    # the dock's own value is still its answer
    answer = ask("What is the battery capacity of the Harbor H2?", "factual", scorer, evidence)
    assert "5,000 mAh" in answer


def test_a_value_the_asked_models_evidence_never_mentions_is_refused(scorer: SentenceScorer) -> None:
    k5 = [entry("drones/k5.md", K5, 0.7)]
    d = extractive_answer("What is the wingspan of the Kestrel K5?", k5, scorer, REFUSAL, 0.25, counts=COUNTS)
    assert d.refused and "“wingspan”" in d.reason
    # a word that asks for a stated attribute by another name is met by it ("fly": the flight time)
    d = extractive_answer("How long can the Kestrel K5 fly?", k5, scorer, REFUSAL, 0.25, counts=COUNTS)
    assert not d.refused and "28 minutes" in d.text
    # a yes/no question's words may paraphrase a value ("waterproof" for an IP rating): not read so
    waterproof = (40, {**COUNTS[1], "waterproof": 1})  # a word the store holds, on another page
    d = extractive_answer("Is the Kestrel K5 waterproof?", k5, scorer, REFUSAL, 0.25, counts=waterproof)
    assert "mentions" not in d.reason
    # a value's unit can name the attribute: "5,200 mAh" is a capacity
    k5_battery = [entry("drones/k5.md", K5 + "\n- Battery: 5,200 mAh LiPo", 0.7)]
    d = extractive_answer("What is the battery capacity of the Kestrel K5?", k5_battery, scorer, REFUSAL, 0.25,
                          counts=COUNTS)  # fmt: skip
    assert not d.refused and "5,200 mAh" in d.text
    # a word is met by its stem and as the end of a compound: "draw" by "draws", "load" by "payload"
    k5_power = [
        entry("drones/k5.md", K5 + "\n\nThe K5 draws about 180 W in a hover. Rated payload: 0.8 kg.", 0.7)
    ]
    counts = (40, {**COUNTS[1], "power": 2, "draw": 1, "rated": 2, "load": 1})
    for question, value in (("How much power does the Kestrel K5 draw?", "180 W"),
                            ("What is the rated load of the Kestrel K5?", "0.8 kg")):  # fmt: skip
        d = extractive_answer(question, k5_power, scorer, REFUSAL, 0.25, counts=counts)
        assert not d.refused and value in d.text, (question, d.reason)
    # nor is a word no passage of the store holds: it may name a stated value another way
    d = extractive_answer(
        "What is the guarantee of the Kestrel K5?", k5, scorer, REFUSAL, 0.25, counts=COUNTS
    )
    assert "mentions" not in d.reason


def test_a_yes_no_question_asking_for_a_feature_the_models_evidence_never_mentions_is_refused(
    scorer: SentenceScorer,
) -> None:
    """ "Does the K5 support geofencing?" asks whether it has a feature, as "have" does: when no
    passage about the K5 mentions it (another drone's page does), the K5's flight time is no answer."""
    k5 = [entry("drones/k5.md", K5, 0.7)]
    counts = (40, {**COUNTS[1], "geofencing": 2, "humidity": 1, "rtk": 1})
    for question, missing in (
        ("Does the Kestrel K5 support geofencing?", "geofencing"),
        ("Does the Kestrel K5 measure humidity?", "humidity"),
        ("Does the Kestrel K5 offer RTK positioning?", "RTK"),
    ):
        d = extractive_answer(question, k5, scorer, REFUSAL, 0.25, counts=counts)
        assert d.refused and f"“{missing}”" in d.reason, (question, d.reason)
    # a feature its evidence names is answered
    d = extractive_answer("Does the Kestrel K5 support a top speed of 50 km/h?", k5, scorer, REFUSAL, 0.25,
                          counts=(40, {**counts[1], "speed": 3, "top": 4}))  # fmt: skip
    assert not d.refused and "54 km/h" in d.text


SHEET = """## SPECIFICATIONS

- Charge time: 45 minutes
- Dock weight: 7.4 kg
- Input power: 150 W"""

SHEET_OVERVIEW = """## OVERVIEW

The Harbor H2 charges a Kestrel drone between flights. The Harbor H2 stands on a flat roof or a truck bed.
Each Harbor H2 reports its state to the fleet server."""


def test_a_spec_item_under_an_unnamed_heading_is_read_with_its_sheets_name(scorer: SentenceScorer) -> None:
    # a plain-text product sheet: its title names the product, its headings do not
    title = "HARBOR H2 - CHARGING DOCK"
    sheet = [
        LedgerEntry("a", "docks/h2.txt", 0.6, Fate.KEPT, 90, injected_text=SHEET_OVERVIEW, title=title,
                    heading_path="OVERVIEW"),
        LedgerEntry("b", "docks/h2.txt", 0.5, Fate.KEPT, 40, injected_text=SHEET, title=title,
                    heading_path="SPECIFICATIONS"),
    ]  # fmt: skip
    answer = ask("What is the weight of the Harbor H2?", "factual", scorer, sheet)
    assert answer.startswith("- Dock weight: 7.4 kg") or answer.startswith("Dock weight: 7.4 kg"), answer


def test_a_question_seeking_which_release_names_the_release_though_it_names_a_model(
    scorer: SentenceScorer,
) -> None:
    notes = (
        "# Pump firmware release notes\n\n## Firmware 7.2.0\n\n### Fixes\n\n"
        "- The dry-run guard of the P3 pump no longer trips at start-up.\n\n"
        "## Firmware 7.1.0\n\n### Fixes\n\n- The flow display no longer freezes after a restart."
    )
    answer = ask(
        "Which firmware fixed the P3's dry-run guard?", "factual", scorer, [entry("notes.md", notes, 0.7)]
    )
    assert "Firmware 7.2.0 — " in answer and "dry-run guard" in answer


def test_grounding_flags_a_sentence_giving_another_products_value_as_the_asked_ones(
    scorer: SentenceScorer,
) -> None:
    evidence = [entry("drones/k7.md", K7.split("## K7 vs K5")[0], 0.7), entry("docks/h2.md", DOCK, 0.6)]
    g = check("The battery capacity is 5,000 mAh (docks/h2.md).", evidence, scorer,
              "What is the battery capacity of the Kestrel K7?")  # fmt: skip
    assert g is not None and g.sentences[0].about == ("h2", "harbor h2") and not g.sentences[0].ok
    g = check("The battery capacity is 5,000 mAh (docks/h2.md).", evidence, scorer,
              "What is the battery capacity of the Harbor H2?")  # fmt: skip
    assert g is not None and g.sentences[0].ok


POSTMORTEM = """# Postmortem: Kestrel K7 Gimbal Froze in Flight

- Incident ID: INC-2031-0042
- Severity: SEV2
- Date detected: 3 May 2031

## Summary

Some Kestrel K7 drones on firmware 2.3 lost gimbal control for up to ten seconds in flight.

## Root cause

The gimbal driver and the camera driver shared one I2C bus, and a camera retry held the bus longer
than the gimbal watchdog allowed, so the watchdog reset the gimbal mid-flight.
"""


def first_chunk(text: str) -> LedgerEntry:
    return LedgerEntry(**{**vars(entry("eng/postmortem.md", text, 0.7)), "chunk_index": 0})


def test_a_document_is_about_what_its_preamble_names_as_a_fields_value(scorer: SentenceScorer) -> None:
    """The postmortem's title names the K7, its "Incident ID" field the incident: a question asking
    what the incident has reads the document as about it (not as the K7's, another named thing), and
    the field is the document's label, not the answer."""
    evidence = [first_chunk(POSTMORTEM)]
    counts = (40, {"root": 1, "cause": 2, "inc": 1})
    d = extractive_answer(
        "What is the root cause of INC-2031-0042?", evidence, scorer, REFUSAL, 0.25, counts=counts
    )
    assert not d.refused, d.reason
    assert "shared one I2C bus" in d.text.split("\n")[0] and "Incident ID" not in d.text
    # a field naming the incident asked about is still an answer when the question names the drone
    assert "INC-2031-0042" in ask("What is the incident ID of the Kestrel K7 gimbal postmortem?", "factual", scorer,
                                  evidence)  # fmt: skip
    # a field relating the document to another thing does not make it about that thing, nor does an
    # identifying field that is no preamble (after the first sentence, or in a later chunk)
    late = POSTMORTEM.replace("## Summary\n\n", "")
    late = late.replace("- Incident ID: INC-2031-0042\n", "").replace(
        "in flight.\n", "in flight.\n\n- Incident ID: INC-2031-0042\n"
    )
    later = LedgerEntry(**{**vars(first_chunk(POSTMORTEM)), "chunk_index": 1})
    for evidence in ([first_chunk(late)], [later]):
        d = extractive_answer(
            "What is the root cause of INC-2031-0042?", evidence, scorer, REFUSAL, 0.25, counts=counts
        )
        assert d.refused or "I2C" not in d.text.split("\n")[0]
    related = POSTMORTEM.replace("- Incident ID: INC-2031-0042", "- Compatible model: INC-2031-0042")
    d = extractive_answer(
        "What is the root cause of INC-2031-0042?", [first_chunk(related)], scorer, REFUSAL,
        0.25, counts=counts,
    )  # fmt: skip
    assert d.refused or "I2C" not in d.text.split("\n")[0]
    # a name inside a longer value is a mention: the document is not about what it mentions
    mention = POSTMORTEM.replace(
        "- Incident ID: INC-2031-0042", "- Spare used: borrowed from a Kestrel K5 kit"
    )
    d = extractive_answer("What is the root cause of the Kestrel K5 gimbal fault?", [first_chunk(mention)],
                          scorer, REFUSAL, 0.25, counts=counts)  # fmt: skip
    assert "I2C" not in d.text


def test_a_how_to_answered_by_a_field_is_the_field_not_the_spec_list(scorer: SentenceScorer) -> None:
    """ "What replacement filter does the K7 take?" reads as a how-to; its answer is one field of a
    spec list, not the list as numbered steps or as a run of fields; a numbered list stays steps."""
    sheet = (
        "# K7 air purifier\n\n## Specifications\n\n- Model number: CL-9\n- Room size: up to 45 m²\n"
        "- Filtration: 3-stage, H13 HEPA\n- Filter life: about 12 months\n- Replacement filter: CB-F9\n"
        "- Noise level: 24 dB to 52 dB\n\n## Replacing the filter\n\nWhen the indicator turns orange, "
        "order a replacement filter.\n"
    )
    question = "What replacement filter does the K7 take?"
    d = extractive_answer(question, [entry("k7.md", sheet)], scorer, REFUSAL, 0.25, "procedural")
    assert not d.refused and d.text.split("\n")[0] == "- Replacement filter: CB-F9 (k7.md).", d.text
    assert "Model number" not in d.text and "1." not in d.text
    # nor with another numbered list of the document as its steps
    reasons = (
        sheet
        + "\n## Choose the K7 if\n\n1. You want a quiet purifier.\n2. You want a cheap replacement filter.\n"
    )
    d = extractive_answer(question, [entry("k7.md", reasons)], scorer, REFUSAL, 0.25, "procedural")
    assert d.text.split("\n")[0] == "- Replacement filter: CB-F9 (k7.md).", d.text
    steps = sheet + "\n## Steps\n\n1. Unplug the K7.\n2. Twist the base off.\n3. Pull the filter out.\n"
    d = extractive_answer(
        "How do I replace the filter on the K7?", [entry("k7.md", steps)], scorer, REFUSAL, 0.25, "procedural"
    )
    assert "1. Unplug the K7 (k7.md).\n2. Twist the base off" in d.text, d.text


def test_a_field_is_a_short_key_and_its_value_in_a_bulleted_list_or_a_row() -> None:
    text = (
        "## FAQ\n\n- Can I send only the controller?: Yes, if support says so.\n- Weight: 6.4 kg\n"
        "- Note that this long explanation of many words here: is prose\n- Step 2: Unplug it.\n\n"
        "1. Power: off\n\n"
        "| Model | Weight |\n| K5 | 0.9 kg |\n"
    )
    fields = [compose.is_field(u) for u in parse(text) if u.kind != "heading"]
    assert fields == [False, True, False, False, False, True]


def test_a_question_about_a_model_is_not_answered_with_its_plus_variants_values(
    scorer: SentenceScorer,
) -> None:
    """ "C3" and "C3 Plus" are two models: the C3's sheet answers for the C3, the C3 Plus's for it."""
    c3 = "# Vela C3 spec sheet\n\n## Specifications\n\n- Weight: 23.8 kg\n- Price: USD 3,399\n"
    plus = "# Vela C3 Plus spec sheet\n\n## Specifications\n\n- Weight: 24.6 kg\n- Price: USD 3,999\n"
    sheets = [entry("c3-plus.md", plus, 0.8), entry("c3.md", c3, 0.78)]
    d = extractive_answer("How much does the Vela C3 weigh?", sheets, scorer, REFUSAL, 0.25)
    assert "23.8 kg" in d.text and "24.6 kg" not in d.text, d.text
    d = extractive_answer("What's the price of the C3 Plus?", sheets, scorer, REFUSAL, 0.25)
    assert "3,999" in d.text and "3,399" not in d.text, d.text


def test_a_field_with_a_value_per_region_is_answered_with_the_asked_regions_value(
    scorer: SentenceScorer,
) -> None:
    """ "Price: … (EU) · … (US) · … (UK)" asked for the UK quotes the UK price alone, cited."""
    sheet = (
        "# Vela C2 spec sheet\n\n## Specifications\n\n"
        "- Weight: 21.5 kg\n- Price: €2,499 (EU, incl. VAT) · $2,699 (US) · £2,199 (UK)\n"
    )
    d = extractive_answer(
        "What's the UK price of the Vela C2?", [entry("c2.md", sheet, 0.8)], scorer, REFUSAL, 0.25
    )
    assert "£2,199 (UK) (c2.md)" in d.text and "2,499" not in d.text and "2,699" not in d.text, d.text
    d = extractive_answer(
        "How much does the Vela C2 cost?", [entry("c2.md", sheet, 0.8)], scorer, REFUSAL, 0.25
    )
    assert "2,499" in d.text and "2,199" in d.text, d.text


def test_the_store_word_counts_make_the_questions_rare_words_count_for_more(scorer: SentenceScorer) -> None:
    """With the store's counts, the sentence holding the rare "located" answers; counted plainly,
    the one holding more of the question's common words ("France", "Normans", "part") does."""
    text = (
        "In France, the Normans were known as part of the Frankish world and its church. "
        "The Normans were located in the north of the kingdom."
    )
    entries = [entry("normans.txt", text, 0.7)]
    question = "What part of France were the Normans located in?"
    counts = (1000, {"part": 300, "france": 700, "normans": 800, "located": 2})
    plain = extractive_answer(question, entries, scorer, REFUSAL, 0.25)
    weighted = extractive_answer(question, entries, scorer, REFUSAL, 0.25, counts=counts)
    assert plain.text.startswith("In France"), plain.text
    assert weighted.text.startswith("The Normans were located in the north"), weighted.text


def test_a_further_unit_naming_a_sibling_does_not_follow_an_answer_about_the_asked_model_alone(
    scorer: SentenceScorer,
) -> None:
    """The D6's column of the price row answers; "At USD 249 the D3 costs under half the price of
    the D6" names the D6 too, but would set the D3's price beside it."""
    sheet = (
        "# Dustwise D3 vs D6\n\n## At a glance\n\n| Feature | Dustwise D3 | Dustwise D6 |\n|---|---|---|\n"
        "| Price (RRP) | USD 249 | USD 599 |\n| Suction power | 2,200 Pa | 4,000 Pa |\n\n"
        "## Choose the Dustwise D3 if…\n\n- **You're on a budget.** At USD 249 the D3 costs well under half "
        "the price of the D6.\n- **You have low furniture.** At only 7.2 cm tall, the D3 slides under sofas.\n"
    )
    d = extractive_answer(
        "How much does the Dustwise D6 cost?", [entry("d6.md", sheet, 0.8)], scorer, REFUSAL, 0.25
    )
    assert "USD 599" in d.text and "249" not in d.text, d.text


def test_a_follower_under_the_asked_models_heading_stays_though_it_names_a_sibling(
    scorer: SentenceScorer,
) -> None:
    """Under the H9's own heading, "Runtime: 95 minutes, 20 minutes longer than the Harrier H7" is the
    H9's and answers; naming the H7 as a reference does not make it the H7's."""
    sheet = (
        "# Harrier H9\n\n## Battery\n\n- Battery: BP-520 (1,720 mAh)\n"
        "- Runtime: 95 minutes, 20 minutes longer than the Harrier H7\n- Charging time: 80 minutes\n"
    )
    d = extractive_answer(
        "How long does the Harrier H9 battery last?", [entry("h9.md", sheet, 0.8)], scorer, REFUSAL, 0.25
    )
    assert "95 minutes" in d.text, d.text


def test_the_rule_answers_before_the_example_that_applies_it(
    scorer: SentenceScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = entry(
        "policies/late-payment.md",
        "# Late payments\n\n"
        "Example: a customer on plan B2 pays an invoice of $1,000 one month late. The late fee is $20.\n\n"
        "A late fee of 2% of the invoice amount is charged for each month of delay.\n\n"
        "Invoices are sent by email on the first working day of the month. Plan B2 invoices are due in 30 days.",
    )
    text = ask("What is the late fee?", "factual", scorer, [policy])
    assert text.startswith("A late fee of 2% of the invoice amount"), text
    assert "$20" not in text  # the example's result does not follow the rule without its example

    # a question quoting the example's figures asks about the case: its sentences lose nothing
    def scores(question: str) -> list[float]:
        return [u.score for u in score_units(question, [policy], scorer).units]

    plain = scores("What is the late fee on plan B2?")  # a code's digit is no figure of the case
    quoting = ["What late fee does a $1,000 invoice paid one month late pay?", "And a 1000 dollar invoice?"]
    with_case = [scores(q) for q in quoting]
    monkeypatch.setattr(evidence, "ILLUSTRATION", 0.0)
    assert [scores(q) for q in quoting] == [pytest.approx(x) for x in with_case]
    unmarked = scores("What is the late fee on plan B2?")
    assert [round(a - b, 6) for a, b in zip(unmarked, plain, strict=True)] == [0.1, 0.1, 0.0, 0.0, 0.0]


def test_a_sentence_about_its_own_document_answers_no_question_asking_for_a_value(
    scorer: SentenceScorer,
) -> None:
    policy = entry(
        "policies/repairs.md",
        "# Repairs\n\n"
        "This repair policy explains which faults are repaired free of charge and how long a repair takes. "
        "Repairs take up to 10 working days from the day the unit arrives. "
        "Faults caused by misuse are repaired at the customer's cost.",
    )
    text = ask("How long does a repair take?", "factual", scorer, [policy])
    assert text.startswith("Repairs take up to 10 working days"), text
    assert "This repair policy explains" not in text
    # asked what the document is about, it is the answer
    text = ask("What does the repair policy explain?", "factual", scorer, [policy])
    assert text.startswith("This repair policy explains"), text


def ask_page(question: str, text: str, scorer: SentenceScorer) -> str:
    """The factual answer from one page holding text under its title."""
    return ask(question, "factual", scorer, [entry("docs/page.md", "# Page\n\n" + text)])


@pytest.mark.parametrize(
    ("text", "question", "lead"),
    [
        (  # the example is the only place naming what is asked: it answers
            "The Standard plan includes two support tickets per month.\n\n"
            "Example: the Premium plan includes unlimited tickets and phone support around the clock.",
            "How many support tickets does the Premium plan include?",
            "Example: the Premium plan includes unlimited tickets",
        ),
        (
            "The Kestrel Scout has a flight time of 28 minutes on its standard pack. Larger batteries extend "
            "flight time.\n\nExample: the Kestrel Ranger flies for 41 minutes on its 6000 mAh pack.",
            "How long does the Ranger fly?",
            "Example: the Kestrel Ranger flies for 41 minutes",
        ),
        (  # "For example," in prose states a fact: nothing is marked
            "Drinks with client meals are reimbursed up to $30 per person.\n\n"
            "For example, a hotel minibar charge is not reimbursed. Alcohol is never reimbursed.",
            "Are alcoholic drinks reimbursed?",
            "Alcohol is never reimbursed",
        ),
        (  # under an "Examples" heading
            "# Late payments\n\nA late fee of 2% of the invoice is charged per month of delay.\n\n"
            "## Examples\n\nAn invoice of $1,000 is paid a month late. The late fee is $20.",
            "What is the late fee?",
            "A late fee of 2% of the invoice",
        ),
    ],
)
def test_an_example_answers_what_only_it_names(
    scorer: SentenceScorer, text: str, question: str, lead: str
) -> None:
    answer = ask_page(question, text, scorer)
    assert answer.startswith(lead), answer


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        (  # a condition after what it describes says when
            "This procedure describes how to shut down line 4 when a fire alarm sounds. "
            "Press the red button on the panel. Close valve V2 by hand.",
            "When do I shut down line 4?",
            "when a fire alarm sounds",
        ),
        (  # no list of what it tells: a statement like any other
            "This section defines the shift supervisor as the person responsible for the shutdown. "
            "Press the red button on the panel.",
            "Who is responsible for the shutdown?",
            "the shift supervisor",
        ),
        (
            "This guide covers the ArmX1, ArmX2 and ArmX3 arms. The ArmX2 draws 250 W and the ArmX3 draws 350 W.",
            "How many arms does the guide cover?",
            "This guide covers the ArmX1, ArmX2 and ArmX3 arms",
        ),
    ],
)
def test_a_sentence_about_its_document_that_states_the_fact_still_answers(
    scorer: SentenceScorer, text: str, question: str, said: str
) -> None:
    answer = ask_page(question, text, scorer)
    assert said in answer, answer


def test_an_example_named_by_the_questions_first_word_is_about_it(
    scorer: SentenceScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fees = entry(
        "docs/fees.md",
        "# Late fees\n\nA late fee of 2% is charged on every overdue invoice.\n\n"
        "Example: fees are waived for Premium accounts paying within 10 days.",
    )

    def scores() -> list[float]:
        return [
            u.score for u in score_units("Premium accounts: are late fees charged?", [fees], scorer).units
        ]

    named = scores()
    monkeypatch.setattr(evidence, "ILLUSTRATION", 0.0)
    assert scores() == pytest.approx(named)  # "Premium", first and capitalised, is still a name


def test_an_example_that_answers_comes_whole(scorer: SentenceScorer) -> None:
    policy = entry(
        "policies/late-payment.md",
        "# Late payments\n\n"
        "A late fee of 2% of the invoice amount is charged for each month of delay.\n\n"
        "Example: a customer pays an invoice of $1,000 one month late. The late fee is $20.",
    )
    text = ask("What late fee does a $1,000 invoice paid one month late pay?", "factual", scorer, [policy])
    setup, result = text.find("Example: a customer pays"), text.find("The late fee is $20")
    assert 0 <= setup < result, text  # the example's setup, then its result


def test_a_long_example_is_quoted_up_to_the_sentence_that_answers(scorer: SentenceScorer) -> None:
    steps = " ".join(f"In month {n} the balance grows by one more step." for n in range(2, 7))
    policy = entry(
        "policies/interest.md",
        "# Interest\n\nInterest of 1% per month is added to an overdue balance.\n\n"
        f"Example: a balance of $5,000 stays unpaid. {steps} After six months it reaches $5,308.",
    )
    text = ask("When does a balance of $5,000 reach $5,308?", "factual", scorer, [policy])
    assert "After six months it reaches $5,308" in text, text
    assert (
        text.count("(policies/interest.md)") <= compose.MAX_UNITS if hasattr(compose, "MAX_UNITS") else True
    )


RENTALS = """# Bike rentals

## Deposits

Every rental needs a deposit. The deposit is held on the card used for the booking.

## Refund window

Riders may cancel any standard rental up to 48 hours before pick-up for a full refund, provided that:

- a) the booking was paid by card;
- b) no accessories were collected yet;
- c) the cancellation is made in the app.

Cancellations after that are charged the first day's rate."""


def test_a_lead_in_that_answers_is_quoted_with_its_list(scorer: SentenceScorer) -> None:
    text = ask(
        "How many hours before pick-up can I cancel a rental?", "factual", scorer, [entry("rent.md", RENTALS)]
    )
    lead = text.find("up to 48 hours before pick-up for a full refund, provided that")
    items = [text.find(f"{x}) ") for x in "abc"]
    assert 0 <= lead < items[0] < items[1] < items[2], text  # the conditions, in order, after it
    assert "- a) the booking was paid by card" in text  # a lettered item keeps its letter


def test_a_lead_in_is_no_unit_for_other_readers(scorer: SentenceScorer) -> None:
    """Related mode, unit packing and grounding score units without lead-ins; a procedure does not
    read one as a step."""
    entries = [entry("rent.md", RENTALS)]
    question = "How many hours before pick-up can I cancel a rental?"
    assert not any(x.unit.text.endswith(":") for x in score_units(question, entries, scorer).units)
    assert any(x.unit.text.endswith(":") for x in score_units(question, entries, scorer, lead_ins=True).units)


@pytest.mark.parametrize(
    ("text", "question", "wanted", "unwanted"),
    [
        (  # one-word items are no conditions to show: the lead-in is no candidate
            "Campers may bring the following items into every site of the park all year:\n\n- Tents\n- Stoves\n\n"
            "Fires are allowed only in the fire rings of each site.",
            "What may campers bring into every site of the park?",
            "",
            "park all year:",
        ),
        (  # two sections open their lists with the same lead-in: the items are the asked section's
            "## Standard delivery\n\nThe following conditions apply to every order shipped this way:\n\n"
            "- parcels arrive within five working days\n- tracking is sent by email\n\n"
            "## Express delivery\n\nThe following conditions apply to every order shipped this way:\n\n"
            "- parcels arrive the next working day\n- a signature is required on delivery",
            "Which conditions apply to standard delivery?",
            "tracking is sent by email",
            "a signature is required",
        ),
    ],
)
def test_a_lead_in_brings_its_own_list_by_structure(
    scorer: SentenceScorer, text: str, question: str, wanted: str, unwanted: str
) -> None:
    answer = ask_page(question, text, scorer)
    assert wanted in answer and unwanted not in answer, answer
    assert not answer.rstrip().endswith(":"), answer


def test_a_long_list_is_cut_to_its_items_most_about_the_question(scorer: SentenceScorer) -> None:
    checks = [
        "inspect the chain for rust", "check the tyre pressure", "test both brakes", "clean the battery contacts",
        "update the drive firmware", "grease the seat post", "check the spoke tension", "tighten the pedal cranks",
        "wash the frame by hand", "charge the battery to half before winter storage",
    ]  # fmt: skip
    text = "To keep the warranty valid, owners must complete these checks every season in this order:\n\n"
    answer = ask_page("Must owners tighten the pedal cranks to keep the warranty valid?", text + "\n".join(
        f"{n}. {c}" for n, c in enumerate(checks, 1)
    ), scorer)  # fmt: skip
    assert "8. tighten the pedal cranks" in answer, answer  # the one asked about, with its number
    assert sum(f"{n}. " in answer for n in range(1, 11)) == 5, answer
    assert "(the other 5 items are in docs/page.md)" in answer, answer


def test_models_named_by_a_word_and_a_number_are_told_apart(scorer: SentenceScorer) -> None:
    pages = [
        entry(
            "grinders/brio-50.md",
            "# Brio 50 grinder\n\n## Specifications\n\n- Weight: 3.4 kg\n- Burr size: 64 mm",
        ),
        entry(
            "grinders/brio-5.md",
            "# Brio 5 grinder\n\n## Specifications\n\n- Weight: 2.1 kg\n- Burr size: 40 mm",
        ),
    ]
    text = ask("How much does the Brio 5 weigh?", "factual", scorer, pages)
    assert "2.1 kg" in text and "3.4 kg" not in text, text
    text = ask("What burr size does the Brio 50 have?", "factual", scorer, pages)
    assert "64 mm" in text and "40 mm" not in text, text
    d = extractive_answer("How much does the Brio 7 weigh?", pages, scorer, REFUSAL, 0.25, "factual")
    assert d.refused, d.text  # a model no passage names: its siblings' values are not its own


def test_an_item_quoted_alone_stands_under_its_lead_in(scorer: SentenceScorer) -> None:
    warranty = entry(
        "policies/warranty.md",
        "# Warranty\n\n## Exclusions\n\nThe warranty does not cover:\n\n"
        "- wear parts such as tyres, brake pads and chains\n- damage from racing or stunt riding\n\n"
        "## Frame\n\nFrames are covered for ten years from the date of purchase.",
    )
    text = ask("Are brake pads covered by the warranty?", "factual", scorer, [warranty])
    lead, item = (
        text.find("- The warranty does not cover"),
        text.find("  - wear parts such as tyres, brake pads"),
    )
    assert 0 <= lead < item, text  # the item says nothing without "does not cover"
    # the list holds more than the item quoted: a pointer says so, and grounding reads it as framing
    assert "  - … (the other item of this list is in policies/warranty.md)" in text, text
    assert check(text, [warranty], scorer).score == 1.0, text


def test_a_comparison_names_models_as_written(scorer: SentenceScorer) -> None:
    pages = [
        entry("grinders/brio-50.md", "# Brio 50 grinder\n\n## Specifications\n\n- Weight: 3.4 kg"),
        entry("grinders/brio-5.md", "# Brio 5 grinder\n\n## Specifications\n\n- Weight: 2.1 kg"),
    ]
    text = ask("How much heavier is the Brio 50 than the Brio 5?", "comparison", scorer, pages)
    assert "**Brio 50**" in text and "**Brio 5**" in text, text  # not "**50**" and "**5**"


def test_a_version_range_covers_the_asked_release(scorer: SentenceScorer) -> None:
    page = entry(
        "apps/volt.md", "# Volt app\n\n## Requirements\n\nThe Volt app requires Android 14 or later."
    )
    d = extractive_answer(
        "Is Android 13 supported by the Volt app?", [page], scorer, REFUSAL, 0.25, "factual"
    )
    assert not d.refused and "Android 14 or later" in d.text, (d.text, d.reason)


def _nested_under_own_lead(answer: str) -> bool:
    """Every nested item stands under a lead-in line of its own source, and no lead-in line is shown bare."""
    lines = answer.splitlines()
    for n, line in enumerate(lines):
        if (
            line.startswith("- ")
            and line.endswith("):")
            and not lines[n + 1 : n + 2] == []
            and not (lines[n + 1].startswith("  - "))
        ):
            return False
        if line.startswith("  - ") and not line.startswith("  - …"):  # (a pointer to the rest of the list)
            lead = next(x for x in reversed(lines[:n]) if not x.startswith("  - "))
            if lead[lead.rindex("(") :].rstrip(":") != line[line.rindex("(") :].rstrip(".;"):
                return False
    return True


def test_lead_ins_are_shown_once_and_over_their_own_items(scorer: SentenceScorer) -> None:
    returns = entry(
        "policies/returns.md",
        "# Returns\n\nYou may not return a bike in any of the following situations at all:\n\n"
        "- the bike was bought as an ex-demo model\n- the frame was custom painted\n\n"
        "A bike can be returned within 14 days when all of the following conditions are met:\n\n"
        "- the receipt or the order number is included with the return\n- the bike has been ridden less than 10 km",
    )
    answer = ask("What must I include with a returned bike?", "factual", scorer, [returns])
    assert "receipt or the order number" in answer and _nested_under_own_lead(answer), answer
    for lead in ("You may not return a bike", "A bike can be returned within 14 days"):
        assert answer.count(lead) <= 1, answer
    cables = [
        entry("scanners/lumo.md", "# Lumo scanner\n\nYou will need:\n\n- a USB-C cable for the Lumo scanner"),
        entry(
            "printers/vex.md", "# Vex printer\n\nYou will need:\n\n- a Micro-USB cable for the Vex printer"
        ),
    ]
    answer = ask("What cable do I need?", "factual", scorer, cables)
    assert _nested_under_own_lead(answer), answer  # not both cables under one document's lead-in


def test_a_comparison_takes_the_row_the_question_asks_not_one_adding_a_qualifier(
    scorer: SentenceScorer,
) -> None:
    """ "How much heavier …?" asks for the weight: "Max system weight" names it too, but adds words
    the question does not ask, so it is left out and the difference is computed on "Weight"."""
    table = (
        "# Stride range comparison\n\n| Spec | Stride 3 | Stride 3 Plus |\n|---|---|---|\n"
        "| Weight | 22.4 kg | 23.6 kg |\n| Max system weight | 130 kg | 140 kg |\n| Torque | 45 Nm | 50 Nm |"
    )
    question = "How much heavier is the Stride 3 Plus than the Stride 3?"
    text = ask(question, "comparison", scorer, [entry("bikes/comparison.md", table)])
    assert "22.4 kg" in text and "23.6 kg" in text and "130 kg" not in text and "140 kg" not in text
    assert text.splitlines()[-1].startswith(
        "- **Difference**: 1.2 kg (Stride 3 Plus: 23.6 kg − Stride 3: 22.4 kg)"
    )
    # asked for the qualified one, the qualified row answers
    text = ask("How does the max system weight of the Stride 3 compare with the Stride 3 Plus?", "comparison", scorer,
               [entry("bikes/comparison.md", table)])  # fmt: skip
    assert "130 kg" in text and "140 kg" in text and "22.4 kg" not in text
    # the closest row stating no number: every row naming the attribute answers, as before
    cells = "# Battery\n\n| Spec | Stride 3 | Stride 3 Plus |\n|---|---|---|\n| Battery | Li-ion | Li-ion |\n"
    table = cells + "| Battery capacity | 418 Wh | 540 Wh |\n| Torque | 45 Nm | 50 Nm |"
    text = ask("How much bigger is the battery of the Stride 3 Plus than the Stride 3?", "comparison", scorer,
               [entry("bikes/battery.md", table)])  # fmt: skip
    assert "418 Wh" in text and "540 Wh" in text


HOURS = """# Service desk

## When can I reach the service desk?

The service desk is staffed from 8:00 to 18:00 Central European Time, Monday to Friday. \
You can open a ticket in the web portal or call the hotline. \
Tickets opened outside these hours are handled on the next working day.

## Do you offer on-site visits?

On-site visits are booked through the web portal and cost €120 per hour."""


def test_a_sentence_naming_the_asked_thing_only_as_these_hours_comes_after_its_antecedent(scorer) -> None:  # noqa: ANN001
    """ "Tickets opened outside these hours …" holds the asked word but not the hours: the answer
    quotes it after the sentences before it in its paragraph, where the hours are stated."""
    draft = extractive_answer(
        "What are the service desk hours?", [entry("support/desk.md", HOURS)], scorer, REFUSAL, 0.1
    )
    assert not draft.refused
    first = draft.text.split(" (support/desk.md)")[0]
    assert first.startswith("The service desk is staffed from 8:00 to 18:00"), draft.text
    assert draft.text.index("8:00 to 18:00") < draft.text.index("outside these hours")
    # what counts as referring back: the asked word only after "this/these/those/such"
    from core.answer.extractive import _refers_back
    from core.stems import STEMMER
    from core.text import content_words

    asked = STEMMER.stem_set(content_words("What are the service desk hours?"))
    assert _refers_back("Tickets opened outside these hours wait.", asked)
    assert _refers_back("Tickets opened outside these opening hours wait.", asked)  # an adjective between
    assert not _refers_back("Tickets opened outside the desk hours wait.", asked)  # named itself
    assert not _refers_back("These hours and our hours differ.", asked)  # and once plainly
    assert not _refers_back("We know that hours vary.", asked)  # "that" is mostly a conjunction
    assert not _refers_back("Please note these hours: 8:00 to 18:00.", asked)  # it introduces them
    year = STEMMER.stem_set(content_words("What changed this year?"))
    assert not _refers_back("This year we opened a second desk.", year)  # deictic, no antecedent


LINEUP = """# Kestrel range: which drone is right for you?

## Comparison table

| Spec | Kestrel K5 | Kestrel K7 |
|---|---|---|
| Range | 6 km | 9 km |
| Drivetrain | Quad | Hexa |
| Weight | 1.9 kg | 2.6 kg |
| Camera | 12 MP | 20 MP |"""

K7_PAGE = """# Kestrel K7 Drone

## Specifications

- Camera: 20 MP (1-inch sensor)
- Range: 9 km"""


def test_factual_followers_repeat_no_fact_and_stay_on_the_asked_key(scorer: SentenceScorer) -> None:
    """Every row of a table standing under a title that says "range" scores as being about range:
    once a picked fact's key is on the topic, a row whose key is not ("Drivetrain", "Weight") no
    longer follows it; and the table's "Camera — Kestrel K7: 20 MP" after the page's "Camera: 20 MP
    (1-inch sensor)" states nothing new."""
    lineup = entry("drones/lineup.md", LINEUP, 0.8)
    draft = extractive_answer("What range does the Kestrel K7 have?", [lineup], scorer, REFUSAL, 0.1)
    assert "9 km" in draft.text and "Drivetrain" not in draft.text and "Weight" not in draft.text, draft.text
    both = [entry("drones/k7.md", K7_PAGE, 0.8), lineup]
    draft = extractive_answer("What camera does the Kestrel K7 have?", both, scorer, REFUSAL, 0.1)
    assert "Camera: 20 MP (1-inch sensor)" in draft.text and draft.text.count("20 MP") == 1, draft.text


CHARGING = """# Charging the Kestrel batteries

## Charging times

Recharge times with the charger supplied with each drone:

- Kestrel K5 (2 A charger): 90 minutes
- Kestrel K7 (3 A charger): 70 minutes

The battery reaches 80% in two thirds of that time. Owners in a hurry can buy the rapid charger \
separately for €89 at dealers and online, which fills the battery in about 40 minutes."""


def test_a_fact_is_followed_by_the_sentence_that_holds_the_asked_qualifier(scorer: SentenceScorer) -> None:
    """The list item answers the charging time, but not "with the rapid charger": the sentence that
    holds the word of the question's qualifier no picked fact holds ("rapid") follows it; without the
    qualifier, prose that is not nearly as relevant does not."""
    e = [entry("drones/charging.md", CHARGING)]
    draft = extractive_answer(
        "How quickly can I charge a K5 with the rapid charger?", e, scorer, REFUSAL, 0.1
    )
    assert "90 minutes" in draft.text and "about 40 minutes" in draft.text, draft.text
    plain = extractive_answer("How long does it take to charge a K5?", e, scorer, REFUSAL, 0.1)
    assert "90 minutes" in plain.text and "40 minutes" not in plain.text, plain.text


def test_a_fact_with_another_value_is_no_repeat(scorer: SentenceScorer) -> None:
    """Two items with one key and different times are two facts ("08:00 to 12:00" is not read as
    "00" and found in "07:00 to 20:00"); numbers compare in order without their separators."""
    hotline = """# Contact

## Hotline

- Hotline hours: Monday to Friday, 07:00 to 20:00 CET
- Hotline hours (Saturday): 08:00 to 12:00 CET
- Hotline number: +49 30 1234 567"""
    draft = extractive_answer(
        "What are the hotline hours?", [entry("contact.md", hotline)], scorer, REFUSAL, 0.1
    )
    assert "07:00 to 20:00" in draft.text and "08:00 to 12:00" in draft.text, draft.text
    from core.answer.extractive import _figures

    assert _figures("24,9 kg") == _figures("24.9 kg") == ["249"]
    assert _figures("1,899 EUR") == ["1899"] != _figures("899 EUR")
    assert _figures("08:00 to 12:00") == ["08", "00", "12", "00"]


def test_a_sentence_opening_with_a_pronoun_is_about_what_the_sentence_before_names(
    scorer: SentenceScorer,
) -> None:
    """Found on a robot-mower corpus: "What is the wheel diameter of the M3 Pro?" was answered with
    the M5 page's "Its all-terrain wheels have a diameter of 24 cm." (a plain-text page without
    headings: the sentence names no model, so nothing tied it to the M5)."""
    m5 = (  # a .txt page's title is its file's name
        "Verda M5 flagship robot mower\n\nThe Verda M5 costs €1,549. The M5 weighs 13.6 kg and climbs "
        "slopes of up to 45 %. Its all-terrain wheels have a diameter of 24 cm. The housing is rated IPX5."
    )
    pro = (
        "# Verda M3 Pro\n\nThe Verda M3 Pro costs €899. The M3 Pro weighs 8.1 kg and handles slopes of "
        "up to 35 %. It has a cutting width of 20 cm."
    )
    e = [replace(entry("verda-m5.txt", m5, 0.8), title="verda-m5"), entry("verda-m3-pro.md", pro, 0.78)]
    asked_pro = extractive_answer("What is the wheel diameter of the M3 Pro?", e, scorer, REFUSAL, 0.1)
    assert "24 cm" not in asked_pro.text, asked_pro.text
    asked_m5 = extractive_answer("What is the wheel diameter of the M5?", e, scorer, REFUSAL, 0.1)
    assert "24 cm" in asked_m5.text, asked_m5.text


T40_PAGE = (  # a plain-text page: it names its model in its first sentence only
    "The Solvane T40 is our flagship thermostat. It costs $249.\n\n"
    "It measures 102 × 102 × 26 mm. Its aluminium bezel comes in two finishes, Silver and Matte Black."
)
T40_NEXT = "It measures temperature with an accuracy of ±0.2 °C. It draws 2.1 W from the supply."
T6_PAGE = (
    "# Solvane T6\n\nThe Solvane T6 is our thermostat for boilers. It costs $99. It has an e-ink screen."
)


def test_a_paragraph_opening_with_a_pronoun_and_a_chunk_of_a_page_without_headings_are_its_subjects(
    scorer: SentenceScorer,
) -> None:
    """Found on a thermostat corpus: the T40's page is plain text whose paragraphs open "It …", and
    its second chunk names no model at all. "What's the temperature accuracy of the T6?" (which
    no page states) was answered with the T40's "It measures temperature with an accuracy of
    ±0.2 °C", and the T40's colours were passed over for sentences naming it."""
    e = [
        replace(entry("t40.txt", T40_PAGE, 0.8), title="t40", chunk_index=0),
        replace(entry("t40.txt", T40_NEXT, 0.8), title="t40", chunk_index=1),
        replace(entry("t6.md", T6_PAGE, 0.75), chunk_index=0),
    ]
    for question, value, about_t40 in (
        ("What's the temperature accuracy of the T6?", "±0.2", False),  # the next chunk: the title's
        ("How accurate is the T40's temperature sensor?", "±0.2", True),
        ("What finishes does the T6 come in?", "Silver", False),  # a paragraph going on about the T40
        ("What finishes does the T40 come in?", "Silver", True),
    ):
        d = extractive_answer(question, e, scorer, REFUSAL, 0.1)
        assert (value in d.text) == about_t40, (question, d.text)
    # a summarised chunk may have lost the paragraph before: a pronoun there refers to nothing known
    cut = [replace(x, fate=Fate.SUMMARISED) if x.source == "t40.txt" else x for x in e]
    units = score_units("How accurate is the T6?", cut, scorer).units
    later = [x for x in units if x.source == "t40.txt" and x.text.startswith("It") and "$249" not in x.text]
    assert len(later) == 4 and not any(
        x.conflict for x in later
    )  # (the first paragraph's "It costs …": the T40's)
    # a sentence naming another model after its pronoun is about that model ("Its successor, …"),
    # unless it names it after a contrast ("unlike the T4 Pro, it …")
    t4 = "The Solvane T4 costs $129. Its successor, the T4 Pro, adds a humidity sensor."
    units = score_units(
        "Does the T4 have a humidity sensor?", [entry("t4.md", "# Thermostats\n\n" + t4)], scorer
    )
    assert {x.text[:14]: set(x.conflict) for x in units.units}["Its successor,"] == {"t4pro"}
    unlike = "The Solvane T40 costs $249. It needs a C-wire; unlike the T4 Pro, it has no kit."
    units = score_units(
        "Does the T40 need a C-wire?", [entry("t40.md", "# Thermostats\n\n" + unlike)], scorer
    )
    assert not {x.text[:8]: set(x.conflict) for x in units.units}["It needs"]


WINTER = """# Maintenance: blades and winter storage

## Replacing the blades on the M3, M3 Pro and M30

You need a Phillips screwdriver and a BL-9 blade set.

1. Press STOP and switch the mower off with the main switch.
2. Turn the mower upside down on a soft surface.
3. Remove the screw holding each blade.

## Winter storage

Store the mower indoors when the temperature drops below 5 °C.

For the M3 and M3 Pro:

1. Clean the mower with a brush and a damp cloth.
2. Charge the battery fully.
3. Store the mower flat, indoors.

For the M30 and M5:

1. Clean the mower with a brush and a damp cloth.
2. Charge the battery to about 50 %.
3. Remove the battery and store it separately indoors."""


def test_a_lists_lead_in_names_the_models_its_steps_are_for(scorer: SentenceScorer) -> None:
    """Found on a robot-mower corpus: "How do I prepare the M30 for winter storage?" got the blade
    replacement (its heading names the M30); the winter steps stand under lead-ins naming models."""
    evidence = [entry("maintenance.md", WINTER)]
    m30 = ask("How do I prepare the M30 for winter storage?", "procedural", scorer, evidence)
    assert "about 50 %" in m30 and "fully" not in m30 and "screwdriver" not in m30.lower(), m30
    m3 = ask("How should I store the M3 over winter?", "procedural", scorer, evidence)
    assert "Charge the battery fully" in m3 and "50 %" not in m3, m3


PARTS = """# Verda accessories

## Blades and batteries

| Item | Code | Fits | Price |
|---|---|---|---|
| Razor blade set (9 pcs) | BL-9 | M3, M3 Pro, M30 | €19.90 |
| Titanium blade set (9 pcs) | BL-9T | M3, M3 Pro, M30 | €34.90 |
| Battery 3.0 Ah | BP-30 | M3 Pro | €99 |

Batteries are not interchangeable between models."""


def test_a_row_about_another_thing_is_not_the_asked_models_value(scorer: SentenceScorer) -> None:
    """Found on a robot-mower corpus: "How much is the Verda M3 Pro?" quoted the blade sets' and
    the battery's prices, whose rows name the M3 Pro only in their "Fits" cells."""
    pro = "# Verda M3 Pro\n\nThe Verda M3 Pro costs €899. It adds GPS tracking to the compact M3 body."
    evidence = [entry("accessories.md", PARTS, 0.82), entry("verda-m3-pro.md", pro, 0.8)]
    price = ask("How much is the Verda M3 Pro?", "factual", scorer, evidence)
    assert "€899" in price and "€19.90" not in price and "€99 " not in price + " ", price
    # a row whose own words the question says is still about what it asks
    battery = ask("What is the price of the M3 Pro battery?", "factual", scorer, evidence)
    assert "€99" in battery, battery


ORLA_LINEUP = """# Compare Orla readers

| Model | Screen | Storage | Battery life | Weight | Waterproof | Price |
|---|---|---|---|---|---|---|
| Orla 4 | 6 in | 8 GB | 6 weeks | 158 g | No | $99.99 |
| Orla 40 | 7 in | 32 GB | 8 weeks | 214 g | IPX8 | $229.99 |
| Orla 4 Plus | 6.8 in | 16 GB | 10 weeks | 182 g | IPX8 | $149.99 |"""

ORLA_40 = """# Orla 40

## Technical specifications

- Weight: 214 g
- Storage: 32 GB"""


def test_a_wide_row_shows_the_columns_the_question_asks_for(scorer: SentenceScorer) -> None:
    evidence = [entry("compare.md", ORLA_LINEUP)]
    text = ask("How heavy is the Orla 4 Plus?", "factual", scorer, evidence)
    assert "Orla 4 Plus — Weight: 182 g" in text and "149.99" not in text and "IPX8" not in text
    text = ask("Which Orla readers are waterproof?", "factual", scorer, evidence)
    assert "Waterproof: IPX8" in text and "GB" not in text
    # a question asking which ones gets every row's cell, in the table's order
    assert [line.split(" — ")[0] for line in text.splitlines()] == [
        "- Orla 4",
        "- Orla 40",
        "- Orla 4 Plus",
    ], text
    # a question naming no column gets the whole row
    assert "$99.99" in ask("Tell me about the Orla 4.", "factual", scorer, evidence)
    # the same fact from the model's own page and from the table is said once
    text = ask("What does the Orla 40 weigh?", "factual", scorer, [entry("orla-40.md", ORLA_40), *evidence])
    assert text.count("214 g") == 1, text


def test_a_sentence_saying_something_of_the_one_before_comes_after_it(scorer: SentenceScorer) -> None:
    page = (
        "# Orla 4 Plus\n\n## Battery that lasts\n\n"
        "Battery life is up to ten weeks on a single charge, based on half an hour of reading a day. "
        "That is four weeks longer than the Orla 4. The case is made of recycled aluminium."
    )
    text = ask("How much longer does the Orla 4 Plus battery last than the Orla 4?", "factual", scorer,
               [entry("orla-4-plus.md", page)])  # fmt: skip
    assert "That is four weeks longer" in text
    assert text.index("up to ten weeks") < text.index("That is four weeks longer"), text


def test_a_thing_the_question_names_that_no_passage_names_is_refused(scorer: SentenceScorer) -> None:
    """A product of another family than the store's ("iPhone 15" asked of Orla readers) is named
    by no injected passage: the readers' battery facts are no answer, however close their words."""
    page = "# Orla 40\n\n## Battery\n\nThe battery lasts up to eight weeks of reading on one charge."
    d = extractive_answer("How long does the iPhone 15 battery last?", [entry("orla-40.md", page)], scorer,
                          REFUSAL, 0.25)  # fmt: skip
    assert d.refused and d.reason == "no injected passage names iPhone 15", d
    assert "eight weeks" in ask(
        "How long does the Orla 40 battery last?", "factual", scorer, [entry("orla-40.md", page)]
    )


FLIGHT_PLAN = """# Kestrel Cloud plans

Kestrel Cloud stores your flight logs and maps online.

## Cancelling

You can cancel at any time under Account > Billing > End plan. Support staff cannot cancel a plan for you.

## What happens to my flight logs if I cancel?

Your flight logs stay readable for 90 days after the plan ends. Maps you exported to your own computer are yours to keep. Shared maps stop updating for the people you shared them with."""


def test_a_how_to_is_answered_by_what_says_how_to_do_the_asked_thing(scorer: SentenceScorer) -> None:
    """ "How do I cancel …?" is answered by the sentences that name cancelling ("You can cancel at
    … > End plan"), not by the section on what follows from it ("Your flight logs stay readable
    for 90 days after the plan ends" scores as high)."""
    evidence = [entry("cloud/plans.md", FLIGHT_PLAN)]
    text = ask("How do I cancel my Kestrel Cloud plan?", "procedural", scorer, evidence)
    assert text.startswith("You can cancel at any time under Account > Billing > End plan"), text
    assert "90 days" not in text.split("\n")[0]


DRONE_RETURNS = """# Kestrel returns

Drones bought from a reseller are returned to that reseller, who refunds you.

## Return conditions

1. The drone is sent back within 30 days of delivery.
2. It has not been registered with the aviation authority.

## How to send a return

1. Open Orders in your Kestrel account and choose Return items.
2. Print the label and tape it to the case.
3. Hand the parcel to the carrier within 14 days."""


def test_steps_headed_as_the_asked_task_are_its_procedure(scorer: SentenceScorer) -> None:
    """A sentence elsewhere shares more of the question's words ("bought", "returned"), but the
    list headed "How to send a return" is the asked task's procedure: its steps are the answer."""
    evidence = [entry("policies/returns.md", DRONE_RETURNS)]
    text = ask("How do I return a drone I bought online?", "procedural", scorer, evidence)
    assert text.startswith("How to send a return (policies/returns.md):"), text
    assert "3. Hand the parcel to the carrier" in text


ORLA_FORMATS = """# Orla file formats

| Format | Orla 4 | Orla 40 | Orla 4 Plus |
|---|---|---|---|
| EPUB | Yes | Yes | Yes |
| PDF | Yes | Yes | Yes |
| CBZ comics | No | Yes | Yes |
| MP3 audiobooks | No | Yes | No |

Very large PDF files open slowly, especially on the Orla 4."""


def _asked_things(question: str) -> str | None:
    m = _ASKS_ROWS.match(question)
    return m.group(1) if m else None


def test_which_things_of_a_model_column_gets_every_rows_cell(scorer: SentenceScorer) -> None:
    """A table with a row per format and a column per model: "Which file formats does the Orla 4
    support?" gets every format's Orla 4 cell in the table's order, not the two rows that scored
    first, nor the sentence naming the Orla 4 and a format that scores as high."""
    evidence = [entry("formats.md", ORLA_FORMATS)]
    text = ask("Which file formats does the Orla 4 support?", "factual", scorer, evidence)
    assert [line.split(" (")[0] for line in text.splitlines()] == [
        "- EPUB — Orla 4: Yes",
        "- PDF — Orla 4: Yes",
        "- CBZ comics — Orla 4: No",
        "- MP3 audiobooks — Orla 4: No",
    ], text
    # a question asking for things in the plural, read past a modifier; not an auxiliary or pronoun
    assert [_asked_things(q) for q in ("Which file formats …", "What is this?", "What are yours?")] == [
        "formats", None, None,
    ]  # fmt: skip
    # the rows are formats: a question asking which of another thing (audiobooks) gets its row
    text = ask("What audiobooks support does the Orla 40 have?", "factual", scorer, evidence)
    assert text.startswith("- MP3 audiobooks — Orla 40: Yes") and "EPUB" not in text, text


def test_a_row_of_a_model_named_without_a_digit_is_another_models(scorer: SentenceScorer) -> None:
    """ "Orla Kids" in the lineup beside the asked Orla 4: its row is another model's, not quoted for
    the Orla 4; asked beside the Orla 4 Plus, it is one side of the comparison, named as written."""
    lineup = ORLA_LINEUP + "\n| Orla Kids | 6 in | 16 GB | 7 weeks | 196 g | IPX7 | $119.99 |"
    evidence = [entry("compare.md", lineup)]
    text = ask("How long does the battery of the Orla 4 last?", "factual", scorer, evidence)
    assert "6 weeks" in text and "Kids" not in text, text
    text = ask("Which is heavier, the Orla 4 Plus or the Orla Kids?", "comparison", scorer, evidence)
    assert "**Orla 4 Plus**" in text and "**Orla Kids**" in text and "196 g" in text, text


def test_a_difference_of_values_whose_unit_is_in_the_column_heading(scorer: SentenceScorer) -> None:
    """A comparison table writes the unit once, in the heading ("Weight (kg)"): the values read as
    quantities, so the difference is computed, and grounding finds both in the evidence."""
    table = "# Pumps\n\n| Model | Weight (kg) | Flow (l/h) |\n|---|---|---|\n| DX-25 | 8.8 | 25 |\n| DX-20 | 6.8 | 20 |"
    evidence = [entry("pumps.md", table)]
    question = "What's the weight difference between the DX-25 and the DX-20?"
    text = ask(question, "comparison", scorer, evidence)
    assert "Difference**: 2.0 kg (DX-25: 8.8 kg − DX-20: 6.8 kg)" in text, text
    g = check(text, evidence, scorer, question)
    assert g is not None and g.score == 1.0, [(c.sentence, c.problem) for c in g.sentences]
    # which of the two is lighter: the difference with the verdict, checked by grounding too
    question = "Which one is lighter, the DX-25 or the DX-20?"
    text = ask(question, "comparison", scorer, evidence)
    assert text.splitlines()[-1].startswith(
        "- **Difference**: 2.0 kg (DX-25: 8.8 kg − DX-20: 6.8 kg); lighter: DX-20"
    )
    g = check(text, evidence, scorer, question)
    assert g is not None and g.score == 1.0, [(c.sentence, c.problem) for c in g.sentences]


KESTREL_SETUP = """# Setting up your Kestrel

## Setting up the Kestrel Mini

1. Plug in the dock and switch the Mini on.
2. In the Brisk Home app, tap Add robot and choose Kestrel Mini.
3. Wait for the Wi-Fi light to turn solid blue.

## Matter

The Kestrel 50 joins Apple Home through Matter, with a pairing code from the Brisk Home app."""


def test_the_asked_action_does_not_lift_the_steps_of_another_model_of_the_family(
    scorer: SentenceScorer,
) -> None:
    """ "Add robot" names the asked action, but under "Setting up the Kestrel Mini", a model of the
    asked Kestrel 50's family named without a digit: those steps gain nothing for the Kestrel 50."""
    evidence = [entry("help/setup.md", KESTREL_SETUP)]
    text = ask("How do I add my Kestrel 50 to Apple Home?", "procedural", scorer, evidence)
    assert "Matter" in text.split("\n")[0] and "choose Kestrel Mini" not in text, text


ORLA_MINI_PAGE = """# Orla Mini

A small reader for pockets and bags.

## Specifications

- Price: $79
- Weight: 150 g
- Screen: 5 in"""

ORLA_4_PAGE = """# Orla 4

The Orla 4 is the reader most people buy.

## Design

- Screen: 6.8 in, 300 ppi
- Height 17.4 cm; the reader weighs 182 g"""


def test_a_page_of_a_variant_named_without_a_digit_is_another_models(scorer: SentenceScorer) -> None:
    """ "Orla Mini" (the family and a variant word) is another model than the asked Orla 4: its
    page's "Weight: 150 g" is not the Orla 4's weight, even ranked first and worded as a field."""
    evidence = [
        entry("products/orla_mini.md", ORLA_MINI_PAGE, 0.82),
        entry("products/orla_4.md", ORLA_4_PAGE, 0.8),
    ]
    text = ask("How heavy is the Orla 4?", "factual", scorer, evidence)
    assert "182 g" in text and "150 g" not in text, text
    # asked for the Mini (set against the Orla 4, so it is a model), its own page answers
    text = ask("Which is lighter, the Orla Mini or the Orla 4?", "comparison", scorer, evidence)
    assert "150 g" in text and "182 g" in text, text


ORLA_PAIRING = """# Pairing your Orla

## Putting a reader in pairing mode

- Orla 4, 4 Plus and Kids: hold the power button for 5 seconds until the light blinks blue.
- Orla 40: open the cover and press the pairing key once.
- Orla Mini: hold the power and home buttons together for 3 seconds."""

ORLA_NOTES = """# Orla app release notes

## 2.6 — May 2024

- Support for the Orla Kids, with a reading timer.
- Night mode for the Orla 4 Plus and the Orla 40."""


def test_a_models_one_instruction_in_a_list_of_per_model_ones_is_the_how_to(scorer: SentenceScorer) -> None:
    """ "Orla 4, 4 Plus and Kids: hold …" is the Orla 4 Plus's instruction (the family written once);
    the other items are other models', so the how-to is that one item, not another list that only
    names the model (release notes)."""
    evidence = [entry("help/pairing.md", ORLA_PAIRING, 0.7), entry("help/notes.md", ORLA_NOTES, 0.5)]
    text = ask("How do I get an Orla 4 Plus into pairing mode?", "procedural", scorer, evidence)
    assert text.startswith("- Orla 4, 4 Plus and Kids: hold the power button"), text
    assert "Night mode" not in text and "Orla 40:" not in text and "Orla Mini:" not in text, text


def test_a_spec_list_with_a_line_without_a_key_is_no_procedure(scorer: SentenceScorer) -> None:
    """A bulleted spec list is facts even when one of its lines states a value without a key
    ("Wi-Fi 6, dual-band"): a how-to is not answered with it as numbered steps."""
    page = (
        "# Orla 40\n\n## Other specifications\n\n- Price: $249\n- Storage: 32 GB\n- Screen: 7 in\n"
        "- Wi-Fi 6, dual-band 2.4 GHz and 5 GHz\n- Colour: black only\n"
        "- Voice: reads aloud with Orla Voice (app 2.1 or later)\n"
    )
    d = extractive_answer(
        "How do I make my Orla 40 read aloud?",
        [entry("orla40.md", page)],
        scorer,
        REFUSAL,
        0.25,
        "procedural",
    )
    assert "1." not in d.text and "- Voice: reads aloud with Orla Voice" in d.text, d.text


VEXA_CALIBRATION = """# Priming and flow calibration

## First start-up priming (all models)

1. Fill the supply tank and keep the foot valve 5 cm above the bottom.
2. Set the stroke length to 100 % (not applicable to the Vexa Mini) and the stroke rate to 100 %.
3. Run the pump until liquid reaches the discharge line.

## Flow calibration

### Vexa Mini

The Vexa Mini cannot be calibrated. Its flow is set by the knob only; use the chart on its label."""


def test_prose_of_a_sibling_section_saying_more_of_the_question_beats_a_list(scorer: SentenceScorer) -> None:
    """ "How do I calibrate the flow on a Vexa Mini?": the section "Flow calibration › Vexa Mini" says
    it cannot be; the priming steps only share the page's title with the question's words, which
    does not count for either of two sibling sections."""
    evidence = [entry("support/calibration.md", VEXA_CALIBRATION)]
    text = ask("How do I calibrate the flow on a Vexa Mini?", "procedural", scorer, evidence)
    assert text.startswith("The Vexa Mini cannot be calibrated"), text


def test_a_short_bulleted_list_of_steps_with_keys_is_a_procedure(scorer: SentenceScorer) -> None:
    """ "- Empty the bin: lift the lid" reads like a field, but two such items and a plain step are
    steps: a list of fewer than five items is a spec list only when every item is a field."""
    page = (
        "# Orla 40 care\n\n## Cleaning the Orla 40\n\n- Empty the bin: lift the lid and tip it out.\n"
        "- Clean the brush: rinse it under warm water.\n- Let it dry for a day before refitting it.\n"
    )
    d = extractive_answer(
        "How do I clean my Orla 40?", [entry("care.md", page)], scorer, REFUSAL, 0.25, "procedural"
    )
    assert "1. Empty the bin" in d.text and "3. Let it dry" in d.text, d.text


def test_a_name_no_passage_of_the_store_holds_is_refused(scorer: SentenceScorer) -> None:
    """ "Is the Orla 40 better than a Kobo Clara?": the store names no Kobo, so the reader's own
    facts are no answer, though the question also names a product the store holds."""
    page = "# Orla 40\n\n## Battery\n\nThe battery lasts up to eight weeks of reading on one charge."
    evidence = [entry("orla-40.md", page)]
    counts = (20, {"orla": 6, "40": 3, "better": 2, "kobo": 0, "clara": 0, "battery": 4, "last": 5})
    d = extractive_answer("Does the Orla 40 battery last longer than a Kobo Clara?", evidence, scorer,
                          REFUSAL, 0.25, counts=counts)  # fmt: skip
    assert d.refused and d.reason == "no passage of the store holds “Kobo Clara”", d
    # the same question of a store that holds the name is answered from the evidence
    held = (20, counts[1] | {"kobo": 1, "clara": 1})
    d = extractive_answer("Does the Orla 40 battery last longer than a Kobo Clara?", evidence, scorer,
                          REFUSAL, 0.25, counts=held)  # fmt: skip
    assert not d.refused and "eight weeks" in d.text, d


def test_a_section_comparing_a_page_with_another_model_is_the_pages_model(scorer: SentenceScorer) -> None:
    """Found on a label-printer corpus: "Can the Nib 3 print on 24 mm tape?" quoted the Nib 3 Plus
    page's "Differences from the Nib 3 — Tape: accepts 24 mm T24 cassettes". The model a heading
    compares against is no subject: its items are the page's model's."""
    plus = (
        "# Nib 3 Plus\n\nThe Nib 3 Plus is the bigger handheld.\n\n## Differences from the Nib 3\n\n"
        "- Tape: accepts 24 mm T24 cassettes in addition to T12 and T18\n- Weight: 45 g heavier\n"
    )
    three = "# Nib 3\n\nThe Nib 3 is the everyday handheld.\n\n## Specifications\n\n- Tape: T12 and T18 cassettes, 18 mm wide at most\n- Weight: 410 g\n"
    evidence = [entry("nib-3-plus.md", plus, 0.8), entry("nib-3.md", three, 0.7)]
    text = ask("What is the weight of the Nib 3?", "factual", scorer, evidence)
    assert "410 g" in text and "45 g" not in text, text
    text = ask("Which tape cassettes fit the Nib 3?", "factual", scorer, evidence)
    assert "T12 and T18 cassettes, 18 mm" in text and "T24" not in text, text
    # asked of the Nib 3 Plus, its own differences answer, a figure measured against the Nib 3 too
    assert "45 g heavier" in ask("How heavy is the Nib 3 Plus?", "factual", scorer, evidence[:1])
    faster = plus + "- Print speed: 25 mm/s, 5 mm/s faster than the Nib 3\n"
    assert "25 mm/s" in ask(
        "How fast does the Nib 3 Plus print?", "factual", scorer, [entry("nib-3-plus.md", faster)]
    )
    # …and of the Nib 3, a list led in by "Compared with the Nib 3:" is still the Nib 3 Plus's
    led = "# Nib 3 Plus\n\nCompared with the Nib 3:\n\n- Print speed: 25 mm/s, 5 mm/s faster than the Nib 3\n- Tape: up to 24 mm\n"
    d = extractive_answer(
        "How fast does the Nib 3 print?", [entry("nib-3-plus.md", led)], scorer, REFUSAL, 0.25
    )
    assert "25 mm/s" not in d.text, d.text


def test_a_page_titled_by_a_model_without_a_digit_comparing_itself_with_a_sibling_is_its_own(
    scorer: SentenceScorer,
) -> None:
    """Found on a vacuum corpus: "How strong is the suction on the plain Kestrel 5?" quoted the
    Kestrel Pet sheet's "What is different from the Kestrel 5 — Suction raised to 3,000 Pa"."""
    pet = "# KESTREL PET - PRODUCT SHEET\n\nWHAT IS DIFFERENT FROM THE KESTREL 5\n\n- Suction raised to 3,000 Pa\n- Rubber roller\n"
    five = "# Kestrel 5\n\n## Specifications\n\n- Suction: 2,700 Pa\n- Runtime: 120 min\n"
    evidence = [entry("kestrel_pet.txt", pet, 0.8), entry("kestrel_5.md", five, 0.7)]
    text = ask("How strong is the suction on the Kestrel 5?", "factual", scorer, evidence)
    assert "2,700 Pa" in text and "3,000 Pa" not in text, text


def test_a_model_the_question_writes_in_lower_case_is_asked(scorer: SentenceScorer) -> None:
    """ "how heavy is the nib 30" names the Nib 30 the documents name: its sibling's value is not its."""
    table = "# Compare\n\n| Spec | Nib 3 | Nib 30 |\n|---|---|---|\n| Weight | 410 g | 1.2 kg |\n| Price | $79 | $149 |"
    text = ask("how heavy is the nib 30", "factual", scorer, [entry("compare.md", table)])
    assert "1.2 kg" in text and "410 g" not in text, text


def test_a_measure_asked_in_a_compound_is_not_missing_its_head_word(scorer: SentenceScorer) -> None:
    """Found on a vacuum corpus: "What's the suction power on the Kestrel 5 Plus?" was refused, no
    passage about it mentioning "power"; its spec row states the suction in Pa."""
    page = "# Kestrel 5 Plus\n\n## Specifications\n\n- Suction: 3,000 Pa\n- Runtime: 110 min\n- Price: $499\n"
    counts = (30, {"suction": 4, "power": 6, "kestrel": 20, "5": 10, "plus": 5, "runtime": 4, "motor": 3})
    d = extractive_answer("What's the suction power on the Kestrel 5 Plus?", [entry("k5plus.md", page)], scorer,
                          REFUSAL, 0.25, counts=counts)  # fmt: skip
    assert not d.refused and "3,000 Pa" in d.text, d
    # a power the page does not state in watts is still missing ("motor power": no measure word)
    d = extractive_answer("What's the motor power of the Kestrel 5 Plus?", [entry("k5plus.md", page)], scorer,
                          REFUSAL, 0.25, counts=counts)  # fmt: skip
    assert d.refused, d


KESTREL_SCOUT = """# Kestrel Scout

The Scout is the folding drone of the Kestrel range, made for hikers.

## Specifications

- Flight time: 22 minutes
- Weight: 0.9 kg"""

SCOUT_LINEUP = """# Kestrel drones compared

| Feature | Kestrel K5 | Kestrel K7 | Kestrel Scout |
|---|---|---|---|
| Flight time | 28 minutes | 41 minutes | 22 minutes |
| Weight | 1.9 kg | 2.6 kg | 0.9 kg |"""


def test_a_model_named_without_a_digit_is_asked_when_the_documents_give_it_as_one(
    scorer: SentenceScorer,
) -> None:
    # "Kestrel Scout" has no digit and no variant word: a model because a page is titled by it
    # and the lineup's column heads it beside the K5 and K7 of its family
    page = [entry("drones/k5.md", K5, 0.82), entry("drones/scout.md", KESTREL_SCOUT, 0.7)]
    text = ask("How much does the Kestrel Scout weigh?", "factual", scorer, page)
    assert "0.9 kg" in text and "1.9 kg" not in text
    lineup = [entry("drones/compare.md", SCOUT_LINEUP, 0.8)]
    text = ask("What is the flight time of the Kestrel Scout?", "factual", scorer, lineup)
    assert "22 minutes" in text and "28 minutes" not in text and "41 minutes" not in text
    # the siblings' lines of a page injected beside the Scout's are not the Scout's
    both = [*page, entry("drones/k7.md", K7, 0.6)]
    text = ask("What is the flight time of the Kestrel Scout?", "factual", scorer, both)
    assert "22 minutes" in text and "28 minutes" not in text and "41 minutes" not in text
    # a lineup's column headed by it is that side of a comparison, with the difference computed
    d = extractive_answer(
        "Which is lighter, the Kestrel Scout or the Kestrel K5?", lineup, scorer, REFUSAL, 0.25, "comparison"
    )
    assert "**Kestrel Scout**: Weight 0.9 kg" in d.text and "lighter: Kestrel Scout" in d.text, d.text
    # a name the documents write only in passing is no model: "Kestrel Care" is read as before
    care = entry("plans/care.md", "# Care plans\n\nKestrel Care covers the K5 and the K7 for two years.")
    ev = score_units("What does Kestrel Care cover?", [care, *EVIDENCE[:2]], scorer)
    assert ev.wanted == frozenset()


def test_an_attribute_no_passage_about_a_model_named_without_a_digit_states_is_missing(
    scorer: SentenceScorer,
) -> None:
    """Found on an e-bike corpus: "What is the IP rating of the Vela Mini?" quoted the Mini's weight,
    price and type rows; the missing attribute was read only of models named with a digit."""
    page = [entry("drones/scout.md", KESTREL_SCOUT, 0.7), entry("drones/compare.md", SCOUT_LINEUP, 0.6)]
    counts = (30, {"ip": 2, "rating": 2, "kestrel": 20, "scout": 5, "flight": 4, "time": 10, "weight": 6})
    d = extractive_answer(
        "What is the IP rating of the Kestrel Scout?", page, scorer, REFUSAL, 0.25, counts=counts
    )
    assert d.refused and "no injected passage about the Kestrel Scout mentions" in d.reason, d
    d = extractive_answer(
        "What is the flight time of the Kestrel Scout?", page, scorer, REFUSAL, 0.25, counts=counts
    )
    assert not d.refused and "22 minutes" in d.text, d


def test_a_condition_a_quantity_or_a_reworded_verb_is_not_the_missing_attribute(
    scorer: SentenceScorer,
) -> None:
    """Found on the review corpora: "What's the range of the Vela Cargo with two batteries?" was
    missing "two", "How far does the Kestrel Pro raise its mop when it goes onto a rug?" "goes" and
    "raise" (its page: "lifts its mop plate by 5 mm")."""
    page = (
        "# Kestrel K5\n\n## Mopping\n\nOn carpet the K5 lifts its mop plate by 5 mm.\n\n"
        "## Battery\n\n- Flight time: 28 minutes, or 50 minutes with the second battery\n"
    )
    counts = (30, {"raise": 1, "mop": 4, "goes": 1, "rug": 2, "far": 3, "two": 1, "batteries": 10,
                   "flight": 10, "time": 20, "kestrel": 20, "k5": 9})  # fmt: skip
    for question, value in (
        ("How far does the K5 raise its mop when it goes onto a rug?", "5 mm"),
        ("What is the flight time of the K5 with two batteries?", "50 minutes"),
    ):
        d = extractive_answer(question, [entry("k5.md", page)], scorer, REFUSAL, 0.25, counts=counts)
        assert not d.refused and value in d.text, (question, d)
    # a word the page does not hold and no value answers is still missing
    d = extractive_answer("What is the rug height limit of the K5?", [entry("k5.md", page)], scorer, REFUSAL,
                          0.25, counts=(30, counts[1] | {"height": 2, "limit": 2}))  # fmt: skip
    assert d.refused, d
    # a noun the unit does not hold is no verb said another way ("Charging the K5 takes 2 hours")
    charging = "# Kestrel K5\n\n## Battery\n\nCharging the K5 takes 2 hours.\n"
    d = extractive_answer("How long is the charging cable of the K5?", [entry("k5.md", charging)], scorer, REFUSAL,
                          0.25, counts=(30, counts[1] | {"charging": 5, "cable": 2}))  # fmt: skip
    assert d.refused and "“cable”" in d.reason, d


def test_a_list_items_lead_in_and_a_recharge_hold_the_attribute(scorer: SentenceScorer) -> None:
    """A plain-text table's caption is its items' lead-in ("Replacement intervals:", ingest's
    plain_text): "What's the diaphragm replacement interval for the DX-20 Pro?" was refused for
    "interval"; "What's the recharge time for the Kestrel Pro?" for "recharge" ("Charging time")."""
    page = "# Service\n\nReplacement intervals:\n\n- K5: 8,000 h; kit DK-5\n- K7: 10,000 h; kit DK-7\n"
    counts = (
        30,
        {"diaphragm": 3, "replacement": 2, "interval": 2, "k7": 9, "recharge": 1, "charging": 4, "time": 6},
    )
    d = extractive_answer("What's the replacement interval for the K7?", [entry("service.txt", page)], scorer,
                          REFUSAL, 0.25, counts=counts)  # fmt: skip
    assert not d.refused and "10,000 h" in d.text, d
    spec = "# Kestrel K7\n\n## Specifications\n\n- Charging time: 4.5 hours\n- Weight: 3 kg\n"
    d = extractive_answer("What's the recharge time for the K7?", [entry("k7.md", spec)], scorer, REFUSAL, 0.25,
                          counts=counts)  # fmt: skip
    assert not d.refused and "4.5 hours" in d.text, d
