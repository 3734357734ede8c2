"""The sidebar: conversations, index stats, the everyday answer settings, the upload box, the
Advanced section (thresholds, templates) and trace export/import."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st
from pydantic import SecretStr

from core.checks import base_url_problem, templates_problem
from core.config import MISSING_CONTEXT_MODES, PACKINGS, RETRIEVAL_MODES, SEPARATORS, Settings
from core.conversations import list_labels
from core.errors import ContextLensError
from core.trace import iter_traces, to_jsonl
from ingest.loaders import SUPPORTED
from ingest.uploads import save_and_ingest, upload_outcomes
from ui import state
from ui.components import md_escape, one_line

log = logging.getLogger(__name__)
VIEWS = Path(__file__).resolve().parent / "views"

OFFLINE = "Offline extractive"
OPENAI = "OpenAI-compatible"


@dataclass(frozen=True)
class Slots:
    """Sidebar places the page fills after answering: the conversation list, the traces download."""

    conversations: Any
    download: Any


def render(base: Settings) -> tuple[Settings, Slots]:
    """Draw the sidebar; return the settings for this run (base + the user's choices) and the
    slots the page fills last. Everyday controls come first; thresholds, templates and other
    expert settings sit in a collapsed "Advanced" section."""
    with st.sidebar:
        conversations_slot = st.container(key="conversations")
        stats_slot = st.container()
        everyday = answer_controls(base)
        upload_box(base)
        advanced = advanced_controls(base)
        settings = base.model_copy(update={**everyday, **advanced})
        download_slot = traces_box()
        with stats_slot:
            index_stats(base)
    return settings, Slots(conversations_slot, download_slot)


def index_stats(s: Settings) -> None:
    stats = state.index(s).stats()
    st.subheader("Index")
    c1, c2 = st.columns(2)
    c1.metric("Documents", stats["documents"])
    c2.metric("Chunks", stats["chunks"])


def upload_box(base: Settings) -> None:
    """Index newly dropped files once (with progress) and keep the report on screen."""
    st.subheader("Add documents")
    files = st.file_uploader(  # no type filter: an unsupported file gets our one-line reason below
        "Add documents",
        accept_multiple_files=True,
        key="upload_docs",
        help=f"{', '.join(SUPPORTED)} — up to {base.max_file_mb:g} MB each. "
        "Indexed at once; the next question can cite them.",
        label_visibility="collapsed",
    )
    done: list[str] = st.session_state[state.UPLOADED]
    new = [f for f in files or [] if f.file_id not in done]
    if new:
        bar = st.progress(0.0, text=f"Indexing {len(new)} file(s)…")

        def progress(n: int, total: int, current: str) -> None:
            label = f"Indexing {current} ({n + 1}/{total})" if current else "Indexed"
            bar.progress(min(1.0, n / max(total, 1)), text=label)

        try:
            report = save_and_ingest(
                base, [(f.name, f.getvalue()) for f in new], progress, state.resources(base)
            )
            st.session_state[state.UPLOAD_REPORT] = {**report.as_dict(), "names": [f.name for f in new]}
        except ContextLensError as e:
            st.session_state[state.UPLOAD_REPORT] = {
                "errors": [{"file": ", ".join(f.name for f in new), "message": one_line(e)}]
            }
        finally:
            done.extend(f.file_id for f in new)  # never re-process a file, even one that failed
            bar.empty()
    upload_report(st.session_state[state.UPLOAD_REPORT])


def upload_report(report: dict[str, Any] | None) -> None:
    """One line per file of the last upload (added, unchanged, failed with its reason), kept until
    the next upload, and where indexed documents are managed."""
    if not report:
        return
    for kind, name, why in upload_outcomes(report.get("names") or [], report):
        if kind == "failed":
            st.error(f"**{md_escape(name)}** — not indexed: {md_escape(why)}", icon=":material/error:")
        elif kind == "added":
            st.success(f"**{md_escape(name)}** — added", icon=":material/check_circle:")
        else:
            st.info(f"**{md_escape(name)}** — unchanged (already indexed)", icon=":material/info:")
    st.caption("Removing a file from the box above does not remove it from the index.")
    st.page_link(str(VIEWS / "documents.py"), label="Manage indexed documents", icon=":material/folder_open:")


def _tokens_input(label: str, base: Settings, name: str, low: int, step: int, help: str) -> int:
    """A token count setting, at most the prompt limit; `name` is the Settings field and widget key."""
    value = min(int(getattr(base, name)), base.prompt_limit)
    return int(
        st.number_input(
            label, min_value=low, max_value=base.prompt_limit, value=value, step=step, key=name, help=help
        )
    )


def _checked(name: str, value: Any, problem: str | None, default: Any) -> Any:
    """The value when it has no problem (remembered as the last good one); otherwise an error right
    under its field and the last good value, so the chat keeps working."""
    good = f"cl_good_{name}"
    if problem is None:
        st.session_state[good] = value
        return value
    st.error(problem, icon=":material/error:")
    last = st.session_state.get(good, default)
    st.caption(f"Using the last good value until this is fixed: `{last}`")
    return last


def answer_controls(base: Settings) -> dict[str, Any]:
    """The everyday settings: how to search, how much to put in the prompt, who answers."""
    st.subheader("Answer settings")
    mode = st.radio(
        "Retrieval mode", RETRIEVAL_MODES, index=RETRIEVAL_MODES.index(base.retrieval_mode), horizontal=True,
        key="retrieval_mode",
        help="How documents are found: **dense** by meaning, **lexical** by the exact words, "
        "**hybrid** both, merged (the default, and usually best).",
    )  # fmt: skip
    budget = _tokens_input(
        "Knowledge budget (tokens)", base, "knowledge_budget", 16, 50,
        "How much retrieved text goes into the prompt, in tokens (about ¾ of a word each). More "
        "finds more, but costs more and can bury the answer.",
    )  # fmt: skip
    return {"retrieval_mode": mode, "knowledge_budget": int(budget), **backend_controls(base)}


def advanced_controls(base: Settings) -> dict[str, Any]:
    """Thresholds, packing, separators and templates: collapsed, with help in plain words."""
    with st.expander("Advanced", expanded=False, icon=":material/tune:"):
        top_k = st.slider(
            "Passages retrieved (top-k)", 1, max(30, base.top_k), base.top_k, key="top_k",
            help="How many passages the search returns; the knowledge budget decides how many fit.",
        )  # fmt: skip
        packing = st.radio(
            "Budget packs", PACKINGS, index=PACKINGS.index(base.packing), horizontal=True, key="packing",
            help="**chunks**: whole passages in evidence order; **units**: the best sentences, list items "
            f"and table rows of the top {base.pack_candidates} passages",
        )  # fmt: skip
        tau = st.slider(
            "Refuse below this match score (τ)", 0.0, 1.0, float(base.refusal_tau), 0.01, key="refusal_tau",
            help="When even the best passage matches the question less than this (0–1), ContextLens "
            "answers “I don't know.” — unless the next setting lets it through.",
        )  # fmt: skip
        min_overlap = st.slider(
            "…but answer if this share of the question's words is found", 0.0, 1.0,
            float(base.refusal_min_overlap), 0.01, key="refusal_min_overlap",
            help="A low match score still answers when at least this share of the question's "
            "meaningful words appear together in one retrieved passage — counted plainly and "
            "with rare words weighing more than words most passages hold; the smaller share counts.",
        )  # fmt: skip
        min_ctx = _tokens_input(
            "Refuse with less context than (tokens)", base, "min_context_tokens", 0, 10,
            "Answer “I don't know.” when less retrieved text than this fits the budget (0: never).",
        )  # fmt: skip
        missing = st.selectbox(
            "When the sources lack the answer", MISSING_CONTEXT_MODES,
            index=MISSING_CONTEXT_MODES.index(base.missing_context), key="missing_context",
            help="refuse: exactly the refusal sentence, no LLM call; related: say the sources do not "
            "cover it and show the most related evidence with citations (still counted as a refusal)",
        )  # fmt: skip
        separator = st.selectbox(
            "Between passages", SEPARATORS, index=SEPARATORS.index(base.separator), key="separator",
            help="What separates the passages in the prompt: a blank line, a rule (---), numbers, one space "
            "or one line break.",
        )  # fmt: skip
        typed = st.text_input(
            "Templates file", str(base.templates_path), key="templates_path",
            help="A JSON file with the system, per-question-type and user prompt templates "
            "(data/templates.json is the default).",
        )  # fmt: skip
        path = Path(typed.strip())
        templates = _checked("templates_path", path, templates_problem(path), base.templates_path)
    return {
        "top_k": int(top_k),
        "packing": packing,
        "refusal_tau": float(tau),
        "refusal_min_overlap": float(min_overlap),
        "min_context_tokens": int(min_ctx),
        "missing_context": missing,
        "separator": separator,
        "templates_path": templates,
    }


def backend_controls(base: Settings) -> dict[str, Any]:
    """Offline or OpenAI-compatible; the key is a keyless password widget, so it is in no
    session-state dump, and it only ever lives in a SecretStr."""
    choice = st.radio(
        "Answer backend", (OFFLINE, OPENAI), index=1 if base.uses_llm else 0, key="backend", horizontal=True,
        help="Offline: sentences quoted from the documents, no model needed. OpenAI-compatible: an LLM "
        "server (OpenAI, Ollama, vLLM, llama.cpp) writes the answer from the same prompt.",
    )  # fmt: skip
    if choice == OFFLINE:
        st.caption("Answers are ranked sentences from the injected context, with citations.")
        return {"llm_base_url": None, "llm_api_key": None}
    url = st.text_input(
        "Base URL", base.llm_base_url or "", placeholder="https://api.openai.com/v1",
        key="llm_base_url", help="Any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama).",
    )  # fmt: skip
    url = _checked(
        "llm_base_url", url.strip() or None, base_url_problem(url.strip() or None), base.llm_base_url
    )
    model = st.text_input("Model", base.llm_model, key="llm_model")
    typed = st.text_input(
        "API key",
        type="password",
        placeholder="(set in the environment)" if base.llm_api_key is not None else "sk-…",
        help="Used for this session's requests only; never shown, stored or traced.",
    )
    key = SecretStr(typed.strip()) if typed.strip() else base.llm_api_key
    if url is None and key is None:
        st.caption("Enter a base URL or an API key; until then answers are extractive.")
    return {"llm_base_url": url, "llm_api_key": key, "llm_model": model.strip() or base.llm_model}


def traces_box() -> Any:
    with st.expander("Traces", expanded=False, icon=":material/receipt_long:"):
        slot = st.empty()
        opened = st.file_uploader(
            "Open a traces file (read-only)", type=["jsonl"], key="trace_file",
            help="Re-open past turns in the inspector, e.g. a downloaded session or data/traces.jsonl.",
        )  # fmt: skip
        load_traces(opened)
    return slot


# conversations ------------------------------------------------------------------------------------


def conversation_list(slot: Any, base: Settings) -> None:
    """New, switch, rename and delete (after a confirmation); drawn after the page answered."""
    with slot:
        st.subheader("Conversations")
        st.button(
            "New conversation", key="conv_new", icon=":material/add_comment:", width="stretch",
            on_click=state.start_new_conversation, disabled=not state.traces(),
        )  # fmt: skip
        try:
            convs = state.conversations(base).recent()
        except ContextLensError as e:
            st.error(one_line(e), icon=":material/error:")
            return
        current = state.current_conversation()
        if not convs:
            st.caption("Your conversations are kept here; a reload does not lose them.")
            return
        labels = list_labels(convs)
        with st.container(height=min(40 + 38 * len(convs), 230), border=False, key="conv_list"):
            for c in convs:
                st.button(
                    labels[c.id],
                    key=f"conv-{c.id}", width="stretch", type="secondary" if c.id == current else "tertiary",
                    icon=":material/chat:" if c.id == current else None,
                    on_click=state.open_conversation, args=(c.id,), help=f"last question {c.last_asked} UTC",
                )  # fmt: skip
        if current is not None:
            manage_current(base, current, next((c for c in convs if c.id == current), None))


def manage_current(base: Settings, cid: str, conv: Any) -> None:
    """Rename or delete the open conversation (deleting asks first)."""
    with st.popover("Rename or delete", icon=":material/edit:", width="stretch"):
        title = st.text_input("Title", conv.title if conv else "", key=f"conv_title-{cid}")
        if st.button("Rename", key="conv_rename", icon=":material/edit:"):
            try:
                state.conversations(base).rename(cid, title)
                st.rerun()
            except ContextLensError as e:
                st.error(one_line(e))
        confirm = st.checkbox("Yes, delete this conversation and its turns", key=f"conv_confirm-{cid}")
        if st.button("Delete", key="conv_delete", icon=":material/delete:", disabled=not confirm):
            try:
                state.conversations(base).delete(cid)
            except ContextLensError as e:
                st.error(one_line(e))
                return
            state.start_new_conversation()
            st.session_state[state.NOTICE] = f"Deleted the conversation “{conv.title if conv else cid}”."
            st.rerun()


def download_traces(slot: Any) -> None:
    """The session's traces (answers and replays) as JSONL; drawn last so it includes this run."""
    records = state.session_records()
    slot.download_button(
        f"Download this session's traces ({len(records)})",
        data=to_jsonl(records),
        file_name=f"contextlens-traces-{dt.datetime.now():%Y%m%d-%H%M%S}.jsonl",
        mime="application/x-ndjson",
        disabled=not records,
        on_click="ignore",
        key="download_traces",
        icon=":material/download:",
    )


def load_traces(opened: Any) -> None:
    """Parse an opened traces file once per upload; removing the file closes it."""
    if opened is None:
        st.session_state[state.LOADED] = None
        return
    current = st.session_state[state.LOADED]
    if current and current["file_id"] == opened.file_id:
        return
    text = opened.getvalue().decode("utf-8", errors="replace")
    records = list(iter_traces(text.splitlines()))
    st.session_state[state.LOADED] = {"file_id": opened.file_id, "name": opened.name, "records": records}
