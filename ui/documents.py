"""The Documents page: what is indexed (ingest/documents.py decides; this renders), each document's
chunks as stored, and removing a document after a confirmation."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.config import Settings
from core.errors import ContextLensError
from ingest.documents import IndexedDocument, document_chunks, list_documents, remove_documents
from ui import state
from ui.components import md_escape, one_line

CONFIRM = "cl_confirm_remove"  # the source whose removal waits for a confirmation
REMOVED = "cl_removed_note"  # the last removal's line, shown once


def page() -> None:
    s = state.base_settings()
    st.title("Documents")
    index = state.index(s)
    note = st.session_state.pop(REMOVED, None)
    if note:
        st.success(md_escape(note), icon=":material/delete:")
    docs = list_documents(index, s)
    if not docs:
        st.info("Nothing is indexed yet. Add documents from the Chat page's sidebar or with `make run`.")
        return
    query = st.text_input("Search documents", placeholder="part of a name or category", key="doc_search")
    shown = [d for d in docs if query.strip().lower() in f"{d.source} {d.category}".lower()]
    st.caption(f"{len(shown)} of {len(docs)} document(s) · {sum(d.chunks for d in shown)} chunks")
    st.dataframe(_table(shown), hide_index=True, width="stretch")
    if not shown:
        return
    source = st.selectbox("Open a document", [d.source for d in shown], key="doc_open")
    doc = next(d for d in shown if d.source == source)
    _details(s, doc)


def _table(docs: list[IndexedDocument]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "source": d.source, "category": d.category, "chunks": d.chunks, "tokens": d.tokens,
                "origin": d.origin, "last indexed (UTC)": d.indexed_at.replace("T", " ")[:19] or "—",
            }
            for d in docs
        ]
    )  # fmt: skip


def _details(s: Settings, doc: IndexedDocument) -> None:
    st.subheader(md_escape(doc.source))
    st.caption(
        f"{md_escape(doc.category) or 'no category'} · {doc.chunks} chunks · {doc.tokens} tokens · {doc.origin}"
    )
    _remove_controls(s, doc)
    for chunk in document_chunks(state.index(s), doc.source):
        meta = chunk.metadata
        label = f"chunk {int(meta.get('chunk_index', 0)) + 1} · {meta.get('tokens', '?')} tokens"
        if meta.get("heading_path"):
            label += f" · {md_escape(str(meta['heading_path']))}"
        with st.expander(label):
            st.code(chunk.text, language=None, wrap_lines=True)


def _remove_controls(s: Settings, doc: IndexedDocument) -> None:
    """A remove button, then a confirmation naming what goes; the next question no longer cites it."""
    if st.session_state.get(CONFIRM) != doc.source:
        if st.button("Remove from the index…", icon=":material/delete:", key="doc_remove"):
            st.session_state[CONFIRM] = doc.source
            st.rerun()
        return
    extra = " Its uploaded copy is deleted too." if doc.origin == "upload" else ""
    st.warning(
        f"Remove **{md_escape(doc.source)}** and its {doc.chunks} chunks from the index? The next question "
        f"can no longer cite it.{extra}",
        icon=":material/warning:",
    )
    yes, no = st.columns(2)
    if yes.button("Yes, remove it", type="primary", key="doc_remove_yes"):
        st.session_state.pop(CONFIRM, None)
        try:
            _, chunks = remove_documents(state.index(s), s, [doc.source])
            st.session_state[REMOVED] = f"Removed {doc.source} ({chunks} chunks)."
        except ContextLensError as e:
            st.session_state[REMOVED] = f"Could not remove {doc.source}: {one_line(e)}"
        st.rerun()
    if no.button("Cancel", key="doc_remove_no"):
        st.session_state.pop(CONFIRM, None)
        st.rerun()
