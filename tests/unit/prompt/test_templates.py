"""Template placeholders: {question} / {context} / {refusal} in the system, knowledge and user
templates alike, where the evidence goes, and one-line errors naming the template and placeholder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import SettingsError
from core.prompt.templates import RELATED_INSTRUCTION, load_templates


def write(tmp_path: Path, **entries: object) -> Path:
    path = tmp_path / "templates.json"
    path.write_text(json.dumps({"system": "Answer. If unsure: {refusal}", **entries}), encoding="utf-8")
    return path


def test_question_and_context_fill_every_template(tmp_path: Path) -> None:
    t = load_templates(
        write(
            tmp_path,
            system="Q={question} R={refusal}",
            knowledge="Evidence for {question}:\n{context}\n(else {refusal})",
            user="Question: {question} ({refusal})",
        )
    )
    assert t.context_in == "knowledge"
    assert t.system_prompt("IDK", "Why?") == "Q=Why? R=IDK"
    assert t.knowledge_message("[K]", "Why?", "IDK") == "Evidence for Why?:\n[K]\n(else IDK)"
    assert t.user_message("Why?", "[K]", "IDK") == "Question: Why? (IDK)"


@pytest.mark.parametrize("host", ["system", "user"])
def test_context_in_the_system_or_user_template(tmp_path: Path, host: str) -> None:
    entries = {"knowledge": "", host: "Use this:\n{context}\nfor {question}"}
    t = load_templates(write(tmp_path, **entries))
    assert t.context_in == host
    assert t.knowledge_message("[K]", "Why?") == ""  # no separate knowledge message
    placed = t.system_prompt("IDK", "Why?", "[K]") if host == "system" else t.user_message("Why?", "[K]")
    assert placed == "Use this:\n[K]\nfor Why?"
    other = t.user_message("Why?", "[K]") if host == "system" else t.system_prompt("IDK", "Why?", "[K]")
    assert "[K]" not in other


def test_values_keep_their_braces_and_literal_braces_are_escaped(tmp_path: Path) -> None:
    t = load_templates(write(tmp_path, user='Reply as JSON {{"a": 1}} to: {question}'))
    assert t.user_message("Why {x}?") == 'Reply as JSON {"a": 1} to: Why {x}?'


def test_related_mode_appends_the_instruction(tmp_path: Path) -> None:
    t = load_templates(write(tmp_path))
    assert t.system_prompt("SENTENCE", related=True) == f"Answer. If unsure: SENTENCE\n{RELATED_INSTRUCTION}"
    custom = load_templates(write(tmp_path, related="Then list related facts about {question}."))
    assert custom.system_prompt("S", "Why?", related=True).endswith("\nThen list related facts about Why?.")


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"system": "Hi {user_name}"},
         "the 'system' template has an unknown placeholder {user_name} (allowed: {question}, {context}, "
         "{refusal}; {{ and }} for literal braces)"),
        ({"knowledge": "Docs: {contxt}"}, "the 'knowledge' template has an unknown placeholder {contxt}"),
        ({"user": "{question} {snippets}"}, "the 'user' template has an unknown placeholder {snippets}"),
        ({"memory": "{snippets} {context}"}, "the 'memory' template has an unknown placeholder {context}"),
        ({"related": "List {context}"}, "the 'related' template has an unknown placeholder {context}"),
        ({"user": "{}"}, "the 'user' template has an unknown placeholder {}"),
        ({"system": "JSON {\"a\": 1}"}, "the 'system' template has an unknown placeholder {\"a\"}"),
        ({"system": "stray { brace"}, "the 'system' template has a stray brace"),
        ({"user": "{question!r}"}, "the placeholder {question} takes no format spec or conversion"),
        ({"knowledge": "Documents below."}, "the 'knowledge' template must contain {context}"),
        ({"knowledge": ""}, "no template has {context}; put it in the 'knowledge', 'system' or 'user'"),
        ({"system": "Use {context}"}, "{context} is in both the 'knowledge' and 'system' templates"),
        ({"knowledge": "", "system": "{context}", "user": "{question} {context}"},
         "{context} is in both the 'system' and 'user' templates"),
        ({"knowledge": "{context} {context}"}, "the 'knowledge' template has {context} 2 times"),
        ({"user": "Tell me"}, "the 'user' template must contain {question}"),
        ({"memory": "Earlier turns"}, "the 'memory' template must contain {snippets}"),
        ({"user": 42}, "the 'user' template must be a string"),
    ],
)  # fmt: skip
def test_template_errors_are_one_line_and_name_template_and_placeholder(
    tmp_path: Path, entries: dict[str, object], message: str
) -> None:
    path = write(tmp_path, **entries)
    with pytest.raises(SettingsError) as raised:
        load_templates(path)
    text = str(raised.value)
    assert message in text and str(path) in text
    assert "\n" not in text and raised.value.__cause__ is None


def test_the_shipped_templates_place_the_evidence_in_its_own_message() -> None:
    t = load_templates(Path(__file__).resolve().parents[3] / "data" / "templates.json")
    assert t.context_in == "knowledge" and t.related == RELATED_INSTRUCTION
