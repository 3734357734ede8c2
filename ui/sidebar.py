"""The sidebar: index stats, the upload box, per-request settings, backend, trace export/import."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

import streamlit as st
from pydantic import SecretStr

from core.config import MISSING_CONTEXT_MODES, PACKINGS, RETRIEVAL_MODES, SEPARATORS, Settings
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


def render(base: Settings) -> tuple[Settings, Any]:
    """Draw the sidebar; return the settings for this run (base + the user's choices) and the
    slot for the traces download, which the page fills after answering."""
    with st.sidebar:
        stats_slot = st.container()
        upload_box(base)
        settings = base.model_copy(update={**retrieval_controls(base), **backend_controls(base)})
        download_slot = traces_box()
        with stats_slot:
            index_stats(base)
    return settings, download_slot


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


def _tokens_input(label: str, base: Settings, name: str, low: int, step: int) -> int:
    """A token count setting, at most the prompt limit; `name` is the Settings field and widget key."""
    value = min(int(getattr(base, name)), base.prompt_limit)
    return int(
        st.number_input(label, min_value=low, max_value=base.prompt_limit, value=value, step=step, key=name)
    )


def retrieval_controls(base: Settings) -> dict[str, Any]:
    with st.expander("Retrieval & budget", expanded=True, icon=":material/tune:"):
        top_k = st.slider("Top-k", 1, max(30, base.top_k), base.top_k, key="top_k")
        budget = _tokens_input("Knowledge budget (tokens)", base, "knowledge_budget", 16, 50)
        packing = st.radio(
            "Budget packs", PACKINGS, index=PACKINGS.index(base.packing), horizontal=True, key="packing",
            help="units: the best sentences, list items and table rows of the top "
            f"{base.pack_candidates} candidates; chunks: whole chunks of the top-k in rank order",
        )  # fmt: skip
        tau = st.slider(
            "Refusal threshold τ (top score)", 0.0, 1.0, float(base.refusal_tau), 0.01, key="refusal_tau"
        )
        min_overlap = st.slider(
            "…unless this share of question words is in the evidence", 0.0, 1.0,
            float(base.refusal_min_overlap), 0.01, key="refusal_min_overlap",
            help="A top score under τ refuses only when less than this share of the question's "
            "content words appear in one injected chunk.",
        )  # fmt: skip
        min_ctx = _tokens_input("Min context tokens", base, "min_context_tokens", 0, 10)
        missing = st.selectbox(
            "When the sources lack the answer", MISSING_CONTEXT_MODES,
            index=MISSING_CONTEXT_MODES.index(base.missing_context), key="missing_context",
            help="refuse: exactly the refusal sentence, no LLM call; related: say the sources do not "
            "cover it and show the most related evidence with citations (still counted as a refusal)",
        )  # fmt: skip
        separator = st.selectbox(
            "Chunk separator", SEPARATORS, index=SEPARATORS.index(base.separator), key="separator"
        )
        mode = st.radio(
            "Retrieval mode", RETRIEVAL_MODES, index=RETRIEVAL_MODES.index(base.retrieval_mode), horizontal=True,
            key="retrieval_mode",
        )  # fmt: skip
        templates = st.text_input("Templates file", str(base.templates_path), key="templates_path")
    return {
        "top_k": int(top_k),
        "knowledge_budget": int(budget),
        "packing": packing,
        "refusal_tau": float(tau),
        "refusal_min_overlap": float(min_overlap),
        "min_context_tokens": int(min_ctx),
        "missing_context": missing,
        "separator": separator,
        "retrieval_mode": mode,
        "templates_path": Path(templates.strip()) if templates.strip() else base.templates_path,
    }


def backend_controls(base: Settings) -> dict[str, Any]:
    """Offline or OpenAI-compatible; the key is a keyless password widget, so it is in no
    session-state dump, and it only ever lives in a SecretStr."""
    with st.expander("Answer backend", expanded=False, icon=":material/smart_toy:"):
        choice = st.radio(
            "Backend", (OFFLINE, OPENAI), index=1 if base.uses_llm else 0, key="backend",
            label_visibility="collapsed",
        )  # fmt: skip
        if choice == OFFLINE:
            st.caption("Answers are ranked sentences from the injected context, with citations.")
            return {"llm_base_url": None, "llm_api_key": None}
        url = st.text_input(
            "Base URL", base.llm_base_url or "", placeholder="https://api.openai.com/v1",
            key="llm_base_url", help="Any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama).",
        )  # fmt: skip
        model = st.text_input("Model", base.llm_model, key="llm_model")
        typed = st.text_input(
            "API key",
            type="password",
            placeholder="(set in the environment)" if base.llm_api_key is not None else "sk-…",
            help="Used for this session's requests only; never shown, stored or traced.",
        )
        key = SecretStr(typed.strip()) if typed.strip() else base.llm_api_key
        url = url.strip() or None
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
        if st.button("Clear conversation", key="clear_conversation", icon=":material/delete:"):
            state.clear_conversation()
    return slot


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
