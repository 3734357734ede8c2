"""Templates through the real pipeline: the evidence goes where {context} stands (its own message,
the system message or the user message), {question} fills every template, the knowledge section
counts the block wherever it rides, and a broken templates file is a one-line error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import SettingsError
from tests.support.stores import ROOT, make_pipeline

QUESTION = "What is the rated payload of the ArmX3?"
SYSTEM = "You answer from documents. Asked: {question}. Unsure? Say {refusal}"


def templates(tmp_path: Path, **entries: str) -> Path:
    path = tmp_path / "templates.json"
    path.write_text(json.dumps({"system": SYSTEM, **entries}), encoding="utf-8")
    return path


def ask(sample_store, path: Path, **settings: object):  # noqa: ANN001, ANN201
    s = sample_store.updated(templates_path=path, **settings)
    return make_pipeline(s, backend=None).ask(QUESTION, record=False)


@pytest.mark.parametrize(
    ("entries", "host"),
    [
        ({"knowledge": "Evidence for '{question}':\n{context}", "user": "Q: {question}"}, "knowledge"),
        ({"knowledge": "", "system": SYSTEM + "\n\nEvidence:\n{context}", "user": "{question}"}, "system"),
        ({"knowledge": "", "user": "Evidence:\n{context}\n\nQuestion: {question} (else {refusal})"}, "user"),
    ],
)
def test_the_block_goes_where_context_stands(sample_store, tmp_path: Path, entries, host) -> None:  # noqa: ANN001
    a = ask(sample_store, templates(tmp_path, **entries))
    t = a.trace
    block = a.context.text
    assert block.startswith("[Retrieved Knowledge]") and not a.refused
    holders = [m["content"] for m in t["messages"] if block in m["content"]]
    assert len(holders) == 1  # exactly once
    sections = t["message_sections"]
    assert ("knowledge" in sections) == (host == "knowledge")
    holder = t["messages"][sections.index(host)]["content"]
    assert block in holder and QUESTION in holder
    assert f"Asked: {QUESTION}. Unsure? Say I don't know." in t["messages"][0]["content"]
    # every section is counted once: the block's tokens are in "knowledge" wherever it rides
    assert sum(t["sections"].values()) + 3 == t["prompt_tokens"] <= t["prompt_limit"]
    counter = make_pipeline(sample_store, backend=None).resources.counter
    assert t["sections"]["knowledge"] >= counter.count(block) == t["context_tokens"]
    assert t["context_tokens"] <= t["knowledge_budget"]
    if host != "knowledge":
        bare = holder.replace(block, "")
        assert t["sections"][host] == counter.count(bare) + 4  # the host's own text and overhead
        assert t["sections"]["knowledge"] + t["sections"][host] == counter.count(holder) + 4


def test_context_in_the_user_message_keeps_the_window_bound(sample_store, tmp_path: Path) -> None:  # noqa: ANN001
    path = templates(tmp_path, knowledge="", user="{context}\n\n{question}")
    a = ask(sample_store, path, model_window=900, response_reserve=200, knowledge_budget=700)
    t = a.trace
    assert t["prompt_tokens"] <= t["prompt_limit"] == 700
    assert t["knowledge_budget"] < 700  # the room the fixed sections leave, not the setting


def test_a_broken_template_stops_the_pipeline_with_one_line(sample_store, tmp_path: Path) -> None:  # noqa: ANN001
    path = templates(tmp_path, user="{question} in {language}")
    with pytest.raises(SettingsError, match=r"the 'user' template has an unknown placeholder \{language\}"):
        ask(sample_store, path)


@pytest.mark.slow
def test_cli_reports_a_template_error_in_one_line(sample_store, tmp_path: Path) -> None:  # noqa: ANN001
    path = templates(tmp_path, knowledge="Documents follow.")
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
        "CONTEXTLENS_STORE_PATH": str(sample_store.store_path),
        "CONTEXTLENS_TRACE_PATH": str(tmp_path / "t.jsonl"),
        "CONTEXTLENS_TEMPLATES_PATH": str(path),
    }  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "apps.cli", "ask", QUESTION], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"error: Templates file {path}: the 'knowledge' template must contain {{context}} (or be \"\" "
        "when the 'system' or 'user' template places the evidence)"
    ]
