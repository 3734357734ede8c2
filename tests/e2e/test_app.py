"""The Streamlit app, driven headless by AppTest against a real ingested store and real embedder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.config import Settings
from core.trace import read_traces, to_jsonl
from ingest.uploads import uploads_dir
from tests.support.fake_openai import closed_port
from tests.support.stores import ROOT
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index
from ui.inspector import TABS

APP = ROOT / "ui" / "app.py"
ZEPHYR = (
    b"# Zephyr Conveyor Z9\n\n"
    b"The Zephyr Conveyor Z9 moves parcels at up to 3.5 metres per second. "
    b"Its belt is made of food-grade polyurethane and carries up to 120 kg per metre of belt. "
    b"The Zephyr Conveyor Z9 was designed by the Lisbon team in 2024.\n\n"
    b"## Maintenance\n\n"
    b"The Zephyr Conveyor Z9 belt must be re-tensioned every 400 operating hours. "
    b"Its rollers are sealed and need no lubrication.\n"
)


def _clear() -> None:
    st.cache_resource.clear()
    forget_indexes()


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Only the variables a test sets reach the app (no developer .env or CONTEXTLENS_*)."""
    for name in list(os.environ):
        if name.startswith(("CONTEXTLENS_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # Settings reads .env from the working directory
    monkeypatch.setenv("CONTEXTLENS_TRACE_PATH", str(tmp_path / "app-traces.jsonl"))
    _clear()
    yield tmp_path
    _clear()


@pytest.fixture()
def sample_app(env: Path, sample_store: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The app on the shared ingested sample store (tests that only read it)."""
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_store.store_path))
    return sample_store


@pytest.fixture()
def writable_app(env: Path, sample_copy: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The app on a private copy of the sample store (tests that upload)."""
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_copy.store_path))
    return sample_copy


def start() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, question: str) -> dict:
    n = len(at.session_state["cl_traces"])
    at.chat_input(key="question").set_value(question).run()
    assert not at.exception, at.exception
    traces = at.session_state["cl_traces"]
    assert len(traces) == n + 1, [e.value for e in at.error]
    return traces[-1]


def replay_with_budget(at: AppTest, trace: dict, budget: int) -> None:
    """Re-run a turn's question from its what-if form with another knowledge budget."""
    key = f"turn-{trace['id']}"
    at.number_input(key=f"{key}-budget").set_value(budget)
    at.button(key=f"{key}-replay").click().run()


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_answer_with_inspector_matching_the_trace(sample_app: Settings, env: Path) -> None:
    at = start()
    assert metric(at, "Chunks") == str(get_index(sample_app).stats()["chunks"])
    trace = ask(at, "How much does the ArmX2 package cost?")
    assert not trace["refused"] and trace["answer"]
    assert not at.error
    # the answer and its citation chips (source + chunk id)
    assert trace["answer"].replace("$", "\\$") in texts(at)
    chips = [t for t in texts(at) if t.startswith("Sources:")][-1]
    for c in trace["citations"]:
        assert c["label"] in chips and c["chunk_id"][:8] in chips
    # the inspector: all tabs, and the per-section token numbers are the trace's
    assert [t.label for t in at.tabs][: len(TABS)] == list(TABS)
    sections = [d.value for d in at.dataframe if "section" in d.value.columns][-1]
    assert dict(zip(sections["section"], sections["tokens"].astype(int), strict=True)) == trace["sections"]
    assert list(sections["section"]) == ["system", "procedure", "knowledge", "memory", "history", "user"]
    progress = [p.proto.text for p in at.get("progress")]
    assert any(
        t.startswith(
            f"Knowledge block: {trace['context_tokens']:,} of the {trace['knowledge_budget']:,}-token knowledge budget"
        )
        for t in progress
    )
    assert (
        f"Whole prompt: {trace['prompt_tokens']:,} of the {trace['prompt_limit']:,}-token prompt limit"
        in progress
    )
    # the prompt tab shows every message exactly, and the copyable JSON is the messages
    codes = [c.value for c in at.code]
    for msg in trace["messages"]:
        assert msg["content"] in codes
    assert json.dumps(trace["messages"], indent=2, ensure_ascii=False) in codes
    # the ledger has one row per candidate with its fate
    ledger = [d.value for d in at.dataframe if "fate" in d.value.columns][-1]
    assert list(ledger["fate"]) == [c["fate"] for c in trace["chunks"]]
    # … in the order the budget walked them, which the caption names
    assert any(
        c.value.startswith("Rows in the order the budget walked the candidates (evidence order `relevance`:")
        for c in at.caption
    )
    assert list(ledger["source"].str.split(" p.").str[0]) == [c["source"] for c in trace["chunks"]]
    # the trace was written, and the session's download holds it
    assert read_traces(env / "app-traces.jsonl")[-1]["id"] == trace["id"]
    download = at.get("download_button")[0]
    assert download.proto.label.endswith("(1)")


