"""The first five minutes, driven by AppTest: the onboarding screen and its example questions,
conversations that survive a reload, the sidebar's layout and field errors, the inspector's
numbers agreeing with each other, and the Evaluation page's order."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.config import PROJECT_ROOT, Settings
from core.conversations import ConversationStore, conversations_path
from core.onboarding import derived_examples, overview, read_lines
from tests.e2e import test_app as app_tests
from tests.e2e.test_app import APP, ZEPHYR, ask, metric, replay_with_budget, start, texts
from tests.support.fake_openai import closed_port, fake_openai_server
from tests.support.stores import index_for, make_settings, resources_for

# the app fixtures of test_app.py (pytest finds fixtures by module attribute)
env = app_tests.env
sample_app = app_tests.sample_app
writable_app = app_tests.writable_app

EXAMPLES = json.loads((PROJECT_ROOT / "data" / "examples.json").read_text())["questions"]


def _examples(at: AppTest) -> dict[str, str]:
    """Example button label → key."""
    return {b.label: b.key for b in at.button if (b.key or "").startswith("example-")}


def _click_example(at: AppTest, question: str) -> dict:
    n = len(at.session_state["cl_traces"])
    at.button(key=_examples(at)[question]).click().run()
    assert not at.exception, at.exception
    assert len(at.session_state["cl_traces"]) == n + 1, [e.value for e in at.error]
    return at.session_state["cl_traces"][-1]


def _reload(at: AppTest) -> AppTest:
    """A new browser session on the same URL (what a reload is to Streamlit)."""
    fresh = AppTest.from_file(str(APP), default_timeout=60)
    fresh.query_params.update(at.query_params)
    fresh.run()
    assert not fresh.exception, fresh.exception
    return fresh


def _sections(at: AppTest) -> list[dict[str, int]]:
    return [
        dict(zip(d.value["section"], d.value["tokens"].astype(int), strict=True))
        for d in at.dataframe
        if "section" in d.value.columns
    ]


# onboarding ---------------------------------------------------------------------------------------


def test_first_screen_says_what_is_indexed_and_an_example_question_asks(sample_app: Settings) -> None:
    at = start()
    stats = index_for(sample_app).stats()
    facts = next(t for t in texts(at) if "documents** in" in t)
    assert f"**{stats['documents']} documents** in **{stats['chunks']} chunks**" in facts
    assert "products (4)" in facts
    assert any("Northwind ArmX2 Collaborative Robot Arm" in c.value for c in at.caption)
    assert any(
        "offline extractive answerer" in c.value and "CONTEXTLENS_LLM_BASE_URL" in c.value for c in at.caption
    )
    # the four questions of data/examples.json, one of each kind
    assert set(_examples(at)) == {q["question"] for q in EXAMPLES}
    assert sorted(q["kind"] for q in EXAMPLES) == ["comparison", "factual", "off-topic", "procedural"]

    procedural = next(q["question"] for q in EXAMPLES if q["kind"] == "procedural")
    trace = _click_example(at, procedural)
    assert trace["question"] == procedural and trace["query_type"] == "procedural" and not trace["refused"]
    assert any(t.startswith("1. ") or "\n1. " in t for t in texts(at) if "calibrat" in t.lower())
    assert any(e.label.startswith("Inspector") and trace["id"] in e.label for e in at.expander)
    assert not _examples(at) and not any("What is indexed" in t for t in texts(at))  # the welcome is gone


def test_the_off_topic_example_is_refused(sample_app: Settings) -> None:
    at = start()
    off = next(q["question"] for q in EXAMPLES if q["kind"] == "off-topic")
    trace = _click_example(at, off)
    assert trace["refused"] and trace["answer"] == "I don't know."
    assert f"Refused: {trace['refusal_reason']}" in [w.value for w in at.warning]


def test_another_corpus_gets_questions_from_its_headings(
    env: Path, monkeypatch: pytest.MonkeyPatch, resources: object
) -> None:
    from ingest.sync import ingest_paths

    docs = env / "docs"
    (docs / "machines").mkdir(parents=True)
    (docs / "machines" / "zephyr-z9.md").write_bytes(ZEPHYR)
    (docs / "machines" / "mistral-m4.md").write_text(
        "# Mistral Mixer M4\n\nThe Mistral Mixer M4 blends 40 litres a minute.\n\n"
        "## How to clean the mixing drum\n\n1. Stop the mixer.\n2. Rinse the drum.\n3. Dry it.\n"
    )
    s = make_settings(env, store_path=env / "store")
    assert not ingest_paths(s, [docs], resources=resources_for(s)).errors
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(s.store_path))
    at = start()
    offtopic = read_lines(PROJECT_ROOT / "data" / "offtopic.txt")
    derived = [e.question for e in derived_examples(overview(index_for(s)), offtopic)]
    assert list(_examples(at)) != [] and set(_examples(at)) == set(derived)
    assert "How do I clean the mixing drum?" in derived
    assert not {q["question"] for q in EXAMPLES} & set(derived)
    trace = _click_example(at, "How do I clean the mixing drum?")
    assert "Rinse the drum" in trace["answer"]


# durable conversations ----------------------------------------------------------------------------


def test_reload_restores_the_conversation_with_every_inspector(writable_app: Settings) -> None:
    at = start()
    assert "c" not in at.query_params  # nothing stored before the first question
    first = _click_example(at, next(q["question"] for q in EXAMPLES if q["kind"] == "factual"))
    cid = at.query_params["c"]
    second = ask(at, "What is the CEO's email address?")
    replay_with_budget(at, first, 120)
    assert not at.exception and at.query_params["c"] == cid

    fresh = _reload(at)
    assert [t["id"] for t in fresh.session_state["cl_traces"]] == [first["id"], second["id"]]
    labels = [e.label for e in fresh.expander if e.label.startswith("Inspector")]
    assert [first["id"] in labels[0], second["id"] in labels[1]] == [True, True]
    assert _sections(fresh) == [first["sections"], second["sections"]]
    assert any("Replay 1" in t and "knowledge_budget=120" in t for t in texts(fresh))
    assert f"Refused: {second['refusal_reason']}" in [w.value for w in fresh.warning]
    # the restored turns are the conversation's memory: a follow-up sees both
    third = ask(fresh, "And how much does it cost?")
    assert third["history_turns"] == 2
    stored = ConversationStore(conversations_path(writable_app))
    assert [t["id"] for t in stored.turns(cid)] == [first["id"], second["id"], third["id"]]
    assert stored.find_turn(third["id"]) == (cid, 2)  # each trace stays linked to its turn


def test_two_sessions_hold_two_conversations(writable_app: Settings) -> None:
    tab1, tab2 = start(), start()
    one = ask(tab1, "How much does the ArmX2 package cost?")
    two = ask(tab2, "What is the CEO's email address?")
    assert tab1.query_params["c"] != tab2.query_params["c"]
    tab1.run()  # the other tab's question did not join this conversation
    assert [t["id"] for t in tab1.session_state["cl_traces"]] == [one["id"]]
    assert [t["id"] for t in _reload(tab2).session_state["cl_traces"]] == [two["id"]]
    assert [t["id"] for t in _reload(tab1).session_state["cl_traces"]] == [one["id"]]


def test_switch_rename_and_delete_from_the_sidebar(writable_app: Settings) -> None:
    at = start()
    first = ask(at, "How much does the ArmX2 package cost?")
    first_cid = at.query_params["c"]
    at.button(key="conv_new").click().run()
    assert "c" not in at.query_params and at.session_state["cl_traces"] == []
    assert _examples(at)  # a new conversation starts on the welcome screen
    second = ask(at, "What is the rated payload of the ArmX2?")
    second_cid = at.query_params["c"]
    assert second_cid != first_cid
    # switch back: the first conversation's turn and inspector
    at.button(key=f"conv-{first_cid}").click().run()
    assert at.query_params["c"] == first_cid
    assert [t["id"] for t in at.session_state["cl_traces"]] == [first["id"]]
    # rename
    at.text_input(key=f"conv_title-{first_cid}").set_value("ArmX2 pricing").run()
    at.button(key="conv_rename").click().run()
    store = ConversationStore(conversations_path(writable_app))
    assert store.get(first_cid).title == "ArmX2 pricing"
    assert any(b.label.startswith("ArmX2 pricing") for b in at.button)
    # delete asks first: the button is disabled until confirmed
    assert at.button(key="conv_delete").disabled
    at.checkbox(key=f"conv_confirm-{first_cid}").check().run()
    at.button(key="conv_delete").click().run()
    assert not at.exception
    assert store.get(first_cid) is None and store.get(second_cid) is not None
    assert at.session_state["cl_traces"] == [] and "c" not in at.query_params
    assert any("Deleted the conversation" in i.value for i in at.info)
    assert [t["id"] for t in store.turns(second_cid)] == [second["id"]]


def test_another_page_and_back_keeps_the_conversation(writable_app: Settings) -> None:
    at = start()
    trace = ask(at, "How much does the ArmX2 package cost?")
    cid = at.query_params["c"]
    at.switch_page("views/documents.py").run()
    at.query_params.pop("c", None)  # a page link carries no query
    at.switch_page("views/chat.py").run()
    assert not at.exception
    assert at.query_params["c"] == cid and [t["id"] for t in at.session_state["cl_traces"]] == [trace["id"]]


def test_an_unknown_conversation_id_starts_a_new_one(sample_app: Settings) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["c"] = "doesnotexist"
    at.run()
    assert not at.exception
    assert any("no longer exists" in i.value for i in at.info)
    assert "c" not in at.query_params and _examples(at)


# sidebar ------------------------------------------------------------------------------------------


def test_sidebar_everyday_controls_first_and_experts_in_a_collapsed_advanced(sample_app: Settings) -> None:
    at = start()
    [advanced] = [e for e in at.sidebar.expander if e.label == "Advanced"]
    assert not advanced.proto.expanded
    for key in ("top_k", "refusal_tau", "refusal_min_overlap"):
        assert advanced.slider(key=key).help  # help in plain words
    assert advanced.text_input(key="templates_path").help
    assert advanced.selectbox(key="separator") is not None
    # the everyday ones are outside it, before it
    outside = [
        n for n in at.sidebar if getattr(n, "key", None) in ("retrieval_mode", "knowledge_budget", "backend")
    ]
    assert len(outside) == 3 and not [n for n in advanced if getattr(n, "key", None) == "retrieval_mode"]
    order = [getattr(n, "key", None) or getattr(n, "label", None) for n in at.sidebar]
    assert order.index("retrieval_mode") < order.index("knowledge_budget") < order.index("backend")
    assert order.index("backend") < order.index("Advanced")
    # no Deploy button: the toolbar is minimal in the project's Streamlit config
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["toolbarMode"] == "minimal"


def test_a_bad_templates_path_is_an_error_next_to_it_and_the_chat_keeps_working(sample_app: Settings) -> None:
    at = start()
    at.text_input(key="templates_path").set_value("data/templates-typo.json").run()
    assert not at.exception
    [advanced] = [e for e in at.sidebar.expander if e.label == "Advanced"]
    [error] = [e.value for e in advanced.error]
    assert error.startswith("Cannot read templates file data/templates-typo.json")
    assert at.chat_input(key="question") is not None and not at.main.error
    trace = ask(at, "How much does the ArmX2 package cost?")  # with the last good templates
    assert trace["answer"] and not trace["refused"]
    assert trace["settings"]["templates_path"] == str(sample_app.templates_path)
    at.text_input(key="templates_path").set_value(str(sample_app.templates_path)).run()
    assert not at.error


def test_a_bad_base_url_is_an_error_next_to_it_and_answers_stay_extractive(sample_app: Settings) -> None:
    at = start()
    at.radio(key="backend").set_value("OpenAI-compatible").run()
    at.text_input(key="llm_base_url").input("localhost:11434/v1").run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error][0].startswith("The base URL must start with http://")
    trace = ask(at, "How much does the ArmX2 package cost?")
    assert trace["backend"] == "extractive" and not trace["llm_called"]


# inspector consistency ----------------------------------------------------------------------------


def test_a_fallback_answer_is_labelled_extractive(sample_app: Settings) -> None:
    at = start()
    at.radio(key="backend").set_value("OpenAI-compatible").run()
    at.text_input(key="llm_base_url").input(f"http://127.0.0.1:{closed_port()}/v1").run()
    trace = ask(at, "How much does the ArmX2 package cost?")
    assert trace["fallback"] and trace["backend"] == "openai:gpt-4o-mini"
    label = f"extractive (fallback from openai:gpt-4o-mini: {trace['backend_error']})"
    footer = [c.value for c in at.caption if "answered by" in c.value][-1]
    assert f"answered by {label}" in footer and "· openai:gpt-4o-mini ·" not in footer
    assert any("answered by **" in t and "extractive (fallback from openai:gpt" in t for t in texts(at))
    # the messages were sent (and failed): the prompt tab says so
    assert any(c.value.startswith("The exact ") and "sent to the LLM" in c.value for c in at.caption)


def test_token_figures_agree_and_injected_is_explained(sample_app: Settings) -> None:
    at = start()
    trace = ask(at, "How much does the ArmX2 package cost?")
    knowledge = trace["sections"]["knowledge"]
    assert knowledge != trace["context_tokens"]  # the message wrapper: both figures must be named
    # the metric is the chart's figure (the section table the chart draws)
    assert metric(at, "Knowledge section") == f"{knowledge:,}"
    assert _sections(at)[-1]["knowledge"] == knowledge
    progress = [p.proto.text for p in at.get("progress")]
    line = next(t for t in progress if t.startswith("Knowledge block:"))
    assert f"{trace['context_tokens']:,} of the {trace['knowledge_budget']:,}-token knowledge budget" in line
    assert f"charted above is {knowledge:,}" in line
    # the ledger says why "injected" is more than "tokens", with a row's own numbers
    kept = next(c for c in trace["chunks"] if c["fate"] == "kept")
    extra = kept["injected_tokens"] - kept["tokens"]
    caption = next(c.value for c in at.caption if "**injected**" in c.value)
    assert "header lines" in caption and f"{kept['tokens']} + {extra} = {kept['injected_tokens']}" in caption
    injected = sum(c["injected_tokens"] for c in trace["chunks"])
    assert f"{trace['context_tokens']:,} tokens = {injected:,} injected by the entries" in caption
    # the ledger shows the fate next to the source
    ledger = [d.value for d in at.dataframe if "fate" in d.value.columns][-1]
    cols = list(ledger.columns)
    assert cols.index("fate") == cols.index("source") + 1


def test_offline_prompt_tab_says_what_an_llm_would_receive(sample_app: Settings) -> None:
    at = start()
    ask(at, "How much does the ArmX2 package cost?")
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The prompt an LLM would receive") for c in captions)
    assert not any("messages sent" in c for c in captions)
    with fake_openai_server(reply="The ArmX2 package costs $24,500 (products/arm-x2.md).") as server:
        at.radio(key="backend").set_value("OpenAI-compatible").run()
        at.text_input(key="llm_base_url").input(server.base_url).run()
        ask(at, "How much does the ArmX2 package cost?")
    assert any(c.value.startswith("The exact ") and "sent to the LLM" in c.value for c in at.caption)


def test_replay_tables_show_fate_next_to_source(sample_app: Settings) -> None:
    at = start()
    trace = ask(at, "How much does the ArmX2 package cost?")
    replay_with_budget(at, trace, 120)
    assert not at.exception
    ledgers = [list(d.value.columns) for d in at.dataframe if list(d.value.columns)[:2] == ["source", "fate"]]
    assert len(ledgers) >= 2  # before and after
    changed = [
        list(d.value.columns)
        for d in at.dataframe
        if "before" in d.value.columns and "source" in d.value.columns
    ]
    assert changed == [["source", "before", "after", "chunk"]]


# evaluation page ----------------------------------------------------------------------------------


def _report() -> dict:
    metrics = {
        "acc_answerable": 0.8, "false_refusal": 0.01, "refusal_unanswerable": 0.2, "refusal_oos": 0.9,
        "recall_at_k": 0.95, "grounding_mean": 0.7, "mean_prompt_tokens": 868, "p50_ms": 12.1, "p90_ms": 23.4,
    }  # fmt: skip
    base = {**metrics, "acc_answerable": 0.815, "refusal_oos": 0.0, "mean_prompt_tokens": 1744}
    return {
        "seconds": 570.0,
        "datasets": {
            "squad": {
                "counts": {"answerable": 1299, "unanswerable": 1529, "oos": 32},
                "modes": {"hybrid": {"baseline": base, "engineered": metrics}},
            }
        },
        "tau_sweep": [{"tau": 0.3, "by_dataset": {"squad": {"acc": 0.8}}}, {"tau": 0.34, "by_dataset": {}}],
        "recommended": {"tau": 0.34, "min_overlap": 0.34, "objective": "balanced"},
    }


def test_evaluation_page_shows_the_headline_table_first(
    env: Path, monkeypatch: pytest.MonkeyPatch, sample_store: Settings
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_store.store_path))
    report = env / "report"
    report.mkdir()
    (report / "report.json").write_text(json.dumps(_report()))
    (report / "report.md").write_text("# Eval report\n\nDetails.\n")
    plt.plot([1, 2], [3, 4])
    plt.savefig(report / "calibration.png")
    plt.close("all")
    monkeypatch.setenv("CONTEXTLENS_EVAL_DIR", str(report))
    at = start()
    at.switch_page("views/evaluation.py").run()
    assert not at.exception
    order = [getattr(n, "type", "") or type(n).__name__ for n in at.main]
    first_table = at.dataframe[0].value
    assert list(first_table["setup"]) == ["hybrid baseline", "hybrid engineered"]
    assert list(first_table["accuracy"]) == [0.815, 0.8] and "refused off-topic" in first_table.columns
    # the headline table, then the plot, then the folded grid and report
    assert order.index("dataframe") < order.index("image") < order.index("expander"), order
    [grid] = [e for e in at.expander if e.label.startswith("Calibration grid")]
    assert not grid.proto.expanded and "tau" in grid.dataframe[0].value.columns
    assert any("Calibration recommends tau 0.34" in c.value for c in at.caption)
    assert any("1299 answerable" in t for t in texts(at))


def test_evaluation_empty_state_shows_the_exact_command(
    env: Path, monkeypatch: pytest.MonkeyPatch, sample_store: Settings
) -> None:
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_store.store_path))
    monkeypatch.setenv("CONTEXTLENS_EVAL_DIR", str(PROJECT_ROOT / "eval_out_missing"))
    st.cache_resource.clear()
    at = start()
    at.switch_page("views/evaluation.py").run()
    [info] = [i.value for i in at.info]
    assert "`eval_out_missing`" in info and "\\" not in info
    [code] = [c.value for c in at.code]
    assert code == ".venv/bin/python -m apps.eval --jsonl data/eval.jsonl --out eval_out_missing"
