"""The chat page: questions, streamed answers with citation chips, and an inspector per turn."""

from __future__ import annotations

import logging
import time
from typing import Any

import streamlit as st

from core.config import Settings
from core.errors import ContextLensError
from core.trace import answered_by
from ui import inspector, sidebar, state, welcome
from ui.components import answer_md, chip, md_escape, one_line, short

log = logging.getLogger(__name__)

EMPTY_STORE = (
    "The index is empty. Upload documents in the sidebar, or run `make run` (which ingests the "
    "sample corpus in data/corpus) and reload this page."
)


def page() -> None:
    """Render the chat page."""
    state.init()
    base = state.base_settings()
    try:
        state.sync_conversation(base)  # the conversation the URL names (a reload restores it)
    except ContextLensError as e:
        st.session_state[state.NOTICE] = f"Conversations are not available: {one_line(e)}"
    settings, slots = sidebar.render(base)
    st.title("ContextLens", anchor=False)
    st.caption("Ask your documents — and see exactly what the model saw.")
    notice = st.session_state.pop(state.NOTICE, None)
    if notice:
        st.info(notice, icon=":material/info:")
    state.pipeline(settings)  # load the embedder once per process, before a question can be typed
    question = st.chat_input("Ask about your documents…", key="question") or state.take_pending()
    if state.index(settings).count() == 0:
        st.info(EMPTY_STORE, icon=":material/upload_file:")
    loaded_traces(settings)
    if not state.traces() and not question and not st.session_state.get(state.LOADED):
        welcome.render(settings)
    for trace in state.traces():
        turn(trace, settings)
    if question:
        ask(question, settings)
    sidebar.download_traces(slots.download)
    sidebar.conversation_list(slots.conversations, base)  # drawn last: it lists this run's new turn


def turn(trace: dict[str, Any], settings: Settings | None, prefix: str = "turn") -> None:
    """One past exchange with its inspector."""
    with st.chat_message("user"):
        st.markdown(md_escape(trace.get("question", "")))
    with st.chat_message("assistant"):
        with st.container(key=f"{prefix}-answer-{trace.get('id')}"):
            answer_body(trace)
        inspector.render(trace, key=f"{prefix}-{trace.get('id')}", settings=settings)


def answer_body(trace: dict[str, Any]) -> None:
    """The answer, its warnings/flags and its citation chips."""
    if trace.get("fallback"):
        st.warning(
            f"LLM backend failed: {trace.get('backend_error') or 'unknown error'} "
            "— showing the extractive answer",
            icon=":material/cloud_off:",
        )
    if trace.get("refused"):
        shown = " — not answered from the sources; related sources shown" if trace.get("related") else ""
        reason = trace.get("refusal_reason") or "no reason recorded"
        st.warning(f"Refused: {reason}{shown}", icon=":material/block:")
    st.markdown(answer_md(str(trace.get("answer", ""))))
    chips = []
    for c in trace.get("citations") or []:
        if c.get("injected"):
            chips.append(chip(f"{c.get('label')} · {short(c.get('chunk_id'), 8)}", "blue"))
        else:
            chips.append(chip(f"{c.get('label')} · not in the context", "red", ":material/link_off:"))
    if chips:
        st.markdown("Sources: " + " ".join(chips))
    top = trace.get("top_score")
    st.caption(
        f"{trace.get('query_type', '?')} · top score {'—' if top is None else f'{top:.3f}'} · "
        f"{trace.get('context_tokens', 0)} context tokens · {trace.get('num_chunks_included', 0)} chunks · "
        f"answered by {answered_by(trace)} · {float(trace.get('total_ms') or 0) / 1000:.1f} s"
    )


def ask(question: str, settings: Settings) -> None:
    """Answer a new question, streaming into a placeholder that the final answer replaces."""
    with st.chat_message("user"):
        st.markdown(md_escape(question))
    with st.chat_message("assistant"):
        out = st.container(key="streaming").empty()
        parts: list[str] = []
        last = [0.0]

        def on_token(delta: str) -> None:
            parts.append(delta)
            now = time.monotonic()
            if now - last[0] > 0.05:  # repaint at most 20 times a second
                last[0] = now
                out.markdown(answer_md("".join(parts)) + " ▌")

        try:
            with st.spinner("Retrieving, budgeting and answering…"):
                answer = state.pipeline(settings).ask(question, state.history(), on_token=on_token)
        except ContextLensError as e:
            out.empty()
            st.error(one_line(e, state.secrets_of(settings)))
            return
        trace = answer.trace
        try:  # saved before it is drawn: a reload as soon as the answer shows must not lose it
            state.record_turn(settings, trace)  # in the session, then in the conversations file
        except ContextLensError as e:
            st.warning(f"This turn is not saved (a reload will lose it): {one_line(e)}", icon=":material/save:")
        with out.container(key=f"turn-answer-{trace.get('id')}"):
            answer_body(trace)  # replaces the partial stream (e.g. after a fallback)
        inspector.render(trace, key=f"turn-{trace.get('id')}", settings=settings)


def loaded_traces(settings: Settings) -> None:
    """Turns re-opened from a traces file, read-only, in the same inspector."""
    loaded = st.session_state.get(state.LOADED)
    if not loaded:
        return
    records = loaded["records"]
    with st.container(border=True):
        st.markdown(
            f"**Opened traces file** `{md_escape(loaded['name'])}` · {len(records)} turn(s), read-only "
            "(close it by removing the file in the sidebar)"
        )
        if not records:
            st.warning("No trace records found in this file.")
        for n, rec in enumerate(records):
            try:
                turn(rec, settings, prefix=f"loaded{n}")  # ids in a file need not be unique
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                log.warning("cannot show trace record %d: %r", n, e)
                st.error(f"Record {n + 1} of the file is not a ContextLens trace ({type(e).__name__}).")