def test_off_topic_question_shows_refusal(sample_app: Settings) -> None:
    at = start()
    trace = ask(at, "What is the CEO's email address?")
    assert trace["refused"] and trace["refusal_reason"]
    warnings = [w.value for w in at.warning]
    assert f"Refused: {trace['refusal_reason']}" in warnings
    assert metric(at, "Refused") == "yes"
    decision = next(t for t in texts(at) if "**Refused**" in t)
    assert "τ" in decision and "min" in decision
    assert trace["answer"] in texts(at)
    # the caption's top score has the reason's precision (0.095 must not read as "0.10")
    assert any(f"top score {trace['top_score']:.3f} · " in c.value for c in at.caption)


def test_each_turn_keeps_its_own_inspector(sample_app: Settings) -> None:
    at = start()
    first = ask(at, "How much does the ArmX2 package cost?")
    second = ask(at, "What is the CEO's email address?")
    labels = [e.label for e in at.expander if e.label.startswith("Inspector")]
    assert any(first["id"] in x for x in labels) and any(second["id"] in x for x in labels)
    assert len([t for t in at.tabs if t.label == "Tokens"]) == 2


def test_upload_is_citable_by_the_next_question(writable_app: Settings) -> None:
    at = start()
    chunks = int(metric(at, "Chunks"))
    at.file_uploader(key="upload_docs").set_value([("zephyr-z9.md", ZEPHYR, "text/markdown")]).run()
    assert not at.exception
    assert [s.value for s in at.success] == ["**zephyr-z9.md** — added"], [e.value for e in at.error]
    assert int(metric(at, "Chunks")) > chunks
    trace = ask(at, "How fast does the Zephyr Conveyor Z9 move parcels?")
    assert "uploads/zephyr-z9.md" in [c["source"] for c in trace["citations"]]
    chips = [t for t in texts(at) if t.startswith("Sources:")][-1]
    assert "uploads/zephyr-z9.md" in chips
    # a rerun does not index the same upload again
    at.run()
    assert int(metric(at, "Chunks")) == get_index(writable_app).stats()["chunks"]


def test_broken_upload_shows_error_and_leaves_index(writable_app: Settings) -> None:
    at = start()
    before = get_index(writable_app).stats()
    at.file_uploader(key="upload_docs").set_value(
        [("broken.pdf", b"%PDF-1.7\n1 0 obj garbage, not a real PDF\n", "application/pdf")]
    ).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("**broken.pdf** — not indexed: the PDF"), errors
    assert get_index(writable_app).stats() == before
    assert metric(at, "Chunks") == str(before["chunks"])
    assert not (uploads_dir(writable_app) / "broken.pdf").exists()


