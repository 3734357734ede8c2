"""Conversation memory: history budget, snippets of older turns, follow-up rewriting."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.context.memory import fit_history
from core.query.rewrite import is_follow_up, resolve_offline, rewrite_offline
from core.types import Turn
from tests.support.stores import make_pipeline

turn_text = st.text(alphabet="abcdefghij klmnop.", min_size=1, max_size=300)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(turn_text, turn_text), max_size=10), budget=st.integers(0, 600))
def test_history_budget_never_exceeded(resources, turns, budget) -> None:  # noqa: ANN001
    history = [Turn(q, a) for q, a in turns]
    msgs, left_out = fit_history(history, budget, resources.counter)
    used = sum(resources.counter.count(c) + 4 for _, c in msgs)
    assert used <= budget
    assert len(msgs) == 2 * (len(history) - left_out)
    # the kept turns are the most recent ones, in order
    kept = [Turn(msgs[i][1], msgs[i + 1][1]) for i in range(0, len(msgs), 2)]
    assert [(t.question, t.answer) for t in kept] == [(t.question, t.answer) for t in history[left_out:]]


def test_offline_rewrite_carries_entities() -> None:
    turns = [Turn("What is the maximum payload of the Gripper G5?", "5 kg.")]
    assert is_follow_up("How much does it cost?")
    out = rewrite_offline("How much does it cost?", turns)
    assert "Gripper" in out and "G5" in out
    assert rewrite_offline("What is the reach of the ArmX3?", turns) == "What is the reach of the ArmX3?"


def test_offline_resolution_puts_the_previous_questions_one_name_in_place() -> None:
    about = [Turn("Tell me about the ArmX2.", "…")]
    assert resolve_offline("What is its battery capacity?", about) == "What is the ArmX2's battery capacity?"
    assert resolve_offline("How much does it weigh?", about) == "How much does the ArmX2 weigh?"
    assert resolve_offline("It weighs how much?", about) == "The ArmX2 weighs how much?"
    # "its" after a question asking a value of the thing: the thing's
    g5 = [Turn("What is the IP rating of the Gripper G5?", "IP54.")]
    assert resolve_offline("What is its weight?", g5) == "What is the Gripper G5's weight?"
    # a follow-up naming only another thing asks the previous question of it
    x3 = [Turn("What is the payload of the ArmX3?", "12 kg.")]
    assert resolve_offline("And the ArmX2?", x3) == "What is the payload of the ArmX2?"
    assert resolve_offline("What about the Rover M1 too?", x3) == "What is the payload of the Rover M1?"
    e104 = [Turn("What does error E-104 mean?", "Joint overcurrent.")]
    assert resolve_offline("And E-211?", e104) == "What does error E-211 mean?"
    # not resolved (the key terms are added instead): a bare "it" after a question about something
    # of the thing (the warranty, not the arm), an impersonal "it", "it's", the acronym "IT", "its"
    # after a question relating the thing to another ("What gripper fits …"), a "which" question's
    # name, two names, a follow-up saying more than a name, a question that is no follow-up
    warranty = [Turn("What is the warranty on the ArmX2?", "24 months.")]
    assert resolve_offline("How long is it?", warranty) == ""
    assert resolve_offline("Is it possible to return an arm?", about) == ""
    assert resolve_offline("How long does it take?", about) == ""
    assert resolve_offline("It's heavy, right?", about) == ""
    assert resolve_offline("Does IT need to approve the purchase?", about) == ""
    assert resolve_offline("What is its weight?", [Turn("What gripper fits the ArmX3?", "The G5.")]) == ""
    assert resolve_offline("What is its reach?", [Turn("Which arm has an IP66 rating?", "ArmX3.")]) == ""
    assert resolve_offline("How much does it weigh?", [Turn("Compare the ArmX2 and the ArmX3.", "…")]) == ""
    assert resolve_offline("And with the Gripper G5?", x3) == ""
    assert resolve_offline("And the ArmX2's reach?", x3) == ""
    assert resolve_offline("What is the reach of the ArmX2?", x3) == ""
    assert resolve_offline("How much does it cost?", []) == ""


def test_a_resolved_follow_up_is_answered_about_the_thing_it_means(pipe) -> None:  # noqa: ANN001
    history = [Turn("What is the payload of the ArmX3?", "12 kg", "What is the payload of the ArmX3?")]
    a = pipe.ask("And the ArmX2?", history, record=False)
    assert a.trace["rewrite_method"] == "resolved" and "5 kg" in a.text and "12 kg" not in a.text
    # the answer reads the resolved question: the ArmX2's pages never give a battery capacity, and the
    # Rover M1's (which names the ArmX2 it carries) is not its answer
    history = [Turn("Tell me about the ArmX2.", "…", "Tell me about the ArmX2.")]
    a = pipe.ask("What is its battery capacity?", history, record=False)
    assert a.refused and "ArmX2" in a.refusal_reason and "1.9 kWh" not in a.text


@pytest.fixture(scope="module")
def pipe(sample_store):  # noqa: ANN001, ANN201
    return make_pipeline(sample_store, backend=None)


def test_three_turn_conversation_follow_up_resolves_only_with_memory(pipe) -> None:  # noqa: ANN001
    history: list[Turn] = []
    questions = ["Which arm has an IP66 rating?", "What is its reach?", "And how much does it weigh?"]
    traces = []
    for q in questions:
        a = pipe.ask(q, history, record=False)
        traces.append(a.trace)
        history.append(Turn(q, a.text, a.trace["rewritten_query"]))
    follow = traces[1]
    assert follow["rewrite_method"] == "offline" and "IP66" in follow["rewritten_query"]
    top = [c["source"] for c in follow["chunks"][:2]]
    assert "products/arm-x3.md" in top
    assert follow["history_turns_included"] == 1 and follow["sections"]["history"] > 0
    # without the conversation the same words do not find the arm page first
    alone = pipe.ask("What is its reach?", record=False).trace
    assert alone["chunks"][0]["source"] != "products/arm-x3.md" or alone["refused"]
    assert traces[2]["history_turns_included"] == 2


def test_old_turns_become_memory_snippets_when_history_is_small(sample_store) -> None:  # noqa: ANN001
    s = sample_store.model_copy(update={"history_budget": 60, "memory_budget": 300})
    p = make_pipeline(s, backend=None)
    history = [
        Turn("What is the Rover M1 battery runtime?", "The Rover M1 runs about 8 hours per charge."),
        Turn("Tell me about the cafeteria.", "I don't know."),
        Turn("Tell me about parking.", "I don't know."),
    ]
    t = p.ask("How long does the Rover M1 battery last?", history, record=False).trace
    assert t["history_turns_included"] < 3
    assert t["sections"]["history"] <= 60
    assert any("Rover M1" in snip for snip in t["memory_snippets"])
    sections = t["message_sections"]
    assert sections.index("memory") < sections.index("user")
    if "history" in sections:
        assert sections.index("memory") < sections.index("history")
