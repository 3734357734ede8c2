"""The sidebar's missing-context control, the new separators, the what-if replay of the mode, and a
broken templates file, driven headless by AppTest on the real ingested sample store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.answer.related import RELATED_SENTENCE
from core.config import Settings
from tests.e2e.test_app import ask, env, metric, sample_app, start, texts  # noqa: F401 - fixtures

WEAK = "What is the CEO's email address?"


def test_sidebar_switches_to_related_and_the_page_shows_it_as_a_refusal(sample_app: Settings) -> None:  # noqa: F811
    at = start()
    box = at.selectbox(key="missing_context")
    assert box.options == ["refuse", "related"] and box.value == "refuse"
    assert {"space", "newline"} <= set(at.selectbox(key="separator").options)
    strict = ask(at, WEAK)
    assert strict["answer"] == "I don't know." and strict["tokens_saved"] == strict["prompt_tokens"]
    box.set_value("related").run()
    trace = ask(at, WEAK)
    assert trace["refused"] and trace["related"] and trace["missing_context"] == "related"
    assert trace["answer"].startswith(RELATED_SENTENCE) and trace["refusal_reason"] == strict["refusal_reason"]
    assert not at.exception and not at.error
    warnings = [w.value for w in at.warning]
    assert (
        f"Refused: {trace['refusal_reason']} — not answered from the sources; related sources shown" in warnings
    )
    assert trace["answer"] in texts(at)
    chips = [t for t in texts(at) if t.startswith("Sources:")][-1]
    assert all(c["label"] in chips for c in trace["citations"]) and trace["citations"]
    decision = [t for t in texts(at) if "**Refused**" in t]
    assert any("(missing-context mode `related`)" in d for d in decision)
    assert any(f"{strict['tokens_saved']:,} prompt tokens not sent" in d for d in decision)


def test_whatif_replays_a_refusal_in_related_mode(sample_app: Settings) -> None:  # noqa: F811
    at = start()
    trace = ask(at, WEAK)
    key = f"turn-{trace['id']}"
    at.selectbox(key=f"{key}-missing").set_value("related")
    at.button(key=f"{key}-replay").click().run()
    assert not at.exception and not at.error
    after = at.session_state["cl_replays"][trace["id"]][-1]
    assert after["replay_changes"] == {"missing_context": "related"}
    assert after["answer"].startswith(RELATED_SENTENCE) and after["refused"]


def test_a_broken_templates_file_is_one_error_line(
    env: Path, sample_app: Settings, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    bad = env / "templates.json"
    bad.write_text(json.dumps({"system": "Hi {name}"}), encoding="utf-8")
    monkeypatch.setenv("CONTEXTLENS_TEMPLATES_PATH", str(bad))
    at = start()
    expected = (
        f"Templates file {bad}: the 'system' template has an unknown placeholder {{name}} (allowed: "
        "{question}, {context}, {refusal}; {{ and }} for literal braces)"
    )
    # one line, under the sidebar's templates field and (no good file to fall back to) atop the page
    assert {e.value for e in at.error} == {expected}
    assert metric(at, "Chunks")  # the sidebar still renders