def test_upload_lines_per_file_and_removal_from_the_documents_page(writable_app: Settings) -> None:
    """One line per uploaded file (a rejected type says why, in full); the Documents page removes
    an uploaded document after a confirmation and the next answer no longer cites it."""
    at = start()
    at.file_uploader(key="upload_docs").set_value(
        [
            ("zephyr-z9.md", ZEPHYR, "text/markdown"),
            ("setup.exe", b"MZ\x90\x00binary", "application/x-msdownload"),
        ]
    ).run()
    assert [s.value for s in at.success] == ["**zephyr-z9.md** — added"]
    assert [e.value for e in at.error] == ["**setup.exe** — not indexed: unsupported file type .exe; supported: "
                                           ".txt, .md, .markdown, .pdf, .html, .htm"]  # fmt: skip
    assert any("does not remove it from the index" in c.value for c in at.caption)
    assert "uploads/zephyr-z9.md" in [
        c["source"] for c in ask(at, "How fast does the Zephyr Conveyor Z9 move parcels?")["citations"]
    ]

    at.switch_page("views/documents.py").run()
    assert not at.exception, at.exception
    at.text_input(key="doc_search").set_value("zephyr").run()
    assert at.selectbox(key="doc_open").value == "uploads/zephyr-z9.md"
    at.button(key="doc_remove").click().run()
    assert any("zephyr" in w.value for w in at.warning)
    at.button(key="doc_remove_yes").click().run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("Removed uploads/zephyr") and "chunks" in s.value for s in at.success)
    assert "uploads/zephyr-z9.md" not in {r.source for r in get_index(writable_app).manifest.all_files()}
    assert not (uploads_dir(writable_app) / "zephyr-z9.md").exists()

    at.switch_page("views/chat.py").run()
    trace = ask(at, "How fast does the Zephyr Conveyor Z9 move parcels?")
    assert all(c["source"] != "uploads/zephyr-z9.md" for c in trace["chunks"])
    assert "3.5 metres" not in trace["answer"]


def test_llm_on_closed_port_falls_back_without_traceback(sample_app: Settings, env: Path) -> None:
    secret = "sk-test-NEVER-SHOWN-4242"
    at = start()
    at.radio(key="backend").set_value("OpenAI-compatible").run()
    at.text_input(key="llm_base_url").input(f"http://127.0.0.1:{closed_port()}/v1").run()
    next(t for t in at.text_input if t.label == "API key").input(secret).run()
    trace = ask(at, "How much does the ArmX2 package cost?")
    assert not at.exception
    assert trace["fallback"] and trace["backend_error"] and trace["answer"]
    warning = next(w.value for w in at.warning if w.value.startswith("LLM backend failed:"))
    assert warning == f"LLM backend failed: {trace['backend_error']} — showing the extractive answer"
    assert trace["answer"].replace("$", "\\$") in texts(at)
    # the key is in no element, session-state dump, trace or export
    shown = [
        e.value
        for kind in ("markdown", "code", "warning", "error", "caption", "text_input")
        for e in at.get(kind)
    ]
    assert secret not in json.dumps([v for v in shown if v != secret], default=str)
    assert secret not in [t.value for t in at.text_input if t.label != "API key"]
    assert secret not in json.dumps(at.session_state.to_dict(), default=str)
    assert secret not in (env / "app-traces.jsonl").read_text()
    assert secret not in to_jsonl(at.session_state["cl_traces"])


def test_whatif_replay_with_smaller_budget(sample_app: Settings) -> None:
    at = start()
    trace = ask(at, "How much does the ArmX2 package cost?")
    replay_with_budget(at, trace, 120)
    assert not at.exception and not at.error
    after = at.session_state["cl_replays"][trace["id"]][-1]
    assert after["replay_of"] == trace["id"] and after["knowledge_budget"] == 120
    assert after["replay_changes"] == {"knowledge_budget": 120}
    assert after["context_tokens"] <= 120 < trace["context_tokens"]
    assert any("Replay 1" in t and "knowledge_budget=120" in t for t in texts(at))
    rows = [d.value for d in at.dataframe if list(d.value.columns) == ["", "before", "after"]][-1]
    ctx = rows[rows[""] == "context_tokens"].iloc[0]
    assert (ctx["before"], ctx["after"]) == (str(trace["context_tokens"]), str(after["context_tokens"]))
    assert [d for d in at.dataframe if "chunk" in d.value.columns and "before" in d.value.columns]
    assert at.get("download_button")[0].proto.label.endswith("(2)")


def test_trace_file_reopens_turns_read_only(sample_app: Settings) -> None:
    at = start()
    trace = ask(at, "How much does the ArmX2 package cost?")
    exported = to_jsonl([trace]) + "not json\n"
    fresh = start()
    fresh.file_uploader(key="trace_file").set_value(
        ("old.jsonl", exported.encode(), "application/jsonl")
    ).run()
    assert not fresh.exception
    assert any("Opened traces file" in t and "1 turn(s)" in t for t in texts(fresh))
    assert trace["question"] in texts(fresh)
    sections = [d.value for d in fresh.dataframe if "section" in d.value.columns][-1]
    assert dict(zip(sections["section"], sections["tokens"].astype(int), strict=True)) == trace["sections"]
    assert fresh.session_state["cl_traces"] == []  # read-only: not part of this conversation


