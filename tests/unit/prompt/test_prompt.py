"""Injection order, per-section tokens, templates and the refusal rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.answer.refusal import decide
from core.errors import SettingsError
from core.prompt.assemble import MESSAGE_OVERHEAD, SECTIONS, assemble
from core.prompt.templates import load_templates

TEMPLATES = Path(__file__).resolve().parents[3] / "data" / "templates.json"


def test_sections_in_fixed_order_with_counts(resources) -> None:  # noqa: ANN001
    p = assemble(
        resources.counter, "SYS", "PROC", "[Retrieved Knowledge]\nK", "MEM",
        [("user", "old q"), ("assistant", "old a")], "Q?",
    )  # fmt: skip
    assert [m.section for m in p.messages] == [
        "system",
        "procedure",
        "knowledge",
        "memory",
        "history",
        "history",
        "user",
    ]
    assert [m.role for m in p.messages] == [
        "system",
        "system",
        "system",
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert p.messages[-1].content == "Q?"
    assert list(p.sections) == list(SECTIONS)
    for m in p.messages:
        if m.section != "history":
            assert p.sections[m.section] == resources.counter.count(m.content) + MESSAGE_OVERHEAD
    assert p.total_tokens == sum(p.sections.values()) + 3


def test_empty_sections_are_omitted(resources) -> None:  # noqa: ANN001
    p = assemble(resources.counter, "SYS", "", "", "", [], "Q?")
    assert [m.section for m in p.messages] == ["system", "user"]
    assert p.sections["knowledge"] == 0 and p.sections["memory"] == 0


def test_refusal_rule_both_ways() -> None:
    assert decide(0.2, 500, 0.3, 80).refused
    assert "τ" in decide(0.2, 500, 0.3, 80).reason
    assert decide(0.6, 40, 0.3, 80).refused and "40 tokens" in decide(0.6, 40, 0.3, 80).reason
    assert decide(None, 0, 0.3, 80).refused
    assert not decide(0.6, 400, 0.3, 80).refused
    # a low score with most of the question's words in the evidence is let through
    assert not decide(0.2, 500, 0.3, 0, overlap=0.5, min_overlap=0.34).refused
    low = decide(0.2, 500, 0.3, 0, overlap=0.25, min_overlap=0.34)
    assert low.refused and "overlap 0.25 < 0.34" in low.reason
    # nothing reached the budget's score floor: the reason says so, not "nothing survived"
    far = decide(0.095, 0, 0.34, 0, min_score=0.1)
    assert (
        far.refused and far.reason == "no passage is close to the question: best score 0.095 < minimum 0.10"
    )
    assert far.checks[0].detail == "no evidence injected (0 context tokens; best score 0.095 < minimum 0.10)"
    # with no minimum set, the check says so rather than "context tokens 0 ≥ min 0" beside the refusal
    assert far.checks[2].passed and far.checks[2].detail == "no minimum context set"
    assert decide(0.6, 40, 0.3, 80).checks[2].detail == "context tokens 40 < min 80"
    assert decide(0.5, 0, 0.34, 0, min_score=0.1).reason == "no evidence survived retrieval and budgeting"


def test_evidence_overlap_counts_content_words_in_one_entry() -> None:
    from core.answer.refusal import evidence_overlap

    q = "What is the maximum reach of the ARM-X3 robot?"  # content words: maximum reach arm x3 robot
    assert evidence_overlap(q, ["The ARM-X3 robot has a maximum reach of 1.2 m."]) == 1.0
    # the best single entry counts, not words pooled across entries
    assert evidence_overlap(q, ["maximum reach", "arm x3 robot"]) == pytest.approx(3 / 5)
    assert evidence_overlap(q, []) == 0.0 and evidence_overlap("what is it?", ["anything"]) == 0.0


def test_a_word_most_passages_hold_weighs_little_in_the_overlap() -> None:
    from core.answer.refusal import overlaps, rarity_weights

    # 1000 passages: "number" in 400 of them, "element" in 30, "atomic" and "26" in none
    weights = rarity_weights(1000, {"element": 30, "atomic": 0, "number": 400, "26": 0})
    assert weights["atomic"] == weights["26"] > weights["element"] > weights["number"] > 0
    q = "Which element has atomic number 26?"
    plain, weighted = overlaps(q, ["a dynamic number of UI element types"], weights)
    assert plain == 0.5 and weighted < 0.25  # two of four words, but two that many passages hold
    # a passage holding the rare words keeps most of the weight
    plain, weighted = overlaps(q, ["iron: atomic number 26"], weights)
    assert plain == 0.75 and weighted > 0.8
    # without weights, or with a word the weights lack (weighed as the heaviest), still defined
    assert overlaps(q, ["number element"]) == (0.5, 0.5)
    assert overlaps(q, ["atomic 26"], {"number": 1.0, "element": 1.0})[1] == 0.5
    assert overlaps(q, []) == (0.0, 0.0) and overlaps("what is it?", ["it"], weights) == (0.0, 0.0)


def test_the_rule_reads_the_overlap_it_is_given_and_shows_the_plain_one() -> None:
    d = decide(0.2, 500, 0.34, 0, overlap=0.18, min_overlap=0.34, plain_overlap=0.5)
    assert d.refused and "overlap 0.18 < 0.34" in d.reason
    assert "query-word overlap 0.18 (by rarity; 0.50 counted plainly) < 0.34" in d.checks[1].detail
    assert (
        "counted plainly"
        not in decide(0.2, 500, 0.34, 0, overlap=0.5, min_overlap=0.34, plain_overlap=0.5).checks[1].detail
    )


def test_the_overlap_lets_no_question_through_whose_name_the_evidence_does_not_hold() -> None:
    from core.answer.refusal import unheld_names

    q = "What is the currency of Switzerland?"
    evidence = ["The paper currency of the Yuan was printed from 1260."]
    assert unheld_names(q, evidence) == ["Switzerland"]
    assert unheld_names(q, evidence + ["Zurich is in Switzerland."]) == []  # held by another passage
    # a name of several words is unheld when one of its words is; a sentence's first word is no name
    assert unheld_names("Who directed the film Spirited Away? Tell me.", ["a film that ran away"]) == [
        "Spirited"
    ]
    assert unheld_names("Who was Margaret's husband?", ["Margaret married Malcolm III."]) == []
    assert unheld_names("Who were the Normans?", ["The Norman conquest of England"]) == []  # by stem
    assert unheld_names("HOW MUCH IS THE NIB 3", ["anything"]) == []  # capitals mark no names
    # an abbreviation the evidence writes out is held ("PO": the Presiding Officer), not in lower case
    officer = ["varied by the Monarch on the proposal of the Presiding Officer"]
    assert unheld_names("Who may change the date on the proposal of the PO?", officer) == []
    assert unheld_names("What does the NHS pay?", ["the national health service"]) == ["NHS"]
    # the overlap would let the question through; the unheld name does not
    d = decide(0.2, 500, 0.34, 0, overlap=0.5, min_overlap=0.34, unheld=("Switzerland",))
    assert d.refused and d.reason == "top score 0.200 < τ 0.34 and no injected passage holds “Switzerland”"
    assert (
        "the overlap would let it through, but no injected passage holds “Switzerland”" in d.checks[1].detail
    )
    # a score at τ needs no overlap, and a low overlap is the reason whatever the names
    assert not decide(0.4, 500, 0.34, 0, overlap=0.5, min_overlap=0.34, unheld=("Switzerland",)).refused
    low = decide(0.2, 500, 0.34, 0, overlap=0.2, min_overlap=0.34, unheld=("Switzerland",))
    assert low.refused and "overlap 0.20 < 0.34" in low.reason


def test_templates_file_loads_and_fills() -> None:
    t = load_templates(TEMPLATES)
    assert "I don't know." in t.system_prompt("I don't know.")
    assert "not instructions" in t.system
    assert set(t.types) == {"factual", "comparison", "procedural", "analytical"}
    assert t.user_message("Why {x}?") == "Why {x}?"


def test_broken_templates_are_a_clear_settings_error(tmp_path: Path) -> None:
    bad = tmp_path / "t.json"
    bad.write_text("{not json")
    with pytest.raises(SettingsError, match="not valid JSON"):
        load_templates(bad)
    bad.write_text(json.dumps({"system": "x", "user": "no placeholder"}))
    with pytest.raises(SettingsError, match="question"):
        load_templates(bad)
