"""CONTEXTLENS_MISSING_CONTEXT = refuse | related through the real pipeline, offline (extractive)
and against the OpenAI-protocol test server: the refusal decision is the same in both modes, only
the answer text differs; a strict refusal records the prompt tokens it did not send."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from apps.replay import replay
from core.answer.related import NOTHING_RELATED, RELATED_SENTENCE
from core.prompt.templates import RELATED_INSTRUCTION
from core.trace import find_trace
from tests.support.fake_openai import fake_openai_server
from tests.support.stores import ROOT, make_pipeline, resources_for

WEAK = "What is the CEO's email address?"  # refused by the rule; the evidence holds related units
UNRELATED = "Who discovered penicillin?"  # refused; nothing in the evidence shares its words
IN_SCOPE = "What is the rated payload of the ArmX3?"
BULLET = re.compile(r"^- .+ \(([^()]+\.(?:md|html|txt|pdf))\)\.$")


def pipelines(settings, backend: object = None):  # noqa: ANN001, ANN201
    return (
        make_pipeline(settings.updated(missing_context="refuse"), backend),
        make_pipeline(settings.updated(missing_context="related"), backend),
    )


def test_refuse_mode_is_the_exact_sentence_and_records_tokens_saved(sample_store) -> None:  # noqa: ANN001
    refuse, _ = pipelines(sample_store)
    a = refuse.ask(WEAK, record=False)
    t = a.trace
    assert a.refused and a.text == "I don't know." and not a.citations
    assert t["missing_context"] == "refuse" and t["related"] is False and not t["llm_called"]
    assert t["tokens_saved"] == t["prompt_tokens"] > 0  # the built prompt, never sent
    answered = refuse.ask(IN_SCOPE, record=False).trace
    assert not answered["refused"] and answered["tokens_saved"] == 0


def test_related_mode_keeps_the_decision_and_shows_cited_related_units(sample_store) -> None:  # noqa: ANN001
    refuse, related = pipelines(sample_store)
    strict, r = refuse.ask(WEAK, record=False), related.ask(WEAK, record=False)
    t = r.trace
    assert r.refused and t["refusal_reason"] == strict.trace["refusal_reason"] != ""
    assert t["decision"] == strict.trace["decision"]
    assert t["missing_context"] == "related" and t["related"] is True
    assert t["tokens_saved"] == 0 and not t["llm_called"] and t["grounding"] is None
    head, body = r.text.split("\n\n", 1)
    assert head == RELATED_SENTENCE
    lines = body.splitlines()
    assert 1 <= len(lines) <= 3
    injected = {e.injected_text for e in r.context.included}
    for line in lines:
        m = BULLET.match(line)
        assert m, line
        unit = line[2 : line.rindex(" (")]
        assert any(unit in text for text in injected), unit  # verbatim from the evidence
    assert [c["label"] for c in r.citations] == list(dict.fromkeys(BULLET.match(x)[1] for x in lines))
    assert all(c["injected"] and c["chunk_id"] for c in r.citations)


def test_related_mode_says_when_nothing_is_related(sample_store) -> None:  # noqa: ANN001
    _, related = pipelines(sample_store)
    a = related.ask(UNRELATED, record=False)
    assert a.refused and a.text == NOTHING_RELATED and not a.citations
    assert a.trace["related"] is True and a.refusal_reason.startswith("top score")


def test_answered_questions_do_not_depend_on_the_mode(sample_store) -> None:  # noqa: ANN001
    refuse, related = pipelines(sample_store)
    a, b = refuse.ask(IN_SCOPE, record=False), related.ask(IN_SCOPE, record=False)
    assert not a.refused and not b.refused and a.text == b.text and b.trace["related"] is False


def _llm(settings, url):  # noqa: ANN001, ANN202
    s = settings.model_copy(update={"llm_base_url": url, "llm_timeout": 1.0, "llm_max_retries": 0})
    return pipelines(s, "auto")


def test_related_mode_asks_the_llm_with_the_instruction_and_the_weak_evidence(sample_store) -> None:  # noqa: ANN001
    reply = f"{RELATED_SENTENCE} Northwind uses an email delivery service (policies/data-privacy.html)."
    with fake_openai_server(reply=reply) as server:
        refuse, related = _llm(sample_store, server.base_url)
        strict = refuse.ask(WEAK, record=False)
        assert strict.refused and not server.chat_requests  # refuse mode: no call at all
        assert strict.trace["tokens_saved"] == strict.trace["prompt_tokens"]
        a = related.ask(WEAK, record=False)
        [sent] = server.chat_requests
    t = a.trace
    assert a.text == reply and a.refused and t["llm_called"] and not a.fallback
    assert t["refusal_reason"] == strict.trace["refusal_reason"] and t["related"] is True
    assert t["tokens_saved"] == 0  # the prompt was sent
    system = sent.messages[0]["content"]
    assert f"reply exactly: {RELATED_SENTENCE}" in system and system.endswith(RELATED_INSTRUCTION)
    assert "I don't know." not in system
    knowledge = sent.messages[t["message_sections"].index("knowledge")]["content"]
    assert knowledge.startswith("[Retrieved Knowledge]") and "policies/data-privacy.html" in knowledge
    assert sent.messages == t["messages"]
    assert [c["label"] for c in a.citations] == ["policies/data-privacy.html"]


def test_related_mode_with_a_failing_llm_falls_back_to_the_offline_related_answer(sample_store) -> None:  # noqa: ANN001
    with fake_openai_server(behaviour="500") as server:
        _, related = _llm(sample_store, server.base_url)
        a = related.ask(WEAK, record=False)
    assert a.fallback and a.refused and a.trace["related"] and a.text.startswith(RELATED_SENTENCE + "\n\n- ")


def test_an_llm_that_finds_nothing_in_related_mode_is_a_related_refusal(sample_store) -> None:  # noqa: ANN001
    reply = f"{RELATED_SENTENCE}\n- The ArmX3 is rated for 12 kg (products/arm-x3.md)."
    with fake_openai_server(reply=reply) as server:
        refuse, related = _llm(sample_store, server.base_url)
        a = related.ask(IN_SCOPE, record=False)  # the rule lets it through; the model says not found
        b = refuse.ask(IN_SCOPE, record=False)  # refuse mode does not read the related clause
    assert a.refused and a.trace["related"] and a.refusal_reason == "the model said the sources do not contain it"
    assert a.trace["decision"]["refused"] is False and a.trace["tokens_saved"] == 0
    assert not b.refused and not b.trace["related"]


def test_replay_switches_the_mode_and_old_traces_replay_as_refuse(sample_copy) -> None:  # noqa: ANN001
    a = make_pipeline(sample_copy, backend=None).ask(WEAK)
    trace = find_trace(sample_copy.trace_path, a.trace["id"])
    assert trace is not None and trace["settings"]["missing_context"] == "refuse"
    cmp = replay(sample_copy, resources_for(sample_copy), trace, {"missing_context": "related"})
    assert cmp.before["answer"] == "I don't know." and cmp.after["answer"].startswith(RELATED_SENTENCE)
    assert cmp.after["refused"] and cmp.after["refusal_reason"] == cmp.before["refusal_reason"]
    rows = {k: (b, x) for k, b, x in cmp.rows()}
    assert rows["missing_context"] == ("refuse", "related") and rows["tokens_saved"][1] == 0
    # a version-3 trace (no mode recorded) replays as it ran, even where the settings say related
    old = {**trace, "settings": {k: v for k, v in trace["settings"].items() if k != "missing_context"}}
    again = replay(sample_copy.updated(missing_context="related"), resources_for(sample_copy), old, {})
    assert again.after["answer"] == "I don't know." and again.after["missing_context"] == "refuse"


@pytest.mark.slow
def test_cli_missing_context_flag_on_ask_and_replay(sample_copy, tmp_path: Path) -> None:  # noqa: ANN001
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
        "CONTEXTLENS_STORE_PATH": str(sample_copy.store_path),
        "CONTEXTLENS_TRACE_PATH": str(sample_copy.trace_path),
    }  # fmt: skip
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "apps.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    strict = run("ask", WEAK, "--json")
    assert strict.returncode == 0, strict.stderr
    rec = json.loads(strict.stdout.strip().splitlines()[-1])
    assert rec["answer"] == "I don't know." and rec["tokens_saved"] == rec["prompt_tokens"]
    assert f"{rec['tokens_saved']} prompt tokens not sent" in strict.stdout
    rel = run("ask", WEAK, "--missing-context", "related", "--json")
    assert rel.returncode == 0, rel.stderr
    rec = json.loads(rel.stdout.strip().splitlines()[-1])
    assert rec["refused"] and rec["related"] and rec["answer"].startswith(RELATED_SENTENCE)
    assert "REFUSED (" in rel.stdout and "related sources shown" in rel.stdout
    rp = run("replay", rec["id"], "--missing-context", "refuse", "--json")
    assert rp.returncode == 0, rp.stderr
    both = json.loads(rp.stdout.strip().splitlines()[-1])
    assert both["after"]["answer"] == "I don't know." and both["after"]["refused"]
    bad = run("ask", WEAK, "--missing-context", "maybe")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