def test_empty_store_says_how_to_fill_it(
    env: Path, monkeypatch: pytest.MonkeyPatch, resources: object
) -> None:
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(env / "empty-store"))
    at = start()
    assert any("make run" in i.value for i in at.info)
    assert metric(at, "Documents") == "0"


def test_invalid_settings_become_one_line_error(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(env / "store"))
    monkeypatch.setenv("CONTEXTLENS_TOP_K", "0")
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("Invalid settings: top_k") and "\n" not in error


def test_evaluation_page(env: Path, monkeypatch: pytest.MonkeyPatch, sample_store: Settings) -> None:
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_store.store_path))
    monkeypatch.setenv("CONTEXTLENS_EVAL_DIR", str(env / "no-report"))
    at = start()
    at.switch_page("views/evaluation.py").run()
    assert not at.exception
    assert any("No evaluation report" in i.value for i in at.info)

    report = env / "report"
    report.mkdir()
    (report / "report.json").write_text(json.dumps({"recall_at_k": 0.91, "rows": [{"q": "a", "ok": True}]}))
    (report / "report.md").write_text("# Eval report\n\nGrounding is fine.\n\n![calibration](recall.png)\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.plot([1, 2], [3, 4])
    plt.savefig(report / "recall.png")
    plt.close("all")
    monkeypatch.setenv("CONTEXTLENS_EVAL_DIR", str(report))
    st.cache_resource.clear()  # settings are read once per process: re-read the new folder
    at.run()
    assert not at.exception
    assert metric(at, "recall at k") == "0.91"
    [md] = [t for t in texts(at) if "Grounding is fine." in t]
    assert "recall.png" not in md  # a relative image link cannot load in the browser; shown via st.image
    [image] = at.get("image")
    assert image.captions == ["recall.png"]


def test_llm_answer_streams_and_uses_the_key(sample_app: Settings) -> None:
    from tests.support.fake_openai import fake_openai_server

    secret = "sk-test-streaming-9999"
    reply = "The ArmX2 package costs $24,500 (products/arm-x2.md)."
    with fake_openai_server(reply=reply, require_key=secret) as server:
        at = start()
        at.radio(key="backend").set_value("OpenAI-compatible").run()
        at.text_input(key="llm_base_url").input(server.base_url).run()
        at.text_input(key="llm_model").input("fake-model").run()
        next(t for t in at.text_input if t.label == "API key").input(secret).run()
        trace = ask(at, "How much does the ArmX2 package cost?")
        streamed = [r for r in server.chat_requests if (r.body or {}).get("stream")]
    assert streamed, "the answer was not requested as a stream"
    assert streamed[-1].headers["authorization"] == f"Bearer {secret}"
    assert not trace["fallback"] and trace["llm_called"] and trace["answer"] == reply
    assert trace["backend"] == "openai:fake-model"
    assert reply.replace("$", "\\$") in texts(at)
    chips = [t for t in texts(at) if t.startswith("Sources:")][-1]
    assert "products/arm-x2.md" in chips
    assert not [w for w in at.warning if w.value.startswith("LLM backend failed")]
    assert secret not in json.dumps(trace) and secret not in json.dumps(
        at.session_state.to_dict(), default=str
    )


def test_unexpected_error_is_one_line_not_a_traceback(
    sample_app: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.pipeline import Pipeline

    def boom(self: Pipeline, *args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire\nsecond line with details")

    at = start()
    monkeypatch.setattr(Pipeline, "ask", boom)
    at.chat_input(key="question").set_value("How much does the ArmX2 package cost?").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Unexpected error (RuntimeError): disk on fire"]
    assert at.session_state["cl_traces"] == []


def test_malformed_trace_records_do_not_break_the_page(sample_app: Settings) -> None:
    at = start()
    bad = json.dumps({"question": "q?", "sections": "not a dict", "chunks": 5}) + "\n"
    at.file_uploader(key="trace_file").set_value(("bad.jsonl", bad.encode(), "application/jsonl")).run()
    assert not at.exception
    assert any("1 turn(s)" in t for t in texts(at))
    assert at.chat_input(key="question") is not None
